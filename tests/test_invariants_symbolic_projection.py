"""The projections of checker/symbolic/project.py read the Python protocol's
states in each lemma's vocabulary: every projection of a reachable state of
the correct protocol satisfies the whole inductive invariant (so the Z3
relation over-approximates what the protocol does), the lemma's mutant reaches
projections that break a safety conjunct, and the mutant's counterexample to
induction is classified by reaching its pre-state."""
from __future__ import annotations

import pytest

from rrcheck.checker.model.scenarios import make_system
from rrcheck.checker.symbolic import LEMMAS, build, project, prove
from rrcheck.protocols.mutants import MUTANTS

PROJECTED = [n for n, m in LEMMAS.items() if hasattr(m, "project")]


class _Size:
    def __init__(self, n: int):
        self.universe = {"proc": [f"proc{i}" for i in range(n)]}


def _projections(mod, mutant, n: int, protocol: str | None = None) -> list:
    """Every projection of a reachable state: of the scenario a CTI of n processes
    would be searched in, or of the lemma's own failure-free SAMPLES."""
    protocol = protocol or (MUTANTS[mutant].protocol if mutant else mod.PROTOCOL)
    scenarios = (getattr(mod, "MUTANT_SAMPLES", {}).get(mutant) or getattr(mod, "SAMPLES", None)
                 or (mod.cti_scenario(_Size(n)),))
    out = set()
    for sc in scenarios:
        sysm, _ = make_system(protocol, sc, mutant)
        for _, p, _ in project.walk(mod, sysm):
            if p is not None:
                out.add((tuple(sorted(p.universe.items())), tuple(sorted(p.rows.items()))))
    return [project.Structure(dict(u), dict(r)) for u, r in out]


def test_invariants_projection_exists_for_every_lemma():
    assert set(LEMMAS) == set(PROJECTED)


@pytest.mark.parametrize("name,protocol", [(n, p) for n in PROJECTED
                                           for p in getattr(LEMMAS[n], "PROTOCOLS", (LEMMAS[n].PROTOCOL,))])
def test_invariants_projected_states_satisfy_the_inductive_invariant(name, protocol):
    mod, lemma = LEMMAS[name], build(name)
    projs = _projections(mod, None, 2, protocol)
    assert len(projs) >= 10  # non-vacuity: the flow and the messages vary
    bad = [(p, f) for p in projs for f in [project.failing_conjuncts(lemma, p)] if f]
    assert not bad, bad[0]


@pytest.mark.parametrize("name,mutant", [(n, m) for n in PROJECTED for m in LEMMAS[n].MUTANTS])
def test_invariants_mutant_cti_is_classified_by_its_pre_state(name, mutant):
    """A mutant's CTI is a real bug: its pre-state is reached and the protocol
    breaks the conjunct a few steps from it; hmpl/no-ssn-check's pre-state needs
    a crash (a re-sent message), which the failure-free projection never reads,
    but the relation breaks the lemma from Init and so does the protocol (its twin)."""
    mod = LEMMAS[name]
    lemma = build(name, mutant)
    # replay's axioms define which receptions are event-logged from the knob: the mutant's
    # first run is held to the lemma under the mutant's knob; an entry that drops an assumption
    # of the relation is held to the relation without it
    judge = build(name, mutant) if name == "replay" or MUTANTS[mutant].extra.get("assumption") else build(name)
    broken = {c for p in _projections(mod, mutant, 2) for c in project.failing_conjuncts(judge, p)}
    o = prove(name, mutant, cpu_limit=60)
    assert o.cti is not None and o.cti.projection["complete"] or o.cti.projection["pre_state_reached"]
    if mutant == "hmpl/no-ssn-check":
        assert not broken and not o.cti.projection["pre_state_reached"] and o.cti.execution
        assert o.cti.explorer["violated"] and o.cti.verdict == "real bug"  # the protocol fails after a crash
    else:
        # a re-sent message differs only after a rollback, outside replay's failure-free
        # projection; before it, the mutant's first run already breaks the logged prefix
        assert broken & ({"logged_prefix"} if name == "replay" else set(lemma.safety)), broken
        assert o.cti.projection["pre_state_reached"] and o.cti.verdict == "real bug"
        assert o.cti.projection["breaks_conjunct_after"]  # the protocol does what the CTI's action does
