"""``rrcheck fuzz``: the stateful Hypothesis engine (rrcheck.checker.stateful.fuzz) from the command line."""
from __future__ import annotations

import dataclasses
import json
import sys

from rrcheck.checker.model import workloads as W
from rrcheck.errors import UsageError
from rrcheck.checker.stateful.fuzz import PROFILES, fuzz_scenario, run_fuzz, sequential_failures
from rrcheck.checker.model.scenarios import DEFAULTS, Scenario
from rrcheck.cli.check import _crash_kinds, print_check, scenario_args
from rrcheck.options import bounded
from rrcheck.files import check_dir
from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS

def add_parser(sub) -> None:
    s = sub.add_parser("fuzz", help="randomized stateful search (Hypothesis) beyond exhaustive sizes",
                       description="Random runs of a protocol (or mutant) at twice its exhaustive scenario, "
                                   "shrunk to a short counterexample when one breaks a property; a pass is a "
                                   "sample, not a proof.")
    s.add_argument("protocol", nargs="?", help="a protocol (rrcheck list)")
    s.add_argument("--mutant", help="fuzz this mutant (rrcheck list) instead of the correct protocol")
    scenario_args(s)
    s.add_argument("--hypothesis-dir", metavar="DIR",
                   help="keep Hypothesis's cache in DIR (default: a temporary directory, removed at the end)")
    s.add_argument("--examples", type=bounded("--examples", 1, 10_000_000, "a run each"), metavar="K",
                   help="runs to try, 1 to 10,000,000 (default: the profile's)")
    s.add_argument("--sequential-failures", action="store_true",
                   help="no failure during a recovery (default: so where a fixed workload's failures are doubled)")
    s.add_argument("--profile", choices=PROFILES, default="ci",
                   help=f"Hypothesis settings: {', '.join(PROFILES)} (default ci)")
    s.add_argument("--seed", type=int, default=0, help="Hypothesis seed (default 0)")
    s.add_argument("--property", action="append", dest="properties", metavar="P",
                   help="check only this property (repeatable; default: every one that applies)")
    s.add_argument("--out", default="rrcheck-out", metavar="DIR",
                   help="directory the counterexamples are written to (default ./rrcheck-out)")
    s.add_argument("--json", action="store_true", help="print JSON on stdout")
    s.set_defaults(func=cmd_fuzz)


def _scenario(args, protocol: str) -> Scenario:
    base = fuzz_scenario(protocol, args.mutant)
    sc = base
    if args.workload and args.workload != base.workload:
        sc = Scenario(args.workload, failures=base.failures, checkpoints=base.checkpoints,
                      crash_kinds=base.crash_kinds)
    over = {k: getattr(args, k) for k in ("procs", "nodes", "failures", "checkpoints", "depth")
            if getattr(args, k) is not None}
    if args.crash_kinds:
        over["crash_kinds"] = _crash_kinds(args.crash_kinds)
    if args.at_sites:
        over["at_sites"] = True
    if args.no_failure_during_recovery:
        over["no_failure_during_recovery"] = True
    if args.beyond_fault_model:
        over["beyond_fault_model"] = True
    sc = dataclasses.replace(sc, **over)
    W.make(sc.workload, sc.procs, sc.nodes)  # refused now if it cannot be built
    return sc


def cmd_fuzz(args) -> int:
    protocol = args.protocol
    if args.mutant:
        if args.mutant not in MUTANTS:
            raise UsageError(f"unknown mutant {args.mutant!r}; `rrcheck list` shows them all")
        protocol = protocol or MUTANTS[args.mutant].protocol
        if protocol != MUTANTS[args.mutant].protocol:
            raise UsageError(f"mutant {args.mutant!r} is a variant of {MUTANTS[args.mutant].protocol!r}, "
                             f"not {protocol!r}")
    elif not protocol:
        raise UsageError("name a protocol or a --mutant (rrcheck list)")
    elif protocol not in PROTOCOLS or protocol not in DEFAULTS:
        raise UsageError(f"unknown protocol {protocol!r}; choose one of {', '.join(DEFAULTS)}")
    scenario = _scenario(args, protocol)
    out = check_dir(args.out, "--out")
    sequential = args.sequential_failures or sequential_failures(protocol, args.mutant)
    import tempfile

    from hypothesis.configuration import set_hypothesis_home_dir
    with tempfile.TemporaryDirectory(prefix="rrcheck-hypothesis-") as scratch:
        # Hypothesis keeps a cache in ./.hypothesis; a command leaves nothing where it is run unless asked
        set_hypothesis_home_dir(args.hypothesis_dir or scratch)
        try:
            f = run_fuzz(protocol, scenario, args.mutant, args.properties, out, args.profile,
                         args.examples, args.seed, sequential=sequential)
        finally:
            set_hypothesis_home_dir(None)
    if args.json:
        print(json.dumps(f.as_dict(), indent=1))
    else:
        print_check(f)
        found = (f"; first violation after {f.found_after:,} runs, {f.found_seconds:.1f} s, shrunk to "
                 f"{len(f.result.trace)} events" if f.found_after else " — a sample, not a proof")
        one = ", one failure at a time" if f.sequential else ""
        print(f"  Hypothesis: {f.examples:,} runs (profile {f.profile}, seed {f.seed}{one}){found}")
        cov = f.coverage
        print("  coverage (count, runs): " + ", ".join(f"{k} {v:,}/{cov['runs_with'][k]:,}"
                                                     for k, v in cov["counts"].items()))
    if f.vacuous:
        print(f"rrcheck: {f.mutant or protocol} on {scenario.label()}: VACUOUS pass: {f.vacuous}", file=sys.stderr)
    if f.result.verdict == "pass" and f.never_generated:
        print(f"rrcheck: {f.mutant or protocol} on {scenario.label()}: no run generated "
              f"{', '.join(f.never_generated)}, which the scenario allows", file=sys.stderr)
    return {"pass": 0, "violation": 1}[f.result.verdict]
