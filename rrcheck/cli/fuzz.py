"""``rrcheck fuzz``: the stateful Hypothesis engine (rrcheck.checker.fuzz) from the command line."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from rrcheck.checker.errors import UsageError
from rrcheck.checker.fuzz import PROFILES, fuzz_scenario, run_fuzz, sequential_failures
from rrcheck.checker.scenarios import DEFAULTS, Scenario
from rrcheck.cli.check import print_check, scenario_args
from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS

def add_parser(sub) -> None:
    s = sub.add_parser("fuzz", help="randomized stateful search (Hypothesis) beyond exhaustive sizes")
    s.add_argument("protocol", nargs="?")
    s.add_argument("--mutant")
    scenario_args(s)
    s.add_argument("--examples", type=int, help="runs to try (default: the profile's)")
    s.add_argument("--sequential-failures", action="store_true",
                   help="no failure during a recovery (the default where doubling a fixed workload's failures)")
    s.add_argument("--profile", choices=PROFILES, default="ci")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--property", action="append", dest="properties", help="check only these (repeatable)")
    s.add_argument("--out", default="rrcheck-out", help="where counterexamples are written")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_fuzz)


def _scenario(args, protocol: str) -> Scenario:
    base = fuzz_scenario(protocol, args.mutant)
    for name in ("procs", "nodes", "failures", "checkpoints", "examples"):
        v = getattr(args, name)
        if v is not None and v < (0 if name in ("failures", "checkpoints") else 1):
            raise UsageError(f"--{name} must be {'0 or more' if name in ('failures', 'checkpoints') else 'positive'}")
    sc = base
    if args.workload and args.workload != base.workload:
        sc = Scenario(args.workload, failures=base.failures, checkpoints=base.checkpoints,
                      crash_kinds=base.crash_kinds)
    over = {k: getattr(args, k) for k in ("procs", "nodes", "failures", "checkpoints") if getattr(args, k) is not None}
    if args.at_sites:
        over["at_sites"] = True
    return dataclasses.replace(sc, **over)


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
    sequential = args.sequential_failures or sequential_failures(protocol, args.mutant)
    f = run_fuzz(protocol, scenario, args.mutant, args.properties, Path(args.out), args.profile,
                 args.examples, args.seed, sequential=sequential)
    if args.json:
        print(json.dumps(f.as_dict(), indent=1))
    else:
        print_check(f)
        found = (f"; first violation after {f.found_after:,} runs, {f.found_seconds:.1f} s, shrunk to "
                 f"{len(f.result.trace)} events" if f.found_after else " — a sample, not a proof")
        one = ", one failure at a time" if f.sequential else ""
        print(f"  Hypothesis: {f.examples:,} runs (profile {f.profile}, seed {f.seed}{one}){found}")
    return {"pass": 0, "violation": 1}[f.result.verdict]
