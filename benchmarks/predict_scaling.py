"""How long `rrcheck predict` takes against ranks and messages.

The journals are written by the model (runtime/predict/synth.py: a seeded
failure-free schedule of System, in the runtime's journal format), because a
64-rank MPI run does not fit this machine; ``--mpi`` adds real runs of 4 and 8
ranks. The workload is master_worker (every result collected with
ANY_SOURCE: the hardest case, a real choice at every reception), under
correct HMPL (verdict none: every hazard excluded) and under the mutant
hmpl/no-wildcard-block (verdict confirmed: hazards, z3 and a model replay).
Times are CPU seconds of the predict call (``time.process_time``): the
machine is shared, and wall time is distorted by the other jobs; wall time is
recorded beside it.

    python benchmarks/predict_scaling.py [--quick] [--mpi]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record  # noqa: E402

from rrcheck.runtime.predict import predict  # noqa: E402
from rrcheck.runtime.predict.synth import synthesize  # noqa: E402

GRID = [(4, 100), (4, 1000), (16, 1000), (64, 1000), (16, 10_000), (64, 10_000)]
QUICK = [(4, 100), (16, 1000)]
TARGET_SECONDS = 60.0  # a verdict on 64 ranks x 10,000 messages


def one(run_dir: Path, protocol: str | None, **kw) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    r = predict(run_dir, protocol, save=run_dir / "cx.json", **kw)
    return {"verdict": r.verdict, "cpu_seconds": round(time.process_time() - c0, 3),
            "wall_seconds": round(time.perf_counter() - t0, 3), "events": r.events, "choices": r.stats,
            "witness_property": r.witness["property"] if r.witness else None}


def synthetic(root: Path, grid) -> list:
    rows = []
    for n, target in grid:
        rounds = max(1, round(target / (3 * (n - 1))))
        nodes = max(2, n // 8)
        for mutant in (None, "hmpl/no-wildcard-block"):
            d = root / f"mw-{n}-{target}-{'mut' if mutant else 'ok'}"
            c0 = time.process_time()
            st = synthesize(d, "hmpl", "master_worker", n, nodes, rounds, mutant, seed=0)
            synth_s = time.process_time() - c0
            row = {"source": "model", "protocol": mutant or "hmpl", "workload": "master_worker", "ranks": n,
                   "nodes": nodes, "rounds": rounds, "messages": st["messages"],
                   "synthesis_cpu_seconds": round(synth_s, 1), **one(d, None)}
            print(f"{row['protocol']:>24} n={n:3} messages={row['messages']:6} events={row['events']:6}: "
                  f"{row['verdict']:9} {row['cpu_seconds']:7.2f} s CPU", flush=True)
            rows.append(row)
    return rows


def real(root: Path) -> list:
    from rrcheck.runtime.launch import launch, make_config
    rows = []
    for n, rounds in ((4, 1), (8, 5)):
        for protocol, mutant in (("hmpl", None), ("hmpl", "hmpl/no-wildcard-block")):
            cfg = make_config(protocol, "master_worker", n, 2, iters=rounds, mutant=mutant)
            d = root / f"mpi-{n}-{'mut' if mutant else 'ok'}"
            got = launch(cfg, d, 120.0)
            if got.status != "finished":
                print(f"MPI run {n} ranks {mutant or protocol}: {got.status}", flush=True)
                continue
            row = {"source": "mpi", "protocol": mutant or protocol, "workload": "master_worker", "ranks": n,
                   "nodes": 2, "rounds": rounds, "messages": 3 * (n - 1) * rounds, **one(d, None)}
            print(f"{row['protocol']:>24} n={n:3} MPI events={row['events']:6}: {row['verdict']:9} "
                  f"{row['cpu_seconds']:7.2f} s CPU", flush=True)
            rows.append(row)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two small points only (not recorded)")
    ap.add_argument("--mpi", action="store_true", help="add real MPI runs of 4 and 8 ranks")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="predict-scaling-") as tmp:
        rows = synthetic(Path(tmp), QUICK if args.quick else GRID)
        if args.mpi:
            rows += real(Path(tmp))
    if args.quick:
        return 0
    big = [r for r in rows if r["ranks"] >= 64 and r["messages"] >= 10_000]
    record.write("predict_scaling", {
        "what": "CPU seconds of `rrcheck predict` (checker.predict.predict) against ranks and messages; "
                "journals written by the model (synth) and, with --mpi, by real runs",
        "timing": "time.process_time of the predict call (shared machine: wall time recorded beside it)",
        "target": f"a verdict on 64 ranks x 10,000 messages in under {TARGET_SECONDS:.0f} s",
        "target_met": bool(big) and all(r["cpu_seconds"] < TARGET_SECONDS for r in big),
        "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
