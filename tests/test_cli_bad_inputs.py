"""Bad inputs across every subcommand: one line on stderr saying what is
wrong, the documented exit status, no traceback, and no file changed or
half-written (the working directory is snapshotted before and after)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rrcheck.cli import main

CX = "cx.json"   # a real counterexample, written once per test directory


def _counterexample(d: Path) -> dict:
    assert main(["check", "--mutant", "sbml/no-duplicate-suppression", "--out", str(d / "cxdir"),
                 "--no-progress"]) == 1
    f = d / "cxdir" / "sbml__no-duplicate-suppression.json"
    data = json.loads(f.read_text())
    f.unlink()
    (d / "cxdir").rmdir()
    return data


@pytest.fixture(scope="module")
def cx_data(tmp_path_factory):
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return _counterexample(tmp_path_factory.mktemp("cx"))


def edited(change):
    def make(d: Path, data: dict) -> None:
        data = json.loads(json.dumps(data))
        change(data)
        (d / CX).write_text(json.dumps(data))
    return make


def text(name: str, content: str | bytes):
    def make(d: Path, data: dict) -> None:
        (d / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    return make


def workload(doc: dict, name: str = "w.toml"):
    """A workload file from a document (written as JSON under a .json name,
    or as TOML by hand for .toml)."""
    def make(d: Path, data: dict) -> None:
        (d / name).write_text(json.dumps(doc))
    return make


GOOD_WL = {"determinism": "deterministic", "nodes": [0, 1],
           "process": [{"program": [{"op": "send", "to": 1}]}, {"program": [{"op": "recv", "from": 0}]}]}


def wl(**change):
    return workload({**GOOD_WL, **change}, "w.json")


def procs(*programs):
    return [{"program": list(p)} for p in programs]


def run_dir(files: dict):
    def make(d: Path, data: dict) -> None:
        (d / "run").mkdir()
        for name, content in files.items():
            (d / "run" / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    return make


def both(*makers):
    def make(d, data):
        for m in makers:
            m(d, data)
    return make


def nothing(d, data):
    pass


RUN_JSON = json.dumps({"protocol": "sbml", "knobs": {}, "workload": "ring", "n": 2, "nodes": 1,
                       "node_of": [0, 0], "group_of": [0, 0], "iters": 1, "mode": "soft",
                       "checkpoint_every": 0})

CASES = [
    # --- check: names and option values
    ("check-unknown-protocol", ["check", "nosuch"], nothing, 2, "unknown protocol"),
    ("check-unknown-workload", ["check", "sbml", "--workload", "nosuch"], nothing, 2, "unknown workload"),
    ("check-unknown-mutant", ["check", "sbml", "--mutant", "nosuch"], nothing, 2, "unknown mutant"),
    ("check-foreign-mutant", ["check", "sbml", "--mutant", "chandy-lamport/no-channel-recording"], nothing, 2,
     "variant of"),
    ("check-unknown-property", ["check", "sbml", "--property", "Nothing"], nothing, 2, "unknown property"),
    ("check-nothing", ["check"], nothing, 2, "name a protocol"),
    ("check-procs-0", ["check", "sbml", "--procs", "0"], nothing, 2, "--procs"),
    ("check-procs-word", ["check", "sbml", "--procs", "two"], nothing, 2, "whole number"),
    ("check-procs-huge", ["check", "sbml", "--workload", "ring", "--procs", "100000"], nothing, 2, "at most"),
    ("check-nodes-0", ["check", "sbml", "--nodes", "0"], nothing, 2, "--nodes"),
    ("check-more-nodes-than-procs", ["check", "sbml", "--workload", "ring", "--procs", "2", "--nodes", "3"],
     nothing, 2, "more nodes than"),
    ("check-too-few-procs", ["check", "sbml", "--workload", "any_source_race", "--procs", "2"], nothing, 2,
     "at least 3"),
    ("check-fixed-sized", ["check", "sbml", "--workload", "fig1", "--procs", "4"], nothing, 2, "fixed"),
    ("check-failures-negative", ["check", "sbml", "--failures", "-1"], nothing, 2, "--failures"),
    # absurd values that would run without end or exhaust the machine (issue: runaway work)
    ("check-failures-huge", ["check", "sbml", "--failures", "99999999999999999999"], nothing, 2, "at most 1,000"),
    ("fuzz-failures-huge", ["fuzz", "sbml", "--failures", "5000"], nothing, 2, "at most 1,000"),
    ("check-workers-huge", ["check", "sbml", "--workers", "10000"], nothing, 2, "8 per core"),
    ("tla-workers-huge", ["tla", "coordinated", "--workers", "10000"], nothing, 2, "8 per core"),
    ("tla-timeout-0", ["tla", "coordinated", "--timeout", "0"], nothing, 2, "positive number of seconds"),
    ("tla-timeout-negative", ["tla", "coordinated", "--timeout", "-5"], nothing, 2, "positive number of seconds"),
    ("tla-keep-is-file", ["tla", "coordinated", "--keep", "f.txt"], text("f.txt", "keep"), 2, "not a directory"),
    ("check-checkpoints-negative", ["check", "sbml", "--checkpoints", "-2"], nothing, 2, "--checkpoints"),
    ("check-depth-0", ["check", "sbml", "--depth", "0"], nothing, 2, "--depth"),
    ("check-crash-kinds", ["check", "sbml", "--crash-kinds", "disk"], nothing, 2, "--crash-kinds"),
    ("check-crash-kinds-twice", ["check", "sbml", "--crash-kinds", "process,process"], nothing, 2, "--crash-kinds"),
    ("check-max-states-0", ["check", "sbml", "--max-states", "0"], nothing, 2, "--max-states"),
    ("check-time-limit-0", ["check", "sbml", "--time-limit", "0"], nothing, 2, "--time-limit"),
    ("check-time-limit-nan", ["check", "sbml", "--time-limit", "nan"], nothing, 2, "--time-limit"),
    ("check-strategy", ["check", "sbml", "--strategy", "astar"], nothing, 2, "invalid choice"),
    ("check-scenario-too-big", ["check", "sbml", "--scenario", "9"], nothing, 2, "default scenarios"),
    ("check-scenario-0", ["check", "sbml", "--scenario", "0"], nothing, 2, "--scenario"),
    ("check-all-and-protocol", ["check", "--all", "sbml"], nothing, 2, "--all"),
    ("check-all-and-workload", ["check", "--all", "--workload", "ring"], nothing, 2, "--all"),
    ("check-mutant-scenario", ["check", "--mutant", "sbml/no-event-logging", "--scenario", "1"], nothing, 2,
     "own"),
    ("check-unknown-option", ["check", "sbml", "--frobnicate"], nothing, 2, "unrecognized"),
    # --- check: grouping files
    ("check-grouping-not-json", ["check", "sbml", "--grouping", "g.json"], text("g.json", "{no"), 2, "not a readable"),
    ("check-grouping-short", ["check", "sbml", "--grouping", "g.json"], text("g.json", "[0]"), 2, "group ids for"),
    ("check-grouping-object", ["check", "sbml", "--grouping", "g.json"], text("g.json", '{"a": 1}'), 2,
     "one integer group id"),
    ("check-grouping-k", ["check", "sbml", "--grouping", "node:99"], nothing, 2, "number of groups"),
    # --- check: output paths
    ("check-out-is-file", ["check", "sbml", "--out", "f.txt"], text("f.txt", "keep"), 2, "not a directory"),
    ("check-out-under-file", ["check", "sbml", "--out", "f.txt/sub"], text("f.txt", "keep"), 2, "not a directory"),
    ("check-out-empty", ["check", "sbml", "--out", ""], nothing, 2, "--out"),
    # a pseudo file system refuses even root, whom the permission bits let through
    ("check-out-cannot-be-made", ["check", "sbml", "--out", "/proc/rrcheck-out"], nothing, 2, "cannot write there"),
    # --- workload files
    ("wl-not-toml", ["check", "sbml", "--workload", "w.toml"], text("w.toml", "determinism = ["), 2, "not TOML"),
    ("wl-binary", ["check", "sbml", "--workload", "w.toml"], text("w.toml", b"\xff\xfe\x00\x01"), 2, "binary"),
    ("wl-empty", ["check", "sbml", "--workload", "w.toml"], text("w.toml", ""), 2, "determinism"),
    ("wl-extension", ["check", "sbml", "--workload", "w.yaml"], text("w.yaml", "x"), 2, "unknown workload"),
    ("wl-missing", ["check", "sbml", "--workload", "nope.toml"], nothing, 2, "no such file"),
    ("wl-unknown-op", ["check", "sbml", "--workload", "w.json"],
     wl(process=procs([{"op": "jump"}], [])), 2, "process.0.program.0"),
    ("wl-send-to-self", ["check", "sbml", "--workload", "w.json"],
     wl(process=procs([{"op": "send", "to": 0}], [])), 2, "not another process"),
    ("wl-recv-out-of-range", ["check", "sbml", "--workload", "w.json"],
     wl(process=procs([{"op": "send", "to": 1}], [{"op": "recv", "from": 7}])), 2, "not another process"),
    ("wl-nodes-length", ["check", "sbml", "--workload", "w.json"], wl(nodes=[0]), 2, "nodes must"),
    ("wl-unmatched-send", ["check", "sbml", "--workload", "w.json"],
     wl(process=procs([{"op": "send", "to": 1}, {"op": "send", "to": 1}], [{"op": "recv", "from": 0}])), 2,
     "exactly one receive"),
    ("wl-wrong-class", ["check", "sbml", "--workload", "w.json"],
     wl(nodes=[0, 1, 2], process=procs([{"op": "recv", "from": "ANY"}, {"op": "recv", "from": "ANY"},
                                         {"op": "send", "to": 1}],
                                        [{"op": "send", "to": 0}, {"op": "recv", "from": 0}],
                                        [{"op": "send", "to": 0}])), 2, "declares deterministic"),
    ("wl-deadlock", ["check", "sbml", "--workload", "w.json"],
     wl(process=procs([{"op": "recv", "from": 1}, {"op": "send", "to": 1}],
                      [{"op": "recv", "from": 0}, {"op": "send", "to": 0}])), 2, "deadlock"),
    ("wl-collectives-differ", ["check", "sbml", "--workload", "w.json"],
     wl(process=procs([{"op": "barrier"}], [])), 2, "same collectives"),
    ("wl-too-many-procs", ["check", "sbml", "--workload", "w.json"],
     wl(nodes=[0] * 9, process=procs(*[[]] * 9)), 2, "at most 8"),
    ("wl-nested", ["check", "sbml", "--workload", "w.json"], text("w.json", "[" * 100000 + "]" * 100000), 2,
     "w.json"),
    ("wl-oversized", ["check", "sbml", "--workload", "w.json"], text("w.json", " " * (2 << 20)), 2, "larger than"),
    ("wl-with-procs", ["check", "sbml", "--workload", "w.json", "--procs", "3"], wl(), 2, "drop --procs"),
    ("check-workload-unknown", ["check-workload", "nosuch"], nothing, 2, "unknown workload"),
    ("check-workload-procs-1", ["check-workload", "ring", "--procs", "1"], nothing, 2, "--procs"),
    # --- replay: files
    ("replay-missing", ["replay", "nope.json"], nothing, 2, "no such counterexample"),
    ("replay-directory", ["replay", "."], nothing, 2, "cannot read it"),
    ("replay-not-json", ["replay", CX], text(CX, "{not json"), 2, "not JSON"),
    ("replay-empty", ["replay", CX], text(CX, ""), 2, "not JSON"),
    ("replay-binary", ["replay", CX], text(CX, b"\x89PNG\r\n\x1a\n\xff"), 2, "binary"),
    ("replay-nested", ["replay", CX], text(CX, "[" * 100000 + "]" * 100000), 2, "nested too deep"),
    ("replay-schema-only", ["replay", CX], text(CX, '{"schema_version": 1}'), 2, "malformed counterexample"),
    ("replay-schema-99", ["replay", CX], text(CX, '{"schema_version": 99}'), 2, "schema version"),
    ("replay-list", ["replay", CX], text(CX, "[1, 2]"), 2, "malformed counterexample"),
    ("replay-foreign-mutant", ["replay", CX], edited(lambda d: d.update(mutant="hmpl/no-release")), 2,
     "variant of 'hmpl'"),
    ("replay-unknown-protocol", ["replay", CX], edited(lambda d: d.update(protocol="nope")), 2, "unknown protocol"),
    ("replay-knob-value", ["replay", CX], edited(lambda d: d["knobs"].update(drop_duplicates=True)), 2,
     "knob drop_duplicates"),
    ("replay-mutant-knob-dropped", ["replay", CX], edited(lambda d: d["knobs"].pop("drop_duplicates")), 2,
     "knob drop_duplicates missing"),
    ("replay-made-up-knob", ["replay", CX], edited(lambda d: d["knobs"].update(warp=1)), 2, "no knob 'warp'"),
    ("replay-property-not-applicable", ["replay", CX], edited(lambda d: d["properties"].append("CausalReplayOrder")),
     2, "does not apply"),
    ("replay-violation-not-checked", ["replay", CX],
     edited(lambda d: d.update(properties=["NoOrphan"])), 2, "does not check"),
    ("replay-unknown-event", ["replay", CX], edited(lambda d: d["events"].__setitem__(0, ["teleport", 1])), 2,
     "not a scheduler event"),
    ("replay-event-out-of-range", ["replay", CX], edited(lambda d: d["events"].__setitem__(0, ["step", 9])), 2,
     "names no process"),
    ("replay-procs-inconsistent", ["replay", CX], edited(lambda d: d.update(procs=5)), 2, "placement has"),
    ("replay-grouping-short", ["replay", CX], edited(lambda d: d.update(grouping=[0])), 2, "do not fit"),
    ("replay-event-not-enabled", ["replay", CX], edited(lambda d: d["events"].insert(0, ["restart", 0])), 2,
     "not enabled"),
    ("replay-changed-values", ["replay", CX], edited(lambda d: d["violation"]["values"].update(k=7)), 1,
     "NOT reproduced"),
    ("replay-changed-property", ["replay", CX], edited(lambda d: d["violation"].update(property="NoOrphan")), 1,
     "NOT reproduced"),
    ("replay-svg-directory", ["replay", CX, "--svg", "."], edited(lambda d: None), 2, "is a directory"),
    ("replay-svg-under-file", ["replay", CX, "--svg", "f.txt/x.svg"], both(edited(lambda d: None),
                                                                           text("f.txt", "keep")), 2,
     "not a directory"),
    ("replay-svg-stdout-json", ["replay", CX, "--svg", "-", "--json"], edited(lambda d: None), 2, "standard output"),
    # --- fuzz
    ("fuzz-nothing", ["fuzz"], nothing, 2, "name a protocol"),
    ("fuzz-unknown", ["fuzz", "nosuch"], nothing, 2, "unknown protocol"),
    ("fuzz-examples-0", ["fuzz", "sbml", "--examples", "0"], nothing, 2, "--examples"),
    ("fuzz-unknown-mutant", ["fuzz", "--mutant", "nosuch"], nothing, 2, "unknown mutant"),
    ("fuzz-out-is-file", ["fuzz", "sbml", "--out", "f.txt"], text("f.txt", "keep"), 2, "not a directory"),
    ("fuzz-profile", ["fuzz", "sbml", "--profile", "warp"], nothing, 2, "invalid choice"),
    ("fuzz-more-nodes", ["fuzz", "sbml", "--workload", "ring", "--procs", "2", "--nodes", "4"], nothing, 2,
     "more nodes"),
    # --- group
    ("group-oversized", ["group", "grid2d:100000x100000", "--method", "node"], nothing, 2, "at most"),
    ("group-graph-oversized", ["group", "g.json", "--groups", "2"],
     text("g.json", '{"kind": "rrcheck.commgraph", "n": 100000000, "edges": []}'), 2, "at most"),
    ("group-graph-edge-out-of-range", ["group", "g.json", "--groups", "2"],
     text("g.json", '{"kind": "rrcheck.commgraph", "n": 3, "edges": [[0, 7, 1.0]]}'), 2, "outside 0..2"),
    ("group-oversized-3d", ["group", "grid3d:1000x1000x1000", "--method", "node"], nothing, 2, "at most"),
    ("group-zero-size", ["group", "grid2d:0x3"], nothing, 2, "positive sizes"),
    ("group-unknown", ["group", "nosuch"], nothing, 2, "unknown pattern"),
    ("group-method", ["group", "cgpop", "--method", "x"], nothing, 2, "unknown method"),
    ("group-groups", ["group", "cgpop", "--groups", "-1"], nothing, 2, "--groups"),
    ("group-graph-not-json", ["group", "g.json"], text("g.json", "{"), 2, "not readable JSON"),
    ("group-save-directory", ["group", "grid2d:4x4", "--method", "node", "--save", "."], nothing, 2,
     "is a directory"),
    # --- run, check-trace, campaign (refused before mpiexec starts)
    ("run-unknown", ["run", "nosuch"], nothing, 2, "unknown protocol"),
    ("run-one-rank", ["run", "sbml", "-n", "1"], nothing, 2, "-n must be"),
    ("run-more-nodes", ["run", "sbml", "-n", "4", "--nodes", "5"], nothing, 2, "--nodes"),
    ("run-crash-rank", ["run", "sbml", "--crash", "9@10"], nothing, 2, "there are 4 ranks"),
    ("run-crash-garbage", ["run", "sbml", "--crash", "soon"], nothing, 2, "RANK@EVENT"),
    ("run-timeout-0", ["run", "sbml", "--timeout", "0"], nothing, 2, "--timeout"),
    ("run-oversized-ranks", ["run", "sbml", "-n", "100000", "--nodes", "2"], nothing, 2, "at most 256"),
    ("run-oversized-size", ["run", "sbml", "--size", "1000000"], nothing, 2, "at most 8,192"),
    ("run-iters-0", ["run", "sbml", "--iters", "0"], nothing, 2, "--iters"),
    ("run-not-driven", ["run", "chandy-lamport"], nothing, 2, "does not drive"),
    ("run-workload", ["run", "sbml", "--workload", "fig1"], nothing, 2, "unknown runtime workload"),
    ("run-out-not-a-run", ["run", "sbml", "--out", "mine"], both(lambda d, x: (d / "mine").mkdir(),
                                                                 text("mine/notes.txt", "precious")), 2,
     "not a run directory"),
    ("check-trace-missing", ["check-trace", "nope"], nothing, 2, "not a run directory"),
    ("check-trace-no-config", ["check-trace", "run"], run_dir({"x": "y"}), 2, "no run.json"),
    ("check-trace-binary", ["check-trace", "run"], run_dir({"run.json": b"\xff\x00\xfe"}), 2, "binary"),
    ("check-trace-empty", ["check-trace", "run"], run_dir({"run.json": ""}), 2, "empty"),
    ("check-trace-foreign", ["check-trace", "run"], run_dir({"run.json": '{"name": "x"}'}), 2,
     "not a run configuration"),
    ("check-trace-unknown-protocol", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON.replace('"sbml"', '"nope"')}), 2, "unknown protocol"),
    ("check-trace-placement", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON.replace('"node_of": [0, 0]', '"node_of": [0]')}), 2, "placement"),
    ("check-trace-journal-binary", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON, "journal-0-0.jsonl": b"\xff\xfe"}), 2, "binary"),
    ("check-trace-journal-foreign", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON, "journal-0-0.jsonl": '{"x": 1}\n{"a": []}\n'}), 2, "not a journal event"),
    ("check-trace-journal-empty-event", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON, "journal-0-0.jsonl": '{"a": []}\n{"a": []}\n'}), 2, "not a journal event"),
    ("check-trace-journal-victim", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON, "journal-0-0.jsonl": '{"a": ["crash", 0], "f": 1, "victims": [7]}\n'}), 2,
     "run of 2 ranks"),
    ("check-trace-no-journal", ["check-trace", "run"], run_dir({"run.json": RUN_JSON}), 2, "no journal"),
    ("campaign-modes", ["campaign", "--modes", "hard"], nothing, 2, "--modes"),
    ("campaign-points-0", ["campaign", "--points", "0"], nothing, 2, "--points"),
    ("campaign-report-directory", ["campaign", "--report", "."], nothing, 2, "is a directory"),
    ("campaign-out-is-file", ["campaign", "--out", "f.txt"], text("f.txt", "keep"), 2, "not a directory"),
    # --- the dispatcher
    ("unknown-subcommand", ["frobnicate"], nothing, 2, "invalid choice"),
    ("list-unknown-option", ["list", "--bogus"], nothing, 2, "unrecognized"),
]


def snapshot(d: Path) -> dict:
    return {str(p.relative_to(d)): (p.read_bytes() if p.is_file() else None, p.stat().st_mode)
            for p in sorted(d.rglob("*"))}


@pytest.mark.parametrize("name,argv,setup,status,needle", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line(name, argv, setup, status, needle, tmp_path, monkeypatch, capsys, cx_data):
    monkeypatch.chdir(tmp_path)
    setup(tmp_path, cx_data)
    before = snapshot(tmp_path)
    try:
        code = main(argv)
    except SystemExit as e:   # argparse
        code = e.code
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == status, err
    assert len(lines) == 1 and lines[0].startswith("rrcheck: "), err
    assert needle in lines[0], lines[0]
    assert "Traceback" not in err
    assert snapshot(tmp_path) == before, "a file was changed or left behind"


def test_enough_bad_inputs():
    assert len(CASES) >= 60
    commands = {c[1][0] for c in CASES}
    assert {"check", "check-workload", "replay", "fuzz", "group", "run", "check-trace", "campaign",
            "list"} <= commands
