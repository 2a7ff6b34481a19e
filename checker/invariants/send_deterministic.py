"""The send-deterministic protocol's own properties (Guermouche and Ropars 2011 §3.2).

- **CausalReplayOrder** — a message is never delivered before a message it
  causally depends on: no process delivers a message whose causal past holds a
  send of its own group that the group's re-execution has not made again
  (§3.2: "si l'émission d'un message m' dépend de la réception d'un message m,
  il faut s'assurer que m' ne sera pas renvoyé avant la réception du message
  m"). The causal past of a message is counted, per process, in sends
  (a vector clock over send events) that the message carries as ghost data,
  apart from the protocol (checker/model/ghost.py).
  Only the receiver's group in the receiver's incarnation (restart epoch) is
  judged: a survivor may hold orphans of another group, since
  send-determinism re-creates them (§2.3), and a member the rollback has not
  reached yet delivers in a history the rollback discards.
- **RestartTermination** — every restart ends (Fig. 6 lines 23–24, Fig. 5
  lines 60–64): when a run ends, no process is restarting, no restart process
  holds messages, and no process still counts a group as restarting or holds
  buffered messages for it.
"""
from __future__ import annotations

from rrcheck.checker.invariants.general import Property, Violation, register

PROTOCOLS = ("send-deterministic",)


def _sends(ghost) -> int:
    return sum(len(s) for s in ghost.sent)


def causal_transition(judge, before, action, after, obs):
    sysm, w = judge.sys, judge.w
    for o in obs:
        if o[0] == "delivered":
            _, r, src, k, _payload, _hist, past = o
            epoch = after.procs[r].vol.epoch
            for q in sysm.ctx.group(r):
                qv = after.procs[q].vol
                if not past[q] or qv is None or qv.epoch != epoch or qv.Status == "await":
                    continue  # q is down or r, about to roll back, delivers in a discarded history
                done = _sends(after.procs[q].ghost)
                if after.failures:
                    w["causal_deliveries_checked_after_failure"] += 1
                if past[q] > done:
                    label = sysm.workload.labels.get((src, r, k), f"#{k} from P{src}")
                    cause = f"send {past[q]} of P{q} of its own group"
                    at = sysm.workload.nth_send(q, past[q])
                    if at and (q, *at) in sysm.workload.labels:
                        cause = f"{sysm.workload.labels[(q, *at)]}, {cause}"
                    return Violation("CausalReplayOrder",
                                     f"P{r} delivers {label}, which causally follows {cause}, "
                                     f"but P{q}'s re-execution has made only {done} sends: "
                                     f"a replayed message overtook its cause",
                                     {"receiver": r, "sender": src, "k": k, "depends_on": q,
                                      "sends_needed": past[q], "sends_made": done})
    return None


def restart_terminal(judge, s):
    for p, pr in enumerate(s.procs):
        vol = pr.vol
        if vol is None:
            continue
        if vol.Status != "run" or vol.rp is not None or vol.Redemarrage or vol.PasEnvoyes:
            return Violation("RestartTermination",
                             f"the run ends with P{p} still {vol.Status}, counting groups "
                             f"{sorted(vol.Redemarrage)} as restarting, {len(vol.PasEnvoyes)} buffered messages"
                             + (" and a restart process" if vol.rp is not None else ""),
                             {"process": p, "status": vol.Status, "restarting": sorted(vol.Redemarrage),
                              "buffered": len(vol.PasEnvoyes)})
    if s.failures:
        judge.w["terminal_states_every_restart_ended"] += 1
    return None


register(
    Property("CausalReplayOrder",
             "our reading of Guermouche & Ropars 2011 §3.2 (a message that depends on another is not re-sent before "
             "that one is received), checked on deliveries: no process delivers a message causally after a send of its "
             "own group that the group's re-execution has not made again", PROTOCOLS, transition=causal_transition),
    Property("RestartTermination",
             "every restart of Guermouche & Ropars 2011 Fig. 5–6 ends (Fig. 6 lines 23–24, Fig. 5 lines 60–64; a "
             "liveness property of ours, the paper states none): no process is left restarting, counting a group as "
             "restarting or buffering messages for it", PROTOCOLS, terminal=restart_terminal),
)
