"""Placing processes on the nodes of a 2-D or 3-D node grid (the "node allocation").

Jitsumoto et al. §III.C assumes "application programmers distribute processes to physical nodes
according to their connectivity", and §V.C says both applications "used SCOTCH for node
allocation". ``dual_bisection`` is a geometric stand-in for SCOTCH's dual recursive
bipartitioning [Jitsumoto et al. ref. 7] (split the node grid and the process domain
together, the process cut placed so that each half gets its share of processes), which
gives every node floor or ceil of n/N processes and keeps neighbours together; the
patterns use it by default. ``graph_bisection`` is the same dual recursion with the process
cut made by a METIS bisection of the communication graph instead of coordinates (SCOTCH
too bipartitions the graph, not the domain). ``scotch_mapping`` runs SCOTCH's own ``gmap``
where it is installed (an optional program, not a dependency).
``by_slot`` is MPI's default placement (consecutive ranks fill a node), used for the
NAS-like patterns of Guermouche and Ropars §4.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pymetis

from rrcheck.errors import UsageError
from rrcheck.grouping.partition import metis_weights


def grid_cells(shape) -> np.ndarray:
    """Coordinates of every cell of a node grid, in C order (node id = flat index)."""
    return np.indices(shape).reshape(len(shape), -1).T.astype(np.int64)


def _dual_recursion(n: int, shape, low_half) -> np.ndarray:
    """Dual recursive bipartitioning of ``n`` processes onto a node grid of ``shape``:
    cut the node box across its longest axis at the middle, and the processes by
    ``low_half(idx, count, ax)``, the mask of the ``count`` of ``idx`` that go to the
    low half (each half gets its share of processes). Returns ``node_of`` (node id =
    C-order flat index of the node's cell)."""
    shape = tuple(int(s) for s in shape)
    node_of = np.empty(n, dtype=np.int64)
    stack = [(np.arange(n), np.zeros(len(shape), dtype=np.int64), np.array(shape))]
    while stack:
        idx, lo, hi = stack.pop()
        ext = hi - lo
        if int(np.prod(ext)) == 1:
            node_of[idx] = np.ravel_multi_index(tuple(lo), shape)
            continue
        ax = int(np.argmax(ext))
        half = int(ext[ax]) // 2
        count = int(round(idx.size * (half / int(ext[ax]))))   # processes of the low half
        low = low_half(idx, count, ax)
        lo2, hi1 = lo.copy(), hi.copy()
        hi1[ax] = lo[ax] + half
        lo2[ax] = lo[ax] + half
        stack.append((idx[~low], lo2, hi))
        stack.append((idx[low], lo, hi1))
    return node_of


def dual_bisection(proc_coords, shape) -> np.ndarray:
    """Map processes (coordinates in a d-dimensional domain) onto a node grid of ``shape``.

    Returns ``node_of`` (node id = C-order flat index of the node's cell). Axis i of the
    process domain is laid along axis i of the node grid.
    """
    pc = np.asarray(proc_coords, dtype=np.float64)
    assert pc.ndim == 2 and pc.shape[1] == len(shape)

    def low_half(idx, count, ax):  # the first ``count`` along the cut axis, then the others
        keys = [pc[idx, a] for a in range(len(shape)) if a != ax][::-1] + [pc[idx, ax]]
        low = np.zeros(idx.size, dtype=bool)
        low[np.lexsort(keys)[:count]] = True
        return low
    return _dual_recursion(len(pc), shape, low_half)


def graph_bisection(graph, shape, seed: int = 1) -> np.ndarray:
    """Map the processes of ``graph`` onto a node grid of ``shape`` by dual recursive
    bipartitioning: cut the node box across its longest axis at the middle (as
    ``dual_bisection``) and the processes by a METIS bisection of their communication
    graph with the same shares, then exact counts (each node floor or ceil of n/N). A
    process that communicates with no one goes wherever the counts need it.

    Returns ``node_of`` (node id = C-order flat index of the node's cell)."""
    def low_half(idx, count, ax):
        sub = graph.subgraph(idx)
        if sub.indices.size:
            share = count / idx.size
            part = np.asarray(pymetis.part_graph(
                2, pymetis.CSRAdjacency(sub.indptr, sub.indices), eweights=metis_weights(sub.weights),
                tpwgts=[share, 1 - share], recursive=True, options=pymetis.Options(seed=seed)).vertex_part)
        else:
            part = (np.arange(idx.size) >= count).astype(np.int64)
        _exact_counts(sub, part, count)                        # METIS balances within a tolerance
        return part == 0
    return _dual_recursion(graph.n, shape, low_half)


def _exact_counts(graph, part, count):
    """Move vertices between the two sides of ``part`` (in place) until side 0 holds
    ``count``: one at a time, always the vertex of the larger side whose move costs least
    (greedy, gains updated after each move)."""
    excess = int(np.count_nonzero(part == 0)) - count
    if not excess:
        return
    side = 0 if excess > 0 else 1
    src = graph.edge_sources()
    gain = np.bincount(src, weights=np.where(part[src] != part[graph.indices], graph.weights, -graph.weights),
                       minlength=graph.n)
    gain[part != side] = -np.inf
    for _ in range(abs(excess)):
        v = int(np.argmax(gain))
        part[v] = 1 - side
        gain[v] = -np.inf
        nbr = graph.indices[graph.indptr[v]:graph.indptr[v + 1]]
        np.add.at(gain, nbr, 2 * graph.weights[graph.indptr[v]:graph.indptr[v + 1]])   # -inf stays -inf


def scotch_mapping(graph, shape, options=("-Cd",)) -> np.ndarray:
    """Map the processes of ``graph`` onto a 2-D node grid of ``shape`` with SCOTCH's
    ``gmap`` (Debian package ``scotch``, program ``scotch_gmap``) and its default mapping
    strategy onto a ``mesh2D`` target, as Jitsumoto et al. §V.C did ("used SCOTCH for node
    allocation"). ``-Cd``: deterministic. Returns ``node_of``."""
    exe = shutil.which("scotch_gmap") or shutil.which("gmap")
    if exe is None:
        raise UsageError("SCOTCH's gmap is not installed; apt-get install scotch, or use another placement")
    if len(shape) != 2:
        raise UsageError("the SCOTCH placement maps onto a 2-D node grid only")
    w = metis_weights(graph.weights)
    deg = np.diff(graph.indptr)
    with tempfile.TemporaryDirectory() as d:
        src, tgt, out = Path(d, "g.grf"), Path(d, "m.tgt"), Path(d, "out.map")
        lines = [f"0\n{graph.n} {graph.indices.size}\n0 010"]           # SCOTCH graph: edge weights only
        for u in range(graph.n):
            a, b = graph.indptr[u], graph.indptr[u + 1]
            lines.append(" ".join([str(deg[u]), *(f"{w[j]} {graph.indices[j]}" for j in range(a, b))]))
        src.write_text("\n".join(lines) + "\n")
        tgt.write_text(f"mesh2D\n{shape[0]} {shape[1]}\n")
        subprocess.run([exe, *options, str(src), str(tgt), str(out)], check=True, capture_output=True, timeout=600)
        words = out.read_text().split()
    pairs = np.asarray(words[1:], dtype=np.int64).reshape(int(words[0]), 2)
    term = np.empty(graph.n, dtype=np.int64)
    term[pairs[:, 0]] = pairs[:, 1]
    return np.ravel_multi_index((term % shape[0], term // shape[0]), tuple(shape))   # mesh2D: x + y·X


def by_slot(n: int, per_node: int) -> np.ndarray:
    """MPI's default placement: ranks ``k*per_node .. (k+1)*per_node-1`` on node k."""
    return np.arange(n, dtype=np.int64) // per_node
