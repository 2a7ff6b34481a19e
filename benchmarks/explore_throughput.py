"""Explicit-state search throughput on the default scenarios (states, seconds,
states/s), with and without the reductions of checker/model.py.

    python benchmarks/explore_throughput.py [--full]   # --full: also without reductions (slow)

Writes benchmarks/results/explore_throughput.json with the machine and the command.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.check import run_check  # noqa: E402
from rrcheck.checker.scenarios import DEFAULTS, MUTANT_SCENARIOS  # noqa: E402
from rrcheck.protocols.mutants import MUTANTS  # noqa: E402


def main() -> int:
    full = "--full" in sys.argv
    rows = []
    cases = [(p, sc, None) for p, scs in DEFAULTS.items() for sc in scs]
    cases += [(MUTANTS[m].protocol, sc, m) for m, sc in MUTANT_SCENARIOS.items()]
    for protocol, sc, mutant in cases:
        for reduce in ((True, False) if full else (True,)):
            c = run_check(protocol, sc, mutant, reduce=reduce, max_states=5_000_000)
            r = c.result
            rows.append({"protocol": protocol, "mutant": mutant, "scenario": sc.label(), "reduce": reduce,
                         "verdict": r.verdict, "states": r.states, "transitions": r.transitions,
                         "seconds": round(r.seconds, 2), "states_per_s": round(r.states_per_s)})
            print(f"{mutant or protocol:<44} {sc.label():<28} reduce={reduce!s:<5} {r.verdict:<10} "
                  f"{r.states:>10,} states {r.seconds:>7.1f} s {r.states_per_s:>8,.0f}/s", flush=True)
    record.write("explore_throughput", {"results": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
