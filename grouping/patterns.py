"""Synthetic communication patterns (SYNTHETIC: generated, not traces of the real codes).

- ``grid2d`` / ``grid3d``: the graphs of seed 002 §V.A (Figs. 5–6): each vertex is a
  node joined to its 4 (6) grid neighbours by edges of one weight.
- ``cgpop``: CGPOP-like 2-D 5-point halo pattern, 150 × 150 processes on 36 × 40 nodes,
  with non-communicating "land" processes (seed 002 §V.B–C, Figs. 8 and 10).
- ``geofem``: GEOFEM-like 3-D FEM pattern, 28³ processes on 12 × 12 × 10 nodes
  (seed 002 §V.B–C, Figs. 7 and 9).
NAS-like patterns (seed 003 §4, Table 1) live in ``rrcheck.grouping.nas``. ``PATTERNS`` and
``load_pattern`` name them for the CLI; grouping/README.md says where they differ from
the papers' traces.
"""

from __future__ import annotations

import math

import numpy as np

from rrcheck.checker.errors import UsageError
from rrcheck.grouping.graph import CommGraph
from rrcheck.grouping.placement import dual_bisection, grid_cells


def _neighbour_edges(shape, offsets, volumes, mask=None, periodic=False):
    """Directed edges from every cell to cell + offset (both directions emitted)."""
    shape = tuple(shape)
    cells = grid_cells(shape)
    ids = np.arange(cells.shape[0])
    src, dst, vol = [], [], []
    for off, v in zip(offsets, volumes):
        tgt = cells + np.asarray(off)
        if periodic:
            tgt %= np.asarray(shape)
            ok = np.ones(len(ids), dtype=bool)
        else:
            ok = np.all((tgt >= 0) & (tgt < np.asarray(shape)), axis=1)
        t = np.ravel_multi_index(tuple(tgt[ok].T), shape)
        s = ids[ok]
        if mask is not None:
            keep = mask[s] & mask[t]
            s, t = s[keep], t[keep]
        src.append(s)
        dst.append(t)
        vol.append(np.full(s.size, float(v)))
    return np.concatenate(src), np.concatenate(dst), np.concatenate(vol)


def _axis_offsets(d):
    offs = []
    for a in range(d):
        for sgn in (1, -1):
            o = [0] * d
            o[a] = sgn
            offs.append(tuple(o))
    return offs


def grid2d(nx: int, ny: int) -> CommGraph:
    """Seed 002 §V.A: an nx × ny grid, vertices are nodes, 4 neighbours, equal weights."""
    return _grid((nx, ny), "grid2d")


def grid3d(nx: int, ny: int, nz: int) -> CommGraph:
    """The 3-D analogue of ``grid2d`` (6 neighbours)."""
    return _grid((nx, ny, nz), "grid3d")


def _grid(shape, label):
    if any(s < 1 for s in shape):
        raise UsageError(f"grid sizes must be positive, got {'x'.join(map(str, shape))}")
    offs = _axis_offsets(len(shape))
    src, dst, vol = _neighbour_edges(shape, offs, [1.0] * len(offs))
    cells = grid_cells(shape)
    n = cells.shape[0]
    return CommGraph.from_arrays(n, src, dst, vol, coords=cells, node_of=np.arange(n),
                                 node_coords=cells, name=f"{label}:{'x'.join(map(str, shape))}")


def cgpop_land(px=150, py=150) -> np.ndarray:
    """SYNTHETIC land mask (about 32 % land): a few elliptic continents and a southern
    land band, on the 150 × 150 block grid. True = land (the process never communicates)."""
    x, y = np.meshgrid((np.arange(px) + 0.5) * 150 / px, (np.arange(py) + 0.5) * 150 / py, indexing="ij")

    def ell(cx, cy, rx, ry):
        return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1

    land = (ell(32, 88, 13, 42) | ell(40, 40, 9, 22) | ell(100, 100, 22, 30) | ell(92, 50, 12, 24)
            | ell(128, 34, 10, 8) | ell(75, 150, 30, 6) | (y < 9))
    return land


def cgpop(px=150, py=150, nodes=(36, 40), halo=2, block=(24, 16), land=True) -> CommGraph:
    """CGPOP-like (SYNTHETIC): 2-D 5-point halo exchange on a px × py process grid.

    Each process owns a ``block`` (24 × 16 points: POP's 3600 × 2400 0.1° grid over
    150 × 150 processes) and exchanges ``halo`` rows of 8-byte values with its ocean
    neighbours: 2·16·8 = 256 bytes east/west, 2·24·8 = 384 bytes north/south per
    iteration. Land processes (``cgpop_land``) send nothing. Processes are placed on the
    36 × 40 node grid by ``dual_bisection`` (SCOTCH-like). Rank = x·py + y.
    ``land=False`` is the all-ocean control of benchmarks/grouping_quality.py.
    """
    ocean = ~cgpop_land(px, py).ravel() if land else np.ones(px * py, dtype=bool)
    ew, ns = halo * block[1] * 8, halo * block[0] * 8
    src, dst, vol = _neighbour_edges((px, py), [(1, 0), (-1, 0), (0, 1), (0, -1)], [ew, ew, ns, ns], mask=ocean)
    cells = grid_cells((px, py))
    node_of = dual_bisection(cells, nodes)
    return CommGraph.from_arrays(px * py, src, dst, vol, coords=cells, node_of=node_of,
                                 node_coords=grid_cells(nodes), name="cgpop")


def geofem(p=28, nodes=(12, 12, 10), s=10) -> CommGraph:
    """GEOFEM-like (SYNTHETIC): 3-D FEM pattern on a p³ process cube (28³ = 21952).

    Each process owns s³ hexahedral elements of an elastic cube and exchanges the shared
    mesh nodes (3 displacement dofs, 8 bytes each) with its 26 neighbours: (s+1)² nodes
    across a face, s+1 along an edge, 1 at a corner. Placed on the 12 × 12 × 10 node
    grid by ``dual_bisection``. Rank = (x·p + y)·p + z.
    """
    offs, vols = [], []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dz in (-1, 0, 1):
                k = abs(dx) + abs(dy) + abs(dz)
                if k:
                    offs.append((dx, dy, dz))
                    vols.append(24 * (s + 1) ** (3 - k))
    src, dst, vol = _neighbour_edges((p, p, p), offs, vols)
    cells = grid_cells((p, p, p))
    node_of = dual_bisection(cells, nodes)
    return CommGraph.from_arrays(p ** 3, src, dst, vol, coords=cells, node_of=node_of,
                                 node_coords=grid_cells(nodes), name="geofem")


MAX_PROCESSES = 1_000_000   # refused before any allocation


def _dims(spec, d, label):
    try:
        dims = tuple(int(x) for x in spec.lower().split("x"))
    except ValueError:
        dims = ()
    if len(dims) != d or any(x < 1 for x in dims):
        raise UsageError(f"pattern {label}:{spec} needs {d} positive sizes like {label}:{'x'.join(['100'] * d)}")
    if math.prod(dims) > MAX_PROCESSES:
        raise UsageError(f"pattern {label}:{spec} has {math.prod(dims):,} processes; at most {MAX_PROCESSES:,}")
    return dims


def pattern_names() -> list[str]:
    from rrcheck.grouping import nas
    return ["grid2d:WxH", "grid3d:XxYxZ", "cgpop", "geofem", *nas.NAS_PATTERNS]


def load_pattern(name: str) -> CommGraph:
    """A pattern by name (``cgpop``, ``geofem``, ``grid2d:100x100``, ``nas-cg`` …) or a
    communication-graph JSON file (``rrcheck.grouping.io``)."""
    from rrcheck.grouping import nas
    if name.endswith(".json"):
        from rrcheck.grouping.io import load_graph
        return load_graph(name)
    head, _, arg = name.partition(":")
    if head == "grid2d" and arg:
        return grid2d(*_dims(arg, 2, head))
    if head == "grid3d" and arg:
        return grid3d(*_dims(arg, 3, head))
    if name == "cgpop":
        return cgpop()
    if name == "geofem":
        return geofem()
    if name in nas.NAS_PATTERNS:
        return nas.NAS_PATTERNS[name]()
    raise UsageError(f"unknown pattern {name!r}; use one of {', '.join(pattern_names())} or a graph .json file")
