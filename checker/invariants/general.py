"""The general consistency properties (docs/design.md §4), the registry of the
protocols' own, and the :class:`Judge` that applies them.

Each property is a plain function of a state, or of a transition and the
observations it produced (checker/model/system.py). :class:`Judge` applies the
selected ones and counts the witnesses that make a pass non-vacuous.

"Quiescent" below means no recovery under way: every process is up, none says
it is recovering, and no recovery packet is on the wire. Between a failure and
the end of its recovery, survivors that are about to roll back legitimately
hold states the recovery will discard, so state properties wait for quiescence.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Callable, Iterable

from rrcheck.checker.model.ghost import History
from rrcheck.errors import UsageError

GENERAL = ("NoLostMessage", "NoDuplicateDelivery", "NoOrphan", "FailureFreeEquivalence",
           "Termination", "RollbackScope", "NoInTransitInGroup", "RecoveryBound")

DESCRIPTIONS = {
    "NoLostMessage": "every message sent in its sender's current history and not yet delivered is still "
                     "obtainable (wire, queue, log, buffer, recorded channel state)",
    "NoDuplicateDelivery": "no process delivers the same logical message twice in its current history",
    "NoOrphan": "a delivered message is never contradicted by its sender's re-execution",
    "FailureFreeEquivalence": "a terminated run with failures ends in the final state of some failure-free run",
    "Termination": "no reachable state is stuck with unfinished processes or an unfinished recovery",
    "RollbackScope": "only the processes the protocol promises roll back after a failure",
    # "in transit" as Bouteiller et al. §2.1 define it (sent before the recovery line, received after);
    # a message the checkpoint recorded (Chandy-Lamport's channel state, C3's late-message log, the
    # receiver's queue) counts as delivered, as in the proof of their Theorem 1
    "RecoveryBound": "no failure makes a process roll back more than once per process it restarts: a rollback "
                     "other than the process's own restart raises the count of restarts it has recovered from, "
                     "which never exceeds the restarts that can have happened",
    "NoInTransitInGroup": "at a rollback of a group that checkpoints in coordination, no message between two "
                          "of its members is in transit at its recovery line (sent before it, received after) "
                          "unless the checkpoint recorded it",
}


@dataclass(frozen=True)
class Property:
    """A protocol's own property (e.g. HMPL's erasure order), beside the general
    ones. Its hooks have the signatures of :class:`Judge`'s methods with the judge
    first, return a :class:`Violation` or None, and count witnesses in ``judge.w``.
    Registered by a submodule of this package with :func:`register`."""
    name: str
    description: str
    protocols: tuple[str, ...]  # the protocols (and so their mutants) it applies to
    transition: Callable | None = None  # (judge, before, action, after, obs)
    state: Callable | None = None       # (judge, s)
    terminal: Callable | None = None    # (judge, s), only at terminal states with everything finished
    refines: str | None = None          # a general property this one names for its protocols


OWN: dict[str, Property] = {}


def register(*props: Property) -> None:
    for p in props:
        assert p.name not in OWN and p.name not in GENERAL, p.name
        OWN[p.name] = p
        DESCRIPTIONS[p.name] = p.description


def applicable(protocol: str) -> tuple[str, ...]:
    """The general properties and the protocol's own (RecoveryBound only where the
    protocol says why it holds: :attr:`Protocol.RECOVERY_BOUND`)."""
    from rrcheck.protocols.mutants import PROTOCOLS
    cls = PROTOCOLS.get(protocol)
    general = tuple(g for g in GENERAL if g != "RecoveryBound" or (cls and cls.RECOVERY_BOUND))
    return general + tuple(n for n, p in OWN.items() if protocol in p.protocols)


def properties_for(system, protocol: str, properties) -> tuple[str, ...]:
    """The properties asked for, or all that apply to the protocol."""
    mine = applicable(system.protocol.name)
    props = tuple(properties or mine)
    for p in props:
        if p not in mine:
            raise UsageError(f"unknown property {p!r} for {protocol}; choose among {', '.join(mine)}")
    return props


@dataclass
class Violation:
    property: str
    message: str
    values: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"property": self.property, "message": self.message, "values": self.values}


# --- pure checks over ghost histories ----------------------------------------

def duplicate(before: History, src: int, k: int) -> bool:
    """NoDuplicateDelivery: k was already delivered from src in this history."""
    return k in before.delivered_ids(src)


def contradicted(sent: tuple[int, ...], delivered: Iterable[tuple[int, int]]) -> tuple[int, int, int] | None:
    """NoOrphan: the first (k, delivered payload, re-sent payload) that differ."""
    for k, d in delivered:
        if k < len(sent) and sent[k] != d:
            return (k, d, sent[k])
    return None


def crossing(sent: tuple[int, ...], received: set[int]) -> list[int]:
    """NoInTransitInGroup: messages sent before the line (``sent``) and not received
    before it (``received``): they cross the recovery line past → future."""
    return [k for k in range(len(sent)) if k not in received]


# The notes of a replay: an event of a lost history given back from stable storage or a
# log — a logged reception or choice replayed, a collective completed from a log, a
# recorded in-transit message restored, a logged message re-sent to a restarted receiver.
# The Judge counts them together as ``replays``, a coverage witness of every engine.
REPLAY_NOTES = frozenset({"replayed_receptions", "receptions_replayed", "replayed_messages", "nondet_replayed",
                          "late_messages_replayed", "collectives_from_log", "in_transit_restored",
                          "logged_messages_resent", "partially_logged_resent", "tb_messages_resent"})


# Properties every judge skips. Tests only: they switch one property off to show that
# the guard (rrcheck check --all, pytest -k invariants) notices a dead property.
DISABLED: set[str] = set()


_GHOST = attrgetter("ghost")


class Judge:
    """Applies the invariants to one System and counts witnesses. ``properties``:
    the ones to check, all that apply to the protocol when None (an empty
    collection checks none)."""

    def __init__(self, system, properties: Iterable[str] | None = None,
                 failure_free_finals: set[tuple[int, ...]] | None = None):
        self.sys = system
        props = applicable(system.protocol.name) if properties is None else properties
        self.props = frozenset(props) - DISABLED
        self.finals = failure_free_finals
        self.w: Counter = Counter()
        self._checkpointed: set[int] = set()
        self._by_ghosts: dict = {}  # the processes' histories -> what the state checks read of them
        self._rec: tuple = (None, False, None, False)  # the last two states _recovering was asked of
        own = [OWN[n] for n in self.props if n in OWN and system.protocol.name in OWN[n].protocols]
        self._own_transition = [p.transition for p in own if p.transition]
        self._own_state = [p.state for p in own if p.state]
        self._own_terminal = [p.terminal for p in own if p.terminal]
        # the name a violation of NoInTransitInGroup takes: a protocol's own reading if it has one
        line = [p.name for p in own if p.refines == "NoInTransitInGroup"]
        self._line = line[0] if line else "NoInTransitInGroup" if "NoInTransitInGroup" in self.props else None

    # -- transitions -----------------------------------------------------------
    def transition(self, before, action, after, obs) -> Violation | None:
        w = self.w
        w["transitions"] += 1
        restored: set = set()
        for o in obs:
            kind = o[0]
            if kind == "delivered":
                _, p, src, k, payload, hist = o[:6]
                w["deliveries"] += 1
                if duplicate(hist, src, k):
                    w["duplicate_deliveries"] += 1
                    if "NoDuplicateDelivery" in self.props:
                        return Violation("NoDuplicateDelivery",
                                         f"P{p} delivers message #{k} from P{src} a second time",
                                         {"receiver": p, "sender": src, "k": k})
            elif kind == "sent":
                _, p, dst, k, payload = o
                r = after.procs[dst]
                prev = dict(r.ghost.delivered[p]).get(k)
                if prev is not None:
                    w["resends_of_delivered"] += 1
                    if prev == payload:
                        w["orphans_regenerated_identically"] += 1
                    else:
                        w["orphan_contradictions_seen"] += 1
            elif kind == "restore":
                v = (self._restore(before, after, o)
                     or self._bound(before, action, after, o[1], o[1] not in restored))
                restored.add(o[1])
                if v:
                    return v
            elif kind == "crash":
                w["crashes"] += 1
                if o[2]:
                    w["node_crash_victims"] += 1
            elif kind == "checkpoint":
                w["checkpoints"] += 1
                if o[1] not in self._checkpointed:
                    self._checkpointed.add(o[1])
                    w["processes_checkpointed"] += 1
                bound = self.sys.bounds.checkpoints
                if after.procs[o[1]].ckpts == bound and all(pr.ckpts == bound for pr in after.procs):
                    w["every_process_at_the_checkpoint_bound"] += 1
            elif kind == "note":
                w[o[1]] += 1
                if o[1] in REPLAY_NOTES:
                    w["replays"] += 1
        if action[0] == "crash_node" or action[0] == "crash":
            self._failure(before, action, after)
        for check in self._own_transition:
            v = check(self, before, action, after, obs)
            if v:
                return v
        return None

    def along_a_run(self, before, after) -> None:
        """What two states in a row of one run show beyond their transition: a recovery
        completed (one under way in ``before``, none in ``after``). The stateful engine
        calls it at each step, at the cost of one recovery test it makes anyway; a
        breadth-first search, whose transitions often end in states seen before, would pay
        up to two per transition (4 to 10 % of its time on three default scenarios) and
        does not."""
        if after.failures and not self._recovering(after) and self._recovering(before):
            self.w["recoveries_completed"] += 1

    def _recovering(self, s) -> bool:
        """:meth:`System.recovery_under_way`, remembered for the last two states asked: a
        search judges a state's transitions one after another and then the new state, a
        run each step from the state the last one reached."""
        last = self._rec
        if last[0] is s:
            return last[1]
        if last[2] is s:
            return last[3]
        r = self.sys.recovery_under_way(s)
        self._rec = (s, r, last[0], last[1])
        return r

    def _failure(self, before, action, after) -> None:
        """Coverage of a failure: its kind, and when it struck (what a random
        engine must be shown to generate, not only the exhaustive one)."""
        w = self.w
        w["node_crashes" if action[0] == "crash_node" else "process_crashes"] += 1
        victims = [p for p in range(self.sys.n) if before.procs[p].alive and not after.procs[p].alive]
        if any(before.procs[p].ckpts for p in victims):
            w["crashes_after_a_checkpoint"] += 1
        if after.failures >= 2:
            w["second_failures"] += 1
        if self._recovering(before):
            w["crashes_during_a_recovery"] += 1

    def _restore(self, before, after, o) -> Violation | None:
        _, p, cid, old, new = o
        sysm, w = self.sys, self.w
        ctx, proto = sysm.ctx, sysm.protocol
        w["rollbacks"] += 1
        if cid:
            w["rollbacks_to_a_checkpoint"] += 1
        if p not in after.failed:
            w["survivor_rollbacks"] += 1
        # orphan situations this rollback creates: what p sent and others delivered
        for r in range(sysm.n):
            if r != p:
                gone = [k for k in after.procs[r].ghost.delivered_ids(p) if k >= len(new.sent[r])]
                w["orphan_situations"] += len(gone)
        img_p = sysm.image(after, p, cid)
        received = {q: new.delivered_ids(q) for q in range(sysm.n)}
        for mail in img_p.mailbox:
            received[mail.msg.src].add(mail.msg.gid[2])
        for m in proto.recorded_channels(ctx, p, after.procs[p].stab, cid):
            received[m.src].add(m.gid[2])
        group = proto.coordinated_with(ctx, p)
        for q in range(sysm.n):
            if q == p or q in group:
                continue
            w["in_transit_at_recovery_line"] += len(crossing(after.procs[q].ghost.sent[p], received[q]))
        if "RollbackScope" in self.props:
            allowed = self._scope(after.failed)
            if p not in allowed:
                return Violation("RollbackScope",
                                 f"P{p} rolls back although the {proto.scope} scope after failures of "
                                 f"{sorted(after.failed)} is {sorted(allowed)}",
                                 {"process": p, "failed": sorted(after.failed), "allowed": sorted(allowed)})
        if len(group) > 1:
            w["theorem1_lines_checked"] += 1
            for q in group:
                if q == p:
                    continue
                img_q = sysm.image(after, q, cid)
                if img_q is None:
                    if self._line:
                        return Violation(self._line, f"P{p} rolls back to checkpoint {cid}, which P{q} of its "
                                         f"set never took: no recovery line", {"process": p, "peer": q, "cid": cid})
                    continue
                w["theorem1_internal_messages"] += len(img_q.ghost.sent[p])
                bad = crossing(img_q.ghost.sent[p], received[q])
                if bad and self._line:
                    return Violation(self._line,
                                     f"message #{bad[0]} from P{q} to P{p} is in transit at the recovery line "
                                     f"of checkpoint {cid} (sent before it, received after) inside one group",
                                     {"sender": q, "receiver": p, "k": bad[0], "cid": cid,
                                      "set": list(group)})
        return None

    def _bound(self, before, action, after, p: int, first: bool) -> Violation | None:
        """RecoveryBound at a rollback of p. A restart rolls its process back
        once; any other rollback must take in a restart p had not heard of.
        With no counter in the state, the count is the protocol's own
        (:meth:`Protocol.restarts_heard`), held to the restarts that can have
        happened: one per victim of each failure so far."""
        if first and action == ("restart", p):
            self.w["restart_rollbacks"] += 1
            return None
        proto, ctx = self.sys.protocol, self.sys.ctx
        heard = proto.restarts_heard(ctx, p, before.procs[p].stab)
        now = proto.restarts_heard(ctx, p, after.procs[p].stab)
        if now > heard:
            self.w["rollbacks_for_a_restart_heard"] += 1
        if "RecoveryBound" not in self.props:
            return None
        if now <= heard:
            return Violation("RecoveryBound", f"P{p} rolls back again for no restart it had not heard of "
                             f"(still {now})", {"process": p, "restarts_heard": now})
        cap = after.failures * self.sys.victims_per_failure
        if now > cap:
            return Violation("RecoveryBound", f"P{p} has rolled back for {now} restarts, but {after.failures} "
                             f"failure(s) restart at most {cap} processes",
                             {"process": p, "restarts_heard": now, "restarts_possible": cap})
        return None

    def _scope(self, failed: frozenset) -> set[int]:
        sysm = self.sys
        scope = sysm.protocol.scope
        if scope == "all":
            return set(range(sysm.n))
        if scope == "group":
            return {q for f in failed for q in sysm.ctx.group(f)}
        return set(failed)

    # -- states ----------------------------------------------------------------
    def state(self, s) -> Violation | None:
        """NoLostMessage and NoOrphan at quiescent states."""
        sysm, w = self.sys, self.w
        w["states"] += 1
        for check in self._own_state:
            v = check(self, s)
            if v:
                return v
        if self._recovering(s):
            w["states_in_recovery"] += 1
            return None
        if s.failures:
            w["quiescent_states_after_failure"] += 1
        ghosts = tuple(map(_GHOST, s.procs))
        memo = self._by_ghosts
        seen = memo.get(ghosts)
        if seen is None:
            if len(memo) >= 1 << 20:
                memo.clear()
            seen = memo[ghosts] = self._histories(ghosts)
        orphan, missing = seen
        if orphan:
            return orphan
        if missing:
            have = sysm.obtainable(s)
            w["states_with_undelivered_messages"] += 1
            for p, r, k in missing:
                if (p, r, k) not in have:
                    return Violation("NoLostMessage",
                                     f"message #{k} from P{p} to P{r} was sent in P{p}'s current history, "
                                     f"P{r} has not delivered it, and no wire, queue or log holds it",
                                     {"sender": p, "receiver": r, "k": k})
        return None

    def _histories(self, ghosts: tuple) -> tuple:
        """What NoOrphan and NoLostMessage read of a quiescent state's histories
        alone: the first orphan (or None), and the messages sent in a current
        history and not delivered, as (sender, receiver, k), in order. Many states
        share their histories (control traffic leaves them be): memoised."""
        n = len(ghosts)
        if "NoOrphan" in self.props:
            for r in range(n):
                gh = ghosts[r]
                for p in range(n):
                    bad = contradicted(ghosts[p].sent[r], gh.delivered[p])
                    if bad:
                        k, d, now = bad
                        return Violation("NoOrphan",
                                         f"P{r} delivered message #{k} from P{p} with payload {d:08x}, but P{p}'s "
                                         f"recovered history sent {now:08x}: P{r} is an orphan",
                                         {"receiver": r, "sender": p, "k": k, "delivered": d, "resent": now}), ()
        missing: list = []
        if "NoLostMessage" in self.props:
            for p in range(n):
                sent = ghosts[p].sent
                for r in range(n):
                    if sent[r]:
                        got = ghosts[r].delivered_ids(p)
                        missing += [(p, r, k) for k in range(len(sent[r])) if k not in got]
        return None, tuple(missing)

    def terminal(self, s) -> Violation | None:
        """A state with nothing enabled: Termination, FailureFreeEquivalence, NoOrphan."""
        sysm, w = self.sys, self.w
        w["terminal_states"] += 1
        unfinished = [p for p in range(sysm.n) if not sysm.finished(s, p)]
        if unfinished or sysm.recovery_under_way(s):
            if "Termination" in self.props:
                where = {f"P{p}": list(sysm.progs[p][s.procs[p].pc]) for p in unfinished}
                return Violation("Termination",
                                 "deadlock: nothing is enabled, "
                                 + (f"P{', P'.join(map(str, unfinished))} unfinished" if unfinished
                                    else "a recovery unfinished"),
                                 {"blocked_at": where, "recovering": sysm.recovery_under_way(s)})
            return None
        if s.failures:
            w["terminal_states_after_failure"] += 1
        if "NoDuplicateDelivery" in self.props:
            for r in range(sysm.n):
                for p in range(sysm.n):
                    ks = [k for k, _ in s.procs[r].ghost.delivered[p]]
                    if len(ks) != len(set(ks)):
                        k = next(k for k in ks if ks.count(k) > 1)
                        return Violation("NoDuplicateDelivery", f"P{r} ends having delivered message #{k} "
                                         f"from P{p} twice", {"receiver": r, "sender": p, "k": k})
        if "NoOrphan" in self.props:
            for r in range(sysm.n):
                for p in range(sysm.n):
                    sent = s.procs[p].ghost.sent[r]
                    for k, d in s.procs[r].ghost.delivered[p]:
                        if k >= len(sent):
                            return Violation("NoOrphan",
                                             f"P{r} ends having delivered message #{k} from P{p}, which P{p}'s "
                                             f"final history never sent", {"receiver": r, "sender": p, "k": k})
        if "FailureFreeEquivalence" in self.props and self.finals is not None:
            final = tuple(pr.acc for pr in s.procs)
            if final not in self.finals:
                diff = self._closest(final)
                return Violation("FailureFreeEquivalence",
                                 "the run ends in a state no failure-free run reaches",
                                 {"final": [f"{x:08x}" for x in final], "processes_differing": diff})
            if s.failures:
                w["equivalent_terminals_after_failure"] += 1
        for check in self._own_terminal:
            v = check(self, s)
            if v:
                return v
        return None

    def _closest(self, final: tuple[int, ...]) -> list[int]:
        best = None
        for ref in self.finals:
            d = [p for p, (a, b) in enumerate(zip(final, ref)) if a != b]
            if best is None or len(d) < len(best):
                best = d
        return best or []
