"""The lemmas tied to the Python protocols step by step (checker/symbolic/refine.py):
every transition the explorer takes, projected, is a step of the proved relation;
and a rule changed on the Python side only, the relation left as proved, is caught
at the step that breaks it (issue 37: the twins and projections compare states,
so such a change passed them)."""
from __future__ import annotations

import pytest

from rrcheck.checker import symbolic
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic import refine

# (lemma, protocol, failure-free scenario, the lemma's actions its steps exercise): the
# projections read failure-free states (a crash is outside theorem1's and chandy-lamport's
# vocabulary; phases' and pessimism's restarts are not projected), so those actions only
REFINING = [
    ("theorem1", "correlated-set", Scenario("pingpong", 2, 1, failures=0),
     {"send", "deliver", "start", "token", "barrier1", "checkpoint", "barrier2"}),
    ("chandy-lamport", "chandy-lamport", Scenario("ring", 2, 2, failures=0), {"send", "initiate", "marker", "deliver"}),
    ("phases", "send-deterministic", Scenario("sd_phases", checkpoints=0, failures=0), {"send", "receive"}),
    ("pessimism", "rbml", Scenario("pingpong", 2, 2, checkpoints=0, failures=0), {"send", "receive", "confirm"}),
    ("pessimism", "sbml", Scenario("pingpong", 2, 2, checkpoints=0, failures=0), {"send", "receive", "confirm"}),
]


@pytest.mark.parametrize("name,protocol,sc,exercised", REFINING, ids=[f"{n}-{p}" for n, p, *_ in REFINING])
def test_invariants_every_python_step_is_a_step_of_the_lemma(name, protocol, sc, exercised):
    r = refine.check_steps(name, sc, protocol=protocol)
    assert r.refines, r.as_dict()
    assert r.complete and r.steps > 0 and r.stutters < r.steps
    matched = {a for combo in r.actions for a in combo.split("+")}
    assert matched == exercised, r.actions


MUTATED = [(n, m, sc) for n, p, sc, _ in REFINING for m in symbolic.module(n).MUTANTS
           if symbolic.MUTANTS[m].protocol == p]


@pytest.mark.parametrize("name,mutant,sc", MUTATED, ids=[m for _, m, _ in MUTATED])
def test_invariants_a_python_only_change_breaks_the_step_link(name, mutant, sc):
    """The mutant's knob on the Python protocol alone: the proof (of the relation
    as proved) still holds, and its twin may not see the change on this
    scenario, but the first step that uses the changed rule is no action of
    the relation."""
    r = refine.check_steps(name, sc, mutant=mutant)
    assert not r.refines, r.as_dict()
    assert r.unmatched["trace"] and r.unmatched["changes"]
    assert symbolic.prove(name, explore=False).proved  # the proof alone does not notice


def test_invariants_step_match_reads_stutters_and_refuses_the_impossible():
    """A step that changes nothing the lemma reads is a stutter; one that sends a
    message and receives it at once in chandy-lamport is two actions; one that
    unsends a message is none."""
    from rrcheck.checker.symbolic.project import Structure
    lemma = symbolic.build("chandy-lamport")
    P0, P1, m = ("P", 0), ("P", 1), ("m", 0, 1, 0)

    def st(**rows):
        base = {s.name: frozenset() for s in lemma.rigid + lemma.state}
        base |= {"src": frozenset({((m,), P0)}), "dst": frozenset({((m,), P1)})}
        base |= {k: frozenset({((m,), True)}) for k, v in rows.items() if v}
        return Structure({"proc": (P0, P1), "msg": (m,)}, base)

    blank, sent = st(), st(sent=True, pre=True, bm=True)
    arrived = st(sent=True, pre=True, bm=True, arrived=True, rpre=True)
    assert refine.match(lemma, sent, sent) == "stutter"
    assert refine.match(lemma, blank, sent) == "send"
    assert refine.match(lemma, blank, arrived) == "send+deliver"
    assert refine.match(lemma, sent, blank) is None
