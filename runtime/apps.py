"""The numerical side of the workloads, carried above the protocol.

Each application follows the program of its model twin in checker/model/workloads.py
op by op: ``produce`` gives the data of a ``send`` op, ``consume`` folds in the
data of a ``recv`` op. Its state is a dict of numpy arrays, saved with every
checkpoint image; ``output`` is what a run with failures must reproduce.
What ``produce`` returns is the runtime's from then on: the application does
not write to it again (the runtime sends large data straight from it), as a
buffer given to ``MPI_Isend`` before its wait. An application may say where
the data of its current receive goes (``landing``), as a receive posted on a
buffer: large data is then received straight into it, once no send of the
runtime still reads it (runtime/transport.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from rrcheck.checker.model import workloads as W
from rrcheck.runtime.digest import digest


@dataclass
class Stencil2D:
    """2-D Jacobi on a grid of ``size`` x ``size`` blocks, one per process,
    fixed zero boundary; after its halos arrive, a block is updated."""

    p: int
    n: int
    size: int = 32

    def __post_init__(self):
        self.rows, self.cols = W.grid_shape(self.n)
        self.nb = W.stencil_neighbors(self.p, self.n)
        self.per_iter = 2 * len(self.nb)

    def init(self) -> dict:
        b = self.size
        r, c = divmod(self.p, self.cols)
        y = np.arange(r * b, (r + 1) * b)[:, None]
        x = np.arange(c * b, (c + 1) * b)[None, :]
        g = np.zeros((b + 2, b + 2))
        g[1:-1, 1:-1] = np.sin(0.1 * y) * np.cos(0.07 * x) + 0.001 * (y + x)
        return {"grid": g}

    def _side(self, q: int) -> str:
        d = q - self.p
        return {-self.cols: "up", self.cols: "down", -1: "left", 1: "right"}[d]

    def produce(self, st: dict, pc: int, op: tuple) -> bytes:
        g = st["grid"]
        side = self._side(op[1])
        strip = {"up": g[1, 1:-1], "down": g[-2, 1:-1], "left": g[1:-1, 1], "right": g[1:-1, -2]}[side]
        return np.ascontiguousarray(strip).tobytes()

    def consume(self, st: dict, pc: int, op: tuple, src: int, data) -> None:
        g = st["grid"]
        strip = np.frombuffer(data, dtype=np.float64)
        side = self._side(src)
        if side == "up":
            g[0, 1:-1] = strip
        elif side == "down":
            g[-1, 1:-1] = strip
        elif side == "left":
            g[1:-1, 0] = strip
        else:
            g[1:-1, -1] = strip
        if pc % self.per_iter == self.per_iter - 1:  # the last halo of an iteration
            g[1:-1, 1:-1] = 0.25 * (g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])

    def output(self, st: dict) -> dict:
        g = st["grid"][1:-1, 1:-1]
        return {"digest": digest({"grid": g}), "sum": float(g.sum())}


@dataclass
class Ring:
    """A vector passed round the ring each round, each process mixing in its rank."""

    p: int
    n: int
    size: int = 64

    def init(self) -> dict:
        return {"v": np.arange(self.size, dtype=np.float64) + self.p, "acc": np.zeros(self.size)}

    def produce(self, st: dict, pc: int, op: tuple) -> bytes:
        return st["v"].tobytes()

    def consume(self, st: dict, pc: int, op: tuple, src: int, data) -> None:
        got = np.frombuffer(data, dtype=np.float64)
        st["v"] = 0.5 * got + np.sqrt(self.p + 1.0 + np.arange(self.size))
        st["acc"] = st["acc"] + got

    def output(self, st: dict) -> dict:
        return {"digest": digest(st), "sum": float(st["acc"].sum())}


@dataclass
class PingPong:
    """Ping-pong of a ``size``-byte buffer between ranks 0 and 1 (benchmarks)."""

    p: int
    n: int
    size: int = 8

    def init(self) -> dict:
        return {"buf": np.full(self.size, self.p, dtype=np.uint8), "count": np.zeros(1, dtype=np.int64)}

    def produce(self, st: dict, pc: int, op: tuple):
        return memoryview(st["buf"]).cast("B")

    def landing(self, st: dict, pc: int, op: tuple, n: int):
        """Its receives are posted on the buffer it sends from (NetPIPE's
        ping-pong, and the plain mpi4py column of benchmarks/pingpong_mpi.py)."""
        return st["buf"] if st["buf"].nbytes == n else None

    def consume(self, st: dict, pc: int, op: tuple, src: int, data) -> None:
        got = np.frombuffer(data, dtype=np.uint8)
        if not np.may_share_memory(got, st["buf"]):  # it came in a buffer of the runtime's
            st["buf"] = got.copy()
        st["count"] += 1

    def output(self, st: dict) -> dict:
        return {"digest": digest({"count": st["count"]}), "sum": float(st["count"][0])}


@dataclass
class MasterWorker:
    """Each round the master sends every worker a task, collects the results
    with ANY_SOURCE and answers each worker in arrival order (the twin
    ``master_worker``). A result is stored by its task id (round, worker), and
    an answer is a function of that worker's result only, so the outputs do
    not depend on the arrival order (the model's local states do: the twin is
    non-deterministic). The kernel: a few sweeps of a 3-point smoother."""

    p: int
    n: int
    size: int = 32

    def init(self) -> dict:
        return {"v": np.arange(self.size, dtype=np.float64) * (self.p + 1)}

    def kernel(self, task: np.ndarray) -> np.ndarray:
        t = task.copy()
        for _ in range(8):
            t[1:-1] = (t[:-2] + t[1:-1] + t[2:]) / 3.0
        return np.cos(t)

    def produce(self, st: dict, pc: int, op: tuple) -> bytes:
        if self.p == 0 and op[0] == "reply":
            return st["answer"].tobytes()
        if self.p == 0:
            return (st["v"] + op[1]).tobytes()  # a task for worker op[1]
        return self.kernel(st["task"]).tobytes()

    def consume(self, st: dict, pc: int, op: tuple, src: int, data) -> None:
        got = np.frombuffer(data, dtype=np.float64).copy()
        if self.p == 0:
            round_ = pc // (3 * (self.n - 1))
            st[f"result-{round_}-{src}"] = got
            st["answer"] = 2.0 * got + src
        elif pc % 3 == 0:
            st["task"] = got
        else:
            st["v"] = st["v"] + got

    def output(self, st: dict) -> dict:
        keep = {k: v for k, v in st.items() if k == "v" or k.startswith("result-")}
        return {"digest": digest(keep), "sum": float(sum(keep[k].sum() for k in sorted(keep)))}


from rrcheck.runtime.apps_hpc import CG, Collective  # noqa: E402

APPS = {"stencil2d": (Stencil2D, "stencil2d"), "ring": (Ring, "ring"), "pingpong": (PingPong, "pingpong"),
        "master_worker": (MasterWorker, "master_worker"), "cg": (CG, "cg"),
        "hier_bcast": (partial(Collective, kind="bcast"), "hier_bcast"),
        "hier_reduce": (partial(Collective, kind="reduce"), "hier_reduce"),
        "flat_bcast": (partial(Collective, kind="bcast"), "flat_bcast"),
        "flat_reduce": (partial(Collective, kind="reduce"), "flat_reduce")}


def twin(name: str, n: int, nodes: int, iters: int) -> W.Workload:
    """The model twin of a runtime workload."""
    if name == "stencil2d":
        return W.stencil2d(n, nodes, iters)
    if name == "ring":
        return W.ring(n, nodes, iters)
    if name == "master_worker":
        return W.master_worker(n, nodes, iters)
    if name in ("cg", "hier_bcast", "hier_reduce", "flat_bcast", "flat_reduce"):
        return W.WORKLOADS[APPS[name][1]](n, nodes, iters)
    return W.pingpong(n, nodes, iters)


def make_app(name: str, p: int, n: int, size: int | None):
    cls = APPS[name][0]
    return cls(p, n) if size is None else cls(p, n, size=size)
