"""Theorem 2 under node crashes (Bouteiller et al. 2013 §3.2.2): one of the main job's
larger scenarios (509,353 states), held here in README's command rather than in the
guard, whose budget it would take a third of; `rrcheck check --all` checks the correct
protocol on it too."""
from rrcheck.protocols.mutants import MUTANTS


def test_theorem2_under_node_crashes(checked):
    """Theorem 2 (Bouteiller et al. 2013 §3.2.2) where a node crash takes the whole
    set of three: the correct protocol passes, replaying P2's internal receptions
    from the event log; without internal event logging the re-executed m3 and m4
    may come in the other order, and P3, which has m5, is an orphan."""
    from rrcheck.checker.model.scenarios import FIGURES, THEOREM2_NODE
    assert THEOREM2_NODE in FIGURES["correlated-set"] and THEOREM2_NODE.crash_kinds == ("node",)
    c = checked("correlated-set", THEOREM2_NODE)
    w = c.result.witnesses
    assert c.result.verdict == "pass" and c.vacuous is None
    assert w["node_crashes"] > 0 and w["replayed_receptions"] > 0 and w["orphan_situations"] > 0
    name = "correlated-set/no-internal-event-logging"
    r = checked("correlated-set", THEOREM2_NODE, name).result
    assert r.verdict == "violation" and r.violation.property in MUTANTS[name].catches
    assert [a for a in r.trace if a[0].startswith("crash")] == [("crash_node", 0)]
