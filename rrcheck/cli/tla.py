"""``rrcheck tla``: a protocol's TLA+ spec (specs/) checked by TLC on an rrcheck scenario.

    rrcheck tla PROTOCOL [--scenario K] [--workload W] [--procs N] [--nodes M] [--failures F]
                [--checkpoints C] [--mutant NAME] [--workers N] [--keep DIR] [--json]
    rrcheck tla --all

Exit status as ``rrcheck check``: 0 as expected, 1 a violation or a surprise,
2 a usage error (TLC or Java missing included), 3 incomplete (timeout).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from rrcheck.errors import UsageError


def add_parser(sub) -> None:
    from rrcheck.cli.check import nonneg, positive_float, scenario_args, workers_type
    s = sub.add_parser("tla", help="check a protocol's TLA+ spec with TLC on an rrcheck scenario",
                       description="Check a protocol's TLA+ specification (specs/) with TLC, on the same "
                                   "scenarios as rrcheck check, and compare the verdict with the explicit engine's.")
    s.add_argument("protocol", nargs="?", help="a specified protocol (rrcheck list)")
    s.add_argument("--all", action="store_true",
                   help="every specified protocol on its default scenarios, every mutant of them on its own")
    s.add_argument("--scenario", type=nonneg("--scenario", 1), metavar="K",
                   help="only the protocol's K-th default scenario (default: all of them)")
    scenario_args(s)
    s.add_argument("--mutant", help="check this mutant's spec (its knobs as constants) instead")
    s.add_argument("--property", action="append", dest="properties", help="check only these (repeatable)")
    s.add_argument("--workers", type=workers_type, default=1, metavar="N", help="TLC worker threads (default 1)")
    s.add_argument("--timeout", type=positive_float("--timeout"), default=1800.0, metavar="SECONDS",
                   help="wall-clock limit of one TLC run, seconds (default 1800)")
    s.add_argument("--keep", metavar="DIR", help="keep TLC's working directory (MC.tla, MC.cfg, tlc.out) under DIR")
    s.add_argument("--out", default="rrcheck-out", help="where counterexamples are written")
    s.add_argument("--engine", choices=("tlc", "apalache"), default="tlc",
                   help="the model checker (default tlc; Apalache cannot be installed on this machine)")
    s.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                   help="relay TLC's progress lines (about one a minute) on stderr (default on)")
    s.set_defaults(func=cmd_tla)


def cmd_tla(args) -> int:
    from rrcheck.checker.tla import SPECIFIED, run_tla
    if args.engine == "apalache":
        if not shutil.which("apalache-mc"):
            raise UsageError("apalache-mc is not on PATH (Apalache cannot be installed here); use --engine tlc")
        raise UsageError("the Apalache runner is not written yet; use --engine tlc")
    from rrcheck.files import check_dir
    keep = check_dir(args.keep, "--keep") if args.keep else None  # before the work, not after it
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    if args.all:
        if args.protocol or args.mutant:
            raise UsageError("--all checks every specified protocol and mutant; drop the protocol and --mutant")
        return _all(args, keep)
    from rrcheck.cli.check import plan
    from rrcheck.protocols.mutants import MUTANTS
    if not args.protocol and not args.mutant:
        raise UsageError("name a protocol (rrcheck list) or use --all")
    if args.mutant and args.mutant not in MUTANTS:
        raise UsageError(f"unknown mutant {args.mutant!r}; `rrcheck list` shows them all")
    if args.mutant and MUTANTS[args.mutant].model:
        raise UsageError(f"{args.mutant} changes rrcheck's model, not the protocol; the specs state their own "
                         f"system model (specs/RollbackRecovery.tla): check it with rrcheck check --mutant")
    protocol = args.protocol or MUTANTS[args.mutant].protocol
    if protocol not in SPECIFIED:
        raise UsageError(f"unknown protocol {protocol!r}; choose one of {', '.join(SPECIFIED)}")
    args.depth = None
    args.max_states = None
    checks = plan(args)  # the same scenarios, and the same refusals, as rrcheck check
    if len(checks) > 1 and not args.json:
        print(f"{protocol}: {len(checks)} default scenarios ({', '.join(sc.label() for _, _, sc in checks)})")
    done = []
    for _, mutant, scenario in checks:
        c = run_tla(protocol, scenario, mutant, args.properties, args.workers, keep, Path(args.out), args.timeout,
                    progress=args.progress)
        done.append(c)
        if not args.json:
            _print(c)
    if args.json:
        print(json.dumps(done[0].as_dict() if len(done) == 1 else
                         {"protocol": protocol, "checks": [c.as_dict() for c in done]}, indent=1))
    verdicts = {c.verdict for c in done}
    return 1 if verdicts & {"error", "violation"} else 3 if "incomplete" in verdicts else 0


def _print(c) -> None:
    print(f"{c.mutant or c.protocol} on {c.scenario.label()} (TLC): {c.verdict.upper()}")
    if c.property:
        print(f"  {c.property}: {c.message}")
    elif c.message:
        print(f"  {c.message}")
    print(f"  {c.states:,} distinct states, {c.generated:,} states generated, depth {c.depth}, {c.seconds:.1f} s")
    if c.counterexample:
        print(f"  counterexample ({len(c.events)} events): {c.counterexample}"
              f" ({'replays' if c.reproduced else 'does NOT replay'} on the Python model)")
        print(f"  see it: rrcheck replay {c.counterexample}")


def expected(c) -> bool:
    from rrcheck.protocols.mutants import MUTANTS
    if c.mutant is None:
        return c.verdict == "pass"
    return c.verdict == "violation" and c.property in MUTANTS[c.mutant].catches and bool(c.reproduced)


def _all(args, keep) -> int:
    """Every specified protocol's default scenarios and mutants, one row as each
    finishes."""
    from rrcheck.checker.model.scenarios import DEFAULTS, scenario_for_mutant
    from rrcheck.checker.tla import SPECIFIED, run_tla
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
    out = Path(args.out)
    jobs = [(p, sc, None) for p in SPECIFIED for sc in DEFAULTS[p]]
    jobs += [(m.protocol, scenario_for_mutant(name), name) for name, m in MUTANTS.items()
             if m.protocol in SPECIFIED and not m.model]
    if not args.json:
        print(f"{'protocol / mutant':<44} {'scenario':<38} {'verdict':<10} {'property':<22} {'states':>9} {'s':>6}",
              flush=True)
    checks, interrupted = [], False
    try:
        for k, (p, sc, mut) in enumerate(jobs, start=1):
            print(f"rrcheck: [{k}/{len(jobs)}] {mut or p} {sc.label()} (TLC)", file=sys.stderr, flush=True)
            c = run_tla(p, sc, mut, workers=args.workers, keep=keep, out=out, timeout=args.timeout,
                        progress=args.progress)
            checks.append(c)
            if args.json:
                print(json.dumps(c.as_dict() | {"expected": expected(c)}), flush=True)
            else:
                mark = "ok" if expected(c) else ("NOT CAUGHT" if c.mutant else "FAILED")
                print(f"{(c.mutant or c.protocol):<44} {c.scenario.label():<38} {c.verdict:<10} "
                      f"{(c.property or '-'):<22} {c.states:>9,} {c.seconds:>6.1f}  {mark}", flush=True)
    except KeyboardInterrupt:
        interrupted = True
    good = sum(expected(c) for c in checks)
    ok = not interrupted and good == len(jobs)
    missing = [p for p in PROTOCOLS if p not in SPECIFIED]
    if args.json:
        print(json.dumps({"summary": True, "ok": ok, "checks": len(jobs), "as_expected": good,
                          "interrupted": interrupted, "not_specified": missing}),
              flush=True)
    else:
        print(f"\n{good}/{len(jobs)} as expected under TLC" + (" (INTERRUPTED)" if interrupted else ""))
        if missing:
            print(f"no TLA+ spec yet: {', '.join(missing)}")
    return 130 if interrupted else 0 if ok else 1
