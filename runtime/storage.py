"""Stable storage: files written whole or not at all, each with a checksum.

A rank's stable protocol state and its checkpoint images live in its own
directory; they survive a soft crash and a SIGKILL (the replacement reads
them). ``os.replace`` makes a write atomic with respect to a crashed process;
``fsync`` (``durable=True``) extends that to a crashed machine.

A file is data, never pickle: a SHA-256 of the rest, the length of a JSON
document, the document, then the raw bytes it refers to (payload copies,
numpy arrays), so a 16 MiB log entry is neither base64'd nor parsed. The
document tags what JSON lacks — tuples, frozensets, dicts with tuple keys,
the protocols' frozen dataclasses (only those of ``protocols.`` modules).
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import struct
from pathlib import Path

import numpy as np

SCHEMA = 1
_LEN = struct.Struct("<Q")


class CorruptFile(Exception):
    pass


def _enc(v, blobs: list):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, tuple):
        return {"t": [_enc(x, blobs) for x in v]}
    if isinstance(v, list):
        return {"l": [_enc(x, blobs) for x in v]}
    if isinstance(v, frozenset):
        return {"s": [_enc(x, blobs) for x in v]}
    if isinstance(v, dict):
        return {"d": [[_enc(k, blobs), _enc(x, blobs)] for k, x in v.items()]}
    if isinstance(v, (bytes, bytearray, memoryview)):
        blobs.append(bytes(v))
        return {"b": len(blobs) - 1}
    if isinstance(v, (np.ndarray, np.generic)):
        a = np.asarray(v)
        a = a if a.flags.c_contiguous else a.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)
        blobs.append(a.tobytes())
        return {"a": [a.dtype.str, list(a.shape), len(blobs) - 1, isinstance(v, np.generic)]}
    if dataclasses.is_dataclass(v) and type(v).__module__.startswith("protocols."):
        cls = type(v)
        return {"c": [f"{cls.__module__}:{cls.__qualname__}",
                      [_enc(getattr(v, f.name), blobs) for f in dataclasses.fields(v)]]}
    raise TypeError(f"stable storage cannot hold {type(v).__name__}")


def _dec(v, blobs: list):
    if not isinstance(v, (dict, list)):
        return v
    if not isinstance(v, dict) or len(v) != 1:
        raise CorruptFile(f"unexpected value {str(v)[:60]}")
    (tag, x), = v.items()
    if tag == "t":
        return tuple(_dec(i, blobs) for i in x)
    if tag == "l":
        return [_dec(i, blobs) for i in x]
    if tag == "s":
        return frozenset(_dec(i, blobs) for i in x)
    if tag == "d":
        return {_dec(k, blobs): _dec(i, blobs) for k, i in x}
    if tag == "b":
        return blobs[x]
    if tag == "a":
        dtype, shape, i, scalar = x
        if np.dtype(dtype).hasobject:
            raise CorruptFile("object arrays are not data")
        a = np.frombuffer(blobs[i], dtype=dtype).reshape(shape).copy()
        return a[()] if scalar else a
    if tag == "c":
        name, fields = x
        mod, _, qual = name.partition(":")
        if not mod.startswith("protocols."):
            raise CorruptFile(f"{name} is not a protocol's state")
        cls = getattr(importlib.import_module(mod), qual, None)
        if cls is None or not dataclasses.is_dataclass(cls):
            raise CorruptFile(f"{name} is not a protocol's state")
        return cls(*(_dec(f, blobs) for f in fields))
    raise CorruptFile(f"unknown tag {tag!r}")


def dumps(obj) -> bytes:
    blobs: list = []
    doc = json.dumps({"schema": SCHEMA, "blobs": [], "value": _enc(obj, blobs)}, separators=(",", ":"))
    doc = doc.replace('"blobs":[]', '"blobs":' + json.dumps([len(b) for b in blobs]), 1)
    body = _LEN.pack(len(doc)) + doc.encode() + b"".join(blobs)
    return hashlib.sha256(body).digest() + body


def loads(raw: bytes, where: str = "stable storage"):
    digest, body = raw[:32], memoryview(raw)[32:]
    if hashlib.sha256(body).digest() != digest:
        raise CorruptFile(f"{where}: checksum mismatch")
    try:
        (k,) = _LEN.unpack_from(body, 0)
        doc = json.loads(bytes(body[_LEN.size:_LEN.size + k]))
        if doc.get("schema") != SCHEMA:
            raise CorruptFile(f"{where}: schema {doc.get('schema')!r}, expected {SCHEMA}")
        blobs, i = [], _LEN.size + k
        for n in doc["blobs"]:
            blobs.append(bytes(body[i:i + n]))
            i += n
        return _dec(doc["value"], blobs)
    except (ValueError, KeyError, TypeError, struct.error) as e:
        raise CorruptFile(f"{where}: {e}")


class Store:
    def __init__(self, root: Path, rank: int, durable: bool = False):
        self.dir = Path(root) / f"stable-{rank}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.durable = durable

    def put(self, name: str, obj) -> None:
        raw = dumps(obj)
        path = self.dir / name
        tmp = self.dir / f".{name}.tmp"
        with open(tmp, "wb") as f:
            f.write(raw)
            if self.durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)

    def get(self, name: str):
        return loads((self.dir / name).read_bytes(), str(self.dir / name))


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
