"""The live line of a long search on stderr (explicit engine)."""
from __future__ import annotations

import sys
import time


class Progress:
    """A one-line progress display on stderr for runs longer than ~2 s."""

    def __init__(self, enabled: bool | None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.t0 = time.perf_counter()
        self.last = self.t0
        self.shown = False

    def tick(self, states: int, queue: int, depth: int) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.t0 < 2.0 or now - self.last < 0.5:
            return
        self.last = now
        rate = states / (now - self.t0)
        sys.stderr.write(f"\r  {states:>10,} states  {rate:>9,.0f} states/s  queue {queue:>9,}  depth {depth:>4}")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + " " * 78 + "\r")
            sys.stderr.flush()
