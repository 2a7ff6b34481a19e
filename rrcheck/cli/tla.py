"""``rrcheck tla``: a protocol's TLA+ spec (specs/) checked by TLC on an rrcheck scenario.

    rrcheck tla PROTOCOL [--scenario K] [--workload W] [--procs N] [--nodes M] [--failures F]
                [--checkpoints C] [--mutant NAME] [--workers N] [--keep DIR] [--json]
    rrcheck tla --all

Exit status as ``rrcheck check``: 0 as expected, 1 a violation, a surprise or
a disagreement of the spec and the Python model (TLC's trace leaves the model,
or its verdict or counts are not the explorer's or specs/manifest.json's), 2 a
usage error (TLC or Java missing included), 3 incomplete (timeout).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from rrcheck.errors import UsageError


def _refine(protocol, checks, args, keep) -> int:
    """--refine: the paper-level spec under its mapping, on each scenario (exit 1
    where a step of the detailed spec is none of the paper's)."""
    from rrcheck.checker.tla.refinement import check_refinement, paper_of
    if args.properties:
        raise UsageError("--refine checks the paper's spec and its properties; drop --property")
    paper = paper_of(protocol)
    done = []
    for _, mutant, scenario in checks:
        c = check_refinement(protocol, scenario, mutant, args.timeout, keep, progress=args.progress)
        done.append(c)
        if args.json:
            continue
        name = f"{mutant or protocol} on {scenario.label()}"
        if c.verdict == "refines":
            print(f"{name}: refines {paper.paper} ({paper.source}), every step\n"
                  f"  {c.states:,} distinct states, {c.generated:,} generated, depth {c.depth}, {c.seconds:.1f} s")
        elif c.verdict == "fails":
            what = ("a step the paper's spec does not allow" if c.broken == "PaperSpec"
                    else f"the paper's {c.broken.removeprefix('Paper')} broken")
            print(f"{name}: does NOT refine {paper.paper}: {what}, at step {c.steps} of TLC's trace")
            if len(c.events) < c.steps:
                print(f"  the Python model follows {len(c.events)} of its steps: here the spec is not the "
                      f"model (rrcheck tla without --refine shows where they part)")
            for i, e in enumerate(c.events[-6:], start=max(1, len(c.events) - 5)):
                print(f"  {i}. {json.dumps(list(e))}")
        else:
            print(f"{name}: {c.verdict.upper()}: {c.message.splitlines()[0] if c.message else ''}")
    if args.json:
        out = [c.as_dict() for c in done]
        print(json.dumps(out[0] if len(out) == 1 else {"protocol": protocol, "checks": out}, indent=1))
    verdicts = {c.verdict for c in done}
    return 1 if verdicts & {"fails", "error"} else 3 if "incomplete" in verdicts else 0


def add_parser(sub) -> None:
    from rrcheck.cli.check import nonneg, positive_float, scenario_args, workers_type
    s = sub.add_parser("tla", help="check a protocol's TLA+ spec with TLC on an rrcheck scenario",
                       description="Check a protocol's TLA+ specification (specs/, or RRCHECK_SPECS) with TLC, "
                                   "on the same scenarios as rrcheck check; a TLC trace the Python model cannot "
                                   "follow, or a verdict or count not the manifest's, is a disagreement (exit 1).")
    s.add_argument("protocol", nargs="?", help="a specified protocol (rrcheck list)")
    s.add_argument("--all", action="store_true",
                   help="every specified protocol on its default scenarios, every mutant of them on its own, "
                        "each held to the explorer (no reductions) and to specs/manifest.json")
    s.add_argument("--scenario", type=nonneg("--scenario", 1), metavar="K",
                   help="only the protocol's K-th default scenario (default: all of them)")
    scenario_args(s)
    s.add_argument("--mutant", help="check this mutant's spec (its knobs as constants) instead")
    s.add_argument("--property", action="append", dest="properties", help="check only these (repeatable)")
    s.add_argument("--refine", action="store_true",
                   help="check instead that the spec refines the paper-level spec written from the paper alone "
                        "(specs/CoordinatedPaper.tla: coordinated and chandy-lamport; specs/SBMLPaper.tla: sbml; "
                        "specs/CorrelatedSetPaper.tla: correlated-set), "
                        "step by step, under its mapping")
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
        if args.protocol or args.mutant or args.refine:
            raise UsageError("--all checks every specified protocol and mutant; drop the protocol, --mutant "
                             "and --refine")
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
    if args.refine:
        from rrcheck.checker.tla.refinement import paper_of
        paper_of(protocol)  # refused in one line before any work
    args.depth = None
    args.max_states = None
    checks = plan(args)  # the same scenarios, and the same refusals, as rrcheck check
    if len(checks) > 1 and not args.json:
        print(f"{protocol}: {len(checks)} default scenarios ({', '.join(sc.label() for _, _, sc in checks)})")
    if args.refine:
        return _refine(protocol, checks, args, keep)
    rows = _manifest_if_any() if args.properties is None else {}
    done, parted = [], []
    for _, mutant, scenario in checks:
        c = run_tla(protocol, scenario, mutant, args.properties, args.workers, keep, Path(args.out), args.timeout,
                    progress=args.progress)
        found = disagreements(c, row=rows.get((protocol, mutant, scenario.label())))
        done.append((c, found))
        if found:
            parted.append((c, found))
        if not args.json:
            _print(c, found, events=True)
    if args.json:
        out = [c.as_dict() | {"disagreements": found} for c, found in done]
        print(json.dumps(out[0] if len(out) == 1 else {"protocol": protocol, "checks": out}, indent=1))
    for c, found in parted:
        print(f"rrcheck: the spec and the model disagree on {c.mutant or c.protocol}, {c.scenario.label()}: "
              f"{found[0]}" + (f" (and {len(found) - 1} more)" if len(found) > 1 else ""), file=sys.stderr)
    verdicts = {c.verdict for c, _ in done}
    return 1 if parted or verdicts & {"error", "violation"} else 3 if "incomplete" in verdicts else 0


def _manifest_if_any() -> dict:
    """specs/manifest.json's rows, or none if the specs' directory has no readable one
    (one scenario's check needs none; `--all` does)."""
    from rrcheck.checker.tla.model import manifest
    try:
        return manifest()
    except UsageError:
        return {}


def _verdict(verdict: str, prop: str | None) -> str:
    if verdict == "violation":
        return f"a {prop} violation" if prop else "a violation"
    return "a pass" if verdict == "pass" else verdict


def disagreements(c, explorer=None, row=None) -> list[str]:
    """Where TLC's run ``c`` and the Python model part, one sentence each: TLC's
    trace (it leaves the model, or the model judges it otherwise); given, the
    explorer's result without reductions (``explorer``) and the model's row of
    specs/manifest.json (``row``): the verdict and property, and on a pass the
    counts (specs/README.md, "How the counts relate": TLC's distinct states are
    the explorer's states, its states generated the explorer's transitions + 1,
    its depth the explorer's). A violation's counts depend on each engine's
    search order and are not compared; nor are a run's that did not finish."""
    found = [d] if (d := c.disagreement()) else []
    if c.verdict not in ("pass", "violation"):
        return found
    tlc = _verdict(c.verdict, c.property)
    if explorer is not None:
        py = _verdict(explorer.verdict, explorer.violation.property if explorer.violation else None)
        if py != tlc:
            found.append(f"TLC finds {tlc}, the explorer {py}")
        elif c.verdict == "pass":
            for what, t, e in (("distinct states", c.states, explorer.states),
                               ("states generated", c.generated, explorer.transitions + 1),
                               ("depth", c.depth, explorer.depth)):
                if t != e:
                    found.append(f"{what}: TLC {t:,}, the explorer {e:,}"
                                 + (" (its transitions + 1)" if what == "states generated" else ""))
    if row is not None:
        listed = _verdict(row["result"], row["property"])
        if listed != tlc:
            found.append(f"TLC finds {tlc}, specs/manifest.json {listed}")
        elif c.verdict == "pass":
            for what, t, m in (("distinct states", c.states, row["distinct_states"]),
                               ("states generated", c.generated, row["states_generated"])):
                if t != m:
                    found.append(f"{what}: TLC {t:,}, specs/manifest.json {m:,}")
    return found


def _print(c, found=(), events=False) -> None:
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
    _print_disagreements(c, found, events)


def _print_disagreements(c, found, events: bool, indent: str = "  ") -> None:
    """Each disagreement in a line; where TLC's trace leaves the Python model, the
    steps it follows (their events, if ``events``) and the step it cannot take."""
    for d in found:
        print(f"{indent}THE SPEC AND THE MODEL DISAGREE: {d}")
    p = c.parting
    if p is None:
        return
    if events and p.followed:
        print(f"{indent}TLC's trace as the Python model's events, steps 1 to {len(p.followed)}:")
        for k, e in enumerate(p.followed, start=1):
            print(f"{indent}  {k:>3} {json.dumps(list(e))}")
    for line in p.lines()[1:]:
        print(f"{indent}{line}")
    print(f"{indent}(TLC's whole trace: --keep DIR keeps TLC's output, tlc.out)")


def expected(c) -> bool:
    from rrcheck.protocols.mutants import MUTANTS
    if c.mutant is None:
        return c.verdict == "pass"
    return c.verdict == "violation" and c.property in MUTANTS[c.mutant].catches and bool(c.reproduced)


def _all(args, keep) -> int:
    """Every specified protocol's default scenarios and mutants, one row as each
    finishes; each held to the explorer without reductions and to its row of
    specs/manifest.json (:func:`disagreements`)."""
    from rrcheck.checker.explicit.check import run_check
    from rrcheck.checker.model.scenarios import DEFAULTS, scenario_for_mutant
    from rrcheck.checker.tla import SPECIFIED, run_tla
    from rrcheck.checker.tla.model import manifest
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
    out = Path(args.out)
    rows = manifest()  # before the work: a missing or broken manifest is one line
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
            py = run_check(p, sc, mut, reduce=False, progress=args.progress).result
            row = rows.get((p, mut, sc.label()))
            found = disagreements(c, py, row) + ([] if row else ["specs/manifest.json has no row for it"])
            good = expected(c) and not found
            checks.append((c, good, found))
            if args.json:
                print(json.dumps(c.as_dict() | {"expected": good, "disagreements": found,
                                                "explorer": {"verdict": py.verdict, "states": py.states,
                                                             "transitions": py.transitions, "depth": py.depth,
                                                             "property": py.violation.property if py.violation
                                                             else None}}), flush=True)
            else:
                mark = ("ok" if good else "DISAGREE" if found else "NOT CAUGHT" if c.mutant else "FAILED")
                print(f"{(c.mutant or c.protocol):<44} {c.scenario.label():<38} {c.verdict:<10} "
                      f"{(c.property or '-'):<22} {c.states:>9,} {c.seconds:>6.1f}  {mark}", flush=True)
                _print_disagreements(c, found, events=False, indent="    ")
    except KeyboardInterrupt:
        interrupted = True
    good = sum(g for _, g, _ in checks)
    parted = sum(bool(f) for _, _, f in checks)
    ok = not interrupted and good == len(jobs)
    missing = [p for p in PROTOCOLS if p not in SPECIFIED]
    if args.json:
        print(json.dumps({"summary": True, "ok": ok, "checks": len(jobs), "as_expected": good,
                          "disagree": parted, "interrupted": interrupted, "not_specified": missing}),
              flush=True)
    else:
        print(f"\n{good}/{len(jobs)} as expected under TLC" + (" (INTERRUPTED)" if interrupted else ""))
        if parted:
            print(f"{parted} where the spec and the model disagree (TLC's trace, or its verdict or counts against "
                  "the explorer's and specs/manifest.json's)")
        if missing:
            print(f"no TLA+ spec yet: {', '.join(missing)}")
    return 130 if interrupted else 0 if ok else 1
