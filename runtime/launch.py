"""``rrcheck run``: write a run configuration, launch ``mpiexec`` under a
wall-clock timeout, compare the output with the failure-free run's and check
the trace.

A hang (after a failure or not) is reported as such when the timeout expires:
the whole process group of ``mpiexec`` is killed, never waited on.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from rrcheck.clock import Budget
from rrcheck.errors import UsageError
from rrcheck.mpi import env, mpiexec  # noqa: F401 - rrcheck run and its callers launch through these
from rrcheck.runtime import apps
from rrcheck.runtime.files import CrashSpec, RunConfig, journal_path, load_result

TEARDOWN_GRACE = 15.0
MAX_RANKS = 256            # refused before launching: every rank is a process here
MAX_SIDE = 8192            # --size of a grid workload: a side, squared in memory
MAX_ITERS = 100_000        # iterations or rounds: 30 take seconds, this many take hours
MAX_ELEMENTS = 1 << 28     # --size of the others: elements or bytes
# Chandy–Lamport restores recorded in-transit messages from its stable channel
# state; the runtime would need a receiver-side copy of their data there.
# C3 (app-level) checkpoints only at the program's checkpoint sites (the C3 slides),
# and the runtime's workloads mark none: its traces could not be checked.
RUNTIME_PROTOCOLS_EXCLUDED: set[str] = {"chandy-lamport", "app-level"}


def supported() -> list[str]:
    """The protocols the runtime drives: every one in the registry but those
    excluded above."""
    from rrcheck.protocols.mutants import PROTOCOLS
    return [p for p in PROTOCOLS if p not in RUNTIME_PROTOCOLS_EXCLUDED]


def parse_crash(spec: str, index: int, n: int, nodes: int) -> CrashSpec:
    m = re.fullmatch(r"(node:)?(\d+)@(\d+)", spec.strip())
    if not m:
        raise UsageError(f"--crash {spec!r}: write RANK@EVENT or node:ID@EVENT, e.g. 3@120 or node:1@200")
    who, at = int(m.group(2)), int(m.group(3))
    if m.group(1):
        if who >= nodes:
            raise UsageError(f"--crash {spec!r}: there are {nodes} nodes (0..{nodes - 1})")
        return CrashSpec(index=index, node=who, at=at)
    if who >= n:
        raise UsageError(f"--crash {spec!r}: there are {n} ranks (0..{n - 1})")
    return CrashSpec(index=index, rank=who, at=at)


def make_config(protocol: str, workload: str, n: int, nodes: int, *, iters: int = 10, size: int | None = None,
                mode: str = "soft", crashes: list[str] = (), checkpoint_every: int = 20,
                grouping: list[int] | None = None, mutant: str | None = None, trace: bool = True) -> RunConfig:
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
    if protocol != "none" and protocol not in PROTOCOLS:
        raise UsageError(f"unknown protocol {protocol!r}; the runtime drives {', '.join(supported())}")
    if protocol in RUNTIME_PROTOCOLS_EXCLUDED:
        raise UsageError(f"the MPI runtime does not drive {protocol!r} yet; it drives {', '.join(supported())}")
    if mutant and mutant not in MUTANTS:
        raise UsageError(f"unknown mutant {mutant!r}; `rrcheck list` shows them all")
    if mutant and MUTANTS[mutant].protocol != protocol:
        raise UsageError(f"mutant {mutant!r} is a variant of {MUTANTS[mutant].protocol!r}, not {protocol!r}; run "
                         f"`rrcheck run {MUTANTS[mutant].protocol} --mutant {mutant}`")
    if mutant and MUTANTS[mutant].model:
        raise UsageError(f"{mutant} changes the model's semantics, not the protocol: it has no MPI run; "
                         f"check it with `rrcheck check --mutant {mutant}`")
    if workload not in apps.APPS:
        raise UsageError(f"unknown runtime workload {workload!r}; choose one of {', '.join(apps.APPS)}")
    if n < 2 or nodes < 1 or nodes > n:
        raise UsageError("-n must be at least 2 and --nodes between 1 and -n")
    if mode not in ("soft", "kill"):
        raise UsageError("--mode is soft or kill")
    if iters < 1:
        raise UsageError("--iters must be positive")
    if iters > MAX_ITERS:
        raise UsageError(f"--iters {iters:,}: at most {MAX_ITERS:,} (30 take seconds; a run this long never ends "
                         "in practice)")
    if size is not None and size < 1:
        raise UsageError("--size must be positive")
    if n > MAX_RANKS:
        raise UsageError(f"-n {n}: at most {MAX_RANKS} ranks on this launcher (they are oversubscribed)")
    limit = MAX_SIDE if workload in ("stencil2d", "cg") else MAX_ELEMENTS
    if size is not None and size > limit:
        raise UsageError(f"--size {size}: at most {limit:,} for {workload} (memory is allocated per rank)")
    twin = apps.twin(workload, n, nodes, iters)
    specs = [parse_crash(c, i + 1, n, nodes) for i, c in enumerate(crashes)]
    group_of = list(grouping) if grouping else list(twin.node_of)
    if len(group_of) != n:
        raise UsageError(f"the grouping names {len(group_of)} ranks, the run has {n}")
    return RunConfig(protocol=protocol, mutant=mutant, knobs={}, workload=workload, n=n, nodes=nodes,
                     node_of=list(twin.node_of), group_of=group_of, iters=iters, size=size, mode=mode,
                     crashes=specs, checkpoint_every=checkpoint_every, trace=trace)


@dataclass
class Launch:
    status: str                  # finished | hang | error
    seconds: float
    returncode: int | None
    stderr: str = ""
    results: list = field(default_factory=list)
    teardown_killed: bool = False   # finished, but mpiexec was killed in MPI's teardown
    stalled: float = 0.0            # seconds the machine stood still, not charged to the timeout (rrcheck.clock)


def _kill_leftover_ranks(run_dir: Path) -> None:
    """Ranks of this machine that outlive their ``mpiexec`` (one stuck in MPI's
    teardown after ULFM spawns kept a core busy for minutes) are killed."""
    for f in run_dir.glob("pid-*"):
        pid = int(f.name[4:])
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"rrcheck.runtime.worker" in cmd and str(run_dir).encode() in cmd:
                os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError):
            pass


def check_run_dir(run_dir: Path) -> Path:
    """The run directory, absolute (the ranks and the spawned replacements
    read it from wherever MPI starts them), and safe to empty: absent, empty,
    or a directory an earlier run wrote (it has a run.json)."""
    from rrcheck.files import check_dir
    run_dir = check_dir(run_dir, "--out")
    if run_dir.is_dir() and any(run_dir.iterdir()) and not (run_dir / "run.json").is_file():
        raise UsageError(f"--out {run_dir}: exists and is not a run directory; rrcheck run empties its --out "
                         "first, so give a new path or an earlier run's directory")
    return run_dir


def _end(proc: subprocess.Popen) -> None:
    """End mpiexec and its process group: SIGTERM (mpiexec ends its ranks),
    then SIGKILL after a grace period."""
    if proc.poll() is not None:
        return
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            pass


def launch(cfg: RunConfig, run_dir: Path, timeout: float, hostfile: str | None = None) -> Launch:
    run_dir = check_run_dir(run_dir)
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    (run_dir / "run.json").write_text(cfg.model_dump_json(indent=1))
    cmd = [mpiexec(), "--oversubscribe", "-n", str(cfg.n)]
    if hostfile:
        cmd += ["--hostfile", str(Path(hostfile).absolute())]
    if cfg.mode == "kill":
        cmd += ["--with-ft", "ulfm", "--mca", "mpi_ft_detector", "true"]
    cmd += [sys.executable, "-m", "rrcheck.runtime.worker", str(run_dir)]
    teardown_killed = False
    t0 = time.perf_counter()
    budget = Budget(timeout)
    with open(run_dir / "mpiexec.out", "wb") as out, open(run_dir / "mpiexec.err", "wb") as err:
        # its own session, so that a hang is killed as a group; an interrupt
        # (Ctrl-C reaches only our process group) ends it in the finally below
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env(), start_new_session=True,
                                cwd=str(run_dir))
        try:
            status, all_done = None, None
            while status is None:
                try:
                    proc.wait(timeout=0.2)
                    status = "finished" if proc.returncode == 0 else "error"
                    break
                except subprocess.TimeoutExpired:
                    pass
                now = time.perf_counter()
                if all_done is None and all((run_dir / f"result-{p}.json").exists() for p in range(cfg.n)):
                    all_done = now
                if all_done is not None and now - all_done > TEARDOWN_GRACE:
                    # every rank finished its run and wrote its result, but MPI's
                    # teardown does not end (seen after ULFM spawns): not a hang of the run
                    status = "finished"
                    teardown_killed = True
                elif budget.expired():
                    status = "hang"
        finally:
            _end(proc)
            _kill_leftover_ranks(run_dir)
    seconds = time.perf_counter() - t0
    text = (run_dir / "mpiexec.err").read_text(errors="replace")
    results = [load_result(run_dir, p) for p in range(cfg.n)]
    if status == "finished" and any(r is None for r in results):
        status = "error"
    return Launch(status, seconds, proc.returncode, text[-2000:], results, teardown_killed, round(budget.stalled, 1))


def outputs(results, deterministic: bool = True) -> list:
    """What a run with failures must reproduce: per rank, the application's
    output and — for a deterministic workload — the model twin's final state."""
    return [None if r is None else (r.pc, r.acc if deterministic else None, r.output.get("digest"))
            for r in results]


def _deterministic(cfg: RunConfig) -> bool:
    from rrcheck.checker.model.workloads import DETERMINISTIC
    return apps.twin(cfg.workload, cfg.n, cfg.nodes, cfg.iters).determinism == DETERMINISTIC


@dataclass
class RunReport:
    protocol: str
    workload: str
    n: int
    nodes: int
    mode: str
    crashes: list[str]
    status: str                   # finished | hang | error
    seconds: float
    failures_injected: int
    equal: bool | None            # output equal to the failure-free run's
    trace: dict | None            # check-trace's verdict and witnesses
    run_dir: str
    stderr: str = ""
    teardown_killed: bool = False
    stalled: float = 0.0          # seconds the machine stood still during the run, not charged to its timeout

    @property
    def ok(self) -> bool:
        """Finished, equal to failure-free, trace passed — and every failure
        asked for was injected: a run that ended before its crash point
        proves nothing about recovery."""
        return (self.status == "finished" and self.equal is True and self.failures_injected == len(self.crashes)
                and (self.trace or {}).get("verdict") in (None, "pass"))

    def as_dict(self) -> dict:
        d = dict(self.__dict__)
        d["ok"] = self.ok
        if self.status == "finished":
            d.pop("stderr")
        return d


_REFERENCE: dict = {}


def reference(cfg: RunConfig, root: Path, timeout: float, hostfile: str | None = None) -> list:
    """The failure-free output: the same workload over bare MPI (protocol none)."""
    key = (cfg.workload, cfg.n, cfg.nodes, cfg.iters, cfg.size)
    if key not in _REFERENCE:
        ref = cfg.model_copy(update={"protocol": "none", "mutant": None, "crashes": [], "trace": False,
                                     "group_of": cfg.node_of})
        got = launch(ref, Path(root) / "reference", timeout, hostfile)
        if got.status != "finished":
            raise UsageError(f"the failure-free reference run did not finish ({got.status}): "
                             + (got.stderr.strip().splitlines() or ["no output"])[-1])
        _REFERENCE[key] = outputs(got.results, _deterministic(cfg))
    return _REFERENCE[key]


def run(cfg: RunConfig, run_dir: Path, timeout: float = 120.0, hostfile: str | None = None,
        check: bool = True, progress=None) -> RunReport:
    """Launch ``cfg`` in ``run_dir`` after its failure-free reference (in
    ``RUN_DIR.ref`` beside it, once per workload and size); ``progress`` is
    told each phase."""
    run_dir = check_run_dir(run_dir)
    check_run_dir(run_dir.parent / f"{run_dir.name}.ref" / "reference")
    key = (cfg.workload, cfg.n, cfg.nodes, cfg.iters, cfg.size)
    if progress and key not in _REFERENCE:
        progress(f"failure-free reference: {cfg.workload}, {cfg.n} ranks (in {run_dir.name}.ref)")
    ref = reference(cfg, run_dir.parent / f"{run_dir.name}.ref", timeout, hostfile)
    if progress:
        progress(f"{cfg.mutant or cfg.protocol} on {cfg.workload}, {cfg.mode} mode (timeout {timeout:g} s)")
    got = launch(cfg, run_dir, timeout, hostfile)
    specs = [f"node:{c.node}@{c.at}" if c.node is not None else f"{c.rank}@{c.at}" for c in cfg.crashes]
    failures = max((r.failures for r in got.results if r is not None), default=0)
    equal = outputs(got.results, _deterministic(cfg)) == ref if got.status == "finished" else None
    trace, stderr = None, got.stderr
    silent = [p for p in range(cfg.n) if not journal_path(run_dir, p, 0).exists()] if cfg.trace else []
    if got.status == "hang" and silent:
        stderr += (f"\nrrcheck: rank {silent[0]} journaled nothing before the timeout: the run hung in start-up, "
                   "before any protocol step, so there is no trace to check\n")
    elif check and cfg.trace and got.status in ("finished", "hang"):
        # after a hang the journals are a consistent cut (a packet is journaled
        # before it is sent): the model says whether the protocol itself is
        # stuck there (a violation explains the hang) or the runtime is
        from rrcheck.runtime.check import check_trace
        trace = check_trace(run_dir, partial=got.status == "hang").as_dict()
    return RunReport(cfg.protocol, cfg.workload, cfg.n, cfg.nodes, cfg.mode, specs, got.status,
                     round(got.seconds, 2), failures, equal, trace, str(run_dir), stderr, got.teardown_killed,
                     got.stalled)
