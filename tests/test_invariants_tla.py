"""Agreement of the two engines: TLC on the TLA+ specs (specs/) and rrcheck's
explicit explorer without reductions on the Python protocols.

On every default scenario and registered mutant of each specified protocol:
the same verdict and the same violated property, and the same state graph —
equal distinct states, and TLC's states generated = rrcheck's transitions + 1
(TLC counts the initial state as generated). Both engines are also held to
the model's row of specs/manifest.json, the table README and specs/README.md
print. A violation stops each engine at a point that depends on its search
order, so for a mutant the whole state graph is compared with the invariants
off. Every TLC counterexample replays on the Python model with the same
property.

Models above QUICK states form the marker `catalogue` (the whole catalogue's
agreement, about 16 minutes on 2 cores: `pytest -m catalogue`, which CI runs after
README's test command); the rest run in README's test command.
"""
from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest

from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.scenarios import DEFAULTS, MUTANT_SCENARIOS, SLOW, Scenario, make_system
from rrcheck.checker.tla import SPECIFIED, run_tla
from rrcheck.checker.tla.run import TlcMissing, java, jar
from rrcheck.checker.traces import counterexample as T
from rrcheck.protocols.mutants import MUTANTS

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


def sized(protocol, scenario, mutant, *values, suffix="", big=CATALOGUE):
    row = MODELS.get((protocol, mutant, scenario.label()), {})
    whole = row.get("rrcheck_no_reduce", {})
    # None: a storm's graph is infinite, and its violation comes within a few hundred states
    states = 0 if whole is None else whole.get("states") or QUICK + 1
    mark = big if states > QUICK else ()
    return pytest.param(*values, marks=mark, id=(mutant or f"{protocol}-{scenario.label()}") + suffix)


DEFAULT = [sized(p, sc, None, p, sc) for p in SPECIFIED for sc in DEFAULTS[p]]
# model-level mutants change the Python model's rules, which the specs' system model states on its own
MUTANT = [sized(m.protocol, MUTANT_SCENARIOS[name], name, name) for name, m in MUTANTS.items()
          if m.protocol in SPECIFIED and not m.model]
PROPERTY_ALONE = [sized(m.protocol, MUTANT_SCENARIOS[name], name, name, prop, suffix=f"-{prop}", big=pytest.mark.slow)
                  for name, m in MUTANTS.items() if m.protocol in SPECIFIED and not m.model for prop in m.catches]
# beyond the defaults: other workloads, sizes and bounds
MORE = [("coordinated", Scenario("exchange", 3, 3, crash_kinds=("process",), checkpoints=0)),
        ("chandy-lamport", Scenario("ring", 3, 2, checkpoints=0)),
        ("coordinated", Scenario("ring", 2, 2, failures=2, crash_kinds=("process",))),
        ("chandy-lamport", Scenario("pingpong", 2, 1, failures=0))]


def graph(protocol, scenario, mutant=None) -> tuple[int, int]:
    """States and transitions of the Python model's whole state graph."""
    system, _ = make_system(protocol, scenario, mutant)
    init = system.initial()
    seen, todo, transitions = {init}, deque([init]), 0
    while todo:
        s = todo.popleft()
        for a in system.actions(s):
            s2, _ = system.step(s, a)
            transitions += 1
            if s2 not in seen:
                seen.add(s2)
                todo.append(s2)
    return len(seen), transitions


def agree(protocol, scenario, row=None):
    py = run_check(protocol, scenario, reduce=False).result
    tlc = run_tla(protocol, scenario)
    assert tlc.verdict == py.verdict, tlc.message
    assert tlc.property == (py.violation.property if py.violation else None)
    assert tlc.states == py.states
    assert tlc.generated == py.transitions + 1
    assert tlc.depth == py.depth
    if row is not None:
        assert (row["result"], row["property"]) == (tlc.verdict, tlc.property)
        assert (row["distinct_states"], row["states_generated"]) == (tlc.states, tlc.generated)


@pytest.mark.parametrize("protocol,scenario", DEFAULT)
def test_invariants_tla_default_scenarios_agree(protocol, scenario):
    agree(protocol, scenario, MODELS[(protocol, None, scenario.label())])


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


# whole graphs of the mutants, invariants off (one small enough for the quick run); a storm's
# graph is infinite, so only its violation is compared
GRAPHS = [pytest.param(name, marks=() if name == "chandy-lamport/no-channel-recording" else pytest.mark.slow, id=name)
          for name, m in MUTANTS.items() if m.protocol in SPECIFIED and not m.model and "unbounded" not in m.extra]


@pytest.mark.parametrize("name", GRAPHS)
def test_invariants_tla_mutant_graphs_agree(name):
    m = MUTANTS[name]
    scenario = MUTANT_SCENARIOS[name]
    whole = run_tla(m.protocol, scenario, name, properties=(), timeout=3600)
    states, transitions = graph(m.protocol, scenario, name)
    assert whole.verdict == "pass"
    assert (whole.states, whole.generated) == (states, transitions + 1)


@pytest.mark.parametrize("name,prop", PROPERTY_ALONE)
def test_invariants_tla_each_property_alone(name, prop):
    """Each property a mutant is meant to break, checked alone: the two engines
    give the same verdict (so each TLA+ property is shown to catch, or to
    agree that it does not)."""
    m = MUTANTS[name]
    scenario = MUTANT_SCENARIOS[name]
    py = run_check(m.protocol, scenario, name, properties=(prop,), reduce=False).result
    tlc = run_tla(m.protocol, scenario, name, properties=(prop,))
    assert tlc.verdict == py.verdict
    if py.violation:
        assert tlc.property == prop


def test_tla_missing_jar_is_a_usage_error(monkeypatch):
    monkeypatch.setenv("RRCHECK_TLA2TOOLS", "/nonexistent/tla2tools.jar")
    with pytest.raises(TlcMissing, match="RRCHECK_TLA2TOOLS"):
        run_tla("coordinated", DEFAULTS["coordinated"][0])
