"""Resumable fingerprint searches (``--fingerprints``, ``--workers``), as TLC's
``-checkpoint``/``-recover``: saved at the end of a generation, continued on any
number of workers to the verdict and counts of the search never stopped.

A worker's part of the search is its states' discovery keys (the parent's rank
in the generation before, the index among its successors:
:mod:`rrcheck.checker.explicit.parallel`), one little-endian 64-bit integer a
state, generation by generation, in a file of its own. The manifest,
``generations.json``, is written last, whole or not at all, and names the parts
it belongs to with their sizes and SHA-256; the parts it replaced are removed
after it. Fingerprints are not saved: a state's hash holds addresses and string
hashes of the process that made it, so recovery rebuilds every state from the
initial one, generation by generation, one successor list per parent, and
hashes them anew (the states come back equal: protocols are pure; see
:func:`rrcheck.checker.explicit.parallel.rebuild`). Only the last generation's
states are kept: they are the frontier.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, NonNegativeFloat, NonNegativeInt

from rrcheck.errors import UsageError
from rrcheck.files import read_capped, write_bytes
from rrcheck.checker.explicit.resume import read_saved

SCHEMA_VERSION = 1
FILE = "generations.json"
MAX_BYTES = 64 * 2**20  # a manifest lists a few numbers per generation and worker


class Part(BaseModel):
    model_config = ConfigDict(extra="forbid")
    file: str
    generations: list[NonNegativeInt]   # states of each generation in this part
    sha256: str


class GenerationsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: int
    tool: str
    identity: dict
    parts: list[Part]
    states: NonNegativeInt
    transitions: NonNegativeInt
    depth: NonNegativeInt
    witnesses: dict[str, NonNegativeInt]
    checkpointed: list[NonNegativeInt]
    seconds: NonNegativeFloat


@dataclass
class Restored:
    """A saved search rebuilt: each generation's fingerprints and keys (sorted by
    key), the last one's states with their depths, and the counts so far."""
    fingerprints: list[np.ndarray]
    keys: list[np.ndarray]
    frontier: list[tuple]       # (state, depth) in key order
    states: int
    transitions: int
    depth: int
    seconds: float
    witnesses: dict
    checkpointed: set


def part_name(stamp: int, worker: int) -> str:
    return f"keys-{stamp}-w{worker}.i64"


def write_part(directory: Path, stamp: int, worker: int, keys: np.ndarray, generations: list[int]) -> dict:
    """A worker's keys as a part file (whole or not at all); its entry in the manifest."""
    data = np.ascontiguousarray(keys, dtype="<i8").tobytes()
    name = part_name(stamp, worker)
    write_bytes(Path(directory) / name, data)
    return {"file": name, "generations": list(generations), "sha256": hashlib.sha256(data).hexdigest()}


class GenerationSnapshots:
    """Where a fingerprint search is saved (``save_to``), how often, and what it
    continues from (``recovered``: the manifest and its parts, validated)."""

    def __init__(self, identity: dict, save_to: Path | None = None, recover: Path | None = None,
                 every: float = 60.0):
        self.identity, self.save_to, self.recover, self.every = identity, save_to, recover, every
        self.last = time.perf_counter()
        self.stamp = 0
        self.recovered = load(Path(recover), identity) if recover else None

    def due(self) -> bool:
        return self.save_to is not None and time.perf_counter() - self.last >= self.every

    def next_stamp(self) -> int:
        """A name for the next parts, unused by the manifest in place."""
        self.stamp = max(self.stamp + 1, time.time_ns())
        return self.stamp

    def save(self, parts: list[dict], states: int, transitions: int, depth: int, witnesses: dict,
             checkpointed: set, seconds: float) -> None:
        """Write the manifest of ``parts`` (already written), then remove the parts it replaces."""
        from rrcheck.checker.traces.counterexample import tool_version, write_atomic
        doc = GenerationsFile(schema_version=SCHEMA_VERSION, tool=tool_version(), identity=self.identity,
                              parts=parts, states=states, transitions=transitions, depth=depth,
                              witnesses=witnesses, checkpointed=sorted(checkpointed), seconds=seconds)
        write_atomic(self.save_to / FILE, json.dumps(doc.model_dump(mode="json"), separators=(",", ":")) + "\n")
        keep = {p["file"] for p in parts}
        for old in self.save_to.glob("keys-*-w*.i64"):
            if old.name not in keep:
                old.unlink(missing_ok=True)
        self.last = time.perf_counter()


def load(directory: Path, identity: dict) -> tuple[GenerationsFile, list[np.ndarray]]:
    """A saved fingerprint search and its parts, validated, for the search ``identity`` describes."""
    if (directory / "search.json").is_file() and not (directory / FILE).exists():
        raise UsageError(f"--recover {directory}: it holds a search saved on one worker without "
                         "--fingerprints; recover it without --fingerprints and --workers")
    f = read_saved(directory, FILE, GenerationsFile, identity, SCHEMA_VERSION, MAX_BYTES,
                   "give the directory a --checkpoint wrote with --fingerprints or --workers")
    damaged = f"--recover {directory}: {FILE}"
    if not f.parts or len({len(p.generations) for p in f.parts}) != 1 or not f.parts[0].generations:
        raise UsageError(f"{damaged}: its parts do not list the same generations; it is damaged")
    if sum(sum(p.generations) for p in f.parts) != f.states:
        raise UsageError(f"{damaged}: its parts hold another number of states than its {f.states:,}; it is damaged")
    arrays = []
    for part in f.parts:
        name = Path(part.file)
        if name.name != part.file or not part.file.endswith(".i64"):
            raise UsageError(f"{damaged}: part {part.file!r} is not a part file's name; it is damaged")
        size = 8 * sum(part.generations)
        try:
            data = read_capped(directory / name, size, f"--recover {directory}: {part.file}")
        except FileNotFoundError:
            raise UsageError(f"--recover {directory}: {part.file} is missing; the directory is incomplete") from None
        except OSError as e:
            raise UsageError(f"--recover {directory}: cannot read {part.file} ({e.strerror})") from None
        if len(data) != size or hashlib.sha256(data).hexdigest() != part.sha256:
            raise UsageError(f"--recover {directory}: {part.file} is not the part {FILE} names "
                             "(its size or SHA-256 differs); it is damaged")
        arrays.append(np.frombuffer(data, dtype="<i8").astype(np.int64))
    return f, arrays
