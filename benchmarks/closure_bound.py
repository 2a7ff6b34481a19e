"""What keeps Guermouche and Ropars' Fig. 2 (sd_fig2, one failure, no checkpoint) out
of reach: the stubborn set's closure ("an empty channel into the set brings its sender
in", checker/model.py). This replaces the closure by narrower ones and counts the
states a breadth-first search reaches within a time limit:

- ``sound``: the engine's own closure;
- ``program``: a sender comes in only if its program, from its pc, still sends to the set;
- ``whole program``: the same from the program's start (a rollback may replay it all);
- ``coarse recovery``: ``whole program``, and while a recovery is under way a restarting
  group's members may send to anyone and anyone to their leader.

Only ``sound`` is a reduction: the others ignore some control messages, so they measure
what a closure that knew the recovery's traffic could at best give (docs/design.md §5).

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

from rrcheck.checker.explore import CRASHES, no_cycle_collection  # noqa: E402
from rrcheck.checker.scenarios import Scenario, make_system  # noqa: E402

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


def _variants(system):
    n, ctx = system.n, system.ctx
    whole = [_sends(system, q, 0) for q in range(n)]

    def coarse(s):
        leaders = _restarting_leaders(system, s)
        return lambda q, x: x in whole[q] or min(ctx.group(q)) in leaders or x in leaders

    return {"sound": None,
            "program": lambda s: lambda q, x: x in _sends(system, q, s.procs[q].pc),
            "whole program": lambda s: lambda q, x: x in whole[q],
            "coarse recovery": coarse}


def _bfs(system, limit: float) -> dict:
    t0 = time.perf_counter()
    init = system.initial()
    seen, layer, depth = {init}, [init], 0
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
    return {"complete": not layer, "states": len(seen), "depth": depth,
            "seconds": round(time.perf_counter() - t0, 1)}


def main() -> int:
    limit = float(sys.argv[sys.argv.index("--time-limit") + 1]) if "--time-limit" in sys.argv else 30.0
    rows = []
    for name in ("sound", "program", "whole program", "coarse recovery"):
        system = make_system("send-deterministic", SCENARIO)[0]
        may_send = _variants(system)[name]
        if may_send is not None:
            system._stubborn = _closure(system, may_send)
        row = {"closure": name, "sound": name == "sound", **_bfs(system, limit)}
        rows.append(row)
        print(f"{name:<16} {'complete' if row['complete'] else 'cut':<9} {row['states']:>10,} states  "
              f"depth {row['depth']:>3}  {row['seconds']:6.1f} s", flush=True)
    record.write("closure_bound", {"scenario": f"send-deterministic {SCENARIO.label()}", "time_limit_s": limit,
                                   "note": "breadth-first layers; a search is cut after the layer that passes "
                                           "the time limit; only 'sound' is a reduction", "results": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
