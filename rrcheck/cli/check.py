"""The model-checking subcommands: ``list``, ``check``, ``check-workload``, ``replay``.

    rrcheck list [--json]
    rrcheck check PROTOCOL [--workload W] [--procs N] [--nodes M] [--failures F]
                  [--checkpoints C] [--mutant NAME] [--json] ...
    rrcheck check --all
    rrcheck check-workload W
    rrcheck replay FILE [--svg OUT] [--explain] [--html OUT] [--json]
    rrcheck fuzz PROTOCOL [--mutant NAME] [--procs N] [--failures F] [--examples K] [--seed S] [--json]
    rrcheck group PATTERN --method node|metis|rcb|rpcs --groups K

Exit status: 0 as expected (a pass; for ``--all`` every protocol passes and
every mutant is caught; for ``replay`` the same violation reproduced), 1 a
violation or a surprise, 2 a usage error (one line on stderr), 3 incomplete (or
a fingerprint collision: no verdict).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rrcheck.errors import UsageError
from rrcheck.options import MAX_FAILURES, bounded, gib, nonneg, positive_float  # noqa: F401 (used by fuzz, tla)
from rrcheck.checker.invariants import DESCRIPTIONS

# The witnesses every protocol's pass is read by, then those of each
# protocol (the notes its handlers and its own properties count).
GENERAL_WITNESSES = ("crashes", "node_crashes", "rollbacks", "rollbacks_to_a_checkpoint", "survivor_rollbacks",
                     "checkpoints", "processes_checkpointed", "every_process_at_the_checkpoint_bound", "in_transit_at_recovery_line", "orphan_situations",
                     "orphans_regenerated_identically", "terminal_states_after_failure")
_LOGGING = ("replayed_receptions", "duplicates_dropped")
_RECEIVER = _LOGGING + ("wildcard_waits", "tb_messages_resent", "logger_dropped_unacked")
PROTOCOL_WITNESSES = {
    "correlated-set": ("theorem1_lines_checked", "theorem1_internal_messages") + _LOGGING
    + ("logged_messages_resent",),
    "sbml": _LOGGING + ("logged_messages_resent",),
    "rbml": _RECEIVER,
    "hmpl": _RECEIVER + ("crash_receiver_before_t2", "crash_receiver_t2_t4", "crash_receiver_t4_t6",
                         "crash_receiver_after_t6", "crash_sender_with_tb"),
    "coordinated": ("theorem1_lines_checked", "rollbacks_for_a_restart_heard", "stale_dropped"),
    "chandy-lamport": ("theorem1_lines_checked", "in_transit_recorded", "in_transit_restored",
                       "rollbacks_for_a_restart_heard", "stale_dropped"),
    "send-deterministic": ("phase_raised_by_other_group", "orphans_rereceived", "replays_held_for_orphans",
                           "replayed_messages", "messages_buffered_during_restart", "logged_messages_resent",
                           "duplicates_dropped", "logged_messages_collected", "restarts_ended"),
    "app-level": ("late_messages_logged", "late_messages_replayed", "early_messages_recorded",
                  "early_resends_suppressed", "intra_epoch_messages", "collectives_from_log"),
}


def witnesses_of(protocol: str, w: dict) -> dict:
    return {k: w.get(k, 0) for k in GENERAL_WITNESSES + PROTOCOL_WITNESSES.get(protocol, ())}


def workers_type(text: str) -> int:
    """Local worker threads or processes (TLC's): at most 8 per core."""
    from rrcheck.checker.explicit.check import MAX_LOCAL_WORKERS
    return bounded("--workers", 1, MAX_LOCAL_WORKERS, "8 per core of this machine")(text)


SCENARIO_OPTIONS = ("workload", "procs", "nodes", "failures", "checkpoints", "at_sites", "crash_kinds",
                    "depth", "no_failure_during_recovery", "beyond_fault_model")


def _given(args, name: str) -> bool:
    v = getattr(args, name, None)
    return v is not None and v is not False


def scenario_args(s: argparse.ArgumentParser) -> None:
    """The options that change a default scenario (check, fuzz)."""
    s.add_argument("--workload", metavar="W",
                   help="a workload (rrcheck list) or a .toml/.json workload file "
                        "(default: the protocol's default scenarios)")
    s.add_argument("--procs", type=nonneg("--procs", 2), metavar="N",
                   help="processes, at least 2 (default: the scenario's)")
    s.add_argument("--nodes", type=nonneg("--nodes", 1), metavar="M",
                   help="nodes the processes are placed on in blocks, 1 to --procs (default: the scenario's)")
    s.add_argument("--failures", type=bounded("--failures", 0, MAX_FAILURES, "a search with more never ends"),
                   metavar="F",
                   help="crashes allowed per run, 0 or more (default: the scenario's, usually 1)")
    s.add_argument("--checkpoints", type=nonneg("--checkpoints"), metavar="C",
                   help="checkpoints allowed per process, 0 or more (default: the scenario's)")
    s.add_argument("--at-sites", action="store_true",
                   help="checkpoints only at the workload's checkpoint sites (default: anywhere)")
    s.add_argument("--crash-kinds", default=None, metavar="KINDS",
                   help="process, node or process,node: what may crash (default: the scenario's)")
    s.add_argument("--depth", type=nonneg("--depth", 1), metavar="D",
                   help="bound on the length of explored runs, in events (default 10000)")
    s.add_argument("--no-failure-during-recovery", action="store_true",
                   help="no crash while a recovery is under way (Meyer's thesis assumes so; default: allowed)")
    s.add_argument("--beyond-fault-model", action="store_true",
                   help="check a configuration the protocol's paper does not claim to tolerate (default: refused "
                        "with the paper's limit quoted; docs/findings.md)")


def add_parsers(sub) -> None:

    s = sub.add_parser("list", help="protocols, mutants, workloads and invariants",
                       description="List the protocols (with their papers), the registered mutants (the rule "
                                   "each breaks), the built-in workloads and the invariants.")
    s.add_argument("--json", action="store_true", help="print JSON on stdout instead of a table")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("check", help="explore a protocol's state space against the invariants",
                       description="Check a protocol on each of its default scenarios (or the one --scenario "
                                   "names, or the one the scenario options describe), a mutant on its own, "
                                   "or with --all every protocol and mutant.")
    s.add_argument("protocol", nargs="?", help="a protocol (rrcheck list)")
    s.add_argument("--all", action="store_true", help="every protocol on its default scenarios and every mutant "
                   "on its own; one row each as it finishes")
    s.add_argument("--scenario", type=nonneg("--scenario", 1), metavar="K",
                   help="only the protocol's K-th default scenario (default: all of them)")
    scenario_args(s)
    s.add_argument("--mutant", help="check this mutant (rrcheck list) instead of the correct protocol")
    s.add_argument("--grouping", metavar="FILE|METHOD:K",
                   help="groups (correlated sets): a JSON file with one group id per process (rrcheck group "
                        "--save), or METHOD:K to form K groups (default: one per node)")
    s.add_argument("--property", action="append", dest="properties", metavar="P",
                   help="check only this property (repeatable; default: every one that applies)")
    s.add_argument("--strategy", choices=("bfs", "dfs", "random"), default="bfs",
                   help="search order: breadth-first (shortest counterexamples), depth-first, or seeded "
                        "random walks (default bfs)")
    s.add_argument("--max-states", type=nonneg("--max-states", 1), metavar="S",
                   help="stop a search after S states: the result is incomplete, exit 3 (default: no bound)")
    s.add_argument("--time-limit", type=positive_float("--time-limit"), metavar="SECONDS",
                   help="stop a search after this many seconds: incomplete, exit 3 (default: no limit)")
    s.add_argument("--memory-limit", type=gib("--memory-limit"), metavar="GIB",
                   help="stop a search, incomplete (exit 3), once its resident memory with its workers' passes "
                        "GIB gibibytes (default: 80 %% of the memory available at its start)")
    s.add_argument("--seed", type=int, default=0, help="seed of --strategy random (default 0)")
    s.add_argument("--workers", type=nonneg("--workers", 1), default=1, metavar="N",
                   help="breadth-first search on N processes of this machine: the same verdict, counts and "
                        "counterexample as one (default 1)")
    s.add_argument("--fingerprints", action="store_true",
                   help="keep 64-bit fingerprints of the visited states instead of the states, as TLC does "
                        "(less memory; the collision probability is printed); implied by --workers 2 or more")
    s.add_argument("--mpi", action="store_true",
                   help="run the --workers as MPI ranks (mpiexec, plus one coordinating rank); on the hosts of "
                        "--hostfile if given, else on this machine")
    s.add_argument("--hostfile", metavar="FILE",
                   help="an Open MPI hostfile: the MPI ranks of --mpi run on its hosts, which must see this "
                        "Python environment and the workload files at the same paths (implies --mpi)")
    s.add_argument("--no-reduce", action="store_true",
                   help="explore every interleaving, without the reductions (default: reduced)")
    s.add_argument("--checkpoint", metavar="DIR",
                   help="save the search in DIR every --checkpoint-every seconds, at --max-states or "
                        "--time-limit, at --memory-limit and on Ctrl-C (one breadth-first search, on one worker or, "
                        "with --fingerprints, --workers or --mpi, at the end of a generation; over --mpi, in a directory "
                        "every host sees)")
    s.add_argument("--checkpoint-every", type=positive_float("--checkpoint-every"), default=60.0,
                   metavar="SECONDS", help="seconds between two saves of --checkpoint (default 60)")
    s.add_argument("--recover", metavar="DIR",
                   help="continue the search a --checkpoint saved in DIR, with the options it was started with")
    s.add_argument("--out", default="rrcheck-out", metavar="DIR",
                   help="directory the counterexamples are written to (default ./rrcheck-out)")
    s.add_argument("--anyway", action="store_true",
                   help="check a workload outside the protocol's assumptions (e.g. not send-deterministic)")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a [k/N] line on stderr before each check of --all or of several scenarios; for one search, "
                        "a live line on a terminal, elsewhere a line every 15 s after the first 10 s (default "
                        "on; --no-progress: silent)")
    s.add_argument("--json", action="store_true",
                   help="print JSON on stdout: one document, or for --all one JSON line per row as it "
                        "finishes and a last summary line")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("check-workload", help="verify a workload's determinism class on failure-free runs",
                       description="Enumerate a workload's failure-free runs (at most 1,000,000 states) and "
                                   "check the determinism class it declares (docs/workloads.md); exit 1 if the "
                                   "claim does not hold or a run deadlocks.")
    s.add_argument("workload", help="a workload (rrcheck list) or a .toml/.json workload file")
    s.add_argument("--procs", type=nonneg("--procs", 2), metavar="N", help="processes (default: the workload's)")
    s.add_argument("--nodes", type=nonneg("--nodes", 1), metavar="M", help="nodes (default: the workload's)")
    s.add_argument("--time-limit", type=positive_float("--time-limit"), metavar="SECONDS",
                   help="give up the classification after this many seconds (default: none; it stops at "
                        "1,000,000 states)")
    s.add_argument("--json", action="store_true", help="print JSON on stdout")
    s.set_defaults(func=cmd_check_workload)

    s = sub.add_parser("replay", help="re-execute a counterexample file and draw it",
                       description="Re-execute a counterexample file on the model; exit 0 if the same violation, "
                                   "with the same values, is reproduced, 1 if not. Optionally explain its "
                                   "rollbacks, draw it (SVG, HTML) or export it as an ITF trace.")
    s.add_argument("file", help="a counterexample .json that rrcheck check or fuzz wrote")
    s.add_argument("--svg", metavar="OUT", help="write a space-time diagram to OUT (- for stdout; default none)")
    s.add_argument("--json", action="store_true", help="print JSON on stdout")
    s.add_argument("--explain", action="store_true",
                   help="classify each message at every rollback: past, in transit, orphan, future")
    s.add_argument("--html", metavar="OUT", help="write a self-contained page that steps through the counterexample")
    s.add_argument("--itf", metavar="OUT", help="write the run as an ITF trace (Apalache/Quint), one state per event")
    s.set_defaults(func=cmd_replay)


def cmd_list(args) -> int:
    from rrcheck.checker.model import workloads as W
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
    data = {
        "protocols": {n: {"source": c.source, "rollback_scope": c.scope, "knobs": c.KNOBS}
                      for n, c in PROTOCOLS.items()},
        "mutants": {n: {"protocol": m.protocol, "knobs": m.knobs, "rule": m.rule, "source": m.source,
                        "caught_by": list(m.catches), "primary": m.primary} for n, m in MUTANTS.items()},
        "workloads": {n: {"class": f().determinism, "description": f().description} for n, f in W.WORKLOADS.items()},
        "invariants": DESCRIPTIONS,
    }
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    for section, items in data.items():
        print(f"{section}:")
        for name, info in items.items():
            if section == "protocols":
                text = f"{info['source']} — rolls back: {info['rollback_scope']}"
            elif section == "mutants":
                text = f"breaks: {info['rule']} [{info['source']}]"
            elif section == "workloads":
                text = f"({info['class']}) {info['description']}"
            else:
                text = info
            print(f"  {name:<44} {text}")
    return 0


def _crash_kinds(text: str | None):
    if text is None:
        return None
    kinds = tuple(k.strip() for k in text.split(","))
    if not kinds or any(k not in ("process", "node") for k in kinds) or len(set(kinds)) != len(kinds):
        raise UsageError("--crash-kinds takes process, node or process,node")
    return kinds


def derive(base, args):
    """``base`` with the scenario options given on the command line."""
    from rrcheck.checker.model.scenarios import Scenario
    wl = args.workload or base.workload
    same = wl == base.workload
    return Scenario(wl, args.procs if args.procs is not None else (base.procs if same else None),
                    args.nodes if args.nodes is not None else (base.nodes if same else None),
                    base.failures if args.failures is None else args.failures,
                    base.checkpoints if args.checkpoints is None else args.checkpoints,
                    _crash_kinds(args.crash_kinds) or base.crash_kinds,
                    at_sites=args.at_sites or (base.at_sites if same else False), depth=args.depth or base.depth,
                    no_failure_during_recovery=args.no_failure_during_recovery or base.no_failure_during_recovery,
                    beyond_fault_model=args.beyond_fault_model or base.beyond_fault_model)


def plan(args) -> list[tuple[str, str | None, object]]:
    """(protocol, mutant, scenario) of each check asked for."""
    from rrcheck.checker.model.scenarios import DEFAULTS, scenario_for_mutant
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
    protocol, mutant = args.protocol, args.mutant
    if mutant:
        if mutant not in MUTANTS:
            raise UsageError(f"unknown mutant {mutant!r}; `rrcheck list` shows them all")
        protocol = protocol or MUTANTS[mutant].protocol
        if protocol != MUTANTS[mutant].protocol:
            raise UsageError(f"mutant {mutant!r} is a variant of {MUTANTS[mutant].protocol!r}, not {protocol!r}")
        if args.scenario:
            raise UsageError("--scenario picks a protocol's default scenario; a mutant has its own")
        bases = [scenario_for_mutant(mutant)]
    else:
        if protocol not in PROTOCOLS:
            raise UsageError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")
        bases = list(DEFAULTS[protocol])
        if args.scenario:
            if args.scenario > len(bases):
                raise UsageError(f"--scenario {args.scenario}: {protocol} has {len(bases)} default scenarios "
                                 f"(1 to {len(bases)})")
            bases = [bases[args.scenario - 1]]
    if any(_given(args, k) for k in SCENARIO_OPTIONS):
        bases = [derive(bases[0], args)]
    from rrcheck.checker.model import workloads as W
    from rrcheck.checker.invariants import applicable
    mine = applicable(PROTOCOLS[protocol].name)
    for prop in args.properties or ():
        if prop not in mine:
            raise UsageError(f"unknown property {prop!r} for {protocol}; choose among {', '.join(mine)}")
    for sc in bases:  # a workload that cannot be built is refused now, not after another check
        W.make(sc.workload, sc.procs, sc.nodes)
    return [(protocol, mutant, sc) for sc in bases]


def _grouping(spec: str | None, scenario) -> tuple[int, ...] | None:
    if not spec:
        return None
    from rrcheck.checker.model import workloads as W
    workload = W.make(scenario.workload, scenario.procs, scenario.nodes)
    if ":" in spec and not Path(spec).exists():
        method, _, k = spec.partition(":")
        try:
            from rrcheck.grouping import CommGraph, make_grouping
        except ImportError:
            raise UsageError("--grouping METHOD:K needs the grouping extras (pip install -e .)")
        if not k.isdigit() or not 1 <= int(k) <= workload.n:
            raise UsageError(f"--grouping {spec!r}: K must be a number of groups from 1 to {workload.n}")
        graph = CommGraph.from_edges(workload.n, workload.comm_edges(), node_of=workload.node_of)
        return tuple(make_grouping(graph, method, int(k)))
    from rrcheck.files import loads_json, read_capped
    try:
        data = loads_json(read_capped(spec, 1 << 20, f"--grouping {spec!r}"))
    except (OSError, ValueError, RecursionError) as e:
        raise UsageError(f"--grouping {spec!r}: not a readable JSON list of group ids ({e.__class__.__name__})")
    if isinstance(data, dict):
        data = data.get("group_of")
    if not isinstance(data, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in data):
        raise UsageError(f"--grouping {spec!r}: expected a JSON list with one integer group id per process")
    if len(data) != workload.n or any(not 0 <= g < workload.n for g in data):
        raise UsageError(f"--grouping {spec!r}: {len(data)} group ids for {workload.n} processes "
                         f"(each from 0 to {workload.n - 1})")
    return tuple(data)


def _say(on: bool):
    return (lambda text: print(f"rrcheck: {text}", file=sys.stderr, flush=True)) if on else (lambda text: None)


def _one_line(on: bool):
    """Progress between the rows of a table: one line rewritten on a terminal
    (``None`` clears it before a row), a line each elsewhere."""
    if not on:
        return lambda text: None
    if not sys.stderr.isatty():
        return lambda text: text is not None and print(f"rrcheck: {text}", file=sys.stderr, flush=True)

    def say(text):
        sys.stderr.write("\r\033[K" if text is None else f"\r\033[Krrcheck: {text}"[:200])
        sys.stderr.flush()
    return say


EXIT = {"pass": 0, "violation": 1, "incomplete": 3}


def checks(args, say: bool = False):
    """The checks ``args`` (of ``rrcheck check``, one protocol or mutant) ask
    for, validated before any work, then run one by one: the command line and
    :func:`rrcheck.check` both go through here, with one set of defaults."""
    from rrcheck.checker.explicit.check import run_check, search_options
    from rrcheck.files import check_dir
    if not args.protocol and not args.mutant:
        raise UsageError("name a protocol (rrcheck list) or use --all")
    from rrcheck.checker.model.classify import within
    with within(args.time_limit):
        todo = plan(args)
    if args.memory_limit and (args.mpi or args.hostfile):
        raise UsageError("--memory-limit watches the processes of this machine; drop it from --mpi")
    search_options(args.strategy, args.workers, args.fingerprints, args.mpi or bool(args.hostfile),
                   bool(args.checkpoint or args.recover))
    out = check_dir(args.out, "--out") if args.out is not None else None
    if args.mpi or args.hostfile:  # mpiexec and the hostfile before any work
        from rrcheck.checker.explicit.distributed import preflight
        preflight(args.hostfile)
    saved = check_dir(args.checkpoint, "--checkpoint") if args.checkpoint else None
    recover = Path(args.recover) if args.recover else None
    if (saved or recover) and len(todo) > 1:
        raise UsageError(f"--checkpoint and --recover save one search and {todo[0][0]} has {len(todo)} default "
                         f"scenarios; name one with --scenario K")
    groupings = [_grouping(args.grouping, sc) for _, _, sc in todo]
    tell = _say(say and len(todo) > 1 and args.progress is not False)
    if say and len(todo) > 1 and not args.json:
        print(f"{todo[0][0]}: {len(todo)} default scenarios ({', '.join(sc.label() for _, _, sc in todo)})")
    for k, ((protocol, mutant, sc), g) in enumerate(zip(todo, groupings), start=1):
        tell(f"[{k}/{len(todo)}] {mutant or protocol} {sc.label()}")
        yield run_check(protocol, sc, mutant, args.properties, out, args.strategy, args.max_states,
                        args.time_limit, args.seed, not args.no_reduce, g, anyway=args.anyway, workers=args.workers,
                        checkpoint=saved, recover=recover, checkpoint_every=args.checkpoint_every,
                        fingerprints=args.fingerprints, mpi=args.mpi, hostfile=args.hostfile,
                        progress=args.progress if len(todo) == 1 else False, memory_limit=args.memory_limit)


def cmd_check(args) -> int:
    from rrcheck.checker.explicit.check import search_options
    from rrcheck.files import check_dir
    if args.all:
        if args.protocol or args.mutant or args.scenario or args.grouping or args.properties \
                or any(_given(args, k) for k in SCENARIO_OPTIONS):
            raise UsageError("--all checks every protocol and mutant on its own scenarios; drop the protocol, "
                             "--mutant, --scenario, --grouping, --property and the scenario options")
        if args.checkpoint or args.recover:
            raise UsageError("--checkpoint and --recover save one search; drop them from --all")
        if args.mpi or args.hostfile or args.fingerprints:
            raise UsageError("--mpi, --hostfile and --fingerprints are for one protocol's search; --all takes "
                             "--workers N")
        search_options(args.strategy, args.workers, False, False, False)
        return _check_all(args, check_dir(args.out, "--out"))
    done = []
    for c in checks(args, say=True):
        done.append(c)
        if not args.json:
            print_check(c)
        if c.vacuous:
            print(f"rrcheck: {c.mutant or c.protocol} on {c.scenario.label()}: VACUOUS pass: {c.vacuous}",
                  file=sys.stderr)
    if args.json:
        print(json.dumps(done[0].as_dict() if len(done) == 1 else
                         {"protocol": done[0].protocol, "checks": [c.as_dict() for c in done]}, indent=1))
    verdicts = {c.result.verdict for c in done}
    return 1 if "violation" in verdicts else 3 if "incomplete" in verdicts else 0


def print_check(c) -> None:
    r = c.result
    who = c.mutant or c.protocol
    print(f"{who} on {c.scenario.label()}: {r.verdict.upper()}" + (" (VACUOUS)" if c.vacuous else ""))
    if r.violation:
        print(f"  {r.violation.property}: {r.violation.message}")
    if r.reason:
        print(f"  incomplete: {r.reason}")
    if c.vacuous:
        print(f"  vacuous: {c.vacuous}")
    print(f"  {r.states:,} states, {r.transitions:,} transitions, depth {r.depth}, {r.seconds:.1f} s "
          f"({r.states_per_s:,.0f} states/s)")
    w = witnesses_of(c.protocol, r.witnesses)
    print("  witnesses: " + ", ".join(f"{k} {v:,}" for k, v in w.items()))
    if r.collision_probability is not None:
        print(f"  fingerprints: 64-bit; the probability that two states shared one is at most "
              f"{r.collision_probability:.1e}")
    if c.counterexample:
        print(f"  counterexample ({len(r.trace)} events): {c.counterexample}")
        print(f"  see it: rrcheck replay {c.counterexample} --svg {Path(c.counterexample).with_suffix('.svg')}")


def _check_all(args, out: Path) -> int:
    """One row per check as it finishes (JSON: one line each, then a summary
    line), so an interrupt keeps every finished row; exit 0 all as expected,
    1 one is not (a correct protocol's vacuous pass counts as not, unless its
    scenario allows no failure on purpose), 3 one search incomplete and none
    unexpected, 130 interrupted."""
    from rrcheck.checker.explicit.check import default_plan, run_check
    from rrcheck.errors import FingerprintCollision, ModelError
    from rrcheck.files import Stream
    todo = default_plan()
    say = _one_line(args.progress is not False)
    rows = Stream("table of checks")
    good = bad = incomplete = 0
    vacuous = []
    if not args.json:
        rows.print(f"{'protocol / mutant':<44} {'scenario':<34} {'verdict':<10} {'property':<22} {'states':>9} "
                   f"{'s':>6}")
    interrupted = False
    try:
        for k, (protocol, mutant, sc) in enumerate(todo, start=1):
            say(f"[{k}/{len(todo)}] {mutant or protocol} {sc.label()}")
            try:
                c = run_check(protocol, sc, mutant, out=out, strategy=args.strategy, max_states=args.max_states,
                              time_limit=args.time_limit, seed=args.seed, reduce=not args.no_reduce,
                              progress=False, anyway=args.anyway, workers=args.workers,
                              memory_limit=args.memory_limit)
            except (FingerprintCollision, ModelError) as e:  # a row like the others; the rest still run
                collided = isinstance(e, FingerprintCollision)
                incomplete, bad = incomplete + collided, bad + (not collided)
                verdict, mark = ("incomplete", "NO VERDICT") if collided else ("error", "MODEL RAISED")
                say(None)
                if args.json:
                    rows.print(json.dumps({"protocol": protocol, "mutant": mutant, "scenario": sc.label(),
                                           "verdict": verdict, "reason": str(e), "expected": False}))
                else:
                    rows.print(f"{(mutant or protocol):<44} {sc.label():<34} {verdict:<10} {'-':<22} {'-':>9} "
                               f"{'-':>6}  {mark}: {e}")
                continue
            r = c.result
            if r.verdict == "incomplete":
                incomplete += 1
                mark = "INCOMPLETE"
            elif c.expected and c.vacuous and sc.failures > 0:
                bad += 1  # a pass that exercised no recovery proves nothing; failures=0 declares it on purpose
                mark = "VACUOUS"
            elif c.expected:
                good += 1
                mark = "ok" + (" (failure-free on purpose)" if c.vacuous and not sc.failures
                               else " VACUOUS" if c.vacuous else "")
            else:
                bad += 1
                mark = ("SURPRISE: " + c.surprise) if c.surprise else "NOT CAUGHT" if mutant else "FAILED"
            if c.vacuous and sc.failures:
                vacuous.append(f"{protocol} on {sc.label()}: {c.vacuous}")
            say(None)
            if args.json:
                rows.print(json.dumps(c.as_dict() | {"expected": c.expected}))
            else:
                rows.print(f"{(mutant or protocol):<44} {sc.label():<34} {r.verdict:<10} "
                           f"{(r.violation.property if r.violation else '-'):<22} {r.states:>9,} {r.seconds:>6.1f}  "
                           f"{mark}")
    except KeyboardInterrupt:
        interrupted = True
    say(None)
    done = good + bad + incomplete
    complete = done == len(todo)
    code = 130 if interrupted else 1 if bad else 3 if incomplete or not complete else 0
    if args.json:
        rows.print(json.dumps({"summary": True, "ok": code == 0, "checks": len(todo), "finished": done,
                               "as_expected": good, "not_as_expected": bad, "incomplete": incomplete,
                               "interrupted": interrupted, "vacuous": vacuous}))
    else:
        if interrupted:
            rows.print(f"\nINTERRUPTED after {done} of {len(todo)} checks (the rows above are final)")
        rows.print(f"\n{good}/{len(todo)} as expected" + (": every protocol passes and every mutant is caught"
                                                           if code == 0 else
                                                           f"; {bad} NOT as expected, {incomplete} incomplete"))
        for v in vacuous:
            rows.print(f"  vacuous pass: {v}")
        rows.print(f"counterexamples in {out}/ — rrcheck replay FILE --svg OUT.svg")
    for v in vacuous:
        print(f"rrcheck: VACUOUS pass: {v}", file=sys.stderr)
    rows.close()
    return code


def cmd_check_workload(args) -> int:
    from rrcheck.checker.model import workloads as W
    from rrcheck.checker.model.classify import failure_free, within
    with within(args.time_limit):
        w = W.make(args.workload, args.procs, args.nodes)
        ff = failure_free(w)
    ok = ff.satisfies(w.determinism) and ff.deadlocks == 0
    data = {"workload": w.name, "procs": w.n, "declared": w.determinism, "observed": ff.observed,
            "claim_holds": ok, "failure_free_states": ff.states, "distinct_final_states": ff.runs_ended,
            "distinct_send_sequences": ff.distinct_send_sequences,
            "distinct_reception_orders": ff.distinct_reception_orders, "deadlocks": ff.deadlocks}
    if args.json:
        print(json.dumps(data, indent=1))
    else:
        print(f"{w.name} ({w.n} processes): declared {w.determinism}, observed {ff.observed} over "
              f"{ff.states:,} failure-free states — {'claim holds' if ok else 'CLAIM DOES NOT HOLD'}")
        print(f"  {ff.distinct_reception_orders} reception orders, {ff.distinct_send_sequences} send sequences, "
              f"{ff.runs_ended} final states, {ff.deadlocks} deadlocks")
    return 0 if ok else 1


def cmd_replay(args) -> int:
    """Re-execute a counterexample; exit 0 only if the same violation, with the
    same values, is reproduced; 1 saying what differs otherwise."""
    from rrcheck.checker.traces import counterexample as T
    from rrcheck.files import check_file
    svg_path = check_file(args.svg, "--svg", (args.file,)) if args.svg else None
    html_path = check_file(args.html, "--html", (args.file,)) if args.html else None
    itf_path = check_file(args.itf, "--itf", (args.file,)) if args.itf else None
    if svg_path == "-" and args.json:
        raise UsageError("--svg - and --json both write to standard output; give --svg a file")
    cx = T.load(args.file)
    try:
        rep = T.replay(cx)
    except UsageError as e:
        raise UsageError(f"{args.file}: {e}") from None
    v = rep.violation
    diff = T.differences(cx.violation, v)
    if svg_path:
        from rrcheck.checker.traces.render import svg
        T.write_atomic(svg_path, svg(cx, rep))
    from rrcheck.checker.traces import explain as X
    try:
        rbs = X.explain(cx) if args.explain or args.json else []
    except UsageError as e:
        raise UsageError(f"{args.file}: {e}") from None
    follows = None
    if (args.explain or args.json) and v is not None and v.property == "CausalReplayOrder" and diff is None:
        from rrcheck.checker.model.scenarios import system_for
        from rrcheck.checker.traces.consequence import overtaking_after
        follows = overtaking_after(system_for(cx)[0], cx.events)
    if html_path:
        from rrcheck.checker.traces.viewer import page
        T.write_atomic(html_path, page(cx))
    if itf_path:
        from rrcheck.checker.tla.itf import write_replay_itf
        write_replay_itf(cx, itf_path)
    if svg_path == "-":
        pass
    elif args.json:
        print(json.dumps({"file": args.file, "reproduced": diff is None, "difference": diff, "steps": rep.steps,
                          "violation": v.as_dict() if v else None, "svg": args.svg, "html": args.html,
                          "rollbacks": [rb.as_dict() for rb in rbs],
                          "what_follows": follows.as_dict() if follows else None}, indent=1, default=list))
    else:
        label = cx.mutant or cx.protocol
        print(f"{label} on {cx.workload}: {len(cx.events)} events")
        from rrcheck.checker.traces.render import steps
        for t, text in enumerate(steps(rep), start=1):
            print(f"  {t:>3}. {text}")
        if v:
            print(f"  => {v.property}: {v.message}")
        for line in X.text(rbs):
            print(line)
        if follows:
            print(follows.text())
        print("reproduced" if diff is None else f"NOT reproduced: {diff}")
        if args.svg:
            print(f"diagram: {args.svg}")
        if args.html:
            print(f"viewer page: {args.html}")
    if diff is not None:
        print(f"rrcheck: {args.file}: NOT reproduced: {diff}", file=sys.stderr)
    return 0 if diff is None else 1
