"""Per mutant: the runs (examples) and seconds the stateful Hypothesis engine
needs to find it on its fuzz configuration (twice its exhaustive scenario,
checker/stateful/fuzz.py), against the states and seconds of the explicit search on the
exhaustive scenario and on the same fuzz configuration.

    python benchmarks/fuzz_vs_explore.py [--seeds K] [--time-limit S]

Fuzzing is repeated with seeds 0..K-1 (default 3); the explicit search on the
fuzz configuration stops at S seconds (default 120) and is then incomplete.
Writes benchmarks/results/fuzz_vs_explore.json with the machine, its load and the command.
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.explicit.check import run_check  # noqa: E402
from rrcheck.checker.stateful.fuzz import fuzz_scenario, procs_of, run_fuzz, sequential_failures  # noqa: E402
from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS  # noqa: E402
from rrcheck.protocols.mutants import MUTANTS  # noqa: E402


def explicit(protocol, sc, mutant, time_limit) -> dict:
    r = run_check(protocol, sc, mutant, time_limit=time_limit, max_states=5_000_000, progress=False).result
    return {"scenario": sc.label(), "procs": procs_of(sc), "failures": sc.failures, "verdict": r.verdict,
            "property": r.violation.property if r.violation else None, "states": r.states,
            "seconds": round(r.seconds, 2), "trace_length": len(r.trace)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=120.0)
    args = ap.parse_args()
    rows = []
    for name, m in MUTANTS.items():
        small, big = MUTANT_SCENARIOS[name], fuzz_scenario(None, name)
        sequential = sequential_failures(m.protocol, name)
        # the explicit search on the same configuration: failures one at a time too
        big_explicit = dataclasses.replace(big, no_failure_during_recovery=True) if sequential else big
        runs = []
        for seed in range(args.seeds):
            f = run_fuzz(m.protocol, big, name, seed=seed, progress=False, sequential=sequential)
            r = f.result
            runs.append({"seed": seed, "caught": f.expected, "property": r.violation.property if r.violation else None,
                         "examples_to_find": f.found_after,
                         "seconds_to_find": round(f.found_seconds, 2) if f.found_seconds is not None else None,
                         "seconds_with_shrinking": round(r.seconds, 2), "shrunk_length": len(r.trace),
                         "states_seen": r.states})
        found = [x for x in runs if x["caught"]]
        row = {"mutant": name,
               "fuzz": {"scenario": big.label(), "procs": procs_of(big), "failures": big.failures, "runs": runs,
                        "caught": f"{len(found)}/{len(runs)}",
                        "median_examples_to_find": statistics.median(x["examples_to_find"] for x in found)
                        if found else None,
                        "median_seconds_to_find": statistics.median(x["seconds_to_find"] for x in found)
                        if found else None},
               "explicit_exhaustive_scenario": explicit(m.protocol, small, name, args.time_limit),
               "explicit_fuzz_scenario": explicit(m.protocol, big_explicit, name, args.time_limit)}
        rows.append(row)
        fz, e1, e2 = row["fuzz"], row["explicit_exhaustive_scenario"], row["explicit_fuzz_scenario"]
        print(f"{name:<42} fuzz {fz['scenario']:<30} caught {fz['caught']} median {fz['median_examples_to_find']} "
              f"runs {fz['median_seconds_to_find']} s | explicit small {e1['states']:,} states {e1['seconds']} s | "
              f"explicit big {e2['verdict']} {e2['states']:,} states {e2['seconds']} s", flush=True)
    record.write("fuzz_vs_explore", {"note": "seconds are wall-clock on a machine shared with other jobs; see load_average_at_end", "results": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
