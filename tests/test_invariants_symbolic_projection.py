"""The projections of checker/symbolic/project.py read the Python protocol's
states in each lemma's vocabulary: every projection of a reachable state of
the correct protocol satisfies the whole inductive invariant (so the Z3
relation over-approximates what the protocol does), the lemma's mutant reaches
projections that break a safety conjunct, and the mutant's counterexample to
induction is classified by reaching its pre-state."""
from __future__ import annotations

from collections import deque

import pytest

from rrcheck.checker.scenarios import make_system
from rrcheck.checker.symbolic import LEMMAS, build, project, prove

PROJECTED = [n for n, m in LEMMAS.items() if hasattr(m, "project")]


class _Size:
    def __init__(self, n: int):
        self.universe = {"proc": [f"proc{i}" for i in range(n)]}


def _projections(mod, mutant, n: int) -> list:
    sysm, _ = make_system(mod.PROTOCOL, mod.cti_scenario(_Size(n)), mutant)
    s0 = sysm.initial()
    seen, todo, out = {s0}, deque([s0]), set()
    while todo:
        s = todo.popleft()
        p = mod.project(sysm, s)
        if p is not None:
            out.add((tuple(sorted(p.universe.items())), tuple(sorted(p.rows.items()))))
        for a in sysm.actions(s):
            s2 = sysm.step(s, a)[0]
            if s2 not in seen:
                seen.add(s2)
                todo.append(s2)
    return [project.Structure(dict(u), dict(r)) for u, r in out]


def test_invariants_projection_exists_for_some_lemmas():
    assert {"theorem1", "chandy-lamport"} <= set(PROJECTED)


@pytest.mark.parametrize("name", PROJECTED)
def test_invariants_projected_states_satisfy_the_inductive_invariant(name):
    mod, lemma = LEMMAS[name], build(name)
    projs = _projections(mod, None, 2)
    assert len(projs) >= 20  # non-vacuity: the wave and the messages vary
    bad = [(p, f) for p in projs for f in [project.failing_conjuncts(lemma, p)] if f]
    assert not bad, bad[0]


@pytest.mark.parametrize("name", PROJECTED)
def test_invariants_mutant_projections_break_the_lemma_and_its_cti_is_reached(name):
    mod = LEMMAS[name]
    mutant = mod.MUTANTS[0]
    lemma = build(name, mutant)
    broken = {c for p in _projections(mod, mutant, 2) for c in project.failing_conjuncts(build(name), p)}
    assert broken & set(lemma.safety), broken
    o = prove(name, mutant, cpu_limit=60)
    assert o.cti is not None and o.cti.projection["pre_state_reached"] and o.cti.verdict == "real bug"
