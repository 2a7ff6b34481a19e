"""The visited set of a search over fingerprints, as TLC keeps it: one flat
open-addressing table of unsigned 64-bit fingerprints, 8 bytes a slot.

Linear probing from a Fibonacci hash of the fingerprint, scaled to the table's
size by a multiply-shift (so the low bits that place a state on a worker do not
crowd one part of a worker's table, and the size need not be a power of two); 0 marks an
empty slot, so a state whose hash is 0 gets the fingerprint ``ZERO`` instead:
two states then share a fingerprint also when one hashes to 0 and the other to
``ZERO``, 2**-127 a pair beside the 2**-64 the printed bound counts.
Lookups and inserts come in batches (numpy arrays): the search pays numpy's
fixed cost per call once per batch of a few thousand states, not per state.
"""
from __future__ import annotations

import numpy as np

# a miss probes (1 + 1/(1-a)^2)/2 slots at load a: 8.5 at 0.75 (50 at 0.9); growing by
# half then keeps the load in (0.5, 0.75]: 10.7 to 16 bytes per fingerprint (doubling: up to 21.3)
MAX_LOAD = 0.75
GROWTH = 1.5
ZERO = 0x9E3779B97F4A7C15           # the fingerprint of a state whose hash is 0
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def fingerprints(hashes) -> np.ndarray:
    """Python hashes of states (signed 64-bit integers, a list or array) as
    unsigned fingerprints, 0 remapped."""
    a = np.asarray(hashes, dtype=np.int64).view(np.uint64)
    zero = a == 0
    if zero.any():
        a = a.copy()
        a[zero] = ZERO
    return a


class FPSet:
    """A set of unsigned 64-bit fingerprints (never 0) in one numpy array."""

    def __init__(self, capacity: int = 1 << 12):
        assert 0 < capacity < 1 << 32
        self.table = np.zeros(capacity, dtype=np.uint64)
        self.n = 0

    def __len__(self) -> int:
        return self.n

    @property
    def nbytes(self) -> int:
        return self.table.nbytes

    def _home(self, fps: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return (((fps * _GOLDEN) >> np.uint64(32)) * np.uint64(self.table.size)) >> np.uint64(32)

    def _next(self, slot: np.ndarray) -> np.ndarray:
        slot = slot + np.uint64(1)
        slot[slot == self.table.size] = 0
        return slot

    def contains(self, fps: np.ndarray) -> np.ndarray:
        """Which of ``fps`` are in the set (a boolean array)."""
        table = self.table
        found = np.zeros(fps.size, dtype=bool)
        todo = np.arange(fps.size)
        slot, want = self._home(fps), fps
        while todo.size:
            t = table[slot]
            hit = t == want
            found[todo[hit]] = True
            go_on = ~hit & (t != 0)
            todo, slot, want = todo[go_on], self._next(slot[go_on]), want[go_on]
        return found

    def add(self, fps: np.ndarray) -> np.ndarray:
        """Insert ``fps``; which of them were not in the set before (a boolean
        array: of a fingerprint given twice, its first place only)."""
        uniq, first = np.unique(fps, return_index=True)
        if self.n + uniq.size > MAX_LOAD * self.table.size:  # room for the new ones only
            miss = np.flatnonzero(~self.contains(uniq))
            while self.n + miss.size > MAX_LOAD * self.table.size:
                self._grow()
            fresh = np.zeros(uniq.size, dtype=bool)
            fresh[miss] = self._insert(uniq[miss])
        else:
            fresh = self._insert(uniq)
        new = np.zeros(fps.size, dtype=bool)
        new[first[fresh]] = True
        return new

    def _insert(self, fps: np.ndarray) -> np.ndarray:
        """Insert distinct ``fps`` (room is made); which were new."""
        table = self.table
        fresh = np.zeros(fps.size, dtype=bool)
        todo = np.arange(fps.size)
        slot, want = self._home(fps), fps
        while todo.size:
            t = table[slot]
            hit = t == want
            empty = np.flatnonzero(t == 0)
            took = np.zeros(todo.size, dtype=bool)
            if empty.size:  # of those meeting one empty slot, the first takes it; the others probe on
                _, first = np.unique(slot[empty], return_index=True)
                won = empty[first]
                table[slot[won]] = want[won]
                took[won] = True
                fresh[todo[won]] = True
            go_on = ~hit & ~took
            todo, slot, want = todo[go_on], self._next(slot[go_on]), want[go_on]
        self.n += int(fresh.sum())
        return fresh

    def _grow(self) -> None:
        old = self.table[self.table != 0]
        self.table = np.zeros(int(self.table.size * GROWTH) + 1, dtype=np.uint64)
        self.n = 0
        self._insert(old)
