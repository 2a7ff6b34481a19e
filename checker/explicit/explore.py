"""Explicit-state search (docs/design.md §5): BFS (a violation found is a shortest one),
DFS, and seeded random walks, over any :class:`rrcheck.checker.model.system.System`.

The explorer never imports a protocol: it asks the system for enabled actions
and successors, and the :class:`rrcheck.checker.invariants.Judge` for verdicts.
"""
from __future__ import annotations

import gc
import random
import signal
import threading
import time
from collections import deque
from contextlib import contextmanager

from rrcheck.checker.explicit.progress import LOOK_EVERY, Interrupted, MemoryGuard, Progress, explored
from rrcheck.checker.invariants import Judge
from rrcheck.checker.invariants.verdict import Result
from rrcheck.checker.model.system import CRASHES
from rrcheck.errors import ModelError, UsageError



def _path(parent: dict, s) -> list:
    out = []
    while parent[s] is not None:
        s, a = parent[s]
        out.append(a)
    out.reverse()
    return out


def explore(system, judge: Judge, strategy: str = "bfs", max_states: int | None = None,
            time_limit: float | None = None, seed: int = 0, walks: int = 1000,
            progress: bool | None = None, reduce: bool = True, workers: int = 1,
            snapshots=None, fingerprints: bool = False, memory_limit: int | None = None,
            visited: set | None = None) -> Result:
    """Search the state space of ``system``; ``reduce`` applies the reductions
    of :meth:`rrcheck.checker.model.system.System.reduce` (same terminal states, fewer paths);
    ``workers`` > 1 or ``fingerprints`` runs the BFS on that many processes with a visited set
    of 64-bit fingerprints (:mod:`rrcheck.checker.explicit.parallel`);
    ``snapshots`` (:class:`rrcheck.checker.explicit.resume.Snapshots`, or for a fingerprint search
    :class:`rrcheck.checker.explicit.resume_parallel.GenerationSnapshots`) saves the BFS now and
    then, at a bound and on an interrupt, and continues a saved one. A search whose resident memory
    passes ``memory_limit`` bytes (None: 80 % of the memory available) stops incomplete;
    an interrupted one raises :class:`rrcheck.checker.explicit.progress.Interrupted`, which
    holds what it had explored. ``visited``, if given, receives every state a one-worker
    search stored (the states themselves: their equality is the search's key)."""
    if visited is not None and (workers > 1 or fingerprints or strategy == "random"):
        raise ValueError("only a one-worker search keeps its states")
    if workers > 1 or fingerprints or strategy == "random":
        from rrcheck.checker.explicit.parallel import FingerprintCollision, explore_parallel
        try:
            with _deferred_interrupts(snapshots is not None and snapshots.save_to is not None) as stop, \
                    no_cycle_collection():  # forked workers inherit it
                if strategy == "random":
                    return _random(system, judge, seed, walks, time_limit, progress, memory_limit)
                return explore_parallel(system, judge, workers, max_states, time_limit, progress, reduce,
                                        memory_limit, snapshots, stop)
        except (UsageError, KeyboardInterrupt, ModelError, OSError, FingerprintCollision):
            raise
        except Exception as e:  # where is not known here: the one-worker BFS says
            raise raised(e, []) from e
    if snapshots is not None and strategy != "bfs":
        raise ValueError("only a breadth-first search is saved and recovered")
    with _deferred_interrupts(snapshots is not None and snapshots.save_to is not None) as stop, \
            no_cycle_collection():
        return _search(system, judge, strategy, max_states, time_limit, progress, reduce, snapshots, stop,
                       memory_limit, visited)


@contextmanager
def no_cycle_collection():
    """Python's cycle collector paused for a search: states, packets and protocol
    values are immutable and form no reference cycles (a test holds a search to
    that), so its passes over millions of live objects are a fifth of the time
    spent for nothing. Whatever a search did leave is collected after it."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def raised(e: Exception, events: list) -> ModelError:
    """What a search reports when the model raises ``e`` after ``events``."""
    return ModelError(f"the model raised {type(e).__name__}: {e}", events)


# what a search that runs out of memory on one worker can do instead
_STORE_LESS = "use --fingerprints or --workers to store less per state, or --memory-limit to raise it"


def _search(system, judge, strategy, max_states, time_limit, progress, reduce, snapshots, stop,
            memory_limit, visited=None) -> Result:
    t0 = time.perf_counter()
    memory = MemoryGuard(memory_limit)
    prog = Progress(progress, limit=memory.limit)
    look = LOOK_EVERY  # states to expand before the next look at the progress line and the memory
    reason = ""

    def done(verdict, v=None, trace=()):
        prog.close()
        if visited is not None:
            visited.update(parent)
        return Result(verdict, len(parent), judge.w["transitions"], depth_of_max,
                      time.perf_counter() - t0, dict(judge.w), strategy, v, list(trace), reason)

    if snapshots is not None and snapshots.recovered is not None:
        parent, queued, depth_of_max, before = snapshots.restore(system, judge)
        t0 -= before
        frontier: deque = deque(queued)
    else:
        init = system.initial()
        parent = {init: None}
        depth_of_max = 0
        v = judge.state(init)
        if v:
            return done("violation", v, [])
        frontier = deque([(init, 0)])
    pop = frontier.popleft if strategy == "bfs" else frontier.pop
    max_depth = system.bounds.depth
    s = a = c = None
    try:
        while frontier:
            if snapshots is not None and (stop or snapshots.due()):
                snapshots.save(parent, frontier, depth_of_max, judge, time.perf_counter() - t0)
                if stop:
                    prog.close()
                    raise KeyboardInterrupt
            s, d = pop()
            a = c = None  # the actions under way, for the report of a model that raises
            depth_of_max = max(depth_of_max, d)
            acts = system.actions(s)
            if all(a[0] in CRASHES for a in acts):  # failures are not progress
                v = judge.terminal(s)
                if v:
                    return done("violation", v, _path(parent, s))
            if d >= max_depth:
                reason = f"depth bound {max_depth} reached"
                continue
            if reduce:
                acts = system.reduce(s, acts)
            for a in acts:
                c = None
                s2, obs = system.step(s, a)
                v = judge.transition(s, a, s2, obs)
                if v:
                    return done("violation", v, _path(parent, s) + [a])
                new = s2 not in parent
                if new:
                    parent[s2] = (s, a)
                    v = judge.state(s2)
                    if v:
                        return done("violation", v, _path(parent, s2))
                    frontier.append((s2, d + 1))
                if reduce and a[0] not in CRASHES:
                    for c in system.crashes_after(s, a, s2):
                        s3, obs = system.step(s2, c)
                        v = judge.transition(s2, c, s3, obs)
                        if v:
                            return done("violation", v, _path(parent, s2) + [c])
                        if s3 not in parent:
                            parent[s3] = (s2, c)
                            v = judge.state(s3)
                            if v:
                                return done("violation", v, _path(parent, s3))
                            frontier.append((s3, d + 2))
            look -= 1
            if not look:
                look = LOOK_EVERY
                prog.tick(len(parent), len(frontier), depth_of_max)
                memory.over()
            bound = max_states and len(parent) >= max_states
            late = time_limit and time.perf_counter() - t0 > time_limit
            if bound or late or memory.hit:
                so_far = len(parent), depth_of_max, time.perf_counter() - t0
                reason = (f"state bound {max_states:,} reached {explored(*so_far)}" if bound else
                          f"time limit {time_limit:g} s reached {explored(*so_far)}" if late else
                          memory.reason(*so_far, _STORE_LESS))
                if snapshots is not None:
                    snapshots.save(parent, frontier, depth_of_max, judge, time.perf_counter() - t0)
                return done("incomplete")
    except KeyboardInterrupt:
        reason = f"interrupted {explored(len(parent), depth_of_max, time.perf_counter() - t0)}"
        raise Interrupted(done("incomplete")) from None
    except (UsageError, ModelError, OSError):
        raise
    except Exception as e:
        prog.close()
        events = [] if s is None else _path(parent, s) + [x for x in (a, c) if x is not None]
        raise raised(e, events) from e
    return done("incomplete" if reason else "pass")


class _Stop:
    """Truthy once Ctrl-C (or SIGTERM, SIGHUP) arrived during a saved search."""

    def __init__(self):
        self.hit = False

    def __bool__(self) -> bool:
        return self.hit


@contextmanager
def _deferred_interrupts(on: bool):
    """While a search is saved, an interrupt only sets a flag: the search stops
    between two states, saves itself whole, and then raises KeyboardInterrupt."""
    stop = _Stop()
    if not on or threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def flag(signum, frame):
        stop.hit = True

    before = {sig: signal.signal(sig, flag) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield stop
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _random(system, judge: Judge, seed: int, walks: int, time_limit, progress, memory_limit) -> Result:
    """Seeded random walks to a terminal state: depth where BFS cannot reach."""
    rng = random.Random(seed)
    t0 = time.perf_counter()
    memory = MemoryGuard(memory_limit)
    prog = Progress(progress, limit=memory.limit)
    seen: set = set()
    max_d = 0
    reason = f"random walks cover part of the state space ({walks} walks, seed {seed})"

    def done(verdict, v=None, trace=()):
        prog.close()
        return Result(verdict, len(seen), judge.w["transitions"], max_d, time.perf_counter() - t0,
                      dict(judge.w), "random", v, list(trace), "" if v else reason)

    try:
        for _ in range(walks):
            s = system.initial()
            trace: list = []
            seen.add(s)
            v = judge.state(s)
            while v is None:
                acts = system.actions(s)
                if all(a[0] in CRASHES for a in acts):
                    v = judge.terminal(s)
                    if v or not acts or rng.random() < 0.5:
                        break
                if len(trace) >= system.bounds.depth:
                    break
                a = rng.choice(acts)
                s2, obs = system.step(s, a)
                trace.append(a)
                v = judge.transition(s, a, s2, obs)
                if v is None and s2 not in seen:
                    seen.add(s2)
                    v = judge.state(s2)
                s = s2
            max_d = max(max_d, len(trace))
            if v:
                return done("violation", v, trace)
            prog.tick(len(seen), 0, max_d)
            if time_limit and time.perf_counter() - t0 > time_limit:
                break
            if memory.over():
                reason = memory.reason(len(seen), max_d, time.perf_counter() - t0, "use --memory-limit to raise it")
                break
    except KeyboardInterrupt:
        reason = f"interrupted {explored(len(seen), max_d, time.perf_counter() - t0)}"
        raise Interrupted(done("incomplete")) from None
    return done("incomplete")
