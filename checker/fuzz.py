"""``rrcheck fuzz``: the stateful Hypothesis engine (checker/stateful.py) on a
protocol or a mutant, by default at twice the size of its exhaustive scenario;
a shrunk failure is a counterexample file (checker/trace.py) that ``rrcheck
replay`` re-executes.

The catalogue is read from the registries (protocols/mutants.py,
checker/scenarios.py): a protocol or mutant added there is fuzzed with no
change here. :data:`FUZZ_SCENARIOS` names the configuration of each mutant
known today; any other is fuzzed at :func:`doubled` its exhaustive scenario.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from rrcheck.checker import workloads as W
from rrcheck.checker.check import Check, properties_for, save_counterexample
from rrcheck.checker.classify import failure_free
from rrcheck.checker.errors import UsageError
from rrcheck.checker.invariants import Judge
from rrcheck.checker.scenarios import DEFAULTS, Scenario, make_system, scenario_for_mutant
from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS

PROFILES = ("ci", "deep")  # the Hypothesis settings profiles checker/stateful.py registers

# Per mutant: twice its exhaustive scenario (MUTANT_SCENARIOS) in processes or
# in failures. Fixed executions from a paper keep their processes and double
# their failures; the others double processes and nodes (same processes per node).
# benchmarks/fuzz_vs_explore.py measures each against the explicit search.
FUZZ_SCENARIOS: dict[str, Scenario] = {
    "correlated-set/no-internal-event-logging":
        Scenario("theorem2", checkpoints=0, failures=2, crash_kinds=("process",), note="two failures"),
    "correlated-set/no-internal-silence": Scenario("ring", 4, 2, note="two sets of two, a wave in each"),
    "correlated-set/no-external-payload-copy": Scenario("ring", 8, 4, checkpoints=0),
    "correlated-set/global-rollback": Scenario("ring", 8, 4, checkpoints=0),
    "chandy-lamport/no-channel-recording": Scenario("ring", 4, 4),
    # fig1 is a fixed figure of three; the same ANY_SOURCE race on six processes
    "sbml/no-event-logging": Scenario("any_source_race", 6, 3, checkpoints=0, crash_kinds=("process",)),
    # seed 004 assumes no failure during a recovery (L623): the thesis' SBML
    # does not promise to survive two at once
    "sbml/no-duplicate-suppression": Scenario("pingpong", checkpoints=0, failures=2, crash_kinds=("process",),
                                              no_failure_during_recovery=True),
    "uncoordinated/no-logging": Scenario("fig1", failures=2, crash_kinds=("process",),
                                         no_failure_during_recovery=True),
}


def procs_of(sc: Scenario) -> int:
    return W.make(sc.workload, sc.procs, sc.nodes).n


def doubled(sc: Scenario) -> Scenario:
    """Twice ``sc``: twice the processes (and nodes) of a scalable workload,
    else twice the failures."""
    if sc.workload in W.FIXED:
        return dataclasses.replace(sc, failures=2 * max(sc.failures, 1))
    w = W.make(sc.workload, sc.procs, sc.nodes)
    nodes = len(set(w.node_of))
    return dataclasses.replace(sc, procs=2 * w.n, nodes=2 * nodes, grouping=None)


def at_least_twice(big: Scenario, small: Scenario) -> bool:
    return procs_of(big) >= 2 * procs_of(small) or big.failures >= 2 * max(small.failures, 1)


def sequential_failures(protocol: str | None, mutant: str | None) -> bool:
    """Whether the default configuration strikes failures one at a time, none
    during a recovery (the assumption of seed 004 L623): so it does where
    :func:`doubled` doubles the failures of a scenario not listed here, since
    a protocol may promise no more than one recovery at a time (seed 003's
    send-deterministic protocol does not survive concurrent restarts)."""
    if mutant:
        return mutant not in FUZZ_SCENARIOS and scenario_for_mutant(mutant).workload in W.FIXED
    return DEFAULTS[protocol][0].workload in W.FIXED


def fuzz_scenario(protocol: str | None, mutant: str | None) -> Scenario:
    """The default configuration of ``rrcheck fuzz``: twice the exhaustive one."""
    if mutant:
        return FUZZ_SCENARIOS.get(mutant) or doubled(scenario_for_mutant(mutant))
    return doubled(DEFAULTS[protocol][0])


@dataclass
class Fuzz(Check):
    """A :class:`Check` whose result came from Hypothesis: no violation in
    ``examples`` runs is a sample, not a proof."""
    profile: str = "ci"
    seed: int = 0
    sequential: bool = False            # no failure during a recovery
    examples: int = 0
    found_after: int | None = None      # runs until the first violation, before shrinking
    found_seconds: float | None = None
    narrowed: int = 0                   # runs that never chose some enabled kind of event (swarm)

    def as_dict(self) -> dict:
        return {**super().as_dict(), "engine": "hypothesis", "exhaustive": False, "profile": self.profile,
                "sequential_failures": self.sequential,
                "seed": self.seed, "examples": self.examples, "runs_never_choosing_an_enabled_kind": self.narrowed, "examples_to_find": self.found_after,
                "seconds_to_find": round(self.found_seconds, 3) if self.found_seconds is not None else None}


def run_fuzz(protocol: str, scenario: Scenario, mutant: str | None = None, properties=None,
             out: Path | None = None, profile: str = "ci", examples: int | None = None, seed: int = 0,
             grouping: tuple[int, ...] | None = None, progress: bool | None = None, shrink: bool = True,
             sequential: bool = False) -> Fuzz:
    try:
        from rrcheck.checker.stateful import hunt
    except ImportError:
        raise UsageError("rrcheck fuzz needs Hypothesis: pip install 'hypothesis>=6.100' (or -e '.[test]')")
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    system, workload = make_system(protocol, scenario, mutant, grouping)
    if sequential:
        system.bounds = dataclasses.replace(system.bounds, no_failure_during_recovery=True)
    props = properties_for(system, protocol, properties)
    judge = Judge(system, props, failure_free(workload).finals)
    result, tally = hunt(system, judge, profile, examples, seed, progress, shrink)
    path = save_counterexample(out, protocol, mutant, scenario, system, workload, props, result, ".fuzz.json")
    return Fuzz(protocol, mutant, scenario, result, path, profile, seed, sequential, tally.examples,
                tally.found_after, tally.found_seconds, tally.narrowed)


# --- the command -------------------------------------------------------------

def add_parser(sub) -> None:
    from rrcheck.checker.cli import scenario_args
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
    from rrcheck.checker.cli import _print_check
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
        _print_check(f)
        found = (f"; first violation after {f.found_after:,} runs, {f.found_seconds:.1f} s, shrunk to "
                 f"{len(f.result.trace)} events" if f.found_after else " — a sample, not a proof")
        one = ", one failure at a time" if f.sequential else ""
        print(f"  Hypothesis: {f.examples:,} runs (profile {f.profile}, seed {f.seed}{one}){found}")
    return {"pass": 0, "violation": 1}[f.result.verdict]
