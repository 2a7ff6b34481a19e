"""Predictive analysis of one recorded MPI run: would another failure point or
delivery order break the invariants? (DESIGN §5, issue 19 part B.)

The journals of a run (runtime/files.py) give, per rank, the model's
scheduler events with the packets each put on the wire. From them alone:

1. **Happens-before** by vector clocks: an event knows its rank's earlier
   events and, for a delivery, everything the packet's sender knew. A set of
   events closed under happens-before is a consistent cut: a possible global
   state at which a failure could strike.
2. **Orphan candidates**, pruned with the clocks outside any solver. A
   failure of a process, or of a node (one failure, Meyer 2014 L622), rolls
   back its rollback set R (the failed processes for pessimistic logging; the
   whole correlated set for Bouteiller et al., CCPE 2013, §3.2). A reception
   r by ``MPI_ANY_SOURCE`` at w in R is a real choice when another message
   could have matched it: the first message of another source not yet
   matched (MPI's non-overtaking rule), with a tag the receive takes, sent
   without knowing of r (the match(r, s) choice of predictive analyses of
   MPI traces). If a process of R then sends, after r, a message that a
   survivor delivers, and the failure strikes before r's determinant is
   durable, the re-execution may match r otherwise and send different
   content: the survivor is an orphan (Meyer 2014 L672, Fig. 4.6;
   Bouteiller et al. 2013, Theorem 2). The smallest cut holding the send and
   its delivery is the join of their clocks; r is a hazard when that cut
   lacks r's durability events (:func:`durability`) and r's process has not
   checkpointed past r.
3. **SMT over the real choices only** (z3): per failure, which candidate
   (crash point = the victims' frontier in the cut, recovery line, alternative
   match), with the cut's frontier and the durability exclusions as
   constraints; each model is one witness, blocked in turn.
4. **Confirmation on the model**: the cut is replayed on
   :class:`rrcheck.checker.model.System` (same protocol, workload, placement
   and grouping), the failure injected, and the explicit explorer searches
   the recovery for a violation of the shared invariants. A violation is a
   counterexample in checker/trace.py's format that ``rrcheck replay``
   reproduces; a witness the model does not reproduce is reported as
   unconfirmed, never as a bug.

Durability follows the protocols' rules (:func:`durability`): for the
receiver-based engine (SBML, RBML, HMPL; Meyer 2014 §4.1–4.2) the reception's
log entry is at its holder (the sender for SBML, L1045; the logger for
RBML/HMPL) once the holder took the ``log`` packet, and — where the logger
erases what it never confirmed (HMPL, L1165) — once the receiver took the
``logged`` confirmation (t6); for correlated-set logging (Bouteiller et al.
2013 §3.2.2) once the receiver's event logger wrote the determinant, which
the protocol does for the receptions its rule logs.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rrcheck.checker.errors import UsageError
from rrcheck.protocols.base import ANY

CONFIRM_STATES = 50_000     # explorer budget per witness
CONFIRM_SECONDS = 10.0
MAX_CONFIRMATIONS = 8        # witnesses tried on the model before reporting the rest unconfirmed


# -- the trace ------------------------------------------------------------------------

@dataclass(slots=True)
class Ev:
    """One scheduler event of a rank: its 1-based position ``i``, the model
    action, the packets it sent (dst, seq, kind), and what it means to the
    application (the message it sent or matched)."""
    p: int
    i: int
    a: tuple
    out: list
    kind: str = ""                 # a delivery: the kind of the packet
    op: tuple | None = None        # the program op it executes (step, recv, choose)
    sent: tuple | None = None      # gid of the application message a send step sent
    got: tuple | None = None       # gid of the message a recv matched


@dataclass
class Trace:
    n: int
    node_of: tuple
    group_of: tuple
    events: list                   # per rank, its events
    order: list                    # (p, index) of every event, in a causal order
    vc: list                       # per rank, int32 array (events x n) of vector clocks
    sent_by: dict                  # gid -> Ev that sent it
    got_by: dict                   # gid -> Ev that matched it
    pkt_from: dict                 # (src, dst, seq) -> Ev that sent the packet
    pkt_to: dict                   # (src, dst, seq) -> Ev that delivered it
    truncated: bool = False        # the run had failures: analysed up to the first one

    def knows(self, e: Ev, f: Ev) -> bool:
        """f happened before e (or e is f)."""
        return self.vc[e.p][e.i - 1][f.p] >= f.i

    def frontier(self, *evs: Ev) -> np.ndarray:
        return np.maximum.reduce([self.vc[e.p][e.i - 1] for e in evs])


def _action(raw: list, p: int, i: int) -> tuple:
    """A journal's model action, checked for shape (a foreign file is a usage error)."""
    from rrcheck.checker.trace import ACTION_KINDS
    ok = bool(raw) and raw[0] in ACTION_KINDS and len(raw) == ACTION_KINDS[raw[0]]
    if ok and raw[0] == "recv":
        ok = isinstance(raw[1], int) and isinstance(raw[2], list) and len(raw[2]) == 3 \
            and all(isinstance(x, int) for x in raw[2])
    elif ok and raw[0] != "internal":
        ok = all(isinstance(x, int) for x in raw[1:])
    if not ok:
        raise UsageError(f"journal of rank {p}, event {i}: {raw!r} is not a scheduler event; "
                         "give a run directory `rrcheck run` wrote")
    return tuple(tuple(x) if isinstance(x, list) else x for x in raw)


def _actor(a) -> int:
    return a[2] if a[0] == "deliver" else a[1]


def build(cfg, journals: list[list], programs) -> Trace:
    """Vector clocks over the journals of failure generation 0 (the whole run
    if it had no failure)."""
    n = cfg.n
    truncated = False
    events: list[list[Ev]] = []
    for p in range(n):
        evs, pc, sent_k, last_src = [], 0, [0] * n, -1
        for j in journals[p]:
            if j.f is not None or j.F > 0:
                truncated = True
                break
            a = _action(j.a, p, len(evs) + 1)
            if _actor(a) != p or a[0] in ("coll", "coll_all", "crash", "crash_node", "restart"):
                raise UsageError(f"journal of rank {p} holds {list(a)}, which predict does not analyse "
                                 "(collectives completed jointly, or a foreign journal)")
            ev = Ev(p, len(evs) + 1, a, [tuple(o) for o in j.out])
            prog = programs[p]
            if a[0] in ("step", "recv", "choose"):
                if pc >= len(prog):
                    raise UsageError(f"rank {p}'s journal runs past its program: not a journal of this workload")
                ev.op = prog[pc]
                pc += 1
                if a[0] == "recv":
                    ev.got = tuple(a[2])
                    last_src = ev.got[0]
                elif ev.op[0] in ("send", "reply"):
                    dst = ev.op[1] if ev.op[0] == "send" else last_src
                    ev.sent = (p, dst, sent_k[dst])
                    sent_k[dst] += 1
            evs.append(ev)
        events.append(evs)
    pkt_from = {(e.p, o[0], o[1]): e for evs in events for e in evs for o in e.out}
    for evs in events:
        for e in evs:
            if e.a[0] == "deliver":
                src = pkt_from.get((e.a[1], e.p, e.a[3]))
                e.kind = next((o[2] for o in src.out if o[0] == e.p and o[1] == e.a[3]), "") if src else ""
    sent_by = {e.sent: e for evs in events for e in evs if e.sent}
    got_by = {e.got: e for evs in events for e in evs if e.got}
    pkt_to: dict = {}
    vc = [np.zeros((len(evs), n), dtype=np.int32) for evs in events]
    cur = [np.zeros(n, dtype=np.int32) for _ in range(n)]
    pos = [0] * n
    order: list = []
    ready = list(range(n))
    while ready:  # Kahn: a delivery waits for the event that sent its packet
        nxt = []
        for p in ready:
            evs = events[p]
            while pos[p] < len(evs):
                e = evs[pos[p]]
                c = cur[p]
                if e.a[0] == "deliver":
                    key = (e.a[1], p, e.a[3])
                    src = pkt_from.get(key)
                    if src is None:
                        raise UsageError(f"rank {p} delivers packet {e.a[3]} from P{e.a[1]}, which no journal "
                                         "sent: the run directory is incomplete or mixed")
                    if src.i > pos[src.p]:
                        break
                    pkt_to[key] = e
                    c = np.maximum(c, vc[src.p][src.i - 1])
                else:
                    c = c.copy()
                c[p] = e.i
                vc[p][e.i - 1] = c
                cur[p] = c
                pos[p] += 1
                order.append((p, e.i - 1))
                nxt.extend(q for q, _, _ in e.out if q != p)
        ready = sorted({q for q in nxt if pos[q] < len(events[q])})
    if any(pos[p] < len(events[p]) for p in range(n)):
        p = next(p for p in range(n) if pos[p] < len(events[p]))
        raise UsageError(f"rank {p}'s event {pos[p]} waits for a packet never sent: the journals are not one run")
    # a send's gid is fixed by the program; a recv's message must have been sent
    for g in got_by:
        if g not in sent_by:
            raise UsageError(f"a rank matched message {list(g)} that no rank sent: the journals are not one run")
    return Trace(n, tuple(cfg.node_of), tuple(cfg.group_of), events, order, vc, sent_by, got_by,
                 pkt_from, pkt_to, truncated)


# -- the protocols' rules ------------------------------------------------------------------

def rollback_set(proto, ctx, victims: tuple) -> tuple:
    """Who rolls back: the failed processes (pessimistic logging, HMPL), their
    correlated sets (Bouteiller et al. 2013 §3.2), or everybody."""
    if getattr(proto, "rollback_scope", "set") == "all" or getattr(proto, "scope", "") == "all":
        return tuple(range(ctx.n))
    if hasattr(proto, "set_of"):
        return tuple(sorted({q for v in victims for q in proto.set_of(ctx, v)}))
    return tuple(victims)


def family(proto) -> str:
    from rrcheck.protocols.logging import MessageLogging
    from rrcheck.protocols.rbml import ReceiverBased
    if isinstance(proto, ReceiverBased):
        return "receiver-based"
    if isinstance(proto, MessageLogging):
        return "event-logger"
    raise UsageError(f"predict encodes the recovery rules of sbml, rbml, hmpl and correlated-set, not "
                     f"{proto.name!r}; give --protocol one of those")


@dataclass
class Durability:
    """For each reception (or choice) of each rank: the events that make its
    determinant durable (all needed; None: never durable) and the rank that
    holds it (lost if that rank fails too); and each rank's checkpoints."""
    need: dict = field(default_factory=dict)      # (p, i) -> (tuple of Ev, holder rank or None) | None
    checkpoints: list = field(default_factory=list)  # per rank: positions of its checkpoint events


def durability(trace: Trace, proto, ctx) -> Durability:
    d = Durability()
    fam = family(proto)
    for p, evs in enumerate(trace.events):
        d.checkpoints.append([e.i for e in evs if e.a[0] == "internal" and e.a[2] in ("checkpoint", "commit")]
                             if fam == "receiver-based" else [])
        if fam == "event-logger":
            # the determinant goes to the event logger at p's next "log" step (pending -> events)
            next_log = None
            for e in reversed(evs):
                if e.a[0] == "internal" and e.a[2] == "log":
                    next_log = e
                elif e.a[0] == "recv":
                    src = e.got[0]
                    # the event log is stable storage: it survives p's failure (holder None)
                    d.need[(p, e.i)] = ((next_log,), None) if proto._logged(ctx, p, src) and next_log else None
                elif e.a[0] == "choose":
                    d.need[(p, e.i)] = None  # choices are not event-logged by this family
            continue
        logged = [e for e in evs if (e.a[0] == "recv" and getattr(proto, "log_events", True))
                  or (e.a[0] == "choose" and proto.log_choices)]
        logs = [(e, o) for e in evs for o in e.out if o[2] == "log"]
        acks: dict = {}  # holder -> the 'logged' packets it sent to p, in order
        for h in range(trace.n):
            acks[h] = [(o, e) for e in trace.events[h] for o in e.out if o[2] == "logged" and o[0] == p]
        per_holder: dict = {}
        for k, r in enumerate(logged):
            if k >= len(logs):
                d.need[(p, r.i)] = None
                continue
            e, o = logs[k]
            h = o[0]
            took = trace.pkt_to.get((p, h, o[1]))
            j = per_holder.get(h, 0)
            per_holder[h] = j + 1
            if took is None:
                d.need[(p, r.i)] = None
                continue
            need = [took]
            if proto.logger_drops_unacked:
                # HMPL L1165: the logger keeps, for a restarted receiver, only the
                # entries it has confirmed (the model marks them at its confirm step)
                if j >= len(acks[h]):
                    d.need[(p, r.i)] = None
                    continue
                need.append(acks[h][j][1])
            d.need[(p, r.i)] = (tuple(need), h)
        for e in evs:
            if e.a[0] in ("recv", "choose") and (p, e.i) not in d.need:
                d.need[(p, e.i)] = None
    return d


# -- candidates ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    """A failure of ``victims`` at the cut ``frontier`` (events per rank), the
    reception ``r`` re-executed with ``alternative`` instead, and the send
    ``s`` of the rolled-back set a survivor delivered at ``d``."""
    kind: str                      # crash | crash_node
    target: int
    victims: tuple
    rollback: tuple
    r: tuple                       # (rank, position)
    original: tuple                # gid matched in the run (or ("choice", c))
    alternative: tuple             # gid (or ("choice", c)) the re-execution may take
    s: tuple                       # (rank, position) of the send
    message: tuple                 # gid of the orphan-making message
    d: tuple                       # (rank, position) of its delivery at the survivor
    frontier: tuple
    holes: tuple = ()              # (rank, position) below the frontier left for after the failure

    def as_dict(self) -> dict:
        return {"failure": [self.kind, self.target], "victims": list(self.victims),
                "rolled_back": list(self.rollback), "crash_points": {v: self.frontier[v] for v in self.victims},
                "cut": list(self.frontier), "reception": list(self.r), "original_match": list(self.original),
                "alternative_match": list(self.alternative), "send": list(self.s),
                "orphan_message": list(self.message), "survivor_delivery": list(self.d),
                "postponed_logging_steps": [list(h) for h in self.holes]}


def alternatives(trace: Trace, r: Ev, programs) -> list:
    """The matches r could have had (MPI non-overtaking, FIFO): per other
    source, its first message not matched before r, if r's receive takes its
    tag and it was sent without knowing of r."""
    if r.a[0] == "choose":
        return [("choice", c) for c in range(r.op[1]) if c != r.a[2]]
    if r.op[1] != ANY:
        return []
    w = r.p
    seen: dict = {}
    for e in trace.events[w][:r.i - 1]:
        if e.got:
            seen[e.got[0]] = seen.get(e.got[0], 0) + 1
    out = []
    for src in range(trace.n):
        if src == r.got[0] or src == w:
            continue
        g = (src, w, seen.get(src, 0))
        s = trace.sent_by.get(g)
        if s is None or trace.knows(s, r):
            continue
        tag = s.op[2] if s.op[0] == "send" else s.op[1]
        if r.op[2] != ANY and r.op[2] != tag:
            continue
        out.append(g)
    return out


def relaxable(proto, r: Ev) -> bool:
    """May the receiver's own logging steps after r (forwarding the log entry,
    taking the logger's confirmation) come later than they did, past its next
    sends? Not where the protocol's rule makes it wait for them: RBML and SBML
    send nothing before the confirmation (Meyer 2014 L1047, L1102), HMPL goes
    on after a wildcard reception only once it is logged (L1188), and the
    event logger of Bouteiller et al. is written before any send (§2.2)."""
    if family(proto) != "receiver-based":
        return False
    if proto.block_sends_until_logged:
        return False
    wildcard = r.a[0] == "choose" or r.op[1] == ANY
    return not (proto.block_on_wildcard and wildcard)


def postponable(trace: Trace, r: Ev, s: Ev) -> tuple[set, dict]:
    """The logging round trip of the receptions of r's process w from r on,
    before its send s: w forwarding its log entries and taking confirmations,
    a holder taking such an entry and confirming it (the k-th ``confirm:w``
    step of a holder confirms the k-th entry it took from w). Returns the set
    of (rank, position) and, for each confirmation, the entry it needs."""
    w = r.p
    out = {(w, e.i) for e in trace.events[w][r.i:s.i - 1]
           if (e.a[0] == "internal" and e.a[2] == "forward") or (e.a[0] == "deliver" and e.kind == "logged")}
    needs: dict = {}
    for h in range(trace.n):
        if h == w:
            continue
        took = [e for e in trace.events[h] if e.a[0] == "deliver" and e.a[1] == w and e.kind == "log"]
        conf = [e for e in trace.events[h] if e.a[0] == "internal" and e.a[2] == f"confirm:{w}"]
        for k, e in enumerate(took):
            if trace.pkt_from[(w, h, e.a[3])].i >= r.i:
                out.add((h, e.i))
                if k < len(conf):
                    out.add((h, conf[k].i))
                    needs[(h, conf[k].i)] = e
    return out, needs


def relaxed_cut(trace: Trace, r: Ev, s: Ev, dl: Ev, relax: bool):
    """The smallest cut holding the send s and the survivor's delivery dl:
    (frontier per rank, holes), where the holes are steps of the logging
    round trip of r's process (:func:`postponable`) that the cut leaves for
    after the failure (``relax``: the protocol lets them come later;
    otherwise there are none and the cut is the join of two vector clocks)."""
    if not relax:
        f = np.maximum(trace.vc[s.p][s.i - 1], trace.vc[dl.p][dl.i - 1])
        return f, frozenset()
    post, conf_needs = postponable(trace, r, s)
    top = [0] * trace.n       # events up to top[p] are in the cut, but the postponable
    extra: set = set()        # postponable events the cut needs after all
    todo = [s, dl]
    while todo:
        e = todo.pop()
        key = (e.p, e.i)
        if key in post:
            if key in extra:
                continue
            extra.add(key)
            needs = [e]
            prev = next((y for y in reversed(trace.events[e.p][:e.i - 1]) if (e.p, y.i) not in post), None)
            if prev is not None:
                todo.append(prev)
            if key in conf_needs:
                todo.append(conf_needs[key])
        else:
            if e.i <= top[e.p]:
                continue
            needs = [x for x in trace.events[e.p][top[e.p]:e.i] if (e.p, x.i) not in post]
            top[e.p] = e.i
        for x in needs:
            if x.a[0] == "deliver":
                todo.append(trace.pkt_from[(x.a[1], x.p, x.a[3])])
    f = np.array([max([top[p]] + [i for q, i in extra if q == p]) for p in range(trace.n)], dtype=np.int32)

    def inside(x: Ev) -> bool:
        return (x.p, x.i) in extra or (x.i <= top[x.p] and (x.p, x.i) not in post)
    holes = frozenset((p, x.i) for p in range(trace.n) for x in trace.events[p][:f[p]] if not inside(x))
    return f, holes


def candidates(trace: Trace, dur: Durability, proto, ctx, programs, units) -> tuple[list, dict]:
    """Every failure unit's hazards, pruned by vector clocks."""
    stats = {"units": len(units), "crash_points": 0, "nondeterministic_receptions": 0,
             "receptions_with_alternatives": 0, "send_delivery_pairs": 0}
    found = []
    alts_of: dict = {}
    for kind, target, victims in units:
        R = rollback_set(proto, ctx, victims)
        stats["crash_points"] += sum(len(trace.events[v]) + 1 for v in victims)
        if len(R) == trace.n:
            continue  # nobody survives to be an orphan
        for w in R:
            for r in trace.events[w]:
                if r.a[0] not in ("recv", "choose"):
                    continue
                if (w, r.i) not in alts_of:
                    alts_of[(w, r.i)] = alternatives(trace, r, programs)
                alts = alts_of[(w, r.i)]
                stats["nondeterministic_receptions"] += 1
                if not alts:
                    continue
                stats["receptions_with_alternatives"] += 1
                need = dur.need.get((w, r.i))
                relax = relaxable(proto, r)
                for x in R:
                    dests_done: set = set()
                    for s in trace.events[x]:
                        if not s.sent or s.sent[1] in R or s.sent[1] in dests_done or not trace.knows(s, r):
                            continue
                        dests_done.add(s.sent[1])
                        dl = trace.got_by.get(s.sent)
                        if dl is None:
                            continue
                        stats["send_delivery_pairs"] += 1
                        f, holes = relaxed_cut(trace, r, s, dl, relax and x == w)
                        if any(r.i < c <= f[w] and (w, c) not in holes for c in dur.checkpoints[w]):
                            break  # w checkpointed past r: r is not re-executed
                        if need is not None and need[1] not in victims and all(
                                f[e.p] >= e.i and (e.p, e.i) not in holes for e in need[0]):
                            break  # durable in this cut, so in every later one
                        original = ("choice", r.a[2]) if r.a[0] == "choose" else r.got
                        found.append(Candidate(kind, target, victims, R, (w, r.i), original, alts[0],
                                               (x, s.i), s.sent, (dl.p, dl.i), tuple(int(v) for v in f),
                                               tuple(sorted(holes))))
    return found, stats


def units_of(trace: Trace, kinds=("process", "node")) -> list:
    out = []
    if "process" in kinds:
        out += [("crash", p, (p,)) for p in range(trace.n)]
    if "node" in kinds:
        for node in sorted(set(trace.node_of)):
            on = tuple(p for p in range(trace.n) if trace.node_of[p] == node)
            if len(on) >= 2:
                out.append(("crash_node", node, on))
    return out


# -- SMT over the remaining choices ------------------------------------------------------

def solve(trace: Trace, dur: Durability, cands: list, limit: int):
    """Yield witnesses: z3 picks a failure, a candidate and its cut frontier
    j_p (at least the join of the send's and the delivery's clocks), with r
    re-executed (no checkpoint of r's rank in the cut after r) and r not
    durable (some durability event outside the cut, or its holder failed);
    each model found is blocked and the query asked again."""
    import z3
    if not cands:
        return
    n = trace.n
    opt = z3.Solver()
    pick = z3.Int("pick")
    j = [z3.Int(f"j{p}") for p in range(n)]
    opt.add(pick >= 0, pick < len(cands))
    for p in range(n):
        opt.add(j[p] >= 0, j[p] <= len(trace.events[p]))
    for k, c in enumerate(cands):
        w, ri = c.r
        holes = set(c.holes)

        def inside(p: int, i: int):  # an event is in the cut: under the frontier and no hole
            return z3.BoolVal(False) if (p, i) in holes else j[p] >= i
        conds = [j[p] == c.frontier[p] for p in range(n)]  # the smallest cut holding s and d
        conds += [z3.Not(inside(w, ck)) for ck in dur.checkpoints[w] if ck > ri]
        need = dur.need.get(c.r)
        if need is not None and need[1] not in c.victims:
            conds.append(z3.Or([z3.Not(inside(e.p, e.i)) for e in need[0]]))
        opt.add(z3.Implies(pick == k, z3.And(conds)))
    found = 0
    while found < limit and opt.check() == z3.sat:
        k = opt.model()[pick].as_long()
        found += 1
        yield cands[k]
        opt.add(pick != k)
    # every hazard the clocks found is a model of the query: a disagreement is a bug
    assert found == min(limit, len(cands)), f"z3 found {found} of {len(cands)} hazards"


# -- confirmation on the model --------------------------------------------------------------

@dataclass
class Confirmation:
    confirmed: bool
    reason: str = ""
    events: list = field(default_factory=list)
    violation: object = None
    states: int = 0
    checkpoints: int = 0           # the bound the counterexample needs


def confirm(trace: Trace, cfg, cand: Candidate, properties=None) -> Confirmation:
    """Replay the cut on the model, inject the failure, search the recovery."""
    from rrcheck.checker.explore import explore
    from rrcheck.checker.invariants import Judge, applicable
    from rrcheck.checker.model import Bounds, System
    from rrcheck.runtime import apps
    from rrcheck.runtime.check import failure_free_finals
    from rrcheck.runtime.files import protocol_of
    proto = protocol_of(cfg)
    workload = apps.twin(cfg.workload, cfg.n, cfg.nodes, cfg.iters)
    holes = set(cand.holes)
    prefix = [trace.events[p][i] for p, i in trace.order
              if i < cand.frontier[p] and (p, i + 1) not in holes]
    bounds = Bounds(failures=1, checkpoints=10 ** 9, crash_kinds=("process", "node"))
    system = System(proto, workload, bounds, tuple(cfg.group_of))
    judge = Judge(system, properties or applicable(proto.name), failure_free_finals(system))
    s = system.initial()
    actions = []
    for e in prefix:
        a = e.a
        if a[0] == "recv":
            a = next((("recv", e.p, i) for i, m in enumerate(s.procs[e.p].mailbox) if m.msg.gid == e.got), None)
        elif a[0] == "deliver":
            a = ("deliver", a[1], a[2], 0)
        if a is None or a not in system.actions(s):
            return Confirmation(False, f"the cut does not replay on the model at rank {e.p}'s event {e.i} "
                                f"{list(e.a)}")
        s2, obs = system.step(s, a)
        v = judge.transition(s, a, s2, obs) or judge.state(s2)
        if v:
            return Confirmation(True, "violated before the failure", actions + [a], v, 0,
                                max(pr.ckpts for pr in s2.procs))
        actions.append(a)
        s = s2
    # no checkpoint beyond those of the run: the recovery is searched, not new checkpoint waves
    system.bounds = bounds = Bounds(failures=1, checkpoints=max(pr.ckpts for pr in s.procs),
                                    crash_kinds=("process", "node"))
    crash = (cand.kind, cand.target)
    if crash not in system.actions(s):
        return Confirmation(False, f"the model does not enable {list(crash)} at that cut")
    s2, obs = system.step(s, crash)
    actions.append(crash)
    v = judge.transition(s, crash, s2, obs) or judge.state(s2)
    if v:
        return Confirmation(True, "", actions, v, 0, bounds.checkpoints)
    found = _steer(system, judge, s2, cand)
    if found is None:
        return Confirmation(False, f"no recovery found that breaks an invariant ({WALKS} steered walks)")
    return Confirmation(True, "", actions + found[0], found[1], 0, bounds.checkpoints)


WALKS = 60


def _steer(system, judge, start, cand: Candidate):
    """Random walks of the recovery, steered to the witness's alternative
    match: the re-executed reception takes the alternative message as soon
    as it is there, and not the original one before. Returns (actions,
    violation) or None."""
    import random
    from rrcheck.checker.explore import CRASHES
    w = cand.r[0]
    t0 = time.perf_counter()
    for seed in range(WALKS):
        rng = random.Random(seed)
        s, trace, took_alt = start, [], False
        for _ in range(system.bounds.depth):
            acts = [a for a in system.actions(s) if a[0] not in CRASHES]
            if not acts:
                v = judge.terminal(s)
                if v:
                    return trace, v
                break
            pick = None
            if not took_alt:
                mail = s.procs[w].mailbox
                for a in acts:
                    if a[0] == "recv" and a[1] == w and mail[a[2]].msg.gid == cand.alternative:
                        pick, took_alt = a, True
                        break
                if pick is None:
                    rest = [a for a in acts if not (a[0] == "recv" and a[1] == w
                                                    and mail[a[2]].msg.gid == cand.original)]
                    acts = rest or acts
            a = pick or rng.choice(acts)
            s2, obs = system.step(s, a)
            trace.append(a)
            v = judge.transition(s, a, s2, obs) or judge.state(s2)
            if v:
                return trace, v
            s = s2
        if time.perf_counter() - t0 > CONFIRM_SECONDS:
            break
    return None


def counterexample(cfg, conf: Confirmation, properties):
    """The confirmed witness as a checker/trace.py counterexample, when the
    format can name the run's workload (its size arguments are procs and
    nodes only); None otherwise."""
    from rrcheck.checker import trace as T
    from rrcheck.checker import workloads as W
    from rrcheck.checker.invariants import applicable
    from rrcheck.runtime import apps
    from rrcheck.runtime.files import protocol_of
    twin = apps.twin(cfg.workload, cfg.n, cfg.nodes, cfg.iters)
    try:
        named = W.make(twin.name, cfg.n, cfg.nodes)
    except UsageError:
        return None
    if named.programs != twin.programs or named.node_of != twin.node_of:
        return None
    proto = protocol_of(cfg)
    v = conf.violation
    return T.Counterexample(
        schema_version=T.SCHEMA_VERSION, tool=T.tool_version(), protocol=proto.name, mutant=cfg.mutant,
        knobs=proto.knobs, workload=twin.name, procs=cfg.n, nodes=cfg.nodes, placement=list(twin.node_of),
        grouping=list(cfg.group_of),
        bounds=T.BoundsModel(failures=1, checkpoints=conf.checkpoints, depth=10_000, crash_kinds=["process", "node"],
                             no_failure_during_recovery=False),
        properties=list(properties or applicable(proto.name)), events=T.to_json_events(conf.events),
        violation=T.ViolationModel(property=v.property, message=v.message, values=_plain(v.values)))


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_plain(v) for v in x]
    return x if isinstance(x, (int, float, str, bool)) or x is None else str(x)


# -- the verdict ------------------------------------------------------------------------------

@dataclass
class Prediction:
    verdict: str                   # none | confirmed | unconfirmed
    protocol: str
    events: int
    ranks: int
    stats: dict
    witness: dict | None = None
    unconfirmed: list = field(default_factory=list)
    counterexample: str | None = None
    truncated: bool = False
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "protocol": self.protocol, "ranks": self.ranks, "events": self.events,
                "choices": self.stats, "witness": self.witness, "unconfirmed": self.unconfirmed,
                "counterexample": self.counterexample, "analysed_up_to_first_failure": self.truncated,
                "seconds": round(self.seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3)}


def load_run(run_dir: Path, protocol: str | None = None):
    """The run's configuration (with ``protocol`` instead of its own, if
    given) and its journals of generation 0, validated."""
    from rrcheck.runtime.files import journal_path, load_config, load_journal
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: not a run directory (rrcheck run --out DIR writes one)")
    try:
        cfg = load_config(run_dir)
    except UnicodeDecodeError:
        raise UsageError(f"{run_dir}/run.json: binary, not a run configuration")
    except ValueError as e:
        raise UsageError(f"{run_dir}/run.json: not a run configuration ({str(e).splitlines()[0]})")
    if protocol:
        from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
        base = MUTANTS[protocol].protocol if protocol in MUTANTS else protocol
        if base not in PROTOCOLS:
            raise UsageError(f"unknown protocol or mutant {protocol!r} (rrcheck list)")
        if base != cfg.protocol:
            raise UsageError(f"the journals hold {cfg.protocol!r}'s events; --protocol takes {cfg.protocol!r} "
                             f"or one of its mutants, not {protocol!r}")
        mutant = protocol if protocol in MUTANTS else None
        cfg = cfg.model_copy(update={"mutant": mutant, "knobs": {}})
    if cfg.protocol == "none":
        raise UsageError(f"{run_dir}: a run of bare MPI (protocol none); give --protocol to predict for one")
    journals = []
    for p in range(cfg.n):
        path = journal_path(run_dir, p, 0)
        if not path.exists():
            raise UsageError(f"{run_dir}: no journal of rank {p}; was the run made with --no-trace?")
        try:
            journals.append(load_journal(path))
        except UnicodeDecodeError:
            raise UsageError(f"{path}: binary, not a journal")
    if not any(journals):
        raise UsageError(f"{run_dir}: the journals are empty; nothing ran")
    return cfg, journals


def predict(run_dir, protocol: str | None = None, save: Path | None = None,
            confirmations: int = MAX_CONFIRMATIONS, crash_kinds=("process", "node")) -> Prediction:
    """The verdict on one run: ``none`` (no hazard under the protocol's
    rules), ``confirmed`` (a witness the model reproduces, saved as a
    counterexample where the format can name the workload) or
    ``unconfirmed`` (hazards the model did not reproduce)."""
    t0, c0 = time.perf_counter(), time.process_time()
    from rrcheck.checker.invariants import applicable
    from rrcheck.protocols.base import Context
    from rrcheck.runtime import apps
    from rrcheck.runtime.files import protocol_of
    cfg, journals = load_run(Path(run_dir), protocol)
    proto = protocol_of(cfg)
    family(proto)
    workload = apps.twin(cfg.workload, cfg.n, cfg.nodes, cfg.iters)
    if list(workload.node_of) != list(cfg.node_of):
        raise UsageError("run.json's placement differs from its workload's; the trace cannot be analysed")
    ctx = Context(cfg.n, tuple(cfg.node_of), tuple(cfg.group_of), workload.fifo)
    trace = build(cfg, journals, workload.programs)
    dur = durability(trace, proto, ctx)
    cands, stats = candidates(trace, dur, proto, ctx, workload.programs, units_of(trace, crash_kinds))
    stats["hazards"] = len(cands)
    props = applicable(proto.name)
    verdict, witness, unconfirmed, cx_path = "none", None, [], None
    tried = 0
    for cand in solve(trace, dur, cands, max(confirmations, 1) if cands else 0):
        tried += 1
        conf = confirm(trace, cfg, cand, props)
        if conf.confirmed:
            verdict = "confirmed"
            witness = {**cand.as_dict(), "property": conf.violation.property, "message": conf.violation.message,
                       "model_events": len(conf.events), "recovery_states": conf.states}
            cx = counterexample(cfg, conf, props)
            if cx is not None:
                from rrcheck.checker import trace as T
                rep = T.replay(cx)
                if rep.violation is None or rep.violation.property != conf.violation.property:
                    raise AssertionError("a confirmed witness did not replay: " + str(rep.violation))
                path = Path(save) if save else Path(run_dir) / "predicted-counterexample.json"
                T.save(path, cx)
                cx_path = str(path)
            break
        unconfirmed.append({**cand.as_dict(), "why": conf.reason})
    stats["smt_witnesses_tried"] = tried
    if verdict == "none" and unconfirmed:
        verdict = "unconfirmed"
    return Prediction(verdict, proto.name if not cfg.mutant else cfg.mutant, sum(map(len, trace.events)), cfg.n,
                      stats, witness, unconfirmed, cx_path, trace.truncated,
                      time.perf_counter() - t0, time.process_time() - c0)
