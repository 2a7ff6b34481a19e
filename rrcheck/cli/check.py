"""The model-checking subcommands: ``list``, ``check``, ``check-workload``, ``replay``.

    rrcheck list [--json]
    rrcheck check PROTOCOL [--workload W] [--procs N] [--nodes M] [--failures F]
                  [--checkpoints C] [--mutant NAME] [--json] ...
    rrcheck check --all
    rrcheck check-workload W
    rrcheck replay FILE [--svg OUT]
    rrcheck fuzz PROTOCOL [--mutant NAME] [--procs N] [--failures F] [--examples K] [--seed S] [--json]
    rrcheck group PATTERN --method node|metis|rcb|rpcs --groups K

Exit status: 0 as expected (a pass; for ``--all`` every protocol passes and
every mutant is caught; for ``replay`` the same violation reproduced), 1 a
violation or a surprise, 2 a usage error (one line on stderr), 3 incomplete.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from rrcheck.checker.errors import UsageError
from rrcheck.checker.invariants import DESCRIPTIONS

KEY_WITNESSES = ("rollbacks", "survivor_rollbacks", "crashes", "node_crashes", "checkpoints", "processes_checkpointed",
                 "in_transit_at_recovery_line", "orphan_situations", "orphans_regenerated_identically",
                 "theorem1_lines_checked", "theorem1_internal_messages", "replayed_receptions",
                 "logged_messages_resent", "duplicates_dropped", "in_transit_recorded", "in_transit_restored",
                 "terminal_states_after_failure", "phase_raised_by_other_group", "orphans_rereceived",
                 "replays_held_for_orphans", "replayed_messages", "messages_buffered_during_restart",
                 "logged_messages_collected", "restarts_ended",
                 "late_messages_logged", "late_messages_replayed",
                 "early_messages_recorded", "early_resends_suppressed", "intra_epoch_messages", "collectives_from_log",
                 "crash_receiver_before_t2", "crash_receiver_t2_t4",
                 "crash_receiver_t4_t6", "crash_receiver_after_t6", "crash_sender_with_tb", "wildcard_waits",
                 "tb_messages_resent", "logger_dropped_unacked")


def scenario_args(s: argparse.ArgumentParser) -> None:
    """The options that change a default scenario (check, fuzz)."""
    s.add_argument("--workload")
    s.add_argument("--procs", type=int)
    s.add_argument("--nodes", type=int)
    s.add_argument("--failures", type=int)
    s.add_argument("--checkpoints", type=int)
    s.add_argument("--at-sites", action="store_true",
                   help="checkpoints only at the workload's checkpoint sites")


def add_parsers(sub) -> None:

    s = sub.add_parser("list", help="protocols, mutants, workloads and invariants")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("check", help="explore a protocol's state space against the invariants")
    s.add_argument("protocol", nargs="?")
    s.add_argument("--all", action="store_true", help="every protocol and every mutant on its default scenarios")
    scenario_args(s)
    s.add_argument("--depth", type=int, help="bound on the length of explored runs")
    s.add_argument("--crash-kinds", default=None, help="process,node (default both)")
    s.add_argument("--mutant")
    s.add_argument("--no-failure-during-recovery", action="store_true",
                   help="no crash while a recovery is under way (seed 004 L623)")
    s.add_argument("--grouping", help="a JSON file with one group id per process, or METHOD:K (grouping/)")
    s.add_argument("--property", action="append", dest="properties", help="check only these (repeatable)")
    s.add_argument("--strategy", choices=("bfs", "dfs", "random"), default="bfs")
    s.add_argument("--max-states", type=int)
    s.add_argument("--time-limit", type=float)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--no-reduce", action="store_true", help="explore every interleaving (no reductions)")
    s.add_argument("--out", default="rrcheck-out", help="where counterexamples are written")
    s.add_argument("--anyway", action="store_true",
                   help="check a workload outside the protocol's assumptions (e.g. not send-deterministic)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("check-workload", help="verify a workload's determinism class on failure-free runs")
    s.add_argument("workload")
    s.add_argument("--procs", type=int)
    s.add_argument("--nodes", type=int)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_check_workload)

    s = sub.add_parser("replay", help="re-execute a counterexample file and draw it")
    s.add_argument("file")
    s.add_argument("--svg", help="write a space-time diagram")
    s.add_argument("--itf", help="write the run as an ITF trace (Apalache/Quint), one state per event")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_replay)


def cmd_list(args) -> int:
    from rrcheck.checker import workloads as W
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
    data = {
        "protocols": {n: {"source": c.source, "rollback_scope": c.scope, "knobs": c.KNOBS}
                      for n, c in PROTOCOLS.items()},
        "mutants": {n: {"protocol": m.protocol, "knobs": m.knobs, "rule": m.rule, "source": m.source,
                        "caught_by": list(m.catches)} for n, m in MUTANTS.items()},
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


def _scenario(args):
    from rrcheck.checker.scenarios import DEFAULTS, Scenario, scenario_for_mutant
    from rrcheck.protocols.mutants import PROTOCOLS
    if args.mutant:
        base = scenario_for_mutant(args.mutant)
    else:
        if args.protocol not in PROTOCOLS:
            raise UsageError(f"unknown protocol {args.protocol!r}; choose one of {', '.join(PROTOCOLS)}")
        base = DEFAULTS[args.protocol][0]
    kinds = base.crash_kinds
    if args.crash_kinds:
        kinds = tuple(k.strip() for k in args.crash_kinds.split(","))
        if not kinds or any(k not in ("process", "node") for k in kinds):
            raise UsageError("--crash-kinds takes process, node or process,node")
    wl = args.workload or base.workload
    same = wl == base.workload
    for name in ("failures", "checkpoints", "procs", "nodes", "max_states"):
        v = getattr(args, name, None)
        if v is not None and v < (1 if name in ("procs", "nodes", "max_states") else 0):
            raise UsageError(f"--{name.replace('_', '-')} must be {'positive' if name != 'failures' else '0 or more'}")
    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be positive")
    return Scenario(wl, args.procs if args.procs is not None else (base.procs if same else None),
                    args.nodes if args.nodes is not None else (base.nodes if same else None),
                    base.failures if args.failures is None else args.failures,
                    base.checkpoints if args.checkpoints is None else args.checkpoints, kinds,
                    at_sites=args.at_sites or (base.at_sites if same else False), depth=args.depth or base.depth,
                    no_failure_during_recovery=args.no_failure_during_recovery or base.no_failure_during_recovery)


def _grouping(spec: str | None, scenario) -> tuple[int, ...] | None:
    if not spec:
        return None
    from rrcheck.checker import workloads as W
    workload = W.make(scenario.workload, scenario.procs, scenario.nodes)
    if ":" in spec and not Path(spec).exists():
        method, _, k = spec.partition(":")
        try:
            from rrcheck.grouping import CommGraph, make_grouping
        except ImportError:
            raise UsageError("--grouping METHOD:K needs the grouping extras (pip install -e .)")
        if not k.isdigit():
            raise UsageError(f"--grouping {spec!r}: K must be a number of groups")
        graph = CommGraph.from_edges(workload.n, workload.comm_edges(), node_of=workload.node_of)
        return tuple(make_grouping(graph, method, int(k)))
    try:
        data = json.loads(Path(spec).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise UsageError(f"--grouping {spec!r}: not a readable JSON list of group ids ({e})")
    if isinstance(data, dict):
        data = data.get("group_of")
    if not isinstance(data, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in data):
        raise UsageError(f"--grouping {spec!r}: expected a JSON list with one integer group id per process")
    return tuple(data)


def cmd_check(args) -> int:
    from rrcheck.checker.check import default_checks, run_check
    if args.all:
        if args.protocol or args.mutant:
            raise UsageError("--all checks every protocol and mutant; drop the protocol and --mutant")
        return _check_all(args, default_checks)
    if not args.protocol and not args.mutant:
        raise UsageError("name a protocol (rrcheck list) or use --all")
    scenario = _scenario(args)
    protocol = args.protocol
    if args.mutant:
        from rrcheck.protocols.mutants import MUTANTS
        protocol = protocol or MUTANTS[args.mutant].protocol
        if protocol != MUTANTS[args.mutant].protocol:
            raise UsageError(f"mutant {args.mutant!r} is a variant of {MUTANTS[args.mutant].protocol!r}, "
                             f"not {protocol!r}")
    c = run_check(protocol, scenario, args.mutant, args.properties, Path(args.out),
                  args.strategy, args.max_states, args.time_limit, args.seed, not args.no_reduce,
                  _grouping(args.grouping, scenario), anyway=args.anyway)
    if args.json:
        print(json.dumps(c.as_dict(), indent=1))
    else:
        print_check(c)
    return {"pass": 0, "violation": 1, "incomplete": 3}[c.result.verdict]


def print_check(c) -> None:
    r = c.result
    who = c.mutant or c.protocol
    print(f"{who} on {c.scenario.label()}: {r.verdict.upper()}")
    if r.violation:
        print(f"  {r.violation.property}: {r.violation.message}")
    if r.reason:
        print(f"  incomplete: {r.reason}")
    print(f"  {r.states:,} states, {r.transitions:,} transitions, depth {r.depth}, {r.seconds:.1f} s "
          f"({r.states_per_s:,.0f} states/s)")
    w = {k: r.witnesses.get(k, 0) for k in KEY_WITNESSES}
    print("  witnesses: " + ", ".join(f"{k} {v:,}" for k, v in w.items()))
    if c.counterexample:
        print(f"  counterexample ({len(r.trace)} events): {c.counterexample}")
        print(f"  see it: rrcheck replay {c.counterexample} --svg {Path(c.counterexample).with_suffix('.svg')}")


def _check_all(args, default_checks) -> int:
    out = Path(args.out)
    checks = default_checks(out=out, max_states=args.max_states, time_limit=args.time_limit)
    ok = all(c.expected for c in checks)
    if args.json:
        print(json.dumps({"ok": ok, "checks": [c.as_dict() for c in checks]}, indent=1))
        return 0 if ok else 1
    print(f"{'protocol / mutant':<44} {'scenario':<28} {'verdict':<10} {'property':<22} {'states':>9} {'s':>6}  ")
    for c in checks:
        r = c.result
        mark = "ok" if c.expected else ("NOT CAUGHT" if c.mutant else "FAILED")
        print(f"{(c.mutant or c.protocol):<44} {c.scenario.label():<28} {r.verdict:<10} "
              f"{(r.violation.property if r.violation else '-'):<22} {r.states:>9,} {r.seconds:>6.1f}  {mark}")
    good = sum(c.expected for c in checks)
    print(f"\n{good}/{len(checks)} as expected: every protocol passes and every mutant is caught" if ok
          else f"\n{len(checks) - good} of {len(checks)} NOT as expected")
    print(f"counterexamples in {out}/ — rrcheck replay FILE --svg OUT.svg")
    return 0 if ok else 1


def cmd_check_workload(args) -> int:
    from rrcheck.checker import workloads as W
    from rrcheck.checker.classify import failure_free
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
    from rrcheck.checker import trace as T
    cx = T.load(args.file)
    rep = T.replay(cx)
    v = rep.violation
    same = v is not None and v.property == cx.violation.property
    if args.svg:
        from rrcheck.checker.render import svg
        T.write_atomic(Path(args.svg), svg(cx, rep))
    if args.itf:
        from rrcheck.checker.itf import write_replay_itf
        write_replay_itf(cx, Path(args.itf))
    if args.json:
        print(json.dumps({"file": args.file, "reproduced": same, "steps": rep.steps,
                          "violation": v.as_dict() if v else None, "svg": args.svg}, indent=1))
    else:
        label = cx.mutant or cx.protocol
        print(f"{label} on {cx.workload}: {len(cx.events)} events")
        from rrcheck.checker.render import steps
        for t, text in enumerate(steps(rep), start=1):
            print(f"  {t:>3}. {text}")
        if v:
            print(f"  => {v.property}: {v.message}")
        print("reproduced" if same else f"NOT reproduced (file says {cx.violation.property})")
        if args.svg:
            print(f"diagram: {args.svg}")
    return 0 if same else 1

