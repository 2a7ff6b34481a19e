"""``rrcheck check-trace``: the invariants of checker/invariants on a real run.

The journals of a run hold, per rank incarnation, the scheduler events it
executed. They are merged into one execution of the model (checker/model/system.py)
and replayed there with the :class:`rrcheck.checker.invariants.Judge`, exactly as a
counterexample file is (checker/traces/counterexample.py). The merge is by failure
generation: every event is stamped with the number of failures its rank knew
of (F, propagated on every packet), so

1. the events of generation g run first, in any order the model enables —
   per-rank order, a packet delivered after it was sent, FIFO channels;
2. then a crash agreed at generation g (a rank, or a node), once its victims
   have run out of events of their crashed incarnation;
3. then generation g+1, which a restart opens (runtime/rank.py): the restart
   first, since every other event of g+1 learnt of g+1 from it (through
   packets in soft mode, through the communicator repair in kill mode).

This order respects causality (F only grows along it), and a packet a victim
dropped as addressed to an earlier incarnation was sent in a generation
before its restart, so the model loses it too (at the crash, or sent to a
process still down). An event the model does not enable
at its turn, a packet other than the one at the head of its channel, or a
broken invariant fails the check.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rrcheck.errors import UsageError
from rrcheck.checker.invariants import Judge, Violation, applicable
from rrcheck.checker.model.system import Bounds, System
from rrcheck.checker.model.workloads import DETERMINISTIC
from rrcheck.runtime import apps
from rrcheck.runtime.files import Event, RunConfig, journal_path, load_config, load_journal, protocol_of


FAILURE_FREE_OPS = 40  # a non-deterministic twin up to this size is enumerated (master_worker n=4, 2 rounds: 5 s)


@dataclass
class TraceCheck:
    verdict: str                 # pass | violation | inconsistent
    events: int
    seconds: float
    witnesses: dict
    violation: Violation | None = None
    reason: str = ""
    failures: int = 0

    def as_dict(self) -> dict:
        v = self.violation
        return {"verdict": self.verdict, "events": self.events, "failures": self.failures,
                "seconds": round(self.seconds, 3), "property": v.property if v else None,
                "message": v.message if v else (self.reason or None), "values": v.values if v else None,
                "witnesses": dict(sorted(self.witnesses.items()))}


def system_of(cfg: RunConfig) -> System:
    proto = protocol_of(cfg)
    workload = apps.twin(cfg.workload, cfg.n, cfg.nodes, cfg.iters)
    if list(workload.node_of) != cfg.node_of:
        raise UsageError("run.json's placement differs from its workload's; the trace cannot be replayed")
    bounds = Bounds(failures=len(cfg.crashes), checkpoints=10 ** 9, crash_kinds=("process", "node"))
    return System(proto, workload, bounds, tuple(cfg.group_of))


def failure_free_finals(system: System) -> set | None:
    """The final application states of failure-free runs (FailureFreeEquivalence).
    A deterministic workload has one: any failure-free run reaches it."""
    if system.workload.determinism != DETERMINISTIC:
        if sum(len(prog) for prog in system.workload.programs) > FAILURE_FREE_OPS:
            return None  # too many interleavings to enumerate: FailureFreeEquivalence is not judged
        from rrcheck.checker.model.classify import failure_free
        return set(failure_free(system.workload).finals)
    from rrcheck.protocols.base import Plain
    plain = System(Plain(), system.workload, Bounds(failures=0, checkpoints=0))
    s = plain.initial()
    while True:
        acts = [a for a in plain.actions(s) if a[0] not in ("crash", "crash_node")]
        if not acts:
            break
        s, _ = plain.step(s, acts[0])
    return {tuple(pr.acc for pr in s.procs)}


def _incarnations(run_dir: Path, n: int) -> list[list[list[Event]]]:
    out = []
    for p in range(n):
        incs, i = [], 0
        while journal_path(run_dir, p, i).exists():
            incs.append(load_journal(journal_path(run_dir, p, i), n))
            i += 1
        if not incs:
            raise UsageError(f"{run_dir}: no journal of rank {p}; was the run made with --no-trace?")
        out.append(incs)
    return out


def _tuple(x):
    return tuple(_tuple(y) for y in x) if isinstance(x, list) else x


def check_trace(run_dir: str | Path, properties=None, partial: bool = False) -> TraceCheck:
    """Replay a run's journals on the model. ``partial``: the run was killed
    at its timeout, so its ranks may have stopped anywhere; a state the model
    can leave is then reported as inconsistent only if it is not stuck."""
    t0 = time.perf_counter()
    run_dir = Path(run_dir)
    cfg = load_config(run_dir)
    system = system_of(cfg)
    judge = Judge(system, properties or applicable(system.protocol.name), failure_free_finals(system))
    n = system.n
    journals = _incarnations(run_dir, n)
    inc = [0] * n
    pos = [0] * n
    shadow: list[list] = [[] for _ in range(n * n)]  # runtime seqs of the packets on each model channel
    s = system.initial()
    steps = 0

    def done(verdict, v=None, reason=""):
        return TraceCheck(verdict, steps, time.perf_counter() - t0, dict(judge.w), v, reason,
                          s.failures)

    def head(p):
        evs = journals[p][inc[p]]
        return evs[pos[p]] if pos[p] < len(evs) else None

    def take(p, ev, a):
        """Rank p's next event, as model action a: step, follow, judge."""
        nonlocal s, steps
        s2, obs = system.step(s, a)
        err = _follow(system, s, a, s2, ev, shadow)
        if err:
            return done("inconsistent", reason=f"rank {p} event {pos[p]} {ev.a}: {err}")
        steps += 1
        v = judge.transition(s, a, s2, obs) or judge.state(s2)
        s = s2
        pos[p] += 1
        return done("violation", v) if v else None

    g = 0
    while True:
        for p in range(n):  # the restarts that open generation g precede its other events
            ev = head(p)
            if ev is not None and ev.f is None and ev.F == g and ev.a[0] == "restart":
                a, why = _resolve(system, s, ev, shadow)
                if a is None:
                    return done("inconsistent", reason=f"rank {p} event {pos[p]} {ev.a}: {why or 'not enabled'}")
                r = take(p, ev, a)
                if r:
                    return r
        progressed = True
        while progressed:  # generation g, greedily in any enabled order
            progressed = False
            for p in range(n):
                while True:
                    ev = head(p)
                    if ev is None or ev.f is not None or ev.F != g:
                        break
                    a, why = _resolve(system, s, ev, shadow)
                    if a is None:
                        if why:
                            return done("inconsistent", reason=f"rank {p} event {pos[p]} {ev.a}: {why}")
                        break
                    r = take(p, ev, a)
                    if r:
                        return r
                    progressed = True
        crashes = sorted({head(p).f for p in range(n) if head(p) is not None and head(p).f is not None
                          and head(p).F == g})
        for f in crashes:
            ev = next(head(p) for p in range(n) if head(p) is not None and head(p).f == f)
            victims = ev.victims or []
            for p in victims:
                if head(p) is None or head(p).f != f:
                    return done("inconsistent", reason=f"victim {p} of failure {f} has events left at its crash")
            a = _tuple(ev.a)
            if a not in system.actions(s):
                return done("inconsistent", reason=f"crash {list(a)} not enabled in the model")
            s2, obs = system.step(s, a)
            for p in victims:
                for q in range(n):
                    shadow[q * n + p] = []
                inc[p] += 1
                pos[p] = 0
                if inc[p] >= len(journals[p]):
                    return done("inconsistent", reason=f"victim {p} of failure {f} never restarted")
            steps += 1
            v = judge.transition(s, a, s2, obs) or judge.state(s2)
            s = s2
            if v:
                return done("violation", v)
        left = [(p, head(p)) for p in range(n) if head(p) is not None]
        if not left:
            break
        if all(ev.F <= g for _, ev in left):
            p, ev = left[0]
            return done("inconsistent", reason=f"rank {p}'s event {ev.a} can never be enabled in the model "
                        f"(generation {g}); {len(left)} ranks stuck")
        g += 1
    acts = system.actions(s)
    busy = [a for a in acts if a[0] not in ("crash", "crash_node") and not (a[0] == "internal" and a[2] == "checkpoint")]
    if busy:
        why = "the run hung" if partial else "the run stopped"
        return done("inconsistent", reason=f"{why} with model actions still enabled, e.g. {list(busy[0])}")
    v = judge.terminal(s)
    return done("violation", v) if v else done("pass")


def _resolve(system: System, s, ev: Event, shadow) -> tuple[tuple | None, str]:
    """The model action of a journal event, if enabled now: (action, '') or
    (None, '') if it must wait, (None, why) if it never can."""
    a = ev.a
    kind = a[0]
    n = system.n
    if kind == "recv":
        p, gid = a[1], tuple(a[2])
        for i, mail in enumerate(s.procs[p].mailbox):
            if mail.msg.gid == gid:
                act = ("recv", p, i)
                return (act, "") if act in system.actions(s) else (None, "the model does not enable that match")
        return None, ""
    if kind == "deliver":
        src, dst, seq = a[1], a[2], a[3]
        ch = shadow[src * n + dst]
        if not ch:
            return None, ""
        if ch[0] != seq:
            return None, f"packet {seq} from P{src} is not at the head of its channel (head {ch[0]})"
        return ("deliver", src, dst, 0), ""
    act = tuple(_tuple(x) for x in a)
    if act in system.actions(s):
        return act, ""
    if kind == "restart":
        return None, "restart of a live process"
    return None, "not enabled in the model"


def _follow(system: System, s, a, s2, ev: Event, shadow) -> str:
    """Mirror the model's wire in runtime seqs, and check that the model sent
    the packets the rank did."""
    n = system.n
    p = system.actor(a)
    if a[0] == "deliver":
        shadow[a[1] * n + a[2]].pop(0)
    per: dict[int, list] = {}
    for dst, seq, kind in ev.out:
        per.setdefault(dst, []).append((seq, kind))
    for q in range(n):
        c = p * n + q
        before = len(s.wire[c]) - (1 if a[0] == "deliver" and a[1] == p and a[2] == q else 0)
        new = s2.wire[c][before:]
        mine = per.get(q, [])
        if not new and mine and not s2.procs[q].alive:
            continue  # to a dead process: lost, in the model as in the run
        if len(new) != len(mine) or any(pk.kind != k for pk, (_, k) in zip(new, mine)):
            return f"the model sends {[pk.kind for pk in new]} to P{q}, the run sent {[k for _, k in mine]}"
        shadow[c].extend(seq for seq, _ in mine)
    return ""
