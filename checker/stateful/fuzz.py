"""``rrcheck fuzz``: the stateful Hypothesis engine (checker/stateful/machine.py) on a
protocol or a mutant, by default at twice the size of its exhaustive scenario;
a shrunk failure is a counterexample file (checker/traces/counterexample.py) that ``rrcheck
replay`` re-executes.

The catalogue is read from the registries (protocols/mutants.py,
checker/model/scenarios.py): a protocol or mutant added there is fuzzed with no
change here. :data:`FUZZ_SCENARIOS` names the configuration of each mutant
known today; any other is fuzzed at :func:`doubled` its exhaustive scenario.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from rrcheck.checker.model import workloads as W
from rrcheck.checker.invariants.verdict import COVERAGE, Check, failure_kinds
from rrcheck.checker.traces.counterexample import save_counterexample
from rrcheck.checker.model.classify import failure_free
from rrcheck.errors import UsageError
from rrcheck.checker.invariants import Judge, properties_for
from rrcheck.checker.model.scenarios import DEFAULTS, Scenario, make_system, scenario_for_mutant
from rrcheck.protocols.mutants import MUTANTS

PROFILES = ("ci", "deep")  # the Hypothesis settings profiles checker/stateful/machine.py registers

# Per mutant: twice its exhaustive scenario (MUTANT_SCENARIOS) in processes or
# in failures. Fixed executions from a paper keep their processes and double
# their failures; the others double processes and nodes (same processes per node).
# benchmarks/fuzz_vs_explore.py measures each against the explicit search.
FUZZ_SCENARIOS: dict[str, Scenario] = {
    "correlated-set/no-internal-event-logging":
        Scenario("fig2", checkpoints=0, failures=2, crash_kinds=("process",), note="two failures"),
    # a member's internal message to its leader (in a ring of sets of two, every internal one goes the other way)
    "correlated-set/no-internal-silence": Scenario("ring", 4, 1, note="one set of four, a wave"),
    "correlated-set/no-external-payload-copy": Scenario("ring", 8, 4, checkpoints=0),
    "correlated-set/global-rollback": Scenario("ring", 8, 4, checkpoints=0),
    "chandy-lamport/no-channel-recording": Scenario("ring", 4, 4),
    # the doubled processes on one node, one group of six: blocks on two nodes leave P0, P1 and
    # P2 the only group that talks, and random runs rarely overtake a restart notice there
    "send-deterministic/newer-epoch-mark-dropped": Scenario("pingpong", 6, 1, crash_kinds=("process",)),
    # a fixed execution: twice the failures, but not one at a time, since the catch needs P2's crash
    # during group 1's restart (the default budget catches it with seeds 0, 2, 5 and 6 of 0-7)
    "send-deterministic/told-again-names-only-the-teller":
        Scenario("sd_told_again", failures=4, checkpoints=1, at_sites=True, crash_kinds=("process",),
                 note="four failures, during a recovery too"),
    # fig1 is a fixed figure of three; the same ANY_SOURCE race on six processes
    "sbml/no-event-logging": Scenario("any_source_race", 6, 3, checkpoints=0, crash_kinds=("process",)),
    # Meyer 2014 assumes no failure during a recovery (Meyer 2014 §2.2.1): the thesis' SBML
    # does not promise to survive two at once
    "sbml/no-duplicate-suppression": Scenario("pingpong", checkpoints=0, failures=2, crash_kinds=("process",),
                                              no_failure_during_recovery=True),
    "uncoordinated/no-logging": Scenario("fig1", failures=2, crash_kinds=("process",),
                                         no_failure_during_recovery=True),
}


# Mutants whose violation random runs do not reach within the test budgets: the
# explicit search is their only engine so far, said here rather than passed over.
FUZZ_OUT_OF_REACH: dict[str, str] = {
    "app-level/checkpoint-drops-suppressions":
        "needs 28 events with two crashes timed around a checkpoint taken between a recovery and a "
        "suppressed re-send: 44,240 deep runs (12 min, seed 5) saw 8,570 distinct states and no violation",
    "send-deterministic/checkpoint-holds-a-message-past-its-cause":
        "needs a wave whose first member checkpoints and sends out of the group, and the answer to reach the "
        "leader before its own checkpoint, then the leader's crash: 7,203 and 7,302 deep runs (seeds 0 and 1, "
        "3 min each) saw 11,166 and 11,053 distinct states and no violation (the exhaustive search: 12,906)",
}
# Mutants random runs catch on their exhaustive scenario (the deep profile) but not on
# one twice its size within the default budget.
FUZZ_NOT_DOUBLED: dict[str, str] = {
    "app-level/replay-in-arrival-order":
        "the deadlock needs a crash at one of few points and the sender's two re-sends to arrive out of "
        "order: the deep profile finds it with one failure; with two (ci, seeds 0-3; deep, seed 0) no run did",
}


# Coverage witnesses the explicit search meets on a default scenario and the stateful tests'
# runs (200, seed 1) may miss: (protocol, scenario label) -> witness -> why, measured.
COVERAGE_OUT_OF_REACH: dict[tuple[str, str], dict[str, str]] = {
    ("chandy-lamport", "pingpong n=2/2nodes f=1 c=1"): {
        "replays": "a message recorded in transit by the checkpoint wave, then the crash that restores it: "
                   "24 replays in the explicit search's 2,030 states; replays in 0, 2 and 4 of 200 runs "
                   "(seeds 1, 0, 2), in 7 to 15 of 1,000"},
    ("app-level", "c3_two_epochs n=2/2nodes f=1 c=2@sites process"): {
        "replays": "a late message or reception logged, then a crash that replays it from the log: 639 "
                   "replays in the explicit search's 17,966 states; replays in 0, 1 and 2 of 200 runs "
                   "(seeds 1, 0, 2), in 11 to 17 of 1,000"},
    ("app-level", "c3_bcast_root n=2/2nodes f=1 c=1@sites process"): {
        "replays": "a reception logged, then a crash that replays it from the log: 3 replays in the "
                   "explicit search's 708 states; none in 200 runs (seeds 0-2), replays in 0 to 2 of 1,000"},
    ("send-deterministic", "sd_wave_after_restarts n=3/2nodes f=1 c=1@sites node"): {
        "rollbacks_to_a_checkpoint": "the wave P0 starts at its site committed by all three members before the "
                                     "one node crash: 2,148 in the explicit search's 18,413 states; none in 200 "
                                     "runs (seeds 0-2), none in 1,000 (seed 0)"},
    ("app-level", "c3_two_readies n=3/3nodes f=1 c=1@sites process"): {
        "rollbacks_to_a_checkpoint": "line 1 saved by all three processes before the one crash: 50 in the explicit "
                                     "search's 4,807 states; none in 200 runs (seeds 0-2), none in 1,000 (seed 0)"},
}

# Per protocol, the default scenario (an index into DEFAULTS) on which the stateful engine is
# held state by state to the explicit one: the smallest of its unreduced searches, where every
# state a run visits must be in the explicit reachable set (benchmarks/fuzz_vs_explore.py
# records the fraction of that set a fixed budget of runs reaches).
STATE_BY_STATE: dict[str, int] = {"correlated-set": 4, "sbml": 1, "hmpl": 3, "rbml": 0, "coordinated": 0,
                                  "chandy-lamport": 0, "send-deterministic": 0, "app-level": 3}


def shortfalls(witnesses: dict, allowed, reference: dict | None = None, excused=()) -> list[str]:
    """The coverage witnesses a campaign should have met and did not: the kinds of failure
    its scenario ``allowed`` (:func:`failure_kinds`) and, if any, what every failure brings
    (a rollback, a recovery completed, a run with a failure that ends); every coverage
    witness the explicit search met on the same scenario (``reference``, its witnesses);
    but the ``excused`` ones."""
    need = set(allowed) | {k for k in COVERAGE if reference and reference.get(k, 0)}
    if allowed:
        need |= {"rollbacks", "recoveries_completed", "terminal_states_after_failure"}
    return sorted(k for k in need - set(excused) if not witnesses.get(k, 0))


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
    during a recovery (the assumption of Meyer 2014 §2.2.1): so it does where
    :func:`doubled` doubles the failures of a scenario not listed here, since
    a protocol may promise no more than one recovery at a time (Guermouche and Ropars 2011's
    send-deterministic protocol survives two groups restarting at once, readings 13–15 of
    protocols/send_deterministic.py, but not yet two failures with a group checkpoint)."""
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
    runs_with: dict = dataclasses.field(default_factory=dict)  # per coverage witness, the runs in which it rose
    allowed: tuple[str, ...] = ()       # the kinds of failure the scenario allows (failure_kinds)

    @property
    def never_generated(self) -> list[str]:
        """The kinds of failure the scenario allows that no run generated."""
        return [k for k in self.allowed if not self.result.witnesses.get(k, 0)]

    def shortfalls(self, reference: dict | None = None, excused=()) -> list[str]:
        """:func:`shortfalls` of this campaign."""
        return shortfalls(self.result.witnesses, self.allowed, reference, excused)

    @property
    def coverage(self) -> dict:
        """What the runs explored: per coverage witness its count and the runs in which
        it occurred; the distinct states; the Judge's witness classes met."""
        w = self.result.witnesses
        return {"runs": self.examples,
                "counts": {k: w.get(k, 0) for k in COVERAGE},
                "runs_with": {k: self.runs_with.get(k, 0) for k in COVERAGE},
                "failure_kinds_allowed": list(self.allowed), "failure_kinds_never_generated": self.never_generated,
                "states": self.result.states,
                "witness_classes_met": sorted(k for k, v in w.items() if v)}

    @property
    def expected(self) -> bool:
        """A mutant is caught by any of its catchers: the primary one is a
        breadth-first notion, and random runs may meet another symptom first."""
        if self.mutant is None:
            return self.result.verdict == "pass"
        v = self.result.violation
        return v is not None and v.property in MUTANTS[self.mutant].catches

    def as_dict(self) -> dict:
        return {**super().as_dict(), "engine": "hypothesis", "exhaustive": False, "profile": self.profile,
                "sequential_failures": self.sequential,
                "seed": self.seed, "examples": self.examples, "runs_never_choosing_an_enabled_kind": self.narrowed, "examples_to_find": self.found_after,
                "seconds_to_find": round(self.found_seconds, 3) if self.found_seconds is not None else None,
                "coverage": self.coverage}


def run_fuzz(protocol: str, scenario: Scenario, mutant: str | None = None, properties=None,
             out: Path | None = None, profile: str = "ci", examples: int | None = None, seed: int = 0,
             grouping: tuple[int, ...] | None = None, progress: bool | None = None, shrink: bool = True,
             sequential: bool = False, visited: set | None = None) -> Fuzz:
    """``visited``, if given, receives every state a run visited (the explicit search's keys)."""
    try:
        from rrcheck.checker.stateful.machine import hunt
    except ImportError:
        raise UsageError("rrcheck fuzz needs Hypothesis: pip install 'hypothesis>=6.100' (or -e '.[test]')")
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    system, workload = make_system(protocol, scenario, mutant, grouping)
    if sequential:
        system.bounds = dataclasses.replace(system.bounds, no_failure_during_recovery=True)
    props = properties_for(system, protocol, properties)
    judge = Judge(system, props, failure_free(workload).finals)
    result, tally = hunt(system, judge, profile, examples, seed, progress, shrink, visited)
    path = save_counterexample(out, protocol, mutant, scenario, system, workload, props, result, ".fuzz.json")
    return Fuzz(protocol, mutant, scenario, result, path, profile=profile, seed=seed, sequential=sequential,
                examples=tally.examples, found_after=tally.found_after, found_seconds=tally.found_seconds,
                narrowed=tally.narrowed, runs_with=dict(tally.runs_with), allowed=failure_kinds(system))
