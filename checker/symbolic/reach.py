"""Is a lemma's violation reachable in the protocol rrcheck runs? A breadth-first
search over a small scenario's :class:`~rrcheck.checker.model.system.System`
(``actions``/``step``, no reduction, so every reachable state is judged) that
evaluates the lemma's Python twin on every transition.

It ties a Z3 lemma to the Python protocol (the twin must hold on every state
of the correct protocol and fail for the lemma's mutant) and classifies a
counterexample to induction: if the explorer reaches a state where the twin
fails, the CTI is a real bug; if it explores the scenario completely and
never does, the CTI's pre-state is unreachable there — a missing
strengthening (for that scenario's size).
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from rrcheck.checker.invariants import Judge
from rrcheck.checker.model.scenarios import Scenario, make_system


@dataclass
class Reach:
    protocol: str
    mutant: str | None
    scenario: str
    violated: bool
    complete: bool
    states: int
    transitions: int
    cpu_seconds: float
    message: str = ""
    trace: tuple = ()
    witnesses: dict | None = None

    def as_dict(self) -> dict:
        return {"protocol": self.protocol, "mutant": self.mutant, "scenario": self.scenario,
                "violated": self.violated, "complete": self.complete, "states": self.states,
                "transitions": self.transitions, "cpu_seconds": round(self.cpu_seconds, 3),
                "message": self.message, "trace": [list(a) for a in self.trace],
                "witnesses": dict(sorted((self.witnesses or {}).items()))}


def trace_to(parent: dict, s) -> tuple:
    """The actions from the initial state to ``s`` in a BFS tree of (parent, action) links."""
    out = []
    while parent[s] is not None:
        s, a = parent[s]
        out.append(a)
    return tuple(reversed(out))


def search(protocol: str, scenario: Scenario, twin, mutant: str | None = None,
           max_states: int = 300_000, cpu_limit: float = 60.0) -> Reach:
    sysm, _ = make_system(protocol, scenario, mutant)
    judge = Judge(sysm)
    t0 = time.process_time()
    init = sysm.initial()
    parent = {init: None}
    frontier = deque([init])
    transitions = 0

    def path(s) -> tuple:
        return trace_to(parent, s)

    def result(violated, complete, message="", trace=()):
        return Reach(protocol, mutant, scenario.label(), violated, complete, len(parent), transitions,
                     time.process_time() - t0, message, trace, dict(judge.w))

    v = twin(judge, None, None, init, [])
    if v:
        return result(True, False, v.message)
    expanded = 0
    while frontier:
        s = frontier.popleft()
        expanded += 1
        for a in sysm.actions(s):
            s2, obs = sysm.step(s, a)
            transitions += 1
            v = twin(judge, s, a, s2, obs)
            if v:
                return result(True, False, v.message, path(s) + (a,))
            if s2 not in parent:
                parent[s2] = (s, a)
                frontier.append(s2)
        # the CPU clock is a system call: read it every 256 states
        if len(parent) > max_states or expanded % 256 == 0 and time.process_time() - t0 > cpu_limit:
            return result(False, False)
    return result(False, True)
