"""RecoveryBound and the restart vectors of the protocols whose survivors roll back
(docs/findings.md §4; protocols/restarts.py).

A node crash takes P0 and P1 of a ring of three; both restart and tell everyone. Whatever
order their rollbacks reach P2 in, P2 rolls back once per victim and ends in the same epoch;
a rollback that names only restarts P2 has recovered from is dropped. The first reading
(mutant ``coordinated/stale-rollback-is-a-failure``) rolls back a third time, and
RecoveryBound says so. Correlated-set and app-level, which read epochs the same way,
are held to the same on a node crash that takes all three processes of one node."""
from __future__ import annotations

import random

import pytest

from rrcheck.checker.explicit.explore import explore
from rrcheck.checker.invariants import Judge
from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS, Scenario, make_system
from rrcheck.checker.model.system import System
from rrcheck.checker.model.workloads import make
from rrcheck.protocols.coordinated import BlockingCoordinated

NODE = Scenario("ring", 3, 2, checkpoints=0, crash_kinds=("node",))


def run(system, actions):
    """Take ``actions`` from the initial state, judging each step; the final
    state, P2's rollbacks and the first violation (or None)."""
    judge = Judge(system)
    s = system.initial()
    rollbacks, violation = 0, None
    for a in actions:
        assert a in system.actions(s), a
        s2, obs = system.step(s, a)
        rollbacks += sum(1 for o in obs if o[0] == "restore" and o[1] == 2)
        violation = violation or judge.transition(s, a, s2, obs)
        s = s2
    return s, rollbacks, violation


RESTARTS = [("crash_node", 0), ("restart", 0), ("restart", 1)]


@pytest.mark.parametrize("first", [0, 1])
def test_invariants_two_victims_make_a_survivor_roll_back_once_each(first):
    system, _ = make_system("coordinated", NODE)
    other = 1 - first
    s, rollbacks, v = run(system, RESTARTS + [("deliver", first, 2, 0), ("deliver", other, 2, 0)])
    assert v is None
    assert rollbacks == 2
    assert s.procs[2].stab.epoch == (1, 1, 0)  # the join, whichever order
    # P0 joins both restarts and tells P2 too: whichever arrives last at P2 names nothing new
    order = [("deliver", 0, 2, 0), ("deliver", 0, 2, 0), ("deliver", 1, 2, 0)]
    s, rollbacks, v = run(system, RESTARTS + [("deliver", 1, 0, 0)] + (order if first == 0 else order[::-1]))
    assert v is None and rollbacks == 2
    assert s.procs[2].stab.epoch == (1, 1, 0)


def test_invariants_stale_rollback_taken_for_a_failure_breaks_recovery_bound():
    system, _ = make_system("coordinated", MUTANT_SCENARIOS["coordinated/stale-rollback-is-a-failure"],
                            "coordinated/stale-rollback-is-a-failure")
    # P0 joins both restarts and tells P2; P1's own rollback reaches P2 after that join
    _, _, v = run(system, RESTARTS + [("deliver", 1, 0, 0), ("deliver", 0, 2, 0),
                                              ("deliver", 0, 2, 0), ("deliver", 1, 2, 0)])
    assert v is not None and v.property == "RecoveryBound"
    assert v.values == {"process": 2, "restarts_heard": 3, "restarts_possible": 2}


class CountsNothing(BlockingCoordinated):
    """A protocol whose survivors roll back without their count saying why."""

    def restarts_heard(self, ctx, p, stab):
        return 0


def test_invariants_recovery_bound_wants_each_survivor_rollback_counted():
    w = make("ring", 2, 2)
    system = System(CountsNothing(), w, Scenario("ring", 2, 2).bounds())
    r = explore(system, Judge(system))
    assert r.verdict == "violation" and r.violation.property == "RecoveryBound"
    assert "no restart it had not heard of" in r.violation.message
    # the correct count passes the same scenario, and its witness shows the bound was exercised
    system = System(BlockingCoordinated(), w, Scenario("ring", 2, 2).bounds())
    r = explore(system, Judge(system))
    assert r.verdict == "pass"
    assert r.witnesses["rollbacks_for_a_restart_heard"] > 0 and r.witnesses["restart_rollbacks"] > 0


THREE_ON_ONE_NODE = {"correlated-set": Scenario("pingpong", 3, 1, checkpoints=0, crash_kinds=("node",)),
                     "app-level": Scenario("ring", 3, 1, checkpoints=0, crash_kinds=("node",))}


def _rollback_deliveries(system, s):
    n = system.n
    return [a for a in system.actions(s)
            if a[0] == "deliver" and s.wire[a[1] * n + a[2]][a[3]].kind == "rollback"]


@pytest.mark.parametrize("protocol", ["correlated-set", "app-level"])
@pytest.mark.parametrize("seed", range(6))
def test_invariants_three_victims_heard_in_any_order_roll_each_back_once(protocol, seed):
    """All three restart; their notices, delivered in a random order, leave every process
    in the join of the three restarts, having rolled back once per other victim."""
    system, _ = make_system(protocol, THREE_ON_ONE_NODE[protocol])
    judge, rng = Judge(system), random.Random(seed)
    s = system.initial()
    rollbacks = [0] * 3
    for a in [("crash_node", 0), ("restart", 0), ("restart", 1), ("restart", 2)]:
        s, _ = system.step(s, a)
    while (todo := _rollback_deliveries(system, s)):
        a = rng.choice(todo)
        s2, obs = system.step(s, a)
        assert judge.transition(s, a, s2, obs) is None
        for o in obs:
            if o[0] == "restore":
                rollbacks[o[1]] += 1
        s = s2
    proto, ctx = system.protocol, system.ctx
    assert [proto.restarts_heard(ctx, p, s.procs[p].stab) for p in range(3)] == [3, 3, 3]
    assert all(r <= 2 for r in rollbacks) and sum(rollbacks) > 0


@pytest.mark.parametrize("protocol", ["correlated-set", "app-level"])
def test_invariants_stale_rollback_taken_for_a_failure_breaks_recovery_bound_too(protocol):
    name = f"{protocol}/stale-rollback-is-a-failure"
    assert MUTANT_SCENARIOS[name] == THREE_ON_ONE_NODE[protocol]
    system, _ = make_system(protocol, THREE_ON_ONE_NODE[protocol], name)
    r = explore(system, Judge(system))
    assert r.verdict == "violation" and r.violation.property == "RecoveryBound"
