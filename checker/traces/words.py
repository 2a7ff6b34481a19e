"""A program's next operation and a protocol's state in the words of
``rrcheck replay --explain``, for the viewer's panes: messages by their labels
(m1, m2…), checkpoints as C0, C1…, tables of checkpoints one line each, sets
sorted, empty fields named once at the end instead of printed."""
from __future__ import annotations

from dataclasses import fields, is_dataclass

from rrcheck.protocols.base import ANY, AppMsg, Mail, Packet

MAX_FIELD = 300
# the fields every protocol keys by checkpoint id: (cid, what it keeps of that checkpoint)
BY_CHECKPOINT = ("ckpts", "logs", "channels")


def operation(op: tuple | None) -> str:
    """One operation of a program (checker/model/program.py); None once it has finished."""
    if op is None:
        return "none: its program has finished"
    kind = op[0]
    if kind == "send":
        return f"send to P{op[1]}" + _tag(op[2])
    if kind == "reply":
        return "reply to the source of the last message received" + _tag(op[1])
    if kind == "recv":
        src, tag, combine = op[1], op[2], op[3]
        text = ("receive from any source" if src == ANY else f"receive from P{src}") + _tag(tag)
        return text + (", summed in (any order gives the same state)" if combine == "sum" else "")
    if kind == "nondet":
        return f"a non-deterministic choice among {op[1]}"
    if kind == "site":
        return "a checkpoint site"
    if kind == "coll":
        return f"the collective {op[1]}" + (f" (root P{op[2]})" if op[1] in ("reduce", "bcast") else "")
    return " ".join(map(str, op))


def _tag(tag: int) -> str:
    return "" if tag in (ANY, 0) else f" with tag {tag}"


def state(v, label) -> str:
    """A protocol's volatile or stable state, one field a line; ``label`` names
    a message id (checker/traces/counterexample.py's label)."""
    if v is None:
        return "(lost with the crash)"
    if not is_dataclass(v):
        return _short(value(v, label))
    lines, empty = [], []
    for f in fields(v):
        x = getattr(v, f.name)
        if _empty(x):
            empty.append(f.name)
        elif f.name in BY_CHECKPOINT and _pairs(x):
            lines.append(f"{f.name}:")
            lines += [f"  C{k}: " + ("nothing" if _empty(y) else _short(value(y, label))) for k, y in x]
        elif is_dataclass(x) and not isinstance(x, AppMsg | Mail | Packet):
            lines += [f"{f.name}:", "  " + _short(value(x, label))]
        else:
            lines.append(f"{f.name} = " + _short(value(x, label)))
    if empty:
        lines.append("empty: " + ", ".join(empty))
    return "\n".join(lines)


def value(x, label) -> str:
    """One value: a message by its label, a packet by its kind and ends, a
    record by its non-empty fields, strings unquoted, sets sorted."""
    if isinstance(x, AppMsg):
        return label(x.gid)
    if isinstance(x, Mail):
        return label(x.msg.gid)
    if isinstance(x, Packet):
        what = f"'{x.kind}' P{x.src} → P{x.dst}"
        return what + (f" of {label(x.msg.gid)}" if x.msg else "") + (f" {value(x.hdr, label)}" if x.hdr else "")
    if is_dataclass(x):
        parts = [f"{f.name} = {value(getattr(x, f.name), label)}" for f in fields(x)
                 if not _empty(getattr(x, f.name))]
        return ", ".join(parts)
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, str):
        return x
    if isinstance(x, frozenset | set):
        return "{" + ", ".join(sorted((value(y, label) for y in x), key=_order)) + "}" if x else "∅"
    if isinstance(x, tuple):
        return "(" + ", ".join(value(y, label) for y in x) + ("," if len(x) == 1 else "") + ")"
    if x is None:
        return "–"
    return str(x)


def _empty(x) -> bool:
    """Nothing to show: None, an empty collection, or a tuple or record of such."""
    if x is None:
        return True
    if is_dataclass(x) and not isinstance(x, AppMsg | Mail | Packet):
        return all(_empty(getattr(x, f.name)) for f in fields(x))
    if isinstance(x, frozenset | set | dict | str):
        return not x
    if isinstance(x, tuple):
        return all(_empty(y) for y in x)
    return False


def _pairs(x) -> bool:
    return isinstance(x, tuple) and all(isinstance(y, tuple) and len(y) == 2 and isinstance(y[0], int) for y in x)


def _order(s: str):
    """Numbers in numeric order, then the rest in text order."""
    return (0, int(s), "") if s.lstrip("-").isdigit() else (1, 0, s)


def _short(text: str) -> str:
    return text if len(text) <= MAX_FIELD else text[:MAX_FIELD] + "…"
