"""Logged payload volume over real MPI, failure-free, per rank (Bouteiller et al. 2013 §4.4,
Fig. 7): the message-logging protocols the runtime drives (SBML, correlated-
set with one set per node, RBML and HMPL where registered) on every runtime
workload, 8 ranks on 2 nodes (4 per node: the paper's 8-core nodes scaled
down), the collectives at 64 B, 4 KiB and 256 KiB.

    python benchmarks/logged_volume_mpi.py [--quick]

A rank's logged bytes are the payload copies its protocol object holds
(``Rank.logged_bytes``: a message the protocol's ``holdings`` name after an
event). Fig. 7's quantity is, per rank, correlated-set's volume over SBML's.
Beside each measured ratio stands the share of the rank's sends that cross a
node, counted on the model twin: for the collectives, whose messages all have
one size, the two must agree. Writes benchmarks/results/logged_volume_mpi.json
(through benchmarks/record.py) and logged_volume_mpi.png.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import record  # noqa: E402  (benchmarks/record.py)

N, NODES = 8, 2
SIZES = (64, 4096, 256 * 1024)
COLLECTIVES = ("hier_bcast", "hier_reduce", "flat_bcast", "flat_reduce")
# workload -> iterations: every rank is the root of a collective once (8 iterations)
ITERS = {"stencil2d": 5, "ring": 5, "master_worker": 3, "cg": 5, **{c: N for c in COLLECTIVES}}
PAPER = ("Bouteiller et al. 2013 §4.4, Fig. 7: with correlated sets = nodes, a topology-aware (hierarchical) reduce, and a "
         "broadcast of large messages (pipeline over node leaders), log only what crosses nodes: one core per "
         "node logs, so the log volume is divided by the number of cores per node; a latency-optimising "
         "non-topology-aware tree (small broadcasts) logs nearly everything, unevenly across ranks.")
# A hierarchical collective over N ranks on K nodes sends N - 1 messages, K - 1 of them across nodes:
# correlated-set / SBML = (K - 1) / (N - 1), which tends to 1 / (cores per node) as K grows.
HIERARCHICAL_EXPECTED = (NODES - 1) / (N - 1)


def protocols() -> list[str]:
    from rrcheck.protocols.mutants import PROTOCOLS
    return ["sbml", "correlated-set"] + [p for p in ("rbml", "hmpl") if p in PROTOCOLS]


def crossing_share(workload: str, iters: int) -> list[float | None]:
    """Per rank: the share of its sends whose destination is on another node
    (the twin's static sends)."""
    from rrcheck.runtime.apps import twin
    w = twin(workload, N, NODES, iters)
    out = []
    for p, prog in enumerate(w.programs):
        dsts = [op[1] for op in prog if op[0] == "send"]
        out.append(sum(w.node_of[d] != w.node_of[p] for d in dsts) / len(dsts) if dsts else None)
    return out


def measure(quick: bool) -> list[dict]:
    from rrcheck.runtime.launch import launch, make_config
    rows = []
    plan = [(w, None) for w in ("stencil2d", "ring", "master_worker", "cg")]
    plan += [(c, s) for c in COLLECTIVES for s in (SIZES[::2] if quick else SIZES)]
    for workload, size in plan:
        iters = 2 if quick else ITERS[workload]
        row = {"workload": workload, "size": size, "ranks": N, "nodes": NODES, "iters": iters,
               "crossing_share": crossing_share(workload, iters)}
        for protocol in protocols():
            cfg = make_config(protocol, workload, N, NODES, iters=iters, size=size, checkpoint_every=0, trace=False)
            with tempfile.TemporaryDirectory() as tmp:
                got = launch(cfg, Path(tmp) / "run", 300)
            if got.status != "finished":
                print(f"{workload} {size} {protocol}: {got.status}\n{got.stderr[-800:]}", file=sys.stderr)
                row[protocol] = None
                continue
            per_rank = [r.logged_bytes for r in got.results]
            row[protocol] = {"per_rank": per_rank, "total": sum(per_rank), "seconds": round(got.seconds, 1)}
        sb, cs = row.get("sbml"), row.get("correlated-set")
        if sb and cs:
            row["ratio_per_rank"] = [c / s if s else None for c, s in zip(cs["per_rank"], sb["per_rank"])]
            row["ratio_total"] = cs["total"] / sb["total"] if sb["total"] else None
        rows.append(row)
        print(line(row), flush=True)
    return rows


def line(row: dict) -> str:
    size = f"{row['size']:>7} B" if row["size"] else " default "
    vols = "  ".join(f"{p} {row[p]['total']:>11,}" if row.get(p) else f"{p} failed" for p in protocols())
    ratio = row.get("ratio_total")
    return f"{row['workload']:<13} {size}  {vols}  cs/sbml {ratio:.3f}" if ratio is not None else \
        f"{row['workload']:<13} {size}  {vols}"


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    fig, axes = plt.subplots(1, len(COLLECTIVES) + 1, figsize=(16, 4.6),
                             gridspec_kw={"width_ratios": [1] * len(COLLECTIVES) + [2.2]})
    cmap = plt.get_cmap("viridis_r").copy()
    cmap.set_bad("white")  # a rank SBML makes log nothing: it sends nothing (Fig. 7's white area)
    for ax, coll in zip(axes, COLLECTIVES):
        mine = sorted((r for r in rows if r["workload"] == coll and "ratio_per_rank" in r), key=lambda r: r["size"])
        if not mine:
            continue
        grid = np.array([[np.nan if v is None else v for v in r["ratio_per_rank"]] for r in mine]).T
        im = ax.imshow(grid, cmap=cmap, vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(len(mine)), [_size(r["size"]) for r in mine])
        ax.set_yticks(range(N))
        ax.axhline(N / NODES - 0.5, color="k", lw=1)
        ax.set_title(f"{coll}\ncs / sbml: {mine[-1]['ratio_total']:.2f} (total, largest)", fontsize=9)
        ax.set_xlabel("message size")
    axes[0].set_ylabel("rank (line: node boundary)")
    fig.colorbar(im, ax=axes[len(COLLECTIVES) - 1], fraction=0.08, label="logged volume, correlated-set / sbml")
    ax = axes[-1]
    labels = [f"{r['workload']}" + (f" {_size(r['size'])}" if r["size"] else "") for r in rows]
    x = np.arange(len(rows))
    ps = protocols()
    for i, p in enumerate(ps):
        ax.bar(x + (i - (len(ps) - 1) / 2) * 0.8 / len(ps), [max(1, (r.get(p) or {}).get("total", 0)) for r in rows],
               0.8 / len(ps), label=p)
    ax.set_yscale("log")
    ax.set_xticks(x, labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("logged bytes, all ranks")
    ax.legend(fontsize=7)
    ax.set_title(f"total logged volume, {N} ranks on {NODES} nodes, failure-free", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _size(b: int) -> str:
    return f"{b >> 10} KiB" if b >= 1024 else f"{b} B"


def main() -> int:
    quick = "--quick" in sys.argv
    t0 = time.time()
    rows = measure(quick)
    print("\n" + PAPER)
    hier = sorted({round(r["ratio_total"], 4) for r in rows if r["workload"].startswith("hier_") and "ratio_total" in r})
    print(f"measured here: hierarchical cs/sbml {hier} = (nodes - 1) / (ranks - 1) = "
          f"{HIERARCHICAL_EXPECTED:.4f} (1 / cores per node = {NODES / N:.2f} when nodes >> 1); flat trees: "
          f"{sorted({round(r['ratio_total'], 4) for r in rows if r['workload'].startswith('flat_') and 'ratio_total' in r})}")
    data = {"seconds": round(time.time() - t0, 1), "ranks": N, "nodes": NODES, "protocols": protocols(),
            "unit": "payload bytes held in the protocol's logs, cumulative over the failure-free run",
            "paper": PAPER, "hierarchical_expected_ratio": HIERARCHICAL_EXPECTED, "rows": rows}
    path = record.write("logged_volume_mpi", data)
    if rows:
        plot(rows, path.with_suffix(".png"))
        print(f"plotted {path.with_suffix('.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
