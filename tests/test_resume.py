"""A search saved by --checkpoint and continued by --recover reaches the verdict,
counts, witnesses and counterexample of the search never interrupted."""
import json
import signal
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from rrcheck.checker.explicit.check import run_check
from rrcheck.errors import UsageError
from rrcheck.checker.model.scenarios import DEFAULTS, scenario_for_mutant


def _same(a, b):
    assert (a.verdict, a.states, a.transitions, a.depth, a.witnesses, a.trace) == \
           (b.verdict, b.states, b.transitions, b.depth, b.witnesses, b.trace)
    assert (a.violation and a.violation.as_dict()) == (b.violation and b.violation.as_dict())


@pytest.mark.parametrize("protocol,mutant,sc", [
    ("coordinated", None, DEFAULTS["coordinated"][1]),
    ("hmpl", None, DEFAULTS["hmpl"][0]),
    ("sbml", "sbml/send-before-rsn-ack", scenario_for_mutant("sbml/send-before-rsn-ack")),
])
@pytest.mark.parametrize("stop_at", [1, 700, 3000])
def test_resumed_search_equals_uninterrupted(tmp_path, protocol, mutant, sc, stop_at):
    whole = run_check(protocol, sc, mutant, progress=False).result
    first = run_check(protocol, sc, mutant, progress=False, max_states=stop_at, checkpoint=tmp_path).result
    if first.verdict != "incomplete":          # found before the bound: nothing to resume
        return _same(first, whole)
    again = run_check(protocol, sc, mutant, progress=False, recover=tmp_path).result
    _same(again, whole)


def test_ctrl_c_saves_and_recover_finishes(tmp_path):
    # 202,962 states in about 5 s: the interrupt lands inside the search
    argv = [sys.executable, "-m", "rrcheck", "check", "correlated-set", "--workload", "fig2", "--failures", "1",
            "--checkpoints", "0", "--crash-kinds", "process", "--no-reduce", "--json", "--out", str(tmp_path / "out")]
    p = subprocess.Popen(argv + ["--checkpoint", str(tmp_path / "ck")], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=600)
    assert p.returncode == 130 and "interrupted" in err and "Traceback" not in err
    saved = json.loads((tmp_path / "ck" / "search.json").read_text())
    assert 0 < len(saved["tree"]) < 202_962 and saved["frontier"]
    done = subprocess.run(argv + ["--recover", str(tmp_path / "ck")], capture_output=True, text=True, timeout=600)
    whole = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    a, b = json.loads(done.stdout), json.loads(whole.stdout)
    assert done.returncode == 0 and a["verdict"] == "pass"
    assert {k: a[k] for k in ("states", "transitions", "depth", "witnesses")} == \
           {k: b[k] for k in ("states", "transitions", "depth", "witnesses")}


def _saved(tmp_path):
    run_check("coordinated", DEFAULTS["coordinated"][1], progress=False, max_states=500, checkpoint=tmp_path)
    return tmp_path / "search.json"


@pytest.mark.parametrize("damage,needle", [
    (lambda d: "{not json", "is not JSON"),
    (lambda d: json.dumps(d | {"schema_version": 7}), "schema version"),
    (lambda d: json.dumps(d | {"frontier": "x"}), "malformed search.json at frontier"),
    (lambda d: json.dumps(d | {"tree": d["tree"][:1] + [[5, ["deliver", 0, 1]]] + d["tree"][2:]}),
     "not an earlier state"),
    (lambda d: json.dumps(d | {"tree": d["tree"][:1] + [[0, ["crash", 9]]] + d["tree"][2:]}), "not enabled"),
    (lambda d: json.dumps(d | {"frontier": [[10**6, 3]]}), "beyond the"),
])
def test_recover_refuses_a_damaged_file(tmp_path, damage, needle):
    f = _saved(tmp_path)
    f.write_text(damage(json.loads(f.read_text())))
    with pytest.raises(UsageError, match=needle):
        run_check("coordinated", DEFAULTS["coordinated"][1], progress=False, recover=tmp_path)


def test_recover_refuses_another_search(tmp_path):
    _saved(tmp_path)
    with pytest.raises(UsageError, match="differs in bounds"):
        run_check("coordinated", replace(DEFAULTS["coordinated"][1], failures=2), progress=False, recover=tmp_path)


@pytest.mark.parametrize("argv,needle", [
    (["--all", "--checkpoint", "d"], "drop them from --all"),
    (["coordinated", "--checkpoint", "d"], "name one with --scenario K"),
    (["coordinated", "--scenario", "1", "--checkpoint", "d", "--workers", "2"], "one worker"),
    (["coordinated", "--scenario", "1", "--recover", "/nonexistent"], "no search.json"),
])
def test_checkpoint_bad_options_are_one_line(tmp_path, argv, needle):
    p = subprocess.run([sys.executable, "-m", "rrcheck", "check", *argv], capture_output=True, text=True,
                       cwd=tmp_path)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1
