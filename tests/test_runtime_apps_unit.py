"""The runtime's workloads without MPI: each app runs its twin's programs
under random schedules of a plain FIFO network; the outputs are independent
of the schedule, and the numbers are the ones the algorithm must give."""
import random

import numpy as np
import pytest

from rrcheck.checker.model import workloads as W
from rrcheck.protocols.base import ANY
from rrcheck.runtime import apps
from rrcheck.runtime.apps_hpc import CG, Collective

NEW = ("master_worker", "cg", "hier_bcast", "hier_reduce", "flat_bcast", "flat_reduce")


def simulate(name, n, nodes, iters, size=None, seed=0):
    """Run the twin's programs with the app's data on FIFO channels, picking
    an enabled rank (and an ANY_SOURCE sender) at random; return the outputs,
    the final states and each rank's reception order."""
    w = apps.twin(name, n, nodes, iters)
    app = [apps.make_app(name, p, n, size) for p in range(n)]
    st = [a.init() for a in app]
    pc, last, order, chan = [0] * n, [None] * n, [[] for _ in range(n)], {}
    rng = random.Random(seed)

    def ready(p):
        if pc[p] >= len(w.programs[p]):
            return []
        op = w.programs[p][pc[p]]
        if op[0] != "recv":
            return [None]
        srcs = range(n) if op[1] == ANY else [op[1]]
        return [s for s in srcs if chan.get((s, p)) and op[2] in (ANY, chan[(s, p)][0][0])]

    while True:
        enabled = [p for p in range(n) if ready(p)]
        if not enabled:
            break
        p = rng.choice(enabled)
        op = w.programs[p][pc[p]]
        if op[0] == "recv":
            src = rng.choice(ready(p))
            _, data = chan[(src, p)].pop(0)
            app[p].consume(st[p], pc[p], op, src, data)
            last[p] = src
            order[p].append(src)
        else:
            dst, tag = (op[1], op[2]) if op[0] == "send" else (last[p], op[1])
            chan.setdefault((p, dst), []).append((tag, bytes(app[p].produce(st[p], pc[p], op))))
        pc[p] += 1
    assert all(pc[p] == len(w.programs[p]) for p in range(n)), "deadlock"
    return [a.output(s) for a, s in zip(app, st)], st, order


@pytest.mark.parametrize("name", NEW)
def test_outputs_do_not_depend_on_the_schedule(name):
    runs = [simulate(name, 8, 2, 3, seed=s) for s in range(4)]
    assert all(r[0] == runs[0][0] for r in runs)
    assert len({r[0][p]["digest"] for r in runs[:1] for p in range(8)}) == 8  # ranks differ


def test_master_worker_results_arrive_in_different_orders_with_the_same_output():
    runs = [simulate("master_worker", 4, 2, 2, seed=s) for s in range(12)]
    assert len({tuple(r[2][0]) for r in runs}) > 1  # ANY_SOURCE: the master's order varies
    assert len({tuple(o["digest"] for o in r[0]) for r in runs}) == 1
    assert sorted(k for k in runs[0][1][0] if k.startswith("result-")) == [
        f"result-{r}-{w}" for r in range(2) for w in (1, 2, 3)]


def _laplacian(v):
    w = 4 * v
    w[1:] -= v[:-1]
    w[:-1] -= v[1:]
    w[:, 1:] -= v[:, :-1]
    w[:, :-1] -= v[:, 1:]
    return w


def test_cg_is_conjugate_gradient_on_the_whole_grid():
    """The distributed Chronopoulos–Gear steps give plain CG's iterates."""
    n, iters, m = 4, 6, 12
    outs, st, _ = simulate("cg", n, 2, iters, m)
    x_dist = np.vstack([s["x"] for s in st])
    b = np.vstack([CG(p, n, m).init()["r"][1:-1] for p in range(n)])
    x, r = np.zeros_like(b), b.copy()
    d, rr = r.copy(), (r * r).sum()
    for _ in range(iters):
        norm = np.sqrt(rr)
        q = _laplacian(d)
        a = rr / (d * q).sum()
        x, r = x + a * d, r - a * q
        rr, rr_old = (r * r).sum(), rr
        d = r + rr / rr_old * d
    assert np.abs(x_dist - x).max() < 1e-10
    assert all(abs(o["sum"] - norm) < 1e-10 for o in outs)  # the residual norm of the last reduction
    assert np.sqrt((r * r).sum()) < np.sqrt((b * b).sum()) / 2  # it does converge


@pytest.mark.parametrize("tree", ("hier", "flat"))
def test_reduce_root_holds_the_sum_and_bcast_reaches_everyone(tree):
    n, size = 8, 256
    _, st, _ = simulate(f"{tree}_reduce", n, 2, 2, size)
    total = sum(Collective(q, n, size, "reduce")._vector(1, q) for q in range(n))
    assert np.array_equal(st[1]["buf"], total)  # iteration 1 is rooted at rank 1
    _, st, _ = simulate(f"{tree}_bcast", n, 2, 3, size)
    want = Collective(2, n, size)._vector(2, -1)
    assert all(np.array_equal(s["buf"], want) for s in st)


def _crossing(name, n=8, nodes=2):
    w = apps.twin(name, n, nodes, n)
    return sum(w.node_of[op[1]] != w.node_of[p] for p, prog in enumerate(w.programs) for op in prog
               if op[0] == "send")


def test_hierarchical_collectives_cross_nodes_once_per_other_node():
    """Bouteiller et al. 2013 §4.4: a topology-aware tree sends one message per other node;
    the flat binomial tree, rooted anywhere, crosses more often."""
    assert _crossing("hier_bcast") == _crossing("hier_reduce") == 8 * (2 - 1)
    assert _crossing("flat_bcast") > _crossing("hier_bcast")
    assert _crossing("flat_reduce") > _crossing("hier_reduce")
    assert W.leaders((0, 0, 0, 0, 1, 1, 1, 1), 6) == (6, 0)
