"""The digest of an application's output arrays: what a run with failures must
reproduce bit for bit from the failure-free run (runtime/apps.py, runtime/apps_hpc.py)."""
from __future__ import annotations

import hashlib

import numpy as np


def digest(arrays: dict) -> str:
    h = hashlib.sha256()
    for k in sorted(arrays):
        h.update(k.encode())
        h.update(np.ascontiguousarray(arrays[k]).tobytes())
    return h.hexdigest()[:16]
