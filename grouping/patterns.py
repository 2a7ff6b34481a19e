"""Synthetic communication patterns (SYNTHETIC: generated, not traces of the real codes).

- ``grid2d`` / ``grid3d``: the graphs of Jitsumoto et al. §V.A (Figs. 5–6): each vertex
  joined to its 4 (6) grid neighbours by edges of one weight; a vertex is a node, or
  with ``/PPN`` a process, PPN of them to a node.
- ``cgpop``: CGPOP-like 2-D 5-point halo pattern, 150 × 150 processes on 36 × 40 nodes,
  over Earth's real coastline: blocks of land do not communicate (Jitsumoto et al.,
  §V.B–C, Figs. 8 and 10); ``cgpop:ellipses`` and ``cgpop:none`` are controls. Options
  change one assumption each: CGPOP's own block distribution along a space-filling curve,
  a graph-based (SCOTCH-like) node allocation, POP's full-edge halo volumes.
- ``geofem``: GEOFEM-like 3-D FEM pattern, 28³ processes on 12 × 12 × 10 nodes
  (Jitsumoto et al., §V.B–C, Figs. 7 and 9).
NAS-like patterns (Guermouche and Ropars, §4, Table 1) live in ``rrcheck.grouping.nas``. ``PATTERNS`` and
``load_pattern`` name them for the CLI; grouping/README.md says where they differ from
the papers' traces.
"""

from __future__ import annotations

import math

import numpy as np

from rrcheck.errors import UsageError
from rrcheck.grouping.graph import MAX_PROCESSES, CommGraph
from rrcheck.grouping.placement import dual_bisection, graph_bisection, grid_cells, scotch_mapping


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


def grid2d(nx: int, ny: int, per_node: int = 1) -> CommGraph:
    """Jitsumoto et al. §V.A: an nx × ny grid, 4 neighbours, equal weights; vertices are
    processes, ``per_node`` of them to a node (1: vertices are nodes, as in the paper)."""
    return _grid((nx, ny), "grid2d", per_node)


def grid3d(nx: int, ny: int, nz: int, per_node: int = 1) -> CommGraph:
    """The 3-D analogue of ``grid2d`` (6 neighbours)."""
    return _grid((nx, ny, nz), "grid3d", per_node)


def node_block(shape: tuple[int, ...], per_node: int) -> tuple[int, ...]:
    """The most compact box of ``per_node`` processes that tiles ``shape``: a node holds
    one box of neighbouring processes, as a block placement does."""
    def boxes(k, dims):
        if len(dims) == 1:
            if dims[0] % k == 0:
                yield (k,)
            return
        for f in range(1, k + 1):
            if k % f == 0 and dims[0] % f == 0:
                for rest in boxes(k // f, dims[1:]):
                    yield (f, *rest)
    best = min(boxes(per_node, shape), key=lambda b: (max(b) / min(b), b), default=None)
    if best is None:
        raise UsageError(f"{per_node} processes per node do not tile a {'x'.join(map(str, shape))} grid "
                         f"in boxes; choose a number whose factors divide the sizes")
    return best


def _grid(shape, label, per_node=1):
    if any(s < 1 for s in shape):
        raise UsageError(f"grid sizes must be positive, got {'x'.join(map(str, shape))}")
    if per_node < 1:
        raise UsageError(f"processes per node must be positive, got {per_node}")
    box = node_block(shape, per_node)
    offs = _axis_offsets(len(shape))
    src, dst, vol = _neighbour_edges(shape, offs, [1.0] * len(offs))
    cells = grid_cells(shape)
    node_shape = tuple(s // b for s, b in zip(shape, box))
    node_of = np.ravel_multi_index(tuple((cells // np.asarray(box)).T), node_shape)
    name = f"{label}:{'x'.join(map(str, shape))}" + (f"/{per_node}" if per_node > 1 else "")
    return CommGraph.from_arrays(cells.shape[0], src, dst, vol, coords=cells, node_of=node_of,
                                 node_coords=grid_cells(node_shape), name=name)


def cgpop_ellipses(px=150, py=150) -> np.ndarray:
    """The invented control mask (about 32 % land): a few elliptic continents and a
    southern land band on the px × py block grid. True = land (the process never
    communicates). Kept to show what a real coastline changes."""
    x, y = np.meshgrid((np.arange(px) + 0.5) * 150 / px, (np.arange(py) + 0.5) * 150 / py, indexing="ij")

    def ell(cx, cy, rx, ry):
        return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1

    return (ell(32, 88, 13, 42) | ell(40, 40, 9, 22) | ell(100, 100, 22, 30) | ell(92, 50, 12, 24)
            | ell(128, 34, 10, 8) | ell(75, 150, 30, 6) | (y < 9))


def _block_ocean(ocean: np.ndarray, px: int, py: int):
    """Per block of the point grid ``ocean`` (shape px·bx × py·by): its ocean points,
    and the ocean points on each shared border — a row (column) where the two facing
    edge points are both ocean exchanges one value each way. East–west wraps."""
    X, Y = ocean.shape
    bx, by = X // px, Y // py
    blocks = ocean.reshape(px, bx, py, by)
    points = blocks.sum(axis=(1, 3))
    east = ocean[bx - 1::bx, :] & np.roll(ocean, -1, axis=0)[bx - 1::bx, :]  # last column · next block's first
    ew = east.reshape(px, py, by).sum(axis=2)                                 # (x, y) -> (x+1 mod px, y)
    north = ocean[:, by - 1:Y - 1:by] & ocean[:, by::by]                        # py-1 interior borders
    ns = north.reshape(px, bx, py - 1).sum(axis=1)                            # (x, y) -> (x, y+1)
    return points, ew, ns


CGPOP_OPTIONS = {"distribution": ("grid", "curve"), "placement": ("geometric", "graph", "scotch"),
                 "halo": ("ocean", "full")}


def _block_halo(ocean, px, py, bx, by, halo, mode):
    """Halo volume per iteration, one way, between neighbouring blocks: (a, b, bytes) with
    block id = x·py + y. ``ocean``: 8-byte values for each pair of facing ocean points, as
    the model had (CGPOP's 1-D variants send ocean points only); ``full``: whole edges
    with their ghost corners, land points included, between any two blocks that hold ocean
    (POP 2.0's 2-D halo update, CGPOP's 2-D variants: nghost × (side + 2·nghost) values)."""
    points, ew_pts, ns_pts = _block_ocean(ocean, px, py)
    ids = np.arange(px * py).reshape(px, py)
    if mode == "ocean":
        ew, ns = halo * 8.0 * ew_pts, halo * 8.0 * ns_pts
    else:
        wet = points > 0
        ew = (wet & np.roll(wet, -1, axis=0)) * halo * 8.0 * (by + 2 * halo)
        ns = (wet[:, :-1] & wet[:, 1:]) * halo * 8.0 * (bx + 2 * halo)
    a = np.concatenate([ids.ravel(), ids[:, :-1].ravel()])
    b = np.concatenate([np.roll(ids, -1, axis=0).ravel(), ids[:, 1:].ravel()])
    v = np.concatenate([ew.ravel(), ns.ravel()])
    keep = v > 0
    return points, a[keep], b[keep], v[keep]


def cgpop(px=150, py=150, nodes=(36, 40), halo=2, block=(24, 16), land="coastline",
          distribution="grid", placement="geometric", halo_volume="ocean", placement_seed=1) -> CommGraph:
    """CGPOP-like 2-D halo exchange of px × py blocks on px·py processes.

    Each block covers ``block`` points of POP's 3600 × 2400-point 0.1° grid (24 × 16 points
    for 150 × 150 blocks) and exchanges ``halo`` rows of 8-byte values with its four
    neighbours: by default in proportion to the ocean points on the shared border (at most
    2·16·8 = 256 bytes east–west, 2·24·8 = 384 bytes north–south per iteration). Blocks
    without an ocean point are silent: "processes allocated domain of land do not
    communicate" (Jitsumoto et al., §V.C). East–west periodic, as POP is.

    ``land``: ``"coastline"`` — Earth's real land mask (``rrcheck.grouping.coastline``);
    ``"ellipses"`` — the invented control mask (whole blocks land or ocean);
    ``"none"`` — the all-ocean control.
    Three assumptions the paper leaves open, each with today's choice first:
    ``distribution``: ``"grid"`` — process x·py + y owns block (x, y), land blocks included
    (a silent process each); ``"curve"`` — CGPOP's own: the blocks holding ocean, in
    space-filling-curve order, are cut into one run per process and land blocks are
    dropped (``rrcheck.grouping.spacecurve``), so the last processes hold no block.
    ``placement`` on the 36 × 40 node grid: ``"geometric"`` — ``dual_bisection`` of the
    processes' block positions (with ``curve``, of the processes holding blocks, the idle
    ones filling the free slots); ``"graph"`` — ``graph_bisection`` of the communication
    graph (seeded by ``placement_seed``); ``"scotch"`` — SCOTCH's ``gmap``, if installed.
    ``halo_volume``: ``"ocean"`` or ``"full"`` (``_block_halo``).
    """
    for key, value in (("distribution", distribution), ("placement", placement), ("halo", halo_volume)):
        if value not in CGPOP_OPTIONS[key]:
            raise UsageError(f"cgpop {key} {value!r}: choose {' or '.join(CGPOP_OPTIONS[key])}")
    bx, by = block
    if land == "coastline":
        from rrcheck.grouping.coastline import ocean_points
        ocean = ocean_points(px * bx, py * by)
    elif land == "ellipses":
        ocean = np.repeat(np.repeat(~cgpop_ellipses(px, py), bx, axis=0), by, axis=1)
    elif land == "none":
        ocean = np.ones((px * bx, py * by), dtype=bool)
    else:
        raise UsageError(f"cgpop land {land!r}: choose coastline, ellipses or none")
    points, a, b, v = _block_halo(ocean, px, py, bx, by, halo, halo_volume)
    n = px * py
    cells = grid_cells((px, py))
    if distribution == "grid":
        owner, coords = np.arange(n), cells
    else:
        from rrcheck.grouping.spacecurve import curve_distribution, generalized_hilbert
        curve = generalized_hilbert(px, py)
        owner = curve_distribution(curve[:, 0] * py + curve[:, 1], points.ravel() > 0, n)
        held = owner >= 0
        counts = np.bincount(owner[held], minlength=n)
        centre = np.stack([np.bincount(owner[held], weights=cells[held, k], minlength=n) for k in (0, 1)], axis=1)
        coords = centre / np.maximum(counts, 1)[:, None] if counts.min() > 0 else None   # idle processes: no place
    src, dst, vol = np.concatenate([owner[a], owner[b]]), np.concatenate([owner[b], owner[a]]), np.concatenate([v, v])
    graph = CommGraph.from_arrays(n, src, dst, vol)
    if placement == "geometric":
        if distribution == "grid":
            node_of = dual_bisection(cells, nodes)
        else:
            node_of = _fill_idle(owner, cells, n, nodes)
    elif placement == "graph":
        node_of = graph_bisection(graph, nodes, seed=placement_seed)
    else:
        node_of = scotch_mapping(graph, nodes)
    options = [f"{k}={x}" for k, x, default in (("distribution", distribution, "grid"),
                                                ("placement", placement, "geometric"),
                                                ("halo", halo_volume, "ocean")) if x != default]
    return CommGraph.from_arrays(n, src, dst, vol, coords=coords, node_of=node_of, node_coords=grid_cells(nodes),
                                 name=":".join([f"cgpop:{land}", *options]))


def _fill_idle(owner, cells, n, nodes):
    """Geometric placement for the curve distribution: the processes holding blocks by
    ``dual_bisection`` of their blocks' centre (an equal share on every node), then the
    idle processes into the free slots, node by node, so that every node holds floor or
    ceil of n/N processes."""
    held = owner >= 0
    n_active = int(owner.max()) + 1                  # ranks 0..n_active-1 hold blocks
    counts = np.bincount(owner[held], minlength=n_active)
    centre = np.stack([np.bincount(owner[held], weights=cells[held, k], minlength=n_active) for k in (0, 1)], axis=1)
    node_of = np.empty(n, dtype=np.int64)
    node_of[:n_active] = dual_bisection(centre / counts[:, None], nodes)
    n_nodes = math.prod(nodes)
    quota = np.full(n_nodes, n // n_nodes)
    quota[: n % n_nodes] += 1
    free = np.maximum(quota - np.bincount(node_of[:n_active], minlength=n_nodes), 0)
    assert free.sum() >= n - n_active, "more processes hold blocks than the nodes have slots"
    node_of[n_active:] = np.repeat(np.arange(n_nodes), free)[: n - n_active]
    return node_of


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
    return ["grid2d:WxH[/PPN]", "grid3d:XxYxZ[/PPN]", "cgpop", "cgpop:ellipses", "cgpop:none",
            "cgpop[:LAND]:distribution=curve:placement=graph|scotch:halo=full", "geofem", *nas.NAS_PATTERNS]


def _load_cgpop(arg: str) -> CommGraph:
    """``cgpop[:LAND][:KEY=VALUE]...``: the land mask, then any of the three assumptions."""
    parts = arg.split(":") if arg else []
    land = parts.pop(0) if parts and "=" not in parts[0] else "coastline"
    if land not in ("coastline", "ellipses", "none"):
        raise UsageError(f"pattern cgpop:{arg}: choose cgpop (Earth's coastline), cgpop:ellipses or cgpop:none")
    opts = {}
    for part in parts:
        key, _, value = part.partition("=")
        if key not in CGPOP_OPTIONS or value not in CGPOP_OPTIONS[key]:
            raise UsageError(f"pattern cgpop:{arg}: options are "
                             + ", ".join(f"{k}={'|'.join(v)}" for k, v in CGPOP_OPTIONS.items()))
        opts["halo_volume" if key == "halo" else key] = value
    return cgpop(land=land, **opts)


def load_pattern(name: str) -> CommGraph:
    """A pattern by name (``cgpop``, ``geofem``, ``grid2d:100x100``, ``nas-cg`` …) or a
    communication-graph JSON file (``rrcheck.grouping.io``)."""
    from rrcheck.grouping import nas
    if name.endswith(".json"):
        from rrcheck.grouping.io import load_graph
        return load_graph(name)
    head, _, arg = name.partition(":")
    if head in ("grid2d", "grid3d") and arg:
        sizes, _, k = arg.partition("/")
        if k and not (k.isdigit() and int(k) >= 1):
            raise UsageError(f"pattern {name}: processes per node (after /) must be a positive integer")
        build = grid2d if head == "grid2d" else grid3d
        return build(*_dims(sizes, 2 if head == "grid2d" else 3, head), per_node=int(k or 1))
    if head == "cgpop":
        return _load_cgpop(arg)
    if name == "geofem":
        return geofem()
    if name in nas.NAS_PATTERNS:
        return nas.NAS_PATTERNS[name]()
    raise UsageError(f"unknown pattern {name!r}; use one of {', '.join(pattern_names())} or a graph .json file")
