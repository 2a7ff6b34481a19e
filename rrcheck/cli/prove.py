"""``rrcheck prove``: the protocols' safety lemmas proved inductively with Z3
for any number of processes and messages (rrcheck.checker.symbolic).

    rrcheck prove [LEMMA ...] [--all] [--mutant M [--refine]] [--no-steps] [--json] [--out DIR]

Each lemma is proved, then every step the explorer takes on its scenarios (a
refinement check, checker/symbolic/refine.py) is held to the proved relation;
with --mutant the mutated relation is proved instead, and with --mutant and
--refine the relation as proved is held to the protocol carrying the mutant's
knobs.

Exit status: 0 every lemma proved and every step checked an action of its
relation, 1 a counterexample to induction or a step no action allows, 2 a usage
error.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from rrcheck.errors import UsageError


def add_parser(sub) -> None:
    s = sub.add_parser("prove", help="prove the protocols' safety lemmas for any N with Z3",
                       description="Prove inductive safety lemmas of the protocols for any number of processes "
                                   "with Z3; a failed proof prints a counterexample to induction (CTI) and says "
                                   "whether the explicit explorer reaches it. Exit 1 if one is not proved.")
    s.add_argument("lemmas", nargs="*", metavar="LEMMA", help="lemmas to prove (rrcheck prove --all lists them)")
    s.add_argument("--all", action="store_true", help="every lemma")
    s.add_argument("--mutant", help="check the lemma(s) against this mutant's transition relation")
    s.add_argument("--json", action="store_true", help="print the outcomes as JSON on stdout")
    s.add_argument("--out", default="rrcheck-out", help="directory where counterexamples to induction are saved")
    s.add_argument("--refine", action="store_true",
                   help="with --mutant: prove the relation as it is, and hold every step of the protocol "
                        "carrying the mutant's knobs to it (without --mutant the steps are always held)")
    s.add_argument("--no-steps", action="store_true",
                   help="prove only: do not hold the protocol's steps on the lemma's scenarios to the relation")
    s.add_argument("--no-explore", action="store_true",
                   help="do not ask the explicit explorer whether a counterexample is reachable")
    s.set_defaults(func=cmd_prove)


def _out_dir(path: str) -> Path:
    """Checked before any work; created only when a counterexample is saved."""
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise UsageError(f"--out {path} is a file; name a directory")
    top = d
    while not top.exists():
        top = top.parent
    if not top.is_dir() or not os.access(top, os.W_OK | os.X_OK):
        raise UsageError(f"--out {path}: {top} is not a writable directory")
    return d


def cmd_prove(args) -> int:
    from rrcheck.checker import symbolic
    from rrcheck.checker.symbolic.render import cti_table, outcome_line
    names = list(args.lemmas)
    for n in names:
        symbolic.module(n)
    if args.mutant:
        owners = symbolic.lemmas_of(args.mutant)
        if not owners:
            raise UsageError(f"mutant {args.mutant!r} changes no lemma's transition relation")
        names = names or owners
        for n in names:
            if n not in owners:
                raise UsageError(f"mutant {args.mutant!r} does not change lemma {n!r}; it changes {', '.join(owners)}")
    if args.all:
        names = list(symbolic.LEMMAS) if not args.mutant else names
    if not names:
        raise UsageError("name a lemma, or --all (lemmas: " + ", ".join(symbolic.LEMMAS) + ")")
    out_dir = _out_dir(args.out)
    t0 = time.process_time()
    outcomes, files = [], []
    refined: dict = {}
    steps = (args.refine or not args.mutant) and not args.no_steps
    for n in names:
        # with --refine, the mutant's knobs go to the Python protocol only, held to the proved relation
        o = symbolic.prove(n, None if args.refine else args.mutant, explore=not args.no_explore)
        outcomes.append(o)
        if steps:
            refined[n] = _refine(n, args.mutant if args.refine else None)
        if o.cti is not None:
            from rrcheck.files import write_text
            f = out_dir / f"cti-{n}{'-' + args.mutant.replace('/', '-') if args.mutant else ''}.json"
            write_text(f, json.dumps(o.cti.as_dict(), indent=1) + "\n")
            files.append(str(f))
        if not args.json:
            print(outcome_line(o))
            if o.cti is not None:
                print(cti_table(o.cti))
                print(f"  saved: {files[-1]}")
            for r in refined.get(n, ()):
                print(r.line())
    ok = all(o.proved for o in outcomes) and all(r.refines and not r.vacuous for rs in refined.values() for r in rs)
    if args.json:
        lemmas = [o.as_dict() | (_steps(refined[o.lemma]) if o.lemma in refined else {}) for o in outcomes]
        print(json.dumps({"proved": ok, "cpu_seconds": round(time.process_time() - t0, 3),
                          "lemmas": lemmas, "files": files}, indent=1))
    return 0 if ok else 1


def _steps(rs: list) -> dict:
    """The step check's totals over a lemma's scenarios, and each scenario's report."""
    return {"transitions_checked": sum(r.steps for r in rs), "recovery_transitions": sum(r.recovery for r in rs),
            "unmatched": sum(not r.refines for r in rs), "steps": [r.as_dict() for r in rs]}


def _refine(name: str, mutant: str | None) -> list:
    """The lemma's step check on each of its scenarios (those of the mutant's protocol only)."""
    from rrcheck.checker.symbolic import MUTANTS
    from rrcheck.checker.symbolic.refine import STEPS, check_steps
    runs = [(p, sc) for p, sc in STEPS[name] if mutant is None or MUTANTS[mutant].protocol == p]
    return [check_steps(name, sc, mutant, protocol=p) for p, sc in runs]
