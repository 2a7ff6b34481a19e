"""Pessimistic sender-based message logging with event logging of every
reception (Bouteiller et al. 2013 §2.2, "Message logging", "Event logging", "Payload copy").

- **Payload copy** is sender-based: every outgoing message is kept in the
  sender's volatile log (part of its checkpoint), keyed by its SSN, and served
  again to a recovering receiver on demand (``resend`` request).
- **Event logging**: the determinant ``(source, SSN)`` of every reception is
  written to a reliable event logger, and the process sends nothing until its
  determinants are stable (pessimistic: only failed processes roll back).
- **Recovery**: the failed process restarts from its checkpoint, asks every
  other process for the messages after the SSNs it had received, and replays
  its receptions in logged order; re-sends to survivors are dropped by SSN.

``MessageLogging`` is written for a *set* of processes that roll back together
so that the correlated-set protocol (protocols/correlated_set.py) extends it;
``SenderBased`` is that protocol with each set one process (an event logger
instead of RSNs at the senders). ``ThesisSBML`` is SBML as Meyer 2014 §4.1.1
defines it, the protocol registered as ``sbml``.
"""
from __future__ import annotations

from typing import Any

from rrcheck.protocols.base import (AppMsg, Checkpoint, Context, Deliver, Mail, Note, Packet,
                            Protocol, Restore, Send, Step, replace, value)
from rrcheck.protocols.rbml import ReceiverBased
from rrcheck.protocols.restarts import covers, join, restarted


@value
class Saved:
    """The protocol part of a checkpoint (Meyer 2014 §4.1.1: all but the RSN table)."""

    ssn: tuple[int, ...]   # last SSN sent to each destination
    log: tuple             # sender-based payload log: (dst, SSN, AppMsg)
    rcv: tuple[int, ...]   # highest SSN received from each source
    rsn: int               # receptions so far (reception sequence number)


@value
class Vol:
    ssn: tuple[int, ...]
    log: tuple
    rcv: tuple[int, ...]
    rsn: int
    pending: tuple = ()        # determinants not yet on the event logger
    replay: tuple = ()         # logged determinants (RSN, source, SSN) to force during recovery
    epoch: tuple = ()          # the restarts the set's line recovers from (protocols/restarts.py)
    wave: int = 0              # checkpoint wave in progress (0: none)
    stage: str = "run"         # run | silence | barrier1 | barrier2
    tokens: frozenset = frozenset()
    b1: frozenset = frozenset()
    b2: frozenset = frozenset()
    asked: frozenset = frozenset()  # processes asked for their logs at the last rollback


@value
class Stab:
    events: tuple = ()         # the event log: determinants (RSN, source, SSN)
    ckpts: tuple = ()          # (cid, Saved)
    line: int = 0              # the checkpoint this process (set) rolls back to
    waves: int = 0             # checkpoint ids issued (leader)
    epoch: tuple = ()


class MessageLogging(Protocol):
    name = "message-logging"
    scope = "failed"
    RECOVERY_KINDS = frozenset({"rollback", "resend"})
    # stale_rollback_is_a_failure: the first reading, a rollback naming only restarts the set
    # has recovered from is a new failure (docs/findings.md §4)
    KNOBS = {"log_events": True, "log_internal_events": True, "payload_copy_external": True,
             "drop_duplicates": True, "rollback_scope": "set", "stale_rollback_is_a_failure": False}

    # -- the set that rolls back together ------------------------------------
    def set_of(self, ctx: Context, p: int) -> tuple[int, ...]:
        return (p,)

    def coordinated_with(self, ctx: Context, p: int) -> tuple[int, ...]:
        return self.set_of(ctx, p)

    def _logged(self, ctx: Context, p: int, src: int) -> bool:
        """Is the reception of a message from ``src`` event-logged (Theorem 2)?"""
        if not self.log_events:
            return False
        return self.log_internal_events or src not in self.set_of(ctx, p)

    # -- state ---------------------------------------------------------------
    def initial(self, ctx: Context, p: int) -> tuple[Vol, Stab]:
        z = (0,) * ctx.n
        return Vol(z, (), z, 0, epoch=z), Stab(ckpts=((0, Saved(z, (), z, 0)),), epoch=z)

    def _saved(self, stab: Stab, cid: int) -> Saved:
        return dict(stab.ckpts)[cid]

    def recovering(self, ctx: Context, p: int, vol: Vol) -> bool:
        return bool(vol.replay)

    def holdings(self, ctx: Context, p: int, vol: Vol, stab: Stab):
        return (m for _, _, m in vol.log)

    # -- application send ----------------------------------------------------
    def may_send(self, ctx: Context, p: int, vol: Vol, dst: int) -> bool:
        return not vol.pending  # pessimistic: determinants stable before any send

    def on_send(self, ctx: Context, p: int, vol: Vol, stab: Stab, msg: AppMsg) -> Step:
        dst = msg.dst
        ssn = vol.ssn[dst] + 1
        vol = replace(vol, ssn=_set(vol.ssn, dst, ssn))
        if dst not in self.set_of(ctx, p) and self.payload_copy_external:
            vol = replace(vol, log=vol.log + ((dst, ssn, msg),))
        return Step(vol, stab, (Send(Packet(p, dst, "app", (ssn, vol.epoch, stab.line), msg)),))

    # -- application reception -------------------------------------------------
    def may_match(self, ctx: Context, p: int, vol: Vol, mail: Mail) -> bool:
        if not vol.replay:
            return True
        det = (mail.msg.src, mail.hdr[0])
        rsn, src, ssn = vol.replay[0]
        if rsn == vol.rsn + 1:  # the log names this reception: only it may come
            return det == (src, ssn)
        # a gap in the logged RSNs is a reception the event log does not know
        # (the mutants): any unlogged one may fill it, never a logged one early
        return not self._logged(ctx, p, mail.msg.src) and all(det != d[1:] for d in vol.replay)

    def on_match(self, ctx: Context, p: int, vol: Vol, stab: Stab, mail: Mail) -> Step:
        det = (mail.msg.src, mail.hdr[0])
        vol = replace(vol, rsn=vol.rsn + 1)
        if vol.replay and vol.replay[0] == (vol.rsn,) + det:
            return Step(replace(vol, replay=vol.replay[1:]), stab, (Note("replayed_receptions"),))
        if self._logged(ctx, p, mail.msg.src):
            vol = replace(vol, pending=vol.pending + ((vol.rsn,) + det,))
        return Step(vol, stab)

    # -- the wire --------------------------------------------------------------
    def on_packet(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        kind = pkt.kind
        if kind == "app":
            return self._receive(ctx, p, vol, stab, pkt)
        if kind == "resend":
            vol, stab, out = self._serve(ctx, p, vol, stab, pkt.src, pkt.hdr[0])
            if pkt.hdr[1] and pkt.src in vol.asked:
                # the requester restarted: the request p sent it during p's own
                # recovery may have been lost with it, so p asks again
                out += (Send(Packet(p, pkt.src, "resend", (vol.rcv[pkt.src], False))),)
            return Step(vol, stab, out)
        if kind == "rollback":
            epoch, line = pkt.hdr
            if epoch != vol.epoch and covers(vol.epoch, epoch) and self.stale_rollback_is_a_failure:
                return self._rollback(ctx, p, vol, stab, restarted(vol.epoch, p), min(line, stab.line), notify=True)
            return self._catch_up(ctx, p, vol, stab, epoch, line) or Step(vol, stab)
        return self.on_control(ctx, p, vol, stab, pkt)

    def _catch_up(self, ctx: Context, p: int, vol: Vol, stab: Stab, epoch: tuple, line: int) -> Step | None:
        """The rollback a packet from p's set implies (Bouteiller et al. 2013 §3.2: a failure
        rolls the whole set back), by its epoch (protocols/restarts.py): none if p's line
        has recovered from every restart it names; to the sender's line if it names more;
        if each side knows a restart the other does not (two victims of one node crash),
        to the join of both on the lower line, told to the set, as the sender will do."""
        if covers(vol.epoch, epoch):
            return None
        if covers(epoch, vol.epoch):
            return self._rollback(ctx, p, vol, stab, epoch, line, notify=False)
        return self._rollback(ctx, p, vol, stab, join(vol.epoch, epoch), min(line, stab.line), notify=True)

    def on_control(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        raise ValueError(f"{self.name}: unexpected packet {pkt.kind!r}")

    def _receive(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        src = pkt.src
        ssn, epoch, line = pkt.hdr
        effects: tuple = ()
        if src in self.set_of(ctx, p) and epoch != vol.epoch:
            # sent before the set rolled back (re-sent by re-execution), or for a restart
            # p does not know while p knows another (the sender rolls back to the join too)
            stale = covers(vol.epoch, epoch) or not covers(epoch, vol.epoch)
            vol, stab, effects = self._catch_up(ctx, p, vol, stab, epoch, line) or Step(vol, stab)
            if stale:
                return Step(vol, stab, effects + (Note("stale_dropped"),))
        if ssn != vol.rcv[src] + 1 and self.drop_duplicates:
            note = "duplicates_dropped" if ssn <= vol.rcv[src] else "out_of_order_dropped"
            return Step(vol, stab, effects + (Note(note),))
        vol = replace(vol, rcv=_set(vol.rcv, src, max(ssn, vol.rcv[src])))
        return Step(vol, stab, effects + (Deliver(Mail(pkt.msg, (ssn,))),))

    def _serve(self, ctx: Context, p: int, vol: Vol, stab: Stab, dst: int, after: int) -> Step:
        """Payload copy: serve the logged messages a recovering ``dst`` lacks."""
        out = tuple(Send(Packet(p, dst, "app", (ssn, vol.epoch, stab.line), m))
                    for d, ssn, m in vol.log if d == dst and ssn > after)
        return Step(vol, stab, out + ((Note("logged_messages_resent"),) if out else ()))

    # -- internal steps --------------------------------------------------------
    def internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, may_checkpoint: bool) -> tuple:
        acts = ()
        if vol.pending:
            acts += ("log",)
        if may_checkpoint and self._may_start_checkpoint(ctx, p, vol):
            acts += ("checkpoint",)
        return acts

    def _may_start_checkpoint(self, ctx: Context, p: int, vol: Vol) -> bool:
        return not vol.replay and not vol.pending and vol.stage == "run"

    def on_internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, label: Any) -> Step:
        if label == "log":  # the event logger acknowledges the determinants
            return Step(replace(vol, pending=()), replace(stab, events=stab.events + vol.pending))
        if label == "checkpoint":
            return self.start_checkpoint(ctx, p, vol, stab)
        return super().on_internal(ctx, p, vol, stab, label)

    def start_checkpoint(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        cid = stab.waves + 1
        return self._take(vol, replace(stab, waves=cid, line=cid), cid)

    def _take(self, vol: Vol, stab: Stab, cid: int, effects: tuple = ()) -> Step:
        saved = Saved(vol.ssn, vol.log, vol.rcv, vol.rsn)
        stab = replace(stab, ckpts=stab.ckpts + ((cid, saved),))
        return Step(vol, stab, effects + (Checkpoint(cid),))

    # -- failures ----------------------------------------------------------------
    def on_restart(self, ctx: Context, p: int, stab: Stab) -> Step:
        return self._rollback(ctx, p, None, stab, restarted(stab.epoch, p), stab.line, notify=True)

    def _rollback(self, ctx: Context, p: int, vol: Vol | None, stab: Stab, epoch: tuple, line: int,
                  notify: bool) -> Step:
        """Roll back to checkpoint ``line``: restore, replay the logged
        determinants after it, and ask the processes outside the set for the
        messages received since (payload copy)."""
        s = self._saved(stab, line)
        replay = tuple(d for d in sorted(stab.events) if d[0] > s.rsn)
        members = self.set_of(ctx, p)
        outside = frozenset(q for q in ctx.others(p) if q not in members)
        vol = Vol(s.ssn, s.log, s.rcv, s.rsn, replay=replay, epoch=epoch, asked=outside)
        stab = replace(stab, epoch=epoch, line=line)
        out: list = [Restore(line)]
        if notify:
            targets = ctx.others(p) if self.rollback_scope == "all" else members
            out += [Send(Packet(p, q, "rollback", (epoch, line))) for q in targets if q != p]
        out += [Send(Packet(p, q, "resend", (s.rcv[q], True))) for q in ctx.others(p) if q not in members]
        return Step(vol, stab, tuple(out))


class SenderBased(MessageLogging):
    """Pessimistic sender-based message logging (SBML), every reception
    event-logged; independent checkpoints; only the failed process restarts."""

    name = "sbml"
    scope = "failed"
    source = "Bouteiller et al. 2013 §2.2; Meyer 2014 §4.1.1"


def _set(t: tuple, i: int, v: Any) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


class ThesisSBML(ReceiverBased):
    """Pessimistic sender-based message logging as Meyer 2014 §4.1.1 defines it
    (Meyer 2014 §4.1.1, Fig. 4.1), on the engine of protocols/rbml.py with the log of
    each reception held by its sender instead of a logger:

    - P1 saves (M, SSN) in its Message Log (``Vol.tb``), then sends (Meyer 2014 §4.1.1);
    - P2 records the SSN in its Table of SSN, increments its RSN and ACKs with
      it (the ``log`` packet); P1 adds the RSN to its log entry (``Vol.lg``)
      and ACKs (``confirm``); P2 marks its Table of RSN (``Vol.rtb``) (Meyer 2014 §4.1.1);
    - between a reception and that ACK the receiver sends nothing (Meyer 2014 §4.1.1);
    - a restarted P2 asks every sender for its logged messages: the fully
      logged ones are replayed in ascending RSN from the checkpointed RSN + 1,
      the partially logged ones (no RSN at the sender) come after, in any order
      (Meyer 2014 §4.1.1); survivors drop re-sent messages by SSN (Meyer 2014 §4.1.1);
    - at a checkpoint P2 tells its senders, which delete the messages it covers
      (Meyer 2014 §4.1.1).

    The Message Log's payloads are checkpointed with the sender (Meyer 2014 §4.1.1), so a
    node crash that takes a sender and its receiver together loses nothing.
    Deviation: a receiver re-sends the RSN of a duplicate whose ACK the
    restarted sender lost (Meyer 2014 §4.1.1); here a restarted sender has its receivers
    checkpoint instead (RADIC's re-protection, protocols/rbml.py), which makes
    the lost RSNs unnecessary. Only reception order is logged
    (piecewise determinism, Meyer 2014 §4.1): ``nondet`` outcomes are not.

    ``log_events`` and ``payload_copy_external`` keep the knob names of the
    Bouteiller et al. mutants (no event logging; no payload copy).

    Fault model (docs/findings.md, "SBML and a node crash"): the thesis argues
    SBML's recovery for one failed process (§4.1.1) and keeps a determinant "in
    the volatile memory of the machine from which the message is going to be
    sent"; its stable storage is "the volatile memory of another node" (§2.2.1).
    A node crash that takes a receiver with a sender on its node is beyond that
    claim: the checker runs it only when asked (``--beyond-fault-model``), and
    the readings above are then the model's own.
    """

    name = "sbml"
    scope = "failed"

    def beyond_fault_model(self, node_of, sends, crash_kinds):
        if "node" not in crash_kinds:
            return None
        shared = sorted((s, r) for s, r in sends if s != r and node_of[s] == node_of[r])
        if not shared:
            return None
        s, r = shared[0]
        return (f"sbml under node crashes with P{s} sending to P{r} on one node is beyond Meyer 2014 §4.1.1, which "
                f"keeps a determinant \"in the volatile memory of the machine from which the message is going to be "
                f"sent\" and argues recovery for one failed process (docs/findings.md)")

    source = "Meyer 2014 §4.1.1, Fig. 4.1; Bouteiller et al. 2013 §2.2"
    KNOBS = {
        **ReceiverBased.KNOBS,
        "release_at": "never",       # the Message Log is kept until the receiver checkpoints
        "forward_at_reception": False,  # the RSN ACK is a step after the reception (Meyer 2014 §4.1.1)
        "log_choices": False,
        "tb_query": "none",          # the fetch brings the partially logged messages too
        "log_events": True,          # the RSN goes back to the sender (Meyer 2014 §4.1.1)
        "payload_copy_external": True,  # the sender keeps the payload (Meyer 2014 §4.1.1)
    }

    def __init__(self, **knobs: Any) -> None:
        super().__init__(**knobs)
        self.sender_tb = self.payload_copy_external

    def holders(self, ctx: Context, p: int) -> tuple[int, ...]:
        return ctx.others(p)

    def holder_of(self, ctx: Context, p: int, src: int) -> int:
        return src

    def protected_by(self, ctx: Context, q: int) -> tuple[int, ...]:
        return ctx.others(q)

    def _log(self, ctx: Context, p: int, vol, stab, src: int, ssn: int, m, wait: bool) -> Step:
        if not self.log_events:  # the RSN never leaves the receiver
            return Step(replace(vol, rsn=vol.rsn + 1), stab)
        return super()._log(ctx, p, vol, stab, src, ssn, None, wait)

    def _on_fetch(self, ctx: Context, q: int, vol, stab, pkt: Packet) -> Step:
        """One request per sender (Meyer 2014 §4.1.1): its fully logged messages for
        the restarted process, then the partially logged ones, in any order."""
        vol, stab, out = super()._on_fetch(ctx, q, vol, stab, pkt)
        p = pkt.src
        after = pkt.hdr[1]
        logged = {e[2] for e in vol.lg[p]}
        partial = tuple(Send(Packet(q, p, "app", (ssn,), m)) for d, ssn, m in vol.tb
                        if d == p and ssn > after and ssn not in logged)
        return Step(vol, stab, out + partial + ((Note("partially_logged_resent"),) if partial else ()))
