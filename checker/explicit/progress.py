"""What a long search says and watches while it runs (explicit engine): its progress
on stderr, its resident memory against a limit, and what it had explored when stopped."""
from __future__ import annotations

import os
import resource
import sys
import time

from rrcheck.checker.invariants.verdict import Result

LIVE_AFTER, LIVE_EVERY = 2.0, 0.5    # on a terminal: one line, redrawn
LINE_AFTER, LINE_EVERY = 10.0, 15.0  # elsewhere (a pipe, a log): a plain line now and then, as TLC's
MEMORY_EVERY = 1.0                   # seconds between two readings of the resident memory
LOOK_EVERY = 256                     # states a search expands between two looks at both (a clock costs)
MEMORY_SHARE = 0.8                   # of the memory available at the start: the default limit


class Progress:
    """A search's progress on stderr, unless ``enabled`` is False: on a terminal a
    live line for runs longer than 2 s; elsewhere a line after 10 s and every 15 s
    after, with the resident memory of this process and its workers ``pids`` and the
    ``limit`` a :class:`MemoryGuard` holds it to."""

    def __init__(self, enabled: bool | None, pids=(), limit: int | None = None):
        self.enabled = enabled is not False
        self.live = sys.stderr.isatty()
        self.pids = tuple(pids)
        self.limit = f" of {size(limit)} allowed" if limit else ""
        self.t0 = time.perf_counter()
        self.due = self.t0 + (LIVE_AFTER if self.live else LINE_AFTER)
        self.width = 0  # of the live line drawn, 0 if none

    def tick(self, states: int, queue: int, depth: int) -> None:
        """``depth`` is the deepest level reached so far."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if now < self.due:
            return
        self.due = now + (LIVE_EVERY if self.live else LINE_EVERY)
        elapsed = now - self.t0
        rate = states / elapsed
        if self.live:
            text = (f"  {states:>10,} states  {rate:>9,.0f} states/s  queue {queue:>9,}  depth {depth:>4}  "
                    f"{clock(elapsed):>8}")
            sys.stderr.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            sys.stderr.write(f"rrcheck: {states:,} states ({rate:,.0f}/s), queue {queue:,}, depth {depth}, "
                             f"{clock(elapsed)} elapsed, {size(resident(self.pids))} resident{self.limit}\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()
            self.width = 0


class MemoryGuard:
    """Stops a search, incomplete, before the kernel kills it: :meth:`over` is true
    once the resident memory of this process and its workers ``pids`` has passed
    ``limit`` bytes (None: 80 % of the memory available at the start). It reads
    /proc at most once a second. A forked worker's pages shared with its parent
    count once per process: an overestimate, on the safe side."""

    def __init__(self, limit: int | None, pids=()):
        self.limit = default_memory_limit() if limit is None else limit
        self.pids = tuple(pids)
        self.due = 0.0  # the first call reads
        self.hit = False

    def over(self) -> bool:
        if self.hit or self.limit is None:
            return self.hit
        now = time.perf_counter()
        if now >= self.due:
            self.due = now + MEMORY_EVERY
            self.hit = resident(self.pids) > self.limit
        return self.hit

    def reason(self, states: int, depth: int, seconds: float, advice: str) -> str:
        return f"memory limit {size(self.limit)} reached {explored(states, depth, seconds)}; {advice}"


class Interrupted(KeyboardInterrupt):
    """A search stopped by Ctrl-C (or SIGTERM, SIGHUP): ``result`` is what it had
    explored, incomplete, its reason saying so."""

    def __init__(self, result: Result):
        super().__init__(result.reason)
        self.result = result


def explored(states: int, depth: int, seconds: float) -> str:
    """How far a search went, for the reason it stopped incomplete."""
    return f"after {states:,} states (depth {depth}, {seconds:,.1f} s)"


def resident(pids=()) -> int:
    """Resident bytes of this process and of the processes ``pids`` (those gone count 0)."""
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in ("self", *pids):
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, IndexError, ValueError):
            if pid == "self":  # no /proc: this process's peak, in KiB (bytes on macOS)
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                total += peak if sys.platform == "darwin" else peak * 1024
    return total


def default_memory_limit() -> int | None:
    """80 % of MemAvailable (else MemTotal) in /proc/meminfo; None where there is none."""
    try:
        with open("/proc/meminfo") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
    except OSError:
        return None
    for key in ("MemAvailable", "MemTotal"):
        if key in fields:
            return int(MEMORY_SHARE * int(fields[key].split()[0]) * 1024)
    return None


def size(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f} GiB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.0f} MiB"
    return f"{n:,} B"


def clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
