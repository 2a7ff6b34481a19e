"""The Z3 lemmas (rrcheck.checker.symbolic): each is proved for any N; each
mutant's transition relation yields a counterexample to induction that the
explicit explorer confirms; each lemma's Python twin holds on every state the
explorer reaches in the correct protocol and fails for the mutant. (The proofs
and the Z3-side CTIs are in test_lemma_proofs.py, outside the guard.)"""
from __future__ import annotations

import json

import pytest

from rrcheck.checker import symbolic
from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
from rrcheck.checker.symbolic import core, reach
from rrcheck.cli import main
from rrcheck.protocols.mutants import MUTANTS

PAIRS = [(n, m) for n, mod in symbolic.LEMMAS.items() for m in mod.MUTANTS]


@pytest.mark.parametrize("name", list(symbolic.LEMMAS))
def test_invariants_symbolic_correct_has_no_short_violation(name):
    """Bounded model checking of the correct relation from Init finds nothing
    (a sanity check of the encoding beside the proof)."""
    assert core.bmc(symbolic.build(name), max_depth=4, max_universe=4) is None


@pytest.mark.parametrize("name,mutant", PAIRS)
def test_invariants_symbolic_twin_fails_for_mutant(name, mutant):
    mod = symbolic.module(name)
    protocol, sc = symbolic.scenario_for(name, mutant)
    r = reach.search(protocol, sc, mod.twin, mutant)
    assert r.violated, r.as_dict()
    assert r.trace


# each lemma's first scenario by default, the others with -m slow
TWIN_SCENARIOS = [pytest.param(n, sc, id=f"{n}-{sc.label()}", marks=() if i == 0 else pytest.mark.slow)
                  for n, mod in symbolic.LEMMAS.items() for i, sc in enumerate(mod.SCENARIOS)]


@pytest.mark.parametrize("name,sc", TWIN_SCENARIOS)
def test_invariants_symbolic_twin_holds_on_correct_protocol(name, sc):
    mod = symbolic.module(name)
    for protocol in getattr(mod, "PROTOCOLS", (mod.PROTOCOL,)):
        r = reach.search(protocol, sc, mod.twin)
        assert not r.violated, r.as_dict()
        assert r.complete, r.as_dict()
        assert any(v > 0 for v in r.witnesses.values()), "the twin judged nothing"


def test_invariants_symbolic_mutant_knob_matches_python():
    """A lemma's knobs are the Python protocol's knob names."""
    for name, mod in symbolic.LEMMAS.items():
        for m in mod.MUTANTS:
            assert (set(MUTANTS[m].knobs) | {MUTANTS[m].extra.get("assumption")}) & set(mod.KNOBS), (name, m)
            assert m in MUTANT_SCENARIOS


def test_cli_prove_errors(capsys):
    assert main(["prove", "no-such-lemma"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rrcheck: unknown lemma") and err.count("\n") == 1


def test_cli_prove_mutant_saves_cti(tmp_path, capsys):
    name, mutant = PAIRS[0]
    assert main(["prove", name, "--mutant", mutant, "--out", str(tmp_path / "o")]) == 1
    text = capsys.readouterr().out
    assert "counterexample to induction" in text and "verdict: real bug" in text
    saved = json.loads(next((tmp_path / "o").iterdir()).read_text())
    assert saved["lemma"] == name and saved["mutant"] == mutant and saved["verdict"] == "real bug"


def _without(lemma, action, pick):
    """The lemma with one guard of ``action`` removed (the one ``pick`` selects)."""
    import dataclasses

    def formula(*args, f=next(a for a in lemma.actions if a.name == action).formula):
        out = list(f(*args))
        drop = [i for i, x in enumerate(out) if pick(str(x))]
        assert len(drop) == 1, drop
        return out[:drop[0]] + out[drop[0] + 1:]
    acts = tuple(dataclasses.replace(a, formula=formula) if a.name == action else a for a in lemma.actions)
    return dataclasses.replace(lemma, actions=acts)


# one rule per lemma, as the relation writes it: (lemma, action, the guard's formula)
GUARDS = [("theorem1", "token", lambda s: "arrived" in s and "bt" in s),
          ("chandy-lamport", "marker", lambda s: "arrived" in s and "bm" in s),
          ("phases", "release", lambda s: "old" in s and "le(" in s),
          ("replay", "recv", lambda s: s.startswith("Or(") and "logged" in s),
          ("pessimism", "send", lambda s: "conf" in s),
          ("hmpl", "erase", lambda s: s.startswith("eraseq") and "ForAll" not in s),
          ("log-end", "ready", lambda s: "hck" in s and "arrived" in s)]


def test_invariants_symbolic_proofs_need_their_guards():
    """The proofs rest on the rules they are about, one per lemma, changed on the
    Z3 side only: without the FIFO guard of a token (Theorem 1's drain) or a
    marker (Chandy–Lamport), the release rule of the restart process (Fig. 6
    line 20), the replay order (a logged reception only at its position), the
    pessimistic block (no send before the receptions are logged), the erase
    request (t7 only after t6), or Ready_to_stop_logging's wait for the late
    messages, each fails with a CTI at that action."""
    cases = [(symbolic.build(name), action, pick) for name, action, pick in GUARDS]
    assert {lemma.name for lemma, _, _ in cases} == set(symbolic.LEMMAS)
    for lemma, action, pick in cases:
        o = core.check(_without(lemma, action, pick))
        assert not o.proved, lemma.name
        assert o.cti.action == action, o.cti


def test_invariants_cti_of_a_relation_the_protocol_lacks_says_they_disagree():
    """Issue 37: a rule dropped from the Z3 relation alone, the Python protocol
    left as it is. Without chandy-lamport's FIFO rule at a delivery, the CTI's
    pre-state is reachable, but the protocol never breaks the conjunct from it
    (it holds on every state); without theorem1's silence at a send, the
    relation breaks Theorem 1 from Init while the protocol never reaches the
    pre-state. Neither is a real bug nor a missing strengthening."""
    from rrcheck.checker.symbolic.render import cti_table
    cases = [("chandy-lamport", "deliver", lambda s: "Implies" in s and "mk_rcvd" in s and "ForAll" not in s),
             ("theorem1", "send", lambda s: "stage" in s and "ForAll" not in s)]
    for name, action, pick in cases:
        o = symbolic.prove(name, lemma=_without(symbolic.build(name), action, pick), cpu_limit=60)
        assert not o.proved and o.cti.action == action, name
        assert o.cti.verdict == symbolic.DISAGREE, (name, o.cti.verdict, o.cti.projection, o.cti.explorer)
        assert "relation and protocol disagree" in cti_table(o.cti)
