"""ITF export: `rrcheck replay --itf` and the ITF kept beside a TLC counterexample."""
from __future__ import annotations

import json

import pytest
from itf_py import trace_from_json

from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
from rrcheck.cli import main

MUTANT = "chandy-lamport/no-channel-recording"


def test_replay_writes_one_itf_state_per_event(tmp_path, capsys):
    c = run_check("chandy-lamport", MUTANT_SCENARIOS[MUTANT], MUTANT, out=tmp_path)
    out = tmp_path / "run.itf.json"
    assert main(["replay", str(c.counterexample), "--itf", str(out)]) == 0
    capsys.readouterr()
    raw = json.loads(out.read_text())
    t = trace_from_json(raw)
    events = json.loads(c.counterexample.read_text())["events"]
    assert len(t.states) == len(events) + 1
    assert raw["states"][0]["event"] == ["init"]
    assert [s["event"][0] for s in raw["states"][1:]] == [e[0] for e in events]
    # the last state is the crashed-and-restarted P0 of the counterexample
    last = t.states[-1].values
    assert last["failures"] == 1 and last["procs"][0].alive is True


def test_tlc_counterexample_kept_as_itf(tmp_path):
    from rrcheck.checker.tla import run_tla
    from rrcheck.checker.tla.run import TlcMissing
    try:
        c = run_tla("chandy-lamport", MUTANT_SCENARIOS[MUTANT], MUTANT, properties=("NoInTransitInGroup",), out=tmp_path)
    except TlcMissing as e:
        pytest.skip(str(e))
    itf = c.counterexample.with_name(c.counterexample.name.replace(".json", ".itf.json"))
    t = trace_from_json(json.loads(itf.read_text()))
    assert len(t.states) == len(c.events) + 1
    assert [list(s.values["event"]) for s in t.states[1:]] == [list(e) for e in c.events]


def test_apalache_missing_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert main(["tla", "coordinated", "--engine", "apalache"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "apalache-mc" in err
