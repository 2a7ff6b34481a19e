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


NEXT_WAVE = ["--workload", "ring", "--procs", "3", "--nodes", "1", "--failures", "0", "--checkpoints", "2"]


def test_tla_says_where_the_spec_and_the_model_part(specs_without_next_wave_commit, tmp_path, monkeypatch, capsys):
    """A spec without a rule the Python model keeps (Coordinated.tla without the next
    wave's commit): TLC's verdict, the steps of its trace the Python model follows,
    the step it cannot take (TLC's change, and where the nearest Python event ends
    otherwise), one line on stderr and exit 1; no counterexample is written."""
    monkeypatch.setenv("RRCHECK_SPECS", str(specs_without_next_wave_commit))
    out_dir = tmp_path / "out"
    assert main(["tla", "coordinated", *NEXT_WAVE, "--out", str(out_dir), "--no-progress"]) == 1
    out, err = capsys.readouterr()
    assert err == ("rrcheck: the spec and the model disagree on coordinated, ring n=3/1nodes f=0 c=2: the Python "
                   "model follows 13 of the 19 steps of TLC's trace; step 14 it cannot take\n")
    assert out.startswith("coordinated on ring n=3/1nodes f=0 c=2 (TLC): VIOLATION\n"
                          "  Termination: Invariant Termination is violated.\n")
    for line in ["  THE SPEC AND THE MODEL DISAGREE: the Python model follows 13 of the 19 steps of TLC's trace; "
                 "step 14 it cannot take",
                 "     11 [\"internal\", 0, \"checkpoint\"]",
                 "  step 14, in TLC's trace, changes:",
                 "    wire 1->2: before <<[dst: 2, hdr: <<<<0, 0, 0>>, 1, 2>>, kind: \"marker\", msg: <<>>, src: 1]>>;"
                 " after <<>>",
                 "  the Python model's nearest event (of 2 enabled), [\"deliver\", 1, 2, 0], ends where TLC's state "
                 "differs in:",
                 "    P2.stab.line: TLC 0; Python 1",
                 "    P2.vol.wave: TLC 1; Python 2"]:
        assert line in out.splitlines(), line
    assert not out_dir.exists() or not any(out_dir.iterdir())


def test_tla_all_holds_counts_to_the_explorer_and_the_manifest(monkeypatch, capsys):
    """`rrcheck tla --all` compares each model's counts, not only its verdict: TLC
    (here a stand-in, one distinct state more than the model has) against the
    explorer without reductions and the model's row of specs/manifest.json."""
    import rrcheck.checker.tla as bridge
    from rrcheck.checker.explicit.check import run_check
    from rrcheck.checker.model import scenarios
    from rrcheck.checker.tla.run import TlaCheck
    from rrcheck.protocols import mutants
    sc = scenarios.DEFAULTS["coordinated"][0]
    monkeypatch.setattr(scenarios, "DEFAULTS", {p: (sc,) if p == "coordinated" else () for p in scenarios.DEFAULTS})
    monkeypatch.setattr(mutants, "MUTANTS", {})
    py = run_check("coordinated", sc, reduce=False, progress=False).result
    for extra, code in ((0, 0), (1, 1)):
        monkeypatch.setattr(bridge, "run_tla", lambda p, scenario, mutant, **kw: TlaCheck(
            p, mutant, scenario, "pass", None, py.states + extra, py.transitions + 1, py.depth, 1.0, 0))
        assert main(["tla", "--all", "--no-progress"]) == code
        out = capsys.readouterr().out
        if not extra:
            assert "  ok\n" in out and "1/1 as expected under TLC" in out
            continue
        assert "DISAGREE\n" in out and "0/1 as expected under TLC" in out
        assert (f"    THE SPEC AND THE MODEL DISAGREE: distinct states: TLC {py.states + 1:,}, "
                f"the explorer {py.states:,}") in out.splitlines()
        assert (f"    THE SPEC AND THE MODEL DISAGREE: distinct states: TLC {py.states + 1:,}, "
                f"specs/manifest.json {py.states:,}") in out.splitlines()
        assert "1 where the spec and the model disagree" in out


def _check(verdict, prop=None, states=10, generated=21, depth=5, **more):
    from rrcheck.checker.model.scenarios import DEFAULTS
    from rrcheck.checker.tla.run import TlaCheck
    c = TlaCheck("coordinated", None, DEFAULTS["coordinated"][0], verdict, prop, states, generated, depth, 1.0, 0)
    for k, v in more.items():
        setattr(c, k, v)
    return c


def _explorer(verdict="pass", prop=None, states=10, transitions=20, depth=5):
    from types import SimpleNamespace
    return SimpleNamespace(verdict=verdict, violation=SimpleNamespace(property=prop) if prop else None,
                           states=states, transitions=transitions, depth=depth)


ROW = {"result": "pass", "property": None, "distinct_states": 10, "states_generated": 21}


@pytest.mark.parametrize("c,explorer,row,want", [
    (_check("pass"), _explorer(), ROW, []),
    (_check("pass", depth=6), _explorer(), ROW, ["depth: TLC 6, the explorer 5"]),
    (_check("pass", generated=22), _explorer(), ROW,
     ["states generated: TLC 22, the explorer 21 (its transitions + 1)", "states generated: TLC 22, specs/manifest.json 21"]),
    (_check("pass"), _explorer(), {**ROW, "distinct_states": 1_234}, ["distinct states: TLC 10, specs/manifest.json 1,234"]),
    (_check("violation", "Termination", trace=[{}] * 4, events=[("step", 0)] * 3, reproduced=False),
     _explorer(), None,
     ["the Python model follows all 3 steps of TLC's trace, and its judge finds no violation where TLC finds "
      "Termination", "TLC finds a Termination violation, the explorer a pass"]),
    (_check("violation", "NoOrphan", reproduced=True), _explorer("violation", "NoLostMessage"),
     {**ROW, "result": "violation", "property": "NoOrphan"}, ["TLC finds a NoOrphan violation, the explorer a "
                                                              "NoLostMessage violation"]),
    (_check("pass"), None, {**ROW, "result": "violation", "property": "Termination"},
     ["TLC finds a pass, specs/manifest.json a Termination violation"]),
    (_check("incomplete", states=3), _explorer(), ROW, []),
], ids=["same", "depth", "generated", "manifest-states", "trace-judged-otherwise", "property", "manifest-verdict",
        "unfinished"])
def test_tla_disagreements_name_what_differs(c, explorer, row, want):
    from rrcheck.cli.tla import disagreements
    assert disagreements(c, explorer, row) == want


def test_tla_a_full_disk_for_the_model_is_one_line(monkeypatch, capsys):
    """TLC's working copy of specs/ cannot be written: one line that names where
    (not the spec it was copying), exit 2, and the work directory removed."""
    import errno
    import tempfile
    from pathlib import Path

    from rrcheck.checker.tla import run

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device", str(src))
    monkeypatch.setattr(run.shutil, "copy", full)
    before = set(Path(tempfile.gettempdir()).glob("rrcheck-tlc-*"))
    assert main(["tla", "coordinated", "--scenario", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rrcheck-tlc-" in err and "not written (the disk is full)" in err
    assert set(Path(tempfile.gettempdir()).glob("rrcheck-tlc-*")) == before
