"""Communication graphs: processes (or nodes) as vertices, message volume as edge weights.

Jitsumoto et al. §I and §III.B: "the processes, communication patterns, and number of
communications are treated as the vertices, edges, and weights of each edge", recorded
on the first iteration of the main loop (see ``rrcheck.grouping.capture``). Step 1 of Jitsumoto et al.
§III.C converts this process communication log into a node communication log
(``CommGraph.node_graph``).

Entry point for the rest of rrcheck: ``CommGraph.from_edges(n, edges, coords, node_of)``
with ``edges`` an iterable of ``(src, dst, volume)``; the checker turns its workloads
and traces into such edge lists. Directed volumes of both directions of a pair are
summed into one undirected weight; messages a process sends to itself are dropped
(they never cross a process boundary, so they are neither logged nor part of D in
Jitsumoto et al. eq. (2)).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from rrcheck.errors import UsageError

MAX_PROCESSES = 1_000_000   # refused before any allocation


@dataclass(frozen=True, slots=True, eq=False)
class CommGraph:
    """A symmetric weighted graph in CSR form, plus optional geometry and placement.

    - ``indptr``, ``indices``, ``weights``: CSR adjacency; both directions stored, and
      ``weights[j]`` is the volume exchanged (both directions summed) on that edge.
    - ``coords``: (n, d) coordinates of each vertex in the application domain (RCB).
    - ``node_of``: (n,) physical node of each process (None: each process is its own node).
    - ``node_coords``: (N, d) integer coordinates of each node on the machine's grid (RPCS).
    - ``vweights``: (n,) vertex weights (processes per vertex; 1 for a process graph).
    """

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    weights: np.ndarray
    coords: np.ndarray | None = None
    node_of: np.ndarray | None = None
    node_coords: np.ndarray | None = None
    vweights: np.ndarray | None = None
    name: str = ""

    # ------------------------------------------------------------------ building
    @classmethod
    def from_edges(cls, n, edges, coords=None, node_of=None, *, node_coords=None, name=""):
        """Build from an iterable of ``(src, dst, volume)`` message records.

        This is the "first iteration" capture of Jitsumoto et al. §III.B in its simplest form:
        one record per message (or per aggregated channel) of the first loop iteration.
        ``coords`` gives each process a position in the application domain (used by
        RCB), ``node_of`` its physical node and ``node_coords`` each node's position on
        the machine grid (used by RPCS).
        """
        rows = list(edges)
        if rows:
            try:
                arr = np.asarray(rows, dtype=np.float64)
            except (TypeError, ValueError):
                raise UsageError("edges must be (src, dst, volume) triples of numbers; fix the edge list") from None
            if arr.ndim != 2 or arr.shape[1] != 3:
                raise UsageError("edges must be (src, dst, volume) triples; fix the edge list")
            src, dst, vol = arr[:, 0], arr[:, 1], arr[:, 2]
            if np.any(src != np.floor(src)) or np.any(dst != np.floor(dst)):
                raise UsageError("edge endpoints must be integer process ranks; fix the edge list")
        else:
            src = dst = vol = np.zeros(0)
        return cls.from_arrays(n, src.astype(np.int64), dst.astype(np.int64), vol,
                               coords=coords, node_of=node_of, node_coords=node_coords, name=name)

    @classmethod
    def from_arrays(cls, n, src, dst, volume, *, coords=None, node_of=None, node_coords=None,
                    vweights=None, name=""):
        """Vectorised ``from_edges``: three equal-length arrays of sources, destinations, volumes."""
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise UsageError(f"the number of processes must be a positive integer, got {n!r}")
        n = int(n)
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        vol = np.asarray(volume, dtype=np.float64)
        if not (src.shape == dst.shape == vol.shape):
            raise UsageError("sources, destinations and volumes must have the same length")
        if src.size and (src.min() < 0 or dst.min() < 0 or src.max() >= n or dst.max() >= n):
            raise UsageError(f"an edge names a process outside 0..{n - 1}; fix the edge list or n")
        if vol.size and (not np.all(np.isfinite(vol)) or vol.min() < 0):
            raise UsageError("message volumes must be finite and non-negative; fix the edge list")
        keep = (src != dst) & (vol > 0)
        u = np.minimum(src[keep], dst[keep])
        v = np.maximum(src[keep], dst[keep])
        key = u * n + v
        ukey, inv = np.unique(key, return_inverse=True)
        w = np.bincount(inv, weights=vol[keep], minlength=ukey.size) if ukey.size else np.zeros(0)
        uu, vv = ukey // n, ukey % n
        indptr, indices, weights = _csr(n, np.concatenate([uu, vv]), np.concatenate([vv, uu]),
                                        np.concatenate([w, w]))
        return cls(n=n, indptr=indptr, indices=indices, weights=weights,
                   coords=_opt_coords(coords, n, "coords"),
                   node_of=_opt_node_of(node_of, n),
                   node_coords=_opt_node_coords(node_coords, node_of, n),
                   vweights=None if vweights is None else np.asarray(vweights, dtype=np.int64),
                   name=name)

    # ------------------------------------------------------------------ queries
    @property
    def n_edges(self) -> int:
        """Number of undirected edges (communicating pairs)."""
        return int(self.indices.size // 2)

    @property
    def total_volume(self) -> float:
        """D of Jitsumoto et al. eq. (2): total size of messages between distinct processes."""
        return float(self.weights.sum() / 2.0)

    @property
    def n_nodes(self) -> int:
        """N of Jitsumoto et al. eq. (3); each process is its own node when ``node_of`` is None."""
        if self.node_of is None:
            return self.n
        if self.node_coords is not None:
            return max(int(self.node_of.max()) + 1, len(self.node_coords))
        return int(self.node_of.max()) + 1

    def vertex_weights(self) -> np.ndarray:
        return np.ones(self.n, dtype=np.int64) if self.vweights is None else self.vweights

    def edge_sources(self) -> np.ndarray:
        """Row index of every CSR entry (the u of each stored (u, v))."""
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.indptr))

    def cut_volume(self, group_of) -> float:
        """B of Jitsumoto et al. eq. (2): volume of messages between processes of different groups."""
        g = np.asarray(group_of)
        cross = g[self.edge_sources()] != g[self.indices]
        return float(self.weights[cross].sum() / 2.0)

    def node_graph(self) -> "CommGraph":
        """Jitsumoto et al. §III.C step 1: convert the process log into a node communication log.

        Vertices are nodes, vertex weights the number of processes on each node, and
        messages between processes of one node disappear (they are inside a vertex).
        """
        if self.node_of is None:
            raise UsageError("this graph has no process-to-node placement (node_of); give one to group by node")
        nodes = self.n_nodes
        s = self.node_of[self.edge_sources()]
        d = self.node_of[self.indices]
        # each undirected process edge is stored twice; keep one copy
        half = self.edge_sources() < self.indices
        g = CommGraph.from_arrays(nodes, s[half], d[half], self.weights[half],
                                  coords=self.node_coords, node_coords=self.node_coords,
                                  name=f"{self.name} (nodes)",
                                  vweights=np.bincount(self.node_of, minlength=nodes))
        return g

    def subgraph(self, members: np.ndarray) -> "CommGraph":
        """The subgraph induced by ``members`` (vertex ids renumbered 0..len-1)."""
        members = np.asarray(members, dtype=np.int64)
        local = np.full(self.n, -1, dtype=np.int64)
        local[members] = np.arange(members.size)
        src = self.edge_sources()
        keep = (local[src] >= 0) & (local[self.indices] >= 0)
        indptr, indices, weights = _csr(members.size, local[src[keep]], local[self.indices[keep]],
                                        self.weights[keep])
        vw = None if self.vweights is None else self.vweights[members]
        co = None if self.coords is None else self.coords[members]
        return CommGraph(n=int(members.size), indptr=indptr, indices=indices, weights=weights,
                         coords=co, vweights=vw, name=self.name)


# ---------------------------------------------------------------------- helpers
def _csr(n, rows, cols, vals):
    order = np.argsort(rows, kind="stable")
    rows, cols, vals = rows[order], cols[order], vals[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols.astype(np.int64), vals.astype(np.float64)


def _opt_coords(coords, n, what):
    if coords is None:
        return None
    c = np.asarray(coords, dtype=np.float64)
    if c.ndim == 1:
        c = c[:, None]
    if c.ndim != 2 or c.shape[0] != n:
        raise UsageError(f"{what} must give one coordinate tuple per process ({n}), got shape {c.shape}")
    return c


def _opt_node_of(node_of, n):
    if node_of is None:
        return None
    a = np.asarray(node_of)
    if a.shape != (n,) or (a.size and (a.dtype.kind not in "iu" or a.min() < 0)):
        raise UsageError(f"node_of must give a non-negative integer node for each of the {n} processes")
    return a.astype(np.int64)


def _opt_node_coords(node_coords, node_of, n):
    if node_coords is None:
        return None
    c = np.asarray(node_coords)
    if c.ndim != 2 or c.dtype.kind not in "iu":
        raise UsageError("node_coords must be a list of integer grid coordinates, one tuple per node")
    if node_of is not None and len(c) <= int(np.max(node_of)):
        raise UsageError("node_coords must give coordinates for every node named in node_of")
    if node_of is None and len(c) != n:
        raise UsageError(f"without node_of each process is its own node, so node_coords needs {n} rows, not {len(c)}")
    if len({tuple(r) for r in c.tolist()}) != len(c):
        raise UsageError("two nodes share one grid coordinate in node_coords; each node needs its own cell")
    return c.astype(np.int64)


def edges_of(graph: CommGraph) -> Iterable[tuple[int, int, float]]:
    """The undirected edges ``(u, v, volume)`` with u < v (for files and tests)."""
    src = graph.edge_sources()
    half = src < graph.indices
    return list(zip(src[half].tolist(), graph.indices[half].tolist(), graph.weights[half].tolist()))


def validate(group_of, n: int) -> tuple[int, ...]:
    """Check that ``group_of`` gives each of the n processes one group id in 0..K-1 and
    that no id in that range is left without processes; return it as a tuple."""
    try:
        g = np.asarray(group_of)
    except (TypeError, ValueError):
        raise UsageError("a grouping must be a list with one integer group id per process") from None
    if g.ndim != 1 or g.size != n:
        raise UsageError(f"a grouping must give one group id to each of the {n} processes, got {g.size} ids")
    if n == 0:
        return ()
    if g.dtype.kind not in "iu":
        if g.dtype.kind == "f" and np.all(g == np.floor(g)):
            g = g.astype(np.int64)
        else:
            raise UsageError("group ids must be integers; fix the grouping")
    if g.min() < 0:
        raise UsageError(f"group ids must be 0 or more, but process {int(np.argmin(g))} has {int(g.min())}")
    counts = np.bincount(g)
    if np.any(counts == 0):
        missing = int(np.flatnonzero(counts == 0)[0])
        raise UsageError(f"group ids must run 0..K-1 without gaps, but group {missing} has no process; "
                         "renumber the groups")
    return tuple(int(x) for x in g)
