"""Every mutant is caught, by its primary property, with a counterexample
file that replays; every property catches some mutant when it alone is
checked; and switching any property off is noticed by the guard."""
import pytest

from rrcheck.checker import invariants
from rrcheck.checker.traces import counterexample as T
from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
from rrcheck.protocols.mutants import MUTANTS

# both tests of a mutant on one worker, so the session's memo explores its scenario once
BY_MUTANT = [pytest.param(n, marks=pytest.mark.xdist_group(f"mutant:{n}"), id=n) for n in sorted(MUTANTS)]

@pytest.mark.parametrize("name", BY_MUTANT)
def test_invariants_mutant_caught_and_replays(checked, name):
    m = MUTANTS[name]
    c = checked(m.protocol, MUTANT_SCENARIOS[name], name)
    r = c.result
    assert r.verdict == "violation", f"{name} not caught"
    assert r.violation.property == m.primary, c.surprise
    cx = T.load(c.counterexample)
    rep = T.replay(cx)
    assert rep.violation is not None and rep.violation.property == r.violation.property


# one mutant for each property, caught with only that property checked
BY_PROPERTY = {
    "NoLostMessage": "correlated-set/no-external-payload-copy",
    "NoDuplicateDelivery": "sbml/no-duplicate-suppression",
    "NoOrphan": "sbml/no-event-logging",
    "FailureFreeEquivalence": "sbml/no-event-logging",
    "Termination": "chandy-lamport/no-channel-recording",
    "RollbackScope": "correlated-set/global-rollback",
    "Theorem1": "correlated-set/no-internal-silence",
    "NoInTransitInGroup": "chandy-lamport/no-channel-recording",
}


@pytest.mark.parametrize("prop", sorted(BY_PROPERTY))
def test_invariants_each_property_catches_a_mutant_alone(checked, prop):
    name = BY_PROPERTY[prop]
    r = checked(MUTANTS[name].protocol, MUTANT_SCENARIOS[name], name, properties=(prop,)).result
    assert r.verdict == "violation" and r.violation.property == prop


@pytest.mark.parametrize("name", BY_MUTANT)
def test_invariants_reductions_keep_the_verdict(checked, name):
    """The reductions of checker/model/system.py reach the same verdict as the full
    interleaving semantics (a search stopped at its first violation says
    nothing about state counts: test_invariants_reductions_keep_terminal_states
    compares those)."""
    m = MUTANTS[name]
    sc = MUTANT_SCENARIOS[name]
    full = checked(m.protocol, sc, name, reduce=False).result
    red = checked(m.protocol, sc, name).result
    assert full.verdict == red.verdict == "violation"
    assert red.violation.property in m.catches and full.violation.property in m.catches


@pytest.mark.parametrize("strategy", ["dfs"])
def test_invariants_other_strategies_catch_theorem2(strategy):
    """Depth-first search finds Theorem 2's execution (Fig. 2) too. (A thousand
    seeded random walks do not: the orphan needs the crash of P2 between m5's
    send and its delivery and the replay of m4 first, too narrow a path.)"""
    from rrcheck.checker.explicit.check import run_check
    name = "correlated-set/no-internal-event-logging"
    c = run_check("correlated-set", MUTANT_SCENARIOS[name], name, strategy=strategy, seed=7)
    assert c.result.verdict == "violation" and c.result.violation.property in MUTANTS[name].catches
    assert c.result.strategy == strategy


def test_invariants_depth_bound_makes_search_incomplete():
    from rrcheck.checker.explicit.check import run_check
    from rrcheck.checker.model.scenarios import Scenario
    r = run_check("sbml", Scenario("ring", 2, 2, depth=3)).result
    assert r.verdict == "incomplete" and "depth" in r.reason


def _pinned(prop: str) -> list[str]:
    return sorted(n for n, m in MUTANTS.items() if m.primary == prop)


def test_invariants_every_property_is_some_mutant_s_primary():
    """With any property switched off, check --all would notice: some mutant
    has it as the first violation of its breadth-first search."""
    props = set(invariants.GENERAL) | set(invariants.OWN)
    assert {p for p in props if not _pinned(p)} == set()


@pytest.mark.parametrize("prop", [pytest.param(p, marks=pytest.mark.xdist_group(f"mutant:{(_pinned(p) or [p])[0]}"), id=p)
                                  for p in sorted(set(invariants.GENERAL) | set(invariants.OWN))])
def test_invariants_guard_notices_a_property_switched_off(monkeypatch, checked, prop):
    """With one property switched off in the judge (the test-only hook
    ``invariants.general.DISABLED``), a mutant it is the primary catcher of is no
    longer reported as expected: the row of ``rrcheck check --all`` turns
    SURPRISE or NOT CAUGHT, and so does this suite's
    test_invariants_mutant_caught_and_replays."""
    from rrcheck.checker.explicit.check import run_check
    name = _pinned(prop)[0]
    m = MUTANTS[name]
    on = checked(m.protocol, MUTANT_SCENARIOS[name], name)  # the run of test_invariants_mutant_caught_and_replays
    assert on.expected
    monkeypatch.setattr(invariants.general, "DISABLED", {prop})
    # twice the states the search needed with the property on: switched off, it must miss
    # the catch within them (an incomplete search is not "as expected" either, exit 3)
    c = run_check(m.protocol, MUTANT_SCENARIOS[name], name, max_states=2 * on.result.states)
    assert not c.expected
    v = c.result.violation
    assert v is None or v.property != prop
    if v is not None:
        assert c.surprise and prop in c.surprise
