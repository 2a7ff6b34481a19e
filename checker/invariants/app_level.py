"""C3's own properties (the C3 slides, "Log-End Line"), and the message classes of
"Possible Types of Messages" counted as witnesses.

The Log-End line of epoch k joins the points where each process stops logging
k. The slides require:

- **LogEndNoBackwardCrossing** — no message crosses it backwards: nothing sent
  after its sender stopped logging k is received while its receiver still
  logs k (the receiver's log would depend on an event its sender does not
  log, and so cannot replay);
- **LogEndNoLateCrossing** — no late message crosses it: a message sent
  before its sender's checkpoint k is received before its receiver stops
  logging k (else it is in no log, and lost at a rollback to line k).

Both are judged on every application packet received and every collective
call, from the piggybacked header (epoch, logging bit) and the receiver's
state. At every rollback, each message the rolled-back process had received
is classified against the recovery line with the ghost histories: *past*
(sent and received before it), *late* (sent before, received after), *early*
(sent after, received before) or *future* (both after).
"""
from __future__ import annotations

from rrcheck.checker.invariants.general import Property, Violation, register
from rrcheck.protocols.app_level import stopped
from rrcheck.protocols.base import coll_sources

PROTOCOL = "app-level"


def _deliveries(sysm, before, action):
    """(receiver, its state before, sender's (epoch, logging), sender) for the
    data an action hands over in the current incarnation."""
    if action[0] == "deliver":
        src, dst, i = action[1], action[2], action[3]
        pk = before.wire[src * sysm.n + dst][i]
        vol = before.procs[dst].vol
        if pk.kind == "app" and pk.hdr[0] == vol.rec:
            yield dst, vol, (pk.hdr[2], pk.hdr[3]), src
    elif action[0] == "coll_all":
        op = sysm.progs[0][before.procs[0].pc]
        vols = [pr.vol for pr in before.procs]
        for p in range(sysm.n):
            if vols[p].replay:
                continue  # a replayed call: its data crossed the line in the original run
            for q in coll_sources(op[1], op[2], p, sysm.n):
                yield p, vols[p], (vols[q].epoch, vols[q].logging), q


def no_backward_crossing(judge, before, action, after, obs):
    for p, vol, (e, lg), q in _deliveries(judge.sys, before, action):
        now = after.procs[p].vol
        if now.logging and now.rec == vol.rec and stopped(e, lg, now.epoch):
            return Violation("LogEndNoBackwardCrossing",
                             f"P{p} still logs epoch {now.epoch} after receiving data P{q} sent once it had "
                             f"stopped logging it: a message crosses the Log-End line backwards",
                             {"receiver": p, "sender": q, "epoch": now.epoch, "sender_epoch": e,
                              "sender_logging": lg})
        if vol.logging and not lg and e == vol.epoch:
            judge.w["stopped_sender_messages_seen_while_logging"] += 1
    return None


def no_late_crossing(judge, before, action, after, obs):
    w = judge.w
    for p, vol, (e, lg), q in _deliveries(judge.sys, before, action):
        if e < vol.epoch:
            w["late_arrivals"] += 1
            if not vol.logging:
                return Violation("LogEndNoLateCrossing",
                                 f"a late message from P{q} (epoch {e}) reaches P{p} after P{p} stopped logging "
                                 f"epoch {vol.epoch}: it is in no log",
                                 {"receiver": p, "sender": q, "epoch": vol.epoch, "sender_epoch": e})
        elif e > vol.epoch:
            w["early_arrivals"] += 1
        else:
            w["intra_epoch_arrivals"] += 1
    for o in obs:
        if o[0] == "restore":
            _classify(judge, after, o)
    return None


def _classify(judge, after, o) -> None:
    """"Possible Types of Messages", against the line a process returns to."""
    _, p, cid, old, new = o
    sysm, w = judge.sys, judge.w
    img_p = sysm.image(after, p, cid)
    for q in range(sysm.n):
        img_q = sysm.image(after, q, cid)
        if q == p or img_q is None:
            continue
        sent_before = len(img_q.ghost.sent[p])
        got_before = new.delivered_ids(q) | {m.msg.gid[2] for m in img_p.mailbox if m.msg.src == q}
        for k, _ in old.delivered[q]:
            before_line = k < sent_before
            kind = ("past" if k in got_before else "late") if before_line else (
                "early" if k in got_before else "future")
            w[f"{kind}_messages_at_rollback"] += 1


register(
    Property("LogEndNoBackwardCrossing",
             "Bronevetsky et al., C3 slides, \"Log-End Line\": “No message may cross Log-End line backwards”; our "
             "reading: no message sent after its sender stopped logging is received while its receiver still logs that "
             "epoch", (PROTOCOL,), transition=no_backward_crossing),
    Property("LogEndNoLateCrossing",
             "Bronevetsky et al., C3 slides, \"Log-End Line\": “No late message may cross Log-End line”; our reading: "
             "every late message is received before its receiver stops logging (witnesses: past, late, early and "
             "future messages at each rollback)", (PROTOCOL,),
             transition=no_late_crossing),
)
