"""The command line: user errors are one line and exit status 2, never a traceback."""
import json
import re
import subprocess
import sys
from pathlib import Path

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
    (["replay", "/"], "a directory, not a regular file"),
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


# --- outputs: rrcheck.files ------------------------------------------------------------------

def test_outputs_write_through_symlinks_keep_devices_and_get_the_umask(tmp_path):
    import os
    import stat

    from rrcheck.files import write_text
    old = os.umask(0o022)
    try:
        write_text(tmp_path / "new.txt", "a")
        assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644
        target = tmp_path / "target.txt"
        target.write_text("old")
        os.chmod(target, 0o600)
        (tmp_path / "link.txt").symlink_to(target)
        write_text(tmp_path / "link.txt", "new")
        assert (tmp_path / "link.txt").is_symlink() and target.read_text() == "new"
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
        write_text("/dev/null", "x")
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
        assert not list(tmp_path.glob(".*.tmp"))
    finally:
        os.umask(old)


def test_replay_svg_to_dev_null_and_stdout(tmp_path, capsys):
    import os
    import stat
    main(["check", "--mutant", "sbml/no-event-logging", "--out", str(tmp_path)])
    f = next(tmp_path.glob("*.json"))
    capsys.readouterr()
    assert main(["replay", str(f), "--svg", "/dev/null"]) == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    capsys.readouterr()
    assert main(["replay", str(f), "--svg", "-"]) == 0
    assert capsys.readouterr().out.startswith("<svg")


# --- honest results --------------------------------------------------------------------------

def test_check_protocol_checks_every_default_scenario(capsys):
    from rrcheck.checker.model.scenarios import DEFAULTS
    assert main(["check", "coordinated", "--json", "--no-progress"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [c["scenario"].split()[0] for c in d["checks"]] == [s.workload for s in DEFAULTS["coordinated"]]
    # a failure-free default (three waves) is vacuous on purpose
    assert all(c["verdict"] == "pass" and c["vacuous"] is (s.failures == 0)
               for c, s in zip(d["checks"], DEFAULTS["coordinated"]))
    assert all(re.search(r" n=\d+/\d+nodes f=\d+ c=\d+", c["scenario"]) for c in d["checks"])  # the values used


def test_a_pass_that_exercised_nothing_says_so(capsys):
    assert main(["check", "sbml", "--scenario", "2", "--failures", "0", "--json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert d["vacuous"] is True and "no failure" in d["vacuous_reason"] and "VACUOUS" in err
    # pingpong has no checkpoint site: a checkpoint bound with no checkpoint taken
    assert main(["check", "coordinated", "--workload", "pingpong", "--at-sites", "--checkpoints", "1"]) == 0
    out, err = capsys.readouterr()
    assert "VACUOUS" in out and "no checkpoint taken" in err


def test_the_witness_line_shows_the_protocols_witnesses(capsys):
    assert main(["check", "coordinated", "--scenario", "1"]) == 0
    out = capsys.readouterr().out
    assert "theorem1_lines_checked" in out and "crash_receiver_before_t2" not in out
    assert main(["check", "hmpl", "--scenario", "1"]) == 0
    out = capsys.readouterr().out
    assert "crash_receiver_before_t2" in out and "late_messages_logged" not in out


def test_interrupted_check_all_keeps_its_finished_rows(tmp_path):
    import signal
    import time
    p = subprocess.Popen([sys.executable, "-m", "rrcheck", "check", "--all", "--json", "--out", str(tmp_path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    first = p.stdout.readline()          # the first row, as soon as it finishes
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    rest, err = p.communicate(timeout=600)
    rows = [json.loads(x) for x in (first + rest).splitlines()]
    assert p.returncode == 130
    assert rows[0]["verdict"] == "pass" and rows[0]["protocol"] == "correlated-set"
    summary = rows[-1]
    assert summary["summary"] and summary["interrupted"] and not summary["ok"]
    assert summary["finished"] == len(rows) - 1 >= 1
    assert "[1/" in err and "interrupted" not in err.splitlines()[0]


# --- a workload written by hand --------------------------------------------------------------

RACE = Path(__file__).resolve().parent.parent / "examples" / "race.toml"


def test_a_hand_written_workload_is_checked_fuzzed_and_replayed(tmp_path, capsys, monkeypatch):
    import shutil
    w = tmp_path / "race.toml"
    shutil.copy(RACE, w)
    monkeypatch.chdir(tmp_path)
    assert main(["check-workload", "race.toml"]) == 0
    assert main(["check", "--mutant", "sbml/no-event-logging", "--workload", "race.toml", "--checkpoints", "0",
                 "--crash-kinds", "process", "--out", "cx"]) == 1
    assert main(["fuzz", "--mutant", "sbml/no-event-logging", "--workload", "race.toml", "--checkpoints", "0",
                 "--out", "fz"]) == 1
    capsys.readouterr()
    w.unlink()                              # the counterexamples carry the workload
    for f in [*Path("cx").glob("*.json"), *Path("fz").glob("*.json")]:
        assert main(["replay", str(f)]) == 0
        assert "reproduced" in capsys.readouterr().out


def test_a_workload_document_passes_the_correct_protocol_with_the_api():
    from rrcheck import check
    ping = {"name": "ping", "determinism": "deterministic", "nodes": [0, 1],
            "process": [{"program": [{"op": "send", "to": 1}, {"op": "checkpoint_site"}, {"op": "recv", "from": 1}]},
                        {"program": [{"op": "recv", "from": 0}, {"op": "send", "to": 0}]}]}
    c = check("sbml", ping, crash_kinds=("process",), failures=1, checkpoints=0)
    assert c.result.verdict == "pass" and c.vacuous is None and c.result.witnesses["rollbacks"] > 0
    assert c.scenario.label().startswith("ping.json n=2/2nodes")
    c = check(mutant="sbml/no-event-logging", workload=str(RACE), crash_kinds=("process",))
    assert c.result.verdict == "violation" and c.result.violation.property == "NoOrphan"


def test_an_incomplete_check_all_exits_3(tmp_path, capsys):
    assert main(["check", "--all", "--max-states", "10", "--no-progress", "--out", str(tmp_path)]) == 3
    out = capsys.readouterr().out
    assert "INCOMPLETE" in out and "incomplete" in out.splitlines()[-2]


def test_check_all_searches_as_asked(tmp_path, capsys):
    """--all takes the search options of one check, and refuses the same pairs."""
    argv = ["check", "--all", "--max-states", "10", "--no-progress", "--json", "--out", str(tmp_path)]
    assert main(argv + ["--strategy", "dfs"]) == 3
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()][:-1]
    assert rows and {r["strategy"] for r in rows} == {"dfs"}
    fresh = tmp_path / "new"
    table = ["check", "--all", "--no-progress", "--out", str(fresh), "--strategy", "dfs", "--workers", "2"]
    assert main(table) == 2
    assert capsys.readouterr().out == "" and not fresh.exists()


def test_check_all_gives_a_collision_or_a_raise_its_row_and_goes_on(tmp_path, capsys, monkeypatch):
    from rrcheck.checker.explicit import check
    from rrcheck.errors import FingerprintCollision, ModelError
    plan = check.default_plan()[:3]
    real = check.run_check
    faults = {0: FingerprintCollision("the path to fingerprint 0x1 replays to another state"),
              1: ModelError("the model raised AssertionError: an orphan reported twice")}

    def run(protocol, sc, mutant=None, **kw):
        k = next(i for i, x in enumerate(plan) if x == (protocol, mutant, sc))
        if k in faults:
            raise faults[k]
        return real(protocol, sc, mutant, **kw)
    monkeypatch.setattr(check, "default_plan", lambda: plan)
    monkeypatch.setattr(check, "run_check", run)
    assert main(["check", "--all", "--no-progress", "--json", "--out", str(tmp_path)]) == 1
    *rows, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["verdict"] for r in rows[:2]] == ["incomplete", "error"] and rows[2]["expected"]
    assert summary["finished"] == 3 and summary["incomplete"] == 1 and summary["not_as_expected"] == 1


def test_check_all_fails_on_a_correct_protocol_s_vacuous_pass(tmp_path, capsys, monkeypatch):
    """An explorer that stopped exploring crashes (here: a judge that never sees
    one, as a weakened explorer would leave it) turns a correct protocol's pass
    vacuous; check --all names the row and exits 1, not 0. A scenario that
    allows no failure says so on purpose and stays as expected."""
    import dataclasses

    from rrcheck.checker.explicit import check
    plan = [x for x in check.default_plan() if x[1] is None][:1]
    real = check.run_check

    def run(protocol, sc, mutant=None, **kw):
        c = real(protocol, sc, mutant, **kw)
        w = dict(c.result.witnesses, crashes=0, node_crashes=0)
        return dataclasses.replace(c, result=dataclasses.replace(c.result, witnesses=w))
    monkeypatch.setattr(check, "default_plan", lambda: plan)
    monkeypatch.setattr(check, "run_check", run)
    assert main(["check", "--all", "--no-progress", "--json", "--out", str(tmp_path)]) == 1
    *rows, summary = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["vacuous"] and summary["not_as_expected"] == 1 and summary["vacuous"]
    calm = [(plan[0][0], None, dataclasses.replace(plan[0][2], failures=0))]
    monkeypatch.setattr(check, "default_plan", lambda: calm)
    assert main(["check", "--all", "--no-progress", "--json", "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out.splitlines()[-1])["vacuous"] == [] and "VACUOUS" not in err
    assert main(["check", "--all", "--no-progress", "--out", str(tmp_path)]) == 0
    assert "ok (failure-free on purpose)" in capsys.readouterr().out


def test_replay_never_overwrites_the_counterexample_it_replays(tmp_path, capsys):
    """An output that is the input (by name or through a link) is refused in one
    line, exit 2, before any work, and the counterexample is left as it was."""
    src = Path(__file__).resolve().parent.parent / "counterexamples" / "sbml__no-event-logging.json"
    cx = tmp_path / "cx.json"
    cx.write_bytes(src.read_bytes())
    (tmp_path / "link.svg").symlink_to(cx)
    for opt, out in (("--svg", cx), ("--html", cx), ("--itf", cx), ("--svg", tmp_path / "link.svg")):
        assert main(["replay", str(cx), opt, str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "would overwrite" in err
        assert cx.read_bytes() == src.read_bytes()


def test_every_curated_counterexample_replays_with_its_values(capsys):
    root = Path(__file__).resolve().parent.parent / "counterexamples"
    for f in sorted(root.glob("*.json")):
        assert main(["replay", str(f), "--json"]) == 0, f
        d = json.loads(capsys.readouterr().out)
        assert d["reproduced"] and d["difference"] is None


def test_theorem1_unchecked_is_vacuous_only_where_a_set_has_members_to_check():
    """Fig. 1's sets are single processes (sender-based logging): Theorem1 has
    no intra-set message to check, which is no vacuity; on sets of two a pass
    that never checked a recovery line is."""
    from rrcheck.checker.invariants.verdict import Result, vacuity
    from rrcheck.checker.model.scenarios import Scenario
    w = {"crashes": 3, "rollbacks": 3, "terminal_states_after_failure": 2, "checkpoints": 1,
         "rollbacks_to_a_checkpoint": 1, "theorem1_lines_checked": 0}
    r = Result("pass", 10, 12, 4, 0.1, w, "bfs")
    assert vacuity("correlated-set", Scenario("fig1"), r, sets_of_one=True) is None
    assert "Theorem1 never checked" in vacuity("correlated-set", Scenario("ring", 4, 2), r)
    assert vacuity("correlated-set", Scenario("ring", 4, 2), Result("pass", 10, 12, 4, 0.1,
                                                                   {**w, "theorem1_lines_checked": 1}, "bfs")) is None


def test_every_command_and_option_says_what_it_does():
    """`rrcheck CMD --help` describes the command and every option (issue: six had none)."""
    import argparse

    from rrcheck.cli import parser
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, sp in sub.choices.items():
        assert sp.description, f"rrcheck {name} has no description"
        silent = [a.option_strings or a.dest for a in sp._actions if not a.help and a.dest != "help"]
        assert not silent, f"rrcheck {name}: {silent} have no help text"
