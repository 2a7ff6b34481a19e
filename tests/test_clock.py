"""A time limit is charged only the time the machine ran (rrcheck.clock): the
CI machine's host deschedules it for a minute or two a few times a day."""
import z3

from rrcheck import clock
from rrcheck.checker.symbolic import core


class Clock:
    def __init__(self):
        self.now, self.cpu = 1000.0, 0.0

    def tick(self, seconds, cpu=None):
        self.now += seconds
        self.cpu += seconds if cpu is None else cpu


def test_a_stall_is_not_charged_and_a_slow_run_still_expires(monkeypatch):
    c = Clock()
    monkeypatch.setattr(clock.time, "monotonic", lambda: c.now)
    budget = clock.Budget(10)
    c.tick(0.5)
    assert not budget.expired()
    c.tick(120)                       # the machine stood still
    assert not budget.expired() and budget.stalled == 120
    for _ in range(18):               # then ran, polled every half second
        c.tick(0.5)
        assert not budget.expired()
    c.tick(0.5)
    c.tick(0.5)
    assert budget.expired() and budget.stalled == 120


class Starved:
    """A solver whose first answers are Z3's timeout after ``wall`` seconds
    in which it had ``cpu`` seconds of CPU."""

    def __init__(self, c, answers):
        self.c, self.answers, self.calls = c, list(answers), 0

    def check(self):
        self.calls += 1
        r, wall, cpu = self.answers.pop(0)
        self.c.tick(wall, cpu)
        return r

    def reason_unknown(self):
        return "canceled"


def test_z3_is_asked_again_only_when_the_machine_starved_it(monkeypatch):
    c = Clock()
    monkeypatch.setattr(core.time, "monotonic", lambda: c.now)
    monkeypatch.setattr(core.time, "thread_time", lambda: c.cpu)
    starved = Starved(c, [(z3.unknown, 130, 2), (z3.unsat, 0.1, 0.1)])
    assert core.solved(starved, 20_000) == z3.unsat and starved.calls == 2
    busy = Starved(c, [(z3.unknown, 20, 19), (z3.unsat, 0.1, 0.1)])
    assert core.solved(busy, 20_000) == z3.unknown and busy.calls == 1
    never = Starved(c, [(z3.unknown, 130, 1)] * 3 + [(z3.unsat, 0.1, 0.1)])
    assert core.solved(never, 20_000) == z3.unknown and never.calls == 3
