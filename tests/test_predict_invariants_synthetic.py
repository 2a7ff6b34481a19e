"""``rrcheck predict`` on failure-free runs the model journals in the runtime's
format (no MPI): the three mutants whose bug needs a failure are found and
confirmed from the failure-free trace alone, the correct protocols give no
witness on the same runs, and the vector clocks are happens-before."""
import itertools

import pytest

from rrcheck.runtime import predict as P
from rrcheck.checker.traces import counterexample as T
from rrcheck.runtime.predict import hazards
from rrcheck.runtime.predict.synth import synthesize
from rrcheck.runtime import apps

MUTANTS = [("sbml", "sbml/send-before-rsn-ack"), ("hmpl", "hmpl/no-wildcard-block"),
           ("correlated-set", "correlated-set/no-internal-event-logging")]
# correct sbml is judged on process failures: a node failure taking the master
# and a sender together is a separate finding (the RSN gap rule), not this test's
# Theorem 2 needs two internal receptions that race (an unlogged reception only
# fills a gap in the logged numbers): three workers per set, not one
SIZE = {"correlated-set/no-internal-event-logging": {"n": 6, "nodes": 2}}
KINDS = {"sbml": ("process",), "hmpl": ("process", "node"), "correlated-set": ("process", "node")}


def _run(tmp_path, protocol, mutant=None, seed=0, n=4, nodes=2):
    d = tmp_path / f"{protocol}-{seed}"
    st = synthesize(d, protocol, "master_worker", n, nodes, 1, mutant, seed)
    assert st["finished"] and st["messages"] == 3 * (n - 1)
    return d


@pytest.mark.parametrize("protocol,mutant", MUTANTS)
@pytest.mark.parametrize("seed", [0, 1])
def test_invariants_predict_mutant_confirmed_from_failure_free_run(tmp_path, protocol, mutant, seed):
    d = _run(tmp_path, protocol, mutant, seed, **SIZE.get(mutant, {}))
    r = P.predict(d, crash_kinds=KINDS[protocol])
    assert r.verdict == "confirmed", r.as_dict()
    w = r.witness
    assert w["property"] == "NoOrphan"
    assert w["alternative_match"] != w["original_match"]
    assert w["failure"][0] in ("crash", "crash_node")
    # the witness is a counterexample `rrcheck replay` reproduces
    cx = T.load(r.counterexample)
    assert cx.mutant == mutant and any(e[0] in ("crash", "crash_node") for e in cx.events)
    rep = T.replay(cx)
    assert rep.violation is not None and rep.violation.property == "NoOrphan"


@pytest.mark.parametrize("protocol", ["sbml", "hmpl", "correlated-set"])
@pytest.mark.parametrize("seed", [0, 1])
def test_invariants_predict_correct_protocol_no_witness(tmp_path, protocol, seed):
    d = _run(tmp_path, protocol, None, seed)
    r = P.predict(d, crash_kinds=KINDS[protocol])
    assert r.verdict == "none" and r.witness is None and not r.unconfirmed
    c = r.stats
    # not vacuous: there were choices (wildcard receptions with another match,
    # sends after them delivered to survivors), and none is a hazard
    assert c["receptions_with_alternatives"] >= 1 and c["send_delivery_pairs"] >= 1 and c["hazards"] == 0
    assert not (d / "predicted-counterexample.json").exists()


def test_invariants_predict_protocol_option_judges_the_run_under_a_mutant(tmp_path):
    """A run of correct SBML, judged under the rules of its mutant: the same
    journal would have been at risk (the mutant lets the RSN round trip come
    after the next send)."""
    d = _run(tmp_path, "sbml")
    assert P.predict(d, crash_kinds=("process",)).verdict == "none"
    r = P.predict(d, "sbml/send-before-rsn-ack", crash_kinds=("process",))
    assert r.verdict == "confirmed" and r.protocol == "sbml/send-before-rsn-ack"


def test_predict_unconfirmed_witness_is_not_reported_as_a_bug(tmp_path, monkeypatch):
    """Rules looser than the protocol's (its send block ignored) give hazards
    the model refuses: they are reported as unconfirmed, never confirmed."""
    d = _run(tmp_path, "sbml")
    monkeypatch.setattr(hazards, "relaxable", lambda proto, r: True)
    r = P.predict(d, crash_kinds=("process",))
    assert r.stats["hazards"] >= 1
    assert r.verdict == "unconfirmed" and r.witness is None and r.counterexample is None
    assert all(u["why"] for u in r.unconfirmed)


def _happens_before(trace, app=False):
    """Transitive closure of program order and packet edges (``app``: the
    program's messages from send to matching reception instead), by brute force."""
    evs = [e for es in trace.events for e in es]
    idx = {(e.p, e.i): k for k, e in enumerate(evs)}
    pred = {k: set() for k in range(len(evs))}
    for e in evs:
        if e.i > 1:
            pred[idx[(e.p, e.i)]].add(idx[(e.p, e.i - 1)])
        if not app and e.a[0] == "deliver":
            src = trace.pkt_from[(e.a[1], e.p, e.a[3])]
            pred[idx[(e.p, e.i)]].add(idx[(src.p, src.i)])
        if app and e.got:
            src = trace.sent_by[e.got]
            pred[idx[(e.p, e.i)]].add(idx[(src.p, src.i)])
    past: dict = {}
    for p, i in trace.order:  # a causal order: every predecessor comes first
        k = idx[(p, i + 1)]
        past[k] = set().union(*([pred[k]] + [past[x] for x in pred[k]]))
    return evs, idx, past


@pytest.mark.parametrize("protocol,mutant", [("sbml", None), ("correlated-set", MUTANTS[2][1])])
def test_predict_vector_clocks_are_happens_before(tmp_path, protocol, mutant):
    d = _run(tmp_path, protocol, mutant, seed=3)
    cfg, journals = P.load_run(d)
    trace = P.build(cfg, journals, apps.twin("master_worker", 4, 2, 1).programs)
    for app, knows in ((False, trace.knows), (True, trace.app_knows)):
        evs, idx, past = _happens_before(trace, app)
        for e, f in itertools.product(evs, evs):
            assert knows(e, f) == (e is f or idx[(f.p, f.i)] in past[idx[(e.p, e.i)]])


def test_invariants_predict_theorem2_needs_two_unlogged_receptions(tmp_path):
    """With one internal sender per set (master_worker, 4 ranks on 2 nodes) the
    mutant without internal event logging cannot diverge: the master's only
    unlogged reception fills the one gap the logged numbers leave. No hazard,
    where a rule that ignored the logged numbers would report one."""
    d = _run(tmp_path, "correlated-set", "correlated-set/no-internal-event-logging")
    r = P.predict(d, crash_kinds=("process", "node"))
    assert r.verdict == "none" and r.stats["nondeterministic_receptions"] >= 1, r.as_dict()


@pytest.mark.parametrize("seed", [0, 1])
def test_invariants_predict_correct_correlated_set_none_where_its_mutant_is_confirmed(tmp_path, seed):
    """The workload on which Theorem 2's mutant is confirmed (6 ranks, two racing
    internal receptions per set) gives no witness for the correct protocol."""
    d = _run(tmp_path, "correlated-set", None, seed, **SIZE["correlated-set/no-internal-event-logging"])
    r = P.predict(d, crash_kinds=KINDS["correlated-set"])
    assert r.verdict == "none" and r.witness is None and not r.unconfirmed, r.as_dict()
    assert r.stats["receptions_with_alternatives"] >= 1 and r.stats["send_delivery_pairs"] >= 1
