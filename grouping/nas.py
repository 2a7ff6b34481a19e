"""NAS-like communication patterns at 1024 processes (SYNTHETIC), for Guermouche and Ropars §4 Table 1.

Seed 003 §4 traced BT, CG, LU, MG, SP and FT (class D, 1024 processes) under a modified
MPICH2. We have no traces: each pattern below rebuilds, from the NPB 3.3 MPI sources,
*who talks to whom* and roughly *how much* in one iteration of the main loop (the
first-iteration capture of Jitsumoto et al. §III.B). Volumes are in bytes, class D sizes.
Processes are placed by slot (16 consecutive ranks per node). grouping/README.md lists
what is left out (collectives other than FT's all-to-all, MG's coarse-grid agglomeration,
exact per-message sizes).
"""

from __future__ import annotations

import numpy as np

from rrcheck.grouping.graph import CommGraph
from rrcheck.grouping.placement import by_slot

N_PROCS = 1024
PER_NODE = 16

# Seed 003, Table 1: groups, min size, max size, % rolled back, % logged (by volume).
TABLE1 = {
    "BT": (8, 123, 132, 12.50, 12.33),
    "CG": (32, 32, 32, 3.125, 16.23),
    "LU": (16, 64, 64, 6.25, 9.68),
    "MG": (8, 128, 128, 12.5, 18.43),
    "SP": (8, 124, 133, 12.5, 12.14),
    "FT": (2, 502, 522, 50.0, 50.0),
}


def _finish(name, src, dst, vol, coords):
    coords = np.asarray(coords, dtype=np.int64)
    node_of = by_slot(N_PROCS, PER_NODE)
    # a node's coordinate: its first process's coordinate divided by the block extent
    first = np.searchsorted(node_of, np.arange(node_of.max() + 1))
    ext = coords[node_of == 0].max(axis=0) - coords[node_of == 0].min(axis=0) + 1
    node_coords = coords[first] // ext
    return CommGraph.from_arrays(N_PROCS, np.asarray(src), np.asarray(dst), np.asarray(vol, dtype=float),
                                 coords=coords, node_of=node_of, node_coords=node_coords, name=name)


def cg() -> CommGraph:
    """NPB CG: 32 × 32 process grid, me = row·32 + col (setup_submatrix_info).

    Per conj_grad mat-vec: the row reduction exchanges send_len = na/nprows = 46875
    doubles with reduce_exch_proc(i) = the process of the same row whose column differs
    in bit i (i = 4..0), then the same length with the transpose partner
    exch_proc = (me mod 32)·32 + me/32 (a self-send on the diagonal, dropped). One outer
    iteration = 26 mat-vecs (25 CG steps + residual) and 2·25 + 2 scalar reductions of
    1 double plus one of 2 doubles over the same row partners.
    """
    rows, cols = np.divmod(np.arange(N_PROCS), 32)
    L = 1_500_000 // 32 * 8
    src, dst, vol = [], [], []
    for bit in range(5):
        partner = rows * 32 + (cols ^ (1 << bit))
        src.append(np.arange(N_PROCS)); dst.append(partner)
        vol.append(np.full(N_PROCS, 26 * L + (2 * 25 + 2) * 8 + 16))
    src.append(np.arange(N_PROCS)); dst.append(cols * 32 + rows); vol.append(np.full(N_PROCS, 26 * L))
    return _finish("nas-cg", np.concatenate(src), np.concatenate(dst), np.concatenate(vol),
                   np.stack([rows, cols], 1))


def mg() -> CommGraph:
    """NPB MG: 8 × 8 × 16 periodic process grid (setup: dx = log_p/3, dy = (log_p-dx)/2),
    me = i + 8·j + 64·k. comm3 exchanges each face (with its 2 ghost lines) with both
    neighbours along each axis; we count 3 exchanges per level of the V-cycle on the
    1024³ class D grid, levels down to a 2-point-thick local block."""
    pi = np.array([8, 8, 16])
    me = np.arange(N_PROCS)
    idi = np.stack([me % 8, (me // 8) % 8, me // 64], 1)
    local = np.array([1024, 1024, 1024]) // pi
    face = np.zeros(3)
    while local.min() >= 2:
        face += [(local[1] + 2) * (local[2] + 2), (local[0] + 2) * (local[2] + 2), (local[0] + 2) * (local[1] + 2)]
        local = local // 2
    src, dst, vol = [], [], []
    for ax in range(3):
        for sgn in (1, -1):
            nb = idi.copy()
            nb[:, ax] = (nb[:, ax] + sgn) % pi[ax]
            src.append(me); dst.append(nb[:, 0] + 8 * nb[:, 1] + 64 * nb[:, 2])
            vol.append(np.full(N_PROCS, 3 * 8 * face[ax]))
    return _finish("nas-mg", np.concatenate(src), np.concatenate(dst), np.concatenate(vol), idi)


def lu() -> CommGraph:
    """NPB LU: 32 × 32 non-periodic process grid, id = row + 32·col (proc_grid,
    neighbors). Per SSOR iteration, blts/buts send 5 values per face point for each of
    the 406 interior k-planes (exchange_1), and rhs sends 2 ghost layers of 5 values
    (exchange_3), to each of the 4 neighbours; local extents 13 or 12 of the 408³ grid."""
    me = np.arange(N_PROCS)
    row, col = me % 32, me // 32
    ext = np.where(np.arange(32) < 408 % 32, 408 // 32 + 1, 408 // 32)
    per_point = 5 * 8 * (406 + 2 * 408)
    src, dst, vol = [], [], []
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        r2, c2 = row + dr, col + dc
        ok = (r2 >= 0) & (r2 < 32) & (c2 >= 0) & (c2 < 32)
        face = ext[col] if dr else ext[row]          # a north/south face spans the column's y-extent
        src.append(me[ok]); dst.append((r2 + 32 * c2)[ok]); vol.append(face[ok] * per_point)
    return _finish("nas-lu", np.concatenate(src), np.concatenate(dst), np.concatenate(vol),
                   np.stack([row, col], 1))


def _multipartition(name, forward, backward):
    """NPB BT/SP multi-partition (make_set): node = i + 32·j on a 32 × 32 torus;
    predecessor/successor per direction: x (i∓1, j), y (i, j∓1), z (i±1, j∓1).
    copy_faces sends 2 ghost layers of 5 values per face point to all 6; each solve
    sends ``forward`` values per face point to the successor and ``backward`` to the
    predecessor; 32 cells of 12.75² face points (408³, class D)."""
    me = np.arange(N_PROCS)
    i, j = me % 32, me // 32
    pts = 32 * (408 / 32) ** 2
    succ = [(1, 0), (0, 1), (-1, 1)]
    src, dst, vol = [], [], []
    for di, dj in succ:
        for sgn, values in ((1, forward), (-1, backward)):
            nb = (i + sgn * di) % 32 + 32 * ((j + sgn * dj) % 32)
            src.append(me); dst.append(nb); vol.append(np.full(N_PROCS, round(pts * 8 * (10 + values))))
    return _finish(name, np.concatenate(src), np.concatenate(dst), np.concatenate(vol), np.stack([i, j], 1))


def bt() -> CommGraph:
    """NPB BT-like: forward elimination sends a 5 × 5 block and a 5-vector per face point."""
    return _multipartition("nas-bt", forward=30, backward=5)


def sp() -> CommGraph:
    """NPB SP-like: forward elimination sends 2 pentadiagonal rows per face point."""
    return _multipartition("nas-sp", forward=22, backward=10)


def ft() -> CommGraph:
    """NPB FT: class D (2048 × 1024 × 1024) with np = 1024 ≤ nz uses the 1-D layout, so
    each transpose is an MPI_Alltoall over all 1024 processes: every pair exchanges
    2048·1024·1024/1024² complex values (16 bytes) per FFT, one FFT per iteration."""
    me = np.arange(N_PROCS)
    src = np.repeat(me, N_PROCS)
    dst = np.tile(me, N_PROCS)
    vol = np.full(src.size, 2048 * 16.0)
    return _finish("nas-ft", src, dst, vol, np.stack([me // 32, me % 32], 1))


NAS_PATTERNS = {"nas-bt": bt, "nas-cg": cg, "nas-lu": lu, "nas-mg": mg, "nas-sp": sp, "nas-ft": ft}
