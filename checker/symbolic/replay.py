"""Replay determinism behind Theorem 2 of Bouteiller, Herault, Bosilca,
Dongarra, "Correlated set coordination in fault tolerant message logging
protocols for many-core clusters" (CCPE 2013, §3.2.2): with the event
logging of every reception, a rolled-back correlated set re-receives in the
logged order — each member's i-th reception of the re-execution is its i-th
reception of the first run — so, by piecewise determinism, every message it
sends again equals the first. Without the event logging of internal
receptions, the order between an internal reception and one on another
channel is free again, and Z3 finds the execution of two sets where it
differs (the m3/m4/m5 execution of the paper's Fig. 2).

The transition relation is the replay of ``MessageLogging``
(protocols/logging.py, which ``CorrelatedSet`` extends): ``_rollback`` puts the
logged determinants after the checkpoint in RSN order in ``replay``;
``may_match`` lets a member match a message only if it is ``replay[0]``, or —
when the reception is not event-logged (``_logged``: knob
``log_internal_events``, ``correlated-set/no-internal-event-logging``) — if it
is not in ``replay``; with ``replay`` consumed, any match (the run goes on).
The first run is rigid: ``orig(p, i, m)``, p's i-th reception was m, for the
positions ``has(p, i)`` it reached (prefix-closed; positions an ordered sort).
Abstraction: every message addressed to a member may be available again (the
payload copies of the other sets, the members' re-sends); the checkpoint is
position 0; pessimism (every reception a send depends on is logged before
the send) is the other lemma's. Fragment: **outside** the decidable one
(computed, checker/symbolic/fragment.py): the axiom ``has(p, i) → ∃m. orig(p,
i, m)`` Skolemises to a function proc × pos → msg, and with ``src, dst: msg →
proc`` the sorts msg and proc form a cycle. Z3 answers every query of the
proof today (MBQI), but nothing guarantees it would for a changed relation.
"""
from __future__ import annotations

import z3

from rrcheck.checker.invariants import Violation, contradicted
from rrcheck.checker.model.scenarios import Scenario
from rrcheck.checker.symbolic.core import Action, Lemma, Sorts, Symbol, forall, total_order

NAME = "replay"
PROTOCOL = "correlated-set"
KNOBS = {"log_internal_events": True}
MUTANTS = ("correlated-set/no-internal-event-logging",)
# the Theorem 2 orphan in its smallest set (Fig. 2's 151,000 unreduced states before it, this 6,900)
MUTANT_SCENARIOS = {MUTANTS[0]: Scenario("theorem2_three", checkpoints=0, crash_kinds=("process",))}
BMC = {"max_depth": 3, "max_universe": 8}   # the Theorem 2 execution needs two senders and a survivor
SCENARIOS = (Scenario("pairs", checkpoints=0, crash_kinds=("process",)),
             Scenario("any_source_race", 3, 2, checkpoints=0))
# runs whose projections the tests hold to the whole inductive invariant: a rollback and its replay among them
SAMPLES = (Scenario("pairs", checkpoints=0, failures=0), Scenario("any_source_race", 3, 2, checkpoints=0, failures=0),
           Scenario("any_source_race", 3, 2, checkpoints=0, crash_kinds=("process",)))
OPEN = ()  # before a rollback no state relation names a message: universes are compared whole


def build(log_internal_events: bool = True) -> Lemma:
    S = Sorts("proc", "msg", "pos")
    A = lambda sig, body: forall(S, sig, body)  # noqa: E731
    imp, And, Not, Or = z3.Implies, z3.And, z3.Not, z3.Or
    rigid = (Symbol("src", ("msg",), "proc"), Symbol("dst", ("msg",), "proc"),
             Symbol("same", ("proc", "proc")), Symbol("rolled", ("proc",)),
             Symbol("le", ("pos", "pos")), Symbol("orig", ("proc", "pos", "msg")),
             Symbol("has", ("proc", "pos")), Symbol("logged", ("proc", "pos")),
             Symbol("osend", ("proc", "pos", "proc")), Symbol("fifo", ("msg", "msg")))
    state = (Symbol("re", ("proc", "pos", "msg")), Symbol("done", ("proc", "pos")),
             Symbol("consumed", ("proc", "pos")), Symbol("used", ("msg",)))
    P, M, I = "proc", "msg", "pos"

    def lt(r, a, b):
        return Not(r.le(b, a))

    def event_logged(r, p, m):
        """MessageLogging._logged: is the reception of m by p event-logged?"""
        return Or(z3.BoolVal(log_internal_events), Not(r.same(r.src(m), p)))

    def axioms(r):
        x, y, z = (z3.FreshConst(S[P], n) for n in "xyz")
        w = z3.FreshConst(S[M], "w")
        return total_order(S, r.le, I) + [
            A((M,), lambda m: r.src(m) != r.dst(m)),
            z3.ForAll([x], r.same(x, x)), z3.ForAll([x, y], r.same(x, y) == r.same(y, x)),
            z3.ForAll([x, y, z], imp(And(r.same(x, y), r.same(y, z)), r.same(x, z))),
            A((P, P), lambda p, q: imp(And(r.rolled(p), r.same(p, q)), r.rolled(q))),   # a whole set rolls back
            # the first run: a functional, injective, prefix-closed reception sequence per process
            A((P, I, M), lambda p, i, m: imp(r.orig(p, i, m), And(r.dst(m) == p, r.has(p, i)))),
            A((P, I, M, M), lambda p, i, m, n: imp(And(r.orig(p, i, m), r.orig(p, i, n)), m == n)),
            A((P, I, I, M), lambda p, i, j, m: imp(And(r.orig(p, i, m), r.orig(p, j, m)), i == j)),
            A((P, I), lambda p, i: imp(r.has(p, i), z3.Exists([w], r.orig(p, i, w)))),
            A((P, I, I), lambda p, i, j: imp(And(r.has(p, i), r.le(j, i)), r.has(p, j))),
            # MPI non-overtaking: the first run received each channel's messages in their send order
            A((M,), lambda m: Not(r.fifo(m, m))),
            A((M, M, M), lambda a, b, c: imp(And(r.fifo(a, b), r.fifo(b, c)), r.fifo(a, c))),
            A((M, M), lambda a, b: imp(r.fifo(a, b), And(r.src(a) == r.src(b), r.dst(a) == r.dst(b)))),
            A((P, I, I, M, M), lambda p, i, j, a, b: imp(And(r.orig(p, i, a), r.orig(p, j, b), lt(r, i, j),
                                                            r.src(a) == r.src(b)), r.fifo(a, b))),
            # osend(p, i, q): in the first run p sent q a message after its i-th reception
            A((P, I, P), lambda p, i, q: imp(r.osend(p, i, q), And(r.has(p, i), p != q))),
            # the event log: the determinant of position i is logged iff its reception is (Theorem 2)
            A((P, I), lambda p, i: r.logged(p, i) == And(r.has(p, i), A((M,), lambda m: imp(
                r.orig(p, i, m), event_logged(r, p, m)))))]

    def init(r, s):
        return [A((P, I, M), lambda p, i, m: Not(s.re(p, i, m))), A((P, I), lambda p, i: Not(Or(
            s.done(p, i), s.consumed(p, i)))), A((M,), lambda m: Not(s.used(m)))]

    def recv(r, s, t, m, i, j):
        """A rolled-back member p = dst(m) matches m as its i-th reception of
        the re-execution; j names replay[0] when m is it."""
        p = r.dst(m)
        head = And(r.logged(p, j), Not(s.consumed(p, j)), r.orig(p, j, m),
                   A((I,), lambda k: imp(And(lt(r, k, j), r.logged(p, k)), s.consumed(p, k))))
        # not logged, and not in replay (a universal: no unconsumed logged position holds m)
        free = And(Not(event_logged(r, p, m)), A((I,), lambda k: Not(And(
            r.logged(p, k), Not(s.consumed(p, k)), r.orig(p, k, m)))))
        empty = A((I,), lambda k: imp(r.logged(p, k), s.consumed(p, k)))
        fifo = A((M,), lambda n: imp(r.fifo(n, m), s.used(n)))   # non-overtaking on m's channel
        return [r.rolled(p), Not(s.used(m)), Not(s.done(p, i)), fifo,
                A((I,), lambda k: imp(lt(r, k, i), s.done(p, k))),
                Or(head, free, empty),
                A((P, I, M), lambda q, x, n: t.re(q, x, n) == Or(s.re(q, x, n), And(q == p, x == i, n == m))),
                A((P, I), lambda q, x: t.done(q, x) == Or(s.done(q, x), And(q == p, x == i))),
                A((P, I), lambda q, x: t.consumed(q, x) == Or(s.consumed(q, x), And(head, q == p, x == j))),
                A((M,), lambda n: t.used(n) == Or(s.used(n), n == m))]

    actions = (Action("recv", (("m", M), ("i", I), ("j", I)), ("re", "done", "consumed", "used"), recv),)
    conjuncts = (
        ("ResentEqualsFirst", lambda r, s: A((P, I, P, I, M, M), lambda p, i, q, k, m, n: imp(
            And(r.osend(p, i, q), Not(r.rolled(q)), r.le(k, i), s.re(p, k, m), r.orig(p, k, n)), m == n))),
        ("ReplayDeterminism", lambda r, s: A((P, I, M, M), lambda p, i, m, n: imp(
            And(s.re(p, i, m), r.orig(p, i, n)), m == n))),
        ("re_is_done", lambda r, s: A((P, I, M), lambda p, i, m: imp(s.re(p, i, m), And(s.done(p, i), s.used(m),
                                                                                        r.dst(m) == p)))),
        ("done_is_a_prefix", lambda r, s: A((P, I, I), lambda p, i, k: imp(And(s.done(p, i), r.le(k, i)),
                                                                          s.done(p, k)))),
        ("consumed_is_done_logged", lambda r, s: A((P, I), lambda p, i: s.consumed(p, i) == And(
            s.done(p, i), r.logged(p, i)))),
        ("logged_prefix", lambda r, s: A((P, I, I), lambda p, i, k: imp(And(r.logged(p, i), r.le(k, i)),
                                                                       r.logged(p, k)))),
    )
    return Lemma(NAME, "a rolled-back set re-receives in the logged order, so every re-sent message equals the first",
                 "Bouteiller, Herault, Bosilca, Dongarra, CCPE 2013, §3.2.2 Theorem 2", PROTOCOL, MUTANTS, S,
                 rigid, state, axioms, init, actions, conjuncts, ("ResentEqualsFirst",),
                 {"log_internal_events": log_internal_events})


def twin(judge, before, action, s, obs):
    """ReplayDeterminism's consequence over model states (NoOrphan): once no
    recovery is under way, every message a process delivered equals what its
    sender's current (re-executed) history sent."""
    sysm = judge.sys
    if sysm.recovery_under_way(s):
        return None
    judge.w["quiescent_states_checked"] += bool(s.failures)
    for r in range(sysm.n):
        gh = s.procs[r].ghost
        for p in range(sysm.n):
            bad = contradicted(s.procs[p].ghost.sent[r], gh.delivered[p])
            if bad:
                k, d, now = bad
                return Violation("ReplayDeterminism", f"P{r} delivered message #{k} from P{p} with payload {d:08x}, "
                                 f"but P{p}'s re-execution sent {now:08x}: it re-received in another order",
                                 {"receiver": r, "sender": p, "k": k})
    return None


# --- the projection of a model state (checker/symbolic/project.py) ------------------
# It reads the first run and, once a set rolls back to its initial state, the
# re-execution: the first run of a rolled-back process is what it had received
# up to its last determinant on the event logger (pessimism: no send depends on
# a later one), ``re`` what it has re-received since. A process rolled back
# twice, or to a checkpoint, is outside the one round the lemma states. A CTI
# whose pre-state is inside a replay is still searched for in failure-free runs
# only (``covers``).

def covers(cti) -> bool:
    return not cti.rigid["rolled"] and not any(cti.pre[r] for r in ("re", "done", "consumed", "used"))


def cti_system(cti, protocol: str, mutant: str | None):
    """A failure-free run of the CTI's first run: its correlated sets (``same``)
    one per node, its messages, each process receiving in ``orig``'s order and
    sending to q after the last reception ``osend(p, i, q)`` names (before any,
    if none does)."""
    from rrcheck.checker.symbolic.project import groups, system_of
    from rrcheck.checker.model.workloads import recv, send
    procs = sorted(cti.universe["proc"])
    idx = {p: i for i, p in enumerate(procs)}
    pos = sorted(cti.universe["pos"], key=lambda i: sum(r == f"{j},{i}" for r in cti.rigid["le"] for j in cti.universe["pos"]))
    rigid = {sym: dict(r.split("->") for r in cti.rigid[sym]) for sym in ("src", "dst")}
    orig = {(p, i): m for p, i, m in (r.split(",") for r in cti.rigid["orig"])}
    osend = {tuple(r.split(",")) for r in cti.rigid["osend"]}
    progs = []
    for p in procs:
        after = {m: 1 + max([pos.index(i) for (x, i, q) in osend if x == p and q == rigid["dst"][m]], default=-1)
                 for m in sorted(rigid["src"]) if rigid["src"][m] == p}
        prog = []
        for c, i in enumerate([i for i in pos if (p, i) in orig] + [None]):
            prog += [send(idx[rigid["dst"][m]]) for m, at in after.items() if at == c]
            if i is not None:
                prog.append(recv(idx[rigid["src"][orig[(p, i)]]]))
        progs.append(tuple(prog))
    sysm = system_of(protocol, mutant, "replay_cti", progs, groups(cti),
                     "the CTI's first run: its sets, messages and reception orders", failures=0, checkpoints=0)
    return sysm, f"the CTI's first run n={len(progs)} f=0 c=0"


def ghost_init(sysm):
    """(each process's receptions in order in its current incarnation; each
    first-run send with the receptions before it; per process, None or, once
    rolled back, its first run as (receptions up to the last logged
    determinant, the logged positions); whether the run left the one round)."""
    return ((),) * sysm.n, frozenset(), (None,) * sysm.n, False


def ghost_step(sysm, g, s, a, s2, obs):
    seq, sends, first, beyond = g
    for o in obs:
        if o[0] == "sent":
            _, p, q, k, _ = o
            if first[p] is None:
                sends = sends | {((p, q, k), len(seq[p]))}
        elif o[0] == "delivered":
            _, p, src, k = o[:4]
            seq = seq[:p] + (seq[p] + ((src, p, k),),) + seq[p + 1:]
        elif o[0] == "restore":
            p, cid = o[1], o[2]
            if first[p] is not None or cid != 0:
                beyond = True
                continue
            # MessageLogging._rollback: the determinants it will force, (RSN, source, SSN)
            rsns = {d[0] for d in s2.procs[p].vol.replay}
            upto = max(rsns, default=0)
            first = first[:p] + ((seq[p][:upto], frozenset(r - 1 for r in rsns)),) + first[p + 1:]
            seq = seq[:p] + ((),) + seq[p + 1:]
    return seq, sends, first, beyond


def project(sysm, s, g):
    """A state as the first run and its replay: who is in whose set, each
    process's first-run receptions by position (``orig``, ``has``), which of
    them are on the event logger (``logged``: ``MessageLogging._logged`` before
    a rollback, the determinants ``_rollback`` forces after it), after which
    reception it sent to whom (``osend``), the channels' send order
    (``fifo``); the sets that rolled back (``rolled``) and what their members
    re-received, by position (``re``, ``done``, ``consumed``, ``used``)."""
    from rrcheck.checker.symbolic.project import Structure
    seq, sends, first, beyond = g
    if beyond:
        return None
    proto, ctx, n = sysm.protocol, sysm.ctx, sysm.n
    rolled = {q for p in range(n) if first[p] is not None for q in proto.set_of(ctx, p)}
    orig = {p: first[p][0] if first[p] is not None else seq[p] for p in range(n)}
    logged = {p: first[p][1] if first[p] is not None else
              {i for i, m in enumerate(seq[p]) if proto._logged(ctx, p, m[0])} for p in range(n)}
    re = {p: seq[p] if first[p] is not None else () for p in range(n)}
    ids = {m for m, _ in sends} | {m for x in seq for m in x} | {m for p in range(n) for m in orig[p]}
    P = {p: ("P", p) for p in range(n)}
    M = {m: ("m",) + m for m in sorted(ids)}
    I = {i: ("pos", i) for i in range(max([1] + [len(x) for x in seq] + [len(x) for x in orig.values()]
                                          + [before for _, before in sends]))}
    rows = {"src": {((M[m],), P[m[0]]) for m in M}, "dst": {((M[m],), P[m[1]]) for m in M},
            "same": {((P[p], P[q]), True) for p in range(n) for q in proto.set_of(ctx, p)},
            "rolled": {((P[p],), True) for p in rolled}, "le": {((I[i], I[j]), True) for i in I for j in I if i <= j},
            "orig": {((P[p], I[i], M[m]), True) for p in range(n) for i, m in enumerate(orig[p])},
            "has": {((P[p], I[i]), True) for p in range(n) for i in range(len(orig[p]))},
            "logged": {((P[p], I[i]), True) for p in range(n) for i in logged[p]},
            "osend": {((P[m[0]], I[i], P[m[1]]), True) for m, before in sends for i in range(before)},
            "fifo": {((M[a], M[b]), True) for a in M for b in M if a[:2] == b[:2] and a[2] < b[2]},
            "re": {((P[p], I[i], M[m]), True) for p in range(n) for i, m in enumerate(re[p])},
            "done": {((P[p], I[i]), True) for p in range(n) for i in range(len(re[p]))},
            "consumed": {((P[p], I[i]), True) for p in range(n) for i in range(len(re[p])) if i in logged[p]},
            "used": {((M[m],), True) for p in range(n) for m in re[p]}}
    return Structure({"proc": tuple(P.values()), "msg": tuple(M.values()), "pos": tuple(I.values())},
                     {k: frozenset(v) for k, v in rows.items()})
