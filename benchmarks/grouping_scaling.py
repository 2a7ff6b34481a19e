"""Seed 002 Figs. 5–6: partitioning time against n on 2-D grids, 100 groups.

RPCS, pmetis (METIS recursive bisection), kmetis (METIS k-way) and RCB are timed side by
side in one run on nx × nx grids (vertices = nodes, 4 neighbours, equal weights; seed
002 §V.A) up to 10^6 vertices, and a power law t = c·n^e is fitted to each.

What is timed, for each method, is the partitioning from a ready input: METIS gets the
CSR graph, RCB the coordinates, RPCS the node grid (the machine topology). "RPCS" is
steps 2–8 of §III.C (the borders, what Figs. 5–6 time); "RPCS+broadcast" adds our serial
simulation of the group-id propagation of §IV.C, which touches every node (O(n)) where
the machine does it in parallel. Each time is the minimum of at least --repeats runs
(fast methods are rerun until 0.3 s is spent, at most 100 times, to tame timer noise).

    python benchmarks/grouping_scaling.py            # writes benchmarks/results/grouping_scaling.*
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pymetis  # noqa: E402

from grouping._bench import plot_path, write_result  # noqa: E402
from grouping.partition import rcb  # noqa: E402
from grouping.patterns import grid2d  # noqa: E402
from grouping.rpcs import NodeGrid, propagate_group_ids, rpcs_regions  # noqa: E402

METHODS = ("RPCS", "RPCS+broadcast", "kmetis", "pmetis", "RCB")


def best_time(fn, repeats, budget=0.3, cap=100):
    """Minimum over at least ``repeats`` runs, more (up to ``cap``) while under ``budget`` s."""
    times = []
    while len(times) < repeats or (sum(times) < budget and len(times) < cap):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def fit(ns, ts):
    e, logc = np.polyfit(np.log(ns), np.log(ts), 1)
    return float(e), float(np.exp(logc))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sides", default="100,141,200,283,400,566,800,1000",
                    help="grid sides (n = side²), comma-separated")
    ap.add_argument("--groups", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    sides = [int(s) for s in args.sides.split(",")]
    k = args.groups
    t_start = time.perf_counter()
    rows = []
    for side in sides:
        t0 = time.perf_counter()
        g = grid2d(side, side)
        grid = NodeGrid(g.node_coords)
        csr = pymetis.CSRAdjacency(g.indptr, g.indices)
        coords = g.coords
        build = time.perf_counter() - t0
        n = g.n
        runs = {
            "RPCS": lambda: rpcs_regions(grid, k, [0, 0]),
            "RPCS+broadcast": lambda: propagate_group_ids(grid, rpcs_regions(grid, k, [0, 0])).ravel(),
            "kmetis": lambda: np.asarray(pymetis.part_graph(k, csr, recursive=False,
                                                            options=pymetis.Options(seed=1)).vertex_part),
            "pmetis": lambda: np.asarray(pymetis.part_graph(k, csr, recursive=True,
                                                            options=pymetis.Options(seed=1)).vertex_part),
            "RCB": lambda: rcb(coords, k),
        }
        row = {"side": side, "n": n, "edges": g.n_edges, "graph_build_s": build, "seconds": {}, "groups": {},
               "edge_cut": {}}
        for name, fn in runs.items():
            t, out = best_time(fn, args.repeats)
            group_of = (propagate_group_ids(grid, out).ravel() if name == "RPCS" else np.asarray(out))
            row["seconds"][name] = t
            row["groups"][name] = int(np.unique(group_of).size)
            row["edge_cut"][name] = g.cut_volume(group_of)
        rows.append(row)
        print(f"n={n:>8}  " + "  ".join(f"{m}={row['seconds'][m]*1e3:8.2f}ms" for m in METHODS), flush=True)

    ns = np.array([r["n"] for r in rows], dtype=float)
    fits = {m: dict(zip(("exponent", "coefficient"), fit(ns, [r["seconds"][m] for r in rows]))) for m in METHODS}
    big = ns >= 1e5
    fits_large = ({m: fit(ns[big], [r["seconds"][m] for r, b in zip(rows, big) if b])[0] for m in METHODS}
                  if big.sum() >= 2 else {})
    last = rows[-1]["seconds"]
    speedup = {f"{m}/{r}": last[m] / last[r] for m in ("kmetis", "pmetis") for r in ("RPCS", "RPCS+broadcast")}
    criteria = {
        "rpcs_exponent_le_0.6": {"value": fits["RPCS"]["exponent"], "met": fits["RPCS"]["exponent"] <= 0.6},
        "rpcs_with_broadcast_exponent_le_0.6": {"value": fits["RPCS+broadcast"]["exponent"],
                                                "met": fits["RPCS+broadcast"]["exponent"] <= 0.6},
    }
    for m in ("kmetis", "pmetis"):
        criteria[f"{m}_exponent_ge_0.9"] = {"value": fits[m]["exponent"], "met": fits[m]["exponent"] >= 0.9,
                                            "value_n_ge_1e5": fits_large.get(m)}
    slowest_ratio = min(speedup["kmetis/RPCS"], speedup["pmetis/RPCS"])
    criteria["rpcs_10x_faster_than_both_metis_at_largest_n"] = {
        "n": rows[-1]["n"], "value": slowest_ratio, "met": slowest_ratio >= 10,
        "with_broadcast": min(speedup["kmetis/RPCS+broadcast"], speedup["pmetis/RPCS+broadcast"])}
    total = time.perf_counter() - t_start
    path = write_result("grouping_scaling", {
        "figure": "seed 002 Figs. 5-6", "groups": k, "repeats": args.repeats,
        "pattern": "2-D grid graphs, vertices = nodes, 4 neighbours, equal weights (synthetic)",
        "timed": "partitioning from a ready input (CSR for METIS, coordinates for RCB, node grid for RPCS); "
                 "min of at least `repeats` runs, more (<= 100) while under 0.3 s per method and size",
        "rows": rows, "fits_all_sizes": fits, "exponents_n_ge_1e5": fits_large,
        "speedup_at_largest_n": speedup, "criteria": criteria, "benchmark_seconds": total})

    # Fig. 5: all methods; Fig. 6: RPCS blown up
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for m, mk in zip(METHODS, "os^vD"):
        ts = [r["seconds"][m] for r in rows]
        ax.loglog(ns, ts, mk + "-", label=f"{m} (n^{fits[m]['exponent']:.2f})")
    ax.set_xlabel("vertices n (2-D grid)")
    ax.set_ylabel("partitioning time [s]")
    ax.set_title(f"Partitioning time, {k} groups (cf. seed 002 Fig. 5)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(plot_path("grouping_scaling_fig5"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for m, mk in (("RPCS", "o"), ("RPCS+broadcast", "s")):
        ts = np.array([r["seconds"][m] for r in rows])
        ax.plot(ns, ts * 1e3, mk + "-", label=f"{m} (fit n^{fits[m]['exponent']:.2f})")
    c = np.polyfit(np.sqrt(ns), [r["seconds"]["RPCS"] * 1e3 for r in rows], 1)
    ax.plot(ns, np.polyval(c, np.sqrt(ns)), "k:", label="a + b·sqrt(n) fit to RPCS")
    ax.set_xlabel("vertices n (2-D grid)")
    ax.set_ylabel("time [ms]")
    ax.set_title(f"RPCS, {k} groups (cf. seed 002 Fig. 6)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(plot_path("grouping_scaling_fig6"), dpi=120)
    plt.close(fig)

    print("fitted exponents, all sizes: " + ", ".join(f"{m} {fits[m]['exponent']:.3f}" for m in METHODS))
    if fits_large:
        print("fitted exponents, n >= 1e5: " + ", ".join(f"{m} {e:.3f}" for m, e in fits_large.items()))
    print(f"speed-up at n={rows[-1]['n']}: " + ", ".join(f"{k_} {v:.1f}x" for k_, v in speedup.items()))
    for name, c in criteria.items():
        print(f"{'MET ' if c['met'] else 'NOT MET'} {name}: {c['value']:.3f}")
    print(f"wrote {path} in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
