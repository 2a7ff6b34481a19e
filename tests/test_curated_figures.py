"""The curated counterexamples drawn from a paper's figure are that figure's own
execution: its processes and groups, its messages sent (and received) in the
figure's order before the failure, the failure where the paper puts it, each
message classified at the recovery line as the paper classifies it, and the
paper's symptom. A file regenerated on another schedule (the shortest one, say)
fails here even when it replays."""
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rrcheck.checker.model.scenarios import Scenario, make_system, system_for
from rrcheck.checker.traces import counterexample as T
from rrcheck.checker.traces import explain as X
from rrcheck.checker.traces.consequence import overtaking_after

CURATED = Path(__file__).resolve().parents[1] / "counterexamples"


@dataclass
class Figure:
    source: str
    workload: str
    groups: tuple                      # the sets / groups, as the paper draws them
    sent_before_failure: tuple         # every message of the figure, in the figure's order
    received_before_failure: tuple     # those the figure receives before the failure
    failed_in: tuple                   # the failing process is one of these
    classes: dict                      # label -> class at the rolled-back group's line
    violation: str
    resent_differently: tuple = ()     # orphans whose re-execution sends another payload
    extra: list = field(default_factory=list)


FIGURES = {
    "correlated-set__no-internal-event-logging": Figure(
        "Bouteiller et al., Correlated set coordination…, §3, Fig. 2 and Theorem 2",
        "fig2", ((0, 1, 2), (3, 4)), ("m1", "m2", "m3", "m4", "m5"), ("m1", "m2", "m3", "m4"), (0, 1, 2),
        {"m1": "in transit", "m2": "in transit", "m3": "future", "m4": "future", "m5": "orphan"},
        "NoOrphan", resent_differently=("m5",)),
    "hmpl__no-wildcard-block__fig46": Figure(
        "Meyer, Fault Tolerance in Multicore Clusters, §4.2.3, Fig. 4.6",
        "fig46", ((0,), (1,), (2,), (3,)), ("M1", "M2", "M2''", "M3"), ("M1", "M2", "M3"), (1,),
        {"M1": "in transit", "M2": "in transit", "M2''": "in transit", "M3": "orphan"},
        "NoOrphan", resent_differently=("M3",)),
    "send-deterministic__no-phases": Figure(
        "Guermouche and Ropars, Un protocole de recouvrement arrière hiérarchique…, §3.2, Fig. 2",
        "sd_fig2", ((0, 1, 2), (3, 4, 5, 6)), tuple(f"m{i}" for i in range(1, 9)),
        tuple(f"m{i}" for i in range(1, 9)), (0, 1, 2),
        {"m1": "in transit", "m7": "in transit", "m3": "orphan", "m2": "future", "m8": "future"},
        "CausalReplayOrder"),
}


def _facts(name: str, fig: Figure) -> list[str]:
    """What in the file differs from the figure, one line each."""
    cx = T.load(CURATED / f"{name}.json")
    system, wl = system_for(cx)
    bad = []
    if cx.workload != fig.workload:
        return [f"workload {cx.workload}, the figure's is {fig.workload}"]
    groups = tuple(tuple(p for p in range(wl.n) if system.ctx.group_of[p] == g)
                   for g in sorted(set(system.ctx.group_of)))
    if groups != fig.groups:
        bad.append(f"groups {groups}, the figure's are {fig.groups}")
    r = X.run(system, cx.events)
    if len(r.crashes) != 1:
        return bad + [f"{len(r.crashes)} failures, the figure has one"]
    t_fail, victim = r.crashes[0]
    if victim not in fig.failed_in:
        bad.append(f"P{victim} fails, the figure fails one of {fig.failed_in}")
    sent = [wl.labels.get((s, d, k)) for t, s, d, k, _ in r.sends if t < t_fail]
    if tuple(sent) != fig.sent_before_failure:
        bad.append(f"before the failure the file sends {sent}, the figure {list(fig.sent_before_failure)}")
    got = {wl.labels.get((s, d, k)) for t, d, s, k, _ in r.matches if t < t_fail}
    if got != set(fig.received_before_failure):
        bad.append(f"before the failure the file receives {sorted(got, key=str)}, "
                   f"the figure {sorted(fig.received_before_failure)}")
    rbs = X.explain(cx)
    classes = {m.label: m.cls for rb in rbs[:1] for m in rb.messages}
    if classes != fig.classes:
        bad.append(f"at the line: {classes}, the figure: {fig.classes}")
    if cx.violation.property != fig.violation:
        bad.append(f"{cx.violation.property}, the paper's symptom is {fig.violation}")
    for label in fig.resent_differently:
        m = next((m for rb in rbs[:1] for m in rb.messages if m.label == label), None)
        if m is None or "DIFFERENTLY" not in m.detail:
            bad.append(f"{label} is not re-sent differently")
    return bad


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_curated_counterexample_is_the_papers_figure(name):
    assert _facts(name, FIGURES[name]) == []


def test_no_phases_is_figure_2_with_its_phases_and_its_symptom():
    """Guermouche and Ropars §3.2 on their Fig. 2: with phases, p3 and p1 reach
    phase 2 (m1, m2), p4, p5 and p7 phase 3 (m3, m4, m5), so m7 carries phase 3;
    without them (the mutant), the restart re-sends m7 before p3 has m1 again and,
    as the paper says, m8 is then received before m2."""
    cx = T.load(CURATED / "send-deterministic__no-phases.json")
    t_fail = next(t for t, ev in enumerate(cx.events) if ev[0] == "crash")
    correct, _ = make_system("send-deterministic", Scenario("sd_fig2", checkpoints=0, crash_kinds=("process",)))
    s = correct.initial()
    for ev in cx.events[:t_fail]:
        s, _ = correct.step(s, tuple(ev))
    # p1 and p2 end at 4 (m8, m7); p6 hears nothing from the other group
    assert [pr.vol.Phase for pr in s.procs] == [4, 4, 2, 3, 3, 1, 3]
    mutant, wl = system_for(cx)
    assert cx.violation.values["sender"] == 6 and cx.violation.values["receiver"] == 1   # m7, replayed
    end = mutant.initial()
    for ev in cx.events:
        end, _ = mutant.step(end, tuple(ev))
    assert not end.procs[2].ghost.delivered[3], "p3 has m1 again: m7 was not replayed before m1"
    follows = overtaking_after(mutant, cx.events)
    assert follows is not None and (follows.receiver, follows.got, follows.before) == (0, "m8", "m2")


def test_replay_explain_says_what_follows_a_replay_that_overtook_its_cause():
    import json
    import subprocess
    import sys
    f = str(CURATED / "send-deterministic__no-phases.json")
    out = subprocess.run([sys.executable, "-m", "rrcheck", "replay", f, "--explain"], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "what follows (3 more steps, the shortest): P0 receives m8 before m2" in out.stdout
    js = json.loads(subprocess.run([sys.executable, "-m", "rrcheck", "replay", f, "--json"], capture_output=True,
                                   text=True, timeout=600).stdout)
    assert js["what_follows"]["received"] == "m8" and js["what_follows"]["before"] == "m2"
    # a run whose overtaking leads nowhere further says nothing
    other = T.load(CURATED / "send-deterministic__checkpoint-holds-a-message-past-its-cause.json")
    assert overtaking_after(system_for(other)[0], other.events) is None
