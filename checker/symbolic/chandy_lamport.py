"""Chandy and Lamport, "Distributed snapshots: determining global states of
distributed systems" (ACM TOCS 1985; background in Bouteiller et al., CCPE 2013,
§3.2.1, and in the C3 slides of Bronevetsky, Marques, Pingali, Stodghill): on
FIFO channels, the recorded local states with the recorded channel contents
form a consistent cut — every message sent before its sender's checkpoint is
received before the receiver's or recorded as the channel's state, and none
received before the receiver's checkpoint was sent after the sender's — for
any number of processes and messages.

The transition relation is that of ``ChandyLamport`` (protocols/coordinated.py):
``send`` (never blocked), ``initiate`` (``on_internal``/``_join``: checkpoint,
markers on every channel), ``marker`` (``on_wave``: the first marker makes its
receiver join), ``deliver`` (``on_app``: a message arriving after the
receiver's checkpoint and before the channel's marker is recorded). FIFO: a
marker is received only after every message sent before it on its channel, and
a message sent after it only after the marker. Knob ``record_channels=False``
(``chandy-lamport/no-channel-recording``) records nothing. One wave; the
commit and the rollback are not modelled.
"""
from __future__ import annotations

import z3

from rrcheck.checker.invariants import Violation
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic.core import Action, Lemma, Sorts, Symbol, forall

NAME = "chandy-lamport"
PROTOCOL = "chandy-lamport"
KNOBS = {"record_channels": True}
MUTANTS = ("chandy-lamport/no-channel-recording",)
SCENARIOS = (Scenario("ring", 2, 2), Scenario("pingpong", 2, 2))


def build(record_channels: bool = True) -> Lemma:
    S = Sorts("proc", "msg")
    A = lambda sig, body: forall(S, sig, body)  # noqa: E731
    imp, And, Not, Or = z3.Implies, z3.And, z3.Not, z3.Or
    rigid = (Symbol("src", ("msg",), "proc"), Symbol("dst", ("msg",), "proc"))
    state = (Symbol("ck", ("proc",)), Symbol("mk_sent", ("proc", "proc")), Symbol("mk_rcvd", ("proc", "proc")),
             Symbol("sent", ("msg",)), Symbol("pre", ("msg",)), Symbol("bm", ("msg",)),
             Symbol("arrived", ("msg",)), Symbol("rpre", ("msg",)), Symbol("rec", ("msg",)))
    M, P, PP = ("msg",), ("proc",), ("proc", "proc")

    def axioms(r):
        return [A(M, lambda m: r.src(m) != r.dst(m))]

    def init(r, s):
        return [A(P, lambda p: Not(s.ck(p))), A(PP, lambda p, q: And(Not(s.mk_sent(p, q)), Not(s.mk_rcvd(p, q)))),
                A(M, lambda m: Not(Or(s.sent(m), s.pre(m), s.bm(m), s.arrived(m), s.rpre(m), s.rec(m))))]

    def send(r, s, t, m):
        p = r.src(m)
        return [Not(s.sent(m)),
                A(M, lambda x: t.sent(x) == Or(s.sent(x), x == m)),
                A(M, lambda x: t.pre(x) == z3.If(x == m, Not(s.ck(p)), s.pre(x))),
                A(M, lambda x: t.bm(x) == z3.If(x == m, Not(s.mk_sent(p, r.dst(m))), s.bm(x)))]

    def join(s, t, p, cond):
        """_join: checkpoint and a marker on every outgoing channel."""
        return [A(P, lambda x: t.ck(x) == Or(s.ck(x), And(cond, x == p))),
                A(PP, lambda x, y: t.mk_sent(x, y) == Or(s.mk_sent(x, y), And(cond, x == p, y != p)))]

    def initiate(r, s, t, p):
        return [Not(s.ck(p))] + join(s, t, p, z3.BoolVal(True))

    def marker(r, s, t, q, p):
        fifo = A(M, lambda m: imp(And(s.sent(m), r.src(m) == p, r.dst(m) == q, s.bm(m)), s.arrived(m)))
        return [p != q, s.mk_sent(p, q), Not(s.mk_rcvd(q, p)), fifo,
                A(PP, lambda x, y: t.mk_rcvd(x, y) == Or(s.mk_rcvd(x, y), And(x == q, y == p)))] + \
            join(s, t, q, Not(s.ck(q)))

    def deliver(r, s, t, m):
        d, p = r.dst(m), r.src(m)
        record = And(s.ck(d), Not(s.mk_rcvd(d, p))) if record_channels else z3.BoolVal(False)
        return [s.sent(m), Not(s.arrived(m)), imp(Not(s.bm(m)), s.mk_rcvd(d, p)),   # FIFO behind the marker
                A(M, lambda x: t.arrived(x) == Or(s.arrived(x), x == m)),
                A(M, lambda x: t.rpre(x) == z3.If(x == m, Not(s.ck(d)), s.rpre(x))),
                A(M, lambda x: t.rec(x) == z3.If(x == m, record, s.rec(x)))]

    actions = (
        Action("send", (("m", "msg"),), ("sent", "pre", "bm"), send),
        Action("initiate", (("p", "proc"),), ("ck", "mk_sent"), initiate),
        Action("marker", (("q", "proc"), ("p", "proc")), ("mk_rcvd", "ck", "mk_sent"), marker),
        Action("deliver", (("m", "msg"),), ("arrived", "rpre", "rec"), deliver),
    )
    conjuncts = (
        ("InTransitRecorded", lambda r, s: A(M, lambda m: imp(And(s.pre(m), s.arrived(m)), Or(s.rpre(m), s.rec(m))))),
        ("NoMessageFromTheFuture", lambda r, s: A(M, lambda m: imp(s.rpre(m), s.pre(m)))),
        ("RecordedWereInTransit", lambda r, s: A(M, lambda m: imp(s.rec(m), And(s.pre(m), Not(s.rpre(m)))))),
        ("ChannelComplete", lambda r, s: A(M, lambda m: imp(And(s.pre(m), s.mk_rcvd(r.dst(m), r.src(m))),
                                                             s.arrived(m)))),
        ("unsent_is_blank", lambda r, s: A(M, lambda m: imp(Not(s.sent(m)), Not(Or(
            s.pre(m), s.bm(m), s.arrived(m), s.rpre(m), s.rec(m)))))),
        ("received_is_arrived", lambda r, s: A(M, lambda m: imp(Or(s.rpre(m), s.rec(m)), s.arrived(m)))),
        ("past_is_before_marker", lambda r, s: A(M, lambda m: s.pre(m) == s.bm(m))),
        ("no_marker_to_self", lambda r, s: A(P, lambda p: And(Not(s.mk_sent(p, p)), Not(s.mk_rcvd(p, p))))),
        ("marker_only_after_checkpoint", lambda r, s: A(PP, lambda p, q: imp(s.mk_sent(p, q), s.ck(p)))),
        ("checkpoint_sends_markers", lambda r, s: A(PP, lambda p, q: imp(And(s.ck(p), p != q), s.mk_sent(p, q)))),
        ("marker_received_was_sent", lambda r, s: A(PP, lambda q, p: imp(s.mk_rcvd(q, p), And(s.mk_sent(p, q),
                                                                                                 s.ck(q))))),
        ("fifo_marker", lambda r, s: A(M, lambda m: imp(And(s.bm(m), s.mk_rcvd(r.dst(m), r.src(m))), s.arrived(m)))),
        ("after_marker_arrives_after_it", lambda r, s: A(M, lambda m: imp(And(s.arrived(m), Not(s.bm(m))),
                                                                          s.mk_rcvd(r.dst(m), r.src(m))))),
        ("sent_before_checkpoint_is_past", lambda r, s: A(M, lambda m: imp(And(s.sent(m), Not(s.ck(r.src(m)))),
                                                                           s.pre(m)))),
        ("arrived_unrecorded_before_checkpoint", lambda r, s: A(M, lambda m: imp(
            And(s.arrived(m), Not(s.ck(r.dst(m)))), s.rpre(m)))),
    )
    return Lemma(NAME, "the recorded states and channel contents form a consistent cut on FIFO channels",
                 "Chandy and Lamport, ACM TOCS 1985; Bouteiller et al., CCPE 2013, §3.2.1", PROTOCOL, MUTANTS, S,
                 rigid, state, axioms, init, actions, conjuncts,
                 ("InTransitRecorded", "NoMessageFromTheFuture", "RecordedWereInTransit"),
                 {"record_channels": record_channels})


def twin(judge, before, action, s, obs):
    """The cut of every completed wave (every process took checkpoint w and
    recorded its channels for w): each message sent before its sender's
    checkpoint was received before its receiver's or is in the recorded
    channel state, and none received before was sent after."""
    sysm = judge.sys
    n, proto, ctx = sysm.n, sysm.protocol, sysm.ctx
    waves = {w for w, _ in s.procs[0].stab.channels} if s.procs[0].stab else set()
    for w in sorted(waves):
        imgs = [sysm.image(s, p, w) for p in range(n)]
        if any(i is None for i in imgs) or any(
                pr.stab is None or w not in {x for x, _ in pr.stab.channels} for pr in s.procs):
            continue
        for p in range(n):
            rec = list(proto.recorded_channels(ctx, p, s.procs[p].stab, w))
            for q in range(n):
                if q == p:
                    continue
                judge.w["cuts_checked"] += 1
                sent = len(imgs[q].ghost.sent[p])
                got = imgs[p].ghost.delivered_ids(q) | {m.msg.gid[2] for m in imgs[p].mailbox if m.msg.src == q}
                recorded = {m.gid[2] for m in rec if m.src == q}
                judge.w["messages_recorded_in_cuts"] += len(recorded)
                for k in range(sent):
                    if k not in got and k not in recorded:
                        return Violation("InTransitRecorded", f"wave {w}: message #{k} from P{q} to P{p} was sent "
                                         f"before P{q}'s checkpoint, not received before P{p}'s, and not recorded",
                                         {"wave": w, "sender": q, "receiver": p, "k": k})
                if any(k >= sent for k in got | recorded):
                    return Violation("NoMessageFromTheFuture", f"wave {w}: P{p}'s cut holds a message P{q} sent "
                                     f"after its checkpoint", {"wave": w, "sender": q, "receiver": p})
    return None


# --- the projection of a model state (checker/symbolic/project.py) ------------------

def cti_scenario(cti) -> Scenario:
    """A ring of the CTI's size, one wave, no crash (the vocabulary has none)."""
    n = max(2, len(cti.universe["proc"]))
    return Scenario("ring", n, n, failures=0, checkpoints=1)


def project(sysm, s):
    """Wave 1 in the lemma's vocabulary: who checkpointed (and so sent its
    markers), whose markers arrived, and per message (src, dst, k) whether it
    was sent, before its sender's checkpoint (``pre``, equal to ``bm`` on FIFO
    channels), arrived (delivered or in the matching queue), before its
    receiver's checkpoint (``rpre``), and recorded as the channel's state."""
    from rrcheck.checker.symbolic.project import Structure
    procs = range(sysm.n)
    if s.failures or any(not pr.alive or pr.vol is None or pr.vol.wave > 1 or any(c > 1 for c, _ in pr.images)
                         for pr in s.procs):  # the vocabulary has no crash
        return None
    P = {p: ("P", p) for p in procs}
    img = {p: sysm.image(s, p, 1) for p in procs}
    rows: dict = {"ck": {((P[p],), True) for p in procs if img[p]},
                  "mk_sent": {((P[p], P[q]), True) for p in procs for q in procs if q != p and img[p]},
                  "mk_rcvd": {((P[q], P[p]), True) for q in procs for p in procs if q != p and (
                      p in s.procs[q].vol.markers if s.procs[q].vol.wave == 1 else s.procs[q].stab.line >= 1)}}
    for name in ("sent", "pre", "bm", "arrived", "rpre", "rec"):
        rows[name] = set()
    msgs, src, dst = [], set(), set()
    for q in procs:
        pr = s.procs[q]
        recorded = [m for w, ms in pr.stab.channels if w == 1 for m in ms]
        if pr.vol.wave == 1:
            recorded += list(pr.vol.recorded)
        for p in procs:
            if p == q:
                continue
            here = pr.ghost.delivered_ids(p) | {m.msg.gid[2] for m in pr.mailbox if m.msg.src == p}
            before = (img[q].ghost.delivered_ids(p) | {m.msg.gid[2] for m in img[q].mailbox if m.msg.src == p}
                      if img[q] else here)
            rec = {m.gid[2] for m in recorded if m.src == p}
            for k in range(len(s.procs[p].ghost.sent[q])):
                m = ("m", p, q, k)
                msgs.append(m)
                src.add(((m,), P[p]))
                dst.add(((m,), P[q]))
                pre = img[p] is None or k < len(img[p].ghost.sent[q])
                for name, holds in (("sent", True), ("pre", pre), ("bm", pre), ("arrived", k in here),
                                    ("rpre", k in before), ("rec", k in rec)):
                    if holds:
                        rows[name].add(((m,), True))
    rows["src"], rows["dst"] = src, dst
    return Structure({"proc": tuple(P.values()), "msg": tuple(msgs)}, {k: frozenset(v) for k, v in rows.items()})
