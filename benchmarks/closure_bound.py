"""What keeps Guermouche and Ropars' Fig. 2 (sd_fig2, one failure, no checkpoint) out
of reach: the stubborn set's closure ("an empty channel into the set brings its sender
in", checker/model/system.py). This replaces the closure by narrower ones and counts the
states a breadth-first search reaches within a time limit:

- ``sound``: the engine's own closure;
- ``program``: a sender comes in only if its program, from its pc, still sends to the set;
- ``whole program``: the same from the program's start (a rollback may replay it all);
- ``coarse recovery``: ``whole program``, and while a recovery is under way a restarting
  group's members may send to anyone and anyone to their leader;
- ``recovery-aware``: a hand-written account of the restart's traffic by epoch (who has
  restarts still to answer, who awaits ends, who may still roll back; not proven sound);
- ``enabled now``: a sender comes in only if an action it has enabled now sends to the set
  (an optimistic bound on necessary enabling sets: any sound form of them takes in more).

Only ``sound`` is a reduction: the others ignore some control messages, so they measure
what a closure that knew the recovery's traffic could at best give (docs/design.md §5).
A last row runs the engine's closure on the figure's own recovery alone: P0 crashes once
a failure-free run has ended (the search starts from every such crash).

    python benchmarks/closure_bound.py [--time-limit S]   # default 30 s per closure

Writes benchmarks/results/closure_bound.json with the machine and the command.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.explicit.explore import no_cycle_collection  # noqa: E402
from rrcheck.checker.model.system import CRASHES  # noqa: E402
from rrcheck.checker.model.scenarios import Scenario, make_system  # noqa: E402

SCENARIO = Scenario("sd_fig2", failures=1, checkpoints=0, crash_kinds=("process",))


def _sends(system, q: int, pc: int) -> set[int]:
    out: set[int] = set()
    for op in system.progs[q][pc:]:
        if op[0] == "send":
            out.add(op[1])
        elif op[0] == "reply":
            out |= set(range(system.n))
    return out


def _closure(system, may_send):
    """The engine's closure, with ``may_send(s)(q, x)`` deciding whether the empty
    channel q -> x brings q in: a channel that may not is shown to it as busy."""
    n, engine = system.n, system._stubborn

    def stubborn(s, acts):
        may = may_send(s)
        wire = tuple(ch or (() if may(c // n, c % n) else (None,)) for c, ch in enumerate(s.wire))
        return engine(SimpleNamespace(procs=s.procs, wire=wire), acts)
    return stubborn


def _restarting_leaders(system, s) -> set[int]:
    proto, ctx, n = system.protocol, system.ctx, system.n
    groups = {ctx.group_of[p] for p, pr in enumerate(s.procs) if not pr.alive or proto.recovering(ctx, p, pr.vol)}
    for c, ch in enumerate(s.wire):
        if any(pk.kind in proto.RECOVERY_KINDS for pk in ch):
            groups |= {ctx.group_of[c // n], ctx.group_of[c % n]}
    return {min(ctx.group(p)) for p in range(n) if ctx.group_of[p] in groups}


def _recovery_aware(system):
    n, ctx = system.n, system.ctx
    whole = [_sends(system, q, 0) for q in range(n)]
    groups = sorted(set(ctx.group_of))
    members = {g: [p for p in range(n) if ctx.group_of[p] == g] for g in groups}
    lead = {g: min(members[g]) for g in groups}

    def unsettled(s, g) -> bool:  # a member may still roll back
        vols = [s.procs[m].vol for m in members[g]]
        if len({v.epoch for v in vols}) > 1 or any(v.Status == "await" for v in vols):
            return True
        return any(pk.kind in ("failed", "rollback") or pk.kind in ("mark", "app") and ctx.internal(q, m)
                   and pk.hdr[0 if pk.kind == "mark" else 3] > s.procs[m].vol.epoch
                   for m in members[g] for q in range(n) for pk in s.wire[q * n + m])

    def may(s):
        if not all(pr.alive for pr in s.procs):
            return lambda q, x: True
        rolling = {g for g in groups if unsettled(s, g)}
        out = []
        for q, pr in enumerate(s.procs):
            g, v = ctx.group_of[q], pr.vol
            to = set(whole[q] if g in rolling else _sends(system, q, pr.pc))
            to |= {x[0] for x in v.PasEnvoyes} | {j for j, f in enumerate(v.RamasseMiette) if f}
            if g in rolling or v.Status != "run":
                to |= set(range(n))
            if v.rp is not None:
                to |= set(members[g])
            to |= {lead[h] for h in v.Redemarrage}
            for k in range(n):  # restarts q may still answer (to k and to k's restart process)
                h = ctx.group_of[k]
                if h != g and (h in rolling or any(pk.kind == "restart" for pk in s.wire[k * n + q])
                               or s.procs[k].vol.Status == v.Status == "restart"):
                    to |= {k, lead[h]}
            out.append(to)
        return lambda q, x: x in out[q]
    return may


def _enabled_now(system):
    n = system.n

    def may(s):
        if not all(pr.alive for pr in s.procs):
            return lambda q, x: True
        now = set()
        for a in system.actions(s):
            if a[0] in CRASHES:
                continue
            q = system.actor(a)
            s2 = system.step(s, a)[0]
            now |= {(q, x) for x in range(n) if len(s2.wire[q * n + x]) > len(s.wire[q * n + x])}
        return lambda q, x: (q, x) in now
    return may


def _variants(system):
    n, ctx = system.n, system.ctx
    whole = [_sends(system, q, 0) for q in range(n)]

    def coarse(s):
        leaders = _restarting_leaders(system, s)
        return lambda q, x: x in whole[q] or min(ctx.group(q)) in leaders or x in leaders

    return {"sound": None,
            "program": lambda s: lambda q, x: x in _sends(system, q, s.procs[q].pc),
            "whole program": lambda s: lambda q, x: x in whole[q],
            "coarse recovery": coarse, "recovery-aware": _recovery_aware(system),
            "enabled now": _enabled_now(system)}


def _recovery_alone(system) -> list:
    """P0 crashed at each terminal state of a failure-free run."""
    init = system.initial()
    seen, todo, ends = {init}, [init], []
    while todo:
        s = todo.pop()
        acts = [a for a in system.actions(s) if a[0] not in CRASHES]
        ends += [] if acts else [s]
        for a in acts:
            s2 = system.step(s, a)[0]
            if s2 not in seen:
                seen.add(s2)
                todo.append(s2)
    return [system.step(s, ("crash", 0))[0] for s in ends]


def _bfs(system, limit: float, starts: list | None = None) -> dict:
    t0 = time.perf_counter()
    layer = starts or [system.initial()]
    seen, depth, sizes = set(layer), 0, [len(layer)]
    with no_cycle_collection():
        while layer and time.perf_counter() - t0 < limit:
            nxt = []
            for s in layer:
                for a in system.reduce(s, system.actions(s)):
                    s2 = system.step(s, a)[0]
                    found = [s2] + ([system.step(s2, c)[0] for c in system.crashes_after(s, a, s2)]
                                    if a[0] not in CRASHES else [])
                    for x in found:
                        if x not in seen:
                            seen.add(x)
                            nxt.append(x)
            layer = nxt
            depth += 1 if nxt else 0
            sizes.append(len(nxt))
    return {"complete": not layer, "states": len(seen), "depth": depth, "last_layers": sizes[-3:],
            "seconds": round(time.perf_counter() - t0, 1)}


def main() -> int:
    limit = float(sys.argv[sys.argv.index("--time-limit") + 1]) if "--time-limit" in sys.argv else 30.0
    rows = []
    for name in ("sound", "program", "whole program", "coarse recovery", "recovery-aware", "enabled now",
                 "sound, recovery alone"):
        system = make_system("send-deterministic", SCENARIO)[0]
        may_send = _variants(system).get(name)
        if may_send is not None:
            system._stubborn = _closure(system, may_send)
        alone = name.endswith("recovery alone")
        row = {"closure": name, "sound": name.startswith("sound"),
               **_bfs(system, limit, _recovery_alone(system) if alone else None)}
        rows.append(row)
        print(f"{name:<22} {'complete' if row['complete'] else 'cut':<9} {row['states']:>10,} states  "
              f"depth {row['depth']:>3}  last layers {row['last_layers']}  {row['seconds']:6.1f} s", flush=True)
    record.write("closure_bound", {"scenario": f"send-deterministic {SCENARIO.label()}", "time_limit_s": limit,
                                   "note": "breadth-first layers; a search is cut after the layer that passes "
                                           "the time limit (last_layers: the sizes of its last three); "
                                           "only the rows marked sound are reductions",
                                   "results": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
