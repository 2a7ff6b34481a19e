"""Pessimistic message logging (Meyer, "Fault Tolerance in Multicore
Clusters", PhD thesis, UAB 2014, §4.1: SBML Meyer 2014 §4.1.1 "between a reception and
the ACK of its RSN the receiver sends nothing", RBML Meyer 2014 §4.1.2 "P2 sends nothing
until L2 confirms"): no process sends while a reception it delivered is not
yet logged, so a single failure — of a process or of a node — leaves no
orphan: every message a failed process sent, and a survivor delivered,
depends only on receptions whose determinants survive, and the re-execution
replays them (Bouteiller et al., CCPE 2013, §2.2 "Event logging").

The transition relation is that of ``ReceiverBased`` (protocols/rbml.py),
which SBML (``ThesisSBML``, protocols/logging.py) re-configures: ``send``
(``may_send``: not while the receiver TB ``rtb`` holds an unconfirmed
reception), ``receive`` (``on_receive``/``_log``: the reception enters
``rtb``), ``confirm`` (the logger's or the sender's acknowledgement,
``_on_logged``: the entry leaves ``rtb``), ``crash`` and ``crash_node``.
Knob ``block_sends_until_logged=False`` (``rbml/send-before-logged``,
``sbml/send-before-rsn-ack``) drops the guard of ``send``.

Abstraction: forwarding to the logger, saving and the acknowledgement are one
step (only the receiver's ``rtb`` decides what it may send); a confirmed
determinant survives the failure (RBML: the logger is on another node,
RADIC §2.3, checked by LoggerPlacement; SBML: a node crash that takes the
sender holding an RSN with its receiver is the RSN-gap case of Meyer 2014 §4.1.1, outside
this lemma); restart and replay are not modelled — a message is an orphan as
soon as the failure loses a reception it depends on. Fragment: EPR.
"""
from __future__ import annotations

import z3

from rrcheck.checker.invariants import Violation
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic.core import Action, Lemma, Sorts, Symbol, forall

NAME = "pessimism"
PROTOCOL = "rbml"
PROTOCOLS = ("rbml", "sbml")
KNOBS = {"block_sends_until_logged": True}
MUTANTS = ("rbml/send-before-logged", "sbml/send-before-rsn-ack")
SCENARIOS = (Scenario("pingpong", 2, 2, checkpoints=0), Scenario("ring", 2, 2, checkpoints=0))


def build(block_sends_until_logged: bool = True) -> Lemma:
    S = Sorts("proc", "msg", "node")
    A = lambda sig, body: forall(S, sig, body)  # noqa: E731
    imp, And, Not, Or = z3.Implies, z3.And, z3.Not, z3.Or
    rigid = (Symbol("src", ("msg",), "proc"), Symbol("dst", ("msg",), "proc"), Symbol("node", ("proc",), "node"))
    state = (Symbol("sent", ("msg",)), Symbol("arrived", ("msg",)), Symbol("conf", ("msg",)),
             Symbol("dep", ("msg", "msg")), Symbol("crashed", ("proc",)), Symbol("failed"))
    M, MM, P = ("msg",), ("msg", "msg"), ("proc",)

    def axioms(r):
        return [A(M, lambda m: r.src(m) != r.dst(m))]

    def init(r, s):
        return [Not(s.failed), A(P, lambda p: Not(s.crashed(p))),
                A(M, lambda m: Not(Or(s.sent(m), s.arrived(m), s.conf(m)))), A(MM, lambda a, b: Not(s.dep(a, b)))]

    def send(r, s, t, m):
        p = r.src(m)
        out = [Not(s.sent(m)), Not(s.crashed(p)),
               A(M, lambda x: t.sent(x) == Or(s.sent(x), x == m)),
               # m depends on every reception p delivered so far
               A(MM, lambda a, b: t.dep(a, b) == Or(s.dep(a, b), And(b == m, s.arrived(a), r.dst(a) == p)))]
        if block_sends_until_logged:  # Meyer 2014 §4.1.1, §4.1.2: rtb empty
            out.append(A(M, lambda x: imp(And(s.arrived(x), r.dst(x) == p), s.conf(x))))
        return out

    def receive(r, s, t, m):
        return [s.sent(m), Not(s.arrived(m)), Not(s.crashed(r.dst(m))),
                A(M, lambda x: t.arrived(x) == Or(s.arrived(x), x == m))]

    def confirm(r, s, t, m):
        return [s.arrived(m), Not(s.conf(m)), Not(s.crashed(r.dst(m))),
                A(M, lambda x: t.conf(x) == Or(s.conf(x), x == m))]

    def crash(r, s, t, p):
        return [Not(s.failed), t.failed, A(P, lambda x: t.crashed(x) == (x == p))]

    def crash_node(r, s, t, p):
        """The node of p crashes, with every process on it."""
        return [Not(s.failed), t.failed, A(P, lambda x: t.crashed(x) == (r.node(x) == r.node(p)))]

    actions = (
        Action("send", (("m", "msg"),), ("sent", "dep"), send),
        Action("receive", (("m", "msg"),), ("arrived",), receive),
        Action("confirm", (("m", "msg"),), ("conf",), confirm),
        Action("crash", (("p", "proc"),), ("failed", "crashed"), crash),
        Action("crash_node", (("p", "proc"),), ("failed", "crashed"), crash_node),
    )
    conjuncts = (
        ("NoOrphan", lambda r, s: A(MM, lambda a, b: imp(
            And(s.dep(a, b), s.arrived(b), s.crashed(r.src(b)), Not(s.crashed(r.dst(b)))), s.conf(a)))),
        ("Pessimism", lambda r, s: A(MM, lambda a, b: imp(s.dep(a, b), s.conf(a)))),
        ("dep_is_causal", lambda r, s: A(MM, lambda a, b: imp(s.dep(a, b), And(
            s.sent(b), s.arrived(a), r.dst(a) == r.src(b))))),
        ("unsent_is_blank", lambda r, s: A(MM, lambda a, b: imp(Not(s.sent(b)), Not(s.dep(a, b))))),
        ("confirmed_arrived_sent", lambda r, s: A(M, lambda m: And(imp(s.conf(m), s.arrived(m)),
                                                                   imp(s.arrived(m), s.sent(m))))),
        ("crash_is_a_failure", lambda r, s: A(P, lambda p: imp(s.crashed(p), s.failed))),
        ("failure_is_a_crash", lambda r, s: imp(s.failed, z3.Exists([x := z3.FreshConst(S["proc"], "p")],
                                                                     s.crashed(x)))),
    )
    return Lemma(NAME, "no send while a delivered reception is unlogged; a single failure leaves no orphan",
                 "Meyer, PhD thesis UAB 2014, §4.1 (Meyer 2014 §4.1.1, §4.1.2); Bouteiller et al., CCPE 2013, §2.2",
                 PROTOCOL, MUTANTS, S, rigid, state, axioms, init, actions, conjuncts,
                 ("NoOrphan", "Pessimism"), "EPR", {"block_sends_until_logged": block_sends_until_logged})


def twin(judge, before, action, s, obs):
    """No process can send while its receiver TB holds an unconfirmed
    reception: in every reachable state, an enabled application send of p
    finds p's ``rtb`` empty."""
    sysm = judge.sys
    for a in sysm.actions(s):
        if a[0] != "step":
            continue
        p = a[1]
        pr = s.procs[p]
        if sysm.progs[p][pr.pc][0] not in ("send", "reply"):
            continue
        judge.w["enabled_sends_checked"] += 1
        if pr.vol.rtb:
            judge.w["sends_enabled_with_unlogged_receptions"] += 1
            return Violation("Pessimism", f"P{p} may send while its receptions {list(pr.vol.rtb)} are not yet "
                             f"logged", {"process": p, "rtb": [list(e) for e in pr.vol.rtb]})
    return None


# --- the projection of a model state (checker/symbolic/project.py) ------------------

OPEN = ("msg", "node")


def cti_scenario(cti) -> Scenario:
    """Ping-pong among the CTI's processes, one per node, before any failure
    (the projection reads no state after one), no checkpoint."""
    n = max(2, len(cti.universe["proc"]))
    return Scenario("pingpong", n, n, failures=0, checkpoints=0)


def project(sysm, s):
    """Before any failure (the lemma models no restart, and a crashed receiver's
    unconfirmed receptions die with it): each message (src, dst, k) sent,
    delivered (t2), and confirmed (no longer in the receiver TB: logged); ``dep``
    from the program, whose receptions before a send are the ones delivered
    before it (workloads without ANY_SOURCE)."""
    from rrcheck.checker.symbolic.project import Structure
    n, progs = sysm.n, sysm.workload.programs
    if s.failed or any(not pr.alive or pr.vol is None for pr in s.procs):
        return None
    P = {p: ("P", p) for p in range(n)}
    rows: dict = {"sent": set(), "arrived": set(), "conf": set(), "dep": set(), "crashed": set(),
                  "failed": frozenset(), "src": set(), "dst": set(),
                  "node": {((P[p],), ("N", sysm.ctx.node_of[p])) for p in range(n)}}
    msgs = []
    for p in range(n):
        for q in range(n):
            if q == p:
                continue
            unconf = {ssn for _, src, ssn in s.procs[q].vol.rtb if src == p}
            got = s.procs[q].ghost.delivered_ids(p)
            for k in range(len(s.procs[p].ghost.sent[q])):
                m = ("m", p, q, k)
                msgs.append(m)
                rows["src"].add(((m,), P[p]))
                rows["dst"].add(((m,), P[q]))
                rows["sent"].add(((m,), True))
                if k in got:
                    rows["arrived"].add(((m,), True))
                    if k + 1 not in unconf:
                        rows["conf"].add(((m,), True))
    for p, prog in enumerate(progs):  # dep: receptions before each send made, in program order
        seen, sends, before = {}, {}, []
        for op in prog:
            if op[0] == "recv":
                k = seen.get(op[1], 0)
                seen[op[1]] = k + 1
                before.append(("m", op[1], p, k))
            elif op[0] == "send":
                k = sends.get(op[1], 0)
                sends[op[1]] = k + 1
                b = ("m", p, op[1], k)
                if b in msgs:
                    rows["dep"] |= {((a, b), True) for a in before}
    nodes = tuple(sorted({("N", x) for x in sysm.ctx.node_of}))
    return Structure({"proc": tuple(P.values()), "msg": tuple(msgs), "node": nodes},
                     {k: frozenset(v) for k, v in rows.items()})
