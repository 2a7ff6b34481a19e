"""Failure-free runs of a workload: the reference final states of
FailureFreeEquivalence and the determinism class (docs/design.md §2; Guermouche and Ropars 2011 §2.3 for
send-determinism).

- deterministic: every failure-free interleaving has, per process, the same
  sequence of receptions and choices;
- send-deterministic: every one has, per process, the same sequence of sends
  (whatever the reception order);
- non-deterministic: otherwise.
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from dataclasses import dataclass

from rrcheck.checker.model.program import CLASSES, DETERMINISTIC, NON_DETERMINISTIC, SEND_DETERMINISTIC, Workload
from rrcheck.checker.model.system import CRASHES, Bounds, System
from rrcheck.errors import UsageError
from rrcheck.protocols.base import Plain

MAX_STATES = 1_000_000   # failure-free states classified (about a minute); the defaults have a few hundred


@dataclass(frozen=True)
class FailureFree:
    finals: frozenset          # tuples of final local states, one per terminal
    observed: str              # the strongest class every run satisfies
    states: int
    runs_ended: int
    deadlocks: int             # terminals with an unfinished process: a broken workload
    distinct_send_sequences: int
    distinct_reception_orders: int

    def satisfies(self, claimed: str) -> bool:
        return CLASSES.index(self.observed) <= CLASSES.index(claimed)


def _say(text: str | None) -> None:
    """A long classification speaks on a terminal (elsewhere its bound is enough)."""
    import sys
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K" if text is None else f"\r\033[Krrcheck: {text}")
        sys.stderr.flush()


_CLASSIFIED: dict = {}   # workload -> FailureFree, whatever time limit it was found within
_TIME_LIMIT = contextvars.ContextVar("classification_time_limit", default=None)


@contextlib.contextmanager
def within(seconds: float | None):
    """Every classification in the block, a workload file's at loading too, gives up
    after ``seconds`` (a command's --time-limit)."""
    token = _TIME_LIMIT.set(seconds)
    try:
        yield
    finally:
        _TIME_LIMIT.reset(token)


def failure_free(workload: Workload, time_limit: float | None = None) -> FailureFree:
    """The failure-free runs of ``workload``, classified: at most MAX_STATES states,
    within ``time_limit`` seconds if given (a search's --time-limit covers its
    classification too); past either, one UsageError line."""
    if workload not in _CLASSIFIED:
        if len(_CLASSIFIED) >= 64:
            _CLASSIFIED.clear()
        _CLASSIFIED[workload] = _classify(workload, time_limit or _TIME_LIMIT.get())
    return _CLASSIFIED[workload]


def _classify(workload: Workload, time_limit: float | None) -> FailureFree:
    system = System(Plain(), workload, Bounds(failures=0, checkpoints=0))
    finals, sends, orders, dead = set(), set(), set(), [0]

    def on_terminal(s):
        if not all(system.finished(s, p) for p in range(system.n)):
            dead[0] += 1
            return
        finals.add(tuple(pr.acc for pr in s.procs))
        sends.add(tuple(pr.ghost.sent for pr in s.procs))
        orders.add(tuple(pr.ghost.order for pr in s.procs))

    t0 = time.perf_counter()
    deadline = t0 + time_limit if time_limit else None
    states = reachable(system, on_terminal, limit=MAX_STATES, name=workload.name, deadline=deadline)
    if states < 0:
        raise UsageError(f"workload {workload.name}: its failure-free runs were not all classified within the "
                         f"time limit ({-states:,} states in {time.perf_counter() - t0:.1f} s); raise --time-limit "
                         "or make the workload smaller")
    if states > MAX_STATES:
        receptions = sum(1 for prog in workload.programs for op in prog if op[0] == "recv")
        raise UsageError(f"workload {workload.name}: its failure-free runs alone pass {MAX_STATES:,} states "
                         f"({workload.n} processes, {receptions} receptions), more than any search with "
                         "failures could cover; make it smaller (fewer processes, iterations or ANY_SOURCE "
                         "receptions)")
    if len(orders) <= 1:
        observed = DETERMINISTIC
    elif len(sends) <= 1:
        observed = SEND_DETERMINISTIC
    else:
        observed = NON_DETERMINISTIC
    return FailureFree(frozenset(finals), observed, states, len(finals), dead[0], len(sends), len(orders))


def reachable(system, on_terminal, reduce: bool = False, limit: int | None = None, name: str = "",
              deadline: float | None = None) -> int:
    """Enumerate every reachable state (no invariants) — with ``reduce``, those
    the system's reductions keep (the explorer's, checker/explicit/explore.py); call ``on_terminal`` on each state
    with nothing enabled but crashes. Returns the number of states (``limit`` + 1
    if there are more than ``limit``: the enumeration stops there; minus the
    states so far if ``time.perf_counter()`` passes ``deadline``)."""
    init = system.initial()
    seen = {init}
    stack = [init]
    report = 100_000
    while stack:
        s = stack.pop()
        acts = system.actions(s)
        if all(a[0] in CRASHES for a in acts):
            on_terminal(s)
        for a in (system.reduce(s, acts) if reduce else acts):
            s2, _ = system.step(s, a)
            nxt = [s2]
            if reduce and a[0] not in CRASHES:
                nxt += [system.step(s2, c)[0] for c in system.crashes_after(s, a, s2)]
            for x in nxt:
                if x not in seen:
                    seen.add(x)
                    stack.append(x)
        if limit is not None and len(seen) > limit:
            break
        if deadline is not None and time.perf_counter() > deadline:
            _say(None) if report > 100_000 else None
            return -len(seen)
        if limit is not None and len(seen) >= report:
            _say(f"workload {name}: {len(seen):,} failure-free states so far (at most {limit:,})")
            report += 100_000
    if limit is not None and report > 100_000:
        _say(None)
    return len(seen)
