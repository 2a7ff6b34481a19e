"""Time limits that do not count the time the machine stood still. A leaf.

A virtual machine is sometimes descheduled by its host for a minute or two; nothing
in it runs meanwhile (the guest kernel logs "workqueue lockup" and RCU stalls
afterwards, as this project's CI machine does a few times a day). A run's time
limit bounds the time it had to make progress: a gap in which even its watcher,
polling every fraction of a second, was not scheduled is not charged to it. The
stall is reported, never hidden.
"""
from __future__ import annotations

import time

STALL = 3.0   # a watcher that polls every ≤ 1 s and wakes this much later: the machine stood still


class Budget:
    """``seconds`` of time in which the machine ran; call ``expired()`` at
    least once a second."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.start = self.last = time.monotonic()
        self.stalled = 0.0      # seconds the machine stood still, not charged

    def spent(self) -> float:
        now = time.monotonic()
        if now - self.last > STALL:
            self.stalled += now - self.last
        self.last = now
        return now - self.start - self.stalled

    def expired(self) -> bool:
        return self.spent() > self.seconds
