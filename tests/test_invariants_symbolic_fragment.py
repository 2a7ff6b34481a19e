"""The decidable fragment of each lemma's queries, computed from the formulas
(checker/symbolic/fragment.py), not written by hand: small formulas whose
fragment is known by construction, and the seven lemmas as measured."""
from __future__ import annotations

import z3

from rrcheck.checker import symbolic
from rrcheck.checker.symbolic import fragment
from rrcheck.checker.symbolic.core import fragment_of

A, B = z3.DeclareSort("A"), z3.DeclareSort("B")
r = z3.Function("r", A, B, z3.BoolSort())
f = z3.Function("f", A, B)
g = z3.Function("g", B, A)
x, y = z3.Const("x", A), z3.Const("y", B)


def test_invariants_fragment_of_known_formulas():
    assert fragment.of([z3.Exists([x], z3.ForAll([y], r(x, y)))]).name == fragment.EPR
    # ∀∃ asserted: a Skolem function A → B; the same formula negated is ∃∀, EPR again
    forall_exists = z3.ForAll([x], z3.Exists([y], r(x, y)))
    assert fragment.of([forall_exists]).edges == {("A", "B"): {"Skolem ∃B under ∀A"}}
    assert fragment.of([z3.Not(forall_exists)]).name == fragment.EPR
    assert fragment.of([z3.Implies(forall_exists, r(x, y))]).name == fragment.EPR  # a hypothesis: ∃∀
    assert fragment.of([forall_exists == r(x, y)]).name == fragment.STRATIFIED  # under an iff: both ways
    assert fragment.of([z3.ForAll([x], r(x, f(x)))]).name == fragment.STRATIFIED
    # a declared function one way and a Skolem function back: a cycle
    both = fragment.of([z3.ForAll([y], r(g(y), y)), forall_exists])
    assert both.name == fragment.OUTSIDE and both.cycle in (("A", "B", "A"), ("B", "A", "B"))
    assert "outside the decidable fragment" in both.line() and "g" in both.line()


def test_invariants_fragment_of_every_lemma():
    """Six lemmas decidable, replay outside (its Skolem function proc × pos → msg
    and src: msg → proc), as docs/prove.md says; printed with the proof."""
    got = {n: fragment_of(symbolic.build(n)) for n in symbolic.LEMMAS}
    assert {n: fr.name for n, fr in got.items()} == {
        "theorem1": "stratified", "replay": "outside", "phases": "stratified", "pessimism": "stratified",
        "hmpl": "EPR", "log-end": "stratified", "chandy-lamport": "stratified"}
    assert set(got["replay"].cycle) == {"msg", "proc"}
    assert got["pessimism"].edges.keys() == {("msg", "proc"), ("proc", "node")}
