"""The system model (docs/design.md §2): processes on nodes, channels, failures, storage.

A :class:`System` is a Stateright-style model — initial state, enabled
actions, next state — built from a protocol, a workload and a scenario. It
never imports a protocol module: it only drives the handlers of
``rrcheck.protocols.base.Protocol`` and executes their effects.

Actions (the scheduler events, saved in counterexample files):
``("step", p)`` an application send or checkpoint site, ``("recv", p, i)``
match mail i of p's queue, ``("choose", p, c)`` a non-deterministic outcome,
``("deliver", src, dst, i)`` packet i of a channel (always 0 on FIFO),
``("internal", p, label)``, ``("crash", p)``, ``("crash_node", node)``,
``("restart", p)``; ``("coll_all", j)`` every process completes its j-th
collective call together, ``("coll", p)`` p completes its call alone from a
log (a protocol's :meth:`~rrcheck.protocols.base.Protocol.coll_local`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter
from typing import Any

from rrcheck.checker.model import ghost as G
from rrcheck.checker.model.program import M32, Workload, mix
from rrcheck.protocols.base import (ANY, AppMsg, Checkpoint, Context, Deliver, Mail, Note,
                            Packet, Protocol, Restore, Send, COLLECTIVES, coll_sources, value)

CRASHES = ("crash", "crash_node")  # the scheduler's failure events: never progress, never reduced away


@value
class Image:
    """A checkpointed application: its state, its matching queue, and the ghost
    history the invariants compare against."""

    pc: int
    acc: int
    last_src: int
    mailbox: tuple[Mail, ...]
    ghost: G.History


class _Cached:
    """Hash once: states are hashed at every visited-set lookup, and most of a
    successor's processes are shared with its parent."""

    __slots__ = ()

    def __hash__(self) -> int:
        return self._h

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is type(self) and self._h == other._h
                                 and self._key() == other._key())


@dataclass(frozen=True, slots=True, eq=False)
class Proc(_Cached):
    alive: bool
    pc: int
    acc: int
    last_src: int
    mailbox: tuple[Mail, ...]  # volatile
    vol: Any                   # volatile protocol state
    stab: Any                  # stable protocol state
    images: tuple[tuple[int, Image], ...]  # stable: checkpoint id -> image
    ckpts: int                 # checkpoints taken (bounded)
    ghost: G.History
    _h: int = field(init=False, repr=False)

    def _key(self) -> tuple:
        return (self.alive, self.pc, self.acc, self.last_src, self.mailbox, self.vol, self.stab,
                self.images, self.ckpts, self.ghost)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_h", hash(self._key()))

    def but(self, **kw) -> "Proc":
        return Proc(*[kw[f] if f in kw else v for f, v in zip(_PROC_FIELDS, self._key())])


_PROC_FIELDS = ("alive", "pc", "acc", "last_src", "mailbox", "vol", "stab", "images", "ckpts", "ghost")


@dataclass(frozen=True, slots=True, eq=False)
class State(_Cached):
    procs: tuple[Proc, ...]
    wire: tuple[tuple[Packet, ...], ...]  # channel src*n+dst
    failures: int
    failed: frozenset
    _h: int = field(init=False, repr=False)

    def _key(self) -> tuple:
        return (self.procs, self.wire, self.failures, self.failed)

    def __post_init__(self) -> None:
        # the processes' own cached hashes, read in C: a state is hashed at every step
        object.__setattr__(self, "_h", hash((tuple(map(_HASH_OF, self.procs)), self.wire, self.failures, self.failed)))


_HASH_OF = attrgetter("_h")


@dataclass(frozen=True)
class Bounds:
    failures: int = 1
    checkpoints: int = 1  # checkpoints a process may initiate
    depth: int = 10_000
    crash_kinds: tuple[str, ...] = ("process", "node")
    no_failure_during_recovery: bool = False  # Meyer 2014 §2.2.1
    checkpoint_at_sites: bool = False  # a protocol may start a checkpoint only at a checkpoint_site

    def as_dict(self) -> dict:
        return {"failures": self.failures, "checkpoints": self.checkpoints, "depth": self.depth,
                "crash_kinds": list(self.crash_kinds),
                "no_failure_during_recovery": self.no_failure_during_recovery,
                "checkpoint_at_sites": self.checkpoint_at_sites}


def _coll_acc(acc: int, op: tuple, inputs: tuple) -> int:
    """A process's state after a collective call: its own state and the data
    that flowed into it (none for a barrier, or for a reduce's non-root)."""
    return mix(acc, 0xC0 + COLLECTIVES.index(op[1]), *inputs)


def _image(pr: Proc) -> Image:
    return Image(pr.pc, pr.acc, pr.last_src, pr.mailbox, pr.ghost)


# The model's own semantics, as knobs whose wrong values are the model-level mutants of
# protocols/mutants.py: each is a rule of docs/design.md §2 that some property must pin.
MODEL_KNOBS = {
    "crash_drops_packets": True,    # packets addressed to a crashed process die with it
    "crash_drops_queue": True,      # the receive queue is volatile: lost at a crash
    "rollback_restores_app": True,  # a rollback restores the application's state from the image
    "image_holds_data": True,       # an image holds the application's data, not only where it was
    "fifo_in_order": True,          # a FIFO channel delivers its oldest packet first
}


# actions that change one process (and the wire): step() reuses their outcome
_LOCAL = frozenset({"step", "recv", "choose", "coll", "deliver", "internal", "restart"})
_SEND = object()  # a packet sent, in a step's script
_MEMO_LIMIT = 1 << 20  # entries per memo before it starts over (memory, not correctness)


class System:
    """One scenario: a protocol on a workload under bounds. ``model``
    overrides :data:`MODEL_KNOBS` (model-level mutants only)."""

    def __init__(self, protocol: Protocol, workload: Workload, bounds: Bounds,
                 group_of: tuple[int, ...] | None = None, model: dict | None = None):
        unknown = set(model or ()) - set(MODEL_KNOBS)
        if unknown:
            raise ValueError(f"unknown model knobs {sorted(unknown)}")
        knobs = MODEL_KNOBS | (model or {})
        self.model = model or {}
        self._drop_packets = knobs["crash_drops_packets"]
        self._drop_queue = knobs["crash_drops_queue"]
        self._restore_app = knobs["rollback_restores_app"]
        self._image_data = knobs["image_holds_data"]
        self._in_order = knobs["fifo_in_order"]
        self.protocol = protocol
        self.workload = workload
        self.bounds = bounds
        self.progs = workload.programs
        n = workload.n
        groups = group_of or workload.group_of or workload.node_of
        self.ctx = Context(n, workload.node_of, tuple(groups), workload.fifo)
        self.n = n
        self.nodes = sorted(set(workload.node_of))
        self._local_steps: dict = {}
        self._closure_memo: dict = {}
        self._channels = range(n * n)
        self._on_node = {x: tuple(p for p in range(n) if workload.node_of[p] == x) for x in self.nodes}
        self._procs: dict = {}
        self._collective = any(op[0] == "coll" for prog in self.progs for op in prog)
        # the index of the collective call at each pc (collectives are matched by it)
        self._coll_no = tuple(tuple(sum(1 for op in prog[:i] if op[0] == "coll") for i in range(len(prog) + 1))
                              for prog in self.progs)

    @property
    def bounds(self) -> Bounds:
        return self._bounds

    @bounds.setter
    def bounds(self, b: Bounds) -> None:
        self._bounds = b
        self._local_acts = {}  # a process's enabled checkpoints depend on the bounds

    # -- initial state --------------------------------------------------------
    @property
    def victims_per_failure(self) -> int:
        """The most processes one failure can take down (RecoveryBound)."""
        if "node" not in self.bounds.crash_kinds:
            return 1
        return max(self.ctx.node_of.count(x) for x in self.nodes)

    def initial(self) -> State:
        procs = []
        for p in range(self.n):
            vol, stab = self.protocol.initial(self.ctx, p)
            gh = G.empty(self.n)
            img = Image(0, mix(p), -1, (), gh)
            procs.append(Proc(True, 0, mix(p), -1, (), vol, stab, ((0, img),), 0, gh))
        self._init = State(tuple(map(self._intern, procs)), tuple(() for _ in range(self.n * self.n)), 0, frozenset())
        return self._init

    # -- enabled actions -------------------------------------------------------
    def finished(self, s: State, p: int) -> bool:
        return s.procs[p].pc >= len(self.progs[p])

    def recovery_under_way(self, s: State) -> bool:
        proto, ctx = self.protocol, self.ctx
        for p, pr in enumerate(s.procs):
            if not pr.alive or proto.recovering(ctx, p, pr.vol):
                return True
        kinds = proto.RECOVERY_KINDS
        if kinds:
            for ch in filter(None, s.wire):
                for pk in ch:
                    if pk.kind in kinds:
                        return True
        return False

    def actions(self, s: State) -> list[tuple]:
        acts: list[tuple] = []
        memo = self._local_acts
        for p, pr in enumerate(s.procs):
            # keyed by identity (processes are interned); the entry holds pr, so its id is not reused
            hit = memo.get((p, id(pr)))
            if hit is None or hit[0] is not pr:
                if len(memo) >= _MEMO_LIMIT:
                    memo.clear()
                hit = memo[(p, id(pr))] = (pr, self._actions_of(p, pr))
            acts.extend(hit[1])
        ctx, n = self.ctx, self.n
        j = self._joint_collective(s) if self._collective else None
        if j is not None:
            acts.append(("coll_all", j))
        wire = s.wire
        for c in compress(self._channels, wire):  # the channels with a packet on them
            src, dst = divmod(c, n)
            if not s.procs[dst].alive:
                continue  # held for its next incarnation (only where crash_drops_packets is wrong)
            if ctx.fifo and self._in_order:
                acts.append(("deliver", src, dst, 0))
            else:
                ch = wire[c]
                for i, pk in enumerate(ch):
                    if pk not in ch[:i]:
                        acts.append(("deliver", src, dst, i))
        b = self._bounds
        if s.failures < b.failures and not (b.no_failure_during_recovery and self.recovery_under_way(s)):
            if "process" in b.crash_kinds:
                acts.extend(("crash", p) for p, pr in enumerate(s.procs) if pr.alive)
            if "node" in b.crash_kinds:
                for node, on in self._on_node.items():
                    alive = sum(1 for p in on if s.procs[p].alive)
                    # a node of one live process crashes exactly as that process does
                    if alive >= 2 or (alive == 1 and "process" not in b.crash_kinds):
                        acts.append(("crash_node", node))
        return acts

    def _actions_of(self, p: int, pr: Proc) -> tuple:
        """The actions process p enables on its own: they depend on its local
        state only, so :meth:`actions` reuses them across global states."""
        if not pr.alive:
            return (("restart", p),)
        proto, ctx = self.protocol, self.ctx
        acts: list[tuple] = []
        prog = self.progs[p]
        if pr.pc < len(prog):
            op = prog[pr.pc]
            kind = op[0]
            if kind == "send" or kind == "reply":
                dst = op[1] if kind == "send" else pr.last_src
                if proto.may_send(ctx, p, pr.vol, dst):
                    acts.append(("step", p))
            elif kind == "recv":
                seen: set[int] = set()
                for i, mail in enumerate(pr.mailbox):
                    m = mail.msg
                    if m.src in seen:  # MPI non-overtaking: first from each source
                        continue
                    if (op[1] == ANY or op[1] == m.src) and (op[2] == ANY or op[2] == m.tag):
                        seen.add(m.src)
                        if proto.may_match(ctx, p, pr.vol, mail):
                            acts.append(("recv", p, i))
            elif kind == "nondet":
                for c in range(op[1]):
                    if proto.may_choose(ctx, p, pr.vol, op[1], c):
                        acts.append(("choose", p, c))
            elif kind == "coll":
                if proto.coll_local(ctx, p, pr.vol, op) is not None:
                    acts.append(("coll", p))
            else:  # site
                acts.append(("step", p))
        may_ckpt = pr.ckpts < self.bounds.checkpoints and (
            not (self.bounds.checkpoint_at_sites or proto.at_sites)
            or (pr.pc < len(prog) and prog[pr.pc][0] == "site"))
        for label in proto.internal(ctx, p, pr.vol, pr.stab, may_ckpt):
            acts.append(("internal", p, label))
        return tuple(acts)

    def _at_coll(self, s: State, p: int) -> bool:
        pr, prog = s.procs[p], self.progs[p]
        return pr.pc < len(prog) and prog[pr.pc][0] == "coll"

    def _joint_collective(self, s: State) -> int | None:
        """The index of the collective every process is calling now, if the
        protocol lets them complete it together (never split into messages)."""
        if not all(pr.alive and self._at_coll(s, p) for p, pr in enumerate(s.procs)):
            return None
        ops = {self.progs[p][pr.pc] for p, pr in enumerate(s.procs)}
        nos = {self._coll_no[p][pr.pc] for p, pr in enumerate(s.procs)}
        if len(ops) != 1 or len(nos) != 1:
            return None
        proto, ctx = self.protocol, self.ctx
        op = ops.pop()
        if any(proto.coll_local(ctx, p, pr.vol, op) is not None for p, pr in enumerate(s.procs)):
            return None
        if not proto.may_collect(ctx, tuple(proto.coll_header(ctx, p, pr.vol) for p, pr in enumerate(s.procs))):
            return None
        return nos.pop()

    # -- reductions (docs/design.md §5: each keeps every terminal state) -----------------
    @staticmethod
    def actor(a: tuple) -> int:
        return a[2] if a[0] == "deliver" else a[1]

    def reduce(self, s: State, acts: list[tuple]) -> list[tuple]:
        """A subset of the enabled actions that still reaches every terminal
        state, where Termination, FailureFreeEquivalence, NoOrphan and
        NoDuplicateDelivery are judged.

        A crash of x commutes with every action of another process but x's
        restart (a packet sent to a dead process is lost just as one in flight
        at the crash is). So a crash need only be tried at the start and right
        after one of x's own actions that others can see (:meth:`crashes_after`):
        any later crash ends where that one, followed by the others' actions,
        ends. Once no crash is possible, :meth:`_stubborn` restricts the search
        to the actions of a closed set of processes.
        """
        b = self._bounds
        if b.no_failure_during_recovery:
            return acts  # with that assumption, crash enabledness depends on the global state
        if self.model:
            return acts  # the arguments below rest on the model's own rules, which a model mutant breaks
        if s is self._init:
            return acts
        idle = self._idle_delivery(s, acts)
        if idle is not None:
            return [idle]
        if s.failures < b.failures:
            return [a for a in acts if a[0] != "crash" and a[0] != "crash_node"]
        return self._stubborn(s, acts)

    def _idle_delivery(self, s: State, acts: list[tuple]) -> tuple | None:
        """A delivery its receiver ignores (a stale, duplicate or unanswerable
        packet: the receiver's state unchanged, nothing sent) commutes with
        every other action — no one else reads that packet, and a crash of the
        receiver drops it anyway — so it alone is a persistent set."""
        for a in acts:
            if a[0] == "deliver":
                _, pr2, _, quiet = self._local(s, a)
                pr = s.procs[a[2]]
                if quiet and (pr2 is pr or pr2 == pr):
                    return a
        return None

    def _stubborn(self, s: State, acts: list[tuple]) -> list[tuple]:
        """Once no crash is possible and every process is up: the enabled
        actions of a set P of processes closed under "x in P and the channel
        q -> x is empty implies q in P". (The actions of one process alone are
        not enough: a packet q sends into an empty channel may enable a
        delivery to x that conflicts with x's steps — a rollback, say.) A
        process outside P only appends behind packets already queued for P,
        which commutes with P's deliveries of the heads; so no process of P
        acts on a path that avoids P's actions, and every terminal state stays
        reachable (a stubborn set)."""
        if not (self.ctx.fifo and self._in_order) or not acts or not all(pr.alive for pr in s.procs):
            return acts
        if self._collective and any(self._at_coll(s, p) for p in range(self.n)):
            return acts  # a collective is an action of every process
        by: dict[int, list] = {}
        for a in acts:
            by.setdefault(a[2] if a[0] == "deliver" else a[1], []).append(a)
        closures = self._closures(tuple(map(bool, s.wire)))
        best = acts
        for seed in by:
            closed = closures[seed]
            if closed is not None:
                t = [a for p in closed for a in by.get(p, ())]
                if len(t) < len(best):
                    best = t
        return best

    def _closures(self, busy: tuple[bool, ...]) -> tuple:
        """For each seed process, its closed set of :meth:`_stubborn` (None if it
        is every process) on a wire whose non-empty channels are ``busy``."""
        memo = self._closure_memo
        hit = memo.get(busy)
        if hit is None:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            n, out = self.n, []
            for seed in range(n):
                closed, todo = {seed}, [seed]
                while todo:
                    x = todo.pop()
                    for q in range(n):
                        if q not in closed and not busy[q * n + x]:
                            closed.add(q)
                            todo.append(q)
                out.append(tuple(closed) if len(closed) < n else None)
            hit = memo[busy] = tuple(out)
        return hit

    def crashes_after(self, s: State, a: tuple, s2: State) -> list[tuple]:
        """The crashes to try right after action ``a`` (from ``s`` to ``s2``):
        its actor's, and its node's — unless ``a`` changed nothing but the
        actor's volatile state, in which case a crash after it ends where a
        crash before it does, and that one was tried already."""
        b = self._bounds
        if b.no_failure_during_recovery or s2.failures >= b.failures:
            return []
        if a[0] == "coll_all":  # every process took part, and saw the others' data
            out = [("crash", x) for x in range(self.n)] if "process" in self.bounds.crash_kinds else []
            if "node" in self.bounds.crash_kinds:
                out += [("crash_node", node) for node in self.nodes
                        if sum(1 for p in range(self.n) if self.ctx.node_of[p] == node) >= 2
                        or "process" not in self.bounds.crash_kinds]
            return out
        x = self.actor(a)
        before, after = s.procs[x], s2.procs[x]
        if not after.alive:
            return []
        n = self.n
        if (after.stab == before.stab and after.images == before.images
                and all(s.wire[x * n + q] == s2.wire[x * n + q] for q in range(n))):
            return []
        out = []
        if "process" in self.bounds.crash_kinds:
            out.append(("crash", x))
        if "node" in self.bounds.crash_kinds:
            node = self.ctx.node_of[x]
            alive = [p for p in range(self.n) if self.ctx.node_of[p] == node and s2.procs[p].alive]
            if len(alive) >= 2 or "process" not in self.bounds.crash_kinds:
                out.append(("crash_node", node))
        return out

    # -- next state ------------------------------------------------------------
    def step(self, s: State, a: tuple) -> tuple[State, list]:
        """The successor of ``s`` by enabled action ``a`` and the observations
        the invariants judge (checker/model/ghost.py)."""
        if a[0] not in _LOCAL:
            return self._global_step(s, a)
        p, pr2, script, _ = self._local(s, a)
        wire = list(s.wire)
        if a[0] == "deliver":
            c = a[1] * self.n + p
            wire[c] = wire[c][:a[3]] + wire[c][a[3] + 1:]
        procs = list(s.procs)
        procs[p] = pr2
        obs = self._run(script, procs, wire)
        return State(tuple(procs), tuple(wire), s.failures, s.failed), obs

    def _local(self, s: State, a: tuple) -> tuple[int, Proc, tuple, bool]:
        """The actor of local action ``a``, its new state, its script (:meth:`_local_step`)
        and whether that script only notes (sends and observes nothing), memoized."""
        if a[0] == "deliver":
            p = a[2]
            pk = s.wire[a[1] * self.n + p][a[3]]
            key = (p, pk, s.procs[p])
        else:
            p, pk = a[1], None
            key = (a, s.procs[p])
        memo = self._local_steps
        hit = memo.get(key)
        if hit is None:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            procs = list(s.procs)
            script: list = []
            self._local_step(procs, p, a, pk, script)
            hit = memo[key] = (p, self._intern(procs[p]), tuple(script), all(o[0] == "note" for o in script))
        return hit

    def _local_step(self, procs: list, p: int, a: tuple, pk, script: list) -> None:
        """Process p's part of a local action: its new state in ``procs[p]``, and
        in ``script`` the observations and the packets it sends, in order.
        Both depend only on p's state, the action and the packet delivered, so
        :meth:`step` reuses them wherever p meets that action again."""
        kind = a[0]
        proto, ctx = self.protocol, self.ctx
        pr = procs[p]
        if kind == "step":
            op = self.progs[p][pr.pc]
            if op[0] == "site":
                pr = pr.but(pc=pr.pc + 1)
                procs[p] = pr
                st = proto.on_site(ctx, p, pr.vol, pr.stab)
            else:
                dst = op[1] if op[0] == "send" else pr.last_src
                tag = op[2] if op[0] == "send" else op[1]
                payload = mix(pr.acc, pr.pc)
                k = len(pr.ghost.sent[dst])
                ghost = G.record_send(pr.ghost, dst, payload)
                msg = AppMsg((p, dst, k), p, dst, tag, payload, G.causal_past(ghost, p))
                script.append(("sent", p, dst, k, payload))
                pr = pr.but(pc=pr.pc + 1, ghost=ghost)
                procs[p] = pr
                st = proto.on_send(ctx, p, pr.vol, pr.stab, msg)
        elif kind == "recv":
            i = a[2]
            mail = pr.mailbox[i]
            m = mail.msg
            op = self.progs[p][pr.pc]
            acc = (pr.acc + m.payload) & M32 if op[3] == "sum" else mix(pr.acc, m.src, m.payload)
            script.append(("delivered", p, m.src, m.gid[2], m.payload, pr.ghost, m._past))
            pr = pr.but(pc=pr.pc + 1, acc=acc, last_src=m.src,
                        mailbox=pr.mailbox[:i] + pr.mailbox[i + 1:],
                        ghost=G.record_delivery(pr.ghost, m.src, m.gid[2], m.payload, m._past))
            procs[p] = pr
            st = proto.on_receive(ctx, p, pr.vol, pr.stab, mail, op[1], op[2])
        elif kind == "choose":
            c = a[2]
            k = self.progs[p][pr.pc][1]
            pr = pr.but(pc=pr.pc + 1, acc=mix(pr.acc, 0x6E64, c), ghost=G.record_choice(pr.ghost, c))
            procs[p] = pr
            st = proto.on_choose(ctx, p, pr.vol, pr.stab, k, c)
        elif kind == "coll":
            op = self.progs[p][pr.pc]
            inputs = proto.coll_local(ctx, p, pr.vol, op)
            procs[p] = pr.but(pc=pr.pc + 1, acc=_coll_acc(pr.acc, op, inputs))
            script.append(("collective", p, op, True))
            st = proto.on_collective(ctx, p, pr.vol, pr.stab, op, inputs, None)
        elif kind == "deliver":
            st = proto.on_packet(ctx, p, pr.vol, pr.stab, pk)
        elif kind == "internal":
            st = proto.on_internal(ctx, p, pr.vol, pr.stab, a[2])
        else:  # restart
            procs[p] = pr.but(alive=True)
            script.append(("restart", p))
            st = proto.on_restart(ctx, p, pr.stab)
        self._apply(procs, p, st, script)

    def _global_step(self, s: State, a: tuple) -> tuple[State, list]:
        """A collective completed together, or a crash: actions of several processes."""
        kind = a[0]
        procs = list(s.procs)
        wire = list(s.wire)
        script: list = []
        proto, ctx, n = self.protocol, self.ctx, self.n
        failures, failed = s.failures, s.failed
        if kind == "coll_all":
            op = self.progs[0][s.procs[0].pc]
            headers = tuple(proto.coll_header(ctx, p, pr.vol) for p, pr in enumerate(s.procs))
            data = tuple(mix(pr.acc, pr.pc, 0xC011) for pr in s.procs)
            for p in range(n):
                pr = procs[p]
                inputs = tuple(data[q] for q in coll_sources(op[1], op[2], p, n))
                procs[p] = pr.but(pc=pr.pc + 1, acc=_coll_acc(pr.acc, op, inputs))
                script.append(("collective", p, op, False))
                self._apply(procs, p, proto.on_collective(ctx, p, pr.vol, pr.stab, op, inputs, headers), script)
        elif kind == "crash" or kind == "crash_node":
            victims = [a[1]] if kind == "crash" else [
                p for p in range(n) if ctx.node_of[p] == a[1] and procs[p].alive]
            failures += 1
            failed = failed | frozenset(victims)
            for p in victims:
                pr = procs[p]
                procs[p] = pr.but(alive=False, mailbox=() if self._drop_queue else pr.mailbox, vol=None)
                for q in range(n):  # messages addressed to the dead incarnation are lost
                    if self._drop_packets:
                        wire[q * n + p] = ()
                script.append(("crash", p, kind == "crash_node"))
        else:
            raise ValueError(f"unknown action {a!r}")
        obs = self._run(script, procs, wire)
        return State(tuple(map(self._intern, procs)), tuple(wire), failures, failed), obs

    def adopt(self, s: State) -> State:
        """``s``, built in another process, made of this system's process states."""
        return State(tuple(map(self._intern, s.procs)), s.wire, s.failures, s.failed)

    def _intern(self, pr: Proc) -> Proc:
        """One object per distinct process state, so that states compare their
        processes by identity (the visited set compares every state found again)."""
        table = self._procs
        if len(table) >= _MEMO_LIMIT:
            table.clear()
        return table.setdefault(pr, pr)

    def _run(self, script: tuple | list, procs: list, wire: list) -> list:
        """Put a step's packets on the wire (a packet to a dead process is lost)
        and return its observations."""
        obs = []
        n = self.n
        for o in script:
            if o[0] is _SEND:
                pk = o[1]
                if procs[pk.dst].alive or pk.dst == o[2]:
                    c = pk.src * n + pk.dst
                    wire[c] = wire[c] + (pk,)
                else:
                    obs.append(("note", "packets_to_dead_process"))
            else:
                obs.append(o)
        return obs

    def _apply(self, procs: list, p: int, st, script: list) -> None:
        """Execute the effects of one handler of process p, in order (its sends
        go to ``script``, for :meth:`_run`)."""
        pr = procs[p].but(vol=st.vol, stab=st.stab)
        for eff in st.effects:
            t = type(eff)
            if t is Send:
                script.append((_SEND, eff.packet, p))
            elif t is Deliver:
                pr = pr.but(mailbox=pr.mailbox + (eff.mail,))
            elif t is Checkpoint:
                imgs = tuple(x for x in pr.images if x[0] != eff.cid) + ((eff.cid, _image(pr)),)
                script.append(("checkpoint", p, eff.cid))
                pr = pr.but(images=imgs, ckpts=pr.ckpts + 1)
            elif t is Restore:
                img = dict(pr.images)[eff.cid]
                script.append(("restore", p, eff.cid, pr.ghost, img.ghost))
                kept = () if self._drop_queue else tuple(m for m in pr.mailbox if m not in img.mailbox)
                if self._restore_app:
                    # without the data, what the crash left is the program's initial data
                    acc = img.acc if self._image_data else mix(p)
                    pr = pr.but(pc=img.pc, acc=acc, last_src=img.last_src,
                                mailbox=img.mailbox + kept, ghost=img.ghost)
                else:
                    pr = pr.but(ghost=img.ghost)
            elif t is Note:
                script.append(("note", eff.name))
            else:
                raise TypeError(f"unknown effect {eff!r}")
        procs[p] = pr

    # -- views for invariants --------------------------------------------------
    def obtainable(self, s: State) -> set[tuple[int, int, int]]:
        """Message ids still obtainable: on the wire, in a queue, or held by a
        protocol (logs, buffers, recorded channel state)."""
        have: set = set()
        for ch in s.wire:
            for pk in ch:
                if pk.msg is not None:
                    have.add(pk.msg.gid)
        for p, pr in enumerate(s.procs):
            if pr.alive:
                have.update(m.msg.gid for m in pr.mailbox)
                have.update(m.gid for m in self.protocol.holdings(self.ctx, p, pr.vol, pr.stab))
        return have

    def image(self, s: State, p: int, cid: int) -> Image | None:
        for c, img in s.procs[p].images:
            if c == cid:
                return img
        return None
