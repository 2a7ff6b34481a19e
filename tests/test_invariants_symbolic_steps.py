"""The lemmas tied to the Python protocols step by step (checker/symbolic/refine.py):
every transition the explorer takes, projected, is a step of the proved relation;
and a rule changed on the Python side only, the relation left as proved, is caught
at the step that breaks it (issue 37: the twins and projections compare states,
so such a change passed them)."""
from __future__ import annotations

import pytest

from rrcheck.checker import symbolic
from rrcheck.checker.symbolic import refine

# the lemma's actions each refining lemma's steps exercise
EXERCISED = {"theorem1": {"send", "deliver", "start", "token", "barrier1", "checkpoint", "barrier2"},
             "replay": {"recv"},
             "chandy-lamport": {"send", "initiate", "marker", "deliver"},
             "phases": {"send", "arrive", "receive", "restore", "rollback", "resend", "log", "release"}, "pessimism": {"send", "receive", "confirm", "crash", "crash_node"},
             "log-end": {"send", "deliver", "checkpoint", "ready", "stop"},
             "hmpl": {"send", "receive", "save", "confirm", "erase"}}
REFINING = [(n, p, sc) for n, runs in refine.STEPS.items() for p, sc in runs]
# the lemmas whose relation stops at a restart: the steps after one are outside its vocabulary
UP_TO_RESTART = {"pessimism": "restart and replay are not in the relation"}


def test_invariants_step_scenarios_cover_every_lemma():
    assert set(refine.STEPS) == set(symbolic.LEMMAS) == set(EXERCISED)


# the guard's share of each lemma's step scenarios: the first, which takes every action
# (pessimism needs three for the crash of a node); the others run in README's command
GUARD = {name: runs[:3] if name == "pessimism" else runs[:1] for name, runs in refine.STEPS.items()}
WIDER = [(n, p, sc) for n, runs in refine.STEPS.items() for p, sc in runs if (p, sc) not in GUARD[n]]


@pytest.mark.parametrize("name", list(refine.STEPS))
def test_invariants_every_python_step_is_a_step_of_the_lemma(name):
    """Every transition of the lemma's first scenarios, projected, is a stutter
    or one to three of its relation's actions; together they take every action."""
    matched = set()
    for protocol, sc in GUARD[name]:
        matched |= _refines(name, protocol, sc)
    assert matched == EXERCISED[name]


@pytest.mark.parametrize("name,protocol,sc", WIDER, ids=[f"{n}-{sc.label()}" for n, _, sc in WIDER])
def test_invariants_every_python_step_of_the_wider_scenarios(name, protocol, sc):
    assert _refines(name, protocol, sc) <= EXERCISED[name]


def _refines(name, protocol, sc) -> set:
    r = refine.check_steps(name, sc, protocol=protocol)
    assert r.refines, r.as_dict()
    assert r.complete and not r.vacuous and (r.unprojected == 0 or name in UP_TO_RESTART)
    return {a for combo in r.actions for a in combo.split("+")}


# a mutant whose rule only a recovery uses: the failure-free steps cannot show it
RECOVERY_ONLY = {"hmpl/no-ssn-check": "a duplicate takes a re-send from the TB, which takes a crash"}
# an entry that drops an assumption of the relation changes no Python rule
MUTATED = list({m: (n, m, sc) for n, p, sc in reversed(REFINING) for m in symbolic.module(n).MUTANTS
                if symbolic.MUTANTS[m].protocol == p and m not in RECOVERY_ONLY
                and symbolic.MUTANTS[m].knobs}.values())


@pytest.mark.parametrize("name,mutant,sc", MUTATED, ids=[m for _, m, _ in MUTATED])
def test_invariants_a_python_only_change_breaks_the_step_link(name, mutant, sc):
    """The mutant's knob on the Python protocol alone: the proof (of the relation
    as proved) still holds, and its twin may not see the change on this
    scenario, but the first step that uses the changed rule is no action of
    the relation."""
    r = refine.check_steps(name, sc, mutant=mutant)
    assert not r.refines, r.as_dict()
    assert r.unmatched["trace"] and r.unmatched["changes"]


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


def test_invariants_release_gate_removed_on_the_python_side_breaks_the_step_link(monkeypatch):
    """Issue 37's first example: the release gate of Fig. 6 line 20 ("no lower
    phase still waits for an orphan") removed from the Python restart process
    alone. The proof (of the relation, which this does not touch) still holds;
    the first replay of a message while an orphan of a lower phase is not
    re-sent yet is no step of the relation."""
    from rrcheck.protocols.send_deterministic import SendDeterministic
    monkeypatch.setattr(SendDeterministic, "_releasable", staticmethod(lambda phase, low: True))
    (protocol, sc), = refine.STEPS["phases"]
    r = refine.check_steps("phases", sc, protocol=protocol)
    assert not r.refines and set(r.unmatched["changes"]) == {"released"}, r.as_dict()


def test_invariants_replay_order_removed_on_the_python_side_breaks_the_step_link(monkeypatch):
    """The replay order (``MessageLogging.may_match``: only the logged next
    reception may come while determinants remain to be forced) removed from
    the Python protocol alone: the re-execution re-receives out of the logged
    order, and the first such reception is no step of the replay relation."""
    from rrcheck.protocols.logging import MessageLogging
    monkeypatch.setattr(MessageLogging, "may_match", lambda self, ctx, p, vol, mail: True)
    (protocol, sc), = refine.STEPS["replay"]
    r = refine.check_steps("replay", sc, protocol=protocol)
    assert not r.refines and r.unmatched["action"][0] == "recv", r.as_dict()
    assert set(r.unmatched["changes"]) >= {"re", "done"} and r.recovery


def test_cli_prove_refine(tmp_path, capsys):
    """`rrcheck prove --all --json`: each lemma proved and, per lemma, the
    Python transitions held to its relation (those after a failure among them),
    none unmatched; exit 1 where a step matches no action, as where the Python
    protocol carries a mutant's knob the relation does not (--refine)."""
    import json

    from rrcheck.cli import main
    assert main(["prove", "--all", "--json", "--out", str(tmp_path)]) == 0
    out = {o["lemma"]: o for o in json.loads(capsys.readouterr().out)["lemmas"]}
    assert set(out) == set(symbolic.LEMMAS)
    for o in out.values():
        assert o["proved"] and o["unmatched"] == 0 and o["transitions_checked"] > 0, o
        assert o["transitions_checked"] == sum(s["steps"] for s in o["steps"])
    assert out["replay"]["recovery_transitions"] > 1000 and out["pessimism"]["recovery_transitions"]
    steps = out["pessimism"]["steps"]
    assert [s["protocol"] for s in steps] == [p for p, _ in refine.STEPS["pessimism"]]
    assert all(s["refines"] and s["steps"] for s in steps)
    assert {a for s in steps for a in s["actions"]} == EXERCISED["pessimism"]  # the failures, held too
    assert main(["prove", "--mutant", "rbml/send-before-logged", "--refine", "--out", str(tmp_path)]) == 1
    text = capsys.readouterr().out
    assert "pessimism: proved" in text and "steps of rbml with rbml/send-before-logged" in text and "UNMATCHED" in text
