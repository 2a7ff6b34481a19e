"""HMPL's and RBML's own safety properties (Meyer 2014, ch. 4, "Safety
properties for HMPL", P2 and P7–P11), and the failure-moment witnesses of the
protection flow (Meyer 2014 §4.2.2): receiver crashes before t2, in t2–t4, t4–t6 and
after t6, and sender crashes with a non-empty temporary buffer.

These read the protocol state of protocols/rbml.py (``Vol.tb``, ``rtb``, ``lg``);
SBML (protocols/logging.py) runs on the same engine and shares the ones that
make sense for it (its Message Log is kept until a checkpoint, so neither the
TB bound nor the final erasure applies, and its "logger" is the sender).
"""
from __future__ import annotations

from rrcheck.checker.invariants.general import Property, Violation, register
from rrcheck.checker.model.system import CRASHES

FAMILY = ("hmpl", "rbml")
LOGGING = FAMILY + ("sbml",)  # SBML: the log of a reception is held by its sender


def _logger(judge, s, p):
    """p's log: entries (RSN, src, SSN, msg, acked) at its logger (HMPL, RBML) or
    at its senders (SBML); None if a holder is down."""
    out: tuple = ()
    for h in _holders(judge, p):
        pr = s.procs[h]
        if not pr.alive:
            return None
        out += pr.vol.lg[p]
    return out


def _holders(judge, p) -> tuple[int, ...]:
    return _placement(judge)[0][p]


def _placement(judge) -> tuple:
    """Who holds each process's log, and whose logs each process holds: fixed by
    the placement, so asked of the protocol once per run."""
    placed = judge.__dict__.get("_log_placement")
    if placed is None:
        sysm = judge.sys
        holders = tuple(sysm.protocol.holders(sysm.ctx, p) for p in range(sysm.n))
        held = tuple(tuple(p for p in range(sysm.n) if h in holders[p]) for h in range(sysm.n))
        placed = judge._log_placement = (holders, held)
    return placed


def _checkpoint_rsn(s, p) -> tuple:
    st = s.procs[p].stab
    saved = dict(st.ckpts)[st.line]
    return saved


def _durable(judge, s, r, src, ssn) -> bool:
    """M = (src, SSN) may leave every temporary buffer: r's durable checkpoint
    covers it, or its logger holds it — confirmed (HMPL, t6) or merely saved or
    on its way (RBML, whose logger keeps what it never confirmed)."""
    if _checkpoint_rsn(s, r).tssn[src] >= ssn:
        return True
    if any(h != r and h in s.failed for h in _holders(judge, r)):
        # the logger died with its node: its confirmations stand, and the
        # re-protection checkpoint restores durability (losing M too would
        # take a second failure, outside Meyer 2014 §2.2.1)
        return True
    lg = _logger(judge, s, r)
    if lg is None:
        return False
    need_ack = judge.sys.protocol.logger_drops_unacked
    if any(e[1] == src and e[2] == ssn and (e[4] or not need_ack) for e in lg):
        return True
    if need_ack:
        return False
    return any(pk.kind == "log" and pk.hdr[1:] == (src, ssn)
               for h in _holders(judge, r) for pk in s.wire[r * judge.sys.n + h])


def _victims(obs) -> list[int]:
    return [o[1] for o in obs if o[0] == "crash"]


def erasure_order(judge, before, action, after, obs):
    """P2: a sender erases M from its TB, and a receiver from its own, only once
    M is safe (Meyer 2014 §4.2.2: TB_P2 after L2's ACK, TB_P1 after P2's notice)."""
    if action[0] in CRASHES:
        _count_moments(judge, before, _victims(obs))
        return None
    if action[0] == "restart":
        return None
    for s, (b, a) in enumerate(zip(before.procs, after.procs)):
        if b is a or not (b.alive and a.alive):  # states are interned: an unchanged process is the same object
            continue
        for dst, ssn, _ in set(b.vol.tb) - set(a.vol.tb):
            judge.w["tb_erasures_checked"] += 1
            if not _durable(judge, after, dst, s, ssn):
                return Violation("ErasureOrder", f"P{s} erases message SSN {ssn} to P{dst} from its temporary "
                                 f"buffer before P{dst}'s logger has it", {"sender": s, "receiver": dst, "ssn": ssn})
        for rsn, src, ssn in set(b.vol.rtb) - set(a.vol.rtb):
            if src < 0:
                continue
            if not _durable(judge, after, s, src, ssn):
                return Violation("ErasureOrder", f"P{s} erases its reception RSN {rsn} (P{src}, SSN {ssn}) from "
                                 f"its temporary buffer before its logger confirmed it",
                                 {"receiver": s, "sender": src, "rsn": rsn})
    return None


def _count_moments(judge, s, victims) -> None:
    """Which intervals of the flow of Fig. 4.4 a crash falls into (Meyer 2014 §4.2.2)."""
    w = judge.w
    for r in victims:
        pr = s.procs[r]
        if not pr.alive:
            continue
        if pr.vol.tb:
            w["crash_sender_with_tb"] += 1
        lg = _logger(judge, s, r) or ()
        saved = {e[0] for e in lg}
        if any(e[0] not in saved and e[1] >= 0 for e in pr.vol.rtb):
            w["crash_receiver_t2_t4"] += 1
        if any(e[0] in saved and e[1] >= 0 for e in pr.vol.rtb):
            w["crash_receiver_t4_t6"] += 1
        pending = [(q, ssn) for q, sq in enumerate(s.procs) if sq.alive and q != r
                   for d, ssn, _ in sq.vol.tb if d == r]
        if any(ssn > pr.vol.got[q] for q, ssn in pending):
            w["crash_receiver_before_t2"] += 1
        if any(ssn <= pr.vol.conf[q] for q, ssn in pending):
            w["crash_receiver_after_t6"] += 1


def logged_once(judge, s):
    """P7: each (sender, SSN) is logged once, each RSN names one event."""
    memo = judge.__dict__.setdefault("_logged_once", {})
    holders = _placement(judge)[0]
    w = judge.w
    for p in range(judge.sys.n):
        key = (p, *[s.procs[h] for h in holders[p]])  # a log is its holders' (interned) states
        seen = memo.get(key)
        if seen is None:
            if len(memo) >= 1 << 20:
                memo.clear()
            seen = memo[key] = _logged_once(p, _logger(judge, s, p))
        w["log_entries_checked"] += seen[1]
        if seen[0]:
            return seen[0]
    return None


def _logged_once(p, lg) -> tuple:
    """(the violation of P7 in p's log lg, or None; the entries checked)."""
    if not lg:
        return None, 0
    rsns = [e[0] for e in lg]
    dets = [e[1:3] for e in lg if e[1] >= 0]
    if len(set(rsns)) != len(rsns) or len(set(dets)) != len(dets):
        return Violation("LoggedOnce", f"P{p}'s logger holds a message or an RSN twice",
                         {"process": p, "log": [list(e[:3]) for e in lg]}), len(lg)
    return None, len(lg)


def logger_placement(judge, s):
    """P8: the logger of every process runs on another node (RADIC §2.3, Meyer 2014 §4.2.4)."""
    bad = getattr(judge, "_hmpl_placement", None)
    if bad is None:
        sysm = judge.sys
        ctx, proto = sysm.ctx, sysm.protocol
        bad = [p for p in range(sysm.n) if ctx.node_of[proto.host(ctx, p)] == ctx.node_of[p]]
        judge._hmpl_placement = bad
        judge.w["logger_placements_checked"] = sysm.n  # once per run, also a resumed one
    if bad:
        return Violation("LoggerPlacement", f"P{bad[0]}'s logger runs on its own node", {"processes": bad})
    return None


def gc_behind_checkpoint(judge, before, action, after, obs):
    """P9: a logger deletes only entries a durable checkpoint covers (Meyer 2014 §4.1.2);
    the exception is Meyer 2014 §4.2.2's drop of never-confirmed entries at a restart."""
    if action[0] in CRASHES or action[0] == "restart":
        return None
    held = _placement(judge)[1]
    touched = set()  # the logs that changed at one of their holders (an unchanged process is the same object)
    for h, (b, a) in enumerate(zip(before.procs, after.procs)):
        if b is a or not (b.alive and a.alive) or b.vol.lg is a.vol.lg:
            continue
        touched.update(p for p in held[h] if b.vol.lg[p] != a.vol.lg[p])
    for p in sorted(touched):
        old, new = _logger(judge, before, p), _logger(judge, after, p)
        if old is None or new is None:
            continue
        gone = set(old) - set(new)
        if not gone:
            continue
        line = _checkpoint_rsn(after, p).rsn
        for e in gone:
            if e[0] > line and e[4]:
                return Violation("GCBehindCheckpoint", f"P{p}'s logger deletes RSN {e[0]}, which P{p}'s durable "
                                 f"checkpoint (RSN {line}) does not cover", {"process": p, "rsn": e[0], "line": line})
            judge.w["log_entries_collected"] += e[0] <= line
    return None


def tb_bound(judge, s):
    """P10: in failure-free runs a sender's TB holds only messages whose logging
    is unfinished — no entry its receiver has released (Meyer 2014 §4.2.4). The
    thesis' "normally at most one message per receiver" is measured as
    ``tb_max_per_receiver`` (not a hard bound: a sender may send twice before
    the first is confirmed)."""
    if s.failures:
        return None
    sysm, w = judge.sys, judge.w
    t6 = sysm.protocol.release_at == "t6"
    for q, pr in enumerate(s.procs):
        for r in range(sysm.n):
            mine = [ssn for d, ssn, _ in pr.vol.tb if d == r]
            if len(mine) > w["tb_max_per_receiver"]:
                w["tb_max_per_receiver"] = len(mine)
            if not mine:
                continue
            rv = s.procs[r].vol
            released = (rv.conf if t6 else rv.got)[q]
            notices = [pk.hdr[0] for pk in s.wire[r * sysm.n + q] if pk.kind == "erase"]
            for ssn in mine:
                if ssn <= released and not any(x is None or x >= ssn for x in notices):
                    return Violation("TBBound", f"P{q} keeps message SSN {ssn} to P{r} in its temporary buffer "
                                     f"although P{r} released it", {"sender": q, "receiver": r, "ssn": ssn})
    return None


def buffers_erased(judge, s):
    """P11: under "no failure during recovery" (Meyer 2014 §2.2.1), when the run ends every
    recovery is over and every TB entry and unconfirmed log entry is gone."""
    sysm = judge.sys
    if s.failures > 1 and not sysm.bounds.no_failure_during_recovery:
        return None
    for p, pr in enumerate(s.procs):
        left = [("TB", e[:2]) for e in pr.vol.tb] + [("receiver TB", e) for e in pr.vol.rtb]
        lg = _logger(judge, s, p) or ()
        left += [("log", e[:3]) for e in lg if not e[4]]
        if left:
            return Violation("BuffersErased", f"the run ends with {left[0][0]} entry {left[0][1]} of P{p} never "
                             f"erased", {"process": p, "left": [[k, list(v)] for k, v in left]})
    judge.w["terminals_with_buffers_erased"] += 1
    return None


register(
    Property("ErasureOrder", "HMPL P2 (our property, from Meyer 2014 §4.2.2, Fig. 4.4): temporary-buffer entries "
             "are erased only once the message is safe at the receiver's logger (t6 before t7)", LOGGING,
             transition=erasure_order),
    Property("LoggedOnce", "HMPL P7 (our property, from Meyer 2014 §4.2.2's SSN check): each (sender, SSN) is "
             "logged once, with a unique RSN", LOGGING, state=logged_once),
    Property("LoggerPlacement", "HMPL P8 (our property, from Meyer 2014 §4.2.2, §4.2.4: the logger is on another "
             "node): a process's logger is never on its own node", FAMILY, state=logger_placement),
    Property("GCBehindCheckpoint", "HMPL P9 (our property, from Meyer 2014 §4.1.2): the log is garbage-collected "
             "only behind a durable checkpoint", LOGGING, transition=gc_behind_checkpoint),
    Property("TBBound", "HMPL P10 (our reading of Meyer 2014 §4.2.4's bound on the sender's buffer): in "
             "failure-free runs a temporary buffer holds only messages still being logged", FAMILY, state=tb_bound),
    Property("BuffersErased", "HMPL P11 (our property, under Meyer 2014 §2.2.1's assumption of no failure during "
             "recovery): every run ends with every recovery over and every temporary-buffer entry erased", FAMILY,
             terminal=buffers_erased),
)
