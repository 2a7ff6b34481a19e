"""The stateful Hypothesis engine held to the explicit one state by state, in the default
run (tests/test_invariants_stateful.py, under the fuzz marker, holds its coverage to each
default scenario and shows that each weakened rule is noticed).

On each protocol's smallest scenario (STATE_BY_STATE), every state a campaign's runs visit
is in the reachable set of the unreduced explicit search — the same keys, states compared
by value; the reductions are off because they keep every terminal state, not every state,
and the random runs crash at any moment. The share of that set reached by 100 runs is held
to the one benchmarks/fuzz_vs_explore.py recorded."""
import json
from pathlib import Path

import pytest

from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.scenarios import DEFAULTS
from rrcheck.checker.stateful.fuzz import STATE_BY_STATE, run_fuzz
from rrcheck.cli import main

RECORD = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "fuzz_vs_explore.json"
BUDGET = 100


def recorded(protocol: str) -> dict:
    rows = json.loads(RECORD.read_text())["states_per_protocol"]
    return next(r for r in rows if r["protocol"] == protocol)


def test_stateful_state_by_state_scenarios_name_every_protocol():
    assert set(STATE_BY_STATE) == set(DEFAULTS)
    assert all(0 <= i < len(DEFAULTS[p]) for p, i in STATE_BY_STATE.items())
    assert {r["protocol"] for r in json.loads(RECORD.read_text())["states_per_protocol"]} == set(DEFAULTS)


@pytest.mark.parametrize("protocol", sorted(STATE_BY_STATE))
def test_stateful_visits_only_states_the_explicit_search_reaches(protocol):
    """Every state of 100 runs (seed 0) is reachable, each kind of failure the scenario
    allows is generated, and the share of the reachable states visited is at least nine
    tenths of the least of the recorded seeds' shares (a drop is a regression)."""
    sc = DEFAULTS[protocol][STATE_BY_STATE[protocol]]
    reachable: set = set()
    e = run_check(protocol, sc, reduce=False, visited=reachable, progress=False).result
    assert e.verdict == "pass" and len(reachable) == e.states
    visited: set = set()
    f = run_fuzz(protocol, sc, examples=BUDGET, seed=0, shrink=False, progress=False, visited=visited)
    assert f.result.verdict == "pass" and len(visited) == f.result.states
    outside = visited - reachable
    assert not outside, f"{len(outside)} of {len(visited)} states the fuzz visited are not reachable"
    assert f.allowed and not f.never_generated, f.coverage
    row = recorded(protocol)
    assert (row["scenario"], row["explicit_states_unreduced"]) == (sc.label(), e.states), \
        "the model changed since the record: run benchmarks/fuzz_vs_explore.py again"
    floor = next(b["min_fraction"] for b in row["budgets"] if b["examples"] == BUDGET)
    share = len(visited) / len(reachable)
    assert share >= 0.9 * floor, f"{share:.3f} of the reachable states, recorded at least {floor:.3f}"


def test_stateful_generates_second_failures_and_failures_during_a_recovery():
    """Two failures on the smallest such default scenario (send-deterministic, sd_burst): 100
    runs visit reachable states only and generate each kind of failure it allows, a second
    failure and a failure during a recovery among them."""
    protocol, sc = "send-deterministic", DEFAULTS["send-deterministic"][6]
    assert sc.workload == "sd_burst" and sc.failures == 2 and not sc.no_failure_during_recovery
    reachable: set = set()
    run_check(protocol, sc, reduce=False, visited=reachable, progress=False)
    visited: set = set()
    f = run_fuzz(protocol, sc, examples=BUDGET, seed=0, shrink=False, progress=False, visited=visited)
    assert f.result.verdict == "pass" and visited and not visited - reachable
    assert {"second_failures", "crashes_during_a_recovery"} <= set(f.allowed) and not f.never_generated, f.coverage
    assert not f.shortfalls(), f.coverage


def test_fuzz_json_reports_coverage_witnesses(tmp_path, capsys):
    """rrcheck fuzz --json: per coverage witness its count and the runs in which it rose,
    the failure kinds allowed and never generated, the states and witness classes."""
    assert main(["fuzz", "coordinated", "--workload", "ring", "--procs", "2", "--nodes", "1", "--examples", "20",
                 "--out", str(tmp_path), "--json"]) == 0
    cov = json.loads(capsys.readouterr().out)["coverage"]
    assert set(cov) == {"runs", "counts", "runs_with", "failure_kinds_allowed", "failure_kinds_never_generated",
                        "states", "witness_classes_met"}
    assert cov["failure_kinds_allowed"] == ["process_crashes", "node_crashes", "crashes_after_a_checkpoint"]
    assert cov["counts"]["node_crashes"] > 0 and cov["counts"]["recoveries_completed"] > 0
    assert 0 < cov["runs_with"]["node_crashes"] <= cov["runs"] and cov["states"] > 0
    assert all(cov["runs_with"][k] <= cov["counts"][k] for k in cov["counts"])
    assert "recoveries_completed" in cov["witness_classes_met"]
