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

Where a confirmed determinant is kept is in the relation: ``holder(m)`` is
the process whose memory, or whose node's logger, holds it (``holder_of``):
for RBML the first process of another node than the receiver's (RADIC,
Meyer 2014 §2.3.3); for SBML (``sender_logged``) the sender, "the volatile
memory of the machine from which the message is going to be sent" (§4.1.1).
A failure loses the determinants its victims held. Stable storage is "the volatile memory of another node" (§2.2.1): under
node crashes the lemma assumes every determinant is kept on another node
than its receiver's, which RBML's placement gives and SBML's fault model
(docs/findings.md, "SBML and a node crash") assumes. Knob
``beyond_fault_model`` (``sbml/node-crash-takes-sender-and-receiver``) drops
that assumption, and the proof fails with the finding's execution.

Abstraction: forwarding to the logger, saving and the acknowledgement are one
step (only the receiver's ``rtb`` decides what it may send); restart and
replay are not modelled — a message is an orphan as soon as the failure loses
a reception it depends on.
"""
from __future__ import annotations

import z3

from rrcheck.checker.invariants import Violation
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic.core import Action, Lemma, Sorts, Symbol, forall

NAME = "pessimism"
PROTOCOL = "rbml"
PROTOCOLS = ("rbml", "sbml")
KNOBS = {"block_sends_until_logged": True, "beyond_fault_model": False}
MUTANTS = ("rbml/send-before-logged", "sbml/send-before-rsn-ack", "sbml/node-crash-takes-sender-and-receiver")
SCENARIOS = (Scenario("pingpong", 2, 2, checkpoints=0), Scenario("ring", 2, 2, checkpoints=0))


def build(block_sends_until_logged: bool = True, beyond_fault_model: bool = False,
          protocol: str | None = None) -> Lemma:
    """Both protocols' relation, or ``protocol``'s alone (a mutant's)."""
    S = Sorts("proc", "msg", "node")
    A = lambda sig, body: forall(S, sig, body)  # noqa: E731
    imp, And, Not, Or = z3.Implies, z3.And, z3.Not, z3.Or
    rigid = (Symbol("src", ("msg",), "proc"), Symbol("dst", ("msg",), "proc"), Symbol("node", ("proc",), "node"),
             Symbol("holder", ("msg",), "proc"), Symbol("sender_logged"), Symbol("node_crashes"))
    state = (Symbol("sent", ("msg",)), Symbol("arrived", ("msg",)), Symbol("conf", ("msg",)),
             Symbol("dep", ("msg", "msg")), Symbol("crashed", ("proc",)), Symbol("failed"))
    M, MM, P, PP = ("msg",), ("msg", "msg"), ("proc",), ("proc", "proc")

    def axioms(r):
        elsewhere = lambda m: r.node(r.holder(m)) != r.node(r.dst(m))  # noqa: E731
        out = [A(M, lambda m: r.src(m) != r.dst(m)),
               # SBML: the sender's memory (Meyer 2014 §4.1.1); RBML: the logger's, on another node (§2.3.3)
               A(M, lambda m: imp(r.sender_logged, r.holder(m) == r.src(m))),
               A(M, lambda m: imp(Not(r.sender_logged), elsewhere(m)))]
        if protocol is not None:
            out.append(r.sender_logged if protocol == "sbml" else Not(r.sender_logged))
        if not beyond_fault_model:  # stable storage: the memory of another node (§2.2.1)
            out.append(A(M, lambda m: imp(r.node_crashes, elsewhere(m))))
        return out

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
        return [r.node_crashes, Not(s.failed), t.failed, A(P, lambda x: t.crashed(x) == (r.node(x) == r.node(p)))]

    actions = (
        Action("send", (("m", "msg"),), ("sent", "dep"), send),
        Action("receive", (("m", "msg"),), ("arrived",), receive),
        Action("confirm", (("m", "msg"),), ("conf",), confirm),
        Action("crash", (("p", "proc"),), ("failed", "crashed"), crash),
        Action("crash_node", (("p", "proc"),), ("failed", "crashed"), crash_node),
    )
    conjuncts = (
        ("NoOrphan", lambda r, s: A(MM, lambda a, b: imp(
            And(s.dep(a, b), s.arrived(b), s.crashed(r.src(b)), Not(s.crashed(r.dst(b)))),
            And(s.conf(a), Not(s.crashed(r.holder(a))))))),
        ("Pessimism", lambda r, s: A(MM, lambda a, b: imp(s.dep(a, b), s.conf(a)))),
        ("dep_is_causal", lambda r, s: A(MM, lambda a, b: imp(s.dep(a, b), And(
            s.sent(b), s.arrived(a), r.dst(a) == r.src(b))))),
        ("unsent_is_blank", lambda r, s: A(MM, lambda a, b: imp(Not(s.sent(b)), Not(s.dep(a, b))))),
        ("confirmed_arrived_sent", lambda r, s: A(M, lambda m: And(imp(s.conf(m), s.arrived(m)),
                                                                   imp(s.arrived(m), s.sent(m))))),
        ("crash_is_a_failure", lambda r, s: A(P, lambda p: imp(s.crashed(p), s.failed))),
        ("failure_is_a_crash", lambda r, s: imp(s.failed, z3.Exists([x := z3.FreshConst(S["proc"], "p")],
                                                                     s.crashed(x)))),
        # one failure: one process, or one node's every process
        ("one_node_failed", lambda r, s: A(PP, lambda x, y: imp(And(s.crashed(x), s.crashed(y)),
                                                                 r.node(x) == r.node(y)))),
        ("two_victims_are_a_node_crash", lambda r, s: A(PP, lambda x, y: imp(
            And(s.crashed(x), s.crashed(y), x != y), r.node_crashes))),
        ("a_node_crash_takes_every_process_on_it", lambda r, s: A(("proc",) * 3, lambda x, y, z: imp(
            And(s.crashed(x), s.crashed(y), x != y, r.node(z) == r.node(x)), s.crashed(z)))),
    )
    return Lemma(NAME, "no send while a delivered reception is unlogged; a single failure leaves no orphan",
                 "Meyer, PhD thesis UAB 2014, §4.1 (Meyer 2014 §4.1.1, §4.1.2), §2.2.1; Bouteiller et al., CCPE "
                 "2013, §2.2", PROTOCOL, MUTANTS, S, rigid, state, axioms, init, actions, conjuncts,
                 ("NoOrphan", "Pessimism"),
                 {"block_sends_until_logged": block_sends_until_logged, "beyond_fault_model": beyond_fault_model}
                 | ({"protocol": protocol} if protocol else {}))


def twin(judge, before, action, s, obs):
    """No process can send while its receiver TB holds an unconfirmed
    reception: in every reachable state, an enabled application send of p
    finds p's ``rtb`` empty; and after the failure, no orphan (the judge's
    NoOrphan: a delivery the recovered sender's history contradicts)."""
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
    if s.failures:
        v = judge.state(s)
        if v is not None and v.property == "NoOrphan":
            return v
    return None


# --- the projection of a model state (checker/symbolic/project.py) ------------------
# It reads the run up to the failure and the survivors' steps after it, up to the
# first restart (the lemma models no restart: a crashed receiver's unconfirmed
# receptions die with it). What a crashed receiver had confirmed, and which
# receptions each send followed (ANY_SOURCE included), are a path ghost.

OPEN = ("msg",)
# the reachable projections checked against the invariant (tests): a crash under node crashes
# (one process a node), and a reception a send out of the node depends on; beyond the fault
# model, the finding
SAMPLES = (Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("node",)),
           Scenario("pair_and_one", checkpoints=0, crash_kinds=("process",)))
MUTANT_SAMPLES = {"sbml/node-crash-takes-sender-and-receiver": (
    Scenario("pair_and_one", checkpoints=0, crash_kinds=("node",), beyond_fault_model=True),)}
BMC = {"max_universe": 7}   # the finding's execution: a sender and its receiver on one node, a survivor


def _confirmed(sysm, s) -> frozenset:
    """(src, dst, k) delivered to a live receiver and no longer in its receiver TB."""
    out = set()
    for q, pr in enumerate(s.procs):
        if not pr.alive:
            continue
        for p in range(sysm.n):
            if p != q:
                unconf = {ssn for _, src, ssn in pr.vol.rtb if src == p}
                out |= {(p, q, k) for k in pr.ghost.delivered_ids(p) if k + 1 not in unconf}
    return frozenset(out)


def ghost_init(sysm):
    """(what the crashed receivers had confirmed; each process's receptions so
    far; ``dep``: each send with the receptions before it)."""
    return frozenset(), ((),) * sysm.n, frozenset()


def ghost_step(sysm, g, s, a, s2, obs):
    confirmed, got, dep = g
    for o in obs:
        if o[0] == "sent":
            _, p, q, k, _ = o
            dep = dep | {(x, (p, q, k)) for x in got[p]}
        elif o[0] == "delivered":
            _, p, src, k = o[:4]
            got = got[:p] + (got[p] + ((src, p, k),),) + got[p + 1:]
    dead = {q for q, pr in enumerate(s2.procs) if not pr.alive}
    return frozenset(m for m in _confirmed(sysm, s) | confirmed if m[1] in dead), got, dep


def project(sysm, s, g):
    """Each message (src, dst, k) sent, delivered (t2) and confirmed (no longer in
    the receiver TB: logged); ``dep``: the receptions its sender had delivered
    before it; where each determinant is kept (``holder_of``); the failure's
    victims. None once a victim restarts."""
    from rrcheck.checker.symbolic.project import Structure
    n, ctx, proto = sysm.n, sysm.ctx, sysm.protocol
    if any(pr.alive for p, pr in enumerate(s.procs) if p in s.failed):
        return None
    confirmed, _, dep = g
    conf = _confirmed(sysm, s) | confirmed
    P = {p: ("P", p) for p in range(n)}
    N = {x: ("N", x) for x in sorted(set(ctx.node_of))}
    rows: dict = {"sent": set(), "arrived": set(), "conf": set(), "dep": set(),
                  "crashed": {((P[p],), True) for p in s.failed},
                  "failed": frozenset({((), True)}) if s.failed else frozenset(), "src": set(), "dst": set(),
                  "holder": set(), "node": {((P[p],), N[ctx.node_of[p]]) for p in range(n)},
                  "sender_logged": frozenset({((), True)}) if proto.name == "sbml" else frozenset(),
                  "node_crashes": frozenset({((), True)}) if "node" in sysm.bounds.crash_kinds else frozenset()}
    msgs = []
    for p in range(n):
        for q in range(n):
            if q == p:
                continue
            got = s.procs[q].ghost.delivered_ids(p)
            for k in range(len(s.procs[p].ghost.sent[q])):
                m = ("m", p, q, k)
                msgs.append(m)
                rows["src"].add(((m,), P[p]))
                rows["dst"].add(((m,), P[q]))
                rows["holder"].add(((m,), P[proto.holder_of(ctx, q, p)]))
                rows["sent"].add(((m,), True))
                if k in got:
                    rows["arrived"].add(((m,), True))
                    if (p, q, k) in conf:
                        rows["conf"].add(((m,), True))
    rows["dep"] = {((("m",) + a, ("m",) + b), True) for a, b in dep}
    return Structure({"proc": tuple(P.values()), "msg": tuple(msgs), "node": tuple(N.values())},
                     {k: frozenset(v) for k, v in rows.items()})


def cti_system(cti, protocol: str, mutant: str | None):
    """A run with exactly the CTI's messages and placement, each process's
    receptions and sends in the order its ``dep`` fixes, one failure of the
    CTI's kind: the pre-state's failure, or its action's."""
    from rrcheck.checker.model.workloads import recv, send
    from rrcheck.checker.symbolic.project import program_order, system_of
    procs = sorted(cti.universe["proc"])
    idx = {p: i for i, p in enumerate(procs)}
    rigid = {sym: dict(r.split("->") for r in cti.rigid[sym]) for sym in ("src", "dst", "node")}
    rows = lambda sym: {tuple(r.split(",")) if "," in r else r for r in cti.post.get(sym, cti.pre[sym])}  # noqa: E731
    # the programs hold the CTI's own step too (a send or reception the action makes)
    sent, arrived, dep = rows("sent"), rows("arrived"), rows("dep")
    progs = []
    for p in procs:
        order = program_order(p, rigid, sent, arrived, dep) or []  # none: the search finds nothing, completely
        progs.append(tuple(recv(idx[rigid["src"][m]]) if kind == "recv" else send(idx[rigid["dst"][m]])
                           for kind, m in order))
    nodes = sorted(set(rigid["node"].values()))
    node_of = [nodes.index(rigid["node"][p]) for p in procs]
    kinds = ("process", "node") if cti.rigid["node_crashes"] is True else ("process",)
    if mutant is None:  # the CTI says whose placement it is
        protocol = "sbml" if cti.rigid["sender_logged"] is True else "rbml"
    sysm = system_of(protocol, mutant, "pessimism_cti", progs, node_of, "the CTI's messages, nodes and causal order",
                     failures=1, checkpoints=0, crash_kinds=kinds)
    return sysm, f"the CTI's messages n={len(progs)} f=1 c=0 {' and '.join(kinds)} crashes"
