"""``rrcheck replay --explain``: each message classified against the recovery
line of every rollback, as the papers' figures classify them."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rrcheck.checker.traces import explain as X
from rrcheck.checker.traces import counterexample as T
from rrcheck.checker.model.scenarios import Scenario, make_system

CURATED = Path(__file__).resolve().parents[1] / "counterexamples"


def drive(system, *segments):
    """A run: each segment's actions, then every enabled action but a crash,
    the first enabled first, until none is left."""
    s, events = system.initial(), []
    for seg in segments:
        for a in seg:
            assert a in system.actions(s), (a, system.actions(s))
            s, _ = system.step(s, a)
            events.append(a)
        while True:
            acts = [a for a in system.actions(s) if a[0] not in ("crash", "crash_node")]
            if not acts:
                break
            s, _ = system.step(s, acts[0])
            events.append(acts[0])
    return events


def classes(rb):
    return {m.label: m.cls for m in rb.messages}


def only_rollback(system, events):
    rbs = X.explain_events(system, events)
    assert len(rbs) == 1, rbs
    return rbs[0]


def test_invariants_explain_fig1_in_transit_and_orphan():
    """Bouteiller et al. §2.1, Fig. 1: P1 rolls back to C_1^1 alone; m1, m2
    are past, m3 and m4 in transit (served by their senders' copies), m5 an
    orphan that the replay of the logged order re-sends identically."""
    system, _ = make_system("correlated-set", Scenario("fig1", at_sites=True, crash_kinds=("process",)))
    before_c11 = [("step", 0), ("deliver", 0, 1, 0), ("recv", 1, 0), ("internal", 1, "log"), ("step", 1),
                  ("deliver", 1, 2, 0), ("recv", 2, 0), ("internal", 2, "log"), ("internal", 1, "checkpoint"),
                  ("step", 1)]
    after_c11 = [("step", 0), ("step", 2), ("deliver", 0, 1, 0), ("recv", 1, 0), ("deliver", 2, 1, 0),
                 ("recv", 1, 0), ("internal", 1, "log"), ("step", 1), ("deliver", 1, 0, 0), ("recv", 0, 0),
                 ("crash", 1), ("restart", 1)]
    rb = only_rollback(system, drive(system, before_c11 + after_c11))
    assert classes(rb) == {"m1": "past", "m2": "past", "m3": "in transit", "m4": "in transit", "m5": "orphan"}
    assert rb.checkpoints[1][0] == 1 and rb.survivors == (0, 2)
    detail = {m.label: m.detail for m in rb.messages}
    assert "P0's sender-based copy" in detail["m3"] and "P2's sender-based copy" in detail["m4"]
    assert detail["m5"].startswith("re-sent identically")
    assert rb.of("in transit") == ["m3", "m4"] and rb.of("orphan") == ["m5"]


def test_invariants_explain_theorem2_fig2_curated_and_correct():
    """Fig. 2 (Theorem 2): S1 = {P0, P1, P2} rolls back; m1, m2 are in
    transit, m3, m4 future, m5 an orphan. Without internal event logging
    (the curated counterexample) m5 is re-sent differently; with it, identically."""
    cx = T.load(CURATED / "correlated-set__no-internal-event-logging.json")
    assert cx.workload == "fig2"
    (rb,) = X.explain(cx)
    want = {"m1": "in transit", "m2": "in transit", "m3": "future", "m4": "future", "m5": "orphan"}
    assert classes(rb) == want
    assert sorted(rb.checkpoints) == [0, 1, 2] and rb.survivors == (3, 4)
    m5 = next(m for m in rb.messages if m.label == "m5")
    assert "DIFFERENTLY" in m5.detail
    system, _ = make_system("correlated-set", Scenario("fig2", checkpoints=0, crash_kinds=("process",)))
    rb = only_rollback(system, drive(system, [], [("crash", 2), ("restart", 2)]))
    assert classes(rb) == want
    assert next(m for m in rb.messages if m.label == "m5").detail.startswith("re-sent identically")


def test_invariants_explain_send_deterministic_fig2_phases():
    """Guermouche and Ropars §3.2, Fig. 2: Groupe 1 (p1–p3) rolls back; m1 and
    m7 are in transit (logged by their senders), m3 an orphan re-sent
    identically by the send-deterministic re-execution."""
    system, _ = make_system("send-deterministic", Scenario("sd_fig2", checkpoints=0, crash_kinds=("process",)))
    rb = only_rollback(system, drive(system, [], [("crash", 0), ("restart", 0)]))
    assert classes(rb) == {"m1": "in transit", "m2": "future", "m3": "orphan", "m7": "in transit",
                           "m8": "future"}
    assert rb.survivors == (3, 4, 5, 6)
    assert next(m for m in rb.messages if m.label == "m3").detail.startswith("re-sent identically")


def test_invariants_explain_thesis_fig46():
    """Meyer's thesis §4.2.3, Fig. 4.6: the restarted P1 (the thesis' P2)
    finds M1, M2 and M2'' in transit, served by logs; M3 to P3 is an orphan,
    re-sent identically by the correct HMPL and differently by the mutant
    without the wildcard block (the curated counterexample)."""
    system, _ = make_system("hmpl", Scenario("fig46", checkpoints=0, crash_kinds=("process",)))
    rb = only_rollback(system, drive(system, [], [("crash", 1), ("restart", 1)]))
    assert classes(rb) == {"M1": "in transit", "M2": "in transit", "M2''": "in transit", "M3": "orphan"}
    assert all("served by" in m.detail for m in rb.messages if m.cls == "in transit")
    assert next(m for m in rb.messages if m.label == "M3").detail.startswith("re-sent identically")
    (bad,) = X.explain(T.load(CURATED / "hmpl__no-wildcard-block__fig46.json"))
    assert "DIFFERENTLY" in next(m for m in bad.messages if m.label == "M3").detail


def test_invariants_explain_c3_late_and_early():
    """C3 (Bronevetsky et al., "Possible Types of Messages"): m1 sent after
    P0's checkpoint and received before P1's is early (an orphan, re-sent and
    suppressed); m2 sent before P1's checkpoint and received after P0's is
    late (in transit, replayed from the log recorded with P0's checkpoint)."""
    system, _ = make_system("app-level", Scenario("c3_epochs", at_sites=True, crash_kinds=("process",)))
    epoch = [("step", 1), ("internal", 0, "checkpoint"), ("step", 0), ("choose", 0, 0), ("step", 0),
             ("deliver", 0, 1, 0), ("deliver", 0, 1, 0), ("recv", 1, 0), ("step", 1), ("step", 1),
             ("deliver", 1, 0, 0), ("recv", 0, 0)]
    rb = only_rollback(system, drive(system, epoch, [("crash", 0), ("restart", 0)]))
    assert classes(rb)["m1"] == "orphan" and classes(rb)["m2"] == "in transit"
    detail = {m.label: m.detail for m in rb.messages}
    assert detail["m1"].startswith("C3: early") and detail["m2"].startswith("C3: late")
    assert "recorded with P0's checkpoint" in detail["m2"]
    assert rb.checkpoints[0][0] == rb.checkpoints[1][0] == 1


def test_invariants_explain_cli_text_and_json():
    f = str(CURATED / "correlated-set__no-internal-event-logging.json")
    out = subprocess.run([sys.executable, "-m", "rrcheck", "replay", f, "--explain"], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "in transit: m1, m2" in out.stdout and "orphan: m5" in out.stdout
    out = subprocess.run([sys.executable, "-m", "rrcheck", "replay", f, "--json"], capture_output=True,
                         text=True, timeout=600)
    d = json.loads(out.stdout)
    msgs = {m["message"]: m["class"] for m in d["rollbacks"][0]["messages"]}
    assert msgs["m5"] == "orphan" and msgs["m3"] == "future"
    assert d["rollbacks"][0]["checkpoints"]["P2"]["checkpoint"] == "C0"


def test_invariants_explain_c3_late_message_lost_without_late_logging():
    """The mutant that does not log late messages: the explanation names the
    late m2 as in transit and held nowhere (the violation is NoInTransitInGroup)."""
    cx = T.load(CURATED / "app-level__no-late-logging.json")
    assert cx.violation.property == "NoInTransitInGroup"
    (rb,) = X.explain(cx)
    m2 = next(m for m in rb.messages if m.label == "m2")
    assert m2.cls == "in transit" and m2.detail == "C3: late; held nowhere: LOST"
    assert sorted(rb.checkpoints) == [0, 1]  # the line of both, though the trace stops at P0's restore


@pytest.mark.parametrize("name", ["no-early-suppression", "no-nondet-logging", "checkpoint-drops-suppressions"])
def test_invariants_explain_c3_early_from_the_saved_queue(name, tmp_path):
    """C3's early message as the checkpoint saved it: m1, sent after P0's
    checkpoint, is in P1's receive queue when P1 checkpoints, so the line holds
    it (an orphan, C3's early message, suppressed on re-execution), though P1's
    application takes it only after the rollback; the diagram says the same.
    Every rollback is listed: at the second of checkpoint-drops-suppressions,
    m1 is held by P1's line and sent by an incarnation of P0 rolled back since."""
    cx = T.load(CURATED / f"app-level__{name}.json")
    rbs = X.explain(cx)
    assert len(rbs) == (2 if name == "checkpoint-drops-suppressions" else 1)
    for i, rb in enumerate(rbs):
        m1 = next(m for m in rb.messages if m.label == "m1")
        assert m1.cls == "orphan" and m1.detail.startswith("C3: early"), m1
        assert ("in P1's checkpointed queue" in m1.detail) == (i == 0), m1.detail
        assert ("rolled back since" in m1.detail) == (i == 1), m1.detail
    svg = tmp_path / "x.svg"
    out = subprocess.run([sys.executable, "-m", "rrcheck", "replay", str(CURATED / f"app-level__{name}.json"),
                          "--svg", str(svg)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert ">m1 (early)<" in svg.read_text() and "(future)" not in svg.read_text()


@pytest.mark.parametrize("path", sorted(CURATED.glob("*.json")), ids=lambda p: p.stem)
def test_invariants_explain_every_curated_counterexample(path):
    """Every curated counterexample explains: each rollback has a line for
    each process that rolls back, each message one of the four classes."""
    for rb in X.explain(T.load(path)):
        assert rb.checkpoints and not set(rb.checkpoints) & set(rb.survivors)
        assert all(m.cls in ("past", "in transit", "orphan", "future") for m in rb.messages)


def test_invariants_theorem1_two_failures_each_shown_first_by_its_mutant(checked):
    """Bouteiller et al. §3.2.1, Theorem 1: an internal message in transit at the
    set's recovery line (no-internal-silence: P1's message to P0, sent before P1's
    checkpoint, received after P0's, logged by nobody) is not the same failure as a
    line that does not exist (line-before-the-set-checkpoints: a rollback to a
    checkpoint another member never took). Each mutant's shortest counterexample,
    found again here and held by its curated file, shows its own."""
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    crossing, missing = "correlated-set/no-internal-silence", "correlated-set/line-before-the-set-checkpoints"
    for name, words in ((crossing, "in transit at the recovery line"), (missing, "never took: no recovery line")):
        r = checked("correlated-set", MUTANT_SCENARIOS[name], name).result
        assert r.violation.property == "Theorem1" and words in r.violation.message, r.violation
        cx = T.load(CURATED / f"{name.replace('/', '__')}.json")
        assert cx.violation.property == "Theorem1" and words in cx.violation.message
        assert [list(a) for a in r.trace] == cx.events  # the file is the shortest run, not a drift
    (rb,) = X.explain(T.load(CURATED / "correlated-set__no-internal-silence.json"))
    (m,) = rb.messages
    assert (m.src, m.dst, m.cls, m.detail) == (1, 0, "in transit", "held nowhere: LOST")
    assert m.sent_at < rb.checkpoints[1][1] and rb.checkpoints[0][1] < m.sent_at  # after P0's, before P1's
    (rb,) = X.explain(T.load(CURATED / "correlated-set__line-before-the-set-checkpoints.json"))
    assert not rb.messages and rb.survivors  # no message at all: a member's checkpoint is missing
