"""HMPL's protection flow (Meyer, "Fault Tolerance in Multicore Clusters",
PhD thesis, UAB 2014, §4.2, Fig. 4.4, Meyer 2014 §4.2.2, §4.2.4): **ErasureOrder** —
a sender erases M from its temporary buffer only after the receiver's logger
confirmed M (t6 before t7) — and **LoggedOnce** — the logger holds each
message once, since the FT layer checks the SSN of every reception and drops
duplicates — for any number of processes and messages in flight.

The transition relation is that of ``Hybrid`` on the engine of
protocols/rbml.py: ``send`` (t1, ``on_send``: M enters TB_P1), ``resend`` (a
sender serves M again from its TB — any time, over-approximating the TB query
of a restarted receiver), ``receive`` (t2, ``_on_app``/``on_receive``: the SSN
check, then M goes to the logger), ``save`` (t4, ``_on_log``), ``confirm``
(t6, ``_on_logged``: the receiver erases its entry and releases the sender)
and ``erase`` (t7, ``_on_erase``). Knobs: ``release_at="t2"``
(``hmpl/release-before-logger-ack``) releases at the reception;
``drop_duplicates=False`` (``hmpl/no-ssn-check``) takes a re-sent M again.

Abstraction: the failure-free flow of each message (channels unordered, any
interleaving); the crash cases of Meyer 2014 §4.2.2 are the explicit search's.
"""
from __future__ import annotations

import z3

from rrcheck.checker.invariants.hmpl import erasure_order, logged_once
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic.core import Action, Lemma, Sorts, Symbol, forall

NAME = "hmpl"
PROTOCOL = "hmpl"
KNOBS = {"release_at": "t6", "drop_duplicates": True}
MUTANTS = ("hmpl/release-before-logger-ack", "hmpl/no-ssn-check")
SCENARIOS = (Scenario("ring", 2, 2, checkpoints=0),
             Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)))


def build(release_at: str = "t6", drop_duplicates: bool = True) -> Lemma:
    S = Sorts("msg")
    A = lambda body: forall(S, ("msg",), body)  # noqa: E731
    imp, And, Not, Or = z3.Implies, z3.And, z3.Not, z3.Or
    names = ("sent", "tb", "wire", "got", "logq", "lg", "lg2", "conf", "eraseq", "erased")
    state = tuple(Symbol(n, ("msg",)) for n in names)

    def set_(s, t, m, **changes):
        """t = s with each named relation's value at m changed."""
        out = []
        for n, v in changes.items():
            f, g = getattr(s, n), getattr(t, n)
            out.append(A(lambda x, f=f, g=g, v=v: g(x) == z3.If(x == m, v, f(x))))
        return out

    def init(r, s):
        return [A(lambda m: Not(Or(*[getattr(s, n)(m) for n in names])))]

    def send(r, s, t, m):
        return [Not(s.sent(m))] + set_(s, t, m, sent=True, tb=True, wire=True)

    def resend(r, s, t, m):
        return [s.tb(m), Not(s.wire(m))] + set_(s, t, m, wire=True)

    def receive(r, s, t, m):
        dup = s.got(m)
        take = Not(dup) if drop_duplicates else z3.BoolVal(True)
        release = z3.BoolVal(release_at == "t2")
        return [s.wire(m), Not(s.logq(m))] + set_(
            s, t, m, wire=False, got=Or(s.got(m), take), logq=take,
            eraseq=Or(s.eraseq(m), And(take, release)))

    def save(r, s, t, m):
        return [s.logq(m)] + set_(s, t, m, logq=False, lg=True, lg2=Or(s.lg2(m), s.lg(m)))

    def confirm(r, s, t, m):
        return [s.lg(m), Not(s.conf(m))] + set_(s, t, m, conf=True,
                                                eraseq=Or(s.eraseq(m), z3.BoolVal(release_at == "t6")))

    def erase(r, s, t, m):
        return [s.eraseq(m)] + set_(s, t, m, eraseq=False, tb=False, erased=True)

    def mods(*ns):
        return tuple(ns)

    actions = (
        Action("send", (("m", "msg"),), mods("sent", "tb", "wire"), send),
        Action("resend", (("m", "msg"),), mods("wire",), resend),
        Action("receive", (("m", "msg"),), mods("wire", "got", "logq", "eraseq"), receive),
        Action("save", (("m", "msg"),), mods("logq", "lg", "lg2"), save),
        Action("confirm", (("m", "msg"),), mods("conf", "eraseq"), confirm),
        Action("erase", (("m", "msg"),), mods("eraseq", "tb", "erased"), erase),
    )
    conjuncts = (
        ("ErasureOrder", lambda r, s: A(lambda m: imp(s.erased(m), s.conf(m)))),
        ("LoggedOnce", lambda r, s: A(lambda m: Not(s.lg2(m)))),
        ("release_after_confirmation", lambda r, s: A(lambda m: imp(s.eraseq(m), s.conf(m)))),
        ("confirmed_is_saved", lambda r, s: A(lambda m: imp(s.conf(m), s.lg(m)))),
        ("one_log_packet", lambda r, s: A(lambda m: Not(And(s.logq(m), s.lg(m))))),
        ("logged_was_received", lambda r, s: A(lambda m: imp(Or(s.logq(m), s.lg(m)), s.got(m)))),
        ("buffered_until_erased", lambda r, s: A(lambda m: imp(s.sent(m), s.tb(m) != s.erased(m)))),
        ("flow_order", lambda r, s: A(lambda m: imp(Or(s.tb(m), s.wire(m), s.got(m), s.erased(m)), s.sent(m)))),
    )
    return Lemma(NAME, "TB entries are erased only after the logger's confirmation; each message is logged once",
                 "Meyer, PhD thesis UAB 2014, §4.2, Fig. 4.4 (Meyer 2014 §4.2.2, §4.2.4)", PROTOCOL, MUTANTS, S, (), state,
                 lambda r: [], init, actions, conjuncts, ("ErasureOrder", "LoggedOnce"),
                 {"release_at": release_at, "drop_duplicates": drop_duplicates})


def twin(judge, before, action, after, obs):
    """HMPL's ErasureOrder (on every transition) and LoggedOnce (on every
    state), as checker/invariants/hmpl.py defines them."""
    v = logged_once(judge, after)
    if v or before is None:
        return v
    return erasure_order(judge, before, action, after, obs)


# --- the projection of a model state (checker/symbolic/project.py) ------------------

OPEN = ("msg",)


def cti_scenario(cti) -> Scenario:
    """A ring on two nodes, failure-free (the lemma's flow is), no checkpoint."""
    return Scenario("ring", 2, 2, failures=0, checkpoints=0)


def project(sysm, s):
    """Each application message (src, dst, SSN) in the flow of Fig. 4.4: sent; in
    the sender's TB; in transit (on the wire, or in the receiver's matching queue:
    the thesis's t2 checks the SSN and makes the determinant in one event, which
    the Python protocol splits — the SSN at the delivery, the RSN when the
    application takes the message — and the projection places t2 at the second);
    taken (by the Table of SSN, and out of the queue); on its way to the logger (not yet forwarded, or in flight: ``logq``);
    saved by the logger (``lg``, twice: ``lg2``); confirmed to the receiver
    (``conf``, t6); the erase request on its way to the sender (``eraseq``); and
    gone from the TB (``erased``, t7)."""
    from rrcheck.checker.symbolic.project import Structure
    n, proto, ctx = sysm.n, sysm.protocol, sysm.ctx
    if any(not pr.alive or pr.vol is None for pr in s.procs):
        return None
    rows: dict = {name: set() for name in ("sent", "tb", "wire", "got", "logq", "lg", "lg2", "conf", "eraseq",
                                          "erased")}
    msgs = []
    for p in range(n):
        for q in range(n):
            if q == p:
                continue
            host = proto.host(ctx, q)
            tb = {ssn for d, ssn, _ in s.procs[p].vol.tb if d == q}
            # in transit until the application takes it: on the wire, or in q's matching queue
            queued = {m.msg.gid[2] + 1 for m in s.procs[q].mailbox if m.msg.src == p}
            wire = {pk.hdr[0] for pk in s.wire[p * n + q] if pk.kind == "app"} | queued
            logs = [pk.hdr for pk in s.procs[q].vol.unsent + s.wire[q * n + host] if pk.kind == "log"]
            saved = [e for e in s.procs[host].vol.lg[q] if e[1] == p]
            erase = [pk.hdr[0] for pk in s.wire[q * n + p] if pk.kind == "erase"]
            for ssn in range(1, s.procs[p].vol.ssn[q] + 1):
                m = ("m", p, q, ssn)
                msgs.append(m)
                copies = sum(1 for e in saved if e[2] == ssn)
                for name, holds in (("sent", True), ("tb", ssn in tb), ("wire", ssn in wire),
                                    ("got", ssn <= s.procs[q].vol.tssn[p] and ssn not in queued),
                                    ("logq", any(h[1] == p and h[2] == ssn for h in logs)),
                                    ("lg", copies >= 1), ("lg2", copies >= 2),
                                    ("conf", ssn <= s.procs[q].vol.conf[p]),
                                    ("eraseq", ssn in erase and ssn in tb), ("erased", ssn not in tb)):
                    if holds:
                        rows[name].add(((m,), True))
    return Structure({"msg": tuple(msgs)}, {k: frozenset(v) for k, v in rows.items()})
