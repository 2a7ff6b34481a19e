"""The coverage witnesses of the stateful Hypothesis engine, in the default run
(tests/test_invariants_stateful.py, under the fuzz marker, holds its coverage to each
default scenario and shows that each weakened rule is noticed)."""
import json

from rrcheck.cli import main


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
