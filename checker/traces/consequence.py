"""What a replayed message that overtook its cause leads to (Guermouche and Ropars
2011 §3.2): “Ceci pourrait amener m_7 à être renvoyé avant m_1 et donc m_8 à être
reçu avant m_2” (this could make m7 be re-sent before m1, and so m8 be received
before m2). CausalReplayOrder stops a run at the first half, the replayed m7's
delivery; this module searches on from there for the second: a process receives a
message whose causal past holds a message addressed to it that the sender's
re-execution has not sent again — an execution no failure-free run can give.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass


@dataclass
class Overtaking:
    steps: list          # the continuation, scheduler events
    receiver: int
    got: str             # the message received (m8)
    before: str          # the message it causally follows, not sent again (m2)
    sender: int          # who has still to send it again

    def text(self) -> str:
        return (f"what follows ({len(self.steps)} more steps, the shortest): P{self.receiver} receives {self.got} "
                f"before {self.before}, which {self.got} causally follows and P{self.sender} has not sent again "
                f"— the inconsistency of Guermouche and Ropars §3.2 (their Fig. 2's m8 received before m2)")

    def as_dict(self) -> dict:
        return {"steps": [list(a) for a in self.steps], "receiver": f"P{self.receiver}", "received": self.got,
                "before": self.before, "not_sent_again_by": f"P{self.sender}"}


def _overtaking(system, s2, obs):
    wl = system.workload
    for o in obs:
        if o[0] != "delivered":
            continue
        _, r, src, k, _payload, _hist, past = o
        h = s2.procs[r].ghost
        for q, n in enumerate(past):
            if q == r or s2.procs[q].ghost is None:
                continue
            made = sum(map(len, s2.procs[q].ghost.sent))
            for i in range(made + 1, n + 1):   # q's sends in the past that q has not made again
                at = wl.nth_send(q, i)
                if at and at[0] == r and at[1] not in h.delivered_ids(q):
                    name = wl.labels.get((q, r, at[1]), f"#{at[1]} from P{q}")
                    return r, wl.labels.get((src, r, k), f"#{k} from P{src}"), name, q
    return None


def overtaking_after(system, events, depth: int = 8, budget: int = 20_000) -> Overtaking | None:
    """The shortest continuation of ``events`` (no further failure; breadth-first,
    at most ``depth`` steps and ``budget`` states) in which a process receives a
    message before one addressed to it that the message causally follows and its
    sender has not sent again; None if there is none within the bounds."""
    s = system.initial()
    for a in events:
        s, _ = system.step(s, tuple(a))
    seen = {s}
    queue = deque([(s, [])])
    while queue and len(seen) < budget:
        x, path = queue.popleft()
        if len(path) >= depth:
            continue
        for a in system.actions(x):
            if a[0] in ("crash", "crash_node"):
                continue
            y, obs = system.step(x, a)
            hit = _overtaking(system, y, obs)
            if hit:
                return Overtaking(path + [a], *hit)
            if y not in seen:
                seen.add(y)
                queue.append((y, path + [a]))
    return None
