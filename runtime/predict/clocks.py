"""Happens-before over a run's journals: events, packets, vector clocks
(rrcheck.runtime.predict, step 1)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rrcheck.errors import UsageError


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
    app_vc: list                   # the same over application messages only (send -> matching recv)
    sent_by: dict                  # gid -> Ev that sent it
    got_by: dict                   # gid -> Ev that matched it
    pkt_from: dict                 # (src, dst, seq) -> Ev that sent the packet
    pkt_to: dict                   # (src, dst, seq) -> Ev that delivered it
    truncated: bool = False        # the run had failures: analysed up to the first one

    def knows(self, e: Ev, f: Ev) -> bool:
        """f happened before e (or e is f)."""
        return self.vc[e.p][e.i - 1][f.p] >= f.i

    def app_knows(self, e: Ev, f: Ev) -> bool:
        """f happened before e through the program's own messages."""
        return self.app_vc[e.p][e.i - 1][f.p] >= f.i

    def frontier(self, *evs: Ev) -> np.ndarray:
        return np.maximum.reduce([self.vc[e.p][e.i - 1] for e in evs])


def _action(raw: list, p: int, i: int) -> tuple:
    """A journal's model action, checked for shape (a foreign file is a usage error)."""
    from rrcheck.checker.traces.counterexample import ACTION_KINDS
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


def app_clocks(events: list, order: list, sent_by: dict) -> list:
    """Vector clocks of the program's causality: program order and each
    application message from its send to its matching reception — what a
    process must have seen before it sends, whatever the protocol's packets
    (the order of predictive analyses of MPI traces)."""
    n = len(events)
    vc = [np.zeros((len(evs), n), dtype=np.int32) for evs in events]
    cur = [np.zeros(n, dtype=np.int32) for _ in range(n)]
    for p, k in order:
        e = events[p][k]
        c = np.maximum(cur[p], vc[sent_by[e.got].p][sent_by[e.got].i - 1]) if e.got else cur[p].copy()
        c[p] = e.i
        vc[p][k] = c
        cur[p] = c
    return vc


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
            ranks = (a[2][0], a[2][1]) if a[0] == "recv" else a[1:3] if a[0] == "deliver" else ()
            if any(not 0 <= q < n for q in ranks):
                raise UsageError(f"journal of rank {p}, event {len(evs) + 1}: {list(a)} names a rank outside "
                                 f"0..{n - 1}: not a journal of this run")
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
    return Trace(n, tuple(cfg.node_of), tuple(cfg.group_of), events, order, vc, app_clocks(events, order, sent_by),
                 sent_by, got_by,
                 pkt_from, pkt_to, truncated)
