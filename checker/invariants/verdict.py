"""The verdict of a run, whatever engine made it: its :class:`Result` (pass,
violation or incomplete, with the counts and witnesses the :class:`Judge` kept)
and a :class:`Check` (a protocol or mutant on a scenario: as expected? vacuous?)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rrcheck.checker.invariants.general import Violation
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS


@dataclass
class Result:
    verdict: str                       # pass | violation | incomplete
    states: int
    transitions: int
    depth: int
    seconds: float
    witnesses: dict
    strategy: str
    violation: Violation | None = None
    trace: list = field(default_factory=list)
    reason: str = ""                   # why a run is incomplete
    collision_probability: float | None = None  # a search over 64-bit fingerprints: the birthday bound

    @property
    def states_per_s(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else float(self.states)

    def as_dict(self) -> dict:
        v = self.violation
        return {"verdict": self.verdict, "property": v.property if v else None,
                "message": v.message if v else None, "values": v.values if v else None,
                "states": self.states, "transitions": self.transitions, "depth": self.depth,
                "seconds": round(self.seconds, 3), "states_per_s": round(self.states_per_s),
                "strategy": self.strategy, "witnesses": dict(sorted(self.witnesses.items())),
                "trace_length": len(self.trace), "incomplete_reason": self.reason or None,
                "fingerprint_collision_probability": self.collision_probability}


@dataclass
class Check:
    protocol: str
    mutant: str | None
    scenario: Scenario
    result: Result
    counterexample: Path | None = None
    sets_of_one: bool = False  # every correlated set a single process: Theorem1 has nothing to check

    @property
    def expected(self) -> bool:
        """A correct protocol passes; a mutant is caught by its primary property."""
        if self.mutant is None:
            return self.result.verdict == "pass"
        v = self.result.violation
        return v is not None and v.property == MUTANTS[self.mutant].primary

    @property
    def surprise(self) -> str | None:
        """A mutant caught, but by another property than its primary one: the
        bug is found, yet the checker behaves differently than recorded (a
        property weakened or switched off, a search order changed)."""
        v = self.result.violation
        if self.mutant is None or v is None or self.expected:
            return None
        m = MUTANTS[self.mutant]
        how = "one of its other catchers" if v.property in m.catches else "not among its catchers"
        return f"caught by {v.property} ({how}), not by its primary {m.primary}"

    @property
    def vacuous(self) -> str | None:
        """Why a pass exercised nothing, or None."""
        return vacuity(self.protocol, self.scenario, self.result, self.sets_of_one)

    def as_dict(self) -> dict:
        d = {"protocol": self.protocol, "mutant": self.mutant, "scenario": self.scenario.label(),
             **self.result.as_dict(),
             "counterexample": str(self.counterexample) if self.counterexample else None}
        if self.result.verdict == "pass":
            d["vacuous"] = self.vacuous is not None
            d["vacuous_reason"] = self.vacuous
        if self.mutant:
            d["caught"] = self.expected
            d["primary"] = MUTANTS[self.mutant].primary
            d["surprise"] = self.surprise
        return d


# The coverage witnesses (docs/design.md §5): each kind of failure and when it struck, and
# the recovery the failures drove. The Judge counts them for every engine (recoveries
# completed only along a run: Judge.along_a_run); a random engine is held to them, and the
# stateful one also counts the runs in which each occurred.
FAILURE_KINDS = ("process_crashes", "node_crashes", "crashes_after_a_checkpoint", "crashes_during_a_recovery",
                 "second_failures")
COVERAGE = FAILURE_KINDS + ("rollbacks", "rollbacks_to_a_checkpoint", "replays", "recoveries_completed",
                            "terminal_states_after_failure")


def failure_kinds(system) -> tuple[str, ...]:
    """The kinds of failure the bounds of ``system`` allow, and the moments: a node
    crash where one can take more than a process crash does (or no process crash is
    allowed), a crash after a checkpoint where checkpoints are, a second failure and
    (unless failures wait for the end of a recovery) a crash during a recovery where
    two failures are."""
    b = system.bounds
    if not b.failures:
        return ()
    kinds = []
    if "process" in b.crash_kinds:
        kinds.append("process_crashes")
    if "node" in b.crash_kinds and (system.victims_per_failure > 1 or "process" not in b.crash_kinds):
        kinds.append("node_crashes")
    if b.checkpoints:
        kinds.append("crashes_after_a_checkpoint")
    if b.failures >= 2:
        kinds.append("second_failures")
        if not b.no_failure_during_recovery:
            kinds.append("crashes_during_a_recovery")
    return tuple(kinds)


def vacuity(protocol: str, scenario: Scenario, result: Result, sets_of_one: bool = False) -> str | None:
    """A pass proves something only if recovery was exercised: say what was not.
    Theorem1 is about intra-set messages: with sets of one process (sender-based
    logging, Bouteiller et al. Fig. 1) it does not apply, which is no vacuity."""
    if result.verdict != "pass":
        return None
    w = result.witnesses
    why = []
    if scenario.failures == 0:
        why.append("no failure allowed (--failures 0): recovery never exercised")
    elif w.get("crashes", 0) + w.get("node_crashes", 0) == 0:
        why.append("no crash happened")
    elif w.get("rollbacks", 0) == 0:
        why.append("no process rolled back")
    elif w.get("terminal_states_after_failure", 0) == 0:
        why.append("no run with a failure reached its end (FailureFreeEquivalence never applied)")
    if scenario.checkpoints > 0 and w.get("checkpoints", 0) == 0:
        why.append(f"a bound of {scenario.checkpoints} checkpoint(s) but no checkpoint taken")
    elif scenario.checkpoints > 0 and w.get("rollbacks", 0) and w.get("rollbacks_to_a_checkpoint", 0) == 0:
        why.append("checkpoints taken, but every rollback went back to the start (no checkpoint was ever restored)")
    if scenario.checkpoints > 1 and w.get("checkpoints", 0) and w.get("every_process_at_the_checkpoint_bound", 0) == 0:
        why.append(f"a bound of {scenario.checkpoints} checkpoints per process, but in no run did every process take "
                   "them all (the last line was never built)")
    if w.get("survivor_rollbacks", 0) and PROTOCOLS[protocol].RECOVERY_BOUND \
            and w.get("rollbacks_for_a_restart_heard", 0) == 0:
        why.append("survivors rolled back, but never for a restart they had not heard of (RecoveryBound idle)")
    if protocol == "correlated-set" and scenario.failures and not sets_of_one \
            and w.get("theorem1_lines_checked", 0) == 0:
        why.append("Theorem1 never checked a recovery line (no rollback of a set with an internal message)")
    return "; ".join(why) or None
