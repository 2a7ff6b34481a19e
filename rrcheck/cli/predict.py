"""``rrcheck predict``: would another failure point or delivery order break a
recorded MPI run? (rrcheck.runtime.predict)"""
from __future__ import annotations

import json
from pathlib import Path

from rrcheck.errors import UsageError


def add_parser(sub) -> None:
    s = sub.add_parser("predict", help="predict, from one MPI run's journals, failures that would break it",
                       description="From one recorded MPI run, search the other failure points and delivery "
                                   "orders the run's causality allows for a lost message, a duplicate or an "
                                   "orphan; confirm each on the model. Exit 1 if one is confirmed.")
    s.add_argument("run_dir", help="the run directory `rrcheck run --out DIR` wrote")
    s.add_argument("--protocol", help="judge under this protocol's rules: the run's protocol or one of its "
                   "mutants (default: the run's own)")
    s.add_argument("--crash-kinds", default="process,node", help="process,node (default both)")
    s.add_argument("--out", help="where a confirmed counterexample is written (default RUN_DIR/"
                   "predicted-counterexample.json)")
    s.add_argument("--json", action="store_true", help="print the prediction as JSON on stdout")
    s.set_defaults(func=cmd_predict)


def cmd_predict(args) -> int:
    from rrcheck.runtime.predict import predict
    kinds = tuple(k.strip() for k in args.crash_kinds.split(",") if k.strip())
    if not kinds or any(k not in ("process", "node") for k in kinds):
        raise UsageError("--crash-kinds takes process, node or process,node")
    from rrcheck.files import check_file, kept
    run = Path(args.run_dir)
    inputs = tuple(run.glob("journal-*.jsonl")) + (run / "run.json",) if run.is_dir() else ()
    check_file(args.out or run / "predicted-counterexample.json", "--out", inputs)  # before the work
    r = predict(run, args.protocol, Path(args.out) if args.out else None, crash_kinds=kinds)
    with kept("prediction"):
        return _report(args, r)


def _report(args, r) -> int:
    if args.json:
        print(json.dumps(r.as_dict(), indent=1))
        return 1 if r.verdict == "confirmed" else 0
    c = r.stats
    head = (f"{args.run_dir}: {r.protocol}, {r.ranks} ranks, {r.events} events"
            + (" (analysed up to the run's first failure)" if r.truncated else ""))
    print(head)
    print(f"  choices: {c['units']} failures (processes and nodes), {c['crash_points']} crash points, "
          f"{c['receptions_with_alternatives']} of {c['nondeterministic_receptions']} non-deterministic receptions "
          f"with another possible match, {c['send_delivery_pairs']} sends delivered to survivors after them, "
          f"{c['hazards']} hazards, {c['smt_witnesses_tried']} witnesses tried on the model "
          f"({r.cpu_seconds:.2f} s CPU)")
    if r.verdict == "none":
        print("  NONE: no failure point or other match leaves a lost message, a duplicate or an orphan")
    if r.witness:
        w = r.witness
        print(f"  CONFIRMED {w['property']}: {w['failure'][0]} {w['failure'][1]} at cut {w['cut']}, "
              f"rolling back {w['rolled_back']}; reception {w['reception']} re-matched "
              f"{w['alternative_match']} instead of {w['original_match']}")
        print(f"    {w['message']}")
        if r.counterexample:
            print(f"    counterexample: {r.counterexample} (rrcheck replay {r.counterexample})")
        else:
            print("    (confirmed on the model; the counterexample format cannot name this run's --iters)")
    for u in r.unconfirmed:
        print(f"  unconfirmed (not a bug): {u['failure'][0]} {u['failure'][1]} at cut {u['cut']}, reception "
              f"{u['reception']} re-matched {u['alternative_match']}: {u['why']}")
    return 1 if r.verdict == "confirmed" else 0
