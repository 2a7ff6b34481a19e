"""Real crashes (kill mode) under Open MPI's ULFM (docs/design.md §7).

A victim dies by SIGKILL at a point between two of its events, after writing
its crash record; every rank of a crashed node is frozen first (the trigger
asks them to stop, then kills itself, and they kill themselves on its word or
at the first error). The survivors notice through ULFM, revoke the
communicator, shrink it, spawn one replacement per dead rank and merge them
in at the dead ranks' places. Then every rank states what it has received
on each channel, and sends again what the repair lost in flight (runtime/storage.py
``Outbox``); a replacement starts from its predecessor's stable storage.
"""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from rrcheck.runtime.files import journal_path, load_journal


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def errhandler(comm, MPI):
    comm.Set_errhandler(MPI.ERRORS_RETURN)
    return comm


def repair(comm, MPI, run_dir: Path, me: int):
    """Survivors: revoke, shrink, spawn replacements, merge, restore rank order.
    Returns (new communicator, dead ranks)."""
    try:
        comm.Revoke()
    except MPI.Exception:
        pass
    shrunk = comm.Shrink()
    old, new = comm.Get_group(), shrunk.Get_group()
    alive = MPI.Group.Translate_ranks(new, list(range(new.Get_size())), old)
    dead = sorted(set(range(comm.Get_size())) - set(alive))
    args = ["-m", "rrcheck.runtime.worker", str(run_dir), "--replace", ",".join(map(str, dead))]
    inter = shrunk.Spawn(sys.executable, args, maxprocs=len(dead), root=0)
    merged = inter.Merge(high=False)
    out = errhandler(merged.Split(0, me), MPI)
    return out, dead


def join(MPI, dead: list[int]):
    """A replacement: merge with the survivors at the place of a dead rank."""
    parent = MPI.Comm.Get_parent()
    me = dead[MPI.COMM_WORLD.Get_rank()]
    merged = parent.Merge(high=True)
    return errhandler(merged.Split(0, me), MPI), me


def predecessor(run_dir: Path, p: int, dead: list[int]) -> tuple[int, int, dict]:
    """What a replacement of p learns from the files: its predecessor's last
    incarnation, the events it executed, and the crash record (written by the
    rank that triggered the failure; copied into p's journal if p was a
    frozen node-mate that never wrote one)."""
    inc = 0
    while journal_path(run_dir, p, inc + 1).exists():
        inc += 1
    mine = load_journal(journal_path(run_dir, p, inc))
    events = sum(1 for i in range(inc + 1) for e in load_journal(journal_path(run_dir, p, i)) if e.f is None)
    if mine and mine[-1].f is not None:
        return inc, events, mine[-1].model_dump(exclude_none=True)
    for q in dead:
        j = 0
        while journal_path(run_dir, q, j + 1).exists():
            j += 1
        evs = load_journal(journal_path(run_dir, q, j))
        if evs and evs[-1].f is not None and p in (evs[-1].victims or []):
            rec = evs[-1].model_dump(exclude_none=True)
            rec.pop("out", None)
            import json
            with open(journal_path(run_dir, p, inc), "a") as fh:
                fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
            return inc, events, rec
    raise RuntimeError(f"replacement of P{p}: no crash record names it among {dead}")
