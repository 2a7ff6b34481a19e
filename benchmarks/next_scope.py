"""One step beyond the defaults (docs/findings.md, "The next scope"): for each protocol, the
scenarios one step past its default ones (checker/model/scenarios.py DEFAULTS)
along the axes a protocol author would ask about — a second failure where the
paper allows it, a further checkpoint (wave), one more process for a workload
that scales, node crashes taking two processes per node — searched exhaustively
within a budget, and where that search is incomplete, by seeded random walks
and by the stateful Hypothesis engine (``rrcheck fuzz``'s swarm runs) for a fixed
budget each.

    python benchmarks/next_scope.py [--budget S] [--max-states N] [--protocol P ...]
                                    [--random-share R] [--out DIR] [--list]

Per scenario the explicit breadth-first search gets ``--budget`` seconds (or
``--max-states`` states); when it is incomplete, the random walks get
``--random-share`` × budget seconds over seeds 0, 1, 2 (depth bounds 2,000,
1,000 and 500 events: a swarm of depth bounds) and the Hypothesis engine as
much again (ci profile, 100 runs per seed, seeds 0, 1, … until the time is
spent). A randomized pass is a sample, not a proof. A walk cut at its depth
bound has not ended (a failure-free run here is at most 80 events): their count,
``walks_at_depth_bound``, is how a run that never ends (no property catches it)
shows up.

Axes (derived by :func:`step` from a default scenario):

* ``failures``: one more crash. The Meyer 2014 protocols (sbml, rbml, hmpl)
  assume no failure during a recovery (§2.2.1): their second failure comes
  after the first recovery (no_failure_during_recovery). The others allow it.
* ``checkpoints``: one more checkpoint per process (a second wave).
* ``procs``: one more process, the placement kept (one per node stays one per
  node). A fixed workload (a paper's figure, one rule's case) cannot grow.
* ``node2``: node crashes with two processes per node (four processes on two
  nodes for a default of two or three), for a scalable workload whose scenario
  had one process per node or process crashes only.

Writes benchmarks/results/next_scope.json (machine, load and command through
benchmarks/record.py), one row per (scenario, engine); counterexamples go under
``--out`` (default /tmp/rrcheck-next-scope), one directory per scenario and engine.
"""
from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.explicit.check import run_check  # noqa: E402
from rrcheck.checker.explicit.explore import explore  # noqa: E402
from rrcheck.checker.invariants import Judge, properties_for  # noqa: E402
from rrcheck.checker.model import workloads as W  # noqa: E402
from rrcheck.checker.model.classify import failure_free  # noqa: E402
from rrcheck.checker.model.scenarios import DEFAULTS, Scenario, make_system  # noqa: E402
from rrcheck.checker.stateful.fuzz import run_fuzz  # noqa: E402
from rrcheck.checker.traces.counterexample import save_counterexample  # noqa: E402
from rrcheck.protocols.mutants import PROTOCOLS  # noqa: E402

AXES = ("failures", "checkpoints", "procs", "node2")
# Meyer 2014 §2.2.1: no failure while a recovery is under way
SEQUENTIAL = {"sbml", "rbml", "hmpl"}

# Random walks: seed k runs under the k-th depth bound, cyclically, not the scenario's 10,000 (a walk
# is timed only at its end, and one of 10,000 events in a rollback storm takes half a minute); a walk
# cut at its bound has not ended and is counted (walks_at_depth_bound). Hypothesis runs finish under
# FUZZ_DEPTH events. A failure-free run of these workloads is at most 80 events.
WALK_DEPTHS = (2000, 1000, 500)
FUZZ_DEPTH = 1000

# Per protocol, the (default scenario index, axis) pairs swept: at most ~6, the
# ones that reach a rule the defaults do not (a second recovery, a second wave,
# a third member of a group, a node crash taking a receiver with its sender).
PLAN: dict[str, tuple[tuple[int, str], ...]] = {
    "correlated-set": (
        (0, "failures"),     # ring 2/1: two failures of the one set of two
        (0, "checkpoints"),  # ring 2/1: a second wave in the set
        (0, "procs"),        # ring 3/1: one set of three
        (4, "procs"),        # any_source_race 4/2: two sets of two, the race across them
        (1, "failures"),     # pairs: two failures, two sets of two
        (6, "failures"),     # fig2: the execution of Theorem 2 with two failures
    ),
    "sbml": (
        (0, "failures"),     # ring 2/2 c=1: a second failure after the first recovery
        (0, "checkpoints"),  # ring 2/2: a second checkpoint, the GC behind it
        (0, "procs"),        # ring 3/3
        (1, "node2"),        # pingpong 4/2: the two partners on one node
        (0, "node2"),        # ring 4/2: a receiver and its sender on the crashed node
        (3, "failures"),     # node_rsn_gap: a second node crash after the recovery
    ),
    "hmpl": (
        (0, "failures"),     # pingpong: the passing version of hmpl/failure-during-recovery
        (2, "checkpoints"),  # ring 2/2 c=2
        (2, "procs"),        # ring 3/3 c=1
        (0, "node2"),        # pingpong 4/2
        (1, "failures"),     # wildcard_race: two sequential failures
        (3, "failures"),     # node_handoff: two sequential failures
    ),
    "rbml": (
        (0, "failures"),     # ring 2/2: two sequential failures
        (0, "checkpoints"),  # ring 2/2 c=1 (SLOW's, the log collected behind it)
        (4, "procs"),        # master_worker 3/3 c=1: two workers race to the master
        (4, "node2"),        # master_worker 4/2: SBML's RSN finding's scenario, on RBML
        (4, "checkpoints"),  # master_worker 2/2 c=2
        (2, "failures"),     # testany: two sequential failures
    ),
    "coordinated": (
        (0, "failures"),     # ring 2/2 f=2
        (0, "checkpoints"),  # ring 2/2 c=2: two waves
        (0, "procs"),        # ring 3/3
        (0, "node2"),        # ring 4/2
        (2, "failures"),     # pingpong f=2
    ),
    "chandy-lamport": (
        (0, "failures"),
        (0, "checkpoints"),
        (0, "procs"),
        (0, "node2"),
        (2, "failures"),
    ),
    "send-deterministic": (
        (0, "failures"),     # sd_phases f=2 c=0, node and process crashes
        (0, "checkpoints"),  # sd_phases c=1 (SLOW's)
        (4, "failures"),     # sd_ack f=2: two failures in a group of two with a checkpoint
        (8, "failures"),     # sd_orphan_path f=2 c=1: correction 19's path and a second failure
        (2, "procs"),        # reduce 4/2: two groups of two
        (5, "procs"),        # ring 4/2: two groups of two
    ),
    "app-level": (
        (0, "failures"),     # c3_epochs f=2
        (0, "checkpoints"),  # c3_epochs c=2 (SLOW's)
        (1, "failures"),     # c3_two_epochs f=2
        (2, "checkpoints"),  # c3_collectives c=2 (SLOW's)
        (3, "failures"),     # c3_bcast_root f=2
        (4, "checkpoints"),  # c3_resuppress f=2 c=3
    ),
}


def size(sc: Scenario) -> tuple[int, int]:
    w = W.make(sc.workload, sc.procs, sc.nodes)
    return w.n, len(set(w.node_of))


def step(protocol: str, base: Scenario, axis: str) -> Scenario | None:
    """The scenario one step beyond ``base`` along ``axis``, or None where the
    axis does not apply (a fixed workload cannot grow)."""
    note = f"next scope ({axis}) of: {base.label()}"
    if axis == "failures":
        return dataclasses.replace(base, failures=base.failures + 1, note=note,
                                   no_failure_during_recovery=base.no_failure_during_recovery
                                   or protocol in SEQUENTIAL)
    if axis == "checkpoints":
        return dataclasses.replace(base, checkpoints=base.checkpoints + 1, note=note)
    fixed = base.workload in W.FIXED or W.is_file(base.workload)
    if fixed:
        return None
    n, nodes = size(base)
    if axis == "procs":
        return dataclasses.replace(base, procs=n + 1, nodes=nodes + 1 if nodes == n else nodes,
                                   grouping=None, note=note)
    if axis == "node2":
        one_per_node = nodes == n
        if not one_per_node and "node" in base.crash_kinds:
            return None  # node crashes already take two processes
        n2 = n if n % 2 == 0 and n >= 4 else max(4, n + n % 2)
        # two processes per node under node crashes: beyond SBML's claim (docs/findings.md §1), run on purpose
        return dataclasses.replace(base, procs=n2, nodes=n2 // 2, crash_kinds=("process", "node"),
                                   grouping=None, note=note, beyond_fault_model=True)
    raise ValueError(axis)


def plan(protocols) -> list[tuple[str, str, int, Scenario]]:
    out, seen = [], set()
    for p in protocols:
        for idx, axis in PLAN[p]:
            sc = step(p, DEFAULTS[p][idx], axis)
            if sc is None or (p, sc.label()) in seen:
                continue
            seen.add((p, sc.label()))
            out.append((p, axis, idx, sc))
    return out


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", text).strip("_")


def random_walks(protocol: str, sc: Scenario, seed: int, seconds: float, out: Path):
    """run_check(strategy="random")'s search (explore's seeded walks), with the walks counted, their
    lengths kept (a walk that reaches the depth bound has not ended) and as many as the time allows."""
    system, workload = make_system(protocol, sc)
    props = properties_for(system, protocol, None)
    judge = Judge(system, props, failure_free(workload).finals)
    lengths: list[int] = []
    initial, step_ = system.initial, system.step

    def counted():
        lengths.append(0)
        return initial()

    def stepped(s, a):
        lengths[-1] += 1
        return step_(s, a)

    system.initial, system.step = counted, stepped
    result = explore(system, judge, "random", None, seconds, seed, walks=10**9, progress=False)
    path = save_counterexample(out, protocol, None, sc, system, workload, props, result)
    return result, len(lengths), sum(n >= sc.depth for n in lengths), path


def row(protocol, axis, base_idx, sc, engine, **kw) -> dict:
    return {"protocol": protocol, "scenario": sc.label(), "axis": axis,
            "derived_from": DEFAULTS[protocol][base_idx].label(), "engine": engine, **kw}


def prop(result):
    return result.violation.property if result.violation else None



def _seeds(share: float, one) -> tuple[list, float, dict | None]:
    """Seeds 0, 1, ... of a randomized engine until ``share`` seconds are spent or
    one finds a violation; ``one(seed, spent)`` returns its Result and its own fields."""
    runs, t, seed, found = [], 0.0, 0, None
    while t < share and found is None:
        res, own = one(seed, t)
        runs.append({"seed": seed, **own, "states_seen": res.states, "max_depth": res.depth,
                     "seconds": round(res.seconds, 2), "verdict": "violation" if res.violation else "no violation",
                     "property": prop(res), "trace_length": len(res.trace) if res.violation else None})
        t += res.seconds
        seed += 1
        if res.violation:
            found = runs[-1]
    return runs, t, found

def sweep_one(protocol, axis, idx, sc, args) -> list[dict]:
    rows = []
    base = args.out / protocol / slug(sc.label())
    t0 = time.perf_counter()
    c = run_check(protocol, sc, out=base / "bfs", time_limit=args.budget, max_states=args.max_states,
                  progress=False)
    r = c.result
    rows.append(row(protocol, axis, idx, sc, "explicit-bfs", exhaustive=r.verdict != "incomplete",
                    verdict=r.verdict, property=prop(r), states=r.states, transitions=r.transitions,
                    depth=r.depth, seconds=round(r.seconds, 2), incomplete_reason=r.reason or None,
                    vacuous=c.vacuous if r.verdict == "pass" else None,
                    trace_length=len(r.trace) if r.violation else None,
                    counterexample=str(c.counterexample) if c.counterexample else None))
    _say(rows[-1])
    if r.verdict != "incomplete":
        rows[0]["scenario_seconds"] = round(time.perf_counter() - t0, 2)
        return rows
    share = args.random_share * args.budget
    # seeded random walks, seeds 0, 1, ... until the share is spent or one finds a violation
    def walk(seed, t):
        depth = min(sc.depth, WALK_DEPTHS[seed % len(WALK_DEPTHS)])
        res, walks, at_bound, path = random_walks(protocol, dataclasses.replace(sc, depth=depth), seed,
                                                  min(share / len(WALK_DEPTHS), share - t), base / f"random-seed{seed}")
        return res, {"depth_bound": depth, "walks": walks, "walks_at_depth_bound": at_bound,
                     "counterexample": str(path) if path else None}
    runs, t, found = _seeds(share, walk)
    rows.append(row(protocol, axis, idx, sc, "random-walks", exhaustive=False,
                    verdict="violation" if found else "no violation",
                    property=found["property"] if found else None,
                    walks=sum(x["walks"] for x in runs),
                    walks_at_depth_bound=sum(x["walks_at_depth_bound"] for x in runs),
                    states=max(x["states_seen"] for x in runs),
                    depth=max(x["max_depth"] for x in runs), seeds=len(runs), seconds=round(t, 2),
                    trace_length=found["trace_length"] if found else None,
                    counterexample=found["counterexample"] if found else None, per_seed=runs))
    _say(rows[-1])
    # the stateful Hypothesis engine (rrcheck fuzz): swarm runs, --fuzz-examples per seed until the share is spent
    def fuzz(seed, t):
        f = run_fuzz(protocol, dataclasses.replace(sc, depth=min(sc.depth, FUZZ_DEPTH)), out=base / f"fuzz-seed{seed}",
                     profile="ci", examples=args.fuzz_examples, seed=seed, progress=False)
        return f.result, {"depth_bound": min(sc.depth, FUZZ_DEPTH), "runs": f.examples, "runs_to_find": f.found_after,
                          "runs_never_choosing_an_enabled_kind": f.narrowed,
                          "counterexample": str(f.counterexample) if f.counterexample else None}
    runs, t, found = _seeds(share, fuzz)
    rows.append(row(protocol, axis, idx, sc, "hypothesis-fuzz", exhaustive=False,
                    verdict="violation" if found else "no violation",
                    property=found["property"] if found else None,
                    runs=sum(x["runs"] for x in runs), states=max(x["states_seen"] for x in runs),
                    depth=max(x["max_depth"] for x in runs), seeds=len(runs), seconds=round(t, 2),
                    trace_length=found["trace_length"] if found else None,
                    counterexample=found["counterexample"] if found else None, per_seed=runs))
    _say(rows[-1])
    rows[0]["scenario_seconds"] = round(time.perf_counter() - t0, 2)
    return rows


def _say(r: dict) -> None:
    n = f"{r['states']:,} states" if r["engine"] == "explicit-bfs" else \
        f"{r.get('walks', r.get('runs')):,} {'walks' if 'walks' in r else 'runs'}, {r['states']:,} states" + \
        (f", {r['walks_at_depth_bound']:,} walks cut at the depth bound" if r.get("walks_at_depth_bound") else "")
    print(f"{r['protocol']:<19} {r['axis']:<11} {r['scenario']:<52} {r['engine']:<15} {r['verdict']:<12} "
          f"{r['property'] or '':<20} {n} {r['seconds']} s", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds of the exhaustive search per scenario (default 60)")
    ap.add_argument("--max-states", type=int, default=2_000_000,
                    help="states of the exhaustive search per scenario (default 2,000,000)")
    ap.add_argument("--random-share", type=float, default=0.25,
                    help="seconds of each randomized engine, as a share of --budget, when the "
                         "exhaustive search is incomplete (default 0.25)")
    ap.add_argument("--fuzz-examples", type=int, default=100, help="Hypothesis runs per seed (default 100)")
    ap.add_argument("--protocol", action="append", choices=list(PROTOCOLS),
                    help="only this protocol (repeatable; default every one)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/rrcheck-next-scope"),
                    help="directory of the counterexamples (default /tmp/rrcheck-next-scope)")
    ap.add_argument("--name", default="next_scope", help="result file benchmarks/results/NAME.json")
    ap.add_argument("--list", action="store_true", help="print the scenarios and exit")
    args = ap.parse_args()
    protocols = args.protocol or list(PLAN)
    todo = plan(protocols)
    if args.list:
        for p, axis, idx, sc in todo:
            print(f"{p:<19} {axis:<11} {sc.label():<55} from {DEFAULTS[p][idx].label()}")
        return 0
    t0 = time.perf_counter()
    rows, interrupted = [], False
    try:
        for p, axis, idx, sc in todo:
            rows.extend(sweep_one(p, axis, idx, sc, args))
    except KeyboardInterrupt:  # the scenarios finished so far are kept
        interrupted = True
    total = time.perf_counter() - t0
    violations = [r for r in rows if r["verdict"] == "violation"]
    record.write(args.name, {
        "note": "one row per (scenario, engine); the explicit search runs first, the randomized engines only where it "
                "is incomplete; a randomized 'no violation' is a sample, not a proof; seconds are wall-clock under "
                "nice -n 19 on a machine shared with other jobs (see load_average_at_end)",
        "budget": {"explicit_seconds": args.budget, "explicit_max_states": args.max_states,
                   "random_walk_seconds": args.random_share * args.budget,
                   "fuzz_seconds": args.random_share * args.budget, "fuzz_examples_per_seed": args.fuzz_examples},
        "protocols": protocols, "scenarios": len(todo), "interrupted": interrupted, "total_seconds": round(total, 1),
        "violations": len(violations), "results": rows})
    print(f"{len(todo)} scenarios, {len(rows)} rows, {len(violations)} violations, {total:.0f} s"
          + (" (interrupted: the rows above are kept)" if interrupted else ""))
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
