"""CGPOP's block distribution: the ocean blocks in space-filling-curve order, cut into one
run of consecutive blocks per process.

Stone, Dennis and Strout, *The CGPOP Miniapp, Version 1.0* (CSU CS-11-103, 2011), §3 and
§5.1: the 3600 × 2400 grid is cut into blocks (24 × 16 points gives 22,500 blocks, 150 ×
150), and "in practice fewer blocks are used because some areas correspond solely to
land". The release's tile generator orders the blocks that hold ocean along a
space-filling curve, drops the land blocks, and the miniapp cuts the curve into equal runs
(the partitioning of Dennis, *Inverse space-filling curve partitioning of a global ocean
model*, IPDPS 2007): with B ocean blocks and P processes, the first B mod P processes get
⌊B/P⌋ + 1 consecutive blocks and the others ⌊B/P⌋, in rank order. With P > B the last
P − B processes get no block and never communicate.

Deviation: CGPOP's curve nests Hilbert (factor 2), meandering-Peano (3) and Cinco (5)
curves, which needs a side of 2^a·3^b·5^c (150 = 2·3·5²); we use a generalized Hilbert
curve (Červený's construction), which fills any W × H grid; on the 150 × 150 block grid
every step goes to a neighbouring block. Both visit every block once and keep runs
compact; with one block per process (22,500 processes) the curve only numbers the ranks.
"""

from __future__ import annotations

import numpy as np

from rrcheck.errors import UsageError


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def generalized_hilbert(width: int, height: int) -> np.ndarray:
    """The cells of a width × height grid in curve order: an array (width·height, 2) of (x, y)."""
    if width < 1 or height < 1:
        raise UsageError(f"a space-filling curve needs a positive grid, got {width}x{height}")
    out: list[tuple[int, int]] = []
    # (x, y) the start, (ax, ay) the major axis (the curve's length), (bx, by) the minor axis
    stack = [(0, 0, width, 0, 0, height) if width >= height else (0, 0, 0, height, width, 0)]
    while stack:
        x, y, ax, ay, bx, by = stack.pop()
        w, h = abs(ax + ay), abs(bx + by)
        dax, day, dbx, dby = _sign(ax), _sign(ay), _sign(bx), _sign(by)
        if h == 1 or w == 1:                       # a single row or column: walk it
            step = (dax, day) if h == 1 else (dbx, dby)
            out.extend((x + i * step[0], y + i * step[1]) for i in range(max(w, h)))
            continue
        ax2, ay2, bx2, by2 = ax // 2, ay // 2, bx // 2, by // 2
        if 2 * w > 3 * h:                          # long: split the major axis in two
            if abs(ax2 + ay2) % 2 and w > 2:       # prefer even halves (unit steps)
                ax2, ay2 = ax2 + dax, ay2 + day
            parts = [(x, y, ax2, ay2, bx, by), (x + ax2, y + ay2, ax - ax2, ay - ay2, bx, by)]
        else:                                      # up the minor half, along, and back down
            if abs(bx2 + by2) % 2 and h > 2:
                bx2, by2 = bx2 + dbx, by2 + dby
            parts = [(x, y, bx2, by2, ax2, ay2),
                     (x + bx2, y + by2, ax, ay, bx - bx2, by - by2),
                     (x + (ax - dax) + (bx2 - dbx), y + (ay - day) + (by2 - dby),
                      -bx2, -by2, -(ax - ax2), -(ay - ay2))]
        stack.extend(reversed(parts))
    return np.asarray(out, dtype=np.int64)


def curve_distribution(curve_blocks: np.ndarray, active: np.ndarray, nprocs: int) -> np.ndarray:
    """The process of every block: ``curve_blocks`` lists block ids in curve order, ``active``
    marks the blocks that hold ocean. Returns ``owner`` (−1 for a land block), the active
    blocks cut into ``nprocs`` runs of consecutive blocks along the curve, the first
    B mod P runs one block longer (CGPOP's rule, see the module docstring)."""
    if nprocs < 1:
        raise UsageError(f"the number of processes must be positive, got {nprocs}")
    curve_blocks = np.asarray(curve_blocks, dtype=np.int64)
    active = np.asarray(active, dtype=bool)
    ocean = curve_blocks[active[curve_blocks]]     # the ocean blocks, in curve order
    per, extra = divmod(ocean.size, nprocs)
    lengths = np.full(nprocs, per, dtype=np.int64)
    lengths[:extra] += 1
    owner = np.full(active.size, -1, dtype=np.int64)
    owner[ocean] = np.repeat(np.arange(nprocs), lengths)
    return owner
