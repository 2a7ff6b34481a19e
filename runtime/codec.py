"""The wire format: a protocol packet packed into one MPI byte buffer.

The buffer is an envelope (the runtime's channel sequence number and the
generation and number of failures the sender knew of, runtime/rank.py), the protocol's packet — its kind and
piggybacked header packed field by field, never pickled — and, for
application traffic, the message and the real data it carries.
"""
from __future__ import annotations

import struct

from rrcheck.protocols.base import AppMsg, Packet

_ENV = struct.Struct("<iiqii")      # src, dst, channel seq, generation F, failures K
_MSG = struct.Struct("<iiiiiiq")    # gid (src, dst, k), src, dst, tag, payload
_Q = struct.Struct("<q")
_I = struct.Struct("<I")


def _put(out: bytearray, v) -> None:
    """Pack one header value: ints, bools, strings, None and nested tuples or frozensets of them."""
    if v is None:
        out += b"N"
    elif v is True or v is False:
        out += b"T" if v else b"F"
    elif isinstance(v, int):
        out += b"q" + _Q.pack(v)
    elif isinstance(v, str):
        raw = v.encode()
        out += b"s" + _I.pack(len(raw)) + raw
    elif isinstance(v, tuple):
        out += b"(" + _I.pack(len(v))
        for x in v:
            _put(out, x)
    elif isinstance(v, frozenset):
        out += b"{" + _I.pack(len(v))
        for x in sorted(v):
            _put(out, x)
    else:
        raise TypeError(f"cannot pack header value {v!r}")


def _get(buf: memoryview, i: int):
    t = buf[i:i + 1].tobytes()
    i += 1
    if t == b"N":
        return None, i
    if t in (b"T", b"F"):
        return t == b"T", i
    if t == b"q":
        return _Q.unpack_from(buf, i)[0], i + 8
    (k,) = _I.unpack_from(buf, i)
    i += 4
    if t == b"s":
        return buf[i:i + k].tobytes().decode(), i + k
    items = []
    for _ in range(k):
        x, i = _get(buf, i)
        items.append(x)
    return (tuple(items) if t == b"(" else frozenset(items)), i


def pack_head(pkt: Packet, seq: int, gen: int, failures: int) -> bytearray:
    """Everything but the data, which follows it in the same buffer (or in the
    same MPI message, runtime/transport.py)."""
    out = bytearray(_ENV.pack(pkt.src, pkt.dst, seq, gen, failures))
    _put(out, pkt.kind)
    _put(out, pkt.hdr)
    if pkt.msg is None:
        out += b"-"
    else:
        m = pkt.msg
        out += b"m" + _MSG.pack(*m.gid, m.src, m.dst, m.tag, m.payload)
    return out


def pack(pkt: Packet, seq: int, gen: int, failures: int, data: bytes | memoryview = b"") -> bytearray:
    return pack_head(pkt, seq, gen, failures) + data


def unpack(buf, data=None) -> tuple[Packet, int, int, int, memoryview]:
    """(packet, channel seq, the sender's generation and failures known, data);
    ``data`` is given when it travelled apart from the header (runtime/transport.py)."""
    view = memoryview(buf)
    src, dst, seq, gen, failures = _ENV.unpack_from(view, 0)
    kind, i = _get(view, _ENV.size)
    hdr, i = _get(view, i)
    msg, apart = None, data
    data = view[i + 1:i + 1]
    if view[i:i + 1].tobytes() == b"m":
        g0, g1, g2, msrc, mdst, tag, payload = _MSG.unpack_from(view, i + 1)
        msg = AppMsg((g0, g1, g2), msrc, mdst, tag, payload)
        data = view[i + 1 + _MSG.size:] if apart is None else apart
    return Packet(src, dst, kind, hdr, msg), seq, gen, failures, data
