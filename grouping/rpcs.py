"""RPCS: geometric bisection of the node grid (Jitsumoto et al. §III.C) and group-id broadcast (§IV.C).

Jitsumoto et al. §III.C, steps 1–8, on a 2-D or 3-D grid of nodes:
  1) detect the nodes executing processes and convert the process log to a node log;
  2) take a temporal reference vertex: the node running rank 0;
  3) measure the width along X;        4) move the reference to the middle of that line;
  5) measure the width along Y;        6) move the reference to the middle of that line;
  7) measure the width along X again;  8) bisect by crossing the axis with the narrower
     width (the border spans the narrower axis and cuts the wider one at its middle).
In 3-D, Z is measured and centred after Y, and step 7 re-measures X and Y; the border
is then a surface. A width is measured by walking vertex by vertex from the reference
until the next vertex is missing (the grid's edge) or lies across an earlier border, so
one bisection costs O(width): O(k·sqrt(N)) in 2-D and O(k·N^(1/3)) in 3-D for k groups.
Edge weights are not used (Jitsumoto et al.: "our algorithm cannot deal with edge weights").

For k groups that are not a power of two, a region holding k groups is cut at k//2 : k - k//2
of its width (the paper bisects; proportional cuts are our generalisation, and they
reduce to the middle vertex when k is even). A cut position is rounded half up.

§IV.C: RPCS only finds borders, so each process must learn its group id: the border on
the low-X edge of each final region receives the region's id (steps 1–2), then every
node passes its id to the next node along X until the id reaches a node that already has
one (step 3). The paper numbers groups from 1; we number them from 0.
"""

from __future__ import annotations

import math

import numpy as np

from rrcheck.errors import UsageError


class NodeGrid:
    """The machine's node grid (Jitsumoto et al. §III.C step 1): which cell holds which node.

    Built once from node coordinates; the machine's topology (Tofu / torus coordinates)
    is known before partitioning, like METIS's CSR graph, so building it is not part of
    the partitioning time.
    """

    __slots__ = ("origin", "shape", "d", "node_at", "present", "strides")

    def __init__(self, node_coords, active=None):
        c = np.asarray(node_coords, dtype=np.int64)
        if c.ndim != 2 or c.shape[1] not in (2, 3):
            raise UsageError("RPCS needs the nodes on a 2-D or 3-D grid; give node_coords with 2 or 3 columns")
        self.origin = c.min(axis=0)
        self.shape = tuple(int(s) for s in c.max(axis=0) - self.origin + 1)
        self.d = len(self.shape)
        self.node_at = np.full(self.shape, -1, dtype=np.int64)
        self.node_at[tuple((c - self.origin).T)] = np.arange(len(c))
        occ = self.node_at >= 0
        if active is not None:
            occ &= np.asarray(active, dtype=bool)[np.maximum(self.node_at, 0)]
        self.present = bytearray(occ.ravel().astype(np.uint8).tobytes())
        self.strides = [int(math.prod(self.shape[a + 1:])) for a in range(self.d)]

    def cell_of_node(self, node: int) -> list[int]:
        return [int(x) for x in np.argwhere(self.node_at == node)[0]]


def _walk(grid: NodeGrid, ref, axis, lo, hi):
    """Measure the width along ``axis`` through ``ref``: walk both ways, one vertex at a
    time, while the next vertex exists and lies inside the current region [lo, hi)."""
    present, stride = grid.present, grid.strides[axis]
    flat = sum(r * s for r, s in zip(ref, grid.strides))
    a, f = ref[axis], flat
    while a - 1 >= lo[axis] and present[f - stride]:
        a -= 1
        f -= stride
    b, f = ref[axis], flat
    while b + 1 < hi[axis] and present[f + stride]:
        b += 1
        f += stride
    return a, b


def rpcs_regions(grid: NodeGrid, k: int, ref) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Jitsumoto et al. §III.C steps 2–8, applied recursively until there are k regions.

    Returns the regions as boxes ``(lo, hi)`` (half-open, grid cells) in group-id order.
    """
    d = grid.d
    lo0, hi0 = (0,) * d, grid.shape
    if k < 1:
        raise UsageError(f"the number of groups must be at least 1, got {k}")
    if k > grid.present.count(1):
        raise UsageError(f"RPCS cannot form {k} groups on {grid.present.count(1)} nodes; ask for fewer groups")
    regions = []
    stack = [(lo0, hi0, k, list(ref))]            # step 2: reference = node running rank 0
    while stack:
        lo, hi, kk, ref = stack.pop()
        if kk == 1:
            regions.append((lo, hi))
            continue
        ref = list(ref)
        lines = [None] * d
        for axis in range(d):                     # steps 3–6 (and Z in 3-D)
            a, b = _walk(grid, ref, axis, lo, hi)
            ref[axis] = (a + b) // 2              # move to the middle vertex of the line
            lines[axis] = (a, b)
        for axis in range(d - 1):                 # step 7: measure X (and Y in 3-D) again
            lines[axis] = _walk(grid, ref, axis, lo, hi)
        widths = [b - a + 1 for a, b in lines]
        # step 8: cut the widest axis, so that the border crosses the narrower one(s)
        axis = max(range(d), key=lambda ax: (widths[ax], -ax))
        a, b = lines[axis]
        if a == b:
            raise UsageError(f"RPCS cannot split a one-node region into {kk} groups; ask for fewer groups")
        k1 = kk // 2
        cut = a + (2 * widths[axis] * k1 + kk) // (2 * kk)      # a + width·k1/k, halves up
        cut = min(max(cut, a + 1), b)
        # near one node per group a half may hold fewer nodes than its k1 (or k2) groups:
        # then move groups to the other half (our addition; the paper only bisects)
        cross = math.prod(h - l for l, h in zip(lo, hi)) // (hi[axis] - lo[axis])
        k1 = min(max(k1, kk - cross * (hi[axis] - cut)), cross * (cut - lo[axis]))
        k2 = kk - k1
        hi1, lo2 = list(hi), list(lo)
        hi1[axis] = lo2[axis] = cut
        ref1, ref2 = list(ref), list(ref)
        ref1[axis] = min(ref[axis], cut - 1)
        ref2[axis] = max(ref[axis], cut)
        stack.append((tuple(lo2), tuple(hi), k2, ref2))
        stack.append((tuple(lo), tuple(hi1), k1, ref1))
    return regions


def propagate_group_ids(grid: NodeGrid, regions) -> np.ndarray:
    """Jitsumoto et al. §IV.C: the group id of every grid cell, from the region borders.

    Steps 1–2: the border on the low-X edge of each region (a Y line in 2-D, a YZ
    surface in 3-D) receives the region's id. Step 3: along X, each node forwards the id
    to the next node until it reaches a node that already has an id. Serially this is
    O(N); on the machine each row forwards in parallel.
    """
    seed = np.full(grid.shape, -1, dtype=np.int64)
    for gid, (lo, hi) in enumerate(regions):
        seed[(lo[0],) + tuple(slice(lo[a], hi[a]) for a in range(1, grid.d))] = gid
    pos = np.arange(grid.shape[0]).reshape((-1,) + (1,) * (grid.d - 1))
    pos = np.where(seed >= 0, pos, 0)
    np.maximum.accumulate(pos, axis=0, out=pos)
    return np.take_along_axis(seed, pos, axis=0)


def rpcs(graph, k: int) -> tuple[int, ...]:
    """Group the processes of ``graph`` into k groups by RPCS on its node grid."""
    if graph.node_coords is None:
        raise UsageError("RPCS needs node grid coordinates (node_coords); give them or use --method metis")
    node_of = graph.node_of if graph.node_of is not None else np.arange(graph.n)
    n_nodes = len(graph.node_coords)
    active = np.bincount(node_of, minlength=n_nodes) > 0        # step 1: nodes executing processes
    grid = NodeGrid(graph.node_coords, active)
    ref = [int(x) for x in graph.node_coords[node_of[0]] - grid.origin]
    regions = rpcs_regions(grid, k, ref)
    cell_group = propagate_group_ids(grid, regions)
    node_group = cell_group[tuple((graph.node_coords - grid.origin).T)]
    group_of = node_group[node_of]
    counts = np.bincount(group_of, minlength=k)
    if np.any(counts == 0):
        raise UsageError(f"RPCS left {int(np.sum(counts == 0))} of {k} groups without processes "
                         "(the node grid has holes); ask for fewer groups or use --method metis")
    return tuple(int(g) for g in group_of)
