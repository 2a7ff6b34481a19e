"""Files: a communication graph to group, and a grouping for ``rrcheck check --grouping``.

Both are JSON with a kind and a schema version (pydantic models, per STYLE.md).
  {"kind": "rrcheck.commgraph", "schema_version": 1, "n": 4,
   "edges": [[0, 1, 4096], [1, 0, 4096], ...],        # (src, dst, bytes) of the first iteration
   "coords": [[x, y], ...], "node_of": [...], "node_coords": [[i, j], ...]}   # all optional
  {"kind": "rrcheck.grouping", "schema_version": 1, "group_of": [0, 0, 1, 1], ...}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, PositiveInt, ValidationError

from rrcheck.errors import UsageError
from rrcheck.grouping.graph import MAX_PROCESSES, CommGraph, edges_of, validate


class CommGraphFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["rrcheck.commgraph"] = "rrcheck.commgraph"
    schema_version: Literal[1] = 1
    name: str = ""
    n: PositiveInt
    edges: list[tuple[int, int, float]]
    coords: list[list[float]] | None = None
    node_of: list[int] | None = None
    node_coords: list[list[int]] | None = None


class GroupingFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["rrcheck.grouping"] = "rrcheck.grouping"
    schema_version: Literal[1] = 1
    pattern: str = ""
    method: str = ""
    group_of: list[int]
    cost: dict[str, float] = {}


MAX_BYTES = 512 * 2**20   # a graph of a million processes with their halo edges is far smaller


def _read(path, model):
    from rrcheck.files import loads_json, read_capped
    p = Path(path)
    try:
        raw = loads_json(read_capped(p, MAX_BYTES, str(p)))
    except FileNotFoundError:
        raise UsageError(f"{p}: no such file; check the path") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise UsageError(f"{p} is not readable JSON ({exc.__class__.__name__}); give a JSON file") from None
    except ValueError as exc:
        raise UsageError(f"{p}: {exc}; give a JSON file rrcheck wrote") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "top level"
        kind = model.model_fields["kind"].default
        raise UsageError(f"{p} is not a valid {kind} file: {where}: {err['msg']}") from None


def load_graph(path) -> CommGraph:
    f = _read(path, CommGraphFile)
    if f.n > MAX_PROCESSES:
        raise UsageError(f"{path}: n = {f.n:,} processes; at most {MAX_PROCESSES:,}")
    bad = next((e for e in f.edges if not (0 <= e[0] < f.n and 0 <= e[1] < f.n)), None)
    if bad is not None:
        raise UsageError(f"{path}: edge {list(bad)} names a process outside 0..{f.n - 1}")
    return CommGraph.from_edges(f.n, f.edges, coords=f.coords, node_of=f.node_of,
                                node_coords=f.node_coords, name=f.name or Path(path).stem)


def save_graph(graph: CommGraph, path) -> None:
    f = CommGraphFile(
        name=graph.name, n=graph.n, edges=edges_of(graph),
        coords=None if graph.coords is None else graph.coords.tolist(),
        node_of=None if graph.node_of is None else graph.node_of.tolist(),
        node_coords=None if graph.node_coords is None else graph.node_coords.tolist())
    Path(path).write_text(f.model_dump_json())


def save_grouping(path, group_of, *, pattern="", method="", cost=None) -> None:
    f = GroupingFile(pattern=pattern, method=method, group_of=list(group_of),
                     cost={k: float(v) for k, v in (cost or {}).items()})
    from rrcheck.files import write_text
    write_text(path, f.model_dump_json(indent=1))


def load_grouping(path, n: int | None = None) -> tuple[int, ...]:
    """Read a grouping file; with n, check it covers processes 0..n-1 exactly once."""
    f = _read(path, GroupingFile)
    return validate(f.group_of, len(f.group_of) if n is None else n)
