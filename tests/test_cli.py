"""The command line: user errors are one line and exit status 2, never a traceback."""
import json
import subprocess
import sys

import pytest

from rrcheck.cli import main


def run(*argv):
    return subprocess.run([sys.executable, "-m", "rrcheck", *argv], capture_output=True, text=True)


@pytest.mark.parametrize("argv,needle", [
    (["check", "nosuch"], "unknown protocol"),
    (["check", "sbml", "--workload", "nosuch"], "unknown workload"),
    (["check", "sbml", "--mutant", "nosuch"], "unknown mutant"),
    (["check", "sbml", "--mutant", "chandy-lamport/no-channel-recording"], "variant of"),
    (["check", "sbml", "--property", "Nothing"], "unknown property"),
    (["check"], "name a protocol"),
    (["check-workload", "nosuch"], "unknown workload"),
    (["replay", "/nonexistent.json"], "no such counterexample"),
    (["replay", "/"], "cannot read it"),
    (["check", "sbml", "--procs", "0"], "--procs"),
])
def test_usage_errors_are_one_line(argv, needle):
    p = run(*argv)
    assert p.returncode == 2
    assert needle in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


@pytest.mark.parametrize("content,needle", [
    ("{not json", "not JSON"),
    ('{"schema_version": 1}', "malformed counterexample"),
    ('{"schema_version": 99}', "schema version"),
    ("[1, 2]", "malformed counterexample"),
])
def test_malformed_counterexample_is_one_line(tmp_path, content, needle):
    f = tmp_path / "bad.json"
    f.write_text(content)
    p = run("replay", str(f))
    assert p.returncode == 2 and needle in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def test_counterexample_with_unknown_event_is_one_line(tmp_path, capsys):
    assert main(["check", "--mutant", "sbml/no-duplicate-suppression", "--out", str(tmp_path)]) == 1
    f = next(tmp_path.glob("*.json"))
    data = json.loads(f.read_text())
    data["events"][0] = ["teleport", 1]
    f.write_text(json.dumps(data))
    p = run("replay", str(f))
    assert p.returncode == 2 and "not a scheduler event" in p.stderr


def test_check_json_fields(tmp_path, capsys):
    code = main(["check", "--mutant", "sbml/no-duplicate-suppression", "--out", str(tmp_path), "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 1 and d["verdict"] == "violation" and d["property"] == "NoDuplicateDelivery"
    for key in ("states", "seconds", "witnesses", "counterexample", "transitions", "depth", "states_per_s"):
        assert key in d
    assert d["counterexample"].endswith(".json")


def test_list_json(capsys):
    assert main(["list", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"correlated-set", "sbml", "coordinated", "chandy-lamport"} <= set(d["protocols"])
    assert "correlated-set/no-internal-event-logging" in d["mutants"]
    assert "Theorem1" in d["invariants"] and "fig2" in d["workloads"]


def test_replay_draws_svg(tmp_path, capsys):
    main(["check", "--mutant", "sbml/no-event-logging", "--out", str(tmp_path)])
    f = next(tmp_path.glob("*.json"))
    svg = tmp_path / "x.svg"
    assert main(["replay", str(f), "--svg", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "reproduced" in out and "CRASHES" in out
    text = svg.read_text()
    assert text.startswith("<svg") and "P0 (node" in text and "crash" in text and "rollback to C" in text
