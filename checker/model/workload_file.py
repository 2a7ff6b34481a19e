"""A workload written by the user in a TOML or JSON file (``--workload FILE``).

    name = "token_ring"                    # default: the file's stem
    description = "a token passed round three processes"
    determinism = "deterministic"          # or "send-deterministic", "non-deterministic"
    nodes = [0, 0, 1]                      # the node of each process (its failure domain)
    groups = [0, 0, 1]                     # optional: group (correlated set) of each process
    fifo = true                            # optional: FIFO channels (default true)

    [[process]]                            # P0, then P1, ... in order
    program = [
      { op = "send", to = 1, name = "m1" },        # tag = 0 by default, name for the diagrams
      { op = "recv", from = 2 },                   # from = "ANY" is MPI_ANY_SOURCE
      { op = "checkpoint_site" },
    ]

Operations: ``send`` (``to``, ``tag``, ``name``), ``recv`` (``from`` a rank
or ``"ANY"``, ``tag`` a number or ``"ANY"``, ``combine`` ``"seq"`` or
``"sum"`` — a commutative fold), ``nondet`` (``choices``, a local
non-deterministic outcome such as MPI_Testany's), ``checkpoint_site``, and
the collectives ``barrier``, ``reduce``, ``bcast``, ``alltoall`` (``root``),
which every process calls in the same order (checker/model/workloads.py gives
their semantics). The file is checked by a schema, then against itself
(ranks exist, every message has a receiver), then its declared determinism
class against every failure-free interleaving, as for the built-in workloads.
"""
from __future__ import annotations

import json
import tomllib
from collections import Counter
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rrcheck.checker.model import program as W
from rrcheck.errors import UsageError
from rrcheck.protocols.base import ANY

MAX_PROCS = 8          # beyond this no exhaustive search ends
MAX_OPS = 64           # operations per process
MAX_BYTES = 1 << 20    # a workload file is small


class _Op(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Send(_Op):
    op: Literal["send"]
    to: int = Field(ge=0)
    tag: int = Field(0, ge=0, le=1_000_000)
    name: str | None = Field(None, max_length=16)


class Recv(_Op):
    op: Literal["recv"]
    source: int | Literal["ANY"] = Field(alias="from")
    tag: int | Literal["ANY"] = "ANY"
    combine: Literal["seq", "sum"] = "seq"


class Nondet(_Op):
    op: Literal["nondet"]
    choices: int = Field(ge=2, le=8)


class Site(_Op):
    op: Literal["checkpoint_site"]


class Collective(_Op):
    op: Literal["barrier", "reduce", "bcast", "alltoall"]
    root: int = Field(0, ge=0)


Op = Annotated[Union[Send, Recv, Nondet, Site, Collective], Field(discriminator="op")]


class Process(BaseModel):
    model_config = ConfigDict(extra="forbid")
    program: list[Op] = Field(max_length=MAX_OPS)


class WorkloadFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(None, max_length=40, pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = Field("", max_length=400)
    determinism: Literal["deterministic", "send-deterministic", "non-deterministic"]
    nodes: list[int]
    groups: list[int] | None = None
    fifo: bool = True
    process: list[Process] = Field(min_length=2, max_length=MAX_PROCS)


def read(path: str | Path) -> dict:
    """The raw document of a workload file (TOML or JSON)."""
    p = Path(path)
    if p.suffix not in (".toml", ".json"):
        raise UsageError(f"--workload {path}: a workload file ends in .toml or .json")
    try:
        if p.stat().st_size > MAX_BYTES:
            raise UsageError(f"--workload {path}: larger than {MAX_BYTES // 1024} KiB; a workload file is small")
        text = p.read_bytes().decode()
        return tomllib.loads(text) if p.suffix == ".toml" else json.loads(text)
    except FileNotFoundError:
        raise UsageError(f"--workload {path}: no such file") from None
    except UnicodeDecodeError:
        raise UsageError(f"--workload {path}: binary data, not a workload file") from None
    except OSError as e:
        raise UsageError(f"--workload {path}: cannot read it ({e.strerror})") from None
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise UsageError(f"--workload {path}: not {p.suffix[1:].upper()} ({str(e).splitlines()[0]})") from None


def build(doc, where: str = "workload") -> W.Workload:
    """A validated document -> a Workload (with ``spec``, the document as
    validated, so that a counterexample can carry it)."""
    try:
        f = WorkloadFile.model_validate(doc)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"]) or "top level"
        raise UsageError(f"{where}: at {loc}: {err['msg']}") from None
    n = len(f.process)
    if len(f.nodes) != n or any(not 0 <= j < n for j in f.nodes):
        raise UsageError(f"{where}: nodes must give each of the {n} processes a node id from 0 to {n - 1}")
    if f.groups is not None and (len(f.groups) != n or any(not 0 <= g < n for g in f.groups)):
        raise UsageError(f"{where}: groups must give each of the {n} processes a group id from 0 to {n - 1}")
    progs, labels = [], {}
    sends: Counter = Counter()
    named: Counter = Counter()
    anys: Counter = Counter()
    colls = []
    for p, proc in enumerate(f.process):
        ops = []
        for i, op in enumerate(proc.program):
            at = f"{where}: process {p}, operation {i + 1} ({op.op})"
            if isinstance(op, Send):
                if not 0 <= op.to < n or op.to == p:
                    raise UsageError(f"{at}: to = {op.to} is not another process (0..{n - 1})")
                if op.name:
                    labels[(p, op.to, sends[(p, op.to)])] = op.name
                sends[(p, op.to)] += 1
                ops.append(W.send(op.to, op.tag))
            elif isinstance(op, Recv):
                src = ANY if op.source == "ANY" else op.source
                if src != ANY and (not 0 <= src < n or src == p):
                    raise UsageError(f"{at}: from = {src} is not another process (0..{n - 1}) nor \"ANY\"")
                (anys if src == ANY else named)[(src if src != ANY else None, p)] += 1
                ops.append(W.recv(src, ANY if op.tag == "ANY" else op.tag, op.combine))
            elif isinstance(op, Nondet):
                ops.append(W.nondet(op.choices))
            elif isinstance(op, Site):
                ops.append(W.SITE)
            else:
                if not 0 <= op.root < n:
                    raise UsageError(f"{at}: root = {op.root} is not a process (0..{n - 1})")
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
