"""Agreement of the two engines: TLC on the TLA+ specs (specs/) and rrcheck's
explicit explorer without reductions on the Python protocols.

On every default scenario and registered mutant of each specified protocol:
the same verdict and the same violated property, and the same state graph —
equal distinct states, and TLC's states generated = rrcheck's transitions + 1
(TLC counts the initial state as generated). Both engines are also held to
the model's row of specs/manifest.json, the table README and specs/README.md
print. A violation stops each engine at a point that depends on its search
order, so a mutant's whole state graph is compared where each property is
checked alone (test_tla_each_property_alone.py). Every TLC counterexample
replays on the Python model with the same property.

Models above QUICK states form the marker `catalogue` (the whole catalogue's
agreement, about 16 minutes on 2 cores: `pytest -m catalogue`, which CI runs after
README's test command); the rest run in README's test command, and with them
each protocol's cheapest default scenario whatever its size, so that every spec's
counts are compared there.

A rule a mutant drops is held on the correct protocol too: on the mutant's
scenario, where the rule decides the verdict, the two engines agree state for
state (RULES), so a spec that lost the rule parts from the Python model there
(shown for the next wave's commit of Coordinated.tla, which no default scenario
exercises).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.scenarios import DEFAULTS, MUTANT_SCENARIOS, SLOW, Scenario
from rrcheck.checker.tla import SPECIFIED, run_tla
from rrcheck.checker.tla.run import TlcMissing, java, jar
from rrcheck.checker.traces import counterexample as T
from rrcheck.protocols.mutants import MUTANTS
from rrcheck.cli.tla import disagreements

try:
    java(), jar()
except TlcMissing as e:  # pragma: no cover
    pytest.skip(str(e), allow_module_level=True)

# A model of more than QUICK states (specs/manifest.json) is in the catalogue run:
# TLC and the explorer each take up to a minute or two on a shared machine.
QUICK = 5_000
CATALOGUE = (pytest.mark.slow, pytest.mark.catalogue)
MODELS = {(r["protocol"], r["mutant"], r["scenario"]): r
          for r in json.loads((Path(__file__).resolve().parents[1] / "specs" / "manifest.json").read_text())["models"]}


# each protocol's default scenario that TLC checks soonest (the manifest's wall time)
CHEAPEST = {p: min(DEFAULTS[p], key=lambda sc: MODELS[(p, None, sc.label())]["tlc_seconds_wall"]).label()
            for p in SPECIFIED}


# The two models whose agreement takes CI longest (376 s and 169 s of the catalogue's 3,255
# on 2 cores, measured 2026-11-29) run with the slow sweeps; their rules keep a default in
# CI: two victims of one node crash in `ring` n=3/2 (coordinated), and a node crash that
# takes a sender with its receiver in `node_handoff2` (sbml, beyond the fault model).
SLOW_TLC = {("coordinated", None, "pingpong n=3/2nodes f=1 c=1 node"),
            ("sbml", "sbml/node-crash-takes-sender-and-receiver", "node_rsn_last n=3/2nodes f=1 c=0 node")}


def sized(protocol, scenario, mutant, *values, suffix="", big=CATALOGUE):
    row = MODELS.get((protocol, mutant, scenario.label()), {})
    whole = row.get("rrcheck_no_reduce", {})
    # None: a storm's graph is infinite, and its violation comes within a few hundred states
    states = 0 if whole is None else whole.get("states") or QUICK + 1
    mark = big if states > QUICK and not (mutant is None and CHEAPEST[protocol] == scenario.label()) else ()
    if (protocol, mutant, scenario.label()) in SLOW_TLC:
        mark = pytest.mark.slow
    return pytest.param(*values, marks=mark, id=(mutant or f"{protocol}-{scenario.label()}") + suffix)


DEFAULT = [sized(p, sc, None, p, sc) for p in SPECIFIED for sc in DEFAULTS[p]]
# model-level mutants change the Python model's rules, which the specs' system model states on its own
MUTANT = [sized(m.protocol, MUTANT_SCENARIOS[name], name, name) for name, m in MUTANTS.items()
          if m.protocol in SPECIFIED and not m.model]
# beyond the defaults: other workloads, sizes and bounds
MORE = [("coordinated", Scenario("exchange", 3, 3, crash_kinds=("process",), checkpoints=0)),
        ("chandy-lamport", Scenario("ring", 3, 2, checkpoints=0)),
        ("coordinated", Scenario("ring", 2, 2, failures=2, crash_kinds=("process",))),
        ("chandy-lamport", Scenario("pingpong", 2, 1, failures=0))]


# The correct protocol on the scenario of each mutant that drops a rule (its knobs), where
# the scenario is no default already: TLC finishes the quick ones (at most 20,000 states)
# in seconds (one in README's command, the others in the catalogue CI runs after it); the
# rest are slow. Left out: the scenarios neither engine finishes unreduced
# on this machine (correlated sets of two on ring n=4: more than 1.7 million states;
# fig1 with a checkpoint: more than 1.2 million), and those whose mutant drops no rule.
QUICK_RULES = {"coordinated/next-wave-marker-dropped", "rbml/checkpoint-without-tb", "sbml/no-fetch-retry",
               "sbml/no-duplicate-suppression", "send-deterministic/no-phases",
               "send-deterministic/no-restart-buffer", "send-deterministic/gc-off-by-one",
               "send-deterministic/restart-failed-only", "send-deterministic/next-wave-mark-dropped",
               "send-deterministic/second-restart-unanswered", "app-level/ready-after-one-sender",
               "hmpl/competing-erasure-any-sender", "hmpl/wildcard-rule-any-source-only"}
IN_THE_TEST_COMMAND = "coordinated/next-wave-marker-dropped"
BEYOND = {"correlated-set/no-external-payload-copy", "correlated-set/global-rollback", "uncoordinated/no-logging"}


def _rules():
    seen = {(p, sc.label()) for p in SPECIFIED for sc in DEFAULTS[p]}
    for name, m in MUTANTS.items():
        key = (m.protocol, MUTANT_SCENARIOS[name].label())
        if m.protocol in SPECIFIED and not m.model and m.knobs and name not in BEYOND and key not in seen:
            seen.add(key)
            # README's command keeps the one no default exercises; CI runs the other quick ones after it
            marks = () if name == IN_THE_TEST_COMMAND else CATALOGUE if name in QUICK_RULES else pytest.mark.slow
            yield pytest.param(m.protocol, MUTANT_SCENARIOS[name], id=name, marks=marks)


RULES = list(_rules())


def agree(protocol, scenario, row=None):
    """The two engines on ``scenario``, held to each other and to the manifest's ``row``
    as `rrcheck tla --all` holds them (rrcheck/cli/tla.py: disagreements)."""
    py = run_check(protocol, scenario, reduce=False).result
    tlc = run_tla(protocol, scenario)
    found = disagreements(tlc, py, row)
    assert not found, "the spec and the model disagree: " + "; ".join(found)


@pytest.mark.parametrize("protocol,scenario", DEFAULT)
def test_invariants_tla_default_scenarios_agree(protocol, scenario):
    agree(protocol, scenario, MODELS[(protocol, None, scenario.label())])


@pytest.mark.parametrize("protocol,scenario", RULES)
def test_invariants_tla_rule_scenarios_agree(protocol, scenario):
    """The correct protocol where a mutant's rule decides: a spec without the rule
    would violate a property there that the Python model keeps."""
    agree(protocol, scenario)


def test_invariants_tla_agreement_fails_without_the_next_wave_commit(specs_without_next_wave_commit, monkeypatch):
    """Coordinated.tla without "a marker of the next wave overtaking this wave's commit
    implies it" (a copy, where the next wave's marker is always dropped): the rule
    scenario's agreement fails, TLC's Termination violation leaving the Python model
    at the step where P2 takes that marker (no default scenario has two waves, so
    none of them notices)."""
    monkeypatch.setenv("RRCHECK_SPECS", str(specs_without_next_wave_commit))
    with pytest.raises(AssertionError, match=r"the spec and the model disagree: the Python model follows \d+ of "
                                             r"the \d+ steps of TLC's trace; step \d+ it cannot take; "
                                             r"TLC finds a Termination violation, the explorer a pass"):
        agree("coordinated", MUTANT_SCENARIOS["coordinated/next-wave-marker-dropped"])


@pytest.mark.slow
@pytest.mark.parametrize("protocol,scenario", MORE, ids=[f"{p}-{s.label()}" for p, s in MORE])
def test_invariants_tla_more_scenarios_agree(protocol, scenario):
    agree(protocol, scenario)


@pytest.mark.slow
@pytest.mark.parametrize("protocol,scenario", [(p, sc) for p in SPECIFIED for sc in SLOW.get(p, ())])
def test_invariants_tla_slow_scenarios_agree(protocol, scenario):
    agree(protocol, scenario)


@pytest.mark.parametrize("name", MUTANT)
def test_invariants_tla_mutants_caught_alike(name, tmp_path):
    m = MUTANTS[name]
    scenario = MUTANT_SCENARIOS[name]
    py = run_check(m.protocol, scenario, name, reduce=False).result
    tlc = run_tla(m.protocol, scenario, name, out=tmp_path)
    assert tlc.verdict == py.verdict == "violation"
    assert tlc.property == py.violation.property == MODELS[(m.protocol, name, scenario.label())]["property"]
    assert tlc.property in m.catches
    # the TLC trace, mapped onto the Python model, reproduces the property
    assert tlc.reproduced
    rep = T.replay(T.load(tlc.counterexample))
    assert rep.violation.property == tlc.property


# RestartTermination has one meaning in both engines: judged where a run ends (every process
# finished, no recovery under way); a run stuck in a restart is Termination's. The spec once
# judged it at every stuck state, and checked alone it failed these two mutants where rrcheck
# passes, with traces that did not replay (issue 44). lost-on-rollback's whole graph, 256,196
# states (6 minutes of TLC on a loaded machine), runs with the slow sweeps.
ONE_READING = [pytest.param("send-deterministic/second-restart-unanswered", "pass", id="second-restart-unanswered"),
               pytest.param("send-deterministic/lost-on-rollback", "pass", id="lost-on-rollback",
                            marks=pytest.mark.slow),
               pytest.param("send-deterministic/flush-keeps-buffer", "violation", id="flush-keeps-buffer")]


@pytest.mark.parametrize("name,verdict", ONE_READING)
def test_invariants_tla_restart_termination_means_one_thing(name, verdict):
    m = MUTANTS[name]
    scenario = MUTANT_SCENARIOS[name]
    py = run_check(m.protocol, scenario, name, properties=("RestartTermination",), reduce=False).result
    tlc = run_tla(m.protocol, scenario, name, properties=("RestartTermination",), timeout=1800)
    assert py.verdict == tlc.verdict == verdict
    if verdict == "pass":
        assert (tlc.states, tlc.generated) == (py.states, py.transitions + 1)
    else:
        assert tlc.property == py.violation.property == "RestartTermination" and tlc.reproduced


def test_tla_missing_jar_is_a_usage_error(monkeypatch):
    monkeypatch.setenv("RRCHECK_TLA2TOOLS", "/nonexistent/tla2tools.jar")
    with pytest.raises(TlcMissing, match="RRCHECK_TLA2TOOLS"):
        run_tla("coordinated", DEFAULTS["coordinated"][0])
