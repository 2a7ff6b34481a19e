"""The phase rule of Guermouche and Ropars, "Un protocole de recouvrement
arrière hiérarchique pour applications MPI de très grande taille avec
émissions déterministes" (RenPar 2011, §3.2, Fig. 5 lines 20–27, Fig. 6
line 20): a process's phase rises above the phase of every message from
another group it receives (line 23) and to the phase of every message of its
own group (line 27), and messages carry their sender's phase (line 18); so a
message sent causally after an inter-group message carries a larger phase,
and the restart process, which releases a phase of logged messages only once
no lower phase still waits for an orphan, never delivers a message before a
message it causally depends on — for any number of processes, groups,
messages and phases.

The transition relation is that of ``SendDeterministic``
(protocols/send_deterministic.py): ``send`` (``on_send``: the message carries
``Phase``), ``receive`` (``on_match``, where lines 23 and 27 take effect),
``restart`` (a group rolls back: the orphans it sent to other groups wait to
be re-sent, the messages logged for it wait to be released), ``resend`` (the
re-execution re-creates an orphan, line 33) and ``release`` (Fig. 6 line 20).
Phases are an uninterpreted totally ordered sort (``le``), and lines 23/27
are "a phase at least ..." rather than ``max(...)+1`` — every exact value
satisfies it, so the proof covers the protocol. Knob ``phases=False``
(``send-deterministic/no-phases``): ``receive`` leaves the phase unchanged.

Abstraction: one restart; while it runs no new application message is sent
or received (the other groups buffer theirs, Fig. 5 lines 15–16).
"""
from __future__ import annotations

import z3

from rrcheck.checker.invariants import Violation
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic.core import Action, Lemma, Sorts, Symbol, forall, total_order

NAME = "phases"
PROTOCOL = "send-deterministic"
KNOBS = {"phases": True}
MUTANTS = ("send-deterministic/no-phases",)
SCENARIOS = (Scenario("sd_phases", checkpoints=0, crash_kinds=("process",)),
             Scenario("sd_burst", crash_kinds=("process",)))
# failure-free runs whose projections the tests hold to the whole inductive invariant
SAMPLES = (Scenario("sd_phases", checkpoints=0, failures=0), Scenario("reduce", 3, 2, checkpoints=0, failures=0),
           Scenario("ring", 3, 2, checkpoints=0, failures=0))


def build(phases: bool = True) -> Lemma:
    S = Sorts("proc", "msg", "phase")
    A = lambda sig, body: forall(S, sig, body)  # noqa: E731
    imp, And, Not, Or = z3.Implies, z3.And, z3.Not, z3.Or
    rigid = (Symbol("src", ("msg",), "proc"), Symbol("dst", ("msg",), "proc"),
             Symbol("same", ("proc", "proc")), Symbol("ph", ("msg",), "phase"),
             Symbol("le", ("phase", "phase")))
    state = (Symbol("cur", ("proc",), "phase"), Symbol("sent", ("msg",)), Symbol("rcvd", ("msg",)),
             Symbol("past", ("proc", "msg")), Symbol("dep", ("msg", "msg")), Symbol("restarting"),
             Symbol("pending", ("msg",)), Symbol("replay", ("msg",)), Symbol("released", ("msg",)))
    M, MM, P, PM = ("msg",), ("msg", "msg"), ("proc",), ("proc", "msg")

    def axioms(r):
        x, y, z = (z3.FreshConst(S["proc"], n) for n in "xyz")
        return total_order(S, r.le, "phase") + [
            A(M, lambda m: r.src(m) != r.dst(m)),
            z3.ForAll([x], r.same(x, x)), z3.ForAll([x, y], r.same(x, y) == r.same(y, x)),
            z3.ForAll([x, y, z], imp(And(r.same(x, y), r.same(y, z)), r.same(x, z)))]

    def lt(r, a, b):
        return Not(r.le(b, a))

    def inter(r, m):
        return Not(r.same(r.src(m), r.dst(m)))

    def init(r, s):
        return [Not(s.restarting),
                A(M, lambda m: Not(Or(s.sent(m), s.rcvd(m), s.pending(m), s.replay(m), s.released(m)))),
                A(PM, lambda p, m: Not(s.past(p, m))), A(MM, lambda a, b: Not(s.dep(a, b)))]

    def send(r, s, t, m):
        p = r.src(m)
        return [Not(s.restarting), Not(s.sent(m)), r.ph(m) == s.cur(p),        # line 18
                A(M, lambda x: t.sent(x) == Or(s.sent(x), x == m)),
                A(MM, lambda a, b: t.dep(a, b) == Or(s.dep(a, b), And(b == m, s.past(p, a))))]

    def receive(r, s, t, m):
        p = r.dst(m)
        out = [Not(s.restarting), s.sent(m), Not(s.rcvd(m)),
               A(M, lambda x: t.rcvd(x) == Or(s.rcvd(x), x == m)),
               A(PM, lambda q, x: t.past(q, x) == Or(s.past(q, x), And(q == p, Or(x == m, s.dep(x, m))))),
               A(P, lambda q: imp(q != p, t.cur(q) == s.cur(q)))]
        if phases:   # lines 23 and 27
            out += [r.le(s.cur(p), t.cur(p)),
                    z3.If(inter(r, m), lt(r, r.ph(m), t.cur(p)), r.le(r.ph(m), t.cur(p)))]
        else:
            out.append(t.cur(p) == s.cur(p))
        return out

    def restart(r, s, t, g):
        return [Not(s.restarting), t.restarting,
                A(M, lambda m: t.pending(m) == And(s.rcvd(m), r.same(r.src(m), g), Not(r.same(r.dst(m), g)))),
                A(M, lambda m: t.replay(m) == And(s.sent(m), Not(r.same(r.src(m), g)), r.same(r.dst(m), g))),
                A(M, lambda m: Not(t.released(m)))]

    def resend(r, s, t, m):
        return [s.restarting, s.pending(m), A(M, lambda x: t.pending(x) == And(s.pending(x), x != m))]

    def release(r, s, t, m):
        # Fig. 6 line 20: a phase goes once no lower phase waits for an orphan
        return [s.restarting, s.replay(m), Not(s.released(m)),
                A(M, lambda x: imp(s.pending(x), r.le(r.ph(m), r.ph(x)))),
                A(M, lambda x: t.released(x) == Or(s.released(x), x == m))]

    actions = (
        Action("send", (("m", "msg"),), ("sent", "dep"), send),
        Action("receive", (("m", "msg"),), ("rcvd", "past", "cur"), receive),
        Action("restart", (("g", "proc"),), ("restarting", "pending", "replay", "released"), restart),
        Action("resend", (("m", "msg"),), ("pending",), resend),
        Action("release", (("m", "msg"),), ("released",), release),
    )
    conjuncts = (
        ("CausalReplayOrder", lambda r, s: A(MM, lambda a, b: imp(And(s.released(b), s.dep(a, b)),
                                                                  Not(s.pending(a))))),
        ("PhaseRule", lambda r, s: A(MM, lambda a, b: imp(And(s.dep(a, b), inter(r, a)), lt(r, r.ph(a), r.ph(b))))),
        ("PhaseAboveCausalPast", lambda r, s: A(PM, lambda p, m: imp(And(s.past(p, m), inter(r, m)),
                                                                     lt(r, r.ph(m), s.cur(p))))),
        ("pending_are_inter_group", lambda r, s: A(M, lambda m: imp(s.pending(m), inter(r, m)))),
        ("restart_state", lambda r, s: A(M, lambda m: imp(Or(s.pending(m), s.replay(m), s.released(m)),
                                                          s.restarting))),
        ("released_were_logged", lambda r, s: A(M, lambda m: imp(s.released(m), s.replay(m)))),
    )
    return Lemma(NAME, "a message sent causally after an inter-group message has a larger phase; phase-ordered "
                 "release respects causality", "Guermouche and Ropars, RenPar 2011, §3.2, Fig. 5 lines 18–27, "
                 "Fig. 6 line 20", PROTOCOL, MUTANTS, S, rigid, state, axioms, init, actions, conjuncts,
                 ("CausalReplayOrder", "PhaseRule", "PhaseAboveCausalPast"), {"phases": phases})


def twin(judge, before, action, s, obs):
    """PhaseAboveCausalPast over model states: a live process's ``Phase`` is
    above the phase of every message from another group its application has
    received (``RPP[j]`` holds their (date, phase, …) from arrival, line 25;
    those still in the matching queue are not received yet)."""
    sysm = judge.sys
    ctx = sysm.ctx
    for p, pr in enumerate(s.procs):
        vol = pr.vol
        if vol is None:
            continue
        for j in range(sysm.n):
            if ctx.internal(p, j):
                continue
            waiting = {m.hdr[0] for m in pr.mailbox if m.msg.src == j}
            for date, phase, *_ in vol.RPP[j][1]:  # reading 15 adds the sending epoch
                if date in waiting:
                    continue
                judge.w["inter_group_receptions_checked"] += 1
                if not vol.Phase > phase:
                    return Violation("PhaseAboveCausalPast", f"P{p} received a message of phase {phase} from P{j} "
                                     f"of another group but its phase is {vol.Phase}: what it sends next does not "
                                     f"carry a larger phase", {"process": p, "sender": j, "phase": phase,
                                                               "Phase": vol.Phase})
    return None


# --- the projection of a model state (checker/symbolic/project.py) ------------------
# It reads failure-free states only: the lemma's restart keeps the phases and
# causal pasts of the first run, which a rollback of the Python protocol
# replaces. A CTI whose pre-state is in a restart is outside it (``covers``).

def covers(cti) -> bool:
    return cti.pre["restarting"] is not True and not any(cti.pre[r] for r in ("pending", "replay", "released"))


def cti_system(cti, protocol: str, mutant: str | None):
    """A failure-free run with exactly the CTI's sent messages, its groups
    (``same``) one per node, and in each process the order of receptions and
    sends its ``dep`` relation fixes — after the CTI's action, so that the
    protocol can take that step from the pre-state."""
    from rrcheck.checker.symbolic.project import groups, program_order, system_of
    from rrcheck.checker.model.workloads import recv, send
    procs = sorted(cti.universe["proc"])
    idx = {p: i for i, p in enumerate(procs)}
    rigid = {sym: dict(r.split("->") for r in cti.rigid[sym]) for sym in ("src", "dst")}
    # the programs hold the CTI's own step too (a reception the action makes): the post-state's rows
    rows = lambda sym: {tuple(r.split(",")) if "," in r else r for r in cti.post.get(sym, cti.pre[sym])}  # noqa: E731
    pre = {"sent": rows("sent"), "rcvd": rows("rcvd"), "dep": rows("dep")}
    node_of = groups(cti)
    progs = []
    for p in procs:
        order = program_order(p, rigid, pre["sent"], pre["rcvd"], pre["dep"])
        if order is None:
            order = []  # no program realises the pre-state: the search finds nothing, completely
        progs.append(tuple(recv(idx[rigid["src"][m]]) if kind == "recv" else send(idx[rigid["dst"][m]])
                           for kind, m in order))
    while len(progs) < 2:
        progs.append(())
        node_of.append(max(node_of) + 1)
    sysm = system_of(protocol, mutant, "phases_cti", progs, node_of, "the CTI's messages, groups and causal order",
                     failures=0, checkpoints=0)
    return sysm, f"the CTI's messages n={len(progs)} f=0 c=0"


def ghost_init(sysm):
    """(phase each message was sent with, each process's causal past, dep)."""
    return frozenset(), (frozenset(),) * sysm.n, frozenset()


def ghost_step(sysm, g, s, a, s2, obs):
    phs, past, dep = g
    for o in obs:
        if o[0] == "sent":  # line 18: the message carries the sender's Phase
            _, p, q, k, _ = o
            m = (p, q, k)
            phs = phs | {(m, s.procs[p].vol.Phase)}
            dep = dep | {(x, m) for x in past[p]}
        elif o[0] == "delivered":
            _, p, src, k = o[:4]
            m = (src, p, k)
            past = past[:p] + (past[p] | {m} | {x for x, y in dep if y == m},) + past[p + 1:]
    return phs, past, dep


def project(sysm, s, g):
    """A failure-free state in the lemma's vocabulary: each process's ``Phase``
    (``cur``), per message sent its phase, whether its receiver's application
    received it, the causal pasts and dependences; no restart."""
    from rrcheck.checker.symbolic.project import Structure
    if s.failures or any(not pr.alive or pr.vol is None for pr in s.procs):
        return None
    phs, past, dep = g
    ctx, n = sysm.ctx, sysm.n
    P = {p: ("P", p) for p in range(n)}
    values = sorted({ph for _, ph in phs} | {pr.vol.Phase for pr in s.procs})
    Ph = {v: ("phase", v) for v in values}
    M = {m: ("m",) + m for m, _ in phs}
    rcvd = {m for m in M if m[2] in s.procs[m[1]].ghost.delivered_ids(m[0])}
    rows = {"src": {((M[m],), P[m[0]]) for m in M}, "dst": {((M[m],), P[m[1]]) for m in M},
            "same": {((P[p], P[q]), True) for p in range(n) for q in range(n) if ctx.internal(p, q)},
            "ph": {((M[m],), Ph[ph]) for m, ph in phs},
            "le": {((Ph[a], Ph[b]), True) for a in values for b in values if a <= b},
            "cur": {((P[p],), Ph[s.procs[p].vol.Phase]) for p in range(n)},
            "sent": {((M[m],), True) for m in M}, "rcvd": {((M[m],), True) for m in rcvd},
            "past": {((P[p], M[m]), True) for p in range(n) for m in past[p]},
            "dep": {((M[a], M[b]), True) for a, b in dep},
            "restarting": set(), "pending": set(), "replay": set(), "released": set()}
    return Structure({"proc": tuple(P.values()), "msg": tuple(M.values()), "phase": tuple(Ph.values())},
                     {k: frozenset(v) for k, v in rows.items()})
