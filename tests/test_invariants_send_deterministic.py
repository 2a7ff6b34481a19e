"""The send-deterministic hierarchical protocol (Guermouche and Ropars 2011 §3, Fig. 5 and 6):
its phases on the paper's Fig. 2, its default scenarios with the witnesses
that make them non-vacuous, its own properties, and its refusal of workloads
that are not send-deterministic."""
from dataclasses import replace

import pytest

from rrcheck.checker.model import workloads as W
from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.classify import failure_free
from rrcheck.cli import main
from rrcheck.errors import UsageError
from rrcheck.checker.explicit.explore import explore
from rrcheck.checker.model.system import CRASHES
from rrcheck.checker.invariants import Judge
from rrcheck.checker.invariants.send_deterministic import restart_terminal
from rrcheck.checker.model.system import Bounds, System
from rrcheck.checker.model.scenarios import DEFAULTS, MUTANT_SCENARIOS, Scenario
from rrcheck.protocols.mutants import MUTANTS
from rrcheck.protocols.send_deterministic import SendDeterministic

SD = "send-deterministic"


def _scenario(workload: str) -> Scenario:
    return next(sc for sc in DEFAULTS[SD] if sc.workload == workload)


def _failure_free_run(workload: W.Workload):
    """One failure-free run of the protocol, first enabled action first: the
    phase of each application message as it arrives, and the final state."""
    system = System(SendDeterministic(), workload, Bounds(failures=0, checkpoints=0))
    s, phases = system.initial(), {}
    while True:
        acts = [a for a in system.actions(s) if a[0] not in CRASHES]
        if not acts:
            return system, s, phases
        a = acts[0]
        if a[0] == "deliver":
            pk = s.wire[a[1] * system.n + a[2]][a[3]]
            if pk.kind == "app":
                phases[workload.labels[pk.msg.gid]] = pk.hdr[1]
        s, _ = system.step(s, a)


def test_invariants_send_deterministic_fig2_phases_of_section_3_2():
    """§3.2: p3 and p1 go to phase 2 (m1 from the other group, then m2), p4
    to 3 on m3, p5 and p7 to 3 on m4 and m5, and m7 carries phase 3."""
    wl = W.make("sd_fig2")
    system, s, phases = _failure_free_run(wl)
    assert all(system.finished(s, p) for p in range(wl.n))
    assert phases == {"m1": 1, "m2": 2, "m3": 2, "m4": 3, "m5": 3, "m6": 1, "m7": 3, "m8": 4}
    phase = [pr.vol.Phase for pr in s.procs]
    assert phase[2] == 2                                   # p3
    assert phase[3] == phase[4] == phase[6] == 3           # p4, p5, p7
    assert phase[5] == 1                                   # p6 never hears from the other group
    assert phase[0] == phase[1] == 4                       # p1 after m8 (m2 took it to 2)
    # m1, m7 are logged by their senders (to the other group), m3 too; m2, m8 are not
    logged = {wl.labels[m.gid] for pr in s.procs for *_, m in pr.vol.Enregistres}
    assert logged == {"m1", "m3", "m7"}


def test_invariants_send_deterministic_fig2_is_send_deterministic():
    ff = failure_free(W.make("sd_fig2"))
    assert ff.observed == W.SEND_DETERMINISTIC
    assert ff.distinct_reception_orders > 1 and ff.distinct_send_sequences == 1


def test_invariants_send_deterministic_two_groups_orphan_held_replay(checked):
    """Fig. 2's core (sd_phases), node and process crashes: the failed group
    rolls back whole, the other group re-sends its logged messages and reports
    the orphan m3, and m7 (phase 3) is held until m3 is received again."""
    sc = _scenario("sd_phases")
    r = checked(SD, sc).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["node_crashes"] > 0 and w["survivor_rollbacks"] > 0
    assert w["phase_raised_by_other_group"] > 0 and w["orphan_phases_reported"] > 0
    assert w["orphans_rereceived"] > 0 and w["replays_held_for_orphans"] > 0
    assert w["logged_messages_resent"] > 0 and w["replayed_messages"] > 0
    assert w["causal_deliveries_checked_after_failure"] > 0
    assert w["restarts_ended"] > 0 and w["terminal_states_every_restart_ended"] > 0
    assert w["equivalent_terminals_after_failure"] == w["terminal_states_after_failure"] > 0


def test_invariants_send_deterministic_checkpoint_ack_and_restart_buffer(checked):
    """sd_burst: a checkpoint, the first message after it acknowledged and the
    older logged ones collected (lines 29–31, 40–42); a message to a
    restarting group buffered and flushed at the end of its restart (15–16, 60–64)."""
    r = checked(SD, _scenario("sd_burst")).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["checkpoints"] > 0 and w["acks_sent"] > 0 and w["logged_messages_collected"] > 0
    assert w["messages_buffered_during_restart"] > 0 and w["buffered_messages_flushed"] > 0
    assert w["stale_dropped"] > 0  # sent before the sender heard of the restart: re-sent from the log


def test_invariants_send_deterministic_group_checkpoint_wave(checked):
    """A coordinated checkpoint inside a group of two (§3.1) with node crashes:
    Theorem 1 holds on its recovery lines."""
    r = checked(SD, _scenario("ring")).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["checkpoints"] > 0 and w["theorem1_internal_messages"] > 0 and w["node_crashes"] > 0


def test_invariants_send_deterministic_causal_order_alone_catches_no_phases(checked):
    name = "send-deterministic/no-phases"
    r = checked(SD, MUTANT_SCENARIOS[name], name, properties=("CausalReplayOrder",)).result
    assert r.verdict == "violation" and r.violation.property == "CausalReplayOrder"
    assert r.violation.values["depends_on"] == 0  # m7 needs P0's m3


def test_invariants_send_deterministic_causal_order_judged_from_the_step_alone():
    """The causal past travels with the message (checker/model/ghost.py), so a judge
    that sees only the violating step (a parallel worker, a resumed search) still
    catches it: a memo of the sends its own judge had seen skipped such steps."""
    from rrcheck.checker.traces.counterexample import load
    from rrcheck.checker.model.scenarios import system_for
    cx = load("counterexamples/send-deterministic__no-phases.json")
    system, _ = system_for(cx)
    s = system.initial()
    for ev in cx.events[:-1]:
        s, _ = system.step(s, tuple(ev))
    s2, obs = system.step(s, tuple(cx.events[-1]))
    v = Judge(system, ("CausalReplayOrder",)).transition(s, tuple(cx.events[-1]), s2, obs)
    assert v is not None and v.property == "CausalReplayOrder" and v.values == cx.violation.values


def test_invariants_send_deterministic_fig2_random_walks():
    """Fig. 2 itself is beyond exhaustive search; random walks: the protocol
    holds m7 until m3 is re-received and passes, the mutant without phases
    delivers m7 before P2 re-sent m3."""
    sc = Scenario("sd_fig2", checkpoints=0, crash_kinds=("process",))
    from rrcheck.checker.model.scenarios import make_system
    system, wl = make_system(SD, sc)
    judge = Judge(system, None, failure_free(wl).finals)
    r = explore(system, judge, "random", seed=3, walks=150)
    assert r.violation is None
    assert r.witnesses["restarts_ended"] > 0 and r.witnesses["terminal_states_after_failure"] > 0
    name = "send-deterministic/no-phases"
    c = run_check(SD, sc, name, strategy="random", seed=21)
    assert c.result.violation is not None and c.result.violation.property == "CausalReplayOrder"
    assert wl.labels[(c.result.violation.values["sender"], c.result.violation.values["receiver"], 0)] == "m7"


def test_invariants_send_deterministic_restart_termination_can_fail():
    """RestartTermination flags a run that ends while a process still counts a
    group as restarting and buffers a message for it."""
    system, s, _ = _failure_free_run(W.make("sd_burst"))
    judge = Judge(system)
    assert restart_terminal(judge, s) is None
    pr = s.procs[0]
    stuck = replace(pr.vol, Redemarrage=frozenset({1}), PasEnvoyes=((1, 5, 1, None),))
    s2 = replace(s, procs=(pr.but(vol=stuck),) + s.procs[1:])
    v = restart_terminal(judge, s2)
    assert v is not None and v.property == "RestartTermination" and v.values["buffered"] == 1


def test_invariants_send_deterministic_refuses_non_send_deterministic(capsys):
    with pytest.raises(UsageError, match="send-deterministic"):
        run_check(SD, Scenario("any_source_race", 3, 2, checkpoints=0))
    assert main(["check", SD, "--workload", "any_source_race", "--procs", "3", "--nodes", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--anyway" in err
    # asked to check it anyway, it finds the orphan send-determinism would have prevented
    c = run_check(SD, Scenario("any_source_race", 3, 2, checkpoints=0, crash_kinds=("process",)), anyway=True)
    assert c.result.verdict == "violation"
    assert c.result.violation.property in MUTANTS["send-deterministic/not-send-deterministic"].catches


def test_invariants_send_deterministic_accepts_send_deterministic_reduce(checked):
    """reduce: ANY_SOURCE receptions in any order, a commutative sum, then the
    same sends: send-deterministic, not deterministic, so the protocol applies."""
    sc = _scenario("reduce")
    assert failure_free(W.make("reduce", sc.procs, sc.nodes)).observed == W.SEND_DETERMINISTIC
    r = checked(SD, sc).result
    assert r.verdict == "pass", r.violation
    assert r.witnesses["orphans_rereceived"] > 0


def test_invariants_send_deterministic_two_groups_restart_at_once(checked):
    """Readings 13–15 (Guermouche and Ropars 2011 §2.1: several faults at once;
    §3.2: a restart process per group): P1's restart message to P0 is lost
    when P0 crashes in turn. P0, restarting, hears of P1's restart and tells
    P1 of its own again; both restarts end. Without it (the mutant, on a ring
    of two groups of one), a restart process never hears from the process that
    lost its restart message and the run deadlocks."""
    sc = next(s for s in DEFAULTS[SD] if s.failures == 2)
    r = checked(SD, sc).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["replayed_messages"] > 0 and w["restarts_ended"] > 0 and w["messages_buffered_during_restart"] > 0
    # some run ends with both groups restarted, one crash each
    workload = W.make(sc.workload, sc.procs, sc.nodes)
    system = System(SendDeterministic(), workload, sc.bounds())
    seen, todo, both = {system.initial()}, [system.initial()], 0
    while todo:
        s = todo.pop()
        acts = system.actions(s)
        if all(a[0] in CRASHES for a in acts) and s.failures == 2:
            both += len({system.ctx.group_of[p] for p in s.failed}) == 2
        for a in acts:
            s2, _ = system.step(s, a)
            if s2 not in seen:
                seen.add(s2)
                todo.append(s2)
    assert both > 0
    m = "send-deterministic/second-restart-unanswered"
    bad = checked(SD, MUTANT_SCENARIOS[m], m).result
    assert bad.verdict == "violation" and bad.violation.property == "Termination"
    assert bad.violation.values["recovering"] or bad.violation.values["blocked_at"]


def test_invariants_send_deterministic_two_failures_with_a_group_checkpoint(checked):
    """Readings 16–18 (Guermouche and Ropars 2011 §2.1: several faults at once;
    §3.2: the buffer holds new messages; Fig. 5 lines 16, 37, 49–64): two groups
    of one, a checkpoint each, two crashes. What a crash or rollback loses of
    the other group's restart comes again (the buffer saved with the image, a
    restart's end told again, an orphan re-sent taken as re-received, a restart
    told again with the date its re-execution reached), and every restart ends,
    on the ring and on sd_burst; without it (the mutant) a message buffered
    before a checkpoint is lost with its sender's crash and a restart never ends."""
    ring = next(s for s in DEFAULTS[SD] if s.failures == 2 and s.checkpoints == 1)
    for sc in (ring, Scenario("sd_burst", failures=2, checkpoints=1, crash_kinds=("process",))):
        r = checked(SD, sc).result
        assert r.verdict == "pass", r.violation
        w = r.witnesses
        assert w["crashes"] > 0 and w["rollbacks_to_a_checkpoint"] > 0 and w["replayed_messages"] > 0
        assert w["messages_buffered_during_restart"] > 0 and w["restarts_ended"] > 0
    m = "send-deterministic/lost-on-rollback"
    bad = checked(SD, MUTANT_SCENARIOS[m], m).result
    assert bad.verdict == "violation" and bad.violation.property == "Termination"
    assert bad.violation.values["recovering"] or bad.violation.values["blocked_at"]


def test_invariants_send_deterministic_ack_names_the_committed_checkpoint(checked):
    """Reading 8 (Fig. 5 lines 29–31, 36–42): a message from the other group
    may arrive between a member's checkpoint and the commit; the next one's
    acknowledgement must not collect it. The mutant acknowledges up to the
    triggering message's date and loses m1."""
    sc = next(s for s in DEFAULTS["send-deterministic"] if s.workload == "sd_ack")
    r = checked("send-deterministic", sc).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["acks_sent"] > 0 and w["logged_messages_collected"] > 0 and w["rollbacks"] > 0
    bad = checked("send-deterministic", MUTANT_SCENARIOS["send-deterministic/ack-at-next-message"],
                  "send-deterministic/ack-at-next-message").result
    assert bad.verdict == "violation" and bad.violation.property == "NoLostMessage"


def test_invariants_send_deterministic_group_line_past_its_cause(checked):
    """Correction 19 (docs/findings.md, "A group's line past its cause";
    Guermouche and Ropars 2011 §2.2, §3.1): as published a member that has
    checkpointed may send out of its group before the commit, and a message
    that follows that send reaches a peer that has not checkpointed yet. On
    sd_path_back the group's line then holds m7 but not its cause o; x, sent
    from that line, reaches P1 ahead of y, P1 sends another o, and P2, which
    never rolled back, is an orphan: a harm every reader agrees on, not only
    CausalReplayOrder's early warning. Held until the commit, such a send
    leaves after every member's checkpoint, and both paths pass."""
    m = "send-deterministic/checkpoint-holds-a-message-past-its-cause"
    for sc in DEFAULTS[SD]:
        if sc.workload in ("sd_orphan_path", "sd_path_back"):
            r = checked(SD, sc).result
            assert r.verdict == "pass", r.violation
            assert r.witnesses["rollbacks_to_a_checkpoint"] > 0 and r.witnesses["orphan_situations"] > 0
    harm = Scenario("sd_path_back", crash_kinds=("process",))
    without_causal = tuple(p for p in MUTANTS[m].catches + ("NoLostMessage", "NoDuplicateDelivery",
                                                           "FailureFreeEquivalence", "Termination")
                           if p != "CausalReplayOrder")
    bad = checked(SD, harm, m, properties=without_causal).result
    assert bad.verdict == "violation" and bad.violation.property == "NoOrphan"
    assert "P2 is an orphan" in bad.violation.message
    early = checked(SD, MUTANT_SCENARIOS[m], m).result
    assert early.verdict == "violation" and early.violation.property == "CausalReplayOrder"


def test_invariants_send_deterministic_told_again_names_the_group():
    """Finding 3 (docs/findings.md), reading 20 (Guermouche and Ropars 2011 Fig. 5
    lines 15, 52): the recorded run (sd_phases f=2 c=1) where P0, still
    restarting, tells P2 of its restart again naming only itself, as the model
    first read it, now the mutant told-again-names-only-the-teller. Under the
    mutant the run replays to its CausalReplayOrder violation, m7 delivered to P1
    ahead of m3's re-execution. Under the correct protocol the same events part
    at the told-again message (event 14): P2 waits for P1 too, so its m7 to P1
    is buffered (line 16) and the run's delivery of m7 (event 18) is not enabled.
    (The mutant's own scenario, sd_told_again, is test_invariants_mutants's; the
    correct protocol's pass there is held under -m slow below.)"""
    from pathlib import Path
    from rrcheck.checker.model.scenarios import system_for
    from rrcheck.checker.traces import counterexample as T
    m = "send-deterministic/told-again-names-only-the-teller"
    path = Path(__file__).resolve().parents[1] / "counterexamples" / "findings"
    cx = T.load(path / "send-deterministic__told-again-names-only-the-teller.json")
    assert cx.mutant == m and cx.workload == "sd_phases" and cx.grouping == [0, 0, 1]
    rep = T.replay(cx)
    assert rep.violation.property == "CausalReplayOrder" and T.differences(cx.violation, rep.violation) is None
    assert rep.steps == len(cx.events) == 19
    correct = cx.model_copy(update={"mutant": None, "knobs": {}})
    with pytest.raises(UsageError, match="event 18"):
        T.replay(correct)
    for run, group in ((cx, False), (correct, True)):
        system, _ = system_for(run)
        s = system.initial()
        for i, ev in enumerate(run.events[:16], start=1):
            s, _ = system.step(s, tuple(ev))
            if i == 13:  # P2 restarted, group 1's restart messages lost with its crash
                assert s.procs[2].vol.waiting == frozenset()
        # told again by P0 (event 14), P2 awaits P0's whole group, or P0 alone; then sends m7 (event 16)
        vol = s.procs[2].vol
        assert vol.waiting == ({0, 1} if group else {0})
        assert [x[0] for x in vol.PasEnvoyes] == ([1] if group else [])


@pytest.mark.slow
def test_invariants_send_deterministic_two_failures_in_a_group_of_two(checked):
    """Finding 3 (docs/findings.md), readings 20–24: groups {P0, P1} and {P2},
    two failures, a group checkpoint, process crashes. On sd_orphan_path a
    member restored from its start and awaiting its line no longer answers P2's
    restart (reading 24), and the checkpoint its leader names gives it o to
    log again; every property holds (2.4 million states, a minute).
    sd_phases and sd_ack at f=2 c=1 pass too (5.5 and 7.4 million states,
    2–3 minutes and 3–4 GB each, measured in docs/findings.md §3). So does
    sd_told_again, where the mutant told-again-names-only-the-teller is caught
    (120,305 states): the catch is the knob's, not the scenario's."""
    sc = Scenario("sd_orphan_path", failures=2, checkpoints=1, crash_kinds=("process",))
    r = checked(SD, sc).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["rollbacks_to_a_checkpoint"] > 0 and w["orphans_rereceived"] > 0 and w["replayed_messages"] > 0
    assert w["messages_buffered_during_restart"] > 0 and w["restarts_ended"] > 0
    told = checked(SD, MUTANT_SCENARIOS["send-deterministic/told-again-names-only-the-teller"]).result
    assert told.verdict == "pass", told.violation
    w = told.witnesses
    assert w["rollbacks_to_a_checkpoint"] > 0 and w["orphans_rereceived"] > 0 and w["replays_held_for_orphans"] > 0
    assert w["messages_buffered_during_restart"] > 0 and w["restarts_ended"] > 0
