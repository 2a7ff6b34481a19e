"""A workload written by the user in a TOML or JSON file (``--workload FILE``):
its strict schema, and the checks that turn a document into a Workload.

docs/workloads.md documents every field, its type, default and limit, with
examples. In short:

    name = "token_ring"                    # default: the file's stem
    determinism = "deterministic"          # or "send-deterministic", "non-deterministic"
    nodes = [0, 0, 1]                      # the node of each process (its failure domain)

    [[process]]                            # P0, then P1, ... in order
    program = [
      { op = "send", to = 1, name = "m1" },
      { op = "recv", from = "ANY" },               # MPI_ANY_SOURCE is the word "ANY", never -1
      { op = "checkpoint_site" },
    ]

Nothing is coerced: a rank is an integer (not ``true``, ``1.0`` or ``"1"``),
``fifo`` is ``true`` or ``false``. The file is checked by the schema, then
against itself (ranks exist, every message has a receiver), then its declared
determinism class against every failure-free interleaving, as for the
built-in workloads. Each refusal is one UsageError line naming the file, the
field's path in the document (``process.0.program.1.to``, counted from 0),
what the field holds and, where a usual slip explains it, how to mend it.
"""
from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from rrcheck.checker.model import program as W
from rrcheck.protocols.base import ANY, COLLECTIVES

from rrcheck.errors import UsageError

MIN_PROCS = 2
MAX_PROCS = 8          # beyond this no exhaustive search ends
MAX_OPS = 64           # operations per process
MAX_BYTES = 1 << 20    # a workload file is small
MAX_TAG = 1_000_000
MAX_CHOICES = 8        # outcomes of one nondet
MAX_NAME = 40          # the workload's name (it names output files)
MAX_LABEL = 16         # a message's name on the diagrams
MAX_DESCRIPTION = 400

Natural = Annotated[int, Field(ge=0)]  # strict: no bool, float or string stands for an integer


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)


class Send(_Strict):
    op: Literal["send"]
    to: Natural
    tag: Natural = Field(0, le=MAX_TAG)
    name: str | None = Field(None, max_length=MAX_LABEL)


class Recv(_Strict):
    op: Literal["recv"]
    source: Natural | Literal["ANY"] = Field(alias="from")
    tag: Annotated[Natural, Field(le=MAX_TAG)] | Literal["ANY"] = "ANY"
    combine: Literal["seq", "sum"] = "seq"


class Nondet(_Strict):
    op: Literal["nondet"]
    choices: int = Field(ge=2, le=MAX_CHOICES)


class Site(_Strict):
    op: Literal["checkpoint_site"]


class Collective(_Strict):
    op: Literal["barrier", "reduce", "bcast", "alltoall"]
    root: Natural = 0


OPS = {"send": Send, "recv": Recv, "nondet": Nondet, "checkpoint_site": Site, **dict.fromkeys(COLLECTIVES, Collective)}
Op = Annotated[Send | Recv | Nondet | Site | Collective, Field(discriminator="op")]


class Process(_Strict):
    program: list[Op] = Field(max_length=MAX_OPS)


class WorkloadFile(_Strict):
    name: str | None = Field(None, max_length=MAX_NAME, pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = Field("", max_length=MAX_DESCRIPTION)
    determinism: Literal["deterministic", "send-deterministic", "non-deterministic"]
    nodes: list[Natural]
    groups: list[Natural] | None = None
    fifo: bool = True
    process: list[Process] = Field(min_length=MIN_PROCS, max_length=MAX_PROCS)


def read(path: str | Path) -> dict:
    """The raw document of a workload file (TOML or JSON)."""
    p = Path(path)
    if p.suffix not in (".toml", ".json"):
        raise UsageError(f"--workload {path}: a workload file ends in .toml or .json")
    from rrcheck.files import loads_json, read_capped
    try:
        data = read_capped(p, MAX_BYTES, f"--workload {path}")
        text = data.decode()
        return tomllib.loads(text) if p.suffix == ".toml" else loads_json(text)
    except FileNotFoundError:
        raise UsageError(f"--workload {path}: no such file") from None
    except UnicodeDecodeError:
        raise UsageError(f"--workload {path}: binary data, not a workload file") from None
    except OSError as e:
        raise UsageError(f"--workload {path}: cannot read it ({e.strerror})") from None
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise UsageError(f"--workload {path}: not {p.suffix[1:].upper()} ({str(e).splitlines()[0]})") from None
    except ValueError as e:  # an integer longer than any rank, NaN
        raise UsageError(f"--workload {path}: {e}; a workload file holds small integers") from None


# -- one line per refusal ----------------------------------------------------------

def _at(doc, path: tuple):
    """The value at ``path`` in the document, or None where there is none."""
    for key in path:
        try:
            doc = doc[key]
        except (KeyError, IndexError, TypeError):
            return None
    return doc


def _expected(path: tuple, doc) -> str:
    """What the field at ``path`` holds, said the way docs/workloads.md says it."""
    procs = _at(doc, ("process",))
    n = len(procs) if isinstance(procs, list) else None
    ranks = f"an integer from 0 to {n - 1}" if n else "an integer from 0"
    me = f" other than {path[1]}" if len(path) > 2 and path[0] == "process" else ""
    field = next((k for k in reversed(path) if isinstance(k, str)), "")
    one = isinstance(path[-1], int)          # an entry of a list, not the list
    op = _at(doc, path[:-1] + ("op",)) if len(path) == 5 else None
    return {
        "name": (f'a name in quotes: at most {MAX_NAME} letters, digits, "_", "." or "-"' if len(path) == 1
                 else f"a message label in quotes, at most {MAX_LABEL} characters"),
        "description": f"a text in quotes, at most {MAX_DESCRIPTION} characters",
        "determinism": '"deterministic", "send-deterministic" or "non-deterministic"',
        "nodes": f"a node id, {ranks}" if one else f"a list of node ids, one per process ({ranks})",
        "groups": f"a group id, {ranks}" if one else f"a list of group ids, one per process ({ranks})",
        "fifo": "true or false",
        "process": ("a [[process]] table holding program = [...]" if one
                    else f"a list of at least {MIN_PROCS} and at most {MAX_PROCS} [[process]] tables (MAX_PROCS)"),
        "program": ('an operation table such as { op = "send", to = 1 }' if one
                    else f"a list of at most {MAX_OPS} operations (MAX_OPS)"),
        "op": f"an operation: {', '.join(OPS)}",
        "to": f"another process, {ranks}{me}",
        "from": f'another process ({ranks}{me}) or the word "ANY" (MPI_ANY_SOURCE)',
        "tag": f"an integer from 0 to {MAX_TAG}" + (' or the word "ANY" (MPI_ANY_TAG)' if op == "recv" else ""),
        "combine": '"seq" or "sum"',
        "choices": f"an integer from 2 to {MAX_CHOICES}",
        "root": f"a process, {ranks}",
    }.get(field, "a field docs/workloads.md describes")


def _mend(path: tuple, got, expected: str) -> str:
    """How to mend a usual slip, or nothing."""
    field = next((k for k in reversed(path) if isinstance(k, str)), "")
    if '"ANY"' in expected and got == -1 and type(got) is int:
        return f'; {"MPI_ANY_SOURCE" if field == "from" else "MPI_ANY_TAG"} is written "ANY", not -1'
    if isinstance(got, str) and got.lower() == "any":
        return '; write "ANY" in capitals' if '"ANY"' in expected else '; only a recv\'s from and tag take "ANY"'
    if field == "fifo":
        return "; write true or false" + (", without quotes" if isinstance(got, str) else "")
    if isinstance(got, bool):
        return "; true and false are not numbers"
    if isinstance(got, float):
        return "; write a whole number, without a decimal point"
    if isinstance(got, str) and re.fullmatch(r"-?\d+", got):
        return "; write the number without quotes"
    return ""


def _shown(v) -> str:
    """A value as the document writes it (TOML and JSON agree on scalars)."""
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        return f"a list of {len(v)}"
    s = json.dumps(v, default=str)
    return s if len(s) <= 40 else s[:37] + "..."


def _refuse(where: str, path: tuple, got, doc) -> UsageError:
    at, expected = ".".join(str(k) for k in path), _expected(path, doc)
    return UsageError(f"{where}: {at} = {_shown(got)} is not {expected}{_mend(path, got, expected)}")


def _schema_error(where: str, e: ValidationError, doc) -> UsageError:
    """The first schema error as one line. pydantic's location names the union
    members and the operation it tried; the path keeps the document's keys."""
    err = e.errors()[0]
    kind, loc = err["type"], err["loc"]
    path = tuple(k for i, k in enumerate(loc) if isinstance(k, int) or k in _FIELDS
                 or (kind == "extra_forbidden" and i == len(loc) - 1))
    at = ".".join(str(k) for k in path)
    if not path:
        return UsageError(f"{where}: the document is {_shown(doc)}, not a table of fields "
                          "(docs/workloads.md describes them)")
    if kind == "union_tag_not_found":
        return UsageError(f"{where}: {at} has no op; give op = one of {', '.join(OPS)}")
    if kind == "union_tag_invalid":
        return _refuse(where, path + ("op",), _at(doc, path + ("op",)), doc)
    if kind == "missing":
        return UsageError(f"{where}: {at} is missing; give {_expected(path, doc)}")
    if kind == "extra_forbidden":
        parent = _at(doc, path[:-1])
        model = {1: WorkloadFile, 3: Process}.get(len(path)) or OPS.get(parent.get("op"))
        fields = ", ".join(f.alias or k for k, f in model.model_fields.items())
        return UsageError(f"{where}: {at} is not a field here; the fields are {fields}")
    if kind in ("too_long", "too_short") and isinstance(err["input"], list):
        return UsageError(f"{where}: {at} lists {len(err['input'])} entries; give {_expected(path, doc)}")
    return _refuse(where, path, err["input"], doc)


_FIELDS = {f.alias or k for m in (WorkloadFile, Process, *OPS.values()) for k, f in m.model_fields.items()}


def build(doc, where: str = "workload") -> W.Workload:
    """A validated document -> a Workload (with ``spec``, the document as
    validated, so that a counterexample can carry it)."""
    try:
        f = WorkloadFile.model_validate(doc)
    except ValidationError as e:
        raise _schema_error(where, e, doc) from None
    n = len(f.process)
    if len(f.nodes) != n:
        raise UsageError(f"{where}: nodes lists {len(f.nodes)} node id(s) for {n} processes; nodes must give "
                         f"each process a node id from 0 to {n - 1}")
    if f.groups is not None and len(f.groups) != n:
        raise UsageError(f"{where}: groups lists {len(f.groups)} group id(s) for {n} processes; groups must give "
                         f"each process a group id from 0 to {n - 1}")
    for key, ids in (("nodes", f.nodes), ("groups", f.groups or ())):
        for i, j in enumerate(ids):
            if j >= n:
                raise _refuse(where, (key, i), j, doc)
    progs, labels = [], {}
    sends: Counter = Counter()
    named: Counter = Counter()
    anys: Counter = Counter()
    colls = []
    for p, proc in enumerate(f.process):
        ops = []
        for i, op in enumerate(proc.program):
            at = ("process", p, "program", i)
            if isinstance(op, Send):
                if op.to >= n or op.to == p:
                    raise _refuse(where, at + ("to",), op.to, doc)
                if op.name:
                    labels[(p, op.to, sends[(p, op.to)])] = op.name
                sends[(p, op.to)] += 1
                ops.append(W.send(op.to, op.tag))
            elif isinstance(op, Recv):
                src = ANY if op.source == "ANY" else op.source
                if src != ANY and (src >= n or src == p):
                    raise _refuse(where, at + ("from",), src, doc)
                (anys if src == ANY else named)[(src if src != ANY else None, p)] += 1
                ops.append(W.recv(src, ANY if op.tag == "ANY" else op.tag, op.combine))
            elif isinstance(op, Nondet):
                ops.append(W.nondet(op.choices))
            elif isinstance(op, Site):
                ops.append(W.SITE)
            else:
                if op.root >= n:
                    raise _refuse(where, at + ("root",), op.root, doc)
                ops.append(W.coll(op.op, op.root))
        progs.append(tuple(ops))
        colls.append([o for o in ops if o[0] == "coll"])
    if any(c != colls[0] for c in colls):
        raise UsageError(f"{where}: every process must call the same collectives in the same order "
                         "(MPI's rule for a communicator)")
    for q in range(n):
        into = sum(c for (s, d), c in sends.items() if d == q)
        takes = sum(c for (s, d), c in named.items() if d == q) + anys[(None, q)]
        if into != takes:
            raise UsageError(f"{where}: process {q} receives {takes} message(s) but {into} are sent to it; "
                             "every message needs exactly one receive")
        for s in range(n):
            if named[(s, q)] > sends[(s, q)]:
                raise UsageError(f"{where}: process {q} receives {named[(s, q)]} from {s}, which sends it "
                                 f"{sends[(s, q)]}")
    name = f.name or Path(where).stem
    w = W.Workload(name, tuple(progs), f.determinism, tuple(f.nodes), f.description or f"from {Path(where).name}",
                   "a workload file", group_of=tuple(f.groups) if f.groups else None, fifo=f.fifo,
                   labels=labels, spec={**f.model_dump(mode="json", by_alias=True, exclude_none=True), "name": name})
    _check_class(w, where)
    return w


def _check_class(w: W.Workload, where: str) -> None:
    from rrcheck.checker.model.classify import failure_free
    ff = failure_free(w)
    if ff.deadlocks:
        raise UsageError(f"{where}: {ff.deadlocks} failure-free run(s) deadlock (a receive no send matches "
                         "in some order); fix the programs")
    if not ff.satisfies(w.determinism):
        raise UsageError(f"{where}: declares {w.determinism} but is {ff.observed} "
                         f"({ff.distinct_reception_orders} reception orders, {ff.distinct_send_sequences} send "
                         f"sequences over its failure-free runs); declare determinism = \"{ff.observed}\"")


def load(path: str | Path) -> W.Workload:
    return build(read(path), str(path))
