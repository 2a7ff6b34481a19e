"""The numerical side of the CG-like iteration and of the collectives
(Bouteiller et al. 2013 §4.4), carried above the protocol like the
apps of runtime/apps.py.

Their model twins (checker/model/workloads.py: ``cg``, ``hier_bcast``...) tag every
message with its iteration and role (``tag = ROLES * k + role``); the data
hooks read the tag, so a step's computation happens at a fixed op whatever
the interleaving. Every reception names its source, the reduction trees are
fixed: floating-point sums happen in one order, so every run (with failures
or not) computes the same bits.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from rrcheck.checker.model import workloads as W
from rrcheck.runtime.digest import digest


def _step(op: tuple) -> tuple[int, int]:
    """(iteration, role) of a send or recv op."""
    return divmod(op[2], W.ROLES)


@dataclass
class CG:
    """Conjugate gradient on the 2-D Poisson matrix (5-point Laplacian, zero
    Dirichlet boundary) of a (n * size) x size grid, in row blocks of ``size``
    grid rows per process, x0 = 0. The variant of Chronopoulos and Gear: one
    allreduce per step carries both dot products (r.r, w.r), w = A r needs the
    halo rows of r. Step k: halo exchange of r (W.cg_step), partial dots once
    the halos are in, reduce to 0, broadcast of the sums, then the update of
    x, r and the search directions p, s."""

    p: int
    n: int
    size: int = 16

    def init(self) -> dict:
        m = self.size
        y = np.arange(self.p * m, (self.p + 1) * m)[:, None]
        x = np.arange(m)[None, :]
        b = np.sin(0.3 * y + 1.0) * np.cos(0.2 * x) + 0.01 * (x + 1)
        r = np.zeros((m + 2, m))  # the residual with its ghost rows 0 and m + 1
        r[1:-1] = b
        zero = np.zeros((m, m))
        return {"x": zero.copy(), "r": r, "p": zero.copy(), "s": zero.copy(), "w": zero.copy(),
                "part": np.zeros(2), "sums": np.zeros(2), "coef": np.zeros(3),  # alpha, gamma, residual norm
                "k": np.array([-1, -1])}  # the step whose partial dots, then update, are done

    def _partial(self, st: dict, k: int) -> None:
        """w = A r on the block, and its contributions to r.r and w.r."""
        if st["k"][0] == k:
            return
        r = st["r"]
        inner = r[1:-1]
        w = 4.0 * inner - r[:-2] - r[2:]
        w[:, 1:] -= inner[:, :-1]
        w[:, :-1] -= inner[:, 1:]
        st["w"] = w
        st["part"] = np.array([np.dot(inner.ravel(), inner.ravel()), np.dot(w.ravel(), inner.ravel())])
        st["k"][0] = k

    def _update(self, st: dict, k: int) -> None:
        """Chronopoulos–Gear step k, from the global (gamma, delta)."""
        if st["k"][1] == k:
            return
        gamma, delta = st["sums"]
        alpha_old, gamma_old = st["coef"][0], st["coef"][1]
        r = st["r"][1:-1]
        if k == 0:
            beta, alpha = 0.0, gamma / delta
        else:
            beta = gamma / gamma_old
            alpha = gamma / (delta - beta * gamma / alpha_old)
        st["p"] = r + beta * st["p"]
        st["s"] = st["w"] + beta * st["s"]
        st["x"] = st["x"] + alpha * st["p"]
        st["r"][1:-1] = r - alpha * st["s"]
        st["coef"] = np.array([alpha, gamma, np.sqrt(gamma)])
        st["k"][1] = k

    def produce(self, st: dict, pc: int, op: tuple) -> bytes:
        k, role = _step(op)
        if role == W.HALO:
            row = 1 if op[1] < self.p else -2
            return st["r"][row].tobytes()
        if role == W.REDUCE:
            self._partial(st, k)
            return st["part"].tobytes()
        if self.p == 0:  # the root of the broadcast: its reduce is over, the partial is the sum
            st["sums"] = st["part"].copy()
        self._update(st, k)
        return st["sums"].tobytes()

    def consume(self, st: dict, pc: int, op: tuple, src: int, data) -> None:
        k, role = _step(op)
        got = np.frombuffer(data, dtype=np.float64)
        if role == W.HALO:
            st["r"][0 if src < self.p else -1] = got
        elif role == W.REDUCE:
            self._partial(st, k)
            st["part"] = st["part"] + got
        else:
            st["sums"] = got.copy()
            self._update(st, k)

    def output(self, st: dict) -> dict:
        return {"digest": digest({"x": st["x"], "rnorm": st["coef"][2:]}), "sum": float(st["coef"][2])}


@dataclass
class Collective:
    """A broadcast or a reduce of ``size`` bytes (float64) per iteration over
    the trees of the twin (hierarchical or flat), rooted at rank k mod n in
    iteration k. The root of a broadcast makes data that varies with k; a
    reduce sums every rank's contribution up the tree. Each rank folds its
    buffer at the end of an iteration (what it received, or the partial sum
    it passed up: the result at the root) into a running SHA-256."""

    p: int
    n: int
    size: int = 64
    kind: str = "bcast"

    def _vector(self, k: int, q: int) -> np.ndarray:
        i = np.arange(max(1, self.size // 8), dtype=np.float64)
        return np.floor(1000 * np.sin(0.01 * i * (k + 1) + q)) + k  # integer-valued: sums are exact

    def init(self) -> dict:
        return {"buf": np.zeros(max(1, self.size // 8)), "k": np.array([-1]),
                "h": np.frombuffer(hashlib.sha256(b"%d" % self.p).digest(), dtype=np.uint8).copy()}

    @staticmethod
    def _folded(st: dict) -> np.ndarray:
        return np.frombuffer(hashlib.sha256(st["h"].tobytes() + st["buf"].tobytes()).digest(), dtype=np.uint8)

    def _begin(self, st: dict, k: int) -> None:
        """At this rank's first op of iteration k: fold the last iteration's
        buffer; a reduce starts from this rank's own contribution, the root of
        a broadcast from its data."""
        if st["k"][0] == k:
            return
        if st["k"][0] >= 0:
            st["h"] = self._folded(st).copy()
        st["k"][0] = k
        if self.kind == "reduce":
            st["buf"] = self._vector(k, self.p)
        elif self.p == k % self.n:
            st["buf"] = self._vector(k, -1)

    def produce(self, st: dict, pc: int, op: tuple) -> bytes:
        self._begin(st, _step(op)[0])
        return st["buf"].tobytes()

    def consume(self, st: dict, pc: int, op: tuple, src: int, data) -> None:
        self._begin(st, _step(op)[0])
        got = np.frombuffer(data, dtype=np.float64)
        st["buf"] = st["buf"] + got if self.kind == "reduce" else got.copy()

    def output(self, st: dict) -> dict:
        return {"digest": digest({"h": self._folded(st)}), "sum": float(st["buf"].sum())}
