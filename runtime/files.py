"""The files of a run, each a pydantic model with a schema version: the run
configuration (``run.json``), one journal per rank incarnation
(``journal-RANK-INC.jsonl``: the scheduler events it executed, in the model's
vocabulary) and one result per rank (``result-RANK.json``)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rrcheck.errors import UsageError

SCHEMA_VERSION = 1


class CrashSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    index: int = Field(ge=1)            # the index-th failure of the run
    rank: int | None = None             # a rank, or
    node: int | None = None             # every rank of a node
    at: int = Field(ge=0)               # the trigger rank's event count


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal[1] = 1
    protocol: str
    mutant: str | None = None
    knobs: dict[str, Any]
    workload: str
    n: int = Field(ge=1)
    nodes: int = Field(ge=1)
    node_of: list[int]
    group_of: list[int]
    iters: int = Field(ge=1)
    size: int | None = None
    mode: Literal["soft", "kill"]
    crashes: list[CrashSpec] = []
    checkpoint_every: int = Field(ge=0)   # application steps between checkpoints (0: never)
    trace: bool = True


class Event(BaseModel):
    """One scheduler event of a rank: the model action (``recv`` names the
    message by its gid, ``deliver`` the packet by its channel seq), the number
    of failures the rank knew of, and the packets it put on the wire."""
    model_config = ConfigDict(extra="forbid")
    a: list = Field(min_length=1, max_length=8)
    F: int = Field(0, ge=0)
    out: list[tuple[int, int, str]] = []
    f: int | None = None             # crash records: the failure's index
    victims: list[int] | None = None


class Result(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal[1] = 1
    rank: int
    incarnations: int
    events: int
    pc: int
    acc: int
    output: dict[str, Any]
    failures: int = 0                # failures this rank knew of at the end
    stale_dropped: int = 0
    logged_bytes: int = 0
    posted_bytes: int = 0            # large data received straight into the application's buffer
    unexpected_bytes: int = 0        # large data received into the runtime's buffers
    seconds: float = 0.0


class Journal:
    """Appends events, one line per write: a line either reaches the file or
    not, so a journal survives a SIGKILL of its rank whole up to its last event."""

    def __init__(self, path: Path, enabled: bool = True):
        self.enabled = enabled
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if enabled else None

    def write(self, ev: dict) -> None:
        if self.enabled:
            os.write(self.fd, (json.dumps(ev, separators=(",", ":")) + "\n").encode())

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def journal_path(run_dir: Path, rank: int, inc: int) -> Path:
    return Path(run_dir) / f"journal-{rank}-{inc}.jsonl"


MAX_FILE = 256 * 2**20   # bytes: a run file larger than this is not one rrcheck wrote


def _read(p: Path, what: str, empty_ok: bool = False) -> str:
    from rrcheck.files import read_capped
    try:
        text = read_capped(p, MAX_FILE, str(p)).decode()
    except FileNotFoundError:
        raise UsageError(f"{p.parent}: no {p.name}; give the directory `rrcheck run --out DIR` wrote") from None
    except UnicodeDecodeError:
        raise UsageError(f"{p}: binary data, not a {what} (give the directory `rrcheck run --out DIR` wrote)") from None
    except OSError as e:
        raise UsageError(f"{p}: cannot read it ({e.strerror})") from None
    if not text.strip() and not empty_ok:
        raise UsageError(f"{p}: empty; the run did not start (run it again)")
    return text


def load_config(run_dir: Path) -> RunConfig:
    """The run configuration, checked against itself and the registry."""
    p = Path(run_dir) / "run.json"
    try:
        cfg = RunConfig.model_validate_json(_read(p, "run configuration"))
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(map(str, err["loc"])) or "top level"
        raise UsageError(f"{p}: not a run configuration rrcheck wrote ({where}: {err['msg']})") from None
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
    if cfg.protocol != "none" and cfg.protocol not in PROTOCOLS:
        raise UsageError(f"{p}: unknown protocol {cfg.protocol!r}")
    if cfg.mutant is not None and (cfg.mutant not in MUTANTS or MUTANTS[cfg.mutant].protocol != cfg.protocol):
        raise UsageError(f"{p}: {cfg.mutant!r} is not a mutant of {cfg.protocol!r}")
    if len(cfg.node_of) != cfg.n or len(cfg.group_of) != cfg.n or cfg.nodes > cfg.n \
            or any(not 0 <= j < cfg.nodes for j in cfg.node_of):
        raise UsageError(f"{p}: placement or grouping does not fit {cfg.n} ranks on {cfg.nodes} nodes")
    for c in cfg.crashes:
        if (c.rank is None) == (c.node is None) or not 0 <= (c.rank if c.rank is not None else c.node) < \
                (cfg.n if c.rank is not None else cfg.nodes):
            raise UsageError(f"{p}: crash {c.index} names no rank or node of the run")
    return cfg


def load_journal(path: Path, n: int | None = None) -> list[Event]:
    """A rank incarnation's events; ``n``: the run's ranks, which every event
    must name within."""
    events = []
    lines = _read(path, "journal", empty_ok=True).splitlines()
    for i, line in enumerate(lines):
        try:
            events.append(Event.model_validate_json(line))
        except ValidationError as e:
            if i == len(lines) - 1 and i > 0:  # a torn last line: the rank was killed while writing it
                break
            raise UsageError(f"{path}:{i + 1}: not a journal event rrcheck wrote ({e.errors()[0]['msg']})") from None
        ev = events[-1]
        if not isinstance(ev.a[0], str) or len(ev.a) < 2 or not isinstance(ev.a[1], int) or ev.a[1] < 0 \
                or (n is not None and (ev.a[1] >= n or any(not 0 <= v < n for v in ev.victims or []))):
            raise UsageError(f"{path}:{i + 1}: not a journal event of a run of {n} ranks: {ev.a}")
    return events


def load_result(run_dir: Path, rank: int) -> Result | None:
    p = Path(run_dir) / f"result-{rank}.json"
    if not p.exists():
        return None
    try:
        return Result.model_validate_json(_read(p, "result"))
    except ValidationError as e:
        raise UsageError(f"{p}: malformed result: {e.errors()[0]['msg']}") from None


def protocol_of(cfg: RunConfig):
    """The protocol object of a run: a registered protocol or mutant, or
    ``none`` (bare MPI: the failure-free reference)."""
    from rrcheck.protocols.base import Plain
    from rrcheck.protocols.mutants import build
    if cfg.protocol == "none":
        return Plain()
    proto = build(cfg.protocol, cfg.mutant)
    return type(proto)(**{**proto.knobs, **cfg.knobs}) if cfg.knobs else proto
