"""Every correct protocol passes every invariant, exhaustively, on its default
scenarios — and the pass is not vacuous: failures, rollbacks and checkpoints
happened, and runs with failures reached their end."""
import pytest

from checker.scenarios import DEFAULTS, SLOW, Scenario

CASES = [(p, sc) for p, scs in DEFAULTS.items() for sc in scs]


@pytest.mark.parametrize("protocol,scenario", CASES, ids=[f"{p}-{sc.label()}" for p, sc in CASES])
def test_invariants_protocol_passes_default_scenario(checked, protocol, scenario):
    r = checked(protocol, scenario).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["crashes"] > 0 and w["rollbacks"] > 0 and w["orphan_situations"] > 0
    assert w["terminal_states_after_failure"] > 0
    assert w["equivalent_terminals_after_failure"] == w["terminal_states_after_failure"]
    if scenario.checkpoints:
        assert w["checkpoints"] > 0


def test_invariants_correlated_set_two_sets_of_two_node_crash(checked):
    """Two correlated sets of two processes on two nodes, node and process
    crashes: the whole failed set rolls back, its ingoing messages are served
    from the other set's logs, its receptions are replayed."""
    sc = DEFAULTS["correlated-set"][1]
    assert sc.workload == "pairs" and "node" in sc.crash_kinds
    r = checked("correlated-set", sc).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["node_crashes"] > 0 and w["survivor_rollbacks"] > 0
    assert w["in_transit_at_recovery_line"] > 0 and w["logged_messages_resent"] > 0
    assert w["replayed_receptions"] > 0 and w["theorem1_lines_checked"] > 0


def test_invariants_theorem1_checkpoint_wave_in_a_set(checked):
    """Theorem 1 exhaustively on a set of two with a checkpoint wave and node
    crashes: no internal message ever crosses a recovery line, while internal
    messages preceded the lines (the mutant without silence is caught on the
    same workload: test_invariants_mutants)."""
    sc = DEFAULTS["correlated-set"][0]
    assert sc.checkpoints >= 1 and "node" in sc.crash_kinds
    r = checked("correlated-set", sc).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["checkpoints"] > 0 and w["node_crashes"] > 0
    assert w["theorem1_lines_checked"] > 0 and w["theorem1_internal_messages"] > 0
    assert w["survivor_rollbacks"] > 0


def test_invariants_chandy_lamport_records_and_restores_in_transit(checked):
    """Chandy–Lamport's channel recording is exercised: in-transit messages
    were recorded with a snapshot and handed back at a rollback."""
    w = checked("chandy-lamport", DEFAULTS["chandy-lamport"][0]).result.witnesses
    assert w["in_transit_recorded"] > 0 and w["in_transit_restored"] > 0


@pytest.mark.parametrize("protocol", ["correlated-set", "coordinated", "chandy-lamport"])
def test_invariants_theorem1_on_every_scenario(checked, protocol):
    """Theorem 1 is checked, with witnesses, on every default scenario where a
    set of two or more processes rolls back together."""
    for sc in DEFAULTS[protocol]:
        if sc.workload == "fig1":
            continue  # one process per set
        w = checked(protocol, sc).result.witnesses
        assert w["theorem1_lines_checked"] > 0, sc


@pytest.mark.slow
@pytest.mark.parametrize("protocol,scenario", [(p, sc) for p, scs in SLOW.items() for sc in scs])
def test_invariants_slow_sweep(checked, protocol, scenario):
    """Larger scenarios, hundreds of thousands of states (pytest -m slow)."""
    r = checked(protocol, scenario).result
    assert r.verdict == "pass", r.violation
    w = r.witnesses
    assert w["rollbacks"] > 0 and w["orphan_situations"] > 0 and w["terminal_states_after_failure"] > 0


def test_invariants_theorem2_inconsistent_execution(checked, tmp_path):
    """Theorem 2 (seed 000 §3.2.2): with two correlated sets, omitting the event
    logging of internal receptions admits an inconsistent execution; the same
    scenario passes with the protocol that logs them."""
    sc = Scenario("theorem2", checkpoints=0, crash_kinds=("process",))
    bad = checked("correlated-set", sc, "correlated-set/no-internal-event-logging", out=tmp_path).result
    assert bad.verdict == "violation" and bad.violation.property == "NoOrphan"
    assert bad.violation.values["receiver"] == 3   # P3, in the other set, is the orphan
    good = checked("correlated-set", sc).result
    assert good.verdict == "pass"
    assert good.witnesses["orphan_situations"] > 0 and good.witnesses["replayed_receptions"] > 0


@pytest.mark.parametrize("protocol", sorted(DEFAULTS))
def test_invariants_reductions_keep_terminal_states(checked, protocol):
    """The reductions reach exactly the terminal states of the full interleaving
    semantics (where the end-of-run properties are judged), with fewer states."""
    sc = Scenario("ring", 2, 1)
    if protocol in ("hmpl", "rbml", "sbml"):  # seed 004: each log on another node (RADIC §2.3)
        sc = Scenario("ring", 2, 2, checkpoints=0)
    full = checked(protocol, sc, reduce=False).result
    red = checked(protocol, sc).result
    assert full.verdict == red.verdict == "pass"
    assert red.witnesses["terminal_states"] == full.witnesses["terminal_states"]
    assert red.states < full.states


def test_invariants_theorem2_on_the_papers_figure_2(checked):
    """Seed 000 Fig. 2: without internal event logging, the order of m3 and m4
    at P2 is lost with S1 = {P0, P1, P2}, and P4 in S2 becomes an orphan of m5;
    with it, the same scenario passes."""
    sc = Scenario("fig2", checkpoints=0, crash_kinds=("process",))
    r = checked("correlated-set", sc, "correlated-set/no-internal-event-logging").result
    assert r.verdict == "violation" and r.violation.property == "NoOrphan"
    assert r.violation.values["receiver"] == 4 and r.violation.values["sender"] == 2
    good = checked("correlated-set", sc).result
    assert good.verdict == "pass" and good.witnesses["orphan_situations"] > 0
