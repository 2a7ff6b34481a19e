"""Resumable searches, as TLC's ``-checkpoint``/``-recover``: a breadth-first
search saved as data and continued to the same verdict and counts.

The file holds the BFS tree, not the states: each visited state as its parent's
index and the action from it, in discovery order, the frontier as indices,
and the judge's witness counts. Recovery re-executes one step per visited state
(protocols are pure, so the states come back equal) — far less than the search
that found them, which tried every transition and every property. The file
names the search it belongs to (protocol, mutant, knobs, workload, placement,
grouping, bounds, properties, reductions); a recovery with anything else is
refused.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, NonNegativeFloat, NonNegativeInt, ValidationError

from rrcheck.errors import UsageError

SCHEMA_VERSION = 1
FILE = "search.json"
MAX_BYTES = 2**30   # a saved tree of ~40 million states; more is not a file rrcheck wrote
Action = list[str | int]


class SearchFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: int
    tool: str
    identity: dict
    tree: list[tuple[int, Action]]      # (parent's index, action); the initial state is (-1, [])
    frontier: list[tuple[NonNegativeInt, NonNegativeInt]]     # (index, depth), in queue order
    depth: NonNegativeInt
    witnesses: dict[str, NonNegativeInt]
    checkpointed: list[NonNegativeInt]  # the processes seen taking a checkpoint
    seconds: NonNegativeFloat


class Snapshots:
    """Where a search is saved (``save_to``), how often, and what it continues
    from (``recovered``)."""

    def __init__(self, identity: dict, save_to: Path | None = None, recover: Path | None = None,
                 every: float = 60.0):
        self.identity, self.save_to, self.every = identity, save_to, every
        self.last = time.perf_counter()
        self.recovered = load(recover, identity) if recover else None

    def due(self) -> bool:
        return self.save_to is not None and time.perf_counter() - self.last >= self.every

    def save(self, parent: dict, frontier, depth: int, judge, seconds: float) -> None:
        """Write the search now (whole or not at all)."""
        if self.save_to is None:
            return
        from rrcheck.checker.traces.counterexample import tool_version, write_atomic
        index = {s: i for i, s in enumerate(parent)}
        tree = [(-1, []) if link is None else (index[link[0]], list(link[1])) for link in parent.values()]
        doc = SearchFile(schema_version=SCHEMA_VERSION, tool=tool_version(), identity=self.identity, tree=tree,
                         frontier=[(index[s], d) for s, d in frontier], depth=depth,
                         witnesses=dict(judge.w), checkpointed=sorted(judge._checkpointed), seconds=seconds)
        self.save_to.mkdir(parents=True, exist_ok=True)
        write_atomic(self.save_to / FILE, json.dumps(doc.model_dump(mode="json"), separators=(",", ":")) + "\n")
        self.last = time.perf_counter()

    def restore(self, system, judge) -> tuple[dict, list, int, float]:
        """The saved search's parent links, frontier, depth and seconds, its
        states rebuilt by replaying the tree; the judge gets its witnesses back."""
        f = self.recovered
        states: list = []
        parent: dict = {}
        for i, (p, action) in enumerate(f.tree):
            if p < 0:
                s = system.initial()
                parent[s] = None
            else:
                if not 0 <= p < i:
                    raise UsageError(f"{FILE}: entry {i} names parent {p}, not an earlier state; the file is damaged")
                a = tuple(action)
                if a not in system.actions(states[p]):
                    raise UsageError(f"{FILE}: entry {i}'s action {action} is not enabled in its parent: the file "
                                     f"belongs to another version of the protocol or the model")
                s = system.step(states[p], a)[0]
                parent.setdefault(s, (states[p], a))
            states.append(s)
        if len(parent) != len(f.tree):
            raise UsageError(f"{FILE}: two entries rebuild one state; the file is damaged")
        frontier = []
        for i, d in f.frontier:
            if not 0 <= i < len(states):
                raise UsageError(f"{FILE}: the frontier names state {i}, beyond the {len(states)} saved")
            frontier.append((states[i], d))
        n = system.ctx.n
        if any(q >= n for q in f.checkpointed) or len(set(f.checkpointed)) != len(f.checkpointed) \
                or f.witnesses.get("processes_checkpointed", 0) != len(f.checkpointed):
            raise UsageError(f"{FILE}: its processes seen checkpointing do not fit {n} processes or its own count; "
                             "the file is damaged")
        judge.w = Counter(f.witnesses)
        judge._checkpointed = set(f.checkpointed)
        return parent, frontier, f.depth, f.seconds


def load(directory: Path, identity: dict) -> SearchFile:
    """A saved search, validated, for the search ``identity`` describes."""
    if (Path(directory) / "generations.json").is_file() and not (Path(directory) / FILE).exists():
        raise UsageError(f"--recover {directory}: it holds a search saved with --fingerprints or --workers; "
                         "recover it with --fingerprints or --workers")
    return read_saved(Path(directory), FILE, SearchFile, identity, SCHEMA_VERSION, MAX_BYTES,
                      "give the directory a --checkpoint wrote")


def read_saved(directory: Path, name: str, model, identity: dict, version: int, max_bytes: int, absent: str):
    """The file ``name`` of a saved search in ``directory``, validated by ``model``
    (a pydantic class) and held to ``identity``; ``absent`` says what to give instead."""
    from rrcheck.files import loads_json, read_capped
    try:
        raw = loads_json(read_capped(directory / name, max_bytes, f"--recover {directory}: {name}"))
    except FileNotFoundError:
        raise UsageError(f"--recover {directory}: no {name} in it; {absent}") from None
    except OSError as e:
        raise UsageError(f"--recover {directory}: cannot read {name} ({e.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise UsageError(f"--recover {directory}: {name} is not JSON; it is damaged") from None
    except ValueError as e:
        raise UsageError(f"--recover {directory}: {name} holds {e}; it is damaged") from None
    if isinstance(raw, dict) and raw.get("schema_version") != version:
        raise UsageError(f"--recover {directory}: schema version {raw.get('schema_version')!r}; this rrcheck reads "
                         f"version {version}")
    try:
        f = model.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "top level"
        raise UsageError(f"--recover {directory}: malformed {name} at {where}: {err['msg']}") from None
    if f.identity != identity:
        diff = sorted(k for k in set(f.identity) | set(identity) if f.identity.get(k) != identity.get(k))
        raise UsageError(f"--recover {directory}: saved for another search (it differs in {', '.join(diff)}); "
                         f"give the options the saved search was started with")
    return f
