"""C3 application-level checkpointing (the C3 slides): the default scenarios reach
every message class, both Log-End line rules, two epochs with a failure in
each and every class of collective; each Log-End rule alone catches the
mutant that breaks it; and the handlers do what the slides say."""
from dataclasses import replace

import pytest

from rrcheck.checker.model import workloads as W
from rrcheck.checker.model.classify import failure_free
from rrcheck.checker.model.system import Bounds, System
from rrcheck.checker.model.scenarios import DEFAULTS, MUTANT_SCENARIOS
from rrcheck.protocols.app_level import AppLevel, _get, stopped
from rrcheck.protocols.base import AppMsg, Context, Deliver, Mail, Packet, Restore, Send

SC = {sc.workload: sc for sc in DEFAULTS["app-level"]}


def _passes(checked, workload):
    r = checked("app-level", SC[workload]).result
    assert r.verdict == "pass", r.violation
    return r.witnesses


def test_invariants_app_level_message_classes(checked):
    """"Possible Types of Messages": past, late, early and future messages all
    occur against the line processes roll back to; late ones were logged at the
    receiver and replayed, early ones recorded and their re-sends suppressed."""
    w = _passes(checked, "c3_epochs")
    for kind in ("past", "late", "early", "future"):
        assert w[f"{kind}_messages_at_rollback"] > 0, kind
    assert w["late_arrivals"] > 0 and w["early_arrivals"] > 0 and w["intra_epoch_arrivals"] > 0
    assert w["late_messages_logged"] > 0 and w["late_messages_replayed"] > 0
    assert w["early_messages_recorded"] > 0 and w["early_resends_suppressed"] > 0
    assert w["intra_epoch_messages"] > 0
    assert w["nondet_logged"] > 0 and w["nondet_replayed"] > 0 and w["receptions_replayed"] > 0
    assert w["orphans_regenerated_identically"] > 0  # early messages re-created identically


def test_invariants_app_level_log_end_line(checked):
    """"Log-End Line": messages from a process that stopped logging reached one
    still logging (unordered channels let them overtake Stop_logging), and made
    it stop; no late message arrived after a log end."""
    w = _passes(checked, "c3_epochs")
    assert w["stopped_sender_messages_seen_while_logging"] > 0
    assert w["stopped_by_stopped_sender"] > 0
    assert w["logs_saved"] > 0 and w["late_arrivals"] > 0
    assert not W.make("c3_epochs").fifo


def test_invariants_app_level_two_epochs_failure_in_each(checked):
    """"The Global View": two successive recovery lines, and failures recovered
    to the initial line, to line 1 and to line 2."""
    w = _passes(checked, "c3_two_epochs")
    assert SC["c3_two_epochs"].checkpoints == 2
    for line in (0, 1, 2):
        assert w[f"recoveries_to_line_{line}"] > 0, line
    assert w["survivor_rollbacks"] > 0 and w["equivalent_terminals_after_failure"] > 0


def test_invariants_app_level_collectives(checked):
    """"Collective Communication": a collective of each class, its receive
    before a checkpoint, inside a log or after it; calls inside a log are
    completed from it (late or early data) or called again by all."""
    w = _passes(checked, "c3_collectives")
    for cls in ("single_receiver", "single_sender", "all_to_all", "barrier"):
        for region in ("before_checkpoint", "inside_log", "after_log"):
            assert w[f"{cls}_receive_{region}"] > 0, (cls, region)
    assert w["collectives_logged"] > 0 and w["collectives_from_log"] > 0
    assert w["collectives_reexecuted_in_replay"] > 0


@pytest.mark.parametrize("prop,mutant", [
    ("LogEndNoLateCrossing", "app-level/early-ready-to-stop"),
    ("LogEndNoBackwardCrossing", "app-level/no-stop-on-logged-sender"),
    ("NoLostMessage", "app-level/no-late-logging"),  # the "lost message" of the C3 slides
    ("NoLostMessage", "app-level/early-ready-to-stop"),
])
def test_invariants_app_level_log_end_rule_alone_catches(checked, prop, mutant):
    r = checked("app-level", MUTANT_SCENARIOS[mutant], mutant, properties=(prop,)).result
    assert r.verdict == "violation" and r.violation.property == prop


# --- the handlers, beside the slides -----------------------------------------

CTX = Context(2, (0, 1), (0, 1), fifo=False)
NONE = (0, 0)  # the incarnation before any restart: no restart of either process
P = AppLevel()


def _msg(src, dst, k=0):
    return AppMsg((src, dst, k), src, dst, 0, 7)


def test_invariants_app_level_late_message_logged_and_replayed():
    """"Handling Late Messages": recorded at the receiver, re-read on recovery."""
    vol, stab = P.initial(CTX, 0)
    vol, stab, _ = P.on_internal(CTX, 0, vol, stab, "checkpoint")   # P0 checkpoints line 1
    late = Packet(1, 0, "app", (NONE, 0, 0, True, 0), _msg(1, 0))  # P1 still in epoch 0
    vol, stab, out = P.on_packet(CTX, 0, vol, stab, late)
    assert vol.log.late == ((0, late.msg),) and any(isinstance(e, Deliver) for e in out)
    vol, stab, _ = P.on_packet(CTX, 0, vol, stab, Packet(1, 0, "count", (NONE, 0, 1, 1)))
    vol, stab, _ = P.on_packet(CTX, 0, vol, stab, Packet(1, 0, "ready", (NONE, 0, 1)))
    assert not vol.logging and stab.line == 1  # Stop_logging: log saved with checkpoint 1
    vol, stab, out = P.on_restart(CTX, 0, stab)
    assert Restore(1) in out
    assert any(isinstance(e, Deliver) and e.mail.msg == late.msg for e in out)


def test_invariants_app_level_ready_waits_for_late_messages():
    """Ready_to_stop_logging only once every late message arrived."""
    vol, stab = P.initial(CTX, 1)
    vol, stab, _ = P.on_packet(CTX, 1, vol, stab, Packet(0, 1, "chkpt_ok", (NONE, 0, 1, 1)))
    vol, stab, out = P.on_site(CTX, 1, vol, stab)
    assert vol.logging and not any(isinstance(e, Send) and e.packet.kind == "ready" for e in out)
    vol, stab, out = P.on_packet(CTX, 1, vol, stab, Packet(0, 1, "app", (NONE, 0, 0, False, 0), _msg(0, 1)))
    assert any(isinstance(e, Send) and e.packet.kind == "ready" for e in out)
    early = AppLevel(ready_after_late=False)
    v2, s2 = early.initial(CTX, 1)
    v2, s2, _ = early.on_packet(CTX, 1, v2, s2, Packet(0, 1, "chkpt_ok", (NONE, 0, 1, 1)))
    _, _, out = early.on_site(CTX, 1, v2, s2)
    assert any(isinstance(e, Send) and e.packet.kind == "ready" for e in out)


def test_invariants_app_level_replay_matches_logged_message_ids(checked):
    """"Mechanism: Control Information" on unordered channels: three messages
    from one sender (one late, from the log, two re-sent) come in another
    order than the receptions were logged in; the replay holds back the ones
    ahead of their turn and ends, where queueing them as they come deadlocks."""
    name = "app-level/replay-in-arrival-order"
    sc = MUTANT_SCENARIOS[name]
    r = checked("app-level", sc).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["receptions_held_for_replay"] > 0 and w["receptions_replayed"] > 0
    assert w["late_messages_replayed"] > 0 and w["terminal_states_after_failure"] > 0
    m = checked("app-level", sc, name).result
    assert m.verdict == "violation" and m.violation.property == "Termination"


def test_invariants_app_level_replay_holds_a_message_until_its_turn():
    """The log says P0 matched m2 (ID 1) before the late m1 (ID 0): on recovery
    m1 from the log is held until m2, re-sent, is matched."""
    vol, stab = P.initial(CTX, 0)
    vol, stab, _ = P.on_internal(CTX, 0, vol, stab, "checkpoint")
    m1, m2 = _msg(1, 0, 0), _msg(1, 0, 1)
    vol, stab, _ = P.on_packet(CTX, 0, vol, stab, Packet(1, 0, "app", (NONE, 0, 1, True, 1), m2))
    vol, stab, _ = P.on_match(CTX, 0, vol, stab, Mail(m2, (1,)))
    vol, stab, _ = P.on_packet(CTX, 0, vol, stab, Packet(1, 0, "app", (NONE, 0, 0, True, 0), m1))
    vol, stab, _ = P.on_packet(CTX, 0, vol, stab, Packet(1, 0, "count", (NONE, 0, 1, 1)))
    vol, stab, _ = P.on_packet(CTX, 0, vol, stab, Packet(1, 0, "ready", (NONE, 0, 1)))
    assert stab.line == 1 and _get(stab.logs, 1).events == (("recv", 1, 1),)
    vol, stab, out = P.on_restart(CTX, 0, stab)
    assert not any(isinstance(e, Deliver) for e in out) and vol.held == (Mail(m1, (0,)),)
    assert list(P.holdings(CTX, 0, vol, stab)) == [m1]
    vol = replace(vol, heard=frozenset({1}))
    vol, stab, out = P.on_packet(CTX, 0, vol, stab, Packet(1, 0, "app", ((1, 0), 1, 1, True, 1), m2))
    assert Deliver(Mail(m2, (1,))) in out and P.may_match(CTX, 0, vol, Mail(m2, (1,)))
    assert not P.may_match(CTX, 0, vol, Mail(m1, (0,)))
    vol, stab, out = P.on_match(CTX, 0, vol, stab, Mail(m2, (1,)))
    assert Deliver(Mail(m1, (0,))) in out and vol.held == () and vol.replay == ()
    # the mutant queues m1 at once, ahead of the m2 the log names first
    _, _, out = AppLevel(replay_by_message_id=False).on_restart(CTX, 0, stab)
    assert Deliver(Mail(m1, (0,))) in out


def test_invariants_app_level_early_message_suppressed_on_recovery():
    """"Handling Early Messages": the receiver records it and, on recovery,
    tells the sender, whose re-send is suppressed."""
    vol, stab = P.initial(CTX, 1)
    early = Packet(0, 1, "app", (NONE, 0, 1, True, 0), _msg(0, 1))  # P0 already in epoch 1
    vol, stab, _ = P.on_packet(CTX, 1, vol, stab, early)
    assert vol.early[0] == {0}
    vol, stab, _ = P.on_packet(CTX, 1, vol, stab, Packet(0, 1, "chkpt_ok", (NONE, 0, 1, 0)))
    vol, stab, _ = P.on_site(CTX, 1, vol, stab)
    vol, stab, out = P.on_packet(CTX, 1, vol, stab, Packet(0, 1, "rollback", ((1, 0), 1, frozenset())))
    told = [e.packet for e in out if isinstance(e, Send) and e.packet.kind == "suppress"]
    assert told and told[0].hdr[2] == {0}
    v0, s0 = P.initial(CTX, 0)
    v0 = replace(v0, suppress=(frozenset(), frozenset({0})))
    _, _, out = P.on_send(CTX, 0, v0, s0, _msg(0, 1))
    assert not any(isinstance(e, Send) for e in out)


def test_invariants_app_level_stop_rules():
    """A process stops logging on Stop_logging, on a message from a process that
    stopped, or on a Chkpt_Ok of the next line that overtook Stop_logging."""
    assert stopped(1, False, 1) and stopped(2, True, 1) and not stopped(1, True, 1)
    vol, stab = P.initial(CTX, 1)
    vol, stab, _ = P.on_packet(CTX, 1, vol, stab, Packet(0, 1, "chkpt_ok", (NONE, 0, 1, 0)))
    vol, stab, _ = P.on_site(CTX, 1, vol, stab)
    assert vol.logging
    v1, s1, _ = P.on_packet(CTX, 1, vol, stab, Packet(0, 1, "app", (NONE, 0, 1, False, 0), _msg(0, 1)))
    assert not v1.logging and s1.line == 1
    v2, s2, _ = P.on_packet(CTX, 1, vol, stab, Packet(0, 1, "chkpt_ok", (NONE, 0, 2, 0)))
    assert not v2.logging and s2.line == 1 and v2.ok == 2
    v3, _, _ = AppLevel(stop_on_stopped_sender=False).on_packet(
        CTX, 1, vol, stab, Packet(0, 1, "app", (NONE, 0, 1, False, 0), _msg(0, 1)))
    assert v3.logging


def test_invariants_app_level_collective_inside_log_with_a_partner_behind():
    """"Receive is before the checkpoint" / "inside the log": with a partner
    behind the line, the call is logged with its data and completed from the
    log on recovery; with every partner past the line it is called again."""
    vol, stab = P.initial(CTX, 1)
    vol, stab, _ = P.on_packet(CTX, 1, vol, stab, Packet(0, 1, "chkpt_ok", (NONE, 0, 1, 0)))
    vol, stab, _ = P.on_site(CTX, 1, vol, stab)
    op = ("coll", "bcast", 0)
    behind = ((NONE, 0, False), (NONE, 1, True))
    v, _, out = P.on_collective(CTX, 1, vol, stab, op, (42,), behind)
    assert v.log.events == (("coll", "local", (42,)),)
    assert P.coll_local(CTX, 1, replace(v, replay=v.log.events), op) == (42,)
    level = ((NONE, 1, True), (NONE, 1, True))
    v, _, _ = P.on_collective(CTX, 1, vol, stab, op, (42,), level)
    assert v.log.events == (("coll", "joint", ()),)


def test_collective_is_one_call_of_every_process():
    """The model extension: a collective is a single scheduler event once every
    process calls it (never split into messages), and a failure-free run of the
    collective workload is deterministic."""
    w = W.make("c3_collectives")
    system = System(AppLevel(), w, Bounds(failures=0, checkpoints=0))
    s = system.initial()
    s, _ = system.step(s, ("step", 0))
    assert not any(a[0] == "coll_all" for a in system.actions(s))
    s, _ = system.step(s, ("step", 1))
    assert ("coll_all", 0) in system.actions(s)
    s2, obs = system.step(s, ("coll_all", 0))
    assert [o[0] for o in obs].count("collective") == 2 and not any(s2.wire)
    assert failure_free(w).observed == W.DETERMINISTIC and failure_free(w).deadlocks == 0


def test_invariants_app_level_node_crash_restarts_both():
    """Both processes on one node fail together and restart, possibly from
    different saved lines (one saved log 1, the other not yet): the newer
    incarnation wins and everyone meets at a line both can reach."""
    from dataclasses import replace as dc_replace

    from rrcheck.checker.explicit.explore import explore
    from rrcheck.checker.invariants import Judge
    w = dc_replace(W.make("c3_two_epochs"), node_of=(0, 0))
    system = System(AppLevel(), w, Bounds(failures=1, checkpoints=2, crash_kinds=("node",)))
    r = explore(system, Judge(system, None, failure_free(w).finals))
    assert r.verdict == "pass", r.violation
    wt = r.witnesses
    assert wt["node_crashes"] > 0 and wt["terminal_states_after_failure"] > 0
    assert wt["equivalent_terminals_after_failure"] == wt["terminal_states_after_failure"]
    for line in (0, 1, 2):
        assert wt[f"recoveries_to_line_{line}"] > 0, line
