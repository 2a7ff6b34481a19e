"""One MPI rank: the application's model twin and its real data, driven
through a sans-I/O protocol object (docs/design.md §3, §7).

A rank executes exactly the scheduler events of checker/model/system.py — an
application ``step``, the match of a message (``recv``), the arrival of a
packet (``deliver``), a protocol ``internal`` step, a ``crash`` and a
``restart`` — calling the same protocol handlers and executing their effects
the way ``System._apply`` does, on real messages and files. Each event goes
to the rank's journal, which ``rrcheck check-trace`` replays on the model.

What the runtime adds below the protocol (the model's wire): a sequence number
per channel, the number K of failures the sender knew of, and its generation
F. F orders failures and restarts: the crash of a set of victims happens at
generation ``base`` (the highest any victim knew), and the i-th victim
restarts at ``base + 1 + i``, so the restarts of a node are ordered as the
model orders them. F propagates on every packet; a restarted rank drops
packets sent by events that did not know of its restart (F below its own
birth) — in the model those were lost with the crashed incarnation
(``System.step``, ``crash``) or sent to a process still down.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from rrcheck.checker.model.workloads import M32, mix
from rrcheck.protocols.base import (ANY, AppMsg, Checkpoint, Context, Deliver, Note, Restore,
                            Send)
from rrcheck.runtime import apps, codec
from rrcheck.runtime.files import Journal, Result, RunConfig, journal_path, protocol_of
from rrcheck.runtime.storage import Outbox, Store
from rrcheck.runtime.transport import Rendezvous


def _takes(op: tuple, m: AppMsg) -> bool:
    """Does the receive ``op`` (recv, source, tag, ...) match ``m``?"""
    return (op[1] == ANY or op[1] == m.src) and (op[2] == ANY or op[2] == m.tag)


class Rank:
    def __init__(self, cfg: RunConfig, run_dir: Path, transport, inc: int = 0, failures: int = 0,
                 events: int = 0, seq_out=None, seq_in=None):
        self.cfg, self.run_dir, self.net = cfg, Path(run_dir), transport
        self.p = p = transport.rank
        self.n = n = cfg.n
        self.proto = protocol_of(cfg)
        self.ctx = Context(n, tuple(cfg.node_of), tuple(cfg.group_of), True)
        self.prog = apps.twin(cfg.workload, n, cfg.nodes, cfg.iters).programs[p]
        self.app = apps.make_app(cfg.workload, p, n, cfg.size)
        self.store = Store(self.run_dir, p)
        self.stable = self.store.state("stab")
        # the wire's own state, below the protocol: it outlives an incarnation
        self.seq_out = list(seq_out or [0] * n)   # packets put on each channel p -> q
        self.seq_in = list(seq_in or [0] * n)     # packets taken off each channel q -> p
        self.F = 0                                # generation this rank knows of
        self.born = 0                             # generation this incarnation began in
        self.K = failures                         # failures this rank knows of
        self.inc = inc
        self.events = events
        self.notes: Counter = Counter()
        self.stale = 0
        self.logged_bytes = 0
        self.kept = 0                        # entries of ``data`` after its last pruning
        self.journal = None
        self.outbox = Outbox(self.run_dir, p) if cfg.mode == "kill" else None

    # -- state of the application and of the protocol --------------------------
    def start(self) -> None:
        """Initial state; checkpoint 0 is the initial state (model.System.initial)."""
        p = self.p
        self.journal = Journal(journal_path(self.run_dir, p, self.inc), self.cfg.trace)
        self.vol, self.stab = self.proto.initial(self.ctx, p)
        self.pc, self.acc, self.last_src = 0, mix(p), -1
        self.mailbox: list = []              # (Mail, data)
        self.sent_k = [0] * self.n           # ghost: messages sent to each peer in this history
        self.appst = self.app.init()
        self.data: dict = {}                 # gid -> bytes the protocol may send again (its payload log)
        self.since_ckpt = 0
        self.stable.put(self.stab)
        self.store.put("image-0", self._image())

    def _image(self) -> tuple:
        held = {m.gid for m in self.proto.holdings(self.ctx, self.p, self.vol, self.stab)}
        mailbox = tuple((mail, bytes(d)) for mail, d in self.mailbox)
        data = {g: d for g, d in self.data.items() if g in held}
        return (self.pc, self.acc, self.last_src, mailbox, tuple(self.sent_k), self.appst, data)

    def _restore(self, cid: int) -> None:
        pc, acc, last_src, mailbox, sent_k, appst, data = self.store.get(f"image-{cid}")
        self.pc, self.acc, self.last_src = pc, acc, last_src
        self.mailbox, self.sent_k, self.appst, self.data = list(mailbox), list(sent_k), appst, dict(data)

    # -- executing a handler's effects (model.System._apply) -----------------------
    def _apply(self, st, blobs: dict | None = None, ours: bool = False) -> list:
        """Execute effects in order; return the packets to transmit. ``blobs``
        holds the data of the messages this event handles (sent, matched or
        arrived), by gid; a message the protocol holds afterwards (a payload
        log, sender- or receiver-based) keeps a copy of its data, or, when
        the data is ``ours`` (received into the runtime's memory, read-only),
        that memory itself: a logger receives into its log."""
        blobs = blobs or {}
        changed = st.stab is not self.stab
        self.vol, self.stab = st.vol, st.stab
        out = []
        for eff in st.effects:
            t = type(eff)
            if t is Send:
                pk = eff.packet
                data = b""
                if pk.msg is not None:
                    data = blobs[pk.msg.gid] if pk.msg.gid in blobs else self.data[pk.msg.gid]
                self.seq_out[pk.dst] += 1
                out.append((pk, self.seq_out[pk.dst], data))
            elif t is Deliver:
                gid = eff.mail.msg.gid
                self.mailbox.append((eff.mail, blobs[gid] if gid in blobs else self.data[gid]))
            elif t is Checkpoint:
                self.store.put(f"image-{eff.cid}", self._image())
                self.since_ckpt = 0
            elif t is Restore:
                self._restore(eff.cid)
            elif t is Note:
                self.notes[eff.name] += 1
            else:
                raise TypeError(f"unknown effect {eff!r}")
        if blobs and self.vol is not None:
            held, later = self._needed()
            for gid, data in blobs.items():
                if gid in self.data or not (gid in held or gid in later):
                    continue
                self.data[gid] = data if ours else bytes(data)  # the payload copy of the log
                if gid in held:
                    self.logged_bytes += len(data)
        if self.vol is not None and len(self.data) > 2 * self.kept + 4:
            # the protocol let go of some (a TB entry the logger confirmed, a log
            # collected): their memory goes back, now and then, at a cost amortised per entry
            held, later = self._needed()
            self.data = {g: d for g, d in self.data.items() if g in held or g in later}
            self.kept = len(self.data)
        if changed:
            self.stable.put(self.stab)
        return out

    def _needed(self) -> tuple[set, set]:
        """The messages whose data the protocol may send or deliver again: those
        it holds (a payload log, sender- or receiver-based), and those in packets
        it keeps to send at a later step (RBML's copies for the logger,
        rbml.Vol.unsent: not a log, not counted as one)."""
        held = {m.gid for m in self.proto.holdings(self.ctx, self.p, self.vol, self.stab)}
        later = {pk.msg.gid for pk in getattr(self.vol, "unsent", ()) if pk.msg is not None}
        return held, later

    def _record(self, action: list, out: list) -> None:
        self.events += 1
        self.journal.write({"a": action, "F": self.F,
                            "out": [(pk.dst, seq, pk.kind) for pk, seq, _ in out]})
        for pk, seq, data in out:
            head = codec.pack_head(pk, seq, self.F, self.K)
            if self.outbox is not None:
                self.outbox.add(pk.dst, seq, head + data)
            self.net.send(pk.dst, head, data if len(data) else None)

    # -- the scheduler events ---------------------------------------------------------
    def on_wire(self, src: int, buf, data=None) -> None:
        pkt, seq, gen, failures, data = codec.unpack(buf, data)
        ours = True  # received into the runtime's memory, not the application's
        if isinstance(data, Rendezvous):  # taken before anything else: its channel's next data is behind it
            rv = data
            data = rv.pull(self._posted(pkt.msg, rv.n))
            ours = not rv.posted
        if seq <= self.seq_in[src]:  # sent again after a communicator repair (kill mode)
            return
        assert seq == self.seq_in[src] + 1, f"P{self.p}: packet {seq} from P{src} after {self.seq_in[src]}"
        self.seq_in[src] = seq
        if gen < self.born:  # sent to an incarnation that has crashed: lost with it
            self.stale += 1
            return
        self.F = max(self.F, gen)
        self.K = max(self.K, failures)
        st = self.proto.on_packet(self.ctx, self.p, self.vol, self.stab, pkt)
        # memory of ours is nobody's to write (runtime/apps.py): a log keeps it as it is
        blobs = {pkt.msg.gid: data.toreadonly() if ours else data} if pkt.msg else None
        self._record(["deliver", src, self.p, seq], self._apply(st, blobs, ours))

    def _posted(self, m: AppMsg | None, n: int):
        """The buffer the application posted for ``m``'s data: its current
        operation is a receive that takes ``m`` (no message in the mailbox
        comes first), and it says where that receive's data goes. A duplicate
        the protocol then drops lands there too, and is overwritten: until its
        receive completes, a posted buffer is MPI's, not the application's."""
        landing = getattr(self.app, "landing", None)
        if landing is None or m is None or self.vol is None or self.pc >= len(self.prog):
            return None
        op = self.prog[self.pc]
        if op[0] != "recv" or not _takes(op, m) or any(_takes(op, mail.msg) for mail, _ in self.mailbox):
            return None
        return landing(self.appst, self.pc, op, n)

    def internal_step(self) -> bool:
        every = self.cfg.checkpoint_every
        may_ckpt = every > 0 and self.since_ckpt >= every
        labels = self.proto.internal(self.ctx, self.p, self.vol, self.stab, may_ckpt)
        if not labels:
            return False
        label = labels[0]
        st = self.proto.on_internal(self.ctx, self.p, self.vol, self.stab, label)
        self._record(["internal", self.p, label], self._apply(st))
        return True

    def app_step(self) -> bool:
        if self.pc >= len(self.prog):
            return False
        proto, ctx, p = self.proto, self.ctx, self.p
        op = self.prog[self.pc]
        kind = op[0]
        if kind in ("send", "reply"):
            dst = op[1] if kind == "send" else self.last_src
            if not proto.may_send(ctx, p, self.vol, dst):
                return False
            tag = op[2] if kind == "send" else op[1]
            k = self.sent_k[dst]
            msg = AppMsg((p, dst, k), p, dst, tag, mix(self.acc, self.pc))
            data = self.app.produce(self.appst, self.pc, op)
            self.pc += 1
            self.sent_k[dst] += 1
            self.since_ckpt += 1
            st = proto.on_send(ctx, p, self.vol, self.stab, msg)
            self._record(["step", p], self._apply(st, {msg.gid: data}))
            return True
        if kind == "recv":
            seen = set()
            for i, (mail, data) in enumerate(self.mailbox):
                m = mail.msg
                if m.src in seen:  # MPI non-overtaking: the first message from each source
                    continue
                if _takes(op, m):
                    seen.add(m.src)
                    if proto.may_match(ctx, p, self.vol, mail):
                        break
            else:
                return False
            del self.mailbox[i]
            self.acc = (self.acc + m.payload) & M32 if op[3] == "sum" else mix(self.acc, m.src, m.payload)
            self.app.consume(self.appst, self.pc, op, m.src, data)
            self.pc += 1
            self.last_src = m.src
            self.since_ckpt += 1
            # a receive posted for (src, tag) — the hook of protocols that treat
            # wildcard receptions apart, as model.System.step calls it where it exists
            on_receive = getattr(proto, "on_receive", None)
            st = (on_receive(ctx, p, self.vol, self.stab, mail, op[1], op[2]) if on_receive
                  else proto.on_match(ctx, p, self.vol, self.stab, mail))
            self._record(["recv", p, list(m.gid)], self._apply(st, {m.gid: data}))
            return True
        if kind == "nondet":
            for c in range(op[1]):
                if proto.may_choose(ctx, p, self.vol, op[1], c):
                    break
            else:
                return False
            self.acc = mix(self.acc, 0x6E64, c)
            self.pc += 1
            st = proto.on_choose(ctx, p, self.vol, self.stab, op[1], c)
            self._record(["choose", p, c], self._apply(st))
            return True
        self.pc += 1  # a checkpoint site
        self._record(["step", p], self._apply(proto.on_site(ctx, p, self.vol, self.stab)))
        return True

    # -- failures -----------------------------------------------------------------------
    def end_incarnation(self) -> None:
        """Drop every volatile structure (the crash record is written at restart,
        once the generation of the crash is agreed)."""
        self.vol = self.mailbox = self.appst = self.data = None
        self.pc = self.acc = self.last_src = None

    def crash_record(self, action: list, f: int, victims: list[int], base: int) -> None:
        """The end of the incarnation's journal: failure f, its victims, and
        the generation it happened in."""
        self.journal.write({"a": action, "F": base, "f": f, "victims": victims})
        self.journal.close()

    def restart(self, f: int, victims: list[int], base: int) -> None:
        """A new incarnation from stable storage alone (model: ``restart``)."""
        self.inc += 1
        self.K = f
        self.F = self.born = base + 1 + sorted(victims).index(self.p)
        self.journal = Journal(journal_path(self.run_dir, self.p, self.inc), self.cfg.trace)
        self.stab = self.stable.get()
        self.mailbox, self.data, self.since_ckpt = [], {}, 0
        st = self.proto.on_restart(self.ctx, self.p, self.stab)
        assert any(type(e) is Restore for e in st.effects), f"{self.proto.name}: a restart must restore a checkpoint"
        self._record(["restart", self.p], self._apply(st))

    def finished(self) -> bool:
        return self.pc >= len(self.prog)

    def result(self, seconds: float) -> Result:
        return Result(rank=self.p, incarnations=self.inc + 1, events=self.events, pc=self.pc, acc=self.acc,
                      output=self.app.output(self.appst), failures=self.K, stale_dropped=self.stale,
                      logged_bytes=self.logged_bytes, posted_bytes=self.net.posted_bytes,
                      unexpected_bytes=self.net.unexpected_bytes, seconds=seconds)
