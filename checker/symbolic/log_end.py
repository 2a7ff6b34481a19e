"""The Log-End line of C3 (Bronevetsky, Marques, Pingali, Stodghill,
application-level checkpointing for MPI; Pingali's slides "Log-End Line",
"Handling Late Messages"): the line joining the points where each process
stops logging epoch k is crossed by no message backwards (nothing sent after
its sender stopped logging is received while its receiver still logs) and by
no late message (each message sent before its sender's checkpoint is
received before its receiver stops logging, so it is in a log) — for any
number of processes and messages.

The transition relation is that of ``AppLevel`` (protocols/app_level.py):
``send`` (the header carries the epoch and the logging bit, ``on_send``),
``checkpoint`` (``_checkpoint``: logging starts), ``deliver`` (``_receive``:
a message from a process that stopped logging stops the receiver's logging),
``ready`` (``_maybe_ready``: every other process's count for this epoch is in —
it has checkpointed — and every message it sent here before its checkpoint
arrived; under ``ready_after_late=False`` it has no condition, so the call
``_checkpoint`` makes turns it into part of the checkpoint) and ``stop`` (``_maybe_stop``/``_stop``: Stop_logging once every
process is ready). Knobs: ``ready_after_late=False``
(``app-level/early-ready-to-stop``) drops ready's condition;
``stop_on_stopped_sender=False`` (``app-level/no-stop-on-logged-sender``)
keeps logging after a message from a stopped sender.

Abstraction: one epoch; any process may checkpoint (the initiator's
Chkpt_Ok and the checkpoint sites only restrict when); the count messages are
read as "the sender has checkpointed"; no failure.
"""
from __future__ import annotations

import z3

from rrcheck.checker.invariants.app_level import no_backward_crossing, no_late_crossing
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic.core import Action, Lemma, Sorts, Symbol, forall

NAME = "log-end"
PROTOCOL = "app-level"
KNOBS = {"ready_after_late": True, "stop_on_stopped_sender": True}
MUTANTS = ("app-level/early-ready-to-stop", "app-level/no-stop-on-logged-sender")
SCENARIOS = (Scenario("c3_collectives", at_sites=True, crash_kinds=("process",)),
             Scenario("c3_epochs", at_sites=True, crash_kinds=("process",), failures=0))
# failure-free runs whose projections the tests hold to the whole inductive invariant
SAMPLES = (Scenario("c3_epochs", at_sites=True, crash_kinds=("process",), failures=0),
           Scenario("c3_two_late", at_sites=True, crash_kinds=("process",), failures=0))


def build(ready_after_late: bool = True, stop_on_stopped_sender: bool = True) -> Lemma:
    S = Sorts("proc", "msg")
    A = lambda sig, body: forall(S, sig, body)  # noqa: E731
    imp, And, Not, Or = z3.Implies, z3.And, z3.Not, z3.Or
    rigid = (Symbol("src", ("msg",), "proc"), Symbol("dst", ("msg",), "proc"))
    state = (Symbol("ck", ("proc",)), Symbol("logging", ("proc",)), Symbol("ready", ("proc",)),
             Symbol("sent", ("msg",)), Symbol("hck", ("msg",)), Symbol("hlog", ("msg",)),
             Symbol("arrived", ("msg",)), Symbol("late_unlogged", ("msg",)))
    M, P = ("msg",), ("proc",)

    def stopped_hdr(s, m):
        return And(s.hck(m), Not(s.hlog(m)))

    def axioms(r):
        return [A(M, lambda m: r.src(m) != r.dst(m))]

    def init(r, s):
        return [A(P, lambda p: Not(Or(s.ck(p), s.logging(p), s.ready(p)))),
                A(M, lambda m: Not(Or(s.sent(m), s.hck(m), s.hlog(m), s.arrived(m), s.late_unlogged(m))))]

    def send(r, s, t, m):
        p = r.src(m)
        return [Not(s.sent(m)), A(M, lambda x: t.sent(x) == Or(s.sent(x), x == m)),
                A(M, lambda x: t.hck(x) == z3.If(x == m, s.ck(p), s.hck(x))),
                A(M, lambda x: t.hlog(x) == z3.If(x == m, s.logging(p), s.hlog(x)))]

    def checkpoint(r, s, t, p):
        out = [Not(s.ck(p)), A(P, lambda x: t.ck(x) == Or(s.ck(x), x == p)),
               A(P, lambda x: t.logging(x) == Or(s.logging(x), x == p))]
        if not ready_after_late:  # _checkpoint calls _maybe_ready, which then has no condition
            out.append(A(P, lambda x: t.ready(x) == Or(s.ready(x), x == p)))
        return out

    def deliver(r, s, t, m):
        d = r.dst(m)
        stop = And(s.logging(d), stopped_hdr(s, m)) if stop_on_stopped_sender else z3.BoolVal(False)
        logging_after = And(s.logging(d), Not(stop))
        return [s.sent(m), Not(s.arrived(m)), A(M, lambda x: t.arrived(x) == Or(s.arrived(x), x == m)),
                A(P, lambda x: t.logging(x) == z3.If(x == d, logging_after, s.logging(x))),
                A(M, lambda x: t.late_unlogged(x) == z3.If(
                    x == m, And(Not(s.hck(m)), s.ck(d), Not(logging_after)), s.late_unlogged(x)))]

    def ready(r, s, t, p):
        out = [s.logging(p), Not(s.ready(p)), A(P, lambda x: t.ready(x) == Or(s.ready(x), x == p))]
        if ready_after_late:
            out += [A(P, lambda q: s.ck(q)),
                    A(M, lambda m: imp(And(s.sent(m), r.dst(m) == p, Not(s.hck(m))), s.arrived(m)))]
        return out

    def stop(r, s, t, p):
        return [s.logging(p), A(P, lambda q: s.ready(q)),
                A(P, lambda x: t.logging(x) == And(s.logging(x), x != p))]

    actions = (
        Action("send", (("m", "msg"),), ("sent", "hck", "hlog"), send),
        Action("checkpoint", (("p", "proc"),), ("ck", "logging") + (() if ready_after_late else ("ready",)),
               checkpoint),
        Action("deliver", (("m", "msg"),), ("arrived", "logging", "late_unlogged"), deliver),
        Action("ready", (("p", "proc"),), ("ready",), ready),
        Action("stop", (("p", "proc"),), ("logging",), stop),
    )
    all_ready = lambda s: A(P, lambda q: s.ready(q))  # noqa: E731
    conjuncts = (
        ("LogEndNoBackwardCrossing", lambda r, s: A(M, lambda m: imp(And(s.arrived(m), stopped_hdr(s, m)),
                                                                     Not(s.logging(r.dst(m)))))),
        ("LogEndNoLateCrossing", lambda r, s: A(M, lambda m: Not(s.late_unlogged(m)))),
        ("unsent_is_blank", lambda r, s: A(M, lambda m: imp(Not(s.sent(m)), Not(Or(
            s.hck(m), s.hlog(m), s.arrived(m), s.late_unlogged(m)))))),
        ("header_logging_after_checkpoint", lambda r, s: A(M, lambda m: imp(s.hlog(m), s.hck(m)))),
        ("logging_after_checkpoint", lambda r, s: A(P, lambda p: imp(Or(s.logging(p), s.ready(p)), s.ck(p)))),
        ("stopped_means_all_ready", lambda r, s: A(P, lambda p: imp(And(s.ck(p), Not(s.logging(p))), all_ready(s)))),
        ("stopped_header_means_all_ready", lambda r, s: A(M, lambda m: imp(stopped_hdr(s, m), all_ready(s)))),
        ("ready_means_all_checkpointed", lambda r, s: A(P, lambda p: imp(s.ready(p), A(P, lambda q: s.ck(q))))),
        ("ready_after_late_messages", lambda r, s: A(M, lambda m: imp(And(
            s.ready(r.dst(m)), s.sent(m), Not(s.hck(m))), s.arrived(m)))),
    )
    return Lemma(NAME, "no message crosses the Log-End line backwards, and no late message crosses it",
                 "Bronevetsky, Marques, Pingali, Stodghill (C3); Pingali's slides \"Log-End Line\"",
                 PROTOCOL, MUTANTS, S, rigid, state, axioms, init, actions, conjuncts,
                 ("LogEndNoBackwardCrossing", "LogEndNoLateCrossing"),
                 {"ready_after_late": ready_after_late, "stop_on_stopped_sender": stop_on_stopped_sender})


def twin(judge, before, action, after, obs):
    """The two Log-End properties of checker/invariants/app_level.py, judged
    on every transition (the header of each received message against its
    receiver's state)."""
    if before is None:
        return None
    return (no_backward_crossing(judge, before, action, after, obs)
            or no_late_crossing(judge, before, action, after, obs))


# --- the projection of a model state (checker/symbolic/project.py) ------------------

def cti_system(cti, protocol: str, mutant: str | None):
    """A failure-free run of one epoch with exactly the CTI's sent messages: each
    process sends those the CTI says it sent before its checkpoint (``hck``
    false), passes its checkpoint site, sends the others, then receives what
    was sent to it (a reception that never comes leaves it waiting: arrival
    is what the vocabulary reads, not the application's receive)."""
    from rrcheck.checker.symbolic.project import system_of
    from rrcheck.checker.model.workloads import SITE, recv, send
    procs = sorted(cti.universe["proc"])
    idx = {p: i for i, p in enumerate(procs)}
    pre = lambda sym: {r.split("->")[0] for r in cti.pre[sym]}  # noqa: E731
    rigid = {sym: dict(r.split("->") for r in cti.rigid[sym]) for sym in ("src", "dst")}
    sent, hck = pre("sent"), pre("hck")
    before = [[] for _ in procs]
    after = [[] for _ in procs]
    into = [[] for _ in procs]
    for m in sorted(sent):
        s, d = idx[rigid["src"][m]], idx[rigid["dst"][m]]
        (after if m in hck else before)[s].append(send(d))
        into[d].append(recv(s))
    progs = [tuple(before[i] + [SITE] + after[i] + into[i]) for i in range(len(procs))]
    n = max(2, len(procs))
    progs += [(SITE,)] * (n - len(progs))
    sysm = system_of(protocol, mutant, "log_end_cti", progs, range(n),
                     "the CTI's messages around one checkpoint site per process", fifo=False,
                     failures=0, checkpoints=1, crash_kinds=("process",), at_sites=True)
    return sysm, f"the CTI's messages n={n} f=0 c=1@sites"


def ghost_init(sysm):
    return frozenset()


def ghost_step(sysm, g, s, a, s2, obs):
    """The header each message was sent with: the sender's epoch past 0 (``hck``)
    and its logging bit (``hlog``), as ``AppLevel.on_send`` piggybacks them."""
    for o in obs:
        if o[0] == "sent":
            _, p, q, k, _ = o
            vol = s.procs[p].vol
            g = g | {((p, q, k), vol.epoch >= 1, vol.logging)}
    return g


def project(sysm, s, g):
    """Epoch 1 of a failure-free run in the lemma's vocabulary: who checkpointed
    (``ck``), logs, is ready; per message sent, its header, whether it arrived,
    and whether it is late (``hck`` false) yet arrived after its receiver's
    checkpoint and is in no log (``late_unlogged``)."""
    from rrcheck.checker.symbolic.project import Structure
    from rrcheck.protocols.app_level import _get
    if any(not pr.alive or pr.vol is None or pr.vol.epoch > 1 for pr in s.procs):
        return None
    n = sysm.n
    P = {p: ("P", p) for p in range(n)}
    vols = [pr.vol for pr in s.procs]
    rows: dict = {"ck": {((P[p],), True) for p in range(n) if vols[p].epoch >= 1},
                  "logging": {((P[p],), True) for p in range(n) if vols[p].logging},
                  "ready": {((P[p],), True) for p in range(n) if vols[p].ready}}
    for name in ("sent", "hck", "hlog", "arrived", "late_unlogged"):
        rows[name] = set()
    msgs, src, dst = [], set(), set()
    for (p, q, k), hck, hlog in sorted(g):
        m = ("m", p, q, k)
        msgs.append(m)
        src.add(((m,), P[p]))
        dst.add(((m,), P[q]))
        stab = s.procs[q].stab
        arrived = k in vols[q].rcvd[p]
        saved = _get(stab.ckpts, 1)
        logs = [vols[q].log] + [log for _, log in stab.logs]
        late_unlogged = (arrived and not hck and saved is not None and k not in saved.rcvd[p]
                         and not any(mid == k and msg.src == p for log in logs for mid, msg in log.late))
        for name, holds in (("sent", True), ("hck", hck), ("hlog", hlog), ("arrived", arrived),
                            ("late_unlogged", late_unlogged)):
            if holds:
                rows[name].add(((m,), True))
    rows["src"], rows["dst"] = src, dst
    return Structure({"proc": tuple(P.values()), "msg": tuple(msgs)}, {n_: frozenset(r) for n_, r in rows.items()})
