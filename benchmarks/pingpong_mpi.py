"""Ping-pong latency and bandwidth over real MPI, 8 B to 16 MiB: plain mpi4py
beside the protocols the runtime drives (SBML, correlated-set inside one set
and across two sets, RBML and HMPL), all measured in each ``mpiexec`` launch
at one message size, so they share the machine's state (Bouteiller et al. 2013 §4.2.2, Meyer 2014 §4.3, NetPIPE). Three launches per size are pooled (all
sizes once, then again): on this VM one launch's median leaves a 10 %
difference unsettled. The logged volume is benchmarks/logged_volume_mpi.py's.

    python benchmarks/pingpong_mpi.py [--quick] [--launches K]

Placement follows the thesis' NetPIPE run, "two processes in different
machines ... and one logger thread in other node": four ranks, the partners
P0 and P1 on nodes 0 and 2, and each one's logger (RADIC: the next node of the
ring, protocols/rbml.py) on nodes 1 and 3. Four ranks on this 2-core machine
means oversubscription. No rank is pinned: pinning the partners to a core
each leaves the loggers a busy core, and HMPL, whose logger is on its
critical path, lost 1.4x at 1 MiB so in a trial run. Every loop that waits, plain mpi4py's
included, waits as the rank driver does (runtime.transport.Idle: yield the
core for a millisecond, then nap).

What the protocol columns pay, beyond the transfer (runtime/transport.py):
a packed header in a message of its own ahead of data above 64 KiB, which goes
straight from the application's buffer into the buffer the application posted
(the ping-pong receives into the buffer it sends from, as the plain column
does); Python's handling of each event; and each protocol's own work — event
logging to stable storage (correlated-set; pessimistic, so before the next
send), payload copies (SBML's log is append-only memory until a checkpoint,
which this run never takes; HMPL's temporary buffers are let go once the
logger confirms, so their memory is reused; a logger keeps what it logs in
the memory it received it into), and the logger round trip (RBML). Each
configuration runs warm-up round trips in the same rank driver before the
timed ones, ``trials`` times round-robin; a column's number is its
best trial, its ``per_trial`` times are what ``compare`` and ``fit`` use.

A protocol's cost over plain MPI has two parts, as a ping-pong curve is read
(Hockney: t = t0 + size / bandwidth): a cost per message, here a Python
driver's, and a cost per byte, a copy's. ``fit`` separates them over the
sizes from 1 MiB up, from each launch's own difference to the plain column:
"close to plain for large messages" is a per-byte cost near zero, where the
ratio of times tends to 1 as messages grow.

Writes benchmarks/results/pingpong_mpi.json and pingpong_mpi.png. The
protocol configurations run through the runtime's rank driver
(runtime/rank.py) without journals; stable storage is a tmpfs directory.
A number here is a Python runtime's: compare the columns, not the absolutes.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
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
    """Round trips per trial: 100, down to 16 for the largest messages."""
    r = max(16, min(100, (1 << 28) // max(size, 1)))
    return max(3, r // 4) if quick else r


# -- inside mpiexec ------------------------------------------------------------------------

def _plain(comm, size: int, reps: int) -> float:
    from rrcheck.runtime.transport import Idle
    """Ranks 0 and 1 bounce a buffer with Isend and a polled receive; the
    other ranks wait, polling too."""
    import numpy as np
    buf = np.zeros(size, dtype=np.uint8)
    me = comm.Get_rank()
    other = 1 - me

    def recv():
        wait = Idle()
        while not comm.Iprobe(source=other, tag=0):
            wait.wait()
        comm.Recv(buf, source=other, tag=0)

    def send():
        req = comm.Isend(buf, dest=other, tag=0)
        wait = Idle()
        while not req.Test():
            wait.wait()

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
    wait = Idle()
    while not done.Test():
        wait.wait()
    return t / reps / 2  # one way


def _protocol(comm, protocol: str, grouping: list[int], size: int, reps: int, tmp: Path) -> float:
    """One rank driver runs ``warm`` round trips, then the ``reps`` timed
    ones (P0 and P1 run a send and a receive per round trip), so the timed
    ones find the wire's buffers and the protocol's structures warm."""
    from rrcheck.runtime.files import RunConfig
    from rrcheck.runtime.rank import Rank
    from rrcheck.runtime.transport import Idle, Transport
    warm = min(reps, 5)
    c = comm.Dup()
    cfg = RunConfig(protocol=protocol, knobs={}, workload="pingpong", n=RANKS, nodes=RANKS, node_of=NODE_OF,
                    group_of=grouping, iters=warm + reps, size=size, mode="soft", checkpoint_every=0,
                    trace=False)
    run_dir = tmp / f"{protocol}-{grouping}-{size}"
    run_dir.mkdir(parents=True, exist_ok=True)
    r = Rank(cfg, run_dir, Transport(c))
    r.start()
    c.Barrier()
    t0 = time.perf_counter() if r.p > 1 else None
    t = None
    done = None
    # both ranks serve the protocol (acknowledgements, logger traffic) until both have finished
    wait = Idle()
    while done is None or not done.Test():
        if t0 is None and r.pc >= 2 * warm:
            t0 = time.perf_counter()
        got = r.net.poll()
        if got is not None:
            r.on_wire(*got)
            wait.busy()
        elif wait.since is None and (r.internal_step() or r.app_step()):
            pass  # only an arrival changes what a rank may do next: an idle rank just polls
        else:
            if r.finished() and done is None:
                t = time.perf_counter() - t0
                done = c.Ibarrier()
            wait.wait()  # as runtime/worker.py waits
        del got
        if r.net.progress():
            wait.busy()
    # past the measure: take (and drop) what is still on its way, until every send has arrived
    while r.net.pending:
        r.net.poll()
        r.net.progress()
    drained = c.Ibarrier()
    while not drained.Test():
        r.net.poll()
    c.Free()
    shutil.rmtree(run_dir, ignore_errors=True)  # its images hold the buffers: tmpfs is memory
    return t / reps / 2


def mpi_main(size: int, quick: bool, trials: int = 7) -> None:
    """Every configuration ``trials`` times, round-robin. Each column keeps its
    best trial, and its times of every trial (``per_trial``): the machine is
    shared and its speed drifts, so columns are compared trial by trial,
    between runs made back to back (``compare``, ``fit``)."""
    from mpi4py import MPI
    import rrcheck.runtime.rank  # noqa: F401 - imports are not timed
    comm = MPI.COMM_WORLD
    reps = reps_for(size, quick)
    per_trial: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
        for t in range(trials):
            per_trial.setdefault("plain mpi4py", []).append(_plain(comm, size, reps))
            for label, protocol, grouping in configs():
                per_trial.setdefault(label, []).append(_protocol(comm, protocol, grouping, size, reps,
                                                                 Path(tmp) / str(t)))
    if comm.Get_rank() == 0:
        row = {"size": size, "reps": reps, "trials": trials, **{k: min(v) for k, v in per_trial.items()},
               "per_trial": per_trial}
        print("ROW " + json.dumps(row), flush=True)


# -- the driver -------------------------------------------------------------------------------

def pingpong(quick: bool, launches: int) -> list[dict]:
    """Every size in ``launches`` launches, all sizes once before any again (so
    the machine's drift spreads over sizes); a size's trials are pooled. In each
    launch every column runs side by side; columns are compared only within a
    trial. (Four launches at 1 MiB, 7 trials each: medians of SBML / HMPL of
    0.96, 1.15, 1.18, 1.27, and 1.12 pooled: one launch's median does not
    settle a 10 % difference on this machine, three do.)"""
    from rrcheck.runtime.launch import env, mpiexec
    # 8 B .. 512 KiB by 4x, then every MiB size the fit uses (above 16 MiB, the
    # allocator's fresh memory for each copy, not the protocols, sets the logging columns)
    sizes = [8 << (2 * i) for i in range(9)] + [m << 20 for m in (1, 2, 4, 8, 12, 16)]
    pooled: dict[int, dict] = {}
    for launch in range(launches):
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
            cols = [k for k in row if k not in ("size", "reps", "trials", "per_trial")]
            print(f"{launch + 1}/{launches} {size:>9} B  " + "  ".join(f"{k} {row[k] * 1e6:9.1f} us" for k in cols),
                  flush=True)
            into = pooled.setdefault(size, {"size": size, "reps": row["reps"], "launches": 0, "trials": 0,
                                            "per_trial": {}})
            into["launches"] += 1
            into["trials"] += row["trials"]
            for k, v in row["per_trial"].items():
                into["per_trial"].setdefault(k, []).extend(v)
    rows = []
    for size in sizes:
        if size in pooled:
            r = pooled[size]
            rows.append({**{k: v for k, v in r.items() if k != "per_trial"},
                         **{k: min(v) for k, v in r["per_trial"].items()}, "per_trial": r["per_trial"]})
    return rows


def _paired(r: dict, a: str, b: str, how) -> float | None:
    """The median over trials of ``how(a's time, b's time)`` in the same trial."""
    import statistics
    t = r.get("per_trial", {})
    if a not in t or b not in t:
        return None
    return statistics.median(how(x, y) for x, y in zip(t[a], t[b]))


def compare(rows: list[dict]) -> dict:
    """The questions asked, per size: protocol time over a reference's in the
    same trial, the median over trials (time, so a ratio above 1 is a
    bandwidth below the reference's)."""
    pairs = [("correlated-set inside a set", "plain mpi4py"), ("correlated-set inside a set", "runtime, no protocol"),
             ("runtime, no protocol", "plain mpi4py"), ("sbml", "hmpl"), ("rbml", "hmpl")]
    out = {}
    for r in rows:
        ratios = {f"{a} / {b}": _paired(r, a, b, lambda x, y: x / y) for a, b in pairs}
        c = {k: round(v, 2) for k, v in ratios.items() if v is not None}
        for a, b in pairs[3:]:  # how settled "below HMPL" is: the share of trials that agree
            t = r.get("per_trial", {})
            if a in t and b in t:
                c[f"{a} slower than {b}, trials"] = f"{sum(x > y for x, y in zip(t[a], t[b]))}/{len(t[a])}"
        out[str(r["size"])] = c
    return out


def fit(rows: list[dict], least: int = 1 << 20) -> dict:
    """Per column, over the sizes from ``least`` up: the least-squares line of
    its time minus the plain column's (the median over trials of that
    difference in one trial), as a cost per message (us) and a cost per byte
    relative to plain MPI's own (the slope of the plain column): 0 is plain's
    bandwidth, 1 half of it."""
    import numpy as np
    big = [r for r in rows if r["size"] >= least and "plain mpi4py" in r.get("per_trial", {})]
    if len(big) < 2:
        return {}
    size = np.array([r["size"] for r in big], dtype=float)
    per_byte = np.polyfit(size, [r["plain mpi4py"] for r in big], 1)[0]
    out = {"sizes": [int(x) for x in size], "plain mpi4py GB/s": round(1e-9 / per_byte, 2)}
    for col in [k for k in big[0]["per_trial"] if k != "plain mpi4py"]:
        extra = [_paired(r, col, "plain mpi4py", lambda x, y: x - y) for r in big]
        slope, icpt = np.polyfit(size, extra, 1)
        out[col] = {"per_message_us": round(icpt * 1e6, 1), "per_byte_over_plain": round(slope / per_byte, 3)}
    return out


def plot(rows: list[dict], cmp: dict, path: Path) -> None:
    """Latency and bandwidth (the median over trials of each column), and the
    paired ratios of ``compare``: above 1, the first column is slower."""
    import statistics
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cols = list(rows[0]["per_trial"])
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(17, 4.8))
    sizes = [r["size"] for r in rows]
    for k in cols:
        med = [statistics.median(r["per_trial"][k]) for r in rows]
        a.loglog(sizes, [t * 1e6 for t in med], marker="o", ms=3, label=k)
        b.loglog(sizes, [s / t / 1e6 for s, t in zip(sizes, med)], marker="o", ms=3, label=k)
    for k in ("sbml / hmpl", "rbml / hmpl", "correlated-set inside a set / plain mpi4py"):
        c.semilogx(sizes, [cmp[str(s)].get(k) for s in sizes], marker="o", ms=3, label=k)
    c.axhline(1, color="grey", lw=0.8)
    c.set_ylim(0.5, 4)
    a.set_ylabel("one-way latency (us)")
    b.set_ylabel("bandwidth (MB/s)")
    c.set_ylabel("time ratio, median over paired trials")
    for x in (a, b, c):
        x.set_xlabel("message size (B)")
    a.legend(fontsize=7)
    c.legend(fontsize=7)
    n = rows[0].get("trials", 0)
    a.set_title(f"ping-pong latency (median of {n} trials)")
    b.set_title("ping-pong bandwidth")
    c.set_title("side by side: ratios within a trial")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return int(text)


def main() -> int:
    ap = argparse.ArgumentParser(description="ping-pong over real MPI, 8 B to 16 MiB, per protocol")
    ap.add_argument("--quick", action="store_true", help="fewer round trips, one launch per size")
    ap.add_argument("--launches", type=_positive, help="launches per size, pooled (default 3)")
    ap.add_argument("--mpi", type=_positive, metavar="SIZE", help=argparse.SUPPRESS)  # inside mpiexec
    args = ap.parse_args()
    if args.mpi:
        mpi_main(args.mpi, args.quick)
        return 0
    quick = args.quick
    launches = args.launches or (1 if quick else 3)
    t0 = time.time()
    rows = pingpong(quick, launches)
    cmp = compare(rows)
    record.write("pingpong_mpi", {
        "seconds": round(time.time() - t0, 1), "ranks": RANKS, "node_of": NODE_OF, "launches": launches,
        "unit": "seconds one way (half a round trip), best of `trials` round-robin trials "
                "(7 per launch, `launches` launches per size)",
        "pingpong": rows, "comparisons": cmp, "fit": fit(rows)})
    if rows:
        plot(rows, cmp, OUT / "pingpong_mpi.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
