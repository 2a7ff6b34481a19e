"""The other ways of forming groups: by node (hardware), METIS, RCB, and the cost-driven
bisection of Jitsumoto et al. ref. [3] that produced Guermouche and Ropars's Table 1.

- ``by_node``: hardware locality — a group is a node (k = N), or k runs of consecutive
  nodes when fewer groups are asked for.
- ``metis``: pymetis, multilevel k-way ("kmetis") or multilevel recursive bisection
  ("pmetis"), Jitsumoto et al. §II.B and §V.A.
- ``rcb``: recursive coordinate bisection (Jitsumoto et al. §II.B): sort the vertices along the
  widest coordinate and split at the weighted quantile, recursively; O(n log n log k).
- ``bisect_by_cost``: Jitsumoto et al. §II.A on ref. [3] / Guermouche and Ropars §4 on ref. [13]: bisect every
  group again and again and keep the level whose cost, eq. (1) with R of eq. (2), is least.
Every function returns a numpy array ``group_of`` over the vertices it is given.
"""

from __future__ import annotations

import numpy as np
import pymetis

from rrcheck.errors import UsageError
from rrcheck.grouping.cost import cost_eq1, restart_ratio

_METIS_MAX_WEIGHT = 1_000_000


def by_node(graph, k: int | None = None) -> np.ndarray:
    """Hardware grouping: one group per node, or k groups of consecutive node ids."""
    node_of = graph.node_of if graph.node_of is not None else np.arange(graph.n)
    used = np.unique(node_of)
    rank = np.searchsorted(used, node_of)                 # renumber the nodes that hold processes
    if k is None or k == used.size:
        return rank
    if not 1 <= k <= used.size:
        raise UsageError(f"--method node can form 1 to {used.size} groups on this graph's {used.size} nodes, not {k}")
    return rank * k // used.size


def metis_weights(w: np.ndarray) -> np.ndarray:
    """METIS takes positive integer edge weights: volumes scaled to at most 10^6."""
    if w.size == 0:
        return w.astype(np.int64)
    top = float(w.max())
    scale = 1.0 if top <= _METIS_MAX_WEIGHT else _METIS_MAX_WEIGHT / top
    return np.maximum(1, np.rint(w * scale)).astype(np.int64)


def metis(graph, k: int, variant: str = "kway", seed: int = 1) -> np.ndarray:
    """pymetis partition into k parts; ``variant`` is "kway" (kmetis) or "rb" (pmetis)."""
    if variant not in ("kway", "rb"):
        raise UsageError(f"unknown METIS variant {variant!r}; use kway or rb")
    if not 1 <= k <= graph.n:
        raise UsageError(f"METIS can form 1 to {graph.n} groups on this graph, not {k}")
    if k == 1:
        return np.zeros(graph.n, dtype=np.int64)
    part = pymetis.part_graph(
        k, pymetis.CSRAdjacency(graph.indptr, graph.indices),
        eweights=metis_weights(graph.weights), vweights=graph.vweights,
        recursive=(variant == "rb"), options=pymetis.Options(seed=seed))
    return np.asarray(part.vertex_part, dtype=np.int64)


def rcb(coords, k: int, weights=None) -> np.ndarray:
    """Recursive coordinate bisection of points ``coords`` into k parts of equal weight."""
    if coords is None:
        raise UsageError("RCB needs coordinates for every vertex; give coords or use --method metis")
    pts = np.asarray(coords, dtype=np.float64)
    n = pts.shape[0]
    if not 1 <= k <= n:
        raise UsageError(f"RCB can form 1 to {n} groups on this graph, not {k}")
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    group_of = np.empty(n, dtype=np.int64)
    stack, next_id = [(np.arange(n), k)], 0
    out = []
    while stack:
        idx, kk = stack.pop()
        if kk == 1:
            out.append(idx)
            continue
        sub = pts[idx]
        axis = int(np.argmax(sub.max(axis=0) - sub.min(axis=0)))
        order = np.argsort(sub[:, axis], kind="stable")
        k1 = kk // 2
        cw = np.cumsum(w[idx][order])
        split = int(np.searchsorted(cw, cw[-1] * k1 / kk, side="left")) + 1
        split = min(max(split, k1), idx.size - (kk - k1))   # every part keeps at least one vertex
        stack.append((idx[order[split:]], kk - k1))
        stack.append((idx[order[:split]], k1))
    for part in out:
        group_of[part] = next_id
        next_id += 1
    return group_of


def bisect_by_cost(graph, alpha: float = 0.23, beta: float = 0.124, max_groups: int | None = None,
                   seed: int = 1, bisector: str = "metis") -> tuple[np.ndarray, list[dict]]:
    """Jitsumoto et al. §II.A: "Until minimizing evaluation formula [eq. (1)] ... the communication
    graph is repeatedly partitioned as two parts." Level l bisects every group of level
    l-1 with METIS; the level with the least α·L + β·Σ|P_k|²/|P|² is returned, with the
    cost of every level tried. Levels with one group are not candidates (a hierarchical
    protocol has at least two groups — our reading, needed to reproduce FT's 2 groups).
    ``bisector="rcb"`` bisects each group by coordinates instead (straight cuts through
    the process grid): a diagnostic for how much the bisector's quality decides the level.
    """
    if bisector not in ("metis", "rcb"):
        raise UsageError(f"unknown bisector {bisector!r}; use metis or rcb")
    n = graph.n
    max_groups = n if max_groups is None else max_groups
    group_of = np.zeros(n, dtype=np.int64)
    best, trail = None, []
    total = graph.total_volume
    while True:
        k = int(group_of.max()) + 1
        if 2 * k > max_groups or np.bincount(group_of).max() < 2:
            break
        new = np.empty_like(group_of)
        nxt = 0
        for g in range(k):
            members = np.flatnonzero(group_of == g)
            if members.size < 2:
                new[members] = nxt
                nxt += 1
                continue
            if bisector == "rcb":
                halves = rcb(graph.coords[members], 2, graph.vertex_weights()[members])
            else:
                halves = metis(graph.subgraph(members), 2, variant="rb", seed=seed)
            new[members] = nxt + halves
            nxt += 2
        group_of = new
        L = graph.cut_volume(group_of) / total if total else 0.0
        R = restart_ratio(group_of)
        c = cost_eq1(L, R, alpha, beta)
        trail.append({"groups": int(group_of.max()) + 1, "L": L, "R": R, "cost": c})
        if best is None or c < best[0]:
            best = (c, group_of.copy())
    if best is None:
        raise UsageError("this graph is too small to bisect; it needs at least 2 processes")
    return best[1], trail
