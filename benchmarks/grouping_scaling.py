"""Jitsumoto et al. Figs. 5–6: partitioning time against n on 2-D grids, 100 groups.

RPCS, pmetis (METIS recursive bisection), kmetis (METIS k-way) and RCB are timed side by
side in one run on nx × nx grids (vertices = nodes, 4 neighbours, equal weights; Jitsumoto et al. §V.A) up to 10^6 vertices, and a power law t = c·n^e is fitted to each.

What is timed, for each method, is the partitioning from a ready input: METIS gets the
CSR graph, RCB the coordinates, RPCS the node grid (the machine topology). "RPCS" is
steps 2–8 of §III.C (the borders, what Figs. 5–6 time); "RPCS+broadcast" adds our serial
simulation of the group-id propagation of §IV.C, which touches every node (O(n)) where
the machine does it in parallel. Each time is the minimum of at least --repeats runs
(fast methods are rerun until 0.3 s is spent, at most 100 times, to tame timer noise).

The exponents are fitted as t = c + a·n^b (FIT_REASON says why), for every method alike;
plain power-law fits t = a·n^b over all sizes and over n >= 10^5 are recorded beside them.
METIS's own phase timers (dbglvl TIME) are recorded once per size for kmetis and pmetis.

    python benchmarks/grouping_scaling.py            # writes benchmarks/results/grouping_scaling.*
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pymetis  # noqa: E402

from rrcheck.grouping._bench import plot_path, write_result  # noqa: E402
from rrcheck.grouping.partition import rcb  # noqa: E402
from rrcheck.grouping.patterns import grid2d  # noqa: E402
from rrcheck.grouping.rpcs import NodeGrid, propagate_group_ids, rpcs_regions  # noqa: E402

METHODS = ("RPCS", "RPCS+broadcast", "kmetis", "pmetis", "RCB")
FIT_REASON = ("t = c + a*n^b, not a pure power law: METIS k-way partitions initially a graph coarsened "
              "only to ~30*k vertices whatever n (its own timer: ~30 ms of kmetis' ~36 ms at n = 10^4, "
              "'kmetis_phases' below), a per-call constant that a log-log line reads as sub-linear growth; "
              "Jitsumoto et al. §V.A states complexities in n at fixed k, i.e. the n-dependent term, and its text "
              "gives no n range or fit of its own.")


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
    """Plain power law t = a·n^e (least squares in log-log): (e, a)."""
    e, logc = np.polyfit(np.log(ns), np.log(ts), 1)
    return float(e), float(np.exp(logc))


def fit_with_constant(ns, ts):
    """t = c + a·n^b, least squares on log t (c >= 0), from several starts; b's standard
    error from the Jacobian at the optimum."""
    from scipy.optimize import least_squares
    ns, ts = np.asarray(ns, dtype=float), np.asarray(ts, dtype=float)

    def resid(p):
        return np.log(np.exp(p[0]) + np.exp(p[1]) * ns ** p[2]) - np.log(ts)

    best = None
    for b0 in (0.3, 0.5, 0.8, 1.0, 1.2):
        for share in (1e-3, 0.1, 0.5, 0.9):
            c0 = ts.min() * share
            a0 = max(ts.max() - c0, 1e-12) / ns.max() ** b0
            r = least_squares(resid, [np.log(c0), np.log(a0), b0], bounds=([-60, -80, 0], [5, 20, 3]))
            if best is None or r.cost < best.cost:
                best = r
    dof = max(len(ts) - 3, 1)
    cov = np.linalg.pinv(best.jac.T @ best.jac) * (2 * best.cost / dof)
    return {"exponent": float(best.x[2]), "exponent_stderr": float(np.sqrt(cov[2, 2])),
            "constant_s": float(np.exp(best.x[0])), "coefficient": float(np.exp(best.x[1]))}


def metis_phases(k, csr, recursive):
    """METIS's own timers (METIS_DBG_TIME) for one call, in seconds, read from its stdout."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+") as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            pymetis.part_graph(k, csr, recursive=recursive, options=pymetis.Options(seed=1, dbglvl=2))
            import ctypes
            ctypes.CDLL(None).fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        text = tmp.read()
    phases = {}
    for name in ("Multilevel", "Coarsening", "Initial Partition", "Uncoarsening"):
        m = re.search(rf"{name}:\s*([0-9.]+)", text)
        if m:
            phases[name] = float(m.group(1))
    return phases


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
        row["kmetis_phases"] = metis_phases(k, csr, recursive=False)
        row["pmetis_phases"] = metis_phases(k, csr, recursive=True)
        rows.append(row)
        print(f"n={n:>8}  " + "  ".join(f"{m}={row['seconds'][m]*1e3:8.2f}ms" for m in METHODS), flush=True)

    ns = np.array([r["n"] for r in rows], dtype=float)
    power = {m: dict(zip(("exponent", "coefficient"), fit(ns, [r["seconds"][m] for r in rows]))) for m in METHODS}
    fits = {m: fit_with_constant(ns, [r["seconds"][m] for r in rows]) for m in METHODS}
    big = ns >= 1e5
    fits_large = ({m: fit(ns[big], [r["seconds"][m] for r, b in zip(rows, big) if b])[0] for m in METHODS}
                  if big.sum() >= 2 else {})
    last = rows[-1]["seconds"]
    speedup = {f"{m}/{r}": last[m] / last[r] for m in ("kmetis", "pmetis") for r in ("RPCS", "RPCS+broadcast")}

    def crit(m, bound, ok):
        return {"value": fits[m]["exponent"], "stderr": fits[m]["exponent_stderr"], "bound": bound,
                "met": ok(fits[m]["exponent"]), "fit": "t = c + a*n^b, all sizes",
                "power_law_all_sizes": power[m]["exponent"], "power_law_n_ge_1e5": fits_large.get(m)}

    criteria = {"rpcs_exponent_le_0.6": crit("RPCS", 0.6, lambda e: e <= 0.6)}
    for m in ("kmetis", "pmetis"):
        criteria[f"{m}_exponent_ge_0.9"] = crit(m, 0.9, lambda e: e >= 0.9)
    # not measured: our serial stand-in for the machine's parallel broadcast is O(n)
    informational = {"rpcs_with_broadcast_exponent": crit("RPCS+broadcast", None, lambda e: e <= 0.6)}
    slowest_ratio = min(speedup["kmetis/RPCS"], speedup["pmetis/RPCS"])
    criteria["rpcs_10x_faster_than_both_metis_at_largest_n"] = {
        "n": rows[-1]["n"], "value": slowest_ratio, "met": slowest_ratio >= 10,
        "with_broadcast": min(speedup["kmetis/RPCS+broadcast"], speedup["pmetis/RPCS+broadcast"])}
    total = time.perf_counter() - t_start
    path = write_result("grouping_scaling", {
        "figure": "Jitsumoto et al. Figs. 5-6", "groups": k, "repeats": args.repeats,
        "pattern": "2-D grid graphs, vertices = nodes, 4 neighbours, equal weights (synthetic)",
        "timed": "partitioning from a ready input (CSR for METIS, coordinates for RCB, node grid for RPCS); "
                 "min of at least `repeats` runs, more (<= 100) while under 0.3 s per method and size",
        "fit": FIT_REASON, "rows": rows, "fits": fits, "power_law_fits_all_sizes": power,
        "power_law_exponents_n_ge_1e5": fits_large, "speedup_at_largest_n": speedup,
        "criteria": criteria, "informational": informational, "benchmark_seconds": total})

    # Fig. 5: all methods; Fig. 6: RPCS blown up
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for m, mk in zip(METHODS, "os^vD"):
        ts = [r["seconds"][m] for r in rows]
        ax.loglog(ns, ts, mk + "-", label=f"{m} (c + a·n^{fits[m]['exponent']:.2f})")
    ax.set_xlabel("vertices n (2-D grid)")
    ax.set_ylabel("partitioning time [s]")
    ax.set_title(f"Partitioning time, {k} groups (cf. Jitsumoto et al. Fig. 5)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(plot_path("grouping_scaling_fig5"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for m, mk in (("RPCS", "o"), ("RPCS+broadcast", "s")):
        ts = np.array([r["seconds"][m] for r in rows])
        ax.plot(ns, ts * 1e3, mk + "-", label=f"{m} (fit c + a·n^{fits[m]['exponent']:.2f})")
    c = np.polyfit(np.sqrt(ns), [r["seconds"]["RPCS"] * 1e3 for r in rows], 1)
    ax.plot(ns, np.polyval(c, np.sqrt(ns)), "k:", label="a + b·sqrt(n) fit to RPCS")
    ax.set_xlabel("vertices n (2-D grid)")
    ax.set_ylabel("time [ms]")
    ax.set_title(f"RPCS, {k} groups (cf. Jitsumoto et al. Fig. 6)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(plot_path("grouping_scaling_fig6"), dpi=120)
    plt.close(fig)

    print(f"fit: {FIT_REASON}")
    print("exponents b of t = c + a*n^b: " + ", ".join(
        f"{m} {fits[m]['exponent']:.3f}±{fits[m]['exponent_stderr']:.3f} (c = {fits[m]['constant_s']*1e3:.2f} ms)"
        for m in METHODS))
    print("plain power law, all sizes: " + ", ".join(f"{m} {power[m]['exponent']:.3f}" for m in METHODS))
    if fits_large:
        print("plain power law, n >= 1e5: " + ", ".join(f"{m} {e:.3f}" for m, e in fits_large.items()))
    print(f"speed-up at n={rows[-1]['n']}: " + ", ".join(f"{k_} {v:.1f}x" for k_, v in speedup.items()))
    for name, c in criteria.items():
        print(f"{'MET ' if c['met'] else 'NOT MET'} {name}: {c['value']:.3f}")
    print(f"wrote {path} in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
