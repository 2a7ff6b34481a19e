"""``rrcheck predict`` from the command line: exit 0 without a witness, 1
with a confirmed one; a run directory that is missing, empty, binary,
corrupt or foreign is one line on stderr and exit 2."""
import json

import pytest

from rrcheck.runtime.predict.synth import synthesize
from rrcheck.cli import main


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    synthesize(root / "ok", "hmpl", "master_worker", 4, 2, 1, None, 0)
    synthesize(root / "bad", "hmpl", "master_worker", 4, 2, 1, "hmpl/no-wildcard-block", 0)
    synthesize(root / "sbml", "sbml", "master_worker", 4, 2, 1, None, 0)
    return root


def _one_line_error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("rrcheck: ") and err.count("\n") == 1, err
    return err


def test_predict_cli_exit_status_and_json(runs, capsys, tmp_path):
    assert main(["predict", str(runs / "ok")]) == 0
    assert "NONE" in capsys.readouterr().out
    out = tmp_path / "cx.json"
    assert main(["predict", str(runs / "bad"), "--json", "--out", str(out)]) == 1
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] == "confirmed" and d["counterexample"] == str(out)
    assert main(["replay", str(out)]) == 0  # the witness replays: the same violation
    assert "reproduced" in capsys.readouterr().out


def test_predict_cli_bad_run_directories(runs, capsys, tmp_path):
    _one_line_error(capsys, ["predict", str(tmp_path / "nowhere")])
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "run.json" in _one_line_error(capsys, ["predict", str(empty)])
    binary = tmp_path / "binary"
    binary.mkdir()
    (binary / "run.json").write_bytes(bytes(range(256)))
    _one_line_error(capsys, ["predict", str(binary)])
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "run.json").write_text(json.dumps({"name": "something else"}))
    _one_line_error(capsys, ["predict", str(foreign)])


@pytest.mark.parametrize("damage", ["middle_line", "binary", "foreign_action", "missing", "emptied",
                                    "unsent_packet", "foreign_rank"])
def test_predict_cli_corrupt_journals(runs, capsys, tmp_path, damage):
    import shutil
    d = tmp_path / "run"
    shutil.copytree(runs / "ok", d)
    j = d / "journal-1-0.jsonl"
    lines = j.read_text().splitlines()
    if damage == "middle_line":
        lines[2] = "{not json"
        j.write_text("\n".join(lines) + "\n")
    elif damage == "binary":
        j.write_bytes(b"\xff\xfe\x00" * 50)
    elif damage == "foreign_action":
        lines[0] = json.dumps({"a": ["teleport", 1], "F": 0, "out": []})
        j.write_text("\n".join(lines) + "\n")
    elif damage == "missing":
        j.unlink()
    elif damage == "emptied":
        for k in range(4):
            (d / f"journal-{k}-0.jsonl").write_text("")
    elif damage == "foreign_rank":  # a reception of a message from a rank the run does not have
        k = next(i for i, line in enumerate(lines) if '"recv"' in line)
        ev = json.loads(lines[k])
        ev["a"][2][0] = 99
        lines[k] = json.dumps(ev)
        j.write_text("\n".join(lines) + "\n")
    else:  # a delivery of a packet nobody sent
        first = next(i for i, line in enumerate(lines) if '"deliver"' in line)
        ev = json.loads(lines[first])
        ev["a"][3] = 999
        lines[first] = json.dumps(ev)
        j.write_text("\n".join(lines) + "\n")
    _one_line_error(capsys, ["predict", str(d)])


def test_predict_cli_protocol_option(runs, capsys):
    args = ["predict", str(runs / "sbml"), "--crash-kinds", "process", "--out", str(runs / "sbml" / "cx.json")]
    assert main(args) == 0
    assert main(args + ["--protocol", "sbml/send-before-rsn-ack"]) == 1
    assert "CONFIRMED NoOrphan" in capsys.readouterr().out
    assert "sbml" in _one_line_error(capsys, ["predict", str(runs / "ok"), "--protocol", "sbml"])
    _one_line_error(capsys, ["predict", str(runs / "ok"), "--protocol", "no-such"])
    _one_line_error(capsys, ["predict", str(runs / "ok"), "--crash-kinds", "meteor"])
