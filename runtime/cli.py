"""The runtime's subcommands of ``rrcheck``: ``run``, ``check-trace``, ``campaign``."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rrcheck.errors import UsageError
from rrcheck.options import bounded, nonneg, positive_float

MAX_POINTS = 10_000   # failure points of one campaign

WITNESSES = ("rollbacks", "survivor_rollbacks", "crashes", "node_crashes", "checkpoints", "replayed_receptions",
             "logged_messages_resent", "duplicates_dropped", "stale_dropped", "in_transit_at_recovery_line",
             "theorem1_lines_checked", "terminal_states_after_failure", "equivalent_terminals_after_failure")


def progress_arg(s) -> None:
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                   help="one line on stderr per phase or run, terminal or not (default: on)")


def _say(args):
    return (lambda text: print(f"rrcheck: {text}", file=sys.stderr, flush=True)) if args.progress else None


def add_parsers(sub) -> None:
    s = sub.add_parser("run", help="run a protocol over real MPI (mpiexec), inject failures, check the trace",
                       description="Run a protocol over real MPI with the failures --crash names (soft: state "
                                   "dropped; kill: SIGKILL under ULFM), compare the output with a failure-free "
                                   "run's and replay the journals on the model (check-trace).")
    s.add_argument("protocol", help="a protocol the runtime drives (rrcheck list), or none for bare MPI")
    s.add_argument("--workload", default="stencil2d",
                   help="runtime workload: stencil2d, ring, pingpong, master_worker, cg, hier_bcast, "
                        "hier_reduce, flat_bcast, flat_reduce (default stencil2d)")
    s.add_argument("-n", type=nonneg("-n"), default=4, dest="ranks", help="number of MPI ranks, at least 2 (default 4)")
    s.add_argument("--nodes", type=nonneg("--nodes"), default=2,
                   help="failure domains the ranks are placed on in blocks, 1 to -n (default 2)")
    s.add_argument("--crash", action="append", default=[],
                   help="RANK@EVENT or node:ID@EVENT: fail that rank (or every rank of that node) when the "
                        "rank (the node's lowest) has executed EVENT scheduler events (repeatable; default none)")
    s.add_argument("--mode", choices=("soft", "kill"), default="soft",
                   help="soft: the rank drops its volatile state and reloads; kill: SIGKILL under ULFM, "
                        "replacement spawned (default soft)")
    s.add_argument("--iters", type=nonneg("--iters"), default=30,
                   help="iterations (stencil2d, cg, collectives) or rounds (ring, pingpong, master_worker), "
                        "at least 1 (default 30, enough for README's crash points to fire)")
    s.add_argument("--size", type=nonneg("--size"), help="block side (stencil2d), vector length (ring, master_worker), "
                   "grid rows per rank (cg), bytes (pingpong, collectives); default: the workload's own")
    s.add_argument("--checkpoint-every", type=nonneg("--checkpoint-every"), default=20,
                   help="application steps between checkpoints, 0 for none (default 20)")
    s.add_argument("--mutant", help="run this mutant of the protocol instead (rrcheck list; default none)")
    s.add_argument("--timeout", type=positive_float("--timeout"), default=120.0,
                   help="wall-clock limit of each launch, seconds (default 120)")
    s.add_argument("--hostfile", help="a hostfile passed to mpiexec (runtime/README.md; default: this machine)")
    s.add_argument("--out", default="rrcheck-runs/last",
                   help="the run directory (journals, stable storage), emptied first; the failure-free "
                        "reference goes beside it in OUT.ref (default ./rrcheck-runs/last)")
    s.add_argument("--no-check", action="store_true", help="skip check-trace after the run (default: check)")
    s.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    progress_arg(s)
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("check-trace", help="replay a run's journals on the model against the invariants",
                       description="Replay the scheduler events an MPI run journaled, as one model execution, "
                                   "against the invariants; exit 1 on a violation or an event the model does "
                                   "not allow.")
    s.add_argument("run_dir", help="a directory `rrcheck run --out DIR` wrote")
    s.add_argument("--json", action="store_true", help="print the verdict as JSON on stdout")
    s.set_defaults(func=cmd_check_trace)

    s = sub.add_parser("campaign", help="randomized failure injection over every protocol the runtime drives",
                       description="Run every protocol the runtime drives with random failure points (a rank or "
                                   "a node), over real MPI, and report outputs, hangs and trace verdicts.")
    s.add_argument("--points", type=bounded("--points", 1, MAX_POINTS, "a launch each, seconds to minutes"),
                   default=100, help=f"failure points (runs) in all, 1 to {MAX_POINTS:,} (default 100)")
    s.add_argument("--protocols", help="comma-separated protocols (default: every one the runtime drives)")
    s.add_argument("--modes", default="soft,kill", help="soft, kill or soft,kill (default soft,kill)")
    s.add_argument("--seed", type=int, default=0, help="seed of the failure points (default 0)")
    s.add_argument("-n", type=nonneg("-n"), default=4, dest="ranks", help="MPI ranks per run, at least 2 (default 4)")
    s.add_argument("--nodes", type=nonneg("--nodes"), default=2, help="nodes the ranks are placed on, 1 to -n (default 2)")
    s.add_argument("--iters", type=nonneg("--iters"), default=4, help="iterations or rounds per run, at least 1 (default 4)")
    s.add_argument("--timeout", type=positive_float("--timeout"), default=90.0,
                   help="wall-clock limit of each launch, seconds (default 90)")
    s.add_argument("--out", default="rrcheck-runs/campaign",
                   help="directory of the runs, one subdirectory each (default ./rrcheck-runs/campaign)")
    s.add_argument("--report", help="write the report JSON to this file, also when interrupted (default: none)")
    s.add_argument("--json", action="store_true", help="print the report as JSON on stdout")
    progress_arg(s)
    s.set_defaults(func=cmd_campaign)


def cmd_run(args) -> int:
    from rrcheck.runtime import launch as L
    if args.checkpoint_every < 0:
        raise UsageError("--checkpoint-every must be 0 (never) or more")
    cfg = L.make_config(args.protocol, args.workload, args.ranks, args.nodes, iters=args.iters, size=args.size,
                        mode=args.mode, crashes=args.crash, checkpoint_every=args.checkpoint_every,
                        mutant=args.mutant)
    out = L.check_run_dir(args.out)
    if args.hostfile and not Path(args.hostfile).is_file():
        raise UsageError(f"--hostfile {args.hostfile}: no such file")
    L.mpiexec()
    rep = L.run(cfg, out, args.timeout, args.hostfile, check=not args.no_check, progress=_say(args))
    if args.json:
        print(json.dumps(rep.as_dict(), indent=1))
    else:
        print_run(rep)
    return 0 if rep.ok else 1


def print_run(rep) -> None:
    crashes = " ".join(rep.crashes) or "no failure"
    print(f"{rep.protocol} on {rep.workload}, {rep.n} ranks on {rep.nodes} nodes, {rep.mode}, {crashes}: "
          f"{rep.status} in {rep.seconds:.1f} s, {rep.failures_injected} failure(s) injected")
    if rep.status != "finished":
        print("  " + ("HANG: killed at the timeout" if rep.status == "hang" else "ERROR"))
        tail = rep.stderr.strip().splitlines()[-3:]
        for line in tail:
            print(f"  | {line}")
        if rep.status == "error":
            return
    else:
        print(f"  output {'EQUAL to' if rep.equal else 'DIFFERENT from'} the failure-free run's")
    if rep.status == "finished" and rep.failures_injected < len(rep.crashes):
        print(f"  NOT INJECTED: --crash {rep.crashes[rep.failures_injected]} never fired, the run ended first "
              "(raise --iters or choose an earlier EVENT)")
    t = rep.trace
    if t:
        print(f"  check-trace: {t['verdict'].upper()} over {t['events']} events ({t['seconds']:.1f} s)"
              + (f" — {t['property'] or ''} {t['message']}" if t["verdict"] != "pass" else ""))
        w = t["witnesses"]
        print("  witnesses: " + ", ".join(f"{k} {w.get(k, 0)}" for k in WITNESSES if k in w or k == "rollbacks"))
    print(f"  run directory: {rep.run_dir} (rrcheck check-trace {rep.run_dir})")


def cmd_check_trace(args) -> int:
    from rrcheck.runtime.check import check_trace
    if not Path(args.run_dir).is_dir():
        raise UsageError(f"{args.run_dir}: not a run directory (rrcheck run --out DIR writes one)")
    r = check_trace(args.run_dir)
    if args.json:
        print(json.dumps(r.as_dict(), indent=1))
    else:
        print(f"{args.run_dir}: {r.verdict.upper()} — {r.events} events replayed on the model, "
              f"{r.failures} failure(s), {r.seconds:.1f} s")
        if r.violation:
            print(f"  {r.violation.property}: {r.violation.message}")
        elif r.reason:
            print(f"  {r.reason}")
        print("  witnesses: " + ", ".join(f"{k} {r.witnesses.get(k, 0)}" for k in WITNESSES if k in r.witnesses))
    return 0 if r.verdict == "pass" else 1


def cmd_campaign(args) -> int:
    from rrcheck.files import check_dir, check_file
    from rrcheck.runtime import launch as L
    from rrcheck.runtime.campaign import campaign, print_report
    protocols = [p.strip() for p in args.protocols.split(",")] if args.protocols else None
    modes = [m.strip() for m in args.modes.split(",")]
    if any(m not in ("soft", "kill") for m in modes):
        raise UsageError("--modes takes soft, kill or soft,kill")
    for name in ("points", "ranks", "nodes", "iters"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{'n' if name == 'ranks' else name} must be at least 1")
    out = check_dir(args.out, "--out")
    report = check_file(args.report, "--report") if args.report else None
    L.mpiexec()
    rep = campaign(args.points, protocols, modes, args.seed, args.ranks, args.nodes, args.iters, args.timeout,
                   out, report, progress=_say(args))
    from rrcheck.files import kept
    with kept("campaign report"):
        if args.json:
            print(json.dumps(rep, indent=1))
        else:
            print_report(rep)
    s = rep["summary"]
    return 0 if s["outputs_different"] == 0 and s["invariant_violations"] == 0 and s["unexplained_hangs"] == 0 \
        and s["errors"] == 0 else 1

