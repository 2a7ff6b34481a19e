"""Pessimistic receiver-based message logging, RBML (Meyer 2014 §4.1.2, Meyer 2014 §4.1.1, §4.1.2,
Fig. 4.2), with RADIC's logger placement (Meyer 2014 §2.3): the engine HMPL
(protocols/hmpl.py) re-configures.

- **Protection** (Fig. 4.2): P1 sends M with its SSN; P2's FT layer checks the
  SSN against its Table of SSN, appends its RSN and forwards M to its logger L2
  on another node (delivery and forwarding overlap, Meyer 2014 §4.1.2); P2 sends nothing
  until L2 confirms (Meyer 2014 §4.1.2: else the P3 orphan of the text).
- **Logger placement** (RADIC, §2.3): the logger of each process is a thread of
  the protector on the next node of the ring. Its memory is modelled as part of
  the volatile state of the first process of that node (``Vol.lg``), so a crash
  of that node takes the log with it; a restarted protector asks the processes
  it protected to re-establish protection (a fresh checkpoint).
- **Channels**: a message matched nowhere yet lives in the MPI layer of its
  receiver, lost with it; the sender keeps it until the receiver's logger has
  it (RADIC's retried send: "senders that cannot reach a process ask its
  protector and retry"; the thesis leaves this implicit for RBML). In HMPL this
  buffer is the sender's temporary buffer.
- **Forwarding** is a step of its own (``forward``): delivery to the
  application and the forward to L2 overlap (Meyer 2014 §4.1.2), so a receiver may crash
  with M delivered and not yet on its way to L2.
- **Recovery** (Meyer 2014 §4.1.2): restart from the checkpoint, fetch the log from L2,
  replay it in RSN order; survivors drop re-sent messages by SSN; then ask the
  senders for what they still hold.
- **Garbage collection** (Meyer 2014 §4.1.2): after a checkpoint the logger deletes the
  process's log.

The FT layer "receives" a message when the application matches it (the RSN is
the reception order the application saw, which ANY_SOURCE makes
non-deterministic); ``nondet`` outcomes (Waitany/Testany, probes) are logged as
events of their own (``log_choices``).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from rrcheck.protocols.base import (ANY, AppMsg, Checkpoint, Context, Deliver, Mail, Note, Packet,
                            Protocol, Restore, Send, Step, replace, value)

CHOICE = -1  # the "source" of a logged nondet outcome; its SSN field holds the outcome


@value
class Saved:
    """What a checkpoint keeps of the FT layer (Meyer 2014 §4.1.1, §4.1.2: SSN and RSN), and
    the sender TB: RADIC checkpoints the whole process, the observer's buffers
    with it (§2.3), and "at checkpoint everything but the Table of RSN is
    saved" (Meyer 2014 §4.1.1). Without it a node crash that takes a sender checkpointed
    after M and M's receiver together loses M."""

    ssn: tuple[int, ...]
    tssn: tuple[int, ...]
    got: tuple[int, ...]
    conf: tuple[int, ...]
    rsn: int
    tb: tuple = ()


@value
class Vol:
    ssn: tuple[int, ...]    # SSN: last SSN sent to each destination
    tssn: tuple[int, ...]   # Table of SSN: highest SSN taken from each source (duplicate check)
    got: tuple[int, ...]    # highest SSN from each source the application received (t2)
    conf: tuple[int, ...]   # highest SSN from each source whose logging L2 confirmed (t6)
    rsn: int                # RSN: receptions (and logged nondet outcomes) so far
    tb: tuple = ()          # sender TB: (dst, SSN, AppMsg) not yet released by dst
    rtb: tuple = ()         # receiver TB: (RSN, src, SSN) forwarded to L2, unconfirmed
    wait: int = 0           # RSN the application waits on (HMPL wildcard rule), 0: none
    stage: str = "run"      # run | fetch (waiting for the log) | replay
    replay: tuple = ()      # (RSN, src, SSN) to force, in RSN order (src CHOICE: SSN is the outcome)
    awaiting: frozenset = frozenset()  # holders whose log has not come in yet
    lg: tuple = ()          # logger memory of the processes this node protects:
                            # per process, entries (RSN, src, SSN, AppMsg | None, acked)
    gc: int = 0             # mutant 13 only: checkpoint announced, not yet durable
    unsent: tuple = ()      # log packets not yet forwarded to L2 (forward_at_reception off)


@value
class Stab:
    ckpts: tuple = ()       # (cid, Saved), at the protector on another node
    line: int = 0


class ReceiverBased(Protocol):
    name = "rbml"
    scope = "failed"
    source = "Meyer 2014 §4.1.2 (§4.1.1, Fig. 4.2); §2.3 (RADIC)"
    RECOVERY_KINDS = frozenset({"fetch", "rlog", "rlog_end", "tbq", "reprotect"})
    KNOBS = {
        "block_sends_until_logged": True,   # Meyer 2014 §4.1.2 (RBML); False in HMPL
        "block_on_wildcard": False,         # Meyer 2014 §4.2.3 (HMPL)
        "log_choices": True,                # nondet outcomes are logged events too
        "sender_tb": True,                  # the sender keeps M until released
        "release_at": "t6",                 # when the receiver releases the sender's copy: t2 | t6
        "logger_drops_unacked": False,      # Meyer 2014 §4.2.2 (HMPL): L2 erases what it never confirmed
        "drop_duplicates": True,            # Meyer 2014 §4.1.1, §4.1.2: SSN check at every reception
        "logger_placement": "next-node",    # RADIC ring | same-node
        "tb_query": "after-log",            # Meyer 2014 §4.2.2: after-log | before-log | none
        "competing_erasure": "own-sender",  # Meyer 2014 §4.2.3 reading: own-sender | any-sender
        "flush_before_checkpoint": True,    # checkpoint only with the receiver TB flushed to L2
        "gc_after_durable": True,           # Meyer 2014 §4.1.2: the log is collected behind a durable checkpoint
        "replay_order": "rsn",              # Meyer 2014 §4.1.1: rsn | arrival
        "sender_erases_on_next_send": False,  # Meyer 2014 §4.2.4 misread: the previous entry goes at the next send
        "forward_at_reception": False,      # Meyer 2014 §4.1.2: delivery and forwarding overlap (a step apart)
        "checkpoint_tb": True,              # Meyer 2014 §4.1.1, RADIC §2.3: the checkpoint holds the sender TB
        "retry_fetch": True,                # RADIC §2.3: a request lost with a crashed holder is retried
        "fill_rsn_gaps": True,              # Meyer 2014 §4.1.1: an RSN lost with its holder goes to an unlogged message
    }

    # -- placement ---------------------------------------------------------------
    def host(self, ctx: Context, p: int) -> int:
        """The process whose node runs p's logger: the first process of the next
        node of the ring (RADIC §2.3), or p itself (mutant 7, one node)."""
        return _hosts(ctx, self.logger_placement)[p]

    def hosted(self, ctx: Context, q: int) -> tuple[int, ...]:
        return tuple(p for p in range(ctx.n) if self.host(ctx, p) == q)

    # where p's log lives: one logger here; every sender in SBML (protocols/logging.py)
    def holders(self, ctx: Context, p: int) -> tuple[int, ...]:
        return (self.host(ctx, p),)

    def holder_of(self, ctx: Context, p: int, src: int) -> int:
        return self.host(ctx, p)

    def protected_by(self, ctx: Context, q: int) -> tuple[int, ...]:
        return self.hosted(ctx, q)

    @property
    def releases(self) -> bool:
        """Does the sender's copy go once the receiver is done with it (t7)?"""
        return self.sender_tb and self.release_at != "never"

    # -- state -------------------------------------------------------------------
    def initial(self, ctx: Context, p: int) -> tuple[Vol, Stab]:
        z = (0,) * ctx.n
        return Vol(z, z, z, z, 0, lg=((),) * ctx.n), Stab(((0, Saved(z, z, z, z, 0)),))

    def _saved(self, stab: Stab) -> Saved:
        return dict(stab.ckpts)[stab.line]

    def recovering(self, ctx: Context, p: int, vol: Vol) -> bool:
        return vol.stage != "run" or bool(vol.replay)

    def holdings(self, ctx: Context, p: int, vol: Vol, stab: Stab):
        yield from (m for _, _, m in vol.tb)
        for entries in vol.lg:
            yield from (e[3] for e in entries if e[3] is not None)

    # -- the application ----------------------------------------------------------
    def _blocked(self, vol: Vol) -> bool:
        return vol.stage == "fetch" or vol.wait != 0

    def may_send(self, ctx: Context, p: int, vol: Vol, dst: int) -> bool:
        if self._blocked(vol):
            return False
        return not (self.block_sends_until_logged and vol.rtb)  # Meyer 2014 §4.1.2

    def on_send(self, ctx: Context, p: int, vol: Vol, stab: Stab, msg: AppMsg) -> Step:
        """t1: insert (M, SSN) in the sender's TB, then send."""
        dst = msg.dst
        ssn = vol.ssn[dst] + 1
        vol = replace(vol, ssn=_set(vol.ssn, dst, ssn))
        if self.sender_tb:
            tb = vol.tb
            if self.sender_erases_on_next_send:  # mutant 2: before t6, without a notice
                tb = tuple(e for e in tb if e[0] != dst)
            vol = replace(vol, tb=tb + ((dst, ssn, msg),))
        return Step(vol, stab, (Send(Packet(p, dst, "app", (ssn,), msg)),))

    def may_match(self, ctx: Context, p: int, vol: Vol, mail: Mail) -> bool:
        if self._blocked(vol):
            return False
        if vol.replay:
            det = (mail.msg.src, mail.hdr[0])
            if self._gap(vol):  # RSN+1 died with its holder: a message the log does not name takes it
                return all(e[1:] != det for e in vol.replay)
            return vol.replay[0][1:] == det
        return True

    def _gap(self, vol: Vol) -> bool:
        """The next RSN is missing from the collected log: a node crash took
        the receiver and the holder of that entry (SBML: its sender) together.
        Its sender, restarted too, sends the message again, not yet logged
        (Meyer 2014 §4.1.1: partially logged messages are replayed in any order)."""
        return self.fill_rsn_gaps and self.replay_order == "rsn" and vol.replay[0][0] > vol.rsn + 1

    def may_choose(self, ctx: Context, p: int, vol: Vol, k: int, choice: int) -> bool:
        if self._blocked(vol):
            return False
        if vol.replay:
            return vol.replay[0][1:] == (CHOICE, choice)
        return True

    def on_receive(self, ctx: Context, p: int, vol: Vol, stab: Stab, mail: Mail, src: int, tag: int) -> Step:
        """t2: the reception gets its RSN, enters the receiver TB and goes to L2."""
        m = mail.msg
        ssn = mail.hdr[0]
        vol = replace(vol, got=_set(vol.got, m.src, max(vol.got[m.src], ssn)))
        if vol.replay and not self._gap(vol):
            return self._replayed(ctx, p, vol, stab, (m.src, ssn))
        out: tuple = (Note("rsn_gap_filled"),) if vol.replay else ()
        if self.release_at == "t2" and self.releases:
            out += (Send(Packet(p, m.src, "erase", (ssn,))),)
        wildcard = src == ANY and self.block_on_wildcard
        vol, stab, more = self._log(ctx, p, vol, stab, m.src, ssn, m, wildcard)
        return Step(vol, stab, out + more + ((Note("wildcard_waits"),) if wildcard else ()))

    def on_match(self, ctx: Context, p: int, vol: Vol, stab: Stab, mail: Mail) -> Step:
        return self.on_receive(ctx, p, vol, stab, mail, mail.msg.src, mail.msg.tag)

    def on_choose(self, ctx: Context, p: int, vol: Vol, stab: Stab, k: int, choice: int) -> Step:
        """A Waitany/Testany/probe outcome: a non-deterministic event like a
        wildcard reception (mutant 15 leaves it out)."""
        if vol.replay:
            return self._replayed(ctx, p, vol, stab, (CHOICE, choice))
        if not self.log_choices:
            return Step(vol, stab)
        return self._log(ctx, p, vol, stab, CHOICE, choice, None, self.block_on_wildcard)

    def _log(self, ctx: Context, p: int, vol: Vol, stab: Stab, src: int, ssn: int, m: AppMsg | None,
             wait: bool) -> Step:
        rsn = vol.rsn + 1
        vol = replace(vol, rsn=rsn, rtb=vol.rtb + ((rsn, src, ssn),), wait=rsn if wait else vol.wait)
        log = Packet(p, self.holder_of(ctx, p, src), "log", (rsn, src, ssn), m)
        if not self.forward_at_reception:
            return Step(replace(vol, unsent=vol.unsent + (log,)), stab)
        return Step(vol, stab, (Send(log),))

    def _replayed(self, ctx: Context, p: int, vol: Vol, stab: Stab, det: tuple) -> Step:
        src, ssn = det
        vol = replace(vol, rsn=vol.rsn + 1, replay=vol.replay[1:])
        out: tuple = (Note("replayed_receptions"),)
        if src != CHOICE:
            vol = replace(vol, conf=_set(vol.conf, src, max(vol.conf[src], ssn)))
            if self.releases:  # From t6 (Meyer 2014 §4.2.2): resume the logging procedure, release the sender
                out += (Send(Packet(p, src, "erase", (ssn,))),)
        if not vol.replay and vol.stage == "replay":
            vol, stab, more = self._end_replay(ctx, p, vol, stab)
            out += more
        return Step(vol, stab, out)

    def _end_replay(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        """Fig. 4.5: the log consumed, ask each sender's TB for what it holds."""
        vol = replace(vol, stage="run")
        if not self.sender_tb or self.tb_query != "after-log":
            return Step(vol, stab)
        return Step(vol, stab, self._queries(ctx, p, vol, stab))

    def _queries(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> tuple:
        """Ask for what came after ``tssn``; what the checkpoint and the log
        hold (up to the second number) is safe and may be erased."""
        saved = self._saved(stab)
        return tuple(Send(Packet(p, q, "tbq", (vol.tssn[q], max(saved.tssn[q], vol.conf[q]))))
                     for q in ctx.others(p))

    # -- the wire -------------------------------------------------------------------
    def on_packet(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        handler = getattr(self, "_on_" + pkt.kind, None)
        if handler is None:
            raise ValueError(f"{self.name}: unexpected packet {pkt.kind!r}")
        return handler(ctx, p, vol, stab, pkt)

    def _on_app(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """The FT layer checks the SSN before anything else (Meyer 2014 §4.2.4, §4.1.2)."""
        src, ssn = pkt.src, pkt.hdr[0]
        if self.drop_duplicates:
            if ssn <= vol.tssn[src]:
                released = vol.conf if self.release_at == "t6" else vol.got
                out = (Note("duplicates_dropped"),)
                if self.releases and ssn <= released[src]:
                    # From t6 (Meyer 2014 §4.2.2): the restarted receiver resumes the logging
                    # procedure and tells the sender to erase M
                    out += (Send(Packet(p, src, "erase", (ssn,))),)
                return Step(vol, stab, out)
            if ssn != vol.tssn[src] + 1:  # an earlier one was lost; it comes back from the TB
                return Step(vol, stab, (Note("out_of_order_dropped"),))
        vol = replace(vol, tssn=_set(vol.tssn, src, max(ssn, vol.tssn[src])))
        return Step(vol, stab, (Deliver(Mail(pkt.msg, (ssn,))),))

    def _on_log(self, ctx: Context, q: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """t4: the logger of pkt.src saves M in memory (Meyer 2014 §4.2.2, §4.3)."""
        p = pkt.src
        m = pkt.msg
        if m is None and pkt.hdr[1] != CHOICE:  # SBML: the RSN ACK; the payload is in q's own log
            m = next((x for d, ssn, x in vol.tb if d == p and ssn == pkt.hdr[2]), None)
        entry = pkt.hdr + (m, False)
        return Step(replace(vol, lg=_set(vol.lg, p, vol.lg[p] + (entry,))), stab, (Note("logger_saved"),))

    def _on_logged(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """t6: L2 confirms; erase M from the receiver TB and release the sender (t7)."""
        rsn = pkt.hdr[0]
        hit = [e for e in vol.rtb if e[0] == rsn]
        if not hit:  # confirmed after a re-protection checkpoint covered it
            return Step(vol, stab)
        _, src, ssn = hit[0]
        vol = replace(vol, rtb=tuple(e for e in vol.rtb if e[0] != rsn), wait=0 if vol.wait == rsn else vol.wait)
        out: tuple = (Note("receiver_tb_erased"),)
        if src != CHOICE:
            vol = replace(vol, conf=_set(vol.conf, src, max(vol.conf[src], ssn)))
            out += self._release(ctx, p, src, ssn)
        return Step(vol, stab, out)

    def _release(self, ctx: Context, p: int, src: int, ssn: int) -> tuple:
        if not self.releases or self.release_at != "t6":
            return ()
        if self.competing_erasure == "any-sender":
            # Meyer 2014 §4.2.3 read as: every sender's unconfirmed entries for p go as soon
            # as p confirms any later message
            return (Send(Packet(p, src, "erase", (ssn,))),) + tuple(
                Send(Packet(p, q, "erase", (None,))) for q in ctx.others(p) if q != src)
        return (Send(Packet(p, src, "erase", (ssn,))),)

    def _on_erase(self, ctx: Context, s: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """t7: the sender erases M (and, FIFO, every earlier message to that
        receiver) from its TB; ``None``: every entry for that receiver."""
        r, ssn = pkt.src, pkt.hdr[0]
        keep = tuple(e for e in vol.tb if e[0] != r or (ssn is not None and e[1] > ssn))
        if keep == vol.tb:
            return Step(vol, stab)
        return Step(replace(vol, tb=keep), stab, (Note("sender_tb_erased"),))

    def _on_fetch(self, ctx: Context, q: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """A restarted process connects to its logger and takes its log (Meyer 2014 §4.1.2, §4.2.2)."""
        p, after = pkt.src, pkt.hdr[0]
        entries = vol.lg[p]
        out: tuple = ()
        if self.retry_fetch and vol.stage == "fetch" and p in vol.awaiting:
            # p restarted too (a node crash takes both): what q asked of it died
            # with it; ask again (our reading of Meyer 2014 §2.3.4, RADIC: a failed
            # communication will "consult the receiver's protector" and is "retried later")
            out += (Send(Packet(q, p, "fetch", (vol.rsn, vol.tssn[p]))), Note("fetch_retried"))
        if self.logger_drops_unacked:
            kept = tuple(e for e in entries if e[4])
            if kept != entries:
                out += (Note("logger_dropped_unacked"),)  # t4–t6 (Meyer 2014 §4.2.2)
            entries = kept
            vol = replace(vol, lg=_set(vol.lg, p, entries))
        out += tuple(Send(Packet(q, p, "rlog", e[:3], e[3])) for e in entries if e[0] > after)
        return Step(vol, stab, out + (Send(Packet(q, p, "rlog_end")),))

    def _on_rlog(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        _, src, ssn = pkt.hdr
        entry = pkt.hdr
        if entry in vol.replay or entry[0] <= vol.rsn:  # the answer to a retried fetch, again
            return Step(vol, stab)
        replay = vol.replay + (entry,)
        if self.replay_order == "rsn":  # Meyer 2014 §4.1.1: ascending RSN, whoever holds the entry
            replay = tuple(sorted(replay))
        vol = replace(vol, replay=replay)
        if src == CHOICE or ssn <= vol.tssn[src]:  # a nondet outcome, or M is in the restored queue
            return Step(vol, stab)
        if pkt.msg is None:  # SBML: the RSN reached a sender restarted from before M; its re-execution sends M
            return Step(vol, stab, (Note("rsn_awaits_resend"),))
        vol = replace(vol, tssn=_set(vol.tssn, src, ssn))
        return Step(vol, stab, (Deliver(Mail(pkt.msg, (ssn,))),))

    def _on_rlog_end(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        if pkt.src not in vol.awaiting:  # the answer to a retried fetch, again
            return Step(vol, stab)
        vol = replace(vol, awaiting=vol.awaiting - {pkt.src})
        if vol.awaiting:
            return Step(vol, stab)
        vol = replace(vol, stage="replay")
        if vol.replay:
            return Step(vol, stab)
        return self._end_replay(ctx, p, vol, stab)

    def _on_tbq(self, ctx: Context, s: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """A recovering receiver asks this sender's TB (Fig. 4.5, Meyer 2014 §4.2.2)."""
        r, after, safe = pkt.src, pkt.hdr[0], pkt.hdr[1]
        out = tuple(Send(Packet(s, r, "app", (ssn,), m)) for d, ssn, m in vol.tb if d == r and ssn > after)
        if self.releases:  # what r restored (checkpoint and log) up to ``after`` is safe: erase it
            vol = replace(vol, tb=tuple(e for e in vol.tb if e[0] != r or e[1] > safe))
        return Step(vol, stab, out + ((Note("tb_messages_resent"),) if out else ()))

    def _on_reprotect(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """p's protector restarted without p's log (RADIC §2.3): p checkpoints
        to it, which makes every reception so far durable."""
        released: tuple = ()
        for _, src, ssn in vol.rtb:
            if src != CHOICE:
                vol = replace(vol, conf=_set(vol.conf, src, max(vol.conf[src], ssn)))
                released += self._release(ctx, p, src, ssn)
        vol = replace(vol, rtb=(), unsent=(), wait=0)
        vol, stab, out = self._checkpoint(vol, stab)
        return Step(vol, stab, out + released + (Note("reprotected"),))

    def _on_gc(self, ctx: Context, q: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """Meyer 2014 §4.1.2: the logger deletes what the process's checkpoint covers."""
        p, upto, ssn = pkt.src, pkt.hdr[0], pkt.hdr[1]
        kept = tuple(e for e in vol.lg[p] if e[0] > upto)
        tb = vol.tb if self.releases else tuple(e for e in vol.tb if e[0] != p or e[1] > ssn)  # Meyer 2014 §4.1.1
        return Step(replace(vol, lg=_set(vol.lg, p, kept), tb=tb), stab,
                    (Note("log_garbage_collected"),) if kept != vol.lg[p] or tb != vol.tb else ())

    # -- internal steps ---------------------------------------------------------------
    def internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, may_checkpoint: bool) -> tuple:
        acts: tuple = tuple(f"confirm:{x}" for x in range(ctx.n)
                            if vol.lg and any(not e[4] for e in vol.lg[x]))
        if vol.unsent:
            acts += ("forward",)
        if vol.gc:
            acts += ("commit",)
        elif (may_checkpoint and vol.stage == "run" and not vol.replay and vol.wait == 0
              and not (self.flush_before_checkpoint and vol.rtb)):
            acts += ("checkpoint",)
        return acts

    def on_internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, label: Any) -> Step:
        if label == "checkpoint":
            if not self.gc_after_durable:  # mutant 13: the log goes before the image is safe
                return Step(replace(vol, gc=1), stab, self._gc(ctx, p, vol))
            vol, stab, out = self._checkpoint(vol, stab)
            return Step(vol, stab, out + self._gc(ctx, p, vol))
        if label == "forward":  # t2–t4: the FT layer sends M on to L2
            return Step(replace(vol, unsent=vol.unsent[1:]), stab, (Send(vol.unsent[0]),))
        if label == "commit":
            vol, stab, out = self._checkpoint(replace(vol, gc=0), stab)
            return Step(vol, stab, out)
        if label.startswith("confirm:"):  # t5: L2 confirms x's oldest unconfirmed entry
            x = int(label.partition(":")[2])
            entries = vol.lg[x]
            i = next(i for i, e in enumerate(entries) if not e[4])
            e = entries[i]
            entries = entries[:i] + (e[:4] + (True,),) + entries[i + 1:]
            return Step(replace(vol, lg=_set(vol.lg, x, entries)), stab,
                        (Send(Packet(p, x, "logged", (e[0],))), Note("logger_confirmed")))
        return super().on_internal(ctx, p, vol, stab, label)

    def _gc(self, ctx: Context, p: int, vol: Vol) -> tuple:
        """Meyer 2014 §4.1.1, §4.1.2: tell the holders of p's log what the checkpoint covers."""
        return tuple(Send(Packet(p, q, "gc", (vol.rsn, vol.tssn[q]))) for q in self.holders(ctx, p))

    def _checkpoint(self, vol: Vol, stab: Stab) -> Step:
        cid = max(c for c, _ in stab.ckpts) + 1
        saved = Saved(vol.ssn, vol.tssn, vol.got, vol.conf, vol.rsn, vol.tb if self.checkpoint_tb else ())
        return Step(vol, Stab(stab.ckpts + ((cid, saved),), cid), (Checkpoint(cid),))

    # -- failures -----------------------------------------------------------------------
    def on_restart(self, ctx: Context, p: int, stab: Stab) -> Step:
        """Restart from the checkpoint, connect to the logger and take the log
        (Meyer 2014 §4.1.2, Fig. 4.5); the processes p's node protected re-establish
        protection, their logs having died with it."""
        s = self._saved(stab)
        vol = Vol(s.ssn, s.tssn, s.got, s.conf, s.rsn, tb=s.tb, stage="fetch", lg=((),) * ctx.n,
                  awaiting=frozenset(self.holders(ctx, p)))
        out: tuple = (Restore(stab.line),) + ((Note("sender_tb_restored"),) if s.tb else ())
        if self.releases:  # RADIC's retried send: a receiver done with M drops it and releases it
            out += tuple(Send(Packet(p, d, "app", (ssn,), m)) for d, ssn, m in s.tb)
        if self.sender_tb and self.tb_query == "before-log":  # mutant 6: TBs consumed first
            out += self._queries(ctx, p, vol, stab)
        out += tuple(Send(Packet(p, q, "fetch", (s.rsn, s.tssn[q]))) for q in self.holders(ctx, p))
        out += tuple(Send(Packet(p, x, "reprotect")) for x in self.protected_by(ctx, p) if x != p)
        if self.tb_query == "before-log":
            vol = replace(vol, stage="replay")  # the application does not wait for the log
        return Step(vol, stab, out)


@lru_cache(maxsize=64)
def _hosts(ctx: Context, placement: str) -> tuple[int, ...]:
    nodes = sorted(set(ctx.node_of))
    if placement == "same-node" or len(nodes) == 1:
        return tuple(range(ctx.n))
    out = []
    for p in range(ctx.n):
        nxt = nodes[(nodes.index(ctx.node_of[p]) + 1) % len(nodes)]
        out.append(min(q for q in range(ctx.n) if ctx.node_of[q] == nxt))
    return tuple(out)


def _set(t: tuple, i: int, v: Any) -> tuple:
    return t[:i] + (v,) + t[i + 1:]
