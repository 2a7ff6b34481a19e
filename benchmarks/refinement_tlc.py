"""What the refinement check costs: on each default scenario of a protocol with a
paper-level spec (`coordinated`, `chandy-lamport`, `sbml`), TLC on its detailed
spec with its properties, and TLC on the same model with the mapping to the
paper's spec (`rrcheck tla --refine`), one after the other, with their verdicts
and distinct states.

    python benchmarks/refinement_tlc.py [--quick] [--protocol P ...]

Times: wall clock, and TLC's CPU (the child's user+system time from
``getrusage``), because other jobs share the machine. --quick leaves out the
643,931-state scenario. Writes benchmarks/results/refinement_tlc.json, or
refinement_tlc_P.json for the protocols named.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.model.scenarios import DEFAULTS  # noqa: E402
from rrcheck.checker.tla import run_tla  # noqa: E402
from rrcheck.checker.tla.refinement import PAPERS, check_refinement  # noqa: E402

LARGE = "pingpong n=3/2nodes f=1 c=1 node"


def timed(f):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = f()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r, round(time.perf_counter() - t0, 1), round(cpu, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=f"leave out {LARGE}")
    ap.add_argument("--protocol", action="append", choices=sorted(PAPERS), help="only these (repeatable)")
    args = ap.parse_args()
    protocols = args.protocol or list(PAPERS)
    rows = []
    for protocol, sc in [(p, sc) for p in protocols for sc in DEFAULTS[p]]:
        if args.quick and (protocol, sc.label()) == ("coordinated", LARGE):
            continue
        plain, plain_wall, plain_cpu = timed(lambda: run_tla(protocol, sc, timeout=3600, progress=False))
        ref, ref_wall, ref_cpu = timed(lambda: check_refinement(protocol, sc, timeout=3600, progress=False))
        rows.append({"protocol": protocol, "scenario": sc.label(), "states": plain.states, "plain_verdict": plain.verdict,
                     "plain_wall_seconds": plain_wall, "plain_tlc_cpu_seconds": plain_cpu,
                     "refinement_verdict": ref.verdict, "refinement_states": ref.states,
                     "refinement_wall_seconds": ref_wall, "refinement_tlc_cpu_seconds": ref_cpu,
                     "cost": round(ref_cpu / plain_cpu, 1) if plain_cpu else None})
        print(rows[-1], flush=True)
    record.write("refinement_tlc" if not args.protocol else "refinement_tlc_" + "_".join(args.protocol), {
        "what": "TLC on the detailed spec (its properties) and on its refinement module (the paper's spec "
                "as a property under the mapping, its invariants), each default scenario of "
                + ", ".join(protocols),
        "rows": rows})


if __name__ == "__main__":
    main()
