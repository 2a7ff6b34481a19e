"""Theorem 1 of Bouteiller, Herault, Bosilca, Dongarra, "Correlated set
coordination in fault tolerant message logging protocols for many-core
clusters" (CCPE 2013, §3.2.1 Theorem 1, §3.3.3): with the set's silence —
tokens to every correlated endpoint, internal sends stalled, drain, a first
barrier, the checkpoint, a second barrier — no message between two members of
a correlated set crosses its recovery line from past to future, whatever the
set's size and however many messages are in flight.

The transition relation is the one of ``CorrelatedSet`` (protocols/correlated_set.py):
``send`` (``may_send``: no internal send unless the stage is ``run``),
``deliver``, ``start`` (``start_checkpoint``/``_enter``), ``token``
(``on_control``: a token enters the receiver into the silence), and the three
steps of ``_advance`` — ``barrier1``, ``checkpoint``, ``barrier2``. FIFO
channels are encoded as: a token from p to q is received only once every
message p sent q before it has arrived. Knob ``silence=False``
(``correlated-set/no-internal-silence``): ``start`` checkpoints at once and
sends ``ckpt`` packets (the same FIFO channel) on which peers checkpoint; no
stage ever leaves ``run``.

One checkpoint wave of one set; the other sets' messages never cross this
line (they are logged) and are not in the vocabulary. Splitting the atomic
handlers into steps only adds interleavings, so the proof covers the protocol.
"""
from __future__ import annotations

import z3

from rrcheck.checker.invariants import Violation
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic.core import Action, Lemma, Sorts, Symbol, forall

NAME = "theorem1"
PROTOCOL = "correlated-set"
STAGES = ("run", "silence", "barrier1", "barrier2")


def build(silence: bool = True) -> Lemma:
    S = Sorts("proc", "msg", enums={"stage": STAGES})
    run, sil, bar1, bar2 = (S.enum_values["stage"][x] for x in STAGES)
    A = lambda sig, body: forall(S, sig, body)  # noqa: E731

    rigid = (Symbol("src", ("msg",), "proc"), Symbol("dst", ("msg",), "proc"))
    state = (Symbol("stage", ("proc",), "stage"), Symbol("ck", ("proc",)),
             Symbol("b1", ("proc",)), Symbol("b2", ("proc",)),
             Symbol("tok_sent", ("proc", "proc")), Symbol("tok_rcvd", ("proc", "proc")),
             Symbol("sent", ("msg",)), Symbol("pre", ("msg",)), Symbol("bt", ("msg",)),
             Symbol("arrived", ("msg",)), Symbol("rpre", ("msg",)))

    def axioms(r):
        return [A(("msg",), lambda m: r.src(m) != r.dst(m))]

    def init(r, s):
        return [A(("proc",), lambda p: z3.And(s.stage(p) == run, z3.Not(s.ck(p)), z3.Not(s.b1(p)),
                                              z3.Not(s.b2(p)))),
                A(("proc", "proc"), lambda p, q: z3.And(z3.Not(s.tok_sent(p, q)), z3.Not(s.tok_rcvd(p, q)))),
                A(("msg",), lambda m: z3.And(*[z3.Not(f(m)) for f in (s.sent, s.pre, s.bt, s.arrived, s.rpre)]))]

    # -- actions ---------------------------------------------------------------
    def send(r, s, t, m):
        p = r.src(m)
        return [z3.Not(s.sent(m)), s.stage(p) == run,            # may_send: internal sends stall
                A(("msg",), lambda x: t.sent(x) == z3.Or(s.sent(x), x == m)),
                A(("msg",), lambda x: t.pre(x) == z3.If(x == m, z3.Not(s.ck(p)), s.pre(x))),
                A(("msg",), lambda x: t.bt(x) == z3.If(x == m, z3.Not(s.tok_sent(p, r.dst(m))), s.bt(x)))]

    def deliver(r, s, t, m):
        return [s.sent(m), z3.Not(s.arrived(m)),
                A(("msg",), lambda x: t.arrived(x) == z3.Or(s.arrived(x), x == m)),
                A(("msg",), lambda x: t.rpre(x) == z3.If(x == m, z3.Not(s.ck(r.dst(m))), s.rpre(x)))]

    def start(r, s, t, p):
        out = [s.stage(p) == run, z3.Not(s.ck(p)), A(("proc",), lambda q: z3.Not(s.tok_sent(p, q))),
               A(("proc", "proc"), lambda x, y: t.tok_sent(x, y) == z3.Or(s.tok_sent(x, y), z3.And(x == p, y != p)))]
        if silence:   # _enter: eager silence
            out += [A(("proc",), lambda x: t.stage(x) == z3.If(x == p, sil, s.stage(x))),
                    A(("proc",), lambda x: t.ck(x) == s.ck(x))]
        else:         # mutant: checkpoint at once, peers when told
            out += [A(("proc",), lambda x: t.stage(x) == s.stage(x)),
                    A(("proc",), lambda x: t.ck(x) == z3.Or(s.ck(x), x == p))]
        return out

    def token(r, s, t, q, p):
        """q receives p's token (or, mutant, p's ckpt packet), FIFO behind p's messages."""
        fifo = A(("msg",), lambda m: z3.Implies(z3.And(s.sent(m), r.src(m) == p, r.dst(m) == q, s.bt(m)),
                                                s.arrived(m)))
        enter = z3.And(s.stage(q) == run, z3.Not(s.ck(q)))
        out = [p != q, s.tok_sent(p, q), z3.Not(s.tok_rcvd(q, p)), fifo,
               A(("proc", "proc"), lambda x, y: t.tok_rcvd(x, y) == z3.Or(s.tok_rcvd(x, y),
                                                                           z3.And(x == q, y == p)))]
        if silence:
            out += [A(("proc",), lambda x: t.stage(x) == z3.If(z3.And(x == q, enter), sil, s.stage(x))),
                    A(("proc", "proc"), lambda x, y: t.tok_sent(x, y) == z3.Or(
                        s.tok_sent(x, y), z3.And(enter, x == q, y != q))),
                    A(("proc",), lambda x: t.ck(x) == s.ck(x))]
        else:
            out += [A(("proc",), lambda x: t.stage(x) == s.stage(x)),
                    A(("proc", "proc"), lambda x, y: t.tok_sent(x, y) == s.tok_sent(x, y)),
                    A(("proc",), lambda x: t.ck(x) == z3.Or(s.ck(x), x == q))]
        return out

    def barrier1(r, s, t, p):
        """Tokens from every peer: every internal message sent before is here."""
        return [s.stage(p) == sil, A(("proc",), lambda q: z3.Implies(q != p, s.tok_rcvd(p, q))),
                A(("proc",), lambda x: t.stage(x) == z3.If(x == p, bar1, s.stage(x))),
                A(("proc",), lambda x: t.b1(x) == z3.Or(s.b1(x), x == p))]

    def checkpoint(r, s, t, p):
        return [s.stage(p) == bar1, A(("proc",), lambda q: s.b1(q)),
                A(("proc",), lambda x: t.stage(x) == z3.If(x == p, bar2, s.stage(x))),
                A(("proc",), lambda x: t.ck(x) == z3.Or(s.ck(x), x == p)),
                A(("proc",), lambda x: t.b2(x) == z3.Or(s.b2(x), x == p))]

    def barrier2(r, s, t, p):
        return [s.stage(p) == bar2, A(("proc",), lambda q: s.b2(q)),
                A(("proc",), lambda x: t.stage(x) == z3.If(x == p, run, s.stage(x)))]

    actions = (
        Action("send", (("m", "msg"),), ("sent", "pre", "bt"), send),
        Action("deliver", (("m", "msg"),), ("arrived", "rpre"), deliver),
        Action("start", (("p", "proc"),), ("stage", "ck", "tok_sent"), start),
        Action("token", (("q", "proc"), ("p", "proc")), ("tok_rcvd", "stage", "tok_sent", "ck"), token),
        Action("barrier1", (("p", "proc"),), ("stage", "b1"), barrier1),
        Action("checkpoint", (("p", "proc"),), ("stage", "ck", "b2"), checkpoint),
        Action("barrier2", (("p", "proc"),), ("stage",), barrier2),
    )

    M, P, PP = ("msg",), ("proc",), ("proc", "proc")
    imp = z3.Implies
    conjuncts = (
        ("Theorem1", lambda r, s: A(M, lambda m: imp(z3.And(s.sent(m), s.pre(m), s.ck(r.dst(m))), s.rpre(m)))),
        ("unsent_is_blank", lambda r, s: A(M, lambda m: imp(z3.Not(s.sent(m)), z3.Not(z3.Or(
            s.pre(m), s.bt(m), s.arrived(m), s.rpre(m)))))),
        ("rpre_arrived", lambda r, s: A(M, lambda m: imp(s.rpre(m), s.arrived(m)))),
        ("arrived_before_checkpoint", lambda r, s: A(M, lambda m: imp(
            z3.And(s.arrived(m), z3.Not(s.ck(r.dst(m)))), s.rpre(m)))),
        ("past_before_token", lambda r, s: A(M, lambda m: imp(s.pre(m), s.bt(m)))),
        ("fifo_token", lambda r, s: A(M, lambda m: imp(z3.And(s.bt(m), s.tok_rcvd(r.dst(m), r.src(m))),
                                                         s.arrived(m)))),
        ("no_token_to_self", lambda r, s: A(P, lambda p: z3.And(z3.Not(s.tok_sent(p, p)), z3.Not(s.tok_rcvd(p, p))))),
        ("token_was_sent", lambda r, s: A(PP, lambda q, p: imp(s.tok_rcvd(q, p), s.tok_sent(p, q)))),
        ("running_unsilenced", lambda r, s: A(P, lambda p: imp(z3.And(s.stage(p) == run, z3.Not(s.ck(p))),
                                                                 z3.And(z3.Not(s.b1(p)), z3.Not(s.b2(p)), A(
                                                                     P, lambda q: z3.Not(s.tok_sent(p, q))))))),
        ("silence_before_b1", lambda r, s: A(P, lambda p: imp(s.stage(p) == sil,
                                                                z3.And(z3.Not(s.b1(p)), z3.Not(s.ck(p)))))),
        ("b1_has_tokens", lambda r, s: A(PP, lambda p, q: imp(z3.And(s.b1(p), q != p), s.tok_rcvd(p, q)))),
        ("b1_stage", lambda r, s: A(P, lambda p: imp(s.stage(p) == bar1, z3.And(s.b1(p), z3.Not(s.ck(p)))))),
        ("checkpoint_after_all_b1", lambda r, s: A(PP, lambda p, q: imp(s.ck(p), s.b1(q)))),
        ("b2_is_checkpointed", lambda r, s: A(P, lambda p: z3.And(imp(s.b2(p), s.ck(p)),
                                                                    imp(s.stage(p) == bar2, s.b2(p))))),
        ("checkpointed_b2", lambda r, s: A(P, lambda p: imp(s.ck(p), s.b2(p)))),
    )
    return Lemma(NAME, "no intra-set message crosses the set's recovery line from past to future",
                 "Bouteiller, Herault, Bosilca, Dongarra, CCPE 2013, §3.2.1 Theorem 1, §3.3.3",
                 PROTOCOL, ("correlated-set/no-internal-silence",), S, rigid, state, axioms, init, actions,
                 conjuncts, ("Theorem1",), {"silence": silence})


# --- the Python twin --------------------------------------------------------------

KNOBS = {"silence": True}
MUTANTS = ("correlated-set/no-internal-silence",)
SCENARIOS = (Scenario("pingpong", 2, 1), Scenario("ring", 2, 1))


def twin(judge, before, action, s, obs):
    """Theorem1 over model states: for every checkpoint every member of a set
    has taken (a recovery line), each message a member sent a peer before its
    own checkpoint (its image's ghost history) had reached the peer before the
    peer's checkpoint (delivered, or in the checkpointed matching queue)."""
    sysm = judge.sys
    ctx = sysm.ctx
    for p in range(sysm.n):
        group = ctx.group(p)
        for cid, img_p in s.procs[p].images:
            if cid == 0:
                continue
            imgs = {q: sysm.image(s, q, cid) for q in group}
            if any(v is None for v in imgs.values()):
                continue
            for q in group:
                if q == p:
                    continue
                judge.w["theorem1_twin_pairs"] += 1
                got = img_p.ghost.delivered_ids(q) | {m.msg.gid[2] for m in img_p.mailbox if m.msg.src == q}
                for k in range(len(imgs[q].ghost.sent[p])):
                    if k not in got:
                        return Violation("Theorem1", f"message #{k} from P{q} to P{p} was sent before P{q}'s "
                                         f"checkpoint {cid} and had not reached P{p} before P{p}'s: it crosses "
                                         f"the line from past to future", {"sender": q, "receiver": p, "k": k})
    return None


# --- the projection of a model state (checker/symbolic/project.py) ------------------

def cti_scenario(cti) -> Scenario:
    """One correlated set of the CTI's size on one node: one wave, no crash (the
    vocabulary has none)."""
    return Scenario("ring", max(2, len(cti.universe["proc"])), 1, failures=0, checkpoints=1)


def project(sysm, s):
    """The first wave of the set of P0 in the lemma's vocabulary: stages, who took
    the wave's checkpoint (``ck``; ``b2`` with it, ``b1`` from the first barrier
    on), the tokens, and per intra-set message (src, dst, k) whether it was sent,
    before its sender's checkpoint (``pre``; ``bt`` with it, since a member in
    silence sends no internal message), arrived (delivered or in the matching
    queue), and before its receiver's checkpoint (``rpre``)."""
    from rrcheck.checker.symbolic.project import Structure
    members = sysm.ctx.group(0)
    prs = [s.procs[p] for p in members]
    if s.failures or any(not pr.alive or pr.vol is None or pr.vol.wave > 1 or any(c > 1 for c, _ in pr.images)
                         for pr in prs):  # the vocabulary has no crash
        return None
    P = {p: ("P", p) for p in members}
    ck = {p: sysm.image(s, p, 1) is not None for p in members}
    stage = {p: s.procs[p].vol.stage for p in members}
    rows: dict = {"stage": {((P[p],), stage[p]) for p in members},
                  "ck": {((P[p],), True) for p in members if ck[p]},
                  "b1": {((P[p],), True) for p in members if ck[p] or stage[p] in ("barrier1", "barrier2")},
                  "b2": {((P[p],), True) for p in members if ck[p]},
                  "tok_sent": {((P[p], P[q]), True) for p in members for q in members
                               if q != p and (ck[p] or stage[p] != "run")},
                  "tok_rcvd": {((P[q], P[p]), True) for q in members for p in members
                               if p != q and (ck[q] or p in s.procs[q].vol.tokens)}}
    msgs, src, dst = [], set(), set()
    for name in ("sent", "pre", "bt", "arrived", "rpre"):
        rows[name] = set()
    for p in members:
        for q in members:
            if q == p:
                continue
            img_p, img_q = sysm.image(s, p, 1), sysm.image(s, q, 1)
            here = s.procs[q].ghost.delivered_ids(p) | {m.msg.gid[2] for m in s.procs[q].mailbox if m.msg.src == p}
            before = (img_q.ghost.delivered_ids(p) | {m.msg.gid[2] for m in img_q.mailbox if m.msg.src == p}
                      if img_q else here)
            for k in range(len(s.procs[p].ghost.sent[q])):
                m = ("m", p, q, k)
                msgs.append(m)
                src.add(((m,), P[p]))
                dst.add(((m,), P[q]))
                pre = img_p is None or k < len(img_p.ghost.sent[q])
                for name, holds in (("sent", True), ("pre", pre), ("bt", pre), ("arrived", k in here),
                                    ("rpre", k in before)):
                    if holds:
                        rows[name].add(((m,), True))
    rows["src"], rows["dst"] = src, dst
    return Structure({"proc": tuple(P.values()), "msg": tuple(msgs)}, {n: frozenset(r) for n, r in rows.items()})
