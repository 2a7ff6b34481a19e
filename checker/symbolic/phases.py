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
(protocols/send_deterministic.py), a restart included: ``send`` (``on_send``:
the message carries ``Phase``), ``arrive`` (``_receive``, lines 20–25: the
message enters RPP and the matching queue; a copy from a peer's incarnation
the receiver has left is stale, reading 7), ``receive`` (``on_match``, where
lines 23 and 27 take effect, reading 9), ``restore`` and ``rollback`` (lines
44–49: a member of the restarting group goes back to its start and what it
sent is old; a restarted member first restores its image and waits, doing
nothing, for the leader's word, and only the rollback it then makes tells the
other groups, line 49), ``resend`` (the re-execution re-creates an old
message with its phase, §2.3), ``log`` (line 54: another group hands a logged
message for a restarted member to the restart process) and ``release`` (Fig. 6
line 20: once every member told, reading 5, a logged message goes when no
orphan — a message of an old incarnation that arrived and is not re-sent yet —
has a lower phase). Phases are an uninterpreted totally ordered sort (``le``),
and lines 23/27 are "a phase at least ..." rather than ``max(...)+1`` — every
exact value satisfies it, so the proof covers the protocol. Knob
``phases=False`` (``send-deterministic/no-phases``): ``receive`` leaves the
phase unchanged.

Abstraction: one restart of one group, from the processes' start (no
checkpoint restored); the other groups keep sending and receiving while it
runs, as the protocol lets them until a restart message reaches them.
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
# runs whose projections the tests hold to the whole inductive invariant: a restart among them
SAMPLES = (Scenario("sd_phases", checkpoints=0, failures=0), Scenario("reduce", 3, 2, checkpoints=0, failures=0),
           Scenario("ring", 3, 2, checkpoints=0, failures=0),
           Scenario("sd_phases", checkpoints=0, crash_kinds=("process",)))


def build(phases: bool = True) -> Lemma:
    S = Sorts("proc", "msg", "phase")
    A = lambda sig, body: forall(S, sig, body)  # noqa: E731
    imp, And, Not, Or = z3.Implies, z3.And, z3.Not, z3.Or
    rigid = (Symbol("src", ("msg",), "proc"), Symbol("dst", ("msg",), "proc"),
             Symbol("same", ("proc", "proc")), Symbol("ph", ("msg",), "phase"),
             Symbol("le", ("phase", "phase")))
    state = (Symbol("cur", ("proc",), "phase"), Symbol("sent", ("msg",)), Symbol("arrived", ("msg",)),
             Symbol("rcvd", ("msg",)), Symbol("past", ("proc", "msg")), Symbol("dep", ("msg", "msg")),
             Symbol("rolled", ("proc",)), Symbol("told", ("proc",)), Symbol("old", ("msg",)), Symbol("replay", ("msg",)),
             Symbol("released", ("msg",)))
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

    def orphan(s, m):
        """Received (line 21: in RPP on arrival) from an incarnation that rolled back, not yet re-sent."""
        return And(s.arrived(m), s.old(m))

    def init(r, s):
        return [A(M, lambda m: Not(Or(s.sent(m), s.arrived(m), s.rcvd(m), s.old(m), s.replay(m), s.released(m)))),
                A(P, lambda p: Not(Or(s.rolled(p), s.told(p)))),
                A(PM, lambda p, m: Not(s.past(p, m))), A(MM, lambda a, b: Not(s.dep(a, b)))]

    def send(r, s, t, m):
        p = r.src(m)
        return [Not(s.sent(m)), r.ph(m) == s.cur(p),                                 # line 18
                A(M, lambda x: t.sent(x) == Or(s.sent(x), x == m)),
                A(MM, lambda a, b: t.dep(a, b) == Or(s.dep(a, b), And(b == m, s.past(p, a))))]

    def resend(r, s, t, m):
        # the re-execution re-creates a message of the rolled-back incarnation (§2.3, line 33), with its phase
        return [s.old(m), r.ph(m) == s.cur(r.src(m)), A(M, lambda x: t.old(x) == And(s.old(x), x != m))]

    def arrive(r, s, t, m):
        # lines 20–25 on arrival; a copy from a peer's incarnation the receiver's rollback left is stale (reading 7)
        stale = And(s.told(r.dst(m)), r.same(r.src(m), r.dst(m)), Or(s.old(m), Not(s.told(r.src(m)))))
        return [s.sent(m), Not(s.arrived(m)), Not(stale), A(M, lambda x: t.arrived(x) == Or(s.arrived(x), x == m))]

    def receive(r, s, t, m):
        p = r.dst(m)
        out = [s.arrived(m), Not(s.rcvd(m)),
               A(M, lambda x: t.rcvd(x) == Or(s.rcvd(x), x == m)),
               A(PM, lambda q, x: t.past(q, x) == Or(s.past(q, x), And(q == p, Or(x == m, s.dep(x, m))))),
               A(P, lambda q: imp(q != p, t.cur(q) == s.cur(q)))]
        if phases:   # lines 23 and 27
            out += [r.le(s.cur(p), t.cur(p)),
                    z3.If(inter(r, m), lt(r, r.ph(m), t.cur(p)), r.le(r.ph(m), t.cur(p)))]
        else:
            out.append(t.cur(p) == s.cur(p))
        return out

    def rollback(tell):
        """Lines 44–49: a member of the one group that restarts goes back to its start, and
        what it sent is old. A restarted member first restores its image and awaits the line
        its leader names (reading 8), doing nothing, then rolls back again at the leader's
        word; only that rollback tells the other groups (line 49: ``told``), and every
        release waits for it (reading 5)."""
        def formula(r, s, t, g):
            idle = And(A(M, lambda m: imp(And(r.src(m) == g, s.sent(m)), s.old(m))),
                       A(M, lambda m: Not(s.past(g, m))))
            return [Not(s.told(g)), imp(s.rolled(g), idle), A(P, lambda x: imp(s.rolled(x), r.same(x, g))),
                    A(P, lambda x: t.rolled(x) == Or(s.rolled(x), x == g)),
                    A(P, lambda x: t.told(x) == Or(s.told(x), And(x == g, z3.BoolVal(tell)))),
                    A(M, lambda m: t.arrived(m) == And(s.arrived(m), r.dst(m) != g)),
                    A(M, lambda m: t.rcvd(m) == And(s.rcvd(m), r.dst(m) != g)),
                    A(PM, lambda q, m: t.past(q, m) == And(s.past(q, m), q != g)),
                    A(P, lambda q: imp(q != g, t.cur(q) == s.cur(q))),
                    A(M, lambda m: t.old(m) == Or(s.old(m), And(r.src(m) == g, s.sent(m))))]
        return formula

    def log(r, s, t, m):
        # line 54: another group hands what it logged for a restarted member to the restart process
        return [s.sent(m), inter(r, m), s.rolled(r.dst(m)), A(M, lambda x: t.replay(x) == Or(s.replay(x), x == m))]

    def release(r, s, t, m):
        # Fig. 6 line 20: once every member restarted (reading 5), a phase goes when no lower one waits for an orphan
        return [s.replay(m), Not(s.released(m)), A(P, lambda x: imp(r.same(x, r.dst(m)), s.told(x))),
                A(M, lambda x: imp(orphan(s, x), r.le(r.ph(m), r.ph(x)))),
                A(M, lambda x: t.released(x) == Or(s.released(x), x == m))]

    actions = (
        Action("send", (("m", "msg"),), ("sent", "dep"), send),
        Action("arrive", (("m", "msg"),), ("arrived",), arrive),
        Action("receive", (("m", "msg"),), ("rcvd", "past", "cur"), receive),
        Action("restore", (("g", "proc"),), ("rolled", "told", "arrived", "rcvd", "past", "cur", "old"),
               rollback(False)),
        Action("rollback", (("g", "proc"),), ("rolled", "told", "arrived", "rcvd", "past", "cur", "old"),
               rollback(True)),
        Action("resend", (("m", "msg"),), ("old",), resend),
        Action("log", (("m", "msg"),), ("replay",), log),
        Action("release", (("m", "msg"),), ("released",), release),
    )
    conjuncts = (
        ("CausalReplayOrder", lambda r, s: A(MM, lambda a, b: imp(And(s.released(b), s.dep(a, b)),
                                                                  Not(orphan(s, a))))),
        ("PhaseRule", lambda r, s: A(MM, lambda a, b: imp(And(s.dep(a, b), inter(r, a)), lt(r, r.ph(a), r.ph(b))))),
        ("PhaseAboveCausalPast", lambda r, s: A(PM, lambda p, m: imp(And(s.past(p, m), inter(r, m)),
                                                                     lt(r, r.ph(m), s.cur(p))))),
        ("one_group_restarts", lambda r, s: A(("proc", "proc"), lambda x, y: imp(And(s.rolled(x), s.rolled(y)),
                                                                                r.same(x, y)))),
        ("old_were_sent_by_the_rolled", lambda r, s: A(M, lambda m: imp(s.old(m), And(s.sent(m),
                                                                                       s.rolled(r.src(m)))))),
        ("told_rolled", lambda r, s: A(P, lambda x: imp(s.told(x), s.rolled(x)))),
        ("orphans_are_outside_the_told", lambda r, s: A(M, lambda m: imp(orphan(s, m), Not(s.told(r.dst(m)))))),
        ("logged_for_the_rolled", lambda r, s: A(M, lambda m: imp(s.replay(m), And(s.sent(m), inter(r, m),
                                                                                     s.rolled(r.dst(m)))))),
        ("released_after_every_member", lambda r, s: A(("msg", "proc"), lambda m, x: imp(
            And(s.released(m), r.same(x, r.dst(m))), And(s.replay(m), s.told(x))))),
        ("causes_arrived", lambda r, s: A(MM, lambda a, b: imp(s.dep(a, b), Or(s.arrived(a), s.rolled(r.dst(a)))))),
        ("past_arrived", lambda r, s: A(PM, lambda p, a: imp(s.past(p, a), Or(s.arrived(a), s.rolled(r.dst(a)))))),
        ("no_stale_arrival", lambda r, s: A(M, lambda m: imp(
            And(s.arrived(m), s.told(r.dst(m)), r.same(r.src(m), r.dst(m))), And(s.told(r.src(m)), Not(s.old(m)))))),
        ("rcvd_arrived", lambda r, s: A(M, lambda m: imp(s.rcvd(m), s.arrived(m)))),
        ("arrived_sent", lambda r, s: A(M, lambda m: imp(s.arrived(m), s.sent(m)))),
        ("dep_of_sent", lambda r, s: A(MM, lambda a, b: imp(s.dep(a, b), s.sent(b)))),
    )
    return Lemma(NAME, "a message sent causally after an inter-group message has a larger phase; phase-ordered "
                 "release respects causality", "Guermouche and Ropars, RenPar 2011, §3.2, Fig. 5 lines 18–27, "
                 "44–54, Fig. 6 line 20", PROTOCOL, MUTANTS, S, rigid, state, axioms, init, actions, conjuncts,
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
# It reads the first run and one restart from the start (no checkpoint restored):
# a crashed process keeps, until its rollback, what it had; a rollback is the
# relation's ``rollback``; the re-execution's sends of what the rolled-back
# incarnation sent are ``resend``; what other groups hand to the restart process
# (line 54) is ``log``, what it replays (Fig. 6 line 20) is ``release``. A second
# rollback of a process that re-executed, or a checkpoint restored, is outside
# the one round the lemma states. A CTI inside a restart is searched for through
# the twin (``covers``).

def covers(cti) -> bool:
    return not any(cti.pre[r] for r in ("rolled", "old", "replay", "released"))


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
    """(the phase each message was first sent with; each process's causal past in
    its incarnation; the causal dependences of first sends; the rolled-back
    processes; the messages of their old incarnations not re-sent yet; what went
    to the restart process and what it replayed; per crashed process, what it
    had when it crashed; whether the run left the one round)."""
    n = sysm.n
    return frozenset(), (frozenset(),) * n, frozenset(), frozenset(), frozenset(), frozenset(), frozenset(), \
        frozenset(), (None,) * n, False


def _had(sysm, s, p) -> tuple:
    """What process p holds in the lemma's vocabulary: arrived and received messages, its Phase."""
    pr = s.procs[p]
    got = {(src, p, k) for src in range(sysm.n) if src != p for k in pr.ghost.delivered_ids(src)}
    return frozenset(got | {m.msg.gid for m in pr.mailbox}), frozenset(got), pr.vol.Phase


def ghost_step(sysm, g, s, a, s2, obs):
    phs, past, dep, rolled, told, old, replay, released, frozen, beyond = g
    n = sysm.n
    telling = False
    if a[0] not in ("crash", "crash_node", "coll_all"):
        p = a[2] if a[0] == "deliver" else a[1]  # a local step: what p put on its outgoing channels
        for q in range(n):
            for pk in s2.wire[p * n + q][len(s.wire[p * n + q]):]:
                if pk.kind == "rp_log":
                    replay = replay | {pk.msg.gid}
                elif pk.kind == "replay":
                    released = released | {pk.msg.gid}
                telling = telling or pk.kind == "restart"
    first = {m for m, _ in phs}
    for o in obs:
        if o[0] == "sent":  # line 18: the message carries the sender's Phase
            _, p, q, k, _ = o
            m = (p, q, k)
            phs = phs | {(m, s.procs[p].vol.Phase)}
            if m in first:
                old = old - {m}
            else:
                dep = dep | {(x, m) for x in past[p]}
        elif o[0] == "delivered":
            _, p, src, k = o[:4]
            m = (src, p, k)
            past = past[:p] + (past[p] | {m} | {x for x, y in dep if y == m},) + past[p + 1:]
        elif o[0] == "crash":
            p = o[1]
            frozen = frozen[:p] + (_had(sysm, s, p),) + frozen[p + 1:]
        elif o[0] == "restore":
            p, cid = o[1], o[2]
            mine = {m for m in first if m[0] == p}
            beyond = beyond or cid != 0
            rolled, old = rolled | {p}, old | mine
            if telling:  # line 49: the rollback that tells the other groups
                told = told | {p}
            past = past[:p] + (frozenset(),) + past[p + 1:]
            frozen = frozen[:p] + (None,) + frozen[p + 1:]
    return phs, past, dep, rolled, told, old, replay, released, frozen, beyond


def project(sysm, s, g):
    """A state in the lemma's vocabulary: each process's ``Phase`` (``cur``),
    per message sent its phase, whether it arrived (line 21: in its receiver's
    RPP, and in the matching queue or taken) and whether the application
    received it (lines 22–27), the causal pasts and dependences; the group
    members rolled back, their old messages not re-sent yet, what went to the
    restart process and what it replayed."""
    from rrcheck.checker.symbolic.project import Structure
    phs, past, dep, rolled, told, old, replay, released, frozen, beyond = g
    if beyond:
        return None
    ctx, n = sysm.ctx, sysm.n
    had = [frozen[p] or _had(sysm, s, p) for p in range(n)]
    P = {p: ("P", p) for p in range(n)}
    values = sorted({ph for _, ph in phs} | {h[2] for h in had})
    Ph = {v: ("phase", v) for v in values}
    M = {m: ("m",) + m for m, _ in phs}
    rows = {"src": {((M[m],), P[m[0]]) for m in M}, "dst": {((M[m],), P[m[1]]) for m in M},
            "same": {((P[p], P[q]), True) for p in range(n) for q in range(n) if ctx.internal(p, q)},
            "ph": {((M[m],), Ph[ph]) for m, ph in phs},
            "le": {((Ph[a], Ph[b]), True) for a in values for b in values if a <= b},
            "cur": {((P[p],), Ph[had[p][2]]) for p in range(n)},
            "sent": {((M[m],), True) for m in M},
            "arrived": {((M[m],), True) for m in M if m in had[m[1]][0]},
            "rcvd": {((M[m],), True) for m in M if m in had[m[1]][1]},
            "past": {((P[p], M[m]), True) for p in range(n) for m in past[p]},
            "dep": {((M[a], M[b]), True) for a, b in dep},
            "rolled": {((P[p],), True) for p in rolled}, "told": {((P[p],), True) for p in told},
            "old": {((M[m],), True) for m in old},
            "replay": {((M[m],), True) for m in replay}, "released": {((M[m],), True) for m in released}}
    return Structure({"proc": tuple(P.values()), "msg": tuple(M.values()), "phase": tuple(Ph.values())},
                     {k: frozenset(v) for k, v in rows.items()})
