"""The Z3 lemmas proved for any number of processes, and each mutant's relation
breaking its lemma with a counterexample to induction and an execution from Init.

Outside the guard (`pytest -k invariants`): these read the Z3 relations alone, which
no change to a Python protocol touches. What ties a lemma to its protocol, the Python
twins and the step links, is in the guard (test_invariants_symbolic*.py)."""
from __future__ import annotations

import json

import pytest

from rrcheck.checker import symbolic
from rrcheck.checker.symbolic import core
from rrcheck.cli import main

PAIRS = [(n, m) for n, mod in symbolic.LEMMAS.items() for m in mod.MUTANTS]


@pytest.mark.parametrize("name", list(symbolic.LEMMAS))
def test_lemma_proved_for_any_number_of_processes(name, tmp_path, capsys):
    """`rrcheck prove LEMMA`: proved, with one query per conjunct for the
    initial condition and for every action."""
    assert main(["prove", name, "--no-steps", "--json", "--out", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    (o,) = out["lemmas"]
    lemma = symbolic.build(name)
    assert out["proved"] and o["lemma"] == name and o["proved"] and o["cti"] is None, o
    assert o["queries"] == (1 + len(lemma.actions)) * len(lemma.conjuncts), o


@pytest.mark.parametrize("name,mutant", PAIRS)
def test_lemma_broken_by_its_mutants_relation(name, mutant):
    """The mutant's knob breaks the proof (a CTI), and Z3 finds an execution
    from Init of the mutant's transition relation that violates a safety
    conjunct of the lemma."""
    o = symbolic.prove(name, mutant, explore=False)
    assert not o.proved
    lemma = symbolic.build(name, mutant)
    assert o.cti.conjunct in [c for c, _ in lemma.conjuncts]
    assert sum(len(v) for v in o.cti.universe.values()) <= core.MAX_UNIVERSE
    ex = o.cti.execution
    assert ex is not None and ex["violates"] and set(ex["violates"]) <= set(lemma.safety)
    assert ex["steps"][0]["action"] is None and len(ex["steps"]) >= 2
