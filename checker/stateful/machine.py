"""Stateful Hypothesis engine (docs/design.md §5): any :class:`rrcheck.checker.model.system.System`
as a ``RuleBasedStateMachine`` — its scheduler events as rules, the invariants
of :mod:`rrcheck.checker.invariants` as ``@invariant``s, termination judged at the end
of every run — for configurations too large to enumerate.

Like checker/explicit/explore.py it knows no protocol: it asks the system for enabled
actions and successors and the :class:`~rrcheck.checker.invariants.Judge` for verdicts.

- One rule per event kind (application step, match, choice, delivery, protocol
  step, collective, collective from a log, crash, node crash, restart), enabled when the model enables an event of
  that kind; its argument picks which one. Hypothesis switches a random subset
  of rules off for each run (its feature flags, after Groce et al., "Swarm
  testing", ISSTA 2012), so each run draws from a random subset of event kinds:
  runs without deliveries, say, let protocol steps and crashes pile up.
- Each run first draws a failure plan (crashes that strike after a drawn number
  of events, whatever rules run) and the seed of a scheduler that the ``settle``
  rule follows, and that finishes the run when Hypothesis stops choosing (about
  the length of a failure-free run, :func:`run_length`). The finished run is
  judged at its terminal state, as the explorer judges every terminal state:
  Termination, FailureFreeEquivalence, NoOrphan and NoDuplicateDelivery are
  end-of-run properties.
- Each run counts what it covered: the coverage witnesses of the Judge
  (:data:`rrcheck.checker.invariants.verdict.COVERAGE`: each kind of failure and when
  it struck, rollbacks to a checkpoint, replays, recoveries completed) and, per
  campaign, the runs in which each rose (:attr:`Tally.runs_with`); ``rrcheck fuzz``
  reports them, and the stateful tests require each one the scenario allows.
- A violation raises :class:`Violated` carrying the events that led to it; one
  subclass per property, so the shrinker (which keeps the exception's type)
  keeps the property while it shortens the run. The shrunk events are a
  counterexample that ``rrcheck replay`` re-executes.
"""
from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, seed as hseed, settings, strategies as st
from hypothesis.errors import InvalidDefinition
from hypothesis.internal.conjecture import engine as _engine, providers as _providers
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition, rule,
                                 run_state_machine_as_test)

from rrcheck.checker.invariants.verdict import COVERAGE, Result
from rrcheck.checker.model.system import CRASHES
from rrcheck.checker.invariants import Judge, Violation

# settings profiles: `ci` keeps every test of tests/test_invariants_stateful.py
# to seconds; `deep` is for a search that may take minutes.
_COMMON = dict(deadline=None, database=None, derandomize=False, report_multiple_bugs=False,
               suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
               phases=(Phase.explicit, Phase.generate, Phase.shrink))
settings.register_profile("ci", max_examples=1000, stateful_step_count=100, **_COMMON)
settings.register_profile("deep", max_examples=5000, stateful_step_count=400, **_COMMON)
PROFILES = ("ci", "deep")  # checker/stateful/fuzz.py offers them without importing Hypothesis
SHRINK_SECONDS = {"ci": 5, "deep": 120}  # Hypothesis's own cap is 300 s

CHOICE = st.integers(min_value=0, max_value=255)  # which enabled event of a kind; shrinks to the first

# Tests only: rules weakened, to show that the coverage witnesses notice an engine that
# quietly stopped generating something. A rule's name (Run's, "settle" included) -> when,
# within each run, it stops: "after its first use" or "after the first checkpoint". The
# events of a weakened rule's kind are then withheld from every part of the machine (its
# rule, the seeded scheduler, the planned failures, the end of the run).
WEAKENED: dict[str, str] = {}
WHEN = ("after its first use", "after the first checkpoint")


class Violated(AssertionError):
    """A property broke in a Hypothesis run."""

    def __init__(self, violation: Violation, trace: list[tuple]):
        super().__init__(f"{violation.property}: {violation.message}")
        self.violation = violation
        self.trace = trace


_VIOLATED: dict[str, type[Violated]] = {}


def _violated(v: Violation, trace: list[tuple]) -> Violated:
    cls = _VIOLATED.get(v.property)
    if cls is None:
        cls = _VIOLATED[v.property] = type(f"{v.property}Violated", (Violated,), {})
    return cls(v, list(trace))


@dataclass
class Tally:
    """What one fuzz campaign saw, across all its runs (examples)."""

    examples: int = 0
    seen: set = field(default_factory=set)     # hashes of the distinct states visited
    max_depth: int = 0
    found_after: int | None = None             # examples run when the first violation appeared
    first: tuple | None = None                 # (violation, events) of that run
    found_seconds: float | None = None
    narrowed: int = 0  # runs in which Hypothesis never chose some kind of event that was enabled
    runs_with: dict = field(default_factory=lambda: dict.fromkeys(COVERAGE, 0))  # runs in which each witness rose
    visited: set | None = None  # every state visited, when a caller asks (the same keys as the explicit search's)
    t0: float = field(default_factory=time.perf_counter)
    progress: bool = False
    _last: float = 0.0

    def tick(self) -> None:
        if not self.progress:
            return
        now = time.perf_counter()
        if now - self.t0 < 2.0 or now - self._last < 0.5:
            return
        self._last = now
        what = "shrinking" if self.found_after is not None else "searching"
        sys.stderr.write(f"\r  {self.examples:>7,} examples  {len(self.seen):>10,} states  "
                         f"{self.examples / (now - self.t0):>6,.0f} examples/s  {what}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.progress and time.perf_counter() - self.t0 >= 2.0:
            sys.stderr.write("\r" + " " * 78 + "\r")
            sys.stderr.flush()


def machine(system, judge: Judge, tally: Tally | None = None) -> type[RuleBasedStateMachine]:
    """The Hypothesis state machine of one scenario: rules are the model's
    scheduler events, invariants the judge's properties."""
    tally = tally if tally is not None else Tally()
    depth = system.bounds.depth
    # a failure plan: up to the failure budget of (when, which) pairs, "when"
    # counted in moments where a crash makes a difference (see _moment), up to
    # the length of a failure-free run
    strikes = st.lists(st.tuples(st.integers(min_value=0, max_value=run_length(system)), CHOICE),
                       max_size=system.bounds.failures)

    class Run(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.s = system.initial()
            self.trace: list[tuple] = []
            self.failed = False
            self._acts: list[tuple] | None = None
            self._judged = None          # the last state judge.state saw
            self._terminal_judged = None
            self.strikes: list[tuple[int, int]] = []
            self.moments = 0  # events after which a planned crash could strike
            self.tail = random.Random(0)  # the seeded scheduler of settle and teardown (reseeded by the plan)
            self.offered: set[str] = set()  # kinds of event enabled at some point of the run
            self.taken: set[str] = set()    # kinds Hypothesis chose
            self._w0 = [judge.w[k] for k in COVERAGE]  # the coverage witnesses before this run
            self.used: set[str] = set()     # kinds of event this run took (WEAKENED only)
            self.checkpointed = False       # a checkpoint was taken in this run (WEAKENED only)
            tally.examples += 1
            tally.seen.add(hash(self.s))
            if tally.visited is not None:
                tally.visited.add(self.s)
            tally.tick()

        # -- the model's view ---------------------------------------------------
        def enabled(self, kind: str | None = None) -> list[tuple]:
            if self._acts is None:
                self._acts = system.actions(self.s)
                if WEAKENED:
                    self._acts = self._withhold(self._acts)
                self.offered.update(a[0] for a in self._acts)
            return self._acts if kind is None else [a for a in self._acts if a[0] == kind]

        def _weakened(self, rule: str) -> bool:
            when = WEAKENED.get(rule)
            return when is not None and (rule in self.used if when == WHEN[0] else self.checkpointed)

        def _withhold(self, acts: list[tuple]) -> list[tuple]:
            return [a for a in acts if not self._weakened(RULE_OF[a[0]])]

        def _take(self, kind: str, i: int) -> None:
            acts = self.enabled(kind)
            if not acts:
                return  # the run is over: an idle step
            self.taken.add(kind)
            self._do(acts[i % len(acts)])

        def _do(self, a: tuple) -> None:
            s = self.s
            s2, obs = system.step(s, a)
            self.trace.append(a)
            self.s, self._acts = s2, None
            tally.seen.add(hash(s2))
            if tally.visited is not None:
                tally.visited.add(s2)
            if WEAKENED:
                self.used.add(RULE_OF[a[0]])
                self.checkpointed = self.checkpointed or any(o[0] == "checkpoint" for o in obs)
            tally.max_depth = max(tally.max_depth, len(self.trace))
            self._check(judge.transition(s, a, s2, obs))
            judge.along_a_run(s, s2)
            self._check_state()
            if all(x[0] in CRASHES for x in self.enabled()):
                self._check_terminal()
            if self.strikes and a[0] not in CRASHES:
                self._moment(s, a, s2)

        def _moment(self, s, a: tuple, s2) -> None:
            """A crash right after ``a`` makes a difference only if it strikes
            the actor (or its node) after the actor did something others can
            see (:meth:`rrcheck.checker.model.system.System.crashes_after`, the explorer's
            reduction); with no failure during a recovery, after any event."""
            if system.bounds.no_failure_during_recovery:
                crashes = [x for x in self.enabled() if x[0] in CRASHES]
            else:
                crashes = system.crashes_after(s, a, s2)
                if WEAKENED:
                    crashes = self._withhold(crashes)
            if crashes:
                self.moments += 1
                if self.strikes[0][0] <= self.moments:
                    self._do(crashes[self.strikes.pop(0)[1] % len(crashes)])

        def _strike(self, i: int) -> None:
            crashes = [a for a in self.enabled() if a[0] in CRASHES]
            if crashes:
                self._do(crashes[i % len(crashes)])

        def _check(self, v: Violation | None) -> None:
            if v is not None:
                self.failed = True
                if tally.found_after is None:
                    tally.found_after = tally.examples
                    tally.found_seconds = time.perf_counter() - tally.t0
                    tally.first = (v, list(self.trace))
                raise _violated(v, self.trace)

        def _check_state(self) -> None:
            if self._judged is not self.s:
                self._judged = self.s
                self._check(judge.state(self.s))

        def _check_terminal(self) -> None:
            if self._terminal_judged is not self.s:
                self._terminal_judged = self.s
                self._check(judge.terminal(self.s))

        @initialize(plan=strikes, tail=st.integers(min_value=0, max_value=2**32 - 1))
        def plan_failures(self, plan, tail):
            """Failures that strike at a drawn moment, whatever rules run, the
            seeded scheduler's included; and that scheduler's seed. The crash rules alone
            would put most failures early (every valid rule is equally likely)
            and none in the runs whose swarm switches them off."""
            self.strikes = sorted(plan)
            self.tail = random.Random(tail)
            if self.strikes and self.strikes[0][0] == 0:
                self._strike(self.strikes.pop(0)[1])

        def settling(self) -> list[tuple]:
            return [a for a in self.enabled() if a[0] not in CRASHES]

        def offers(self, kind: str) -> bool:
            """The rule of ``kind`` is valid: an event of that kind is enabled,
            or the run is over (nothing but crashes enabled) and every rule
            without an event is an idle step. (Were only one rule valid then,
            Hypothesis would throw away every run whose swarm switched that
            rule off.)"""
            return bool(self.enabled(kind)) or not self.settling()

        # -- the scheduler events, one rule per kind ------------------------------
        @precondition(lambda self: self.offers("step"))
        @rule(i=CHOICE)
        def app_step(self, i):
            """A process sends, or passes a checkpoint site."""
            self._take("step", i)

        @precondition(lambda self: self.offers("recv"))
        @rule(i=CHOICE)
        def match(self, i):
            """A process's receive matches a message in its queue."""
            self._take("recv", i)

        @precondition(lambda self: self.offers("choose"))
        @rule(i=CHOICE)
        def choose(self, i):
            """A process makes a non-deterministic choice."""
            self._take("choose", i)

        @precondition(lambda self: self.offers("deliver"))
        @rule(i=CHOICE)
        def deliver(self, i):
            """A packet arrives."""
            self._take("deliver", i)

        @precondition(lambda self: self.offers("internal"))
        @rule(i=CHOICE)
        def protocol_step(self, i):
            """A protocol-internal step: a checkpoint, a control message, a log write."""
            self._take("internal", i)

        @precondition(lambda self: self.offers("coll_all"))
        @rule(i=CHOICE)
        def collective(self, i):
            """Every process is at the same collective call, and it completes."""
            self._take("coll_all", i)

        @precondition(lambda self: self.offers("coll"))
        @rule(i=CHOICE)
        def collective_from_log(self, i):
            """A recovering process completes a collective alone, from its log."""
            self._take("coll", i)

        @precondition(lambda self: self.offers("crash"))
        @rule(i=CHOICE)
        def crash(self, i):
            """A process crashes (within the failure budget)."""
            self._take("crash", i)

        @precondition(lambda self: self.offers("crash_node"))
        @rule(i=CHOICE)
        def crash_node(self, i):
            """A node crashes with every process on it."""
            self._take("crash_node", i)

        @precondition(lambda self: self.offers("restart"))
        @rule(i=CHOICE)
        def restart(self, i):
            """A crashed process restarts from stable storage."""
            self._take("restart", i)

        @rule()
        def settle(self):
            """The seeded scheduler's next event: one of the enabled events
            that are not crashes (the run's end is judged when it gets there)."""
            acts = self.settling()
            if acts and not (WEAKENED and self._weakened("settle")):
                self._do(self.tail.choice(acts))
                if WEAKENED:
                    self.used.add("settle")

        # -- the properties ---------------------------------------------------------
        @invariant()
        def state_properties(self):
            """NoLostMessage, NoOrphan and the protocol's own state properties."""
            self._check_state()

        def teardown(self):
            """Finish the run with the seeded scheduler (and the planned
            failures), then judge its terminal state; count what it covered."""
            try:
                if self.failed:
                    return
                if self.offered - self.taken:
                    tally.narrowed += 1
                while len(self.trace) < depth:
                    acts = self.settling()
                    if not acts:
                        self._check_terminal()
                        return
                    self._do(self.tail.choice(acts))
            finally:
                for k, before in zip(COVERAGE, self._w0):
                    if judge.w[k] > before:
                        tally.runs_with[k] += 1

    Run.__name__ = Run.__qualname__ = f"Run_{system.protocol.name}_{system.workload.name}".replace("-", "_")
    return Run


# the rule of each kind of event (WEAKENED names rules)
RULE_OF = {"step": "app_step", "recv": "match", "choose": "choose", "deliver": "deliver",
           "internal": "protocol_step", "coll_all": "collective", "coll": "collective_from_log",
           "crash": "crash", "crash_node": "crash_node", "restart": "restart"}


def run_length(system) -> int:
    """The number of events of one failure-free run (the first enabled event at each step)."""
    s, n = system.initial(), 0
    while n < system.bounds.depth:
        acts = [a for a in system.actions(s) if a[0] not in CRASHES]
        if not acts:
            break
        s, _ = system.step(s, acts[0])
        n += 1
    return n


def _index_constants():
    return _providers.Constants(integers=set(range(4)))


def hunt(system, judge: Judge, profile: str = "ci", examples: int | None = None, seed: int = 0,
         progress: bool | None = None, shrink: bool = True, visited: set | None = None) -> tuple[Result, Tally]:
    """Run the state machine of ``system`` under a settings profile; the
    result has the fields of an explicit search's, with the shrunk run (or,
    without ``shrink``, the first failing run) as its trace. ``visited``, if
    given, receives every state a run visited."""
    tally = Tally(progress=sys.stderr.isatty() if progress is None else progress, visited=visited)
    base = settings.get_profile(profile)
    # Hypothesis chooses about a failure-free run's worth of events and the
    # seeded scheduler finishes the run: more steps would mostly be idle ones
    # once the run has ended, and they cost most of the shrinking time
    steps = min(base.stateful_step_count, run_length(system) + 4)
    cfg = settings(base, stateful_step_count=steps, **({"max_examples": examples} if examples else {}),
                   **({} if shrink else {"phases": tuple(p for p in base.phases if p != Phase.shrink)}))
    factory = hseed(seed)(machine(system, judge, tally))
    violation, trace = None, []
    # Hypothesis has no setting for the time spent shrinking; this module
    # constant is read when shrinking starts (hypothesis/internal/conjecture/engine.py).
    cap, _engine.MAX_SHRINKING_SECONDS = _engine.MAX_SHRINKING_SECONDS, SHRINK_SECONDS.get(profile, 300)
    # Hypothesis also draws integers from the constants of every local module loaded
    # (hypothesis/internal/conjecture/providers.py): a run would then depend on what else
    # the process imported, not on --seed alone. The choices here are indices into the
    # enabled events, so the pool is the indices of the first four (default scenarios have at
    # most four processes), the same in every process.
    local, _providers._get_local_constants = _providers._get_local_constants, _index_constants
    _providers.CONSTANTS_CACHE.cache.clear()
    try:
        run_state_machine_as_test(factory, settings=cfg)
    except Violated as e:
        violation, trace = e.violation, e.trace
    except InvalidDefinition as e:  # pragma: no cover - a bug of this module
        raise AssertionError(f"state machine ill-formed: {e}")
    finally:
        _engine.MAX_SHRINKING_SECONDS = cap
        _providers._get_local_constants = local
        _providers.CONSTANTS_CACHE.cache.clear()
        tally.close()
    if violation is None and tally.first is not None:
        # Hypothesis ended without raising although a run broke a property (its replay of the
        # choices did not fail again): the run itself is a counterexample, unshrunk
        violation, trace = tally.first
    seconds = time.perf_counter() - tally.t0
    result = Result("violation" if violation else "pass", len(tally.seen), judge.w["transitions"],
                    tally.max_depth, seconds, dict(judge.w), "hypothesis", violation, trace)
    return result, tally
