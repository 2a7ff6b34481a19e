"""Each message classified against the recovery line of every rollback, in the
papers' vocabulary (Bouteiller, Herault, Bosilca, Dongarra, "Correlated set
coordination in fault tolerant message logging protocols", CCPE 2013, §2.1):

- **past**: sent and received before the line;
- **in transit**: sent before the line, received after it (m3, m4 of Fig. 1):
  the recovery needs it back, from a log, a buffer, the channel, or the
  receiver's checkpoint (a recorded channel state, C3's log of *late* messages);
- **orphan**: sent after the line, received before it (m5 of Fig. 1): the
  re-execution must re-send it identically, or the receiver depends on a state
  that is never reached again (C3 calls it *early*);
- **future**: sent after the line and not received before it: undone.

The line of a rollback passes through the checkpoint each rolled-back process
returns to and through the present of every process that does not roll back.
A rollback is the set of restores of one coordinated group
(``Protocol.coordinated_with``) that follow each other in a trace.
"""
from __future__ import annotations

from dataclasses import dataclass, field

PAST, IN_TRANSIT, ORPHAN, FUTURE = "past", "in transit", "orphan", "future"
C3_NAMES = {IN_TRANSIT: "late", ORPHAN: "early", PAST: "intra-epoch", FUTURE: "intra-epoch"}


@dataclass
class Classified:
    label: str
    src: int
    dst: int
    k: int
    cls: str
    detail: str = ""
    sent_at: int = 0             # the step of the send this classifies

    def as_dict(self) -> dict:
        return {"message": self.label, "from": self.src, "to": self.dst, "k": self.k, "class": self.cls,
                "detail": self.detail, "sent_at_step": self.sent_at}


@dataclass
class Rollback:
    step: int                    # the first restore of the group
    checkpoints: dict            # process -> (checkpoint id, step it was taken at, step it is restored at)
    survivors: tuple[int, ...]
    crash: int | None            # the step of the crash that caused it
    messages: list[Classified] = field(default_factory=list)

    def of(self, cls: str) -> list[str]:
        return [m.label for m in self.messages if m.cls == cls]

    def as_dict(self) -> dict:
        return {"step": self.step, "crash_step": self.crash,
                "checkpoints": {f"P{p}": {"checkpoint": f"C{c}", "taken_at_step": t0, "restored_at_step": t}
                                for p, (c, t0, t) in sorted(self.checkpoints.items())},
                "survivors": [f"P{q}" for q in self.survivors],
                "messages": [m.as_dict() for m in self.messages]}


@dataclass
class _Run:
    """What explain needs of a replay: every send and match with its step,
    the checkpoints, and the state right after each restore."""
    system: object
    sends: list = field(default_factory=list)     # (t, src, dst, k, payload)
    matches: list = field(default_factory=list)   # (t, dst, src, k, payload)
    ckpts: list = field(default_factory=list)     # (t, p, cid)
    restores: list = field(default_factory=list)  # (t, p, cid, state after)
    crashes: list = field(default_factory=list)   # (t, p)
    last: int = 0                                 # the number of steps


def run(system, events) -> _Run:
    """Re-execute scheduler events, keeping what explain needs."""
    from rrcheck.errors import UsageError
    r = _Run(system)
    s = system.initial()
    for t, ev in enumerate(events, start=1):
        a = tuple(ev)
        if a not in system.actions(s):
            raise UsageError(f"event {t} {list(a)} is not enabled at that point: the file does not replay")
        s, obs = system.step(s, a)
        r.last = t
        for o in obs:
            if o[0] == "sent":
                r.sends.append((t, o[1], o[2], o[3], o[4]))
            elif o[0] == "delivered":
                r.matches.append((t, o[1], o[2], o[3], o[4]))
            elif o[0] == "checkpoint":
                r.ckpts.append((t, o[1], o[2]))
            elif o[0] == "crash":
                r.crashes.append((t, o[1]))
            elif o[0] == "restore":
                r.restores.append((t, o[1], o[2], s))
    return r


def rollbacks(r: _Run) -> list[tuple[tuple, list]]:
    """Restores grouped into rollbacks: (group, [(t, p, cid, state)])."""
    proto, ctx = r.system.protocol, r.system.ctx
    out: list = []
    open_: dict = {}
    for t, p, cid, s in r.restores:
        g = tuple(sorted(proto.coordinated_with(ctx, p)))
        cur = open_.get(g)
        if cur is None or any(x[1] == p for x in cur):
            cur = []
            open_[g] = cur
            out.append((g, cur))
        cur.append((t, p, cid, s))
    return out


def explain(cx) -> list[Rollback]:
    """Every rollback of a counterexample (checker/traces/counterexample.py)."""
    from rrcheck.checker.model.scenarios import system_for
    return explain_events(system_for(cx)[0], cx.events)


def explain_events(system, events) -> list[Rollback]:
    """Every rollback of a run, each message with a rolled-back endpoint
    classified against its recovery line."""
    r = run(system, events)
    return [_classify(r, members) for _, members in rollbacks(r)]


def _classify(r: _Run, members: list) -> Rollback:
    from rrcheck.checker.traces.counterexample import label
    system = r.system
    n, proto, ctx = system.n, system.protocol, system.ctx
    t_first = members[0][0]
    back = {p: t for t, p, _, _ in members}                    # p -> step of its restore
    line = {}
    for t, p, cid, _ in members:                               # p -> step of its checkpoint
        taken = [tc for tc, q, c in r.ckpts if q == p and c == cid and tc < t]
        line[p] = max(taken) if taken else 0
    cid0 = members[0][2]
    for q in proto.coordinated_with(ctx, members[0][1]) if members[-1][0] == r.last else ():
        # the trace stops at this restore (a violation found there): the other members
        # of the group were about to roll back to their checkpoint of the same id
        taken = [tc for tc, x, c in r.ckpts if x == q and c == cid0]
        if q not in back and (taken or cid0 == 0):
            back[q], line[q] = members[-1][0], max(taken, default=0)
            members = members + [(back[q], q, cid0, members[-1][3])]
    state_at = {p: s for _, p, _, s in members}
    crashes = [tc for tc, _ in r.crashes if tc < t_first]
    rb = Rollback(t_first, {p: (cid, line[p], t) for t, p, cid, _ in members},
                  tuple(q for q in range(n) if q not in back), crashes[-1] if crashes else None)
    c3 = proto.name == "app-level"
    present = members[0][3]
    saved = {}  # p -> (the history its checkpoint saved, the messages its saved queue holds)
    for _, p, cid, st in members:
        image = dict(st.procs[p].images).get(cid)
        saved[p] = (image.ghost, frozenset(m.msg.gid for m in image.mailbox)) if image else None

    def history(p: int):
        """p's history at the line: its checkpoint's, or a survivor's present."""
        return saved[p][0] if p in back and saved[p] else present.procs[p].ghost

    latest: dict = {}  # (src, dst, k) -> its last send before the rollback, by any incarnation
    for ts, src, dst, k, payload in r.sends:
        if (src in back or dst in back) and ts < back.get(src, back.get(dst)):
            latest[(src, dst, k)] = (ts, payload)
    for (src, dst, k), (ts, payload) in sorted(latest.items(), key=lambda x: x[1][0]):
        older = ts <= _previous_restore(r, src, t_first)        # sent by an incarnation rolled back since
        sent = k < len(history(src).sent[dst])
        queued = dst in back and saved[dst] is not None and (src, dst, k) in saved[dst][1]
        got = [tm for tm, d, s_, kk, pl in r.matches if d == dst and s_ == src and kk == k and pl == payload
               and tm > ts]
        received = (k in history(dst).delivered_ids(src) or queued
                    or dst not in back and bool(got))           # a survivor may take the old copy later
        if older and not received:
            continue                                           # another incarnation's, undone already
        m = Classified(label(system, (src, dst, k)), src, dst, k, "", sent_at=ts)
        held = f"in P{dst}'s checkpointed queue" if queued and k not in history(dst).delivered_ids(src) else ""
        if sent and received:
            m.cls, m.detail = PAST, held
        elif sent:
            m.cls = IN_TRANSIT
            m.detail = _served(system, state_at.get(dst) or state_at[src], src, dst, k,
                               _cid(members, dst) if dst in back else None)
        elif received:
            m.cls = ORPHAN
            m.detail = "; ".join(x for x in (
                held, f"sent by an incarnation of P{src} rolled back since" if older else "",
                _resent(r, src, dst, k, payload, back.get(src, t_first), got[0] if got else None)) if x)
        else:
            m.cls = FUTURE
            m.detail = "undone by the rollback"
        if c3:
            m.detail = f"C3: {C3_NAMES[m.cls]}" + (f"; {m.detail}" if m.detail else "")
        rb.messages.append(m)
    return rb


def _previous_restore(r: _Run, p: int, t: int) -> int:
    return max((tr for tr, q, _, _ in r.restores if q == p and tr < t), default=0)


def _cid(members: list, p: int) -> int:
    return next(cid for _, q, cid, _ in members if q == p)


def _served(system, s, src: int, dst: int, k: int, cid: int | None) -> str:
    """Where the recovery finds an in-transit message at the restore."""
    gid = (src, dst, k)
    proto, ctx, n = system.protocol, system.ctx, system.n
    where = []
    pr = s.procs[dst]
    if cid is not None and any(
            m.gid == gid for m in proto.recorded_channels(ctx, dst, pr.stab, cid)):
        where.append(f"the channel state recorded with P{dst}'s checkpoint")
    elif pr.alive and any(m.msg.gid == gid for m in pr.mailbox):
        where.append(f"P{dst}'s checkpointed queue")
    if any(pk.msg is not None and pk.msg.gid == gid for pk in s.wire[src * n + dst]):
        where.append(f"the channel P{src} -> P{dst}")
    for x in range(n):
        px = s.procs[x]
        if px.alive and any(m.gid == gid for m in proto.holdings(ctx, x, px.vol, px.stab)):
            who = "sender-based copy" if x == src else "receiver's log" if x == dst else "log"
            where.append(f"P{x}'s {who}")
    return "served by " + ", ".join(where) if where else "held nowhere: LOST"


def _resent(r: _Run, src: int, dst: int, k: int, payload: int, t_back: int, t_got) -> str:
    again = [(t, pl) for t, s_, d, kk, pl in r.sends if s_ == src and d == dst and kk == k and t > t_back]
    when = "" if t_got is None or t_got < t_back else f" (P{dst} receives the old copy at step {t_got})"
    if not again:
        return "not re-sent before the trace ends" + when
    t, pl = again[0]
    if pl == payload:
        return f"re-sent identically at step {t}" + when
    return f"re-sent DIFFERENTLY at step {t}: P{dst} depends on a state P{src} never reaches again" + when


def text(rbs: list[Rollback]) -> list[str]:
    """The explanation, one line each."""
    out = []
    for i, rb in enumerate(rbs, start=1):
        ck = ", ".join(f"P{p} to C{c} (taken at step {t0})" if t0 else f"P{p} to C{c} (its start)"
                       for p, (c, t0, _) in sorted(rb.checkpoints.items()))
        surv = ", ".join(f"P{q}" for q in rb.survivors) or "none"
        cause = f" after the crash at step {rb.crash}" if rb.crash else ""
        out.append(f"rollback {i} at step {rb.step}{cause}: {ck}; the line passes through the present of "
                   f"{surv}")
        for m in rb.messages:
            out.append(f"    {m.label:>6} P{m.src} -> P{m.dst}: {m.cls}" + (f" — {m.detail}" if m.detail else ""))
        for cls in (IN_TRANSIT, ORPHAN):
            names = rb.of(cls)
            if names:
                out.append(f"    {cls}: {', '.join(names)}")
    return out
