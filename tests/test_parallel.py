"""The BFS on several worker processes is the BFS on one: same verdict, property,
states, transitions, depth, counterexample (and a pass's witnesses)."""
import multiprocessing
import os
import subprocess
import sys
import time

import pytest

from rrcheck.checker.explicit.check import default_plan, run_check
from rrcheck.checker.model.classify import failure_free
from rrcheck.checker.invariants import Judge
from rrcheck.checker.explicit.parallel import _balance, explore_parallel
from rrcheck.checker.model.scenarios import DEFAULTS, THEOREM2_NODE, TWO_BY_TWO, make_system, scenario_for_mutant

# default scenarios above ~25,000 reduced states: the whole catalogue runs under -m slow
LARGE = {("correlated-set", TWO_BY_TWO.label()), ("correlated-set", THEOREM2_NODE.label()), ("sbml", "ring n=2/2nodes f=1 c=1"),
         ("hmpl", "wildcard_race n=3/3nodes f=1 c=0 process"), ("hmpl", "ring n=2/2nodes f=1 c=1"),
         ("rbml", "master_worker n=2/2nodes f=1 c=1 process"), ("send-deterministic", "sd_ack n=3/2nodes f=1 c=1 process"),
         ("hmpl", "fig46 n=4/4nodes f=1 c=0 process")}


def _plan():
    for p, m, sc in default_plan():
        big = m is None and (p, sc.label()) in LARGE
        yield pytest.param(p, m, sc, id=f"{m or p}:{sc.label()}", marks=[pytest.mark.slow if big else pytest.mark.sweep])


def _fingerprint(r):
    return (r.verdict, r.violation.property if r.violation else None, r.states, r.transitions, r.depth,
            r.trace, r.reason)


@pytest.mark.parametrize("protocol,mutant,sc", list(_plan()))
def test_invariants_parallel_search_equals_one_worker(protocol, mutant, sc):
    one = run_check(protocol, sc, mutant, progress=False).result
    two = run_check(protocol, sc, mutant, progress=False, workers=2).result
    assert _fingerprint(two) == _fingerprint(one)
    if one.verdict == "pass":
        assert two.witnesses == one.witnesses


def test_parallel_three_workers_and_no_reduce():
    sc = DEFAULTS["hmpl"][0]
    one = run_check("hmpl", sc, progress=False, reduce=False).result
    three = run_check("hmpl", sc, progress=False, reduce=False, workers=3).result
    assert _fingerprint(three) == _fingerprint(one) and three.witnesses == one.witnesses


@pytest.mark.parametrize("mutant", [None, "hmpl/no-wildcard-block"])
def test_fingerprint_search_on_one_worker_equals_the_exact_one(mutant):
    sc = DEFAULTS["hmpl"][0] if mutant is None else scenario_for_mutant(mutant)
    exact = run_check("hmpl", sc, mutant, progress=False).result
    fp = run_check("hmpl", sc, mutant, progress=False, fingerprints=True).result
    assert _fingerprint(fp) == _fingerprint(exact) and exact.collision_probability is None
    assert 0 < fp.collision_probability < 1e-9


def test_parallel_depth_and_state_bounds_are_reported_incomplete():
    sc = DEFAULTS["sbml"][1]
    r = run_check("sbml", sc, progress=False, workers=2, max_states=300).result
    assert r.verdict == "incomplete" and "state bound" in r.reason and r.states >= 300


def test_parallel_time_limit_stops_inside_a_generation():
    sc = TWO_BY_TWO  # 222,949 states, about 15 s on two workers
    r = run_check("correlated-set", sc, progress=False, workers=2, time_limit=1.0).result
    assert r.verdict == "incomplete" and "time limit" in r.reason and r.seconds < 6


def test_parallel_time_limit_met_before_any_state_is_incomplete_not_pass(monkeypatch):
    """A loaded machine can pass the deadline before a worker expands one state
    of a generation: nothing new then means cut short, not the end of the search."""
    import types
    from rrcheck.checker.explicit import parallel
    here = os.getpid()
    late = types.SimpleNamespace(time=lambda: time.time() + (0 if os.getpid() == here else 3600),
                                 perf_counter=time.perf_counter, thread_time=time.thread_time)
    monkeypatch.setattr(parallel, "time", late)  # the forked workers' clocks are an hour on
    r = run_check("hmpl", DEFAULTS["hmpl"][0], progress=False, workers=2, time_limit=600).result
    assert r.verdict == "incomplete" and "time limit" in r.reason


def test_a_fingerprint_collision_is_one_line_and_no_verdict(monkeypatch, tmp_path, capsys):
    from rrcheck.checker.explicit import parallel
    from rrcheck.cli import main

    def collide(system, conns, base, reduce):
        raise parallel.FingerprintCollision(f"the path to fingerprint {base:#x} replays to another state")
    monkeypatch.setattr(parallel, "_path", collide)
    argv = ["check", "--mutant", "hmpl/no-wildcard-block", "--workers", "2", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "fingerprint" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # no counterexample written


def test_parallel_worker_error_reaches_the_caller_and_leaves_no_process():
    system, workload = make_system("coordinated", DEFAULTS["coordinated"][0])
    step = system.step
    calls = [0]

    def failing(s, a):
        calls[0] += 1
        if calls[0] > 200:
            raise RuntimeError("a protocol handler failed")
        return step(s, a)

    system.step = failing
    with pytest.raises(RuntimeError, match="handler failed"):
        explore_parallel(system, Judge(system, None, failure_free(workload).finals), 2)
    assert not multiprocessing.active_children()


@pytest.mark.parametrize("protocol,mutant", [("hmpl", None), ("hmpl", "hmpl/no-wildcard-block"),
                                             ("sbml", "sbml/no-event-logging"),
                                             ("send-deterministic", "send-deterministic/lost-on-rollback")])
def test_parallel_given_states_keep_the_one_worker_order(monkeypatch, protocol, mutant):
    """Every generation, each worker gives a third of its states to the next one:
    they are expanded after the receiver's own, yet the parents, the first
    violation and the cut counts are those of one worker."""
    from rrcheck.checker.explicit import parallel

    monkeypatch.setattr(parallel, "_balance", lambda counts, costs: [{(w + 1) % len(counts): c // 3} if c >= 3 else {}
                                                                     for w, c in enumerate(counts)])
    sc = DEFAULTS[protocol][0] if mutant is None else scenario_for_mutant(mutant)
    one = run_check(protocol, sc, mutant, progress=False).result
    two = run_check(protocol, sc, mutant, progress=False, workers=2).result
    assert _fingerprint(two) == _fingerprint(one)
    if mutant is None:
        assert two.witnesses == one.witnesses


def test_balance_moves_only_the_surplus():
    assert _balance([1000, 1000]) == [{}, {}]
    assert _balance([1000, 0]) == [{1: 500}, {}]
    give = _balance([900, 100, 0, 200])
    assert sum(sum(g.values()) for g in give) == 900 - 300
    assert all(not g for g in give[1:])


def test_balance_evens_the_work_not_the_count():
    """A worker whose states cost twice as much gives a quarter of them (1000 at
    2 against 1000 at 1: 750 at 2 against 1000 at 1 + 250 at 2); a worker that
    expanded nothing is taken at the others' cost."""
    assert _balance([1000, 1000], [2e-5, 1e-5]) == [{1: 250}, {}]
    assert _balance([1000, 1000], [1e-5, 1e-5]) == [{}, {}]
    assert _balance([1000, 0], [1e-5, 0.0]) == [{1: 500}, {}]


@pytest.mark.parametrize("argv,needle", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--workers", "2", "--strategy", "dfs"], "--workers, --fingerprints and --mpi run a breadth-first search"),
    (["--fingerprints", "--strategy", "random"], "--workers, --fingerprints and --mpi run a breadth-first search"),
    (["--checkpoint", "/proc/ck", "--workers", "2"], "--checkpoint /proc/ck: cannot write there"),
])
def test_parallel_bad_options_are_one_line(argv, needle):
    """Refused before any work: nothing on standard output, one line on standard error."""
    p = subprocess.run([sys.executable, "-m", "rrcheck", "check", "coordinated", *argv],
                       capture_output=True, text=True)
    assert p.returncode == 2 and needle in p.stderr and "Traceback" not in p.stderr
    assert p.stdout == "" and len(p.stderr.splitlines()) == 1


def _crash_after_states_with_another_middle_parent(system, limit=3):
    """States the reductions reach by a crash right after an action whose
    intermediate state was discovered first from another parent (so their
    path is that state's own, then the crash), as the one-process BFS meets them."""
    from collections import deque
    from rrcheck.checker.model.system import CRASHES
    init = system.initial()
    parent, queue, out = {init: None}, deque([init]), []
    while queue and len(out) < limit:
        s = queue.popleft()
        for a in system.reduce(s, system.actions(s)):
            s2 = system.step(s, a)[0]
            if s2 not in parent:
                parent[s2] = (s, a)
                queue.append(s2)
            if a[0] not in CRASHES:
                for c in system.crashes_after(s, a, s2):
                    s3 = system.step(s2, c)[0]
                    if s3 not in parent:
                        parent[s3] = (s2, c)
                        queue.append(s3)
                        if parent[s2][0] != s:
                            out.append(s3)
    return out


class _Flags:
    """A judge that also reports reaching one chosen state."""

    def __init__(self, judge, target):
        self.judge, self.target = judge, target

    def __getattr__(self, name):
        return getattr(self.judge, name)

    def state(self, s):
        from rrcheck.checker.invariants.general import Violation
        return Violation("Target", "the chosen state") if s == self.target else self.judge.state(s)


def test_fingerprint_counterexample_through_a_crash_after_an_action_is_the_exact_one():
    """The trace file gives a state reached by a crash after an action the path
    the one-process search gives it: the intermediate state's own path, then the crash."""
    from rrcheck.checker.explicit.explore import explore
    from rrcheck.checker.invariants.general import properties_for
    sc = next(sc for sc in DEFAULTS["coordinated"] if sc.label() == "ring n=2/2nodes f=1 c=1")
    system, workload = make_system("coordinated", sc)
    targets = _crash_after_states_with_another_middle_parent(system)
    assert targets
    for target in targets:
        runs = []
        for fingerprints in (False, True):
            judge = _Flags(Judge(system, properties_for(system, "coordinated", None), failure_free(workload).finals),
                           target)
            runs.append(explore(system, judge, progress=False, fingerprints=fingerprints))
        exact, fp = runs
        assert exact.violation.property == "Target" and _fingerprint(fp) == _fingerprint(exact)
