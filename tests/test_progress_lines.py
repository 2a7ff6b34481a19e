"""A long run speaks and its work is bounded: a search's progress on stderr (a
line now and then off a terminal), the memory guard that stops it incomplete,
what a bounded or interrupted search had explored, and TLC's progress relayed."""
import ctypes
import io
import re
import sys
import time
import types
from array import array

import pytest
from rrcheck.checker.explicit import parallel, progress
from rrcheck.checker.explicit.explore import explore
from rrcheck.checker.explicit.progress import Interrupted, Progress
from rrcheck.checker.invariants import Judge, properties_for
from rrcheck.checker.model.classify import failure_free
from rrcheck.checker.model.scenarios import DEFAULTS, make_system
from rrcheck.checker.tla import run as tla_run

SCENARIO = DEFAULTS["coordinated"][0]  # 1,247 states, a pass


def _system():
    system, workload = make_system("coordinated", SCENARIO)
    return system, Judge(system, properties_for(system, "coordinated", None), failure_free(workload).finals)


def _clock(monkeypatch, start=100.0):
    """The progress module's clock, set by hand: ``now[0]``."""
    now = [start]
    monkeypatch.setattr(progress, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    return now


# -- the progress line --------------------------------------------------------

def test_progress_off_a_terminal_is_a_line_after_10_s_then_every_15_s(monkeypatch, capsys):
    now = _clock(monkeypatch)
    monkeypatch.setattr(progress, "resident", lambda pids=(): 3 << 30)
    p = Progress(None)  # stderr is captured: not a terminal
    for t, states in ((2.0, 100), (9.9, 900)):
        now[0] = 100 + t
        p.tick(states, 50, 4)
    assert capsys.readouterr().err == ""  # a short search says nothing
    now[0] = 110.0
    p.tick(25_000, 1_234, 7)
    now[0] = 124.0
    p.tick(30_000, 1_000, 8)  # 14 s after the first line: not yet
    now[0] = 125.0
    p.tick(40_000, 900, 9)
    p.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["rrcheck: 25,000 states (2,500/s), queue 1,234, depth 7, 0:00:10 elapsed, 3.0 GiB resident",
                     "rrcheck: 40,000 states (1,600/s), queue 900, depth 9, 0:00:25 elapsed, 3.0 GiB resident"]


def test_progress_line_names_the_memory_limit_it_is_held_to(monkeypatch, capsys):
    now = _clock(monkeypatch)
    monkeypatch.setattr(progress, "resident", lambda pids=(): 3 << 30)
    p = Progress(None, limit=progress.MemoryGuard(20 << 30).limit)
    now[0] = 110.0
    p.tick(25_000, 1_234, 7)
    assert capsys.readouterr().err.endswith("3.0 GiB resident of 20.0 GiB allowed\n")


def test_no_progress_is_silent_off_a_terminal_too(monkeypatch, capsys):
    now = _clock(monkeypatch)
    p = Progress(False)
    now[0] = 200.0
    p.tick(1, 1, 1)
    p.close()
    assert capsys.readouterr().err == ""


def test_progress_on_a_terminal_is_one_live_line_with_the_elapsed_time(monkeypatch, capsys):
    now = _clock(monkeypatch)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    p = Progress(None)
    now[0] = 100 + 3725.0
    p.tick(1_000_000, 20_000, 23)
    p.close()
    err = capsys.readouterr().err
    line = err.split("\r")[1]
    assert "\n" not in err and len(line) < 80
    assert line.split() == ["1,000,000", "states", "268", "states/s", "queue", "20,000", "depth", "23", "1:02:05"]
    assert err.endswith("\r" + " " * len(line) + "\r")  # cleared


def test_resident_memory_counts_this_process_and_its_workers():
    import os
    me = progress.resident()
    assert me > 1 << 20
    assert progress.resident([os.getpid()]) == pytest.approx(2 * me, rel=0.05)
    assert progress.resident([2 ** 22 + 12345]) == pytest.approx(me, rel=0.05)  # a pid that is gone counts 0


@pytest.mark.parametrize("strategy", ["bfs", "dfs"])
def test_progress_shows_the_deepest_level_reached_not_the_current_one(monkeypatch, strategy):
    from rrcheck.checker.explicit import explore as E
    shown = []

    class Recording(Progress):
        def tick(self, states, queue, depth):
            shown.append(depth)

    monkeypatch.setattr(E, "Progress", Recording)
    monkeypatch.setattr(E, "LOOK_EVERY", 1)  # a look after every state
    r = explore(*_system(), strategy=strategy, progress=False)
    assert r.verdict == "pass" and shown == sorted(shown) and shown[-1] == r.depth


# -- the memory guard ---------------------------------------------------------

@pytest.mark.parametrize("kw,advice", [({}, "use --fingerprints or --workers to store less per state"),
                                       ({"strategy": "dfs"}, "--fingerprints"),
                                       ({"workers": 2}, "--mpi --hostfile"),
                                       ({"fingerprints": True}, "--mpi --hostfile"),
                                       ({"strategy": "random"}, "--memory-limit")])
def test_memory_guard_stops_the_search_incomplete_and_says_what_it_explored(kw, advice):
    r = explore(*_system(), progress=False, memory_limit=1, **kw)
    assert r.verdict == "incomplete" and r.violation is None
    m = re.fullmatch(r"memory limit 1 B reached after ([\d,]+) states \(depth (\d+), [\d.,]+ s\); (.*)", r.reason)
    assert m, r.reason
    assert int(m[1].replace(",", "")) == r.states and int(m[2]) == r.depth and r.states < 1_247
    assert advice in m[3] and "--memory-limit to raise it" in m[3]


@pytest.mark.parametrize("workers", [1, 2])
def test_memory_guard_by_default_lets_a_small_search_finish(workers):
    assert progress.default_memory_limit() > 1 << 20
    r = explore(*_system(), progress=False, workers=workers)
    assert r.verdict == "pass" and r.states == 1_247 and not r.reason


def test_memory_guard_reads_the_memory_at_most_once_a_second(monkeypatch):
    now = _clock(monkeypatch)
    reads = []
    monkeypatch.setattr(progress, "resident", lambda pids=(): reads.append(now[0]) or 10 << 20)
    guard = progress.MemoryGuard(5 << 20)
    assert guard.over() and guard.over() and reads == [100.0]  # once over, over for good
    guard = progress.MemoryGuard(20 << 20)
    for t in (0.0, 0.5, 0.99, 1.0, 1.5, 2.25):
        now[0] = 100 + t
        assert not guard.over()
    assert reads == [100.0, 100.0, 101.0, 102.25]


def test_a_halted_worker_leaves_its_generation_unfinished():
    """The coordinator's flag, raised when memory is short, stops a worker
    between two states, as the time limit's deadline does."""
    system, judge = _system()
    for flag, cut in ((0, False), (1, True)):
        w = parallel._Worker(0, 1, system, judge, [None], True, ctypes.c_byte(flag))
        w.init()
        assert w._successors([(0, system.initial(), 0)], None) is None
        assert w.cut_short is cut and bool(w.cand) is not cut


class _BusyWorker:
    """The pipes to one worker that never ends a generation on its own, until
    the coordinator raises the halt flag: then it says it was cut short."""

    def __init__(self, halt):
        self.halt, self.asked, self.waits = halt, None, 0

    def __len__(self):
        return 1

    def __getitem__(self, i):
        return self

    def send(self, msg):
        self.asked = msg

    def arrivals(self, waiting):
        if self.asked[0] == "expand" and not self.halt.value:
            self.waits += 1
            assert self.waits < 5, "the coordinator waits on and never raises the halt flag"
            return []  # nothing yet: the coordinator's second goes by
        if self.asked[0] == "witnesses":
            return [(0, ("ok", ({}, set())))]
        return [(0, ("ok", {"violation": None, "new": 1, "keys": array("q", [0]), "transitions": 2, "depth": 1,
                            "depth_bound": False, "cut_short": bool(self.halt.value), "cost": 1e-5}))]


def test_memory_guard_stops_the_workers_inside_a_generation(monkeypatch):
    """The coordinator reads the workers' memory while they expand a generation,
    not only between two, and has them cut it short."""
    readings = iter([10 << 20, 30 << 20])  # under the limit after the initial state, over while expanding
    monkeypatch.setattr(progress, "resident", lambda pids=(): next(readings))
    monkeypatch.setattr(progress, "MEMORY_EVERY", 0.0)
    halt = ctypes.c_byte(0)
    system, _ = _system()
    r = parallel._coordinate(system, _BusyWorker(halt), time.perf_counter(), None, None, Progress(False), "bfs",
                             progress.MemoryGuard(20 << 20, [1]), halt)
    assert halt.value == 1 and r.verdict == "incomplete" and (r.states, r.depth) == (2, 1)
    assert r.reason.startswith("memory limit 20 MiB reached after 2 states (depth 1, ")


# -- what a stopped search had explored ---------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_state_bound_reason_says_the_states_depth_and_time(workers):
    r = explore(*_system(), progress=False, max_states=300, workers=workers)
    m = re.fullmatch(r"state bound 300 reached after ([\d,]+) states \(depth (\d+), ([\d.,]+) s\)", r.reason)
    assert r.verdict == "incomplete" and m, r.reason
    assert int(m[1]) == r.states >= 300 and int(m[2]) == r.depth > 0


def test_time_limit_reason_says_the_states_depth_and_time():
    r = explore(*_system(), progress=False, time_limit=1e-9)
    m = re.fullmatch(r"time limit 1e-09 s reached after ([\d,]+) states \(depth (\d+), ([\d.,]+) s\)", r.reason)
    assert r.verdict == "incomplete" and m, r.reason
    assert int(m[1]) == r.states and int(m[2]) == r.depth


def _interrupted(search):
    """What ``search``, interrupted, had explored (a bare KeyboardInterrupt would
    end the test session: it fails the test instead)."""
    try:
        search()
    except KeyboardInterrupt as e:
        assert isinstance(e, Interrupted), "the interrupt carries no result"
        return e.result
    raise AssertionError("the search was not interrupted")


def test_an_interrupted_search_holds_what_it_explored():
    system, judge = _system()
    step, calls = system.step, [0]

    def step_then_ctrl_c(s, a):
        calls[0] += 1
        if calls[0] > 500:
            raise KeyboardInterrupt
        return step(s, a)

    system.step = step_then_ctrl_c
    r = _interrupted(lambda: explore(system, judge, progress=False))
    assert r.verdict == "incomplete" and 100 < r.states < 1_247
    assert re.fullmatch(rf"interrupted after {r.states:,} states \(depth {r.depth}, [\d.,]+ s\)", r.reason)


def test_an_interrupted_parallel_search_holds_what_it_explored(monkeypatch):
    ask, expands = parallel._ask, [0]

    def ask_then_ctrl_c(conns, msg, *a, **kw):
        if msg[0] == "expand":
            expands[0] += 1
            if expands[0] == 6:
                raise KeyboardInterrupt
        return ask(conns, msg, *a, **kw)

    monkeypatch.setattr(parallel, "_ask", ask_then_ctrl_c)
    r = _interrupted(lambda: explore(*_system(), progress=False, workers=2))
    assert r.verdict == "incomplete" and r.states > 5 and r.depth == 5
    assert r.reason.startswith(f"interrupted after {r.states:,} states (depth 5, ")


# -- TLC's progress, relayed --------------------------------------------------

TLC_OUT = """@!@!@STARTMSG 2190:0 @!@!@
Finished computing initial states: 1 distinct state generated at 2026-11-28 01:27:32.
@!@!@ENDMSG 2190 @!@!@
@!@!@STARTMSG 2200:0 @!@!@
Progress(12) at 2026-11-28 01:28:32: 4,326 states generated (70,744 s/min), 2,198 distinct states found (35,944 ds/min), 7 states left on queue.
@!@!@ENDMSG 2200 @!@!@
"""


def test_tlc_progress_lines_are_relayed_and_kept(capsys):
    kept: list = []
    tla_run._read(io.StringIO(TLC_OUT), kept, True)
    assert "".join(kept) == TLC_OUT and tla_run._explored(TLC_OUT) == (2_198, 4_326, 11)
    err = capsys.readouterr().err.splitlines()
    assert err == ["  tlc: Finished computing initial states: 1 distinct state generated at 2026-11-28 01:27:32.",
                   ("  tlc: Progress(12) at 2026-11-28 01:28:32: 4,326 states generated (70,744 s/min), 2,198 "
                    "distinct states found (35,944 ds/min), 7 states left on queue.")]


def test_tlc_progress_is_relayed_as_it_comes_and_the_timeout_kills_it(tmp_path, capfd):
    """A stand-in for TLC that prints its progress and then hangs: the line is on
    stderr before the wall-clock timeout ends it, and its output is kept."""
    script = f"import sys, time; sys.stdout.write({TLC_OUT!r}); sys.stdout.flush(); time.sleep(60)"
    t0 = time.perf_counter()
    proc, finished = tla_run._tlc([sys.executable, "-c", script], tmp_path, 2.0, True)
    assert not finished and time.perf_counter() - t0 < 10 and proc.stdout == TLC_OUT
    assert capfd.readouterr().err.count("  tlc: ") == 2
