"""The breadth-first search of :mod:`rrcheck.checker.explicit.parallel` on MPI ranks, on
one machine or across the machines of an Open MPI hostfile (docs/design.md §5).

``rrcheck check ... --workers N --mpi [--hostfile FILE]`` writes the search as
data (protocol, mutant, scenario, properties, bounds) into a private directory
and runs ``mpiexec -n N+1 python -m rrcheck.checker.explicit.distributed JOB RESULT``:
rank 0 coordinates, ranks 1..N are the workers, each rebuilding the same system
from the job.  Only fingerprints and discovery keys cross ranks (and, to
rebuild a counterexample, rows of the workers' trace files), as between forked
workers; rank 0 writes the result as JSON, which the calling process reads back
(the counterexample replayed step by step) and reports as any other check.
Every rank must hash states alike: mpiexec exports one ``PYTHONHASHSEED`` to
all of them, they run without address randomisation
(Python 3.11 hashes ``None`` by its address), and they compare their hashes
before they start.
"""
from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from rrcheck.errors import FingerprintCollision, UsageError
from rrcheck.checker.explicit.progress import Progress
from rrcheck.checker.invariants.verdict import Result
from rrcheck.checker.invariants import Violation

CTRL, REPLY, EXCH = 1, 2, 3     # tags: coordinator to worker, worker to coordinator, worker to worker
STARTUP = 120.0                 # seconds granted to mpiexec beyond --time-limit
NO_LIMIT = 24 * 3600.0          # the wall-clock bound of a search without --time-limit


def run(job: dict, workers: int, hostfile: str | None, time_limit: float | None) -> Result:
    """Run ``job`` on ``workers`` MPI ranks plus a coordinator; the Result of rank 0."""
    from rrcheck.mpi import env
    exe = preflight(hostfile)
    with tempfile.TemporaryDirectory(prefix="rrcheck-mpi-") as tmp:
        jobf, resf = Path(tmp) / "job.json", Path(tmp) / "result.json"
        jobf.write_text(json.dumps(job))
        cmd = [exe, "--oversubscribe", "-n", str(workers + 1)]
        if hostfile is not None:
            cmd += ["--hostfile", str(Path(hostfile).absolute())]
        cmd += ["-x", "PYTHONHASHSEED", *_fixed_addresses(), sys.executable, "-m", "rrcheck.checker.explicit.distributed",
                str(jobf), str(resf)]
        e = env()
        e["PYTHONHASHSEED"] = "0"
        limit = (time_limit + STARTUP) if time_limit else NO_LIMIT
        with open(Path(tmp) / "mpiexec.err", "wb") as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=e, cwd=tmp,
                                    start_new_session=True)  # its own group: ended as one below
            try:
                proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                raise UsageError(f"the MPI search did not end within {limit:g} s (wall clock); "
                                 "give --time-limit, or fewer states") from None
            finally:
                _end(proc)
        if not resf.is_file():
            tail = (Path(tmp) / "mpiexec.err").read_text(errors="replace").strip().splitlines()
            why = tail[-1] if tail else f"mpiexec exited with status {proc.returncode}"
            raise UsageError(f"the MPI search failed: {why}")
        out = json.loads(resf.read_text())
    if "error" in out:
        raise UsageError(f"the MPI search failed: {out['error']}")
    if "collision" in out:
        raise FingerprintCollision(out["collision"])
    v = out["violation"]
    return Result(out["verdict"], out["states"], out["transitions"], out["depth"], out["seconds"],
                  out["witnesses"], "bfs", Violation(v["property"], v["message"], v["values"]) if v else None,
                  [tuple(a) for a in out["trace"]], out["reason"], out["collision_probability"])


def preflight(hostfile: str | None) -> str:
    """mpiexec, and a readable hostfile if one is named: checked before any search."""
    from rrcheck.mpi import mpiexec
    exe = mpiexec()
    if hostfile is not None:
        hf = Path(hostfile)
        if not hf.is_file():
            raise UsageError(f"--hostfile {hostfile}: no such file; give an Open MPI hostfile "
                             "(one host per line, e.g. 'node1 slots=2')")
        try:
            hf.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"--hostfile {hostfile}: cannot read it ({e}); give a readable text hostfile") from None
    return exe


def _fixed_addresses() -> list[str]:
    """``setarch -R``: the ranks run without address randomisation, so that
    objects Python 3.11 hashes by address (``None``, in packets and in a crashed
    process's state) hash alike in every rank of one build."""
    import platform
    import shutil
    exe = shutil.which("setarch")
    return [exe, platform.machine(), "-R"] if exe else []


def _end(proc: subprocess.Popen) -> None:
    """mpiexec and every rank it started on this machine: TERM, then KILL."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
            proc.wait(timeout=grace)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass


def job_of(protocol, scenario, mutant, properties, reduce, max_states, time_limit, grouping,
           snapshots=None) -> dict:
    """The search as data: what every rank needs to build the same system (and,
    with ``snapshots``, where it is saved and what it continues)."""
    sc = asdict(scenario)
    from rrcheck.checker.model import workloads as W
    if W.is_file(sc["workload"]):
        sc["workload"] = str(Path(sc["workload"]).absolute())
    saved = None
    if snapshots is not None:
        saved = {"identity": snapshots.identity, "every": snapshots.every,
                 "save_to": str(snapshots.save_to.absolute()) if snapshots.save_to else None,
                 "recover": str(snapshots.recover.absolute()) if snapshots.recover else None}
    return {"protocol": protocol, "scenario": sc, "mutant": mutant, "properties": list(properties or ()),
            "reduce": reduce, "max_states": max_states, "time_limit": time_limit,
            "grouping": list(grouping) if grouping else None, "saved": saved}


# -- the ranks ------------------------------------------------------------------

class _Ranks:
    """The coordinator's view of the workers (rank i + 1 is worker i), as
    :func:`rrcheck.checker.explicit.parallel._ask` uses a list of pipes."""

    def __init__(self, comm, n: int):
        self.comm, self.n = comm, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        return _To(self.comm, i + 1, CTRL)

    def arrivals(self, waiting: list[int]) -> list[tuple[int, tuple]]:
        from mpi4py import MPI
        st = MPI.Status()
        while True:
            _idle(self.comm, MPI.ANY_SOURCE, REPLY)
            msg = self.comm.recv(source=MPI.ANY_SOURCE, tag=REPLY, status=st)
            if st.Get_source() - 1 in waiting:
                return [(st.Get_source() - 1, msg)]


def _idle(comm, source, tag) -> None:
    """Wait for a message without the busy polling of a blocking receive, which
    would take a core from the workers while the coordinator waits a generation."""
    while not comm.Iprobe(source=source, tag=tag):
        time.sleep(0.0005)


class _To:
    def __init__(self, comm, dest: int, tag: int):
        self.comm, self.dest, self.tag = comm, dest, tag

    def send(self, msg) -> None:
        self.comm.send(msg, dest=self.dest, tag=self.tag)


class _Coordinator:
    """A worker's link to rank 0: what a pipe end is to a forked worker."""

    def __init__(self, comm):
        self.comm = comm

    def recv(self):
        _idle(self.comm, 0, CTRL)
        return self.comm.recv(source=0, tag=CTRL)

    def send(self, msg) -> None:
        self.comm.send(msg, dest=0, tag=REPLY)


class _Inboxes:
    """Worker-to-worker batches as queue puts and gets; sends do not block
    (every worker sends to all before it receives)."""

    def __init__(self, comm):
        self.comm, self.pending = comm, []

    def __getitem__(self, k: int):
        return _Inbox(self, k + 1)

    def get(self):
        from mpi4py import MPI
        self.pending = [r for r in self.pending if not r.Test()]
        return self.comm.recv(source=MPI.ANY_SOURCE, tag=EXCH)


class _Inbox:
    def __init__(self, boxes: _Inboxes, rank: int):
        self.boxes, self.rank = boxes, rank

    def put(self, msg) -> None:
        self.boxes.pending.append(self.boxes.comm.isend(msg, dest=self.rank, tag=EXCH))

    def get(self):
        return self.boxes.get()


def _build(job: dict):
    from rrcheck.checker.model.classify import failure_free
    from rrcheck.checker.invariants import Judge, properties_for
    from rrcheck.checker.model.scenarios import Scenario, make_system
    sc = dict(job["scenario"])
    for k in ("crash_kinds", "grouping"):
        if sc.get(k) is not None:
            sc[k] = tuple(sc[k])
    system, workload = make_system(job["protocol"], Scenario(**sc), job["mutant"],
                                   tuple(job["grouping"]) if job["grouping"] else None)
    props = properties_for(system, job["protocol"], job["properties"] or None)
    return system, Judge(system, props, failure_free(workload).finals)


def main(jobf: str, resf: str) -> int:
    from mpi4py import MPI

    from rrcheck.checker.explicit import parallel as P
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    job = json.loads(Path(jobf).read_text())
    system, judge = _build(job)
    hashes = comm.allgather((hash(None), hash(system.initial())))
    snapshots = _snapshots(job.get("saved"))
    if rank > 0:
        if len(set(hashes)) == 1:
            gc.disable()  # as in every search (rrcheck.checker.explicit.explore.no_cycle_collection)
            restored = None
            if snapshots is not None and snapshots.recovered is not None:  # each rank rebuilds the generations
                restored = P.rebuild(system, job["reduce"], *snapshots.recovered)
            P._serve(rank - 1, size - 1, system, judge, _Coordinator(comm), _Inboxes(comm), job["reduce"],
                     restored=restored)
        return 0
    t0 = time.perf_counter()
    start = (0, 0, 0)
    if snapshots is not None and snapshots.recovered is not None:
        f = snapshots.recovered[0]
        start, t0 = (f.states, f.transitions, f.depth), t0 - f.seconds
    workers = _Ranks(comm, size - 1)
    try:
        if len(set(hashes)) != 1:
            raise RuntimeError("the ranks hash states differently: they need one PYTHONHASHSEED (mpiexec -x "
                               "PYTHONHASHSEED), one Python build and no address randomisation (setarch -R, "
                               "from util-linux)")
        r = P._coordinate(system, workers, t0, job["max_states"], job["time_limit"], Progress(False), "bfs",
                          reduce=job["reduce"], start=start,
                          snapshots=snapshots if snapshots is not None and snapshots.save_to else None)
        out = {"verdict": r.verdict, "states": r.states, "transitions": r.transitions, "depth": r.depth,
               "seconds": r.seconds, "witnesses": r.witnesses, "reason": r.reason,
               "violation": r.violation.as_dict() if r.violation else None,
               "trace": [list(a) for a in r.trace], "collision_probability": r.collision_probability}
    except FingerprintCollision as e:
        out = {"collision": str(e)}
    except Exception as e:  # noqa: BLE001 — reported by the calling process as one line
        out = {"error": f"{type(e).__name__}: {e}"}
    finally:
        if len(set(hashes)) == 1:
            for i in range(size - 1):
                workers[i].send(("stop",))
    tmp = Path(resf).with_suffix(".part")
    tmp.write_text(json.dumps(out))
    tmp.replace(resf)
    return 0


def _snapshots(saved: dict | None):
    """The job's saved search, read again on this rank (the calling process validated it)."""
    if saved is None:
        return None
    from rrcheck.checker.explicit.resume_parallel import GenerationSnapshots
    return GenerationSnapshots(saved["identity"], saved["save_to"] and Path(saved["save_to"]),
                               saved["recover"] and Path(saved["recover"]), saved["every"])


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
