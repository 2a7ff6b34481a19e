"""Ping-pong latency and bandwidth over real MPI, 8 B to 16 MiB: plain mpi4py
beside the protocols the runtime drives (SBML, correlated-set inside one set
and across two sets, RBML and HMPL), all measured in one ``mpiexec`` launch
per message size, so they share the machine's state (seed 000 §4.2.2, seed
004 §4.3 NetPIPE, L1212–1222). The logged volume is
benchmarks/logged_volume_mpi.py's.

    python benchmarks/pingpong_mpi.py [--quick]

Placement follows the thesis' NetPIPE run, "two processes in different
machines ... and one logger thread in other node": four ranks, the partners
P0 and P1 on nodes 0 and 2, and each one's logger (RADIC: the next node of the
ring, protocols/rbml.py) on nodes 1 and 3. Four ranks on this 2-core machine
means oversubscription, where Open MPI's blocking calls sleep between polls;
so every configuration, plain mpi4py included, polls with ``Iprobe`` and
yields the core, as the rank driver does.

Writes benchmarks/results/pingpong_mpi.json and pingpong_mpi.png. The
protocol configurations run through the runtime's rank driver
(runtime/rank.py) without journals; stable storage is a tmpfs directory.
A number here is a Python runtime's: compare the columns, not the absolutes.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import record  # noqa: E402  (benchmarks/record.py)

OUT = ROOT / "benchmarks" / "results"


RANKS = 4
NODE_OF = [0, 2, 1, 3]  # P0 and P1 on nodes 0 and 2; their loggers on nodes 1 and 3


def configs() -> list[tuple[str, str, list[int]]]:
    """(label, protocol, grouping of the four ranks)."""
    return [("runtime, no protocol", "none", [0, 1, 2, 3]),  # the rank driver's own cost (framing, Python)
            ("sbml", "sbml", [0, 1, 2, 3]),
            ("correlated-set inside a set", "correlated-set", [0, 0, 1, 2]),
            ("correlated-set across sets", "correlated-set", [0, 1, 2, 3]),
            ("rbml", "rbml", [0, 1, 2, 3]),
            ("hmpl", "hmpl", [0, 1, 2, 3])]


def reps_for(size: int, quick: bool) -> int:
    r = max(4, min(100, (1 << 25) // max(size, 1) // 8))
    return max(3, r // 4) if quick else r


# -- inside mpiexec ------------------------------------------------------------------------

def _plain(comm, size: int, reps: int) -> float:
    """Ranks 0 and 1 bounce a buffer with Isend and a polled receive; the
    other ranks wait, polling too."""
    import numpy as np
    buf = np.zeros(size, dtype=np.uint8)
    me = comm.Get_rank()
    other = 1 - me

    def recv():
        while not comm.Iprobe(source=other, tag=0):
            os.sched_yield()
        comm.Recv(buf, source=other, tag=0)

    def send():
        req = comm.Isend(buf, dest=other, tag=0)
        while not req.Test():
            os.sched_yield()

    comm.Barrier()
    t = 0.0
    if me < 2:
        t0 = 0.0
        for i in range(-min(reps, 5), reps):  # a few warm-up round trips first
            if i == 0:
                t0 = time.perf_counter()
            if me == 0:
                send()
                recv()
            else:
                recv()
                send()
        t = time.perf_counter() - t0
    done = comm.Ibarrier()
    while not done.Test():
        os.sched_yield()
    return t / reps / 2  # one way


def _protocol(comm, protocol: str, grouping: list[int], size: int, reps: int, tmp: Path) -> float:
    _protocol_once(comm, protocol, grouping, size, min(reps, 5), tmp / "warm-up")
    return _protocol_once(comm, protocol, grouping, size, reps, tmp)


def _protocol_once(comm, protocol: str, grouping: list[int], size: int, reps: int, tmp: Path) -> float:
    from runtime.files import RunConfig
    from runtime.rank import Rank
    from runtime.transport import Transport
    c = comm.Dup()
    cfg = RunConfig(protocol=protocol, knobs={}, workload="pingpong", n=RANKS, nodes=RANKS, node_of=NODE_OF,
                    group_of=grouping, iters=reps, size=size, mode="soft", checkpoint_every=0, trace=False)
    run_dir = tmp / f"{protocol}-{grouping}-{size}"
    run_dir.mkdir(parents=True, exist_ok=True)
    r = Rank(cfg, run_dir, Transport(c))
    r.start()
    c.Barrier()
    t0 = time.perf_counter()
    t = None
    done = None
    # both ranks serve the protocol (acknowledgements, logger traffic) until both have finished
    while done is None or not done.Test():
        got = r.net.poll()
        if got is not None:
            r.on_wire(*got)
        elif not r.internal_step() and not r.app_step():
            if r.finished() and done is None:
                t = time.perf_counter() - t0
                done = c.Ibarrier()
            os.sched_yield()  # two ranks may share a core
        r.net.progress()
    # past the measure: take (and drop) what is still on its way, until every send has arrived
    while r.net.pending:
        r.net.poll()
        r.net.progress()
    drained = c.Ibarrier()
    while not drained.Test():
        r.net.poll()
    c.Free()
    return t / reps / 2


def mpi_main(size: int, quick: bool, trials: int = 3) -> None:
    """Every configuration ``trials`` times, round-robin, keeping each one's
    best: the machine is shared, and the best of a few is the least disturbed."""
    from mpi4py import MPI
    import runtime.rank  # noqa: F401 - imports are not timed
    comm = MPI.COMM_WORLD
    reps = reps_for(size, quick)
    row = {"size": size, "reps": reps, "trials": trials}
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
        for t in range(trials):
            best = [("plain mpi4py", _plain(comm, size, reps))]
            for label, protocol, grouping in configs():
                best.append((label, _protocol(comm, protocol, grouping, size, reps, Path(tmp) / str(t))))
            for label, v in best:
                row[label] = min(row.get(label, v), v)
    if comm.Get_rank() == 0:
        print("ROW " + json.dumps(row), flush=True)


# -- the driver -------------------------------------------------------------------------------

def pingpong(quick: bool) -> list[dict]:
    from runtime.launch import env, mpiexec
    rows = []
    sizes = [8 << (2 * i) for i in range(11)] + [16 << 20]  # 8 B .. 8 MiB by 4x, and 16 MiB
    sizes = sorted(set(sizes))
    for size in sizes:
        cmd = [mpiexec(), "--oversubscribe", "-n", str(RANKS), sys.executable, __file__, "--mpi", str(size)]
        if quick:
            cmd.append("--quick")
        p = subprocess.run(cmd, capture_output=True, text=True, env=env(), timeout=600, cwd=str(ROOT))
        line = next((x for x in p.stdout.splitlines() if x.startswith("ROW ")), None)
        if line is None:
            print(f"size {size}: failed\n{p.stderr[-1500:]}", file=sys.stderr)
            continue
        row = json.loads(line[4:])
        rows.append(row)
        cols = [k for k in row if k not in ("size", "reps", "trials")]
        print(f"{size:>9} B  " + "  ".join(f"{k} {row[k] * 1e6:9.1f} us" for k in cols), flush=True)
    return rows


def compare(rows: list[dict]) -> dict:
    """The issue's questions, per size: protocol time over a reference."""
    def ratio(r, a, b):
        return round(r[a] / r[b], 2) if a in r and b in r else None
    out = {}
    for r in rows:
        out[str(r["size"])] = {
            "correlated-set inside a set / plain mpi4py": ratio(r, "correlated-set inside a set", "plain mpi4py"),
            "correlated-set inside a set / runtime, no protocol":
                ratio(r, "correlated-set inside a set", "runtime, no protocol"),
            "sbml / hmpl": ratio(r, "sbml", "hmpl"),
            "rbml / hmpl": ratio(r, "rbml", "hmpl")}
    return out


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cols = [k for k in rows[0] if k not in ("size", "reps", "trials")]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    sizes = [r["size"] for r in rows]
    for k in cols:
        a.loglog(sizes, [r[k] * 1e6 for r in rows], marker="o", ms=3, label=k)
        b.semilogx(sizes, [r["size"] / r[k] / 1e6 for r in rows], marker="o", ms=3, label=k)
    a.set_xlabel("message size (B)")
    a.set_ylabel("one-way latency (us)")
    b.set_xlabel("message size (B)")
    b.set_ylabel("bandwidth (MB/s)")
    a.legend(fontsize=7)
    a.set_title("ping-pong latency (one mpiexec launch per size)")
    b.set_title("ping-pong bandwidth")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    if "--mpi" in sys.argv:
        mpi_main(int(sys.argv[sys.argv.index("--mpi") + 1]), "--quick" in sys.argv)
        return 0
    quick = "--quick" in sys.argv
    t0 = time.time()
    rows = pingpong(quick)
    record.write("pingpong_mpi", {
        "seconds": round(time.time() - t0, 1), "ranks": RANKS, "node_of": NODE_OF,
        "unit": "seconds one way (half a round trip), best of `trials` round-robin trials",
        "pingpong": rows, "comparisons": compare(rows)})
    if rows:
        plot(rows, OUT / "pingpong_mpi.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
