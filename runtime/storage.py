"""Stable storage: files written whole or not at all, each with a checksum.

A rank's stable protocol state and its checkpoint images live in its own
directory; they survive a soft crash and a SIGKILL (the replacement reads
them). ``os.replace`` makes a write atomic with respect to a crashed process;
``fsync`` (``durable=True``) extends that to a crashed machine.
"""
from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path


class CorruptFile(Exception):
    pass


class Store:
    def __init__(self, root: Path, rank: int, durable: bool = False):
        self.dir = Path(root) / f"stable-{rank}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.durable = durable

    def put(self, name: str, obj) -> None:
        body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        path = self.dir / name
        tmp = self.dir / f".{name}.tmp"
        with open(tmp, "wb") as f:
            f.write(hashlib.sha256(body).digest())
            f.write(body)
            if self.durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)

    def get(self, name: str):
        raw = (self.dir / name).read_bytes()
        digest, body = raw[:32], raw[32:]
        if hashlib.sha256(body).digest() != digest:
            raise CorruptFile(f"{self.dir / name}: checksum mismatch")
        return pickle.loads(body)
