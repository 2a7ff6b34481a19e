"""``rrcheck predict`` on two recorded failure-free MPI runs of HMPL without
the wildcard rule (master_worker, 4 ranks on 2 nodes), kept as data so the
verdicts do not depend on the schedule of the day.

In the first, the master sends to a worker before its wildcard reception
is confirmed: its crash there makes the worker an orphan, and the model
confirms it. In the second, each worker takes the erasure
that follows a later confirmation before it receives the master's message:
FIFO channels and the in-order confirmations of the logger (the k-th
confirms the k-th entry) put the reception's confirmation in every cut
that holds the survivor's reception, so there is no hazard, and no cut may
be offered that the model cannot replay."""
from pathlib import Path

from rrcheck.checker.traces import counterexample as T
from rrcheck.runtime.predict import predict

RUNS = Path(__file__).parent / "data" / "runs"


def test_predict_invariants_recorded_hazard_is_confirmed(tmp_path):
    r = predict(RUNS / "hmpl-no-wildcard-block-hazard", save=tmp_path / "cx.json")
    assert r.verdict == "confirmed" and not r.unconfirmed, r.as_dict()
    assert r.witness["property"] == "NoOrphan" and r.witness["failure"] == ["crash", 0]
    rep = T.replay(T.load(r.counterexample))
    assert rep.violation is not None and rep.violation.property == "NoOrphan"


def test_predict_invariants_recorded_serialised_run_has_no_hazard(tmp_path):
    r = predict(RUNS / "hmpl-no-wildcard-block-erasure-serialises", save=tmp_path / "cx.json")
    assert r.verdict == "none" and not r.unconfirmed, r.as_dict()
    assert r.stats["receptions_with_alternatives"] >= 1 and r.stats["send_delivery_pairs"] >= 1
