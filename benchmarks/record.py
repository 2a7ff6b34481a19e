"""The result file of a benchmark: the command, the machine and its load,
written atomically to benchmarks/results/NAME.json."""
from __future__ import annotations

import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

from rrcheck.checker.traces.counterexample import write_atomic

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> dict:
    return {"platform": platform.platform(), "python": platform.python_version(),
            "processor": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
            "load_average_at_end": [round(x, 1) for x in os.getloadavg()]}


def write(name: str, payload: dict) -> Path:
    path = RESULTS / f"{name}.json"
    doc = {"command": shlex.join(["python", *sys.argv]), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
           "machine": machine(), **payload}
    write_atomic(path, json.dumps(doc, indent=1) + "\n")
    print(f"written {path}")
    return path
