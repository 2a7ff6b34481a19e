"""Per mutant: the runs (examples) and seconds the stateful Hypothesis engine
needs to find it on its fuzz configuration (twice its exhaustive scenario,
checker/stateful/fuzz.py), against the states and seconds of the explicit search on the
exhaustive scenario and on the same fuzz configuration.

Per protocol, state by state (``states_per_protocol``): on its scenario of
STATE_BY_STATE, the share of the unreduced explicit search's reachable states (the
search's own keys: the states, compared by value) that a fixed budget of runs visits,
with the witness classes of the Judge met and the coverage witnesses missed; every state
a run visits must be in that reachable set (``outside_explicit`` is 0). A drop of the
share is a regression: tests/test_stateful_coverage.py holds seed 0 of the smallest
budget to nine tenths of the least share recorded here.

    python benchmarks/fuzz_vs_explore.py [--seeds K] [--time-limit S] [--budgets B,B] [--state-seeds K]

Fuzzing is repeated with seeds 0..K-1 (default 3); the explicit search on the
fuzz configuration stops at S seconds (default 120) and is then incomplete. The states
part runs each budget (default 100 and 1,000 runs) with seeds 0..K-1 (default 5).
Writes benchmarks/results/fuzz_vs_explore.json with the machine, its load and the command.
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.explicit.check import run_check  # noqa: E402
from rrcheck.checker.stateful.fuzz import (STATE_BY_STATE, fuzz_scenario, procs_of, run_fuzz,  # noqa: E402
                                           sequential_failures)
from rrcheck.checker.model.scenarios import DEFAULTS, MUTANT_SCENARIOS  # noqa: E402
from rrcheck.protocols.mutants import MUTANTS  # noqa: E402


def explicit(protocol, sc, mutant, time_limit) -> dict:
    r = run_check(protocol, sc, mutant, time_limit=time_limit, max_states=5_000_000, progress=False).result
    return {"scenario": sc.label(), "procs": procs_of(sc), "failures": sc.failures, "verdict": r.verdict,
            "property": r.violation.property if r.violation else None, "states": r.states,
            "seconds": round(r.seconds, 2), "trace_length": len(r.trace)}


def states_row(protocol: str, budgets: list[int], seeds: int) -> dict:
    """The share of the unreduced explicit search's states that ``budgets`` runs visit."""
    sc = DEFAULTS[protocol][STATE_BY_STATE[protocol]]
    reachable: set = set()
    e = run_check(protocol, sc, reduce=False, visited=reachable, progress=False).result
    assert e.verdict == "pass" and len(reachable) == e.states, (protocol, e.verdict)
    reduced = run_check(protocol, sc, progress=False).result
    classes = {k for k, v in e.witnesses.items() if v}
    row = {"protocol": protocol, "scenario": sc.label(), "explicit_states_unreduced": e.states,
           "explicit_states_reduced": reduced.states, "explicit_seconds_unreduced": round(e.seconds, 2),
           "witness_classes_explicit": len(classes), "budgets": []}
    for budget in budgets:
        runs = []
        for seed in range(seeds):
            visited: set = set()
            t0 = time.perf_counter()
            f = run_fuzz(protocol, sc, examples=budget, seed=seed, shrink=False, progress=False, visited=visited)
            assert f.result.verdict == "pass", (protocol, f.result.violation)
            met = {k for k, v in f.result.witnesses.items() if v}
            runs.append({"seed": seed, "runs": f.examples, "states": len(visited),
                         "outside_explicit": len(visited - reachable),
                         "fraction": round(len(visited & reachable) / len(reachable), 4),
                         "witness_classes_met": len(met & classes), "coverage_missed": f.shortfalls(e.witnesses),
                         "seconds": round(time.perf_counter() - t0, 2)})
        fractions = [x["fraction"] for x in runs]
        row["budgets"].append({"examples": budget, "runs": runs, "min_fraction": min(fractions),
                               "median_fraction": statistics.median(fractions)})
        print(f"{protocol:<20} {sc.label():<48} {budget:>6,} runs: states {min(fractions):.3f}-{max(fractions):.3f} "
              f"of {e.states:,}, classes {min(x['witness_classes_met'] for x in runs)}-"
              f"{max(x['witness_classes_met'] for x in runs)} of {len(classes)}, outside "
              f"{sum(x['outside_explicit'] for x in runs)}", flush=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--budgets", default="100,1000", help="runs per campaign of the states part, comma-separated")
    ap.add_argument("--state-seeds", type=int, default=5)
    args = ap.parse_args()
    budgets = [int(x) for x in args.budgets.split(",")]
    states = [states_row(p, budgets, args.state_seeds) for p in DEFAULTS]
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
    record.write("fuzz_vs_explore", {"note": "seconds are wall-clock on a machine shared with other jobs; see load_average_at_end",
                                     "states_per_protocol": states, "results": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
