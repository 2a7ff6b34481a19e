"""Helpers of benchmarks/grouping_*.py: the machine record and the result files."""

from __future__ import annotations

import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

from rrcheck.files import write_text

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def machine() -> dict:
    import numpy
    import pymetis
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "pymetis": getattr(pymetis, "version", "?"),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }


def command() -> str:
    """The exact command that ran the benchmark."""
    return shlex.join(["python", *sys.argv])


def write_result(name: str, payload: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    doc = {"benchmark": name, "command": command(), "machine": machine(),
           "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **payload}
    write_text(path, json.dumps(doc, indent=1) + "\n")
    return path


def plot_path(name: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    return RESULTS / f"{name}.png"
