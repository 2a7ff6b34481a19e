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
    if dataclasses.is_dataclass(v) and type(v).__module__.startswith("rrcheck.protocols."):
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
        if not mod.startswith("rrcheck.protocols."):
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

    def state(self, name: str) -> "StableState":
        return StableState(self, name)


class StableState:
    """A protocol's stable state, changed at nearly every event (an event log
    grows by a determinant per reception): a snapshot file plus a log of
    changes appended after it, so a change costs its own size, not the whole
    state's — a write-ahead log. A change of a frozen dataclass names the
    fields that changed, and a tuple field that grew at its end gives only
    its new tail. Each record is one ``write`` of a checksummed document: a
    kill leaves at most the last one torn, and a torn record was never
    acknowledged to anybody, since nothing is sent before ``put`` returns.
    Records carry a sequence number; the snapshot names the last one it
    holds, so a kill between writing a snapshot and emptying the log
    applies nothing twice."""

    def __init__(self, store: Store, name: str):
        self.store, self.name = store, name
        self.log_path = store.dir / f"{name}.log"
        self.fd = None
        self.last = None
        self.seq = 0
        self.log_bytes = 0
        self.snap_bytes = 0

    def put(self, value) -> None:
        if self.fd is None:
            self._snapshot(value)
            return
        delta = _delta(self.last, value)
        self.seq += 1
        raw = dumps((self.seq, delta))
        rec = _LEN.pack(len(raw)) + raw
        os.write(self.fd, rec)
        if self.store.durable:
            os.fsync(self.fd)
        self.last = value
        self.log_bytes += len(rec)
        if self.log_bytes > max(1 << 16, 2 * self.snap_bytes):
            self._snapshot(value)

    def _snapshot(self, value) -> None:
        self.store.put(self.name, (self.seq, value))
        self.snap_bytes = (self.store.dir / self.name).stat().st_size
        if self.fd is None:
            self.fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.ftruncate(self.fd, 0)
        self.last, self.log_bytes = value, 0

    def get(self):
        """The state as the files hold it (a restart reads nothing else)."""
        seq, value = self.store.get(self.name)
        raw = memoryview(self.log_path.read_bytes()) if self.log_path.exists() else memoryview(b"")
        i = 0
        while i + _LEN.size <= len(raw):
            (k,) = _LEN.unpack_from(raw, i)
            if i + _LEN.size + k > len(raw):
                break  # torn by a kill: never acknowledged
            s, delta = loads(bytes(raw[i + _LEN.size:i + _LEN.size + k]), str(self.log_path))
            if s > seq:
                value, seq = _apply_delta(value, delta), s
            i += _LEN.size + k
        self.seq, self.last = seq, value
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        self._snapshot(value)  # a restart starts a fresh log behind a fresh snapshot
        return value


def _delta(old, new):
    """What turns ``old`` into ``new``: ("=", new), or for two values of one
    dataclass ("f", ((field, "=", value) | (field, "+", tail), ...))."""
    if type(old) is not type(new) or not dataclasses.is_dataclass(new):
        return ("=", new)
    out = []
    for f in dataclasses.fields(new):
        a, b = getattr(old, f.name), getattr(new, f.name)
        if a is b:
            continue
        if type(a) is tuple and type(b) is tuple and len(b) >= len(a) and b[:len(a)] == a:
            if len(b) > len(a):
                out.append((f.name, "+", b[len(a):]))
        elif a != b:
            out.append((f.name, "=", b))
    return ("f", tuple(out))


def _apply_delta(value, delta):
    kind, body = delta
    if kind == "=":
        return body
    if kind != "f" or not dataclasses.is_dataclass(value):
        raise CorruptFile(f"a change {kind!r} to a {type(value).__name__}")
    changes = {}
    for name, op, x in body:
        changes[name] = getattr(value, name) + x if op == "+" else x
    return dataclasses.replace(value, **changes)


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
