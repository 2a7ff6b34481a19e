"""TLC's printed values, and the Python model's states seen the same way.

TLC prints a state as ``/\\ var = value`` lines. :func:`parse` reads the value
syntax TLC prints (numbers, strings, booleans, ``<<…>>``, ``{…}``,
``[f |-> v]``, ``(k :> v @@ …)``); :func:`tla_view` and :func:`py_view` bring a
TLC state and a :class:`rrcheck.checker.model.system.State` to one canonical form, in
which the spec's value terms are replaced by the Python model's 32-bit digests
(specs/RollbackRecovery.tla, "Values as terms"). Two states are the same state
exactly when their views are equal.
"""
from __future__ import annotations

import dataclasses
import re

from rrcheck.errors import UsageError
from rrcheck.checker.model.workloads import M32, mix
from rrcheck.protocols.base import COLLECTIVES


class Rec(tuple):
    """A TLA+ record: sorted (field, value) pairs."""


class Fn(tuple):
    """A TLA+ function printed with :> and @@: sorted (key, value) pairs."""


_TOKEN = re.compile(r'\s*(<<|>>|\|->|:>|@@|"(?:[^"\\]|\\.)*"|-?\d+|[A-Za-z_][A-Za-z0-9_]*|[\[\]{}(),])')


def _tokens(text: str) -> list[str]:
    out, i = [], 0
    text = text.rstrip()
    while i < len(text):
        m = _TOKEN.match(text, i)
        if not m:
            raise UsageError(f"cannot read TLC's value near {text[i:i + 40]!r}")
        out.append(m.group(1))
        i = m.end()
    return out


def parse(text: str):
    toks = _tokens(text)
    v, i = _value(toks, 0)
    if i != len(toks):
        raise UsageError(f"trailing text in TLC's value: {' '.join(toks[i:i + 5])}")
    return v


def _seq(toks, i, close):
    items = []
    if toks[i] == close:
        return items, i + 1
    while True:
        v, i = _value(toks, i)
        items.append(v)
        if toks[i] == close:
            return items, i + 1
        assert toks[i] == ",", toks[i]
        i += 1


def _value(toks, i):
    t = toks[i]
    if t == "<<":
        items, i = _seq(toks, i + 1, ">>")
        return tuple(items), i
    if t == "{":
        items, i = _seq(toks, i + 1, "}")
        return frozenset(items), i
    if t == "[":
        fields, i = [], i + 1
        while True:
            name = toks[i]
            assert toks[i + 1] == "|->", toks[i + 1]
            v, i = _value(toks, i + 2)
            fields.append((name, v))
            if toks[i] == "]":
                return Rec(sorted(fields)), i + 1
            i += 1
    if t == "(":
        pairs, i = [], i + 1
        while True:
            k, i = _value(toks, i)
            assert toks[i] == ":>", toks[i]
            v, i = _value(toks, i + 1)
            pairs.append((k, v))
            if toks[i] == ")":
                return Fn(sorted(pairs)), i + 1
            assert toks[i] == "@@", toks[i]
            i += 1
    if t == "TRUE":
        return True, i + 1
    if t == "FALSE":
        return False, i + 1
    if t.startswith('"'):
        return t[1:-1].replace('\\"', '"').replace("\\\\", "\\"), i + 1
    return int(t), i + 1


def parse_state(text: str) -> dict:
    """``/\\ var = value`` lines (after a ``N: <Action>`` line) as a dict."""
    body = [ln for ln in text.splitlines() if not re.match(r"^\d+: <", ln)]
    out: dict = {}
    for part in re.split(r"^/\\ ", "\n".join(body), flags=re.M):
        if part.strip():
            name, _, value = part.partition(" = ")
            out[name.strip()] = parse(value)
    return out


# --- the canonical view --------------------------------------------------------

TERMS = {"init": lambda p: mix(p), "pay": lambda acc, pc: mix(acc, pc),
         "rcv": lambda acc, src, pay: mix(acc, src, pay), "nd": lambda acc, c: mix(acc, 0x6E64, c),
         "cdata": lambda acc, pc: mix(acc, pc, 0xC011),
         "collacc": lambda acc, kind, inputs: mix(acc, 0xC0 + COLLECTIVES.index(kind), *inputs)}


def _canon_tla(v):
    if isinstance(v, Rec):
        d = dict(v)
        if set(d) == {"sent", "delivered", "order"}:  # a ghost history: its order digested
            h = 0
            for src, k in d["order"]:
                h = mix(h, src, k)
            d["order"] = h
            return Rec(sorted((k, x if k == "order" else _canon_tla(x)) for k, x in d.items()))
        return Rec(sorted((k, _canon_tla(x)) for k, x in d.items()))
    if isinstance(v, Fn):
        return tuple(_canon_tla(x) for _, x in v)  # keys 0..n-1, or pairs in src*n+dst order
    if isinstance(v, tuple):
        if v and v[0] == "sum":  # base + the digests of the bag's payloads, as rrcheck's sum
            return (_canon_tla(v[1]) + sum(_canon_tla(k[1]) * n for k, n in v[2])) & M32
        if v and isinstance(v[0], str) and v[0] in TERMS:
            return TERMS[v[0]](*(_canon_tla(x) for x in v[1:]))
        return tuple(_canon_tla(x) for x in v)
    if isinstance(v, frozenset):
        return frozenset(_canon_tla(x) for x in v)
    return v


def _canon_py(v, field: str = ""):
    if v is None:
        return () if field == "msg" else Rec([("crashed", True)])  # no message / a crashed vol
    if dataclasses.is_dataclass(v):
        fs = [(f.name, _canon_py(getattr(v, f.name), f.name))
              for f in dataclasses.fields(v) if not f.name.startswith("_")]
        if type(v).__name__ == "Packet" and v.msg is not None:
            fs = [(k, (x,) if k == "msg" else x) for k, x in fs]
        return Rec(sorted(fs))
    if isinstance(v, tuple):
        return tuple(_canon_py(x) for x in v)
    if isinstance(v, frozenset):
        return frozenset(_canon_py(x) for x in v)
    return v


def tla_view(state: dict):
    return (_canon_tla(state["procs"]), _canon_tla(state["wire"]), state["failures"],
            frozenset(state["failed"]))


def py_view(s):
    return (_canon_py(s.procs), _canon_py(s.wire), s.failures, frozenset(s.failed))
