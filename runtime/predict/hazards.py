"""The protocols' recovery rules over the clocks: durability, rollback sets,
alternative matches and the hazards they leave (rrcheck.runtime.predict, step 2)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rrcheck.errors import UsageError
from rrcheck.runtime.predict.clocks import Ev, Trace
from rrcheck.protocols.base import ANY


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
    """When each reception's determinant survives a failure of its receiver.
    Receiver-based engine (SBML, RBML, HMPL; Meyer 2014 §4.1–4.2): the entry
    is at its holder (the sender for SBML, Meyer 2014 §4.1.1; the logger for RBML and
    HMPL) once the holder took the ``log`` packet — the k-th ``log`` packet
    of a rank carries its k-th logged event — and, where the logger erases
    what it never confirmed (HMPL, Meyer 2014 §4.2.2), once it confirmed it; lost if the
    holder fails too. Event logger (correlated sets, Bouteiller et al. 2013
    §2.2, §3.2.2): on stable storage at the receiver's next ``log`` step, for
    the receptions the protocol logs (Theorem 2: internal ones included)."""
    d = Durability()
    fam = family(proto)
    confirms: dict = {}
    for h, evs in enumerate(trace.events):
        for e in evs:
            for o in e.out:
                if o[2] == "logged":
                    confirms.setdefault(o[0], {}).setdefault(h, []).append(e)
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
        acks = confirms.get(p, {})  # holder -> its steps that sent p a 'logged' packet, in order
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
                # HMPL Meyer 2014 §4.2.2: the logger keeps, for a restarted receiver, only the
                # entries it has confirmed (the model marks them at its confirm step)
                if j >= len(acks.get(h, ())):
                    d.need[(p, r.i)] = None
                    continue
                need.append(acks[h][j])
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
    alternatives: tuple            # gids (or ("choice", c)) the re-execution may take instead
    s: tuple                       # (rank, position) of the send
    message: tuple                 # gid of the orphan-making message
    d: tuple                       # (rank, position) of its delivery at the survivor
    frontier: tuple
    holes: tuple = ()              # (rank, position) below the frontier left for after the failure
    alternative: tuple = ()        # the one match(r, s) a witness chooses

    def as_dict(self) -> dict:
        return {"failure": [self.kind, self.target], "victims": list(self.victims),
                "rolled_back": list(self.rollback), "crash_points": {v: self.frontier[v] for v in self.victims},
                "cut": list(self.frontier), "reception": list(self.r), "original_match": list(self.original),
                "alternative_match": list(self.alternative or self.alternatives[0]), "send": list(self.s),
                "orphan_message": list(self.message), "survivor_delivery": list(self.d),
                "postponed_logging_steps": [list(h) for h in self.holes]}


def alternatives(trace: Trace, w: int) -> dict:
    """For each non-deterministic event of w (position -> list): the matches
    it could have had (MPI non-overtaking, FIFO): per other source, its first
    message not matched before, if the receive takes its tag and the program
    sends it without having seen the reception (application messages only:
    a protocol packet that happened to arrive first is no dependence; the
    model judges the rest); for a ``nondet`` choice, the others."""
    out: dict = {}
    seen: dict = {}
    for r in trace.events[w]:
        if r.a[0] == "choose":
            out[r.i] = [("choice", c) for c in range(r.op[1]) if c != r.a[2]]
        elif r.a[0] == "recv":
            if r.op[1] == ANY:
                alts = []
                for src in range(trace.n):
                    if src == r.got[0] or src == w:
                        continue
                    s = trace.sent_by.get((src, w, seen.get(src, 0)))
                    if s is None or trace.app_knows(s, r):
                        continue  # the program cannot send it before r
                    tag = s.op[2] if s.op[0] == "send" else s.op[1]
                    if r.op[2] == ANY or r.op[2] == tag:
                        alts.append(s.sent)
                out[r.i] = alts
            else:
                out[r.i] = []
            seen[r.got[0]] = seen.get(r.got[0], 0) + 1
    return out


def relaxable(proto, r: Ev) -> bool:
    """May the receiver's own logging steps after r (forwarding the log entry,
    taking the logger's confirmation) come later than they did, past its next
    sends? Not where the protocol's rule makes it wait for them: RBML and SBML
    send nothing before the confirmation (Meyer 2014 §4.1.1, §4.1.2), HMPL goes
    on after a wildcard reception only once it is logged (Meyer 2014 §4.2.3), and the
    event logger of Bouteiller et al. is written before any send (§2.2)."""
    if family(proto) != "receiver-based":
        return False
    if proto.block_sends_until_logged:
        return False
    wildcard = r.a[0] == "choose" or r.op[1] == ANY
    return not (proto.block_on_wildcard and wildcard)


def _round_trips(trace: Trace, w: int) -> list:
    """(the position at w of the sending of a log entry, a holder's delivery
    of it, its confirm step or None), for every holder, sorted; computed once."""
    cache = trace.__dict__.setdefault("_round_trips", {})
    if w not in cache:
        rows = []
        for h in range(trace.n):
            if h == w:
                continue
            took = [e for e in trace.events[h] if e.a[0] == "deliver" and e.a[1] == w and e.kind == "log"]
            conf = [e for e in trace.events[h] if e.a[0] == "internal" and e.a[2] == f"confirm:{w}"]
            rows += [(trace.pkt_from[(w, h, e.a[3])].i, e, conf[k] if k < len(conf) else None)
                     for k, e in enumerate(took)]
        rows.sort(key=lambda row: (row[0], row[1].p, row[1].i))
        cache[w] = rows
    return cache[w]


def postponable(trace: Trace, r: Ev, s: Ev) -> tuple[set, dict]:
    """The logging round trip of the receptions of r's process w from r on,
    before its send s: w forwarding its log entries and taking confirmations,
    a holder taking such an entry and confirming it (the k-th ``confirm:w``
    step of a holder confirms the k-th entry it took from w), and the
    deliveries of what those steps sent. Returns the set of (rank, position)
    and, for each confirmation, the entry it needs."""
    import bisect
    w = r.p
    out = {(w, e.i) for e in trace.events[w][r.i:s.i - 1]
           if (e.a[0] == "internal" and e.a[2] == "forward") or (e.a[0] == "deliver" and e.kind == "logged")}
    needs: dict = {}
    rows = _round_trips(trace, w)
    lo = bisect.bisect_left(rows, r.i, key=lambda row: row[0])
    for sent_at, took, conf in rows[lo:]:
        if sent_at >= s.i:
            break
        out.add((took.p, took.i))
        if conf is not None:
            out.add((conf.p, conf.i))
            needs[(conf.p, conf.i)] = took
    todo = [trace.events[p][i - 1] for p, i in out]
    while todo:  # what those steps sent is taken later too (t7's erasure at the sender, say)
        e = todo.pop()
        for dst, seq, _ in e.out:
            x = trace.pkt_to.get((e.p, dst, seq))
            if x is not None and (x.p, x.i) not in out and not (x.p == w and x.i >= s.i):
                out.add((x.p, x.i))
                todo.append(x)
    return out, needs


def relaxed_cut(trace: Trace, r: Ev, s: Ev, dl: Ev, relax: bool):
    """The smallest cut holding the send s and the survivor's delivery dl:
    (frontier per rank, holes), where the holes are steps of the logging
    round trip of r's process (:func:`postponable`) that the cut leaves for
    after the failure (``relax``: the protocol lets them come later;
    otherwise there are none and the cut is the join of two vector clocks).
    The walk visits only events that know of a postponable one; the past of
    any other is its vector clock, taken whole."""
    if not relax:
        f = np.maximum(trace.vc[s.p][s.i - 1], trace.vc[dl.p][dl.i - 1])
        return f, frozenset()
    post, conf_needs = postponable(trace, r, s)
    n = trace.n
    big = np.iinfo(np.int32).max
    first = np.full(n, big, dtype=np.int64)   # each rank's first postponable event
    post_at: dict = {}
    for p, i in post:
        first[p] = min(first[p], i)
        post_at.setdefault(p, []).append(i)
    block = np.zeros(n, dtype=np.int64)  # events up to block[p] are in the cut (all before first[p])
    top = [0] * n                         # events up to top[p] are in the cut, but the postponable
    extra: set = set()                    # postponable events the cut needs after all

    todo = [s, dl]
    while True:
        _walk(trace, todo, post, post_at, conf_needs, first, block, top, extra)
        f = np.maximum(block, np.array(top, dtype=np.int64))
        for p, i in extra:
            f[p] = max(f[p], i)
        holes = set()
        for p in range(n):
            done = max(top[p], int(block[p]))
            holes.update((p, i) for i in post_at.get(p, ()) if i <= f[p] and (p, i) not in extra)
            holes.update((p, x.i) for x in trace.events[p][done:int(f[p])] if (p, x.i) not in extra)
        todo = _fifo_overtaken(trace, f, holes)
        if not todo:
            break
    return f.astype(np.int32), frozenset(holes)


def _walk(trace: Trace, todo: list, post: set, post_at: dict, conf_needs: dict, first, block, top, extra: set):
    """Close the cut under what its events need (:func:`relaxed_cut`)."""
    def clock(p: int, i: int):
        return trace.vc[p][i - 1]

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
            # a rank takes the same logging step in order: the k-th confirmation
            # confirms the k-th entry, so it cannot come before the (k-1)-th
            todo.extend(y for i in post_at.get(e.p, ()) if i < e.i
                        for y in [trace.events[e.p][i - 1]] if y.a == e.a and y.a[0] == "internal")
        else:
            if e.i <= top[e.p] or e.i <= block[e.p]:
                continue
            vc = clock(e.p, e.i)
            if not (vc >= first).any():  # knows of no postponable event: its whole past, at once
                np.maximum(block, vc, out=block)
                continue
            start = max(top[e.p], int(block[e.p]))
            if first[e.p] - 1 > start:  # the clean part of its own past, at once
                vc = clock(e.p, int(min(first[e.p] - 1, e.i)))
                if not (vc >= first).any():
                    np.maximum(block, vc, out=block)
                    start = int(block[e.p])
            needs = [x for x in trace.events[e.p][start:e.i] if (e.p, x.i) not in post]
            top[e.p] = e.i
        for x in needs:
            if x.a[0] == "deliver":
                todo.append(trace.pkt_from[(x.a[1], x.p, x.a[3])])
                # FIFO: the channel's earlier packets arrive first, but those whose
                # sending the cut leaves out (they would be sent after this one)
                for i in post_at.get(x.p, ()):
                    y = trace.events[x.p][i - 1]
                    if i < x.i and y.a[0] == "deliver" and y.a[1] == x.a[1]:
                        z = trace.pkt_from[(y.a[1], y.p, y.a[3])]
                        if (z.p, z.i) not in post or (z.p, z.i) in extra:
                            todo.append(y)


def _fifo_overtaken(trace: Trace, f, holes: set) -> list:
    """Deliveries the cut leaves out although their packet is sent inside it
    and a later packet of the same channel is delivered inside it: FIFO
    delivers them first, so the cut must hold them (found only once the
    sends the walk needed are known)."""
    def inside(p: int, i: int) -> bool:
        return i <= f[p] and (p, i) not in holes
    late = []
    for p, i in holes:
        y = trace.events[p][i - 1]
        if y.a[0] != "deliver":
            continue
        z = trace.pkt_from[(y.a[1], y.p, y.a[3])]
        if inside(z.p, z.i) and any(x.a[0] == "deliver" and x.a[1] == y.a[1] and inside(p, x.i)
                                    for x in trace.events[p][i:int(f[p])]):
            late.append(y)
    return late


MAX_HAZARDS = 256  # hazards enumerated before the search stops (a verdict needs one confirmed)


def candidates(trace: Trace, dur: Durability, proto, ctx, units) -> tuple[list, dict]:
    """Every failure unit's hazards, pruned by vector clocks: for each
    reception r of the rolled-back set with another possible match, the first
    send after r (r's process, or another member that knows of r) to each
    survivor that delivered it, until one finds r durable (then every later
    cut does)."""
    import bisect
    stats = {"units": len(units), "crash_points": 0, "nondeterministic_receptions": 0,
             "receptions_with_alternatives": 0, "send_delivery_pairs": 0, "hazards_capped": False}
    found = []
    alts_of: dict = {}
    sends = [[e for e in evs if e.sent] for evs in trace.events]
    send_pos = [[e.i for e in ss] for ss in sends]
    for kind, target, victims in units:
        R = rollback_set(proto, ctx, victims)
        stats["crash_points"] += sum(len(trace.events[v]) + 1 for v in victims)
        if len(R) == trace.n:
            continue  # nobody survives to be an orphan
        inR = set(R)
        for w in R:
            if w not in alts_of:
                alts_of[w] = alternatives(trace, w)
            for ri, alts in alts_of[w].items():
                r = trace.events[w][ri - 1]
                stats["nondeterministic_receptions"] += 1
                if not alts:
                    continue
                need = dur.need.get((w, r.i))
                if need is None and family(proto) == "event-logger":
                    # recovery forces every logged reception number; an unlogged reception
                    # only fills a gap, so only another unlogged one can take its place
                    # (Bouteiller et al. 2013 §3.2.2, Theorem 2: two internal receptions race)
                    alts = [a for a in alts if a[0] == "choice" or not proto._logged(ctx, w, a[0])]
                    if not alts:
                        continue
                stats["receptions_with_alternatives"] += 1
                relax = relaxable(proto, r)
                for x in R:
                    # x's first event that knows of r (clocks grow along x)
                    first = r.i + 1 if x == w else int(np.searchsorted(trace.vc[x][:, w], r.i)) + 1
                    dests_done: set = set()
                    for s in sends[x][bisect.bisect_left(send_pos[x], first):]:
                        if s.sent[1] in inR or s.sent[1] in dests_done:
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
                        found.append(Candidate(kind, target, victims, R, (w, r.i), original, tuple(alts),
                                               (x, s.i), s.sent, (dl.p, dl.i), tuple(int(v) for v in f),
                                               tuple(sorted(holes))))
                        if len(found) >= MAX_HAZARDS:
                            stats["hazards_capped"] = True
                            return found, stats
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
