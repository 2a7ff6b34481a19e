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
import struct
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


_REC = struct.Struct("<iqi")  # destination, channel seq, length


class Outbox:
    """Kill mode: every packet a rank puts on the wire, appended to a file
    before it is sent. A communicator repair loses what was in flight; the
    survivors send again from memory, a replacement from its predecessor's
    file — the wire of the model, where a crash loses only the packets
    addressed to the crashed process."""

    def __init__(self, root: Path, rank: int):
        self.path = Path(root) / f"outbox-{rank}.bin"
        self.sent: dict[int, list] = {}
        if self.path.exists():
            raw = memoryview(self.path.read_bytes())
            i = 0
            while i + _REC.size <= len(raw):
                dst, seq, k = _REC.unpack_from(raw, i)
                if i + _REC.size + k > len(raw):
                    break  # torn by a kill while writing: that packet was never sent
                self.sent.setdefault(dst, []).append((seq, bytes(raw[i + _REC.size:i + _REC.size + k])))
                i += _REC.size + k
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def add(self, dst: int, seq: int, buf) -> None:
        os.write(self.fd, _REC.pack(dst, seq, len(buf)) + bytes(buf))
        self.sent.setdefault(dst, []).append((seq, buf))

    def last_seq(self, dst: int) -> int:
        return self.sent[dst][-1][0] if self.sent.get(dst) else 0

    def after(self, dst: int, seq: int) -> list:
        """The packets to ``dst`` after ``seq``, dropping the older ones."""
        keep = [(s, b) for s, b in self.sent.get(dst, []) if s > seq]
        self.sent[dst] = keep
        return keep
