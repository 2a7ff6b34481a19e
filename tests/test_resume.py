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
    (["coordinated", "--scenario", "1", "--checkpoint", "d", "--strategy", "dfs"], "drop --strategy dfs"),
    (["coordinated", "--scenario", "1", "--recover", "/nonexistent"], "no search.json"),
])
def test_checkpoint_bad_options_are_one_line(tmp_path, argv, needle):
    p = subprocess.run([sys.executable, "-m", "rrcheck", "check", *argv], capture_output=True, text=True,
                       cwd=tmp_path)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1


# -- fingerprint searches (--fingerprints, --workers): saved at a generation's end ----------

def _fp(protocol, sc, mutant=None, workers=1, **kw):
    return run_check(protocol, sc, mutant, progress=False, workers=workers, fingerprints=True, **kw).result


@pytest.mark.parametrize("protocol,mutant,sc,stops", [
    ("coordinated", None, DEFAULTS["coordinated"][1], (1, 700, 3000)),
    ("hmpl", None, DEFAULTS["hmpl"][0], (1, 3000)),
    ("sbml", "sbml/send-before-rsn-ack", scenario_for_mutant("sbml/send-before-rsn-ack"), (3000,)),
])
@pytest.mark.parametrize("before,after", [(1, 2), (2, 1)])
def test_resumed_fingerprint_search_equals_uninterrupted_on_any_workers(tmp_path, protocol, mutant, sc, stops,
                                                                        before, after):
    whole = _fp(protocol, sc, mutant)
    for stop_at in stops:
        d = tmp_path / str(stop_at)
        first = _fp(protocol, sc, mutant, before, max_states=stop_at, checkpoint=d)
        assert first.verdict == "incomplete" and f"--recover {d}" in first.reason
        assert first.states < whole.states
        _same(_fp(protocol, sc, mutant, after, recover=d), whole)


def test_memory_limit_saves_a_fingerprint_search_that_recover_finishes(tmp_path):
    sc = DEFAULTS["hmpl"][0]
    whole = _fp("hmpl", sc, workers=2)
    first = _fp("hmpl", sc, workers=2, memory_limit=1, checkpoint=tmp_path)
    assert first.verdict == "incomplete" and first.reason.startswith("memory limit")
    assert "--recover" in first.reason and (tmp_path / "generations.json").is_file()
    _same(_fp("hmpl", sc, workers=2, recover=tmp_path), whole)


def test_a_generation_cut_short_is_abandoned_and_saved_whole(tmp_path, monkeypatch):
    # the time limit falls inside a generation: what is saved is the generation before
    from rrcheck.checker.explicit import parallel as P
    sc = DEFAULTS["coordinated"][1]
    whole = _fp("coordinated", sc, workers=2)
    expand = P._Worker.expand

    def late(self, ranks, give, deadline):
        return expand(self, ranks, give, 1.0 if self.gen_rows[-1] > 200 else deadline)  # passed, once bigger
    monkeypatch.setattr(P._Worker, "expand", late)
    first = _fp("coordinated", sc, workers=2, time_limit=10**6, checkpoint=tmp_path)
    monkeypatch.undo()
    saved = json.loads((tmp_path / "generations.json").read_text())
    assert first.verdict == "incomplete" and first.reason.startswith("time limit")
    assert saved["states"] == first.states and 200 < first.states < whole.states
    assert sum(sum(p["generations"]) for p in saved["parts"]) == first.states
    _same(_fp("coordinated", sc, workers=1, recover=tmp_path), whole)


def test_ctrl_c_saves_a_parallel_search_and_recover_finishes(tmp_path):
    argv = [sys.executable, "-m", "rrcheck", "check", "correlated-set", "--workload", "fig2", "--failures", "1",
            "--checkpoints", "0", "--crash-kinds", "process", "--no-reduce", "--json", "--out", str(tmp_path / "out"),
            "--workers", "2"]
    p = subprocess.Popen(argv + ["--checkpoint", str(tmp_path / "ck")], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=600)
    assert p.returncode == 130 and "interrupted" in err and "--recover" in err and "Traceback" not in err
    saved = json.loads((tmp_path / "ck" / "generations.json").read_text())
    assert 0 < saved["states"] < 202_962 and len(saved["parts"]) == 2
    done = subprocess.run(argv + ["--recover", str(tmp_path / "ck")], capture_output=True, text=True, timeout=600)
    a = json.loads(done.stdout)
    assert done.returncode == 0 and (a["verdict"], a["states"]) == ("pass", 202_962)


def _saved_fp(tmp_path):
    _fp("coordinated", DEFAULTS["coordinated"][1], workers=2, max_states=500, checkpoint=tmp_path)
    return tmp_path / "generations.json"


def _biggest(f) -> int:
    parts = json.loads(f.read_text())["parts"]
    return max(range(len(parts)), key=lambda i: sum(parts[i]["generations"]))


def _scramble(d, f):
    """The largest part's bytes reversed: its size kept, not its SHA-256."""
    part = d / json.loads(f.read_text())["parts"][_biggest(f)]["file"]
    part.write_bytes(part.read_bytes()[::-1])


def _rewrite_part(d, f, change):
    """Damage the largest part's keys with ``change`` and give the manifest its new SHA-256."""
    import hashlib
    import numpy as np
    doc, i = json.loads(f.read_text()), _biggest(f)
    part = d / doc["parts"][i]["file"]
    keys = change(np.frombuffer(part.read_bytes(), dtype="<i8").copy())
    part.write_bytes(keys.astype("<i8").tobytes())
    doc["parts"][i]["sha256"] = hashlib.sha256(part.read_bytes()).hexdigest()
    f.write_text(json.dumps(doc))


def _last(keys, value):
    keys[-1] = value
    return keys


@pytest.mark.parametrize("damage,needle", [
    (lambda d, f: f.write_text("{not json"), "is not JSON"),
    (lambda d, f: (d / json.loads(f.read_text())["parts"][1]["file"]).unlink(), "is missing"),
    (_scramble, "SHA-256 differs"),
    (lambda d, f: f.write_text(json.dumps(json.loads(f.read_text()) | {"states": 3})), "another number of states"),
    (lambda d, f: _rewrite_part(d, f, lambda k: _last(k, (10**6 << 24) | 1)), "names parent"),
    (lambda d, f: _rewrite_part(d, f, lambda k: _last(k, (k[-1] >> 24 << 24) | 4000)), "does not have"),
    (lambda d, f: f.write_text(json.dumps(json.loads(f.read_text()) | {"parts": [{"file": "../x.i64",
                                                                             "generations": [1], "sha256": ""}]})),
     "another number of states"),
])
def test_recover_refuses_a_damaged_fingerprint_search(tmp_path, damage, needle):
    f = _saved_fp(tmp_path)
    damage(tmp_path, f)
    with pytest.raises(UsageError, match=needle):
        _fp("coordinated", DEFAULTS["coordinated"][1], workers=2, recover=tmp_path)


def test_recover_names_the_other_kind_of_saved_search(tmp_path):
    _saved_fp(tmp_path / "fp")
    _saved(tmp_path / "exact")
    sc = DEFAULTS["coordinated"][1]
    with pytest.raises(UsageError, match="saved with --fingerprints or --workers; recover it with"):
        run_check("coordinated", sc, progress=False, recover=tmp_path / "fp")
    with pytest.raises(UsageError, match="saved on one worker without --fingerprints"):
        _fp("coordinated", sc, recover=tmp_path / "exact")
    with pytest.raises(UsageError, match="differs in bounds"):
        _fp("coordinated", replace(sc, failures=2), recover=tmp_path / "fp")


def test_a_full_disk_is_one_line_and_keeps_the_last_save(tmp_path, monkeypatch):
    # the workers' parts fail to be written (in the forked workers): the error reaches the
    # caller as the one line of a full disk, and the save in place, also the input, stands
    import errno
    from rrcheck.checker.explicit import resume_parallel
    from rrcheck.files import not_written
    sc = DEFAULTS["coordinated"][1]
    whole = _fp("coordinated", sc, workers=2)
    _fp("coordinated", sc, workers=2, max_states=700, checkpoint=tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def full(path, data):
        raise not_written(path, OSError(errno.ENOSPC, "No space left on device"))
    monkeypatch.setattr(resume_parallel, "write_bytes", full)
    with pytest.raises(UsageError, match=r"not written \(the disk is full\)"):
        _fp("coordinated", sc, workers=2, recover=tmp_path, checkpoint=tmp_path, checkpoint_every=1e-9)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    _same(_fp("coordinated", sc, workers=2, recover=tmp_path), whole)
