"""TLC against rrcheck's explorer on the same scenarios, in the same run,
interleaved, on each specified protocol's largest default scenario: time to verdict and distinct states/s of rrcheck (reduced and
``--no-reduce``) and of TLC with 1 and 2 workers.

    python benchmarks/tlc_vs_explore.py [--repeats 3] [--quick]

Times: wall clock and CPU (rrcheck: ``time.process_time``; TLC: the child's
user+system time from ``getrusage``), because other jobs share the machine;
the load average is recorded before each round. TLC's times include the JVM
start and parsing the specs (a few seconds). Writes
benchmarks/results/tlc_vs_explore.json.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.explicit.check import run_check  # noqa: E402
from rrcheck.checker.model.scenarios import DEFAULTS, Scenario  # noqa: E402
from rrcheck.checker.tla import SPECIFIED, run_tla  # noqa: E402

def largest_defaults() -> list:
    """Each specified protocol's largest default scenario that TLC checks here
    (specs/manifest.json), and one model above 200,000 states."""
    rows = json.loads((ROOT / "specs" / "manifest.json").read_text())["models"]
    out = []
    for protocol in SPECIFIED:
        mine = [r for r in rows if r["protocol"] == protocol and r["mutant"] is None]
        big = max(mine, key=lambda r: r["rrcheck_no_reduce"]["states"])
        out.append((protocol, next(sc for sc in DEFAULTS[protocol] if sc.label() == big["scenario"]),
                    big["rrcheck_no_reduce"]["states"]))
    return out + [("coordinated", Scenario("any_source_race", 3, 3, crash_kinds=("process",)), 0)]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def rrcheck_run(protocol, sc, reduce: bool) -> dict:
    c0, t0 = time.process_time(), time.perf_counter()
    r = run_check(protocol, sc, reduce=reduce).result
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"engine": "rrcheck" + ("" if reduce else " --no-reduce"), "verdict": r.verdict, "states": r.states,
            "transitions": r.transitions, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "states_per_cpu_s": round(r.states / cpu) if cpu else None}


def tlc_run(protocol, sc, workers: int) -> dict:
    c0, t0 = children_cpu(), time.perf_counter()
    c = run_tla(protocol, sc, workers=workers, timeout=3600)
    wall, cpu = time.perf_counter() - t0, children_cpu() - c0
    return {"engine": f"tlc -workers {workers}", "verdict": c.verdict, "states": c.states,
            "transitions": c.transitions, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "states_per_cpu_s": round(c.states / cpu) if cpu else None,
            "states_per_wall_s": round(c.states / wall) if wall else None}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="leave out the model above 200,000 states")
    args = ap.parse_args()
    cases = [(p, sc) for p, sc, states in largest_defaults() if not (args.quick and states > 200_000)]
    runs = []
    for rnd in range(args.repeats):
        for protocol, sc in cases:
            load = [round(x, 1) for x in os.getloadavg()]
            for name, fn in (("reduced", lambda: rrcheck_run(protocol, sc, True)),
                             ("tlc1", lambda: tlc_run(protocol, sc, 1)),
                             ("no-reduce", lambda: rrcheck_run(protocol, sc, False)),
                             ("tlc2", lambda: tlc_run(protocol, sc, 2))):
                row = {"round": rnd, "protocol": protocol, "scenario": sc.label(), "load_before": load, **fn()}
                runs.append(row)
                print(f"{rnd} {protocol:<15} {sc.label():<38} {row['engine']:<22} {row['states']:>9,} states "
                      f"wall {row['wall_s']:>7.1f} s cpu {row['cpu_s']:>7.1f} s", flush=True)
                write(runs, done=False)  # a long run interrupted keeps what it measured
    write(runs, done=True)
    return 0


def write(runs: list, done: bool) -> None:
    record.write("tlc_vs_explore", {"note": "wall and CPU seconds; TLC's include the JVM start and parsing; "
                                            "the machine is shared with other jobs (load_before)",
                                    "complete": done, "runs": runs})


if __name__ == "__main__":
    sys.exit(main())
