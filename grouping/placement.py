"""Placing processes on the nodes of a 2-D or 3-D node grid (the "node allocation").

Seed 002 §III.C assumes "application programmers distribute processes to physical nodes
according to their connectivity", and §V.C says both applications "used SCOTCH for node
allocation". We do not run SCOTCH: ``dual_bisection`` is a geometric stand-in for its
dual recursive bipartitioning [Jitsumoto et al. ref. 7] (split the node grid and the process
domain together, the process cut placed so that each half gets its share of processes),
which gives every node floor or ceil of n/N processes and keeps neighbours together.
``by_slot`` is MPI's default placement (consecutive ranks fill a node), used for the
NAS-like patterns of Guermouche and Ropars §4.
"""

from __future__ import annotations

import numpy as np


def grid_cells(shape) -> np.ndarray:
    """Coordinates of every cell of a node grid, in C order (node id = flat index)."""
    return np.indices(shape).reshape(len(shape), -1).T.astype(np.int64)


def dual_bisection(proc_coords, shape) -> np.ndarray:
    """Map processes (coordinates in a d-dimensional domain) onto a node grid of ``shape``.

    Returns ``node_of`` (node id = C-order flat index of the node's cell). Axis i of the
    process domain is laid along axis i of the node grid.
    """
    pc = np.asarray(proc_coords, dtype=np.float64)
    shape = tuple(int(s) for s in shape)
    assert pc.ndim == 2 and pc.shape[1] == len(shape)
    node_of = np.empty(len(pc), dtype=np.int64)
    stack = [(np.arange(len(pc)), np.zeros(len(shape), dtype=np.int64), np.array(shape))]
    while stack:
        idx, lo, hi = stack.pop()
        ext = hi - lo
        if int(np.prod(ext)) == 1:
            node_of[idx] = np.ravel_multi_index(tuple(lo), shape)
            continue
        ax = int(np.argmax(ext))
        half = int(ext[ax]) // 2
        share = half / int(ext[ax])                       # node share of the low half
        count = int(round(idx.size * share))
        keys = [pc[idx, a] for a in range(len(shape)) if a != ax][::-1] + [pc[idx, ax]]
        order = np.lexsort(keys)
        lo2, hi1 = lo.copy(), hi.copy()
        hi1[ax] = lo[ax] + half
        lo2[ax] = lo[ax] + half
        stack.append((idx[order[count:]], lo2, hi))
        stack.append((idx[order[:count]], lo, hi1))
    return node_of


def by_slot(n: int, per_node: int) -> np.ndarray:
    """MPI's default placement: ranks ``k*per_node .. (k+1)*per_node-1`` on node k."""
    return np.arange(n, dtype=np.int64) // per_node
