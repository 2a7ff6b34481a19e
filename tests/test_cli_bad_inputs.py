"""Bad inputs across every subcommand: one line on stderr saying what is
wrong, the documented exit status, no traceback, and no file changed or
half-written (the working directory is snapshotted before and after)."""
from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
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
    ("wl-extension", ["check", "sbml", "--workload", "w.yaml"], text("w.yaml", "x"), 2, "ends in .toml or .json"),
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
    ("replay-directory", ["replay", "."], nothing, 2, "a directory, not a regular file"),
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


# --- the classes of issue 41: finite resources and hostile files

def fifo(name: str):
    def make(d: Path, data: dict) -> None:
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(d / name)
    return make


def link(name: str, target: str):
    def make(d: Path, data: dict) -> None:
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).symlink_to(target)
    return make


def cx_text(change):
    """The counterexample as JSON text, then ``change`` applied to the text."""
    def make(d: Path, data: dict) -> None:
        (d / CX).write_text(change(json.dumps(data)))
    return make


def stdout(path):
    """Standard output redirected to ``path`` (None: closed)."""
    def make(d, data):
        return {"stdout": path}
    return make


def patched(obj_path: str, attr: str, value):
    def make(d, data):
        import importlib
        return {"patch": [(importlib.import_module(obj_path), attr, value)]}
    return make


def gone(d: Path, data: dict):
    sub = d / "cwd"
    sub.mkdir()
    os.chdir(sub)
    sub.rmdir()
    return {"gone": True}


def environ(name: str, value: str):
    """An environment variable set for the command (``value`` may name a path under the test's directory)."""
    def make(d, data):
        return {"env": {name: value}}
    return make


def specs_copy(edit):
    """A copy of specs/ in ``specs`` (``edit(d)`` changes it), for RRCHECK_SPECS."""
    def make(d, data):
        import shutil
        from rrcheck.checker.tla.model import SPECS
        shutil.copytree(SPECS, d / "specs")
        edit(d / "specs")
    return make


def with_opts(*makers):
    def make(d, data):
        opts: dict = {}
        for m in makers:
            for k, v in (m(d, data) or {}).items():
                opts[k] = opts.get(k, []) + v if k == "patch" else v
        return opts
    return make


def search_dir(change):
    """A --recover directory holding a search.json of sbml on ring, changed by ``change``."""
    def make(d: Path, data: dict) -> None:
        (d / "sv").mkdir()
        (d / "sv" / "search.json").write_text(change(SEARCH))
    return make


def _search_json() -> str:
    import contextlib
    import io
    import tempfile
    with tempfile.TemporaryDirectory() as t, contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        main(["check", "sbml", "--workload", "ring", "--failures", "0", "--checkpoint", f"{t}/sv",
              "--max-states", "50", "--no-progress", "--out", f"{t}/o"])
        return Path(f"{t}/sv/search.json").read_text()


SEARCH = _search_json()
RECOVER = ["check", "sbml", "--workload", "ring", "--failures", "0", "--recover", "sv", "--no-progress"]
RUNAWAY = {"determinism": "non-deterministic", "nodes": list(range(8)),
           "process": [{"program": [{"op": "recv", "from": "ANY"}] * 63}]
           + [{"program": [{"op": "send", "to": 0}] * 9} for _ in range(7)]}
SMALL_CLASSIFICATION = patched("rrcheck.checker.model.classify", "MAX_STATES", 1_000)
X = CX
REPLAY = ["replay", X]
GRAPH = '{"kind": "rrcheck.commgraph", "n": 4, "edges": [[0, 1, 1.0], [1, 2, 1.0], [2, 3, 1.0]]}'
RUN_FILES = {"run.json": RUN_JSON, "journal-0-0.jsonl": '{"a": ["step", 0]}\n'}
BIG = "9" * 5000

NEW_CASES = [
    # --- a full disk (/dev/full): one line, exit 2, nothing half-written
    ("full", "full-svg", REPLAY + ["--svg", "/dev/full"], edited(lambda d: None), 2, "the disk is full"),
    ("full", "full-html", REPLAY + ["--html", "/dev/full"], edited(lambda d: None), 2, "the disk is full"),
    ("full", "full-itf", REPLAY + ["--itf", "/dev/full"], edited(lambda d: None), 2, "the disk is full"),
    ("full", "full-svg-to-stdout", REPLAY + ["--svg", "-"], with_opts(edited(lambda d: None), stdout("/dev/full")), 2,
     "standard output: not written"),
    ("full", "full-group-save", ["group", "grid2d:4x4", "--method", "node", "--save", "/dev/full"], nothing, 2,
     "the disk is full"),
    ("full", "full-list", ["list"], stdout("/dev/full"), 2, "standard output: not written (the disk is full)"),
    ("full", "full-list-json", ["list", "--json"], stdout("/dev/full"), 2, "standard output: not written"),
    ("full", "full-replay-stdout", REPLAY, with_opts(edited(lambda d: None), stdout("/dev/full")), 2,
     "standard output: not written"),
    ("full", "full-replay-json", REPLAY + ["--json"], with_opts(edited(lambda d: None), stdout("/dev/full")), 2,
     "standard output: not written"),
    ("full", "full-replay-explain", REPLAY + ["--explain"], with_opts(edited(lambda d: None), stdout("/dev/full")),
     2, "standard output: not written"),
    ("full", "full-check-workload", ["check-workload", "ring"], stdout("/dev/full"), 2, "standard output"),
    ("full", "full-check-workload-json", ["check-workload", "ring", "--json"], stdout("/dev/full"), 2,
     "standard output"),
    ("full", "full-check", ["check", "sbml", "--workload", "ring", "--no-progress", "--out", "o"],
     stdout("/dev/full"), 2, "standard output"),
    ("full", "full-group", ["group", "grid2d:4x4", "--method", "node"], stdout("/dev/full"), 2, "standard output"),
    ("full", "full-help", ["--help"], stdout("/dev/full"), 2, "standard output"),
    # --- standard output closed (`>&-`)
    ("closed", "closed-list", ["list"], stdout(None), 2, "standard output: not written (it is closed)"),
    ("closed", "closed-replay", REPLAY, with_opts(edited(lambda d: None), stdout(None)), 2, "it is closed"),
    ("closed", "closed-check-workload", ["check-workload", "ring"], stdout(None), 2, "it is closed"),
    # --- an output that is an input
    ("same", "svg-is-input", REPLAY + ["--svg", X], edited(lambda d: None), 2, "is the input"),
    ("same", "html-is-input", REPLAY + ["--html", X], edited(lambda d: None), 2, "is the input"),
    ("same", "itf-is-input", REPLAY + ["--itf", X], edited(lambda d: None), 2, "is the input"),
    ("same", "svg-is-input-spelled", REPLAY + ["--svg", f"./{X}"], edited(lambda d: None), 2, "is the input"),
    ("same", "svg-is-input-by-link", REPLAY + ["--svg", "l.json"], both(edited(lambda d: None), link("l.json", X)),
     2, "is the input"),
    ("same", "svg-is-input-hard-link", REPLAY + ["--svg", "h.json"],
     both(edited(lambda d: None), lambda d, x: os.link(d / X, d / "h.json")), 2, "is the input"),
    ("same", "group-save-is-graph", ["group", "g.json", "--groups", "2", "--save", "g.json"], text("g.json", GRAPH),
     2, "is the input"),
    ("same", "predict-out-is-config", ["predict", "run", "--out", "run/run.json"], run_dir(RUN_FILES), 2,
     "is the input"),
    ("same", "predict-out-is-journal", ["predict", "run", "--out", "run/journal-0-0.jsonl"], run_dir(RUN_FILES), 2,
     "is the input"),
    ("same", "predict-out-directory", ["predict", "run", "--out", "run"], run_dir(RUN_FILES), 2, "is a directory"),
    ("same", "tla-keep-file", ["tla", "coordinated", "--keep", "k"], text("k", "mine"), 2, "not a directory"),
    # --- devices, FIFOs and links to them as inputs: refused before a byte is read
    ("device", "replay-dev-zero", ["replay", "/dev/zero"], nothing, 2, "a device, not a regular file"),
    ("device", "replay-dev-null", ["replay", "/dev/null"], nothing, 2, "a device, not a regular file"),
    ("device", "replay-fifo", ["replay", "f.json"], fifo("f.json"), 2, "a FIFO, not a regular file"),
    ("device", "replay-link-to-zero", ["replay", "z.json"], link("z.json", "/dev/zero"), 2, "a device"),
    ("device", "workload-link-to-zero", ["check", "sbml", "--workload", "w.json"], link("w.json", "/dev/zero"), 2,
     "a device"),
    ("device", "workload-fifo", ["check", "sbml", "--workload", "w.toml"], fifo("w.toml"), 2, "a FIFO"),
    ("device", "check-workload-link-to-zero", ["check-workload", "w.json"], link("w.json", "/dev/zero"), 2,
     "a device"),
    ("device", "grouping-dev-zero", ["check", "sbml", "--grouping", "/dev/zero"], nothing, 2, "--grouping"),
    ("device", "grouping-fifo", ["check", "sbml", "--grouping", "g.json"], fifo("g.json"), 2, "--grouping"),
    ("device", "recover-link-to-zero", RECOVER, link("sv/search.json", "/dev/zero"), 2, "a device"),
    ("device", "recover-fifo", RECOVER, fifo("sv/search.json"), 2, "a FIFO"),
    ("device", "check-trace-config-zero", ["check-trace", "run"], link("run/run.json", "/dev/zero"), 2, "a device"),
    ("device", "check-trace-config-fifo", ["check-trace", "run"], fifo("run/run.json"), 2, "a FIFO"),
    ("device", "check-trace-journal-zero", ["check-trace", "run"],
     both(run_dir({"run.json": RUN_JSON}), link("run/journal-0-0.jsonl", "/dev/zero")), 2, "a device"),
    ("device", "predict-config-zero", ["predict", "run"], link("run/run.json", "/dev/zero"), 2, "a device"),
    ("device", "group-graph-zero", ["group", "g.json"], link("g.json", "/dev/zero"), 2, "a device"),
    ("device", "group-graph-fifo", ["group", "g.json"], fifo("g.json"), 2, "a FIFO"),
    ("device", "replay-oversized", ["replay", CX], text(CX, " " * (64 * 2**20 + 1)), 2, "larger than"),
    # --- integers no count can be
    ("integer", "cx-procs-5000-digits", REPLAY, cx_text(lambda t: t.replace('"procs": null', f'"procs": {BIG}')), 2,
     "5,000 digits"),
    ("integer", "cx-event-25-digits", REPLAY, cx_text(lambda t: t.replace('["step", 0]', '["step", ' + "9" * 25 + "]",
                                                                          1)), 2, "25 digits"),
    ("integer", "cx-negative-huge", REPLAY, cx_text(lambda t: t.replace('"procs": null', f'"procs": -{BIG}')), 2,
     "digits"),
    ("integer", "cx-nan", REPLAY, cx_text(lambda t: t.replace('"procs": null', '"procs": NaN')), 2, "NaN"),
    ("integer", "cx-infinity", REPLAY, cx_text(lambda t: t.replace('"procs": null', '"procs": Infinity')), 2,
     "Infinity"),
    ("integer", "cx-procs-huge-fits", REPLAY, edited(lambda d: d.update(procs=2**62)), 2, "procs"),
    ("integer", "cx-procs-negative", REPLAY, edited(lambda d: d.update(procs=-2)), 2, "procs"),
    ("integer", "search-depth-5000-digits", RECOVER, search_dir(lambda t: t.replace('"depth":', f'"x":{BIG},"depth":')),
     2, "5,000 digits"),
    ("integer", "search-negative-witness", RECOVER,
     search_dir(lambda t: t.replace('"witnesses":{', '"witnesses":{"crashes":-99,')), 2, "greater than or equal"),
    ("integer", "search-checkpointed-beyond", RECOVER,
     search_dir(lambda t: re.sub(r'"checkpointed":\[[0-9,]*\]', '"checkpointed":[7]', t)), 2, "damaged"),
    ("integer", "search-negative-depth", RECOVER, search_dir(lambda t: t.replace('"depth":', '"depth":-1,"x":')), 2,
     "search.json"),
    ("integer", "grouping-huge-id", ["check", "sbml", "--workload", "ring", "--grouping", "g.json"],
     text("g.json", f"[{BIG}, 0]"), 2, "--grouping"),
    ("integer", "graph-n-5000-digits", ["group", "g.json"],
     text("g.json", '{"kind": "rrcheck.commgraph", "n": ' + BIG + ', "edges": []}'), 2, "5,000 digits"),
    ("integer", "run-config-n-huge", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON.replace('"n": 2', f'"n": {BIG}')}), 2, "run.json"),
    ("integer", "journal-rank-huge", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON, "journal-0-0.jsonl": '{"a": ["step", ' + "9" * 30 + "]}\n"}), 2, "journal"),
    ("integer", "workload-to-huge", ["check", "sbml", "--workload", "w.json"],
     text("w.json", json.dumps(GOOD_WL).replace('"to": 1', f'"to": {BIG}')), 2, "w.json"),
    ("integer", "workload-node-huge", ["check", "sbml", "--workload", "w.json"],
     text("w.json", json.dumps(GOOD_WL).replace('"nodes": [0, 1]', '"nodes": [' + "9" * 25 + ", 1]")), 2, "w.json"),
    ("integer", "procs-30-digits", ["check", "sbml", "--workload", "ring", "--procs", "9" * 30], nothing, 2,
     "--procs"),
    ("integer", "max-states-400-digits", ["check", "sbml", "--max-states", "9" * 400], nothing, 2, "--max-states"),
    ("integer", "checkpoints-400-digits", ["check", "sbml", "--checkpoints", "9" * 400], nothing, 2,
     "--checkpoints"),
    ("integer", "depth-400-digits", ["check", "sbml", "--depth", "9" * 400], nothing, 2, "--depth"),
    ("integer", "scenario-400-digits", ["check", "sbml", "--scenario", "9" * 400], nothing, 2, "--scenario"),
    ("integer", "run-ranks-400-digits", ["run", "sbml", "-n", "9" * 400], nothing, 2, "-n"),
    # --- runaway work: bounded, refused in one line
    ("runaway", "runaway-check-workload", ["check-workload", "w.json"],
     with_opts(workload(RUNAWAY, "w.json"), SMALL_CLASSIFICATION), 2, "failure-free runs alone pass 1,000"),
    ("runaway", "runaway-check", ["check", "sbml", "--workload", "w.json", "--anyway"],
     with_opts(workload(RUNAWAY, "w.json"), SMALL_CLASSIFICATION), 2, "failure-free runs alone pass"),
    ("runaway", "runaway-fuzz", ["fuzz", "sbml", "--workload", "w.json"],
     with_opts(workload(RUNAWAY, "w.json"), SMALL_CLASSIFICATION), 2, "failure-free runs alone pass"),
    ("runaway", "runaway-api-style-builtin", ["check-workload", "cg", "--procs", "8"], SMALL_CLASSIFICATION, 2,
     "make it smaller"),
    ("runaway", "runaway-check-workload-time-limit", ["check-workload", "w.json", "--time-limit", "0.5"],
     workload(RUNAWAY, "w.json"), 2, "not all classified within the time limit"),
    ("runaway", "runaway-check-time-limit", ["check", "sbml", "--workload", "w.json", "--anyway", "--time-limit",
                                             "0.5"], workload(RUNAWAY, "w.json"), 2, "within the time limit"),
    ("runaway", "failures-1001", ["check", "sbml", "--failures", "1001"], nothing, 2, "at most 1,000"),
    ("runaway", "fuzz-examples-huge", ["fuzz", "sbml", "--examples", "1000000000000"], nothing, 2,
     "at most 10,000,000"),
    ("runaway", "run-iters-huge", ["run", "sbml", "--iters", "1000000000"], nothing, 2, "at most 100,000"),
    ("runaway", "campaign-points-huge", ["campaign", "--points", "1000000000"], nothing, 2, "at most 10,000"),
    ("runaway", "campaign-iters-huge", ["campaign", "--iters", "1000000000"], nothing, 2, "at most 100,000"),
    ("runaway", "check-workers-17-per-core", ["check", "sbml", "--workers", str(8 * (os.cpu_count() or 1) + 1)],
     nothing, 2, "8 per core"),
    ("runaway", "group-grid-huge", ["group", "grid2d:" + "9" * 30 + "x2", "--method", "node"], nothing, 2,
     "at most"),
    # --- absurd option values
    ("option", "time-limit-inf", ["check", "sbml", "--time-limit", "inf"], nothing, 2, "--time-limit"),
    ("option", "time-limit-negative", ["check", "sbml", "--time-limit", "-1"], nothing, 2, "--time-limit"),
    ("option", "time-limit-1e400", ["check", "sbml", "--time-limit", "1e400"], nothing, 2, "--time-limit"),
    ("option", "time-limit-word", ["check", "sbml", "--time-limit", "soon"], nothing, 2, "--time-limit"),
    ("option", "max-states-float", ["check", "sbml", "--max-states", "1.5"], nothing, 2, "whole number"),
    ("option", "checkpoint-every-0", ["check", "sbml", "--checkpoint-every", "0"], nothing, 2, "--checkpoint-every"),
    ("option", "checkpoint-every-nan", ["check", "sbml", "--checkpoint-every", "nan"], nothing, 2,
     "--checkpoint-every"),
    ("option", "workers-0", ["check", "sbml", "--workers", "0"], nothing, 2, "--workers"),
    ("option", "nodes-negative", ["check", "sbml", "--nodes", "-1"], nothing, 2, "--nodes"),
    ("option", "procs-1", ["check", "sbml", "--workload", "ring", "--procs", "1"], nothing, 2, "--procs"),
    ("option", "crash-kinds-empty", ["check", "sbml", "--crash-kinds", ""], nothing, 2, "--crash-kinds"),
    ("option", "property-of-other-protocol", ["check", "sbml", "--property", "Theorem1"], nothing, 2, "Theorem1"),
    ("option", "tla-timeout-inf", ["tla", "coordinated", "--timeout", "inf"], nothing, 2, "--timeout"),
    ("option", "tla-timeout-nan", ["tla", "coordinated", "--timeout", "nan"], nothing, 2, "--timeout"),
    ("option", "tla-workers-0", ["tla", "coordinated", "--workers", "0"], nothing, 2, "--workers"),
    ("option", "tla-unknown", ["tla", "nosuch"], nothing, 2, "nosuch"),
    ("names", "tla-specs-missing", ["tla", "coordinated"], environ("RRCHECK_SPECS", "nope"), 2,
     "RRCHECK_SPECS names nope, which has no Coordinated.tla"),
    ("names", "tla-all-no-manifest", ["tla", "--all"],
     with_opts(specs_copy(lambda s: (s / "manifest.json").unlink()), environ("RRCHECK_SPECS", "specs")), 2,
     "specs/manifest.json: no such file"),
    ("names", "tla-all-manifest-not-json", ["tla", "--all"],
     with_opts(specs_copy(lambda s: (s / "manifest.json").write_text("{")), environ("RRCHECK_SPECS", "specs")), 2,
     "not the specs' manifest"),
    ("names", "tla-all-manifest-no-models", ["tla", "--all"],
     with_opts(specs_copy(lambda s: (s / "manifest.json").write_text('{"rows": []}')),
               environ("RRCHECK_SPECS", "specs")), 2, "not the specs' manifest (KeyError: 'models')"),
    ("option", "run-timeout-nan", ["run", "sbml", "--timeout", "nan"], nothing, 2, "--timeout"),
    ("option", "run-timeout-inf", ["run", "sbml", "--timeout", "inf"], nothing, 2, "--timeout"),
    ("option", "run-size-negative", ["run", "sbml", "--size", "-3"], nothing, 2, "--size"),
    ("option", "run-checkpoint-every-negative", ["run", "sbml", "--checkpoint-every", "-1"], nothing, 2,
     "--checkpoint-every"),
    ("option", "run-crash-node-out-of-range", ["run", "sbml", "--crash", "node:9@10"], nothing, 2, "node"),
    ("option", "run-crash-negative-event", ["run", "sbml", "--crash", "0@-1"], nothing, 2, "RANK@EVENT"),
    ("option", "run-mode", ["run", "sbml", "--mode", "hard"], nothing, 2, "invalid choice"),
    ("option", "run-mutant-foreign", ["run", "sbml", "--mutant", "hmpl/no-release"], nothing, 2, "mutant"),
    ("option", "run-hostfile-missing", ["run", "sbml", "--hostfile", "nope"], nothing, 2, "--hostfile"),
    ("option", "campaign-timeout-nan", ["campaign", "--timeout", "nan"], nothing, 2, "--timeout"),
    ("option", "campaign-ranks-1", ["campaign", "-n", "1"], nothing, 2, "-n"),
    ("option", "campaign-protocol-unknown", ["campaign", "--protocols", "nosuch"], nothing, 2, "nosuch"),
    ("option", "fuzz-examples-word", ["fuzz", "sbml", "--examples", "many"], nothing, 2, "whole number"),
    ("option", "fuzz-failures-negative", ["fuzz", "sbml", "--failures", "-1"], nothing, 2, "--failures"),
    ("option", "prove-unknown", ["prove", "nosuch"], nothing, 2, "unknown lemma"),
    ("option", "prove-nothing", ["prove"], nothing, 2, "name a lemma"),
    ("option", "prove-mutant-unknown", ["prove", "--all", "--mutant", "nosuch"], nothing, 2, "nosuch"),
    ("option", "prove-out-file", ["prove", "theorem1", "--out", "f.txt"], text("f.txt", "keep"), 2, "f.txt"),
    ("option", "predict-not-a-run", ["predict", "nope"], nothing, 2, "not a run directory"),
    ("option", "predict-crash-kinds", ["predict", "run", "--crash-kinds", "disk"], run_dir(RUN_FILES), 2,
     "--crash-kinds"),
    ("option", "group-alpha-negative", ["group", "cgpop", "--alpha", "-1"], nothing, 2, "--alpha"),
    ("option", "group-groups-word", ["group", "cgpop", "--groups", "many"], nothing, 2, "--groups"),
    ("option", "check-workload-nodes-0", ["check-workload", "ring", "--nodes", "0"], nothing, 2, "--nodes"),
    ("option", "replay-unknown-option", REPLAY + ["--frobnicate"], edited(lambda d: None), 2, "unrecognized"),
    # --- the working directory removed under the command
    ("cwd", "cwd-gone-list", ["list"], gone, 2, "current directory no longer exists"),
    ("cwd", "cwd-gone-check", ["check", "sbml", "--workload", "ring"], gone, 2, "current directory"),
    ("cwd", "cwd-gone-replay", ["replay", "x.json"], gone, 2, "current directory"),
    # --- messages that name the right thing
    ("names", "cx-no-knobs", REPLAY, edited(lambda d: d.pop("knobs")), 2, "at knobs: Field required"),
    ("names", "cx-no-violation", REPLAY, edited(lambda d: d.pop("violation")), 2, "at violation"),
    ("names", "cx-schema-string", REPLAY, edited(lambda d: d.update(schema_version="1")), 2, "the string '1'"),
    ("names", "cx-events-edited", REPLAY, edited(lambda d: d.update(events=d["events"][:-3] + [d["events"][-1]] * 3)),
     2, f"{X}: event"),
    ("names", "cx-events-not-a-list", REPLAY, edited(lambda d: d.update(events="step 0")), 2, "events"),
    ("names", "cx-event-empty", REPLAY, edited(lambda d: d["events"].__setitem__(0, [])), 2, "event"),
    ("names", "cx-knobs-list", REPLAY, edited(lambda d: d.update(knobs=[])), 2, "knobs"),
    ("names", "cx-placement-out-of-range", REPLAY, edited(lambda d: d.update(placement=[0, 9])), 2, "placement"),
    ("names", "cx-tool-number", REPLAY, edited(lambda d: d.update(tool=7)), 2, "tool"),
    ("names", "run-config-missing-field", ["check-trace", "run"],
     run_dir({"run.json": json.dumps({k: v for k, v in json.loads(RUN_JSON).items() if k != "n"})}), 2, "n"),
    ("names", "journal-torn-first-line", ["check-trace", "run"],
     run_dir({"run.json": RUN_JSON, "journal-0-0.jsonl": '{"a": ["ste'}), 2, "journal-0-0.jsonl:1"),
]
CASES += [c[1:] for c in NEW_CASES]


def snapshot(d: Path) -> dict:
    """Every entry under ``d``: a link as its target, a FIFO or device as its kind (never read)."""
    out = {}
    for p in sorted(d.rglob("*")):
        st = p.lstat()
        if stat.S_ISLNK(st.st_mode):
            out[str(p.relative_to(d))] = ("link", os.readlink(p))
        elif stat.S_ISREG(st.st_mode):
            out[str(p.relative_to(d))] = (p.read_bytes(), st.st_mode)
        else:
            out[str(p.relative_to(d))] = (None, st.st_mode)
    return out


@pytest.mark.parametrize("name,argv,setup,status,needle", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line(name, argv, setup, status, needle, tmp_path, monkeypatch, capsys, cx_data):
    monkeypatch.chdir(tmp_path)
    opts = setup(tmp_path, cx_data) or {}
    for obj, attr, value in opts.get("patch", ()):
        monkeypatch.setattr(obj, attr, value)
    for name, value in opts.get("env", {}).items():
        monkeypatch.setenv(name, value)
    before = snapshot(tmp_path)
    if "stdout" in opts:   # standard output redirected: to /dev/full, or closed (None)
        monkeypatch.setattr(sys, "stdout", opts["stdout"] and open(opts["stdout"], "w"))
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
    if opts.get("gone"):
        return   # the working directory itself was removed
    assert snapshot(tmp_path) == before, "a file was changed or left behind"


def test_enough_bad_inputs():
    assert len(NEW_CASES) >= 120 and len({c[0] for c in CASES}) == len(CASES)
    assert {"full", "closed", "same", "device", "integer", "runaway", "option", "cwd", "names"} == \
        {c[0] for c in NEW_CASES}
    commands = {c[1][0] for c in CASES}
    assert {"check", "check-workload", "replay", "fuzz", "group", "run", "check-trace", "campaign",
            "list"} <= commands


def test_ascii_terminal_explains_without_a_traceback(tmp_path, cx_data):
    """`--explain` prints arrows and dashes; a terminal that takes only ASCII
    gets them escaped, and the replay still reproduces (exit 0)."""
    import subprocess
    (tmp_path / CX).write_text(json.dumps(cx_data))
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    r = subprocess.run([sys.executable, "-m", "rrcheck", "replay", CX, "--explain"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, encoding="ascii", errors="strict", timeout=600)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "reproduced" in r.stdout


def test_a_campaign_report_a_full_disk_refuses_is_printed(capsys):
    """Hours of runs are not lost to a full disk: the report goes to standard
    output and the one line says so (exit 2 through the UsageError)."""
    from rrcheck.errors import UsageError
    from rrcheck.runtime.campaign import _write_report
    with pytest.raises(UsageError, match=r"--report /dev/full: not written \(the disk is full\); the report is on"):
        _write_report("/dev/full", '{"runs": ["finished"]}\n')
    assert json.loads(capsys.readouterr().out) == {"runs": ["finished"]}


def test_a_table_standard_output_refuses_is_kept(tmp_path, monkeypatch):
    """`check --all > /dev/full`: the rows go on to a temporary file the line names."""
    from rrcheck.errors import UsageError
    from rrcheck.files import Stream
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    class FillsUp:   # a disk that takes 1,000 rows, then is full
        def __init__(self):
            self.rows = 0

        def write(self, text):
            if self.rows >= 1000:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.rows += text.endswith("\n")
            return len(text)

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", FillsUp())
    rows = Stream("table of checks")
    for i in range(3000):   # the rows printed before the disk filled are kept too
        rows.print(f"row {i}")
    with pytest.raises(UsageError, match="the table of checks is kept in") as e:
        rows.close()
    kept = Path(str(e.value).rsplit(" ", 1)[-1])
    assert kept.read_text().splitlines() == [f"row {i}" for i in range(3000)]


def test_ctrl_c_inside_z3_is_one_line(monkeypatch, capsys):
    """Ctrl-C during a Z3 query: Z3 answers unknown ("canceled"), or its ctypes
    layer wraps the KeyboardInterrupt in an ArgumentError; either way one line
    and exit 130, never a traceback or a verdict."""
    import ctypes
    import time

    import z3

    from rrcheck import cli
    from rrcheck.checker import symbolic
    from rrcheck.checker.symbolic.core import solved

    class Canceled:
        def check(self):
            return z3.unknown

        def reason_unknown(self):
            return "canceled"
    with pytest.raises(KeyboardInterrupt):
        solved(Canceled())

    class TimedOut(Canceled):  # Z3 may name its own timeout a cancel: not an interrupt
        def check(self):
            time.sleep(0.05)
            return z3.unknown
    assert solved(TimedOut(), timeout_ms=50) == z3.unknown

    def wrapped(*a, **k):
        raise ctypes.ArgumentError("argument 2: KeyboardInterrupt: ")
    monkeypatch.setattr(symbolic, "prove", wrapped)
    assert cli.main(["prove", "theorem1"]) == 130
    err = capsys.readouterr().err
    assert err == "rrcheck: interrupted\n"


def test_ctrl_c_inside_a_gc_callback_is_not_lost():
    """Python prints and drops an exception raised in a garbage-collector
    callback (Hypothesis registers one): Ctrl-C arriving there is asked again a
    moment later (SIGALRM), not lost with a traceback; anywhere else it raises."""
    import gc
    import signal
    import time
    from rrcheck.cli import _interrupt
    seen, fired = {}, []

    def callback(phase, info):
        seen.setdefault("frame", sys._getframe())
    gc.callbacks.append(callback)
    before = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        gc.collect()
        try:
            _interrupt(signal.SIGINT, seen["frame"])  # inside the callback: no exception now
        except KeyboardInterrupt:
            pytest.fail("raised inside a gc callback, where Python prints it and drops it")
        time.sleep(0.3)
        assert fired
        with pytest.raises(KeyboardInterrupt):
            _interrupt(signal.SIGINT, sys._getframe())
    finally:
        gc.callbacks.remove(callback)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
