"""`rrcheck tla`: usage errors in one line, the result JSON, --keep."""
from __future__ import annotations

import json

import pytest

from rrcheck.checker.tla.run import TlcMissing, java, jar
from rrcheck.cli import main

try:
    java(), jar()
except TlcMissing as e:  # pragma: no cover
    pytest.skip(str(e), allow_module_level=True)


@pytest.mark.parametrize("argv,needle", [
    (["tla", "nope"], "unknown protocol"),
    (["tla", "--mutant", "model/fifo-reorders"], "changes rrcheck's model"),
    (["tla", "--mutant", "nope"], "unknown mutant"),
    (["tla", "coordinated", "--workers", "0"], "--workers"),
    (["tla"], "name a protocol"),
    (["tla", "chandy-lamport", "--scenario", "9"], "default scenarios (1 to"),
    (["tla", "--mutant", "chandy-lamport/no-channel-recording", "--scenario", "1"], "a mutant has its own"),
])
def test_tla_usage_errors_are_one_line(argv, needle, capsys):
    try:
        code = main(argv)
    except SystemExit as e:  # an option value argparse refuses
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_tla_json_and_keep(tmp_path, capsys):
    argv = ["tla", "coordinated", "--workload", "pingpong", "--failures", "0", "--json", "--keep", str(tmp_path)]
    assert main(argv) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] == "pass" and d["states_generated"] == d["transitions"] + 1 and d["tlc_exit"] == 0
    kept = list(tmp_path.glob("rrcheck-tlc-*"))
    assert len(kept) == 1 and (kept[0] / "MC.cfg").is_file() and (kept[0] / "tlc.out").is_file()


def test_tla_protocol_checks_each_default_scenario(capsys):
    """As rrcheck check does: every default scenario, or the one --scenario names."""
    from rrcheck.checker.model.scenarios import DEFAULTS
    assert main(["tla", "chandy-lamport", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [c["scenario"] for c in d["checks"]] == [sc.label() for sc in DEFAULTS["chandy-lamport"]]
    assert all(c["verdict"] == "pass" for c in d["checks"])
    assert main(["tla", "chandy-lamport", "--scenario", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scenario"] == DEFAULTS["chandy-lamport"][2].label()
