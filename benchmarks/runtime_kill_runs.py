"""Kill-mode runs over real MPI, each `rrcheck run ... --mode kill --json` under
Open MPI 5 with ULFM: correlated-set losing a whole node, SBML and HMPL a
single rank, stencil2d on 8 ranks and 4 nodes. Each must end with the
failure-free output and a trace `check-trace` passes.

    python benchmarks/runtime_kill_runs.py

Writes benchmarks/results/runtime_kill_runs.json.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import record  # noqa: E402  (benchmarks/record.py)

RUNS = [("correlated-set", "node:1@200"), ("sbml", "3@200"), ("hmpl", "3@200")]


def main() -> int:
    runs, ok = [], True
    for protocol, crash in RUNS:
        cmd = ["rrcheck", "run", protocol, "--workload", "stencil2d", "-n", "8", "--nodes", "4",
               "--crash", crash, "--iters", "30", "--mode", "kill", "--json"]
        p = subprocess.run([sys.executable, "-m", "rrcheck", *cmd[1:]], capture_output=True, text=True,
                           cwd=ROOT, timeout=900)
        try:
            rep = json.loads(p.stdout)
        except json.JSONDecodeError:
            rep = {"status": "error", "stderr": p.stderr[-2000:]}
        rep.pop("run_dir", None)
        good = p.returncode == 0
        ok &= good
        runs.append({"command": " ".join(cmd[:-1]), "exit": p.returncode, **rep})
        print(f"{' '.join(cmd[:-1])}: exit {p.returncode}", flush=True)
    record.write("runtime_kill_runs", {"runs": runs, "all_passed": ok})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
