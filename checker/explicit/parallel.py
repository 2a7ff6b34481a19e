"""Breadth-first search on N worker processes (docs/design.md §5), the same
search as :func:`rrcheck.checker.explicit.explore.explore` with ``strategy="bfs"``.

States are partitioned by hash: a worker owns the fingerprints whose hash falls
to it, and asks the owner about every successor it finds (one integer for the
fingerprint, one for the key, in arrays; a successor it owns and has seen is
not asked about).  The search goes one generation at a time (the states
discovered while expanding the previous one), which is the order of the
sequential FIFO queue.  Inside a generation that queue is in discovery order,
so every successor carries its discovery key: the rank of its parent in that
order and its index among the parent's successors.  An owner keeps a state's
smallest key, and the coordinator ranks the new generation by key.  A worker's
frontier stays with it, but for the few states it gives to balance the load,
which travel while both expand their own.  Hence each state gets the parent
the sequential search gives it, the first violation is the one the sequential
search meets first, and cutting the counts at that violation's key gives its
states, transitions, depth and counterexample.  ``max_states`` stops at the
end of a generation, ``time_limit`` and ``memory_limit`` inside one (an
incomplete result's counts are those of the generations begun): the
coordinator reads the workers' resident memory about once a second while they
expand, and past the limit raises a flag that has them leave the generation.

Witness counts of a violating run are those of every generation expanded, not
cut; a pass's witnesses are the sequential ones.
"""
from __future__ import annotations

import multiprocessing as mp
import signal
import tempfile
import time
from array import array
from collections import Counter
from multiprocessing.connection import wait as mp_wait

import numpy as np

from rrcheck.errors import FingerprintCollision, UsageError
from rrcheck.checker.explicit.fpset import FPSet, fingerprints
from rrcheck.checker.explicit.progress import Interrupted, MemoryGuard, Progress, explored
from rrcheck.checker.explicit.resume_parallel import FILE, Restored, write_part
from rrcheck.checker.invariants.verdict import Result
from rrcheck.checker.model.system import CRASHES

_J = 24  # a discovery key is one integer: the parent's rank << _J | the successor's index
_BATCH = 4096  # new candidates met before the worker looks them up in its visited set, all at once


def _split(key: int) -> tuple[int, int]:
    return key >> _J, key & ((1 << _J) - 1)


# witnesses that are a maximum or counted once per judge, not a sum of events
_MAX = ("logger_placements_checked", "tb_max_per_receiver")


def explore_parallel(system, judge, workers: int, max_states: int | None = None,
                     time_limit: float | None = None, progress: bool | None = None,
                     reduce: bool = True, memory_limit: int | None = None, snapshots=None,
                     stop=None) -> Result:
    """BFS of ``system`` on ``workers`` processes (forked: they share the
    system, the judge and the hash seed that places states); it stops
    incomplete once they hold more than ``memory_limit`` bytes, all together
    (None: 80 % of the memory available). ``snapshots``
    (:class:`rrcheck.checker.explicit.resume_parallel.GenerationSnapshots`) saves
    the search at the end of a generation now and then, at a bound and when
    ``stop`` (an interrupt's flag) is raised, and continues a saved one."""
    t0 = time.perf_counter()
    restored = None
    if snapshots is not None and snapshots.recovered is not None:
        restored = rebuild(system, reduce, *snapshots.recovered, progress=progress)  # before the fork: shared
        t0 -= restored.seconds
    ctx = mp.get_context("fork")
    inboxes = [ctx.Queue() for _ in range(workers)]
    pipes = [ctx.Pipe() for _ in range(workers)]
    halt = ctx.RawValue("b", 0)  # raised by the coordinator: leave the generation unfinished
    procs = [ctx.Process(target=_serve, args=(i, workers, system, judge, pipes[i][1], inboxes, reduce, halt,
                                              restored),
                         daemon=True, name=f"rrcheck-worker-{i}") for i in range(workers)]
    for p in procs:
        p.start()
    conns = [a for a, _ in pipes]
    pids = [p.pid for p in procs]
    try:
        start = (0, 0, 0) if restored is None else (restored.states, restored.transitions, restored.depth)
        memory = MemoryGuard(memory_limit, pids)
        return _coordinate(system, conns, t0, max_states, time_limit, Progress(progress, pids, memory.limit),
                           strategy="bfs", memory=memory, halt=halt, reduce=reduce,
                           snapshots=snapshots if snapshots is not None and snapshots.save_to else None,
                           stop=stop, start=start)
    except BaseException:  # an interrupt or an error: busy workers would finish their generation first
        for p in procs:
            p.terminate()
        raise
    finally:
        for c in conns:
            try:
                c.send(("stop",))
            except OSError:
                pass
        for p in procs:
            p.join(timeout=2)
            if p.is_alive():
                p.terminate()
                p.join()


def _ask(conns, msg, to=None, per_worker=None, meanwhile=None):
    """Send ``msg`` to every worker (or worker ``to``) and return the replies in
    worker order; a worker's exception is raised here as soon as it arrives (the
    others may be waiting for that worker's successors). ``meanwhile`` is called
    about once a second until the last reply is in (over MPI, between replies)."""
    targets = list(range(len(conns))) if to is None else [to]
    for i in targets:
        conns[i].send(msg if per_worker is None else msg + tuple(per_worker[i]))
    got: dict = {}
    while len(got) < len(targets):
        for i, (kind, value) in _arrivals(conns, [i for i in targets if i not in got],
                                          None if meanwhile is None else 1.0):
            if kind == "error":
                raise value
            got[i] = value
        if meanwhile is not None and len(got) < len(targets):
            meanwhile()
    return [got[i] for i in targets] if to is None else got[to]


def _arrivals(conns, waiting: list[int], timeout: float | None = None) -> list[tuple[int, tuple]]:
    """Replies of the workers in ``waiting`` that are here (at least one, unless
    ``timeout`` seconds pass first)."""
    if hasattr(conns, "arrivals"):  # MPI ranks (checker/explicit/distributed.py)
        return conns.arrivals(waiting)
    return [(conns.index(c), c.recv()) for c in mp_wait([conns[i] for i in waiting], timeout)]


# what a search that runs out of memory on the workers of one machine can do instead
_SPREAD = "use --mpi --hostfile to spread it over more machines, or --memory-limit to raise it"
_KEEP = "; --checkpoint DIR keeps such a search for --recover DIR on a larger machine"


def _coordinate(system, conns, t0, max_states, time_limit, prog, strategy, memory=None, halt=None,
                reduce: bool = True, snapshots=None, stop=None, start=(0, 0, 0)) -> Result:
    """The search, one generation at a time; ``memory`` (a MemoryGuard, with
    ``halt`` the workers' flag; neither over MPI) is read while they expand.
    With ``snapshots``, a generation cut short is abandoned by every worker, so
    that what is saved and reported is the search at a generation's end;
    ``start`` is a recovered search's states, transitions and depth."""
    states, transitions, depth = start
    queue = 0
    reason = ""

    def meanwhile():  # while the workers expand a generation
        prog.tick(states, queue, depth)
        if memory is not None and memory.over() or stop:
            halt.value = 1

    def so_far():
        return states, depth, time.perf_counter() - t0

    def save():
        stamp = snapshots.next_stamp()
        parts = _ask(conns, ("save", str(snapshots.save_to), stamp))
        total, checkpointed = _witness_parts(conns)
        snapshots.save(parts, states, transitions, depth, total, checkpointed, time.perf_counter() - t0)

    try:
        reports = _ask(conns, ("init",))
        if start[0]:  # a recovered search: its frontier is counted already
            states -= sum(r["new"] for r in reports)
        while True:
            viols = [r["violation"] for r in reports if r["violation"]]
            if viols:
                key, v, base, suffix = min(viols, key=lambda x: x[0])
                cut = _ask(conns, ("cut", key))
                states += sum(c["states"] for c in cut)
                transitions += sum(c["transitions"] for c in cut)
                depth = max([depth] + [c["depth"] for c in cut])
                trace = _path(system, conns, base, reduce) + list(suffix)
                prog.close()
                return Result("violation", states, transitions, depth, time.perf_counter() - t0,
                              _witnesses(conns), strategy, v, trace, collision_probability=_birthday(states))
            states += sum(r["new"] for r in reports)
            transitions += sum(r["transitions"] for r in reports)
            depth = max([depth] + [r["depth"] for r in reports])
            queue = sum(r["new"] for r in reports)
            if any(r["depth_bound"] for r in reports):
                reason = f"depth bound {system.bounds.depth} reached"
            prog.tick(states, queue, depth)
            # a generation cut short may have found nothing new: that is not the end of the search
            if any(r["cut_short"] for r in reports):
                reason = (memory.reason(*so_far(), _SPREAD) if memory is not None and memory.hit else
                          f"time limit {time_limit:g} s reached {explored(*so_far())}")
                break
            if not any(r["new"] for r in reports):
                break
            bound = ""  # why the search ends at this generation's end, if it does
            if max_states and states >= max_states:
                bound = f"state bound {max_states:,} reached {explored(*so_far())}"
            elif time_limit and time.perf_counter() - t0 > time_limit:
                bound = f"time limit {time_limit:g} s reached {explored(*so_far())}"
            elif memory is not None and memory.over():
                bound = memory.reason(*so_far(), _SPREAD if snapshots else _SPREAD + _KEEP)
            if snapshots is not None and (bound or stop or snapshots.due()):
                save()
            if stop:
                raise KeyboardInterrupt
            if bound:
                reason = bound + _kept(snapshots)
                break
            deadline = time.time() + time_limit - (time.perf_counter() - t0) if time_limit else None
            plan = zip(_rank([r["keys"] for r in reports]),
                       _balance([r["new"] for r in reports], [r["cost"] for r in reports]))
            cut = _ask(conns, ("expand",), per_worker=[(ranks, give, deadline) for ranks, give in plan],
                       meanwhile=meanwhile)
            if snapshots is not None and any(cut):  # the search as it was at the generation's start
                _ask(conns, ("abandon",))
                save()
                if stop:
                    raise KeyboardInterrupt
                reason = (memory.reason(*so_far(), _SPREAD) if memory is not None and memory.hit else
                          f"time limit {time_limit:g} s reached {explored(*so_far())}") + _kept(snapshots)
                break
            reports = _ask(conns, ("settle",), meanwhile=meanwhile)
    except KeyboardInterrupt:
        prog.close()
        raise Interrupted(Result("incomplete", states, transitions, depth, time.perf_counter() - t0, {}, strategy,
                                 None, [], f"interrupted {explored(*so_far())}" + _kept(snapshots),
                                 _birthday(states))) from None
    prog.close()
    return Result("incomplete" if reason else "pass", states, transitions, depth, time.perf_counter() - t0,
                  _witnesses(conns), strategy, None, [], reason, _birthday(states))


def _kept(snapshots) -> str:
    return "" if snapshots is None else f"; saved in {snapshots.save_to}: --recover {snapshots.save_to} continues it"


def _birthday(states: int) -> float:
    """The probability that two of ``states`` uniform 64-bit fingerprints coincide, at most."""
    return states * (states - 1) / 2 ** 65


def _rank(keys: list[list]) -> list[list[int]]:
    """Global discovery order of a generation: each worker's keys are sorted."""
    tagged = sorted((k, w) for w, ks in enumerate(keys) for k in ks)
    ranks: list[list[int]] = [[] for _ in keys]
    for r, (_, w) in enumerate(tagged):
        ranks[w].append(r)
    return ranks


def _balance(counts: list[int], costs: list[float] | None = None, slack: float = 0.02) -> list[dict[int, int]]:
    """Which worker gives how many frontier states to which, so that each has
    its share of the work: a state's cost is its worker's CPU time per state so
    far (a worker's successors stay with it and are much alike in cost), so
    once balanced a search stays nearly so and few states ever cross processes."""
    known = [c for c in costs or () if c > 0]
    cost = [c if c > 0 else sum(known) / len(known) for c in costs] if known else [1.0] * len(counts)
    load = [n * c for n, c in zip(counts, cost)]
    fair = sum(load) / len(load)
    over = [[i, x - fair] for i, x in enumerate(load) if x > fair * (1 + slack) + 16 * cost[i]]
    under = [[i, fair - x] for i, x in enumerate(load) if x < fair * (1 - slack) - 16 * cost[i]]
    give: list[dict[int, int]] = [{} for _ in counts]
    for o in over:
        for u in under:
            m = min(o[1], u[1])
            k = round(m / cost[o[0]])
            if k > 0:
                give[o[0]][u[0]] = give[o[0]].get(u[0], 0) + k
                o[1] -= m
                u[1] -= m
    return give


def _path(system, conns, base, reduce: bool) -> list:
    """The actions from the initial state to the state with fingerprint ``base``,
    walked back through the workers' trace files and replayed to make sure.

    A state's discovery key names its parent by rank in the generation before
    and itself by index among the parent's successors; the parent's fingerprint
    is the one of that rank.  A successor by a crash right after an action (the
    reductions) has for parent the state after that action, as in the
    sequential search: its path is that state's own, then the crash."""
    gens: dict = {}

    def generation(g):  # the fingerprints and keys of generation g, in rank order
        if g not in gens:
            parts = _ask(conns, ("generation", g))
            fps = np.concatenate([f for f, _ in parts])
            keys = np.concatenate([k for _, k in parts])
            gens[g] = fps[np.argsort(keys, kind="stable")]
        return gens[g]

    def walk(h) -> list:
        ranks = []  # successor indices, from the state of fingerprint h back to the initial one
        while True:
            g, key = next(x for x in _ask(conns, ("where", h)) if x is not False)
            if g == 0:
                break
            r, j = _split(key)
            ranks.append(j)
            h = int(generation(g - 1)[r])
        out, s = [], system.initial()
        for j in reversed(ranks):
            acts, s2 = _nth(system, s, j, reduce)
            if not acts:  # the walk went through another state of the same fingerprint
                raise FingerprintCollision(f"the path to fingerprint {base % 2 ** 64:#018x} replays to another state")
            if len(acts) == 2:  # a crash right after an action: the path of the state after it, then the crash
                out, s = walk(hash(s2)) + acts[1:], system.step(s2, acts[1])[0]
            else:
                out.append(acts[0])
                s = s2
        return out

    out = walk(base)
    if hash(_replay(system, out)) != base:
        raise FingerprintCollision(f"the path to fingerprint {base % 2 ** 64:#018x} replays to another state")
    return out


def _replay(system, actions):
    s = system.initial()
    for a in actions:
        s = system.step(s, a)[0]
    return s


def successors(system, s, reduce: bool):
    """The successors of ``s`` in the order :meth:`_Worker._successors` meets them:
    (actions, the state after the first, the state after all) with one action,
    or an action and the crash right after it."""
    acts = system.actions(s)
    if reduce:
        acts = system.reduce(s, acts)
    for a in acts:
        s2 = system.step(s, a)[0]
        yield [a], s2, s2
        if reduce and a[0] not in CRASHES:
            for c in system.crashes_after(s, a, s2):
                yield [a, c], s2, system.step(s2, c)[0]


def _nth(system, s, j: int, reduce: bool):
    """Successor ``j`` of ``s``: its actions and its predecessor on the way, the
    state after the first action (([], None) if it has no such successor)."""
    for k, (acts, s2, _) in enumerate(successors(system, s, reduce)):
        if k == j:
            return acts, s2
    return [], None


def rebuild(system, reduce: bool, f, arrays: list[np.ndarray], progress: bool | None = False) -> Restored:
    """A saved search (:mod:`rrcheck.checker.explicit.resume_parallel`) re-executed
    from the initial state, generation by generation (the progress line counts the
    states rebuilt)."""
    prog = Progress(progress)
    bounds = [np.cumsum([0] + p.generations) for p in f.parts]
    keys = [np.sort(np.concatenate([a[b[g]:b[g + 1]] for a, b in zip(arrays, bounds)]))
            for g in range(len(f.parts[0].generations))]
    damaged = f"--recover: {FILE}"
    if keys[0].tolist() != [-1 << _J]:
        raise UsageError(f"{damaged}: its first generation is not the initial state alone; it is damaged")
    level = [(system.initial(), 0)]
    fps = [np.array([hash(level[0][0])], dtype=np.int64)]
    for g in range(1, len(keys)):
        k = keys[g]
        if k.size and (k[0] < 0 or (np.diff(k) <= 0).any()):
            raise UsageError(f"{damaged}: generation {g} names a state twice or a negative key; it is damaged")
        ranks, index = k >> _J, k & ((1 << _J) - 1)
        nxt: list = []
        at = 0
        while at < k.size:
            r = int(ranks[at])
            if r >= len(level):
                raise UsageError(f"{damaged}: generation {g} names parent {r} of {len(level)}; "
                                 "the file belongs to another version of the protocol or the model")
            parent, d = level[r]
            want = []
            while at < k.size and ranks[at] == r:
                want.append(int(index[at]))
                at += 1
            found, wanted = {}, set(want)
            for j, (acts, _, s) in enumerate(successors(system, parent, reduce)):
                if j in wanted:
                    found[j] = (s, d + len(acts))
                if j >= want[-1]:
                    break
            if len(found) != len(want):
                raise UsageError(f"{damaged}: generation {g} names a successor its parent does not have; "
                                 "the file belongs to another version of the protocol or the model")
            nxt.extend(found[j] for j in want)
        level = nxt
        fps.append(np.fromiter((hash(s) for s, _ in level), dtype=np.int64, count=len(level)))
        prog.tick(sum(map(len, fps)), len(level), g)
    prog.close()
    every = np.concatenate(fps)
    if np.unique(every).size != every.size:
        raise UsageError(f"{damaged}: two saved states rebuild one state; the file belongs to another version "
                         "of the protocol or the model")
    if len(set(f.checkpointed)) != len(f.checkpointed) or any(q >= system.ctx.n for q in f.checkpointed):
        raise UsageError(f"{damaged}: its processes seen checkpointing do not fit {system.ctx.n} processes; "
                         "it is damaged")
    return Restored(fps, keys, level, f.states, f.transitions, f.depth, f.seconds, dict(f.witnesses),
                    set(f.checkpointed))


def _witness_parts(conns) -> tuple[dict, set]:
    """The workers' witness counts together, and the processes they saw checkpointing."""
    total: Counter = Counter()
    checkpointed: set = set()
    for w, cps in _ask(conns, ("witnesses",)):
        for k, v in w.items():
            total[k] = max(total[k], v) if k in _MAX else total[k] + v
        checkpointed |= cps
    if checkpointed:
        total["processes_checkpointed"] = len(checkpointed)
    return dict(total), checkpointed


def _witnesses(conns) -> dict:
    return _witness_parts(conns)[0]


# -- a worker ----------------------------------------------------------------

def _serve(i, n, system, judge, conn, inboxes, reduce, halt=None, restored=None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator stops us,
    for sig in (signal.SIGTERM, signal.SIGHUP):     # or ends us quietly if we are busy
        signal.signal(sig, signal.SIG_DFL)
    w = _Worker(i, n, system, judge, inboxes, reduce, halt, restored)
    while True:
        msg = conn.recv()
        if msg[0] == "stop":
            return
        try:
            conn.send(("ok", getattr(w, msg[0])(*msg[1:])))
        except Exception as e:  # the sequential search would raise it: so does the coordinator
            conn.send(("error", e))
            return


class _Worker:
    """Owns the fingerprints whose hash falls to it and holds the frontier
    states it discovered first; only fingerprints and keys cross processes."""

    def __init__(self, i, n, system, judge, inboxes, reduce, halt=None, restored=None):
        self.i, self.n, self.sys, self.judge = i, n, system, judge
        self.restored = restored      # a saved search to continue (resume_parallel.Restored)
        self.inboxes, self.reduce = inboxes, reduce
        self.halt = halt              # the coordinator's flag: memory is short, leave the generation
        self.fps = FPSet()            # fingerprints this worker owns, visited
        self.unsure = array("q")      # fingerprints this worker owns, new in cand since it last looked
        self.trace = None             # a file of (fingerprint, key) of the states it won, generation by generation
        self.gen_rows = [0]           # where each generation starts in it, in rows
        self.frontier: list = []      # the next generation by key, as in cand
        self.expanded: list = []      # (rank, successors, depth) of the generation just expanded
        self.cand: dict = {}          # fingerprint -> (key, state, depth) of its successors
        self.new_keys: list = []
        self.early: list = []         # messages of a later phase that overtook this one's
        self.cut_short = False        # the last generation stopped at the time limit or the halt flag
        self.at_bound = False         # it met the depth bound
        self.busy = [0.0, 0]          # CPU seconds spent expanding, states expanded
        self.before = None            # the witnesses at the generation's start, and its violation found
        self.viol, self.reordered = None, False

    def init(self) -> dict:
        self.expanded, self.frontier, self.new_keys = [], [], array("q")
        self.trace = tempfile.TemporaryFile(prefix="rrcheck-trace-")
        if self.restored is not None:  # its initial state is the system's: reduce() knows it by identity
            return self._restore(self.restored)
        s = self.sys.initial()
        if hash(s) % self.n != self.i:
            self._record([])
            return self._report(None, False)
        self.fps.add(fingerprints([hash(s)]))
        self._record([hash(s)], [-1 << _J])
        self.frontier, self.new_keys = [(-1 << _J, s, 0)], array("q", [-1 << _J])
        v = self.judge.state(s)
        return self._report(((-1, 0, 1), v, hash(s), ()) if v else None, False)

    def _restore(self, r) -> dict:
        """Take this worker's share of a recovered search: the states whose hash falls to it."""
        mine = None
        for fps, keys in zip(r.fingerprints, r.keys):
            mine = np.remainder(fps, self.n) == self.i
            self.fps.add(fingerprints(fps[mine]))
            self._record(fps[mine], keys[mine])
        self.frontier = [(int(k), s, d) for k, (s, d), m in zip(r.keys[-1].tolist(), r.frontier, mine) if m]
        self.new_keys = array("q", [k for k, _, _ in self.frontier])
        if self.i == 0:  # the counts so far, once: witnesses add up over the workers
            self.judge.w = Counter(r.witnesses)
            self.judge._checkpointed = set(r.checkpointed)
        self.restored = None
        return self._report(None, False)

    def save(self, directory: str, stamp: int) -> dict:
        """This worker's keys, generation by generation, as a part of a saved search."""
        sizes = [b - a for a, b in zip(self.gen_rows, self.gen_rows[1:])]
        return write_part(directory, stamp, self.i, np.asarray(self._rows()[:, 1]), sizes)

    def expand(self, ranks: list[int], give: dict[int, int], deadline: float | None) -> bool:
        """Expand this worker's share of the generation: its own states while the
        states it was given are on their way, then those (with a rank below any
        violation already met, which is all the sequential search would see).
        Whether it was cut short; :meth:`settle` or :meth:`abandon` comes next."""
        self.before = Counter(self.judge.w), set(self.judge._checkpointed)
        todo = [(r, s, d) for r, (_, s, d) in zip(ranks, self.frontier)]
        moves: list[list] = [[] for _ in range(self.n)]
        for k, count in give.items():
            moves[k], todo = todo[len(todo) - count:], todo[:len(todo) - count]
        self._post("move", moves)
        self.cand, self.expanded, self.cut_short, self.at_bound = {}, [], False, False
        busy = time.thread_time()
        viol = self._successors(todo, deadline)
        given = sorted((t for w, batch in self._collect("move", moves) if w != self.i for t in batch),
                       key=lambda t: t[0])
        if given and not self.cut_short:
            limit = viol[0][0] if viol else None
            adopt = self.sys.adopt
            v = self._successors([(r, adopt(s), d) for r, s, d in given if limit is None or r < limit], deadline)
            if v and (viol is None or v[0] < viol[0]):
                viol = v
        self.busy[0] += time.thread_time() - busy
        self.busy[1] += len(self.expanded)
        self.viol, self.reordered = viol, bool(given)
        return self.cut_short

    def settle(self) -> dict:
        """The generation expanded becomes the next one (see :meth:`_settle`)."""
        return self._report(self._settle(self.viol, self.reordered), self.at_bound)

    def abandon(self) -> None:
        """Forget the generation cut short: the worker is as it was at its start."""
        self.judge.w, self.judge._checkpointed = self.before
        self.cand, self.expanded, self.viol = {}, [], None
        del self.unsure[:]

    def _successors(self, todo: list, deadline: float | None):
        """Expand ``todo`` (by rank) into ``self.cand``, the smallest key per
        fingerprint; the first violation met, if any."""
        system, judge, cand = self.sys, self.judge, self.cand
        i, n, reduce = self.i, self.n, self.reduce
        expanded, halt, unsure = self.expanded, self.halt, self.unsure

        def found(s2, key, d2):
            h = hash(s2)
            # one fingerprint is one state here as in the visited set (the printed
            # collision bound covers both): comparing the states cost 8% of the time
            c = cand.get(h)
            if c is None:
                cand[h] = (key, s2, d2)
                if h % n == i:  # a state this worker owns and has seen goes no further (looked up in batches)
                    unsure.append(h)
            elif key < c[0]:  # a given state's successor, found before by a later one
                cand[h] = (key, s2, d2)

        for r, s, d in todo:
            if len(unsure) >= _BATCH:
                self._forget_seen()
            if deadline and time.time() > deadline or halt is not None and halt.value:  # left unfinished
                self.cut_short = True
                return None
            acts = system.actions(s)
            if all(a[0] in CRASHES for a in acts):  # failures are not progress
                v = judge.terminal(s)
                if v:
                    expanded.append((r, 0, d))
                    return ((r, -1, 0), v, hash(s), ())
            if d >= system.bounds.depth:
                self.at_bound = True
                expanded.append((r, 0, d))
                continue
            if reduce:
                acts = system.reduce(s, acts)
            j, base = 0, r << _J
            for a in acts:
                s2, obs = system.step(s, a)
                v = judge.transition(s, a, s2, obs)
                if v:
                    expanded.append((r, j + 1, d))
                    return ((r, j, 0), v, hash(s), (a,))
                found(s2, base | j, d + 1)
                j += 1
                if reduce and a[0] not in CRASHES:
                    for c in system.crashes_after(s, a, s2):
                        s3, obs = system.step(s2, c)
                        v = judge.transition(s2, c, s3, obs)
                        if v:
                            expanded.append((r, j + 1, d))
                            return ((r, j, 0), v, hash(s2), (c,))
                        found(s3, base | j, d + 2)
                        j += 1
            expanded.append((r, j, d))
        return None

    def _forget_seen(self) -> None:
        """Drop from the candidates the states this worker owns and has seen."""
        if self.unsure:
            hs = np.frombuffer(self.unsure, dtype=np.int64).copy()
            cand = self.cand
            for h in hs[self.fps.contains(fingerprints(hs))].tolist():
                del cand[h]
            del self.unsure[:]

    def _record(self, hs, keys=()) -> None:
        """Append one generation's won states to the trace file."""
        rows = np.empty((len(hs), 2), dtype=np.int64)
        rows[:, 0], rows[:, 1] = hs, keys
        rows.tofile(self.trace)
        self.gen_rows.append(self.gen_rows[-1] + len(hs))

    def _rows(self) -> np.ndarray:
        self.trace.flush()
        if not self.gen_rows[-1]:
            return np.empty((0, 2), dtype=np.int64)
        return np.memmap(self.trace, dtype=np.int64, mode="r", shape=(self.gen_rows[-1], 2))

    def where(self, h):
        """(generation, key) of the state of fingerprint ``h``, if this worker won it."""
        at = np.flatnonzero(self._rows()[:, 0] == h)
        if not at.size:
            return False
        row = int(at[0])
        g = next(g for g in range(len(self.gen_rows) - 1) if self.gen_rows[g] <= row < self.gen_rows[g + 1])
        return g, int(self._rows()[row, 1])

    def generation(self, g):
        """The fingerprints and keys of the states of generation ``g`` this worker won."""
        part = np.array(self._rows()[self.gen_rows[g]:self.gen_rows[g + 1]])
        return part[:, 0], part[:, 1]

    def sizes(self) -> dict:
        """Bytes held per visited state: the table in memory, the trace file on disk."""
        return {"states": len(self.fps), "table_bytes": self.fps.nbytes, "trace_file_bytes": 16 * self.gen_rows[-1]}

    def _settle(self, viol, reordered: bool):
        """Ask the owners about the candidates; the ones this worker found first
        (smallest key) are its part of the next generation, in key order."""
        self._forget_seen()
        cand, fps, i, n, judge = self.cand, self.fps, self.i, self.n, self.judge
        # the owners keep each unseen fingerprint's smallest key, and say who found it
        asks = [(array("q"), array("q")) for _ in range(n)]
        best: dict = {}
        for h, c in cand.items():
            w = h % n
            if w == i:  # unseen: the loop passed over those seen
                best[h] = (c[0], i)
            else:
                asks[w][0].append(h)
                asks[w][1].append(c[0])
        for w, (hs_, ks_) in self._exchange("ask", asks):
            if w == i or not hs_:
                continue
            hs_ = np.frombuffer(hs_, dtype=np.int64)
            seen = fps.contains(fingerprints(hs_))
            for h, key in zip(hs_[~seen].tolist(), np.frombuffer(ks_, dtype=np.int64)[~seen].tolist()):
                b = best.get(h)
                if b is None or key < b[0]:
                    best[h] = (key, w)
        if best:
            assert fps.add(fingerprints(np.fromiter(best, dtype=np.int64, count=len(best)))).all()
        wins = [array("q") for _ in range(n)]
        for h, (_, w) in best.items():
            wins[w].append(h)
        won = set()
        for _, batch in self._exchange("win", wins):
            won.update(batch)
        fresh = [(h, c) for h, c in cand.items() if h in won]  # in key order, unless given states came last
        if reordered:
            fresh.sort(key=lambda x: x[1][0])
        self.cand = {}
        self.frontier = [c for _, c in fresh]
        self.new_keys = array("q", [c[0] for _, c in fresh])
        self._record([h for h, _ in fresh], self.new_keys)
        for h, (key, s2, _) in fresh:
            v = judge.state(s2)
            if v:
                k = _split(key) + (1,)
                if viol is None or k < viol[0]:
                    viol = (k, v, h, ())
        return viol

    def _exchange(self, phase: str, out: list[list]) -> list[tuple[int, list]]:
        """All-to-all: send ``out[k]`` to worker k, return (sender, batch) of every worker."""
        self._post(phase, out)
        return self._collect(phase, out)

    def _post(self, phase: str, out: list[list]) -> None:
        for k in range(self.n):
            if k != self.i:
                self.inboxes[k].put((phase, self.i, out[k]))

    def _collect(self, phase: str, out: list[list]) -> list[tuple[int, list]]:
        got = [(self.i, out[self.i])] + [m[1:] for m in self.early if m[0] == phase]
        self.early = [m for m in self.early if m[0] != phase]
        while len(got) < self.n:
            msg = self.inboxes[self.i].get()
            if msg[0] == phase:
                got.append(msg[1:])
            else:
                self.early.append(msg)
        return got

    def _report(self, viol, at_bound) -> dict:
        return {"violation": viol, "new": len(self.new_keys), "keys": self.new_keys,
                "transitions": sum(t for _, t, _ in self.expanded),
                "depth": max((d for _, _, d in self.expanded), default=0), "depth_bound": at_bound,
                "cut_short": self.cut_short, "cost": self.busy[0] / max(1, self.busy[1])}

    def cut(self, key) -> dict:
        """The counts of this generation up to the violation at ``key`` (inclusive)."""
        r, j, _ = key
        trans = sum(t if rr < r else min(t, j + 1) for rr, t, _ in self.expanded if rr <= r)
        return {"states": sum(1 for k in self.new_keys if _split(k) + (1,) <= key),
                "transitions": trans,
                "depth": max((d for rr, _, d in self.expanded if rr <= r), default=0)}

    def witnesses(self):
        return dict(self.judge.w), set(self.judge._checkpointed)
