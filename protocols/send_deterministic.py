"""The send-deterministic hierarchical protocol with phases (Guermouche and Ropars 2011,
Guermouche & Ropars, RenPar 2011, §3 with Figures 5 and 6).

Coordinated checkpoints inside each group (§3.1), sender-based logging of the
messages between groups with their (destination, date, phase) and no
determinant (Fig. 5 lines 11–18): send-determinism (§2.3) re-creates the
orphan messages, and **phases** (lines 20–27, §3.2) keep the replay causal.
After a failure the whole group restarts (lines 44–49); the other groups send
the logged messages after the restart date to the group's *restart process*
and report the phases of the orphans they hold (lines 51–58), buffer their new
messages to the group and flush them at the end of the restart (lines 15–16,
60–64). The restart process (Fig. 6) replays a phase once no lower phase still
waits for an orphan. Acknowledgements collect the logs (lines 29–31, 40–42).

Readings chosen where the printed pseudo-code is inconsistent or silent (each
is marked ``# reading:`` at its place):

1. Line 14 logs ``(P_j, Date, Phase, msg)`` and line 16 buffers without the
   destination: both store the destination and the date and phase just taken.
2. Line 42 deletes from ``Enregistres_j``: it is the acknowledged sender's own
   log ``Enregistres_i`` (the receiver's log is out of its reach).
3. Line 53 compares the sender's dates with the restarting process's ``Date``,
   a different clock (dates count each process's own events, line 12 and 28):
   the restart message carries both the restored ``Date`` (for the orphans of
   line 56, which are on the restarting process's clock) and ``RPP[j].Maxdate``
   restored from the checkpoint (line 37) for the logged messages to re-send.
4. Lines 55–58 run per restart message, i.e. once per restarting process
   ``p_k``; the restart process waits for one notification per (process of
   another group, restarting process) pair. ``NbOrphPhase`` counts orphan
   *messages* (Fig. 6 line 1 says processes, but line 34 decrements once per
   orphan message); the decrement uses the phase recorded at line 25 — the
   phase counted at line 57 — so the two counts always match.
5. Fig. 6 line 20 releases phases only after every notification arrived
   (line 11), also when started by line 17; released messages leave
   ``Enregistrés``.
6. ``FinRedemarrage`` goes from the restart process to the group's members,
   behind their replayed messages on the same channel, and each member
   forwards it to the other groups, which flush their buffer for that member
   (lines 60–63) and drop the group from ``Redemarrage`` once every member
   has (line 64). Sent by the restart process straight to the other groups, a
   flushed message could overtake a replayed one from the same sender and
   break line 21's date test (MPI non-overtaking).
7. Stale messages: every header carries the epoch of the destination's group
   as its sender knows it. A message sent to a restarting process before its
   sender heard of the restart is dropped: it is logged, so line 54 re-sends
   it. Buffered messages are flushed with their own date and phase (line 62
   writes ``Date_i, Phase_i``, the sender's current ones).
8. Group checkpoints are a blocking coordinated wave (§3.1 only says
   "coordinated"): the leader marks its peers, internal sends stop, each
   member checkpoints once every peer's mark arrived (FIFO: internal channels
   are empty), the leader commits when all are done. A restarted member asks
   the leader, which owns the committed line and the epoch, to restart the
   group; it hosts the restart process. Acknowledgements (line 38) start at
   the commit, not at the member's checkpoint: an uncommitted checkpoint may
   still be abandoned. So an acknowledgement names the committed checkpoint's
   ``RPP[j].Maxdate`` (+1 for line 42's strict test), not the date of the
   message that triggers it: messages from P_j received between the member's
   checkpoint and the commit are not in the checkpoint, and must stay logged.
9. A "reception" (lines 20–28) is split as MPI splits it: the first-time test,
   ``RPP`` and the acknowledgement when the packet arrives; the phase and date
   updates (lines 22–23, 26–28) when the application's receive consumes the
   message. Counted on arrival, dates would depend on arrival timing, and a
   re-execution would not re-create the dates that lines 53 and 56 compare.
10. An orphan (line 33) is reported only if re-sent by the sender group's
   current incarnation (its epoch is in the header): one re-sent by an
   incarnation that a newer restart discarded will be re-sent again.
11. A group checkpoint's mark of a newer epoch than its receiver's comes
   from a peer already rolled back by that epoch's restart (lines 46–48
   roll every process of the group back): it implies the receiver's own
   rollback to the line the mark names, as a peer's application message of
   a newer epoch does (reading 7); the rollback message, still on its way,
   is then stale. Dropped, the mark never comes again and the wave waits
   for it forever. A wave packet of an older epoch, or of the epoch of a
   member awaiting its restart, belongs to a wave the restart abandoned and
   is dropped.
12. A group checkpoint's mark of a later wave of the same epoch, arriving
   while the receiver is still in its wave, comes from a peer that joined
   that wave only after the commit of the receiver's (the leader starts a
   wave only once the previous one is committed, §3.1's coordinated
   protocol): it implies that commit, still on its way (a peer's mark can
   overtake the leader's commit once the group has three processes). The
   receiver commits, then takes the mark as the first of the new wave; the
   commit, when it arrives, is stale. Counted with the old wave's marks,
   the mark is wiped by the commit and the new wave waits for it forever.

13. Several faults at once (§2.1: "plusieurs fautes peuvent se produire à
   la fois"; §3.2: "un processus de redémarrage est lancé pour chacun
   d'eux"): a restart of another group can reach a process that is itself
   restarting, and a rollback loses what its process heard and answered of
   another group's restart (a crash loses the restart message in flight to
   it; the answer was of a state it left). So a process still restarting
   (line 48's Status) that hears of p_k's restart tells p_k of its own again
   (line 49, with the restored ``Date`` and ``RPP[k].Maxdate`` of the first
   time, marked as told again so that p_k does not answer in kind), and a
   restart message of an epoch already known is answered again (lines
   53–58) and its sender awaited again (line 52: its FinRedemarrage follows
   on the same channel); what was buffered for it since (line 16) is flushed
   at that FinRedemarrage (lines 60–63), not re-sent to a restart process
   that may have ended.
14. The restart process counts orphans per (reporter P_j, restarting process
   p_k), by their date and phase (Fig. 6 line 1's NbOrphPhase[phase] is the
   number of those of that phase): a report (line 58) carries the reporter's
   own epoch; one of a newer epoch replaces the pair's orphans (the reporter
   rolled back: only what its restored state holds is still an orphan), one
   of the same epoch is a repeat and changes nothing. ``PlusOrphelinPhase``
   (line 34, Fig. 6 line 14) names the pair and the date, and takes away
   only an orphan that was reported: a message P_j gets twice, from a replay
   of the old incarnation's log and from the re-execution, is counted once.
15. Incarnations: ``RPP`` records with each date the epoch of the sender's
   group that sent it (line 25), and only what an incarnation before restart
   e sent is an orphan of restart e (line 56): a told-again restart message
   comes after the re-execution's own messages. A logged message carries the
   epoch of its sender's group when it goes to a restart process (line 54),
   and is not replayed (Fig. 6 line 22), nor taken, once a later restart of
   that group is known: that restart discarded it, its re-execution sends
   it again, and replayed early it would overtake its own causes.

16. Two failures and a group checkpoint (§2.1's several faults, §3.1's
   checkpoints): line 37 saves ``PasEnvoyes`` too, since a message buffered
   at line 16 is logged and dated in the image but was not sent; a rollback
   restores that buffer less what was sent since (flushed, or handed to a
   restart process at line 54). A crash loses ``Redemarrage`` (line 4) but
   not the epochs of reading 7: the restarted process counts every group it
   knows to have restarted as restarting, and buffers for it (line 16),
   until told again; a process whose restart is over answers a restart
   message with its ``FinRedemarrage`` again (lines 60–64), which the crash
   or rollback of the restarting process lost.
17. An orphan re-sent is not a new message (§3.2 buffers the *new* messages
   of a process that has not failed): a message dated no later than the
   ``RPP[j].Maxdate`` that its destination's restart message carried
   (reading 3) is sent, not buffered, and a message the receiver's restored
   state holds (line 21's date test fails) is an orphan re-received (line
   33), not a stale one (reading 7), whatever epoch its sender knew. A
   restarting process tells p_k of its restart again (reading 13) with the
   ``Date`` its re-execution has reached: what it sent up to there is no
   longer an orphan of line 56, and a copy lost with p_k's crash, whose
   restored state holds the first one, would never be re-received.
18. Reading 15 discards a logged message of an incarnation that a later
   restart of its group replaced only if it is dated after the ``Date`` that
   restart restored (the date its restart message carried, line 49, or the
   one reading 17 tells again): the new incarnation's restored state has
   sent it too, and will not send it again.

19. A correction, not a reading (docs/findings.md, "A group's line past its
   cause"): a member that has taken its part of a group checkpoint sends
   nothing to other groups either until the commit. As published (§3.1 names
   only "un protocole coordonné [5]"), P1 may checkpoint, send o out of the
   group, and P2's m7, which follows o, reach P0 before P0 checkpoints: the
   group's line then holds m7 but not o, a state no failure-free run meets
   (§2.2), and a survivor can become an orphan (mutant
   ``checkpoint-holds-a-message-past-its-cause``). Any path that leaves the
   group after one member's checkpoint now leaves after every member's.

Two failures in a group of two with a checkpoint (docs/findings.md, finding 3;
readings 20-24 belong to ``concurrent_restarts`` and ``resend_lost``, and reading 20
alone to ``told_again_names_group`` too):

20. Line 52 adds the sender's whole group to ``Redemarrage`` (and line 15 asks
   whether P_j's *group* restarts): a restart told again (reading 13) names the
   members of its teller's restart, as the first one did, not the teller alone.
   Named alone, the others' messages go out at line 18 during their replay.
21. Line 53 hands the restart process only what is dated after Maxdate, and
   lines 60-63 flush ``PasEnvoyes``: what p buffered for p_k before p_k's
   restart message came and is dated no later than the Maxdate it carries (an
   orphan re-sent, reading 17) stays buffered and is flushed at p_k's
   FinRedemarrage, not dropped (p_k's restart process awaits it).
22. Reading 18's ``since`` is learnt from p_k's own restart message (line 49's
   ``Date``), so it is kept with the epoch of that restart: a logged message of
   an incarnation a later restart replaced is known discarded (reading 15)
   only once p_k's message for that restart told the Date; until then (the news
   came through another member) the restart process keeps it, neither
   replayed nor dropped, and does not end (Fig. 6 line 23), and decides when
   p_k's restart message arrives (behind the log on the same channel). A
   replay not yet known to be discarded is delivered: p has not answered p_k's
   restart yet, and line 56 will report it as an orphan of it.
23. A member restored from its image after a crash and awaiting its line
   (reading 8) knows nothing of what it sent after the line its leader then
   names (which may be later than its own, line 45: "pour le Groupe_i"): it
   takes that checkpoint's whole buffer (reading 16), flushed at the ends of
   the restarts it names, rather than the part it still holds.
24. Lines 53-58 answer from the restored state (line 47): a member awaiting
   its line (reading 8) has none yet, and does not answer a restart message
   beyond line 52. Its rollback's restart message (line 49) brings the
   question again (reading 13). Answered from its image before the line, its
   report was taken as final and a message the line had logged never replayed.
"""
from __future__ import annotations

from typing import Any

from rrcheck.protocols.base import (AppMsg, Checkpoint, Context, Deliver, Mail, Note, Packet,
                            Protocol, Restore, Send, Step, replace, value)

RUN, RESTART, AWAIT = "run", "restart", "await"


@value
class Saved:
    """Fig. 5 line 37: (ImagePs_i, RPP_i, Enregistres_i, Phase_i, Date_i); the
    image itself is the model's checkpoint."""

    RPP: tuple
    Enregistres: tuple
    Phase: int
    Date: int
    PasEnvoyes: tuple = ()       # reading 16: what the image logged and dated but did not send


@value
class RestartProcess:
    """Fig. 6 local variables, for one restart (epoch) of one group."""

    epoch: int
    Enregistres: tuple = ()      # (phase, dst, date, sender, msg): lines 2, 5–6
    NbOrphPhase: tuple = ()      # ((phase, count), ...): line 1
    notified: frozenset = frozenset()  # (process, restarting process) pairs heard (line 11);
    #                                    reading 14: (process, restarting process, reporter's epoch)
    orphans: frozenset = frozenset()   # reading 14: (reporter, restarting process, date, phase) awaited
    expected: int = 0            # how many pairs there are
    members: tuple = ()          # the processes that restart


@value
class Vol:
    Date: int = 1                # Fig. 5 line 3
    Phase: int = 1               # line 3
    Enregistres: tuple = ()      # line 5: (dst, date, phase, msg)
    RPP: tuple = ()              # line 6: per sender (Maxdate, ((date, phase), ...)); reading 14:
    #                              (date, phase, the epoch of the sender's group that sent it)
    RamasseMiette: tuple = ()    # line 8
    PasEnvoyes: tuple = ()       # line 9: (dst, date, phase, msg)
    Redemarrage: frozenset = frozenset()  # line 4: groups restarting
    waiting: frozenset = frozenset()      # their restarting members, until FinRedemarrage (reading 6)
    holds: frozenset = frozenset()  # reading 17: (P_k, the Maxdate of p's messages its restart restored)
    Status: str = RUN            # line 48
    epoch: int = 0               # this group's restart epoch
    wave: int = 0                # group checkpoint in progress (reading 8)
    marks: frozenset = frozenset()
    done: frozenset = frozenset()
    taken: bool = False
    rp: RestartProcess | None = None


@value
class Stab:
    ckpts: tuple = ()            # (cid, Saved)
    line: int = 0                # committed group checkpoint
    waves: int = 0               # waves issued (leader)
    epoch: int = 0               # the group's epoch
    known: tuple = ()            # per group: its last restart epoch heard of (reading 7)
    since: tuple = ()            # reading 18: per process, the Date its group's last restart restored;
    #                              reading 22: (that restart's epoch, the Date)


def _set(t: tuple, i: int, v: Any) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


class SendDeterministic(Protocol):
    name = "send-deterministic"
    scope = "group"
    # an epoch (count, restarter) cannot say how many restarts a rollback takes in (docs/findings.md §4)
    RECOVERY_BOUND = None
    source = "Guermouche & Ropars 2011 §3, Fig. 5 and 6"
    requires_send_determinism = True
    RECOVERY_KINDS = frozenset({"failed", "rollback", "restart", "rp_log", "rp_orphans", "rp_no_orphan",
                                "replay", "end"})
    MESSAGE_KINDS = frozenset({"replay"})
    KNOBS = {"phases": True, "restart_buffer": True, "gc_inclusive": False, "group_rollback": True,
             "ack_checkpointed": True,  # reading 8: an ack names what the committed checkpoint holds
             "flush_empties_buffer": True,  # line 63: what is sent leaves PasEnvoyes
             "newer_mark_restarts": True,  # reading 11: a mark of a newer epoch implies the rollback
             "next_wave_commits": True,  # reading 12: a mark of the next wave implies this wave's commit
             "concurrent_restarts": True,  # readings 13–15, 20: restarts of two groups at once are answered
             "told_again_names_group": True,  # reading 20: a restart told again names the teller's group
             "resend_lost": True,  # readings 16–18, 21–24: what a crash or rollback lost of a restart recurs
             "hold_external_until_commit": True}  # correction 19 (docs/findings.md)

    # -- helpers ---------------------------------------------------------------
    def leader(self, ctx: Context, p: int) -> int:
        return min(ctx.group(p))

    def coordinated_with(self, ctx: Context, p: int) -> tuple[int, ...]:
        return ctx.group(p)

    def initial(self, ctx: Context, p: int) -> tuple[Vol, Stab]:
        saved = Saved(((0, ()),) * ctx.n, (), 1, 1)
        known = (0,) * (max(ctx.group_of) + 1)
        return self._fresh(ctx, saved, RUN, 0), Stab(ckpts=((0, saved),), known=known, since=((0, 1),) * ctx.n)

    def _fresh(self, ctx: Context, s: Saved, status: str, epoch: int, gc: bool = False) -> Vol:
        return Vol(s.Date, s.Phase, s.Enregistres, s.RPP, (gc,) * ctx.n, Status=status, epoch=epoch)

    def recovering(self, ctx: Context, p: int, vol: Vol) -> bool:
        return vol.Status != RUN or vol.rp is not None

    def holdings(self, ctx: Context, p: int, vol: Vol, stab: Stab):
        yield from (m for *_, m in vol.Enregistres)
        yield from (m for *_, m in vol.PasEnvoyes)
        if vol.rp is not None:
            yield from (x[4] for x in vol.rp.Enregistres)

    def describe(self, pkt: Packet) -> str:
        """The header drawn on the diagram: date and phase of an application message."""
        if pkt.kind == "app":
            return f"date {pkt.hdr[0]}, phase {pkt.hdr[1]}"
        if pkt.kind in ("replay", "rp_log"):
            return f"date {pkt.hdr[1]}, phase {pkt.hdr[2]}"
        return ""

    # -- application send: Fig. 5 lines 11–18 ------------------------------------
    def may_send(self, ctx: Context, p: int, vol: Vol, dst: int) -> bool:
        if vol.Status == AWAIT:
            return False
        # silence during a group checkpoint; correction 19: out of the group too once p's part is taken
        held = ctx.internal(p, dst) or (vol.taken and self.knobs["hold_external_until_commit"])
        return not (vol.wave and held)

    def may_match(self, ctx: Context, p: int, vol: Vol, mail: Mail) -> bool:
        return vol.Status != AWAIT

    def may_choose(self, ctx: Context, p: int, vol: Vol, k: int, choice: int) -> bool:
        return vol.Status != AWAIT

    def on_send(self, ctx: Context, p: int, vol: Vol, stab: Stab, msg: AppMsg) -> Step:
        dst = msg.dst
        date = vol.Date + 1                                        # line 12
        vol = replace(vol, Date=date)
        if ctx.internal(p, dst):
            return Step(vol, stab, (Send(self._app(ctx, p, vol, stab, dst, date, vol.Phase, msg)),))
        # reading 1: the destination, date and phase are logged with the message
        vol = replace(vol, Enregistres=vol.Enregistres + ((dst, date, vol.Phase, msg),))   # lines 13–14
        # reading 17: Guermouche & Ropars 2011 §3.2 buffer *new* messages; one dst's restored
        # state holds already is an orphan re-sent, and its re-reception ends dst's wait for it
        resent = self.resend_lost and date <= dict(vol.holds).get(dst, 0)
        if self.restart_buffer and dst in vol.waiting and not resent:                     # lines 15–16
            return Step(replace(vol, PasEnvoyes=vol.PasEnvoyes + ((dst, date, vol.Phase, msg),)), stab,
                        (Note("messages_buffered_during_restart"),))
        return Step(vol, stab, (Send(self._app(ctx, p, vol, stab, dst, date, vol.Phase, msg)),))  # line 18

    def _app(self, ctx: Context, p: int, vol: Vol, stab: Stab, dst: int, date: int, phase: int,
             msg: AppMsg) -> Packet:
        """(msg, Date, Phase, Groupe), the epoch of dst's group as p knows it, p's
        committed line and p's own epoch (reading 7)."""
        epoch = vol.epoch if ctx.internal(p, dst) else stab.known[ctx.group_of[dst]]
        return Packet(p, dst, "app", (date, phase, ctx.group_of[p], epoch, stab.line, vol.epoch), msg)

    # -- the wire ------------------------------------------------------------------
    def on_packet(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        kind = pkt.kind
        if kind == "app":
            return self._app_packet(ctx, p, vol, stab, pkt)
        if kind == "replay":
            e, date, phase, sender, *mine = pkt.hdr
            if e != vol.epoch or vol.Status != RESTART:
                return Step(vol, stab, (Note("stale_dropped"),))
            if mine and self._discarded(ctx, stab, sender, date, mine[0]):
                # reading 15: logged by an incarnation a later restart of its group discarded
                # (reading 22: one not yet known to be is delivered, and line 56 reports it as
                # an orphan of that restart when p_k's restart message comes)
                return Step(vol, stab, (Note("stale_dropped"),))
            return self._receive(ctx, p, vol, stab, sender, date, phase, pkt.msg, (Note("replayed_messages"),),
                                 sent_epoch=mine[0] if mine else None)
        if kind == "ack":
            return self._ack(ctx, p, vol, stab, pkt.src, pkt.hdr[0])
        if kind in ("mark", "done", "commit"):
            return self._wave(ctx, p, vol, stab, pkt)
        if kind == "failed":
            return self._group_restart(ctx, p, vol, stab, pkt.src)
        if kind == "rollback":
            e, line, members = pkt.hdr
            if e <= vol.epoch and vol.Status != AWAIT:
                return Step(vol, stab, (Note("stale_dropped"),))
            return self._rollback(ctx, p, vol, stab, e, line, members)
        if kind == "restart":
            return self._on_restart_msg(ctx, p, vol, stab, pkt)
        if kind == "end":
            return self._on_end(ctx, p, vol, stab, pkt)
        if kind in ("rp_log", "rp_orphans", "rp_no_orphan"):
            return self._restart_process(ctx, p, vol, stab, pkt)
        raise ValueError(f"{self.name}: unexpected packet {kind!r}")

    def _app_packet(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        date, phase, _, epoch, line, src_epoch = pkt.hdr
        effects: tuple = ()
        held = (self.resend_lost and not ctx.internal(p, pkt.src)
                and date <= vol.RPP[pkt.src][0])  # reading 17: p's restored state holds it
        if epoch < vol.epoch and (self.group_rollback or not ctx.internal(p, pkt.src)) and not held:
            # sent before its sender heard of this group's restart (reading 7)
            return Step(vol, stab, (Note("stale_dropped"),))
        if epoch > vol.epoch and ctx.internal(p, pkt.src) and self.group_rollback:
            # a peer restarted and re-executes; the rollback itself is still on its way
            vol, stab, effects = self._rollback(ctx, p, vol, stab, epoch, line, ctx.group(p))
        return self._receive(ctx, p, vol, stab, pkt.src, date, phase, pkt.msg, effects, src_epoch)

    def _receive(self, ctx: Context, p: int, vol: Vol, stab: Stab, j: int, date: int, phase: int,
                 msg: AppMsg, effects: tuple = (), src_epoch: int | None = None,
                 sent_epoch: int | None = None) -> Step:
        """Fig. 5 lines 20–34 on arrival; lines 22–23, 26–28 wait for the
        application's receive (:meth:`on_match`). ``src_epoch``: the epoch of the
        sender's group that sent it now; ``sent_epoch``: the one that sent it first."""
        other = not ctx.internal(p, j)
        maxdate, seen = vol.RPP[j]
        if date > maxdate or not other:                            # line 21 (RPP[j] is ⊥ inside the group)
            out: tuple = ()
            if other:                                              # lines 24–25
                # reading 15: and the sender's incarnation
                sent = (src_epoch if sent_epoch is None else sent_epoch,) if self.concurrent_restarts else ()
                vol = replace(vol, RPP=_set(vol.RPP, j, (date, seen + ((date, phase, *sent),))))
                if vol.RamasseMiette[j]:                           # lines 29–31
                    # reading 8: what the committed checkpoint holds from j, not what
                    # came before this message: some came between checkpoint and commit
                    covered = dict(stab.ckpts)[stab.line].RPP[j][0] + 1 if self.ack_checkpointed else date
                    out += (Send(Packet(p, j, "ack", (covered,))), Note("acks_sent"))
                    vol = replace(vol, RamasseMiette=_set(vol.RamasseMiette, j, False))
            return Step(vol, stab, effects + out + (Deliver(Mail(msg, (date, phase, other))),))  # line 32
        g = ctx.group_of[j]
        if g not in vol.Redemarrage:
            return Step(vol, stab, effects + (Note("duplicates_dropped"),))
        if src_epoch != stab.known[g]:
            # re-sent by an incarnation a newer restart of j's group discarded: it
            # will be re-sent again, and counted by that restart (line 56)
            return Step(vol, stab, effects + (Note("stale_dropped"),))
        # line 33–34: an orphan re-sent by the re-execution; reading 4: its recorded phase
        recorded = next((x[1] for x in seen if x[0] == date), phase)
        rp = self.leader(ctx, j)
        # reading 14: the pair and the date, so that only a reported orphan is taken away
        hdr = (stab.known[g], j, date) if self.concurrent_restarts else (stab.known[g], recorded)
        return Step(vol, stab, effects + (Send(Packet(p, rp, "rp_no_orphan", hdr)), Note("orphans_rereceived")))

    def on_match(self, ctx: Context, p: int, vol: Vol, stab: Stab, mail: Mail) -> Step:
        """Lines 22–23, 26–28 at the application's reception: a reception event
        is the receive that consumes the message, so dates and phases do not
        depend on when a packet happened to arrive (the re-execution must
        re-create the dates of line 53 and 56)."""
        _, phase, other = mail.hdr
        out: tuple = ()
        if self.phases:
            if other and phase + 1 > vol.Phase:                    # line 23
                out = (Note("phase_raised_by_other_group"),)
            vol = replace(vol, Phase=max(vol.Phase, phase + 1 if other else phase))   # lines 23, 27
        return Step(replace(vol, Date=vol.Date + 1), stab, out)   # line 28

    # -- garbage collection: lines 36–42 -----------------------------------------
    def _ack(self, ctx: Context, p: int, vol: Vol, stab: Stab, j: int, maxdate: int) -> Step:
        # reading 2: p deletes from its own log the messages to P_j dated before MaxDate
        keep = tuple(e for e in vol.Enregistres if e[0] != j or
                     not (e[1] <= maxdate if self.gc_inclusive else e[1] < maxdate))
        gone = len(vol.Enregistres) - len(keep)
        return Step(replace(vol, Enregistres=keep), stab, (Note("logged_messages_collected"),) * bool(gone))

    # -- group checkpoints (reading 8) -------------------------------------------
    def internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, may_checkpoint: bool) -> tuple:
        if (may_checkpoint and p == self.leader(ctx, p) and vol.Status == RUN and vol.rp is None
                and not vol.wave):
            return ("checkpoint",)
        return ()

    def on_internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, label: Any) -> Step:
        if label != "checkpoint":
            return super().on_internal(ctx, p, vol, stab, label)
        w = stab.waves + 1
        stab = replace(stab, waves=w)
        vol = replace(vol, wave=w)
        out = tuple(Send(Packet(p, q, "mark", (vol.epoch, w, stab.line))) for q in ctx.peers(p))
        return self._advance(ctx, p, vol, stab, out)

    def _wave(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """A mark (epoch, wave, the sender's committed line), a done or a commit (epoch, wave)."""
        e, w = pkt.hdr[:2]
        out: tuple = ()
        if pkt.kind == "mark" and e > vol.epoch and self.newer_mark_restarts and self.group_rollback:
            # reading 11: Guermouche & Ropars 2011 Fig. 5 lines 46–48 roll the whole group
            # back, so a peer's mark of a newer epoch implies p's rollback, still on its way
            vol, stab, out = self._rollback(ctx, p, vol, stab, e, pkt.hdr[2], ctx.group(p))
            out += (Note("rollback_implied_by_mark"),)
        elif e != vol.epoch or vol.Status == AWAIT:
            return Step(vol, stab, (Note("stale_dropped"),))
        if pkt.kind == "mark":
            if vol.wave and w > vol.wave and self.next_wave_commits:
                # reading 12: Guermouche & Ropars 2011 §3.1 coordinate the checkpoints of a
                # group; its sender joined wave w after the commit of p's wave, so p commits too
                vol, stab = self._end_wave(ctx, vol), replace(stab, line=vol.wave)
                out += (Note("commit_implied_by_next_wave"),)
            if not vol.wave:
                vol = replace(vol, wave=w)
                out += tuple(Send(Packet(p, q, "mark", (e, w, stab.line))) for q in ctx.peers(p))
            vol = replace(vol, marks=vol.marks | {pkt.src})
        elif pkt.kind == "done":
            vol = replace(vol, done=vol.done | {pkt.src})
        elif w <= stab.line:  # a commit a mark of the next wave implied already (reading 12)
            return Step(vol, stab, (Note("stale_dropped"),))
        else:  # commit
            return Step(self._end_wave(ctx, vol), replace(stab, line=w))
        return self._advance(ctx, p, vol, stab, out)

    def _advance(self, ctx: Context, p: int, vol: Vol, stab: Stab, out: tuple) -> Step:
        peers, lead = frozenset(ctx.peers(p)), self.leader(ctx, p)
        w = vol.wave
        if not vol.taken and vol.marks >= peers:
            # every peer is silent towards p: its checkpoint, line 37
            saved = Saved(vol.RPP, vol.Enregistres, vol.Phase, vol.Date,
                          vol.PasEnvoyes if self.resend_lost else ())  # reading 16
            stab = replace(stab, ckpts=stab.ckpts + ((w, saved),))
            vol = replace(vol, taken=True)
            out += (Checkpoint(w),)
            if p == lead:
                vol = replace(vol, done=vol.done | {p})
            else:
                out += (Send(Packet(p, lead, "done", (vol.epoch, w))),)
        if p == lead and vol.done >= frozenset(ctx.group(p)):
            out += tuple(Send(Packet(p, q, "commit", (vol.epoch, w))) for q in peers)
            return Step(self._end_wave(ctx, vol), replace(stab, line=w), out)
        return Step(vol, stab, out)

    def _end_wave(self, ctx: Context, vol: Vol) -> Vol:
        # line 38 at the commit (reading 8)
        return replace(vol, wave=0, marks=frozenset(), done=frozenset(), taken=False,
                       RamasseMiette=(True,) * ctx.n)

    # -- failure: lines 44–49 -------------------------------------------------------
    def on_restart(self, ctx: Context, p: int, stab: Stab) -> Step:
        lead = self.leader(ctx, p)
        if p == lead:
            return self._group_restart(ctx, p, None, stab, p)
        # a member restores its committed checkpoint and asks the leader to restart the group
        saved = dict(stab.ckpts)[stab.line]
        vol = self._after_crash(ctx, p, self._fresh(ctx, saved, AWAIT, stab.epoch), stab, saved)
        return Step(vol, stab, (Restore(stab.line), Send(Packet(p, lead, "failed", (stab.epoch,)))))

    def _after_crash(self, ctx: Context, p: int, vol: Vol, stab: Stab, saved: Saved) -> Vol:
        """Reading 16 (Guermouche & Ropars 2011 §2.1, §3.2, Fig. 5 lines 4, 37): a crash
        loses which groups restart but not their epochs (reading 7), so p awaits the end
        of each it knows to have restarted, with the buffer its image saved, until told
        again: whatever it assumes, a group's restart ends or is told again."""
        if not self.resend_lost:
            return vol
        dsts = frozenset(q for q in range(ctx.n) if not ctx.internal(p, q) and stab.known[ctx.group_of[q]])
        dsts |= {x[0] for x in saved.PasEnvoyes}
        return replace(vol, PasEnvoyes=saved.PasEnvoyes, waiting=dsts,
                       Redemarrage=frozenset(ctx.group_of[q] for q in dsts))

    def _group_restart(self, ctx: Context, p: int, vol: Vol | None, stab: Stab, failed: int) -> Step:
        """At the leader: a new epoch; every P of the group (line 46) rolls back to
        the committed line, and the leader starts the restart process (§3.2)."""
        e = max(stab.epoch, vol.epoch if vol else 0) + 1
        members = ctx.group(p) if self.group_rollback else (failed,)  # mutant: the failed one alone
        if p in members:
            vol, stab, out = self._rollback(ctx, p, vol, replace(stab, epoch=e), e, stab.line, members)
        else:
            out = ()
        rp = RestartProcess(e, members=members, expected=len(members) * (ctx.n - len(ctx.group(p))))
        out += tuple(Send(Packet(p, q, "rollback", (e, stab.line, members))) for q in members if q != p)
        if rp.expected:
            return Step(replace(vol, rp=rp), stab, out)
        vol, stab, more = self._notification_phases(ctx, p, vol, stab, rp)  # no other group to hear from
        return Step(vol, stab, out + more)

    def _rollback(self, ctx: Context, p: int, vol: Vol | None, stab: Stab, e: int, line: int,
                  members: tuple) -> Step:
        """Lines 45–49 at one member: restore, Status ← Redemarrage, tell the other groups."""
        saved = dict(stab.ckpts)[line]
        vol2 = self._fresh(ctx, saved, RESTART, e, gc=line > 0)
        if vol is None:
            vol2 = self._after_crash(ctx, p, vol2, stab, saved)
        else:  # what p knows of other groups' restarts is not rolled back
            vol2 = replace(vol2, Redemarrage=vol.Redemarrage, waiting=vol.waiting, rp=vol.rp)
            if self.resend_lost and vol.Status == AWAIT:
                # reading 23: restored from another image since its crash, p knows nothing of what
                # it sent since this one: the image's whole buffer, flushed when its group ends
                dsts = frozenset(x[0] for x in saved.PasEnvoyes)
                vol2 = replace(vol2, PasEnvoyes=saved.PasEnvoyes, waiting=vol.waiting | dsts,
                               Redemarrage=vol.Redemarrage | frozenset(ctx.group_of[q] for q in dsts))
            elif self.resend_lost:  # reading 16: the image's buffer, less what was sent since
                vol2 = replace(vol2, PasEnvoyes=tuple(x for x in saved.PasEnvoyes if x in vol.PasEnvoyes))
        stab = replace(stab, line=line, epoch=e)
        out: list = [Restore(line)]
        for q in range(ctx.n):
            if not ctx.internal(p, q):
                # reading 3: the restored Date, and what p had received from q at the line
                out.append(Send(Packet(p, q, "restart", (e, vol2.Date, vol2.RPP[q][0], members))))
        return Step(vol2, stab, tuple(out))

    # -- at the other groups: lines 51–58 and 60–64 ------------------------------------
    def _on_restart_msg(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        e, date_re, maxdate, members = pkt.hdr[:4]
        k = pkt.src
        g = ctx.group_of[k]
        if e < stab.known[g]:
            return Step(vol, stab, (Note("stale_dropped"),))
        out: list = []
        again = len(pkt.hdr) > 4  # reading 13: told again
        if self.resend_lost:  # reading 18: the Date p_k restored (or re-executed since, reading 17)
            # reading 22: learnt from p_k's own restart message, for that restart
            was_e, was = stab.since[k]
            stab = replace(stab, since=_set(stab.since, k, (e, date_re if e > was_e else max(date_re, was))))
        if e > stab.known[g]:  # a new restart of group g: line 52
            stab = replace(stab, known=_set(stab.known, g, e))
            vol = replace(vol, Redemarrage=vol.Redemarrage | {g}, waiting=vol.waiting | frozenset(members))
        elif self.concurrent_restarts:
            # reading 13: p_k's restart is not over (its FinRedemarrage follows on this
            # channel); p may have lost line 52 with its own rollback
            vol = replace(vol, Redemarrage=vol.Redemarrage | {g}, waiting=vol.waiting | {k})
        if self.concurrent_restarts and vol.Status == RESTART and not again:
            # reading 13: Guermouche & Ropars 2011 §2.1, §3.2 (several groups restart at once):
            # p_k rolled back and lost what it knew and said of p's restart, so p tells it again
            # (marked as told again, so that p_k does not answer with its own)
            saved = dict(stab.ckpts)[stab.line]
            # reading 17: with the date the re-execution has reached, not the restored one
            date = vol.Date if self.resend_lost else saved.Date
            # line 52 adds the teller's whole group to Redemarrage: the told-again message names
            # the members of p's restart, as the first one did (reading 20; the model's first
            # reading, the teller alone, is the mutant told-again-names-only-the-teller)
            members = ctx.group(p) if self.group_rollback and self.told_again_names_group else (p,)
            out.append(Send(Packet(p, k, "restart", (vol.epoch, date, saved.RPP[k][0], members, True))))
        elif self.resend_lost and vol.Status == RUN and vol.epoch and not again:
            # reading 16: p's restart is over; p_k's rollback may have lost its FinRedemarrage
            out.append(Send(Packet(p, k, "end", (vol.epoch,))))
        if self.resend_lost:  # reading 17: what k's restored state holds of p's messages
            vol = replace(vol, holds=frozenset(x for x in vol.holds if x[0] != k) | {(k, maxdate)})
        if self.resend_lost and vol.Status == AWAIT:
            # reading 24: restored but not yet told its line (reading 8), p has no state to answer
            # from (line 47); its rollback's restart message brings the question again (reading 13)
            return Step(vol, stab)
        rp = self.leader(ctx, k)
        if again:
            # reading 13: a restart told again: what p buffered for k
            # since is flushed at k's FinRedemarrage (lines 60-63), the rest re-sent
            held = vol.PasEnvoyes
        else:
            # lines 53–54; what p buffered for k is logged too, so it goes with them; reading 21:
            # what is dated no later than Maxdate does not (line 53), and is flushed at lines 60–63
            held = ()
            vol = replace(vol, PasEnvoyes=tuple(x for x in vol.PasEnvoyes if x[0] != k or
                                                (self.resend_lost and x[1] <= maxdate)))
        mine = (vol.epoch,) if self.concurrent_restarts else ()  # reading 15: the logging incarnation
        logs = [Send(Packet(p, rp, "rp_log", (e, date, phase) + mine, m))
                for dst, date, phase, m in vol.Enregistres if dst == k and date > maxdate
                and (dst, date, phase, m) not in held]
        # lines 55–57: the phases of the orphans p holds from k (reading 4: with multiplicity)
        if self.concurrent_restarts:  # readings 14–15: by date, sent before restart e, p's own epoch
            dated = tuple(x[:2] for x in vol.RPP[k][1] if x[0] > date_re and x[2] < e)
            phases = tuple(ph for _, ph in dated)
            report = (e, k, dated, vol.epoch)
        else:
            phases = tuple(ph for d, ph in vol.RPP[k][1] if d > date_re)
            report = (e, k, phases)
        out += logs + [Send(Packet(p, rp, "rp_orphans", report))]              # line 58
        notes = ((Note("logged_messages_resent"),) if logs else ()) + \
            ((Note("orphan_phases_reported"),) if phases else ())
        if self.resend_lost and vol.rp is not None and len(vol.rp.notified) >= vol.rp.expected:
            # reading 22: p's restart process may now decide on what p_k logged before its restart
            vol, stab, more = self._notification_phases(ctx, p, vol, stab, vol.rp)
            out += list(more)
        return Step(vol, stab, tuple(out) + notes)

    def _on_end(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        (e,) = pkt.hdr
        k = pkt.src
        if ctx.internal(p, k):  # from the restart process: p's restart is over (reading 6)
            if e != vol.epoch or vol.Status != RESTART:
                return Step(vol, stab, (Note("stale_dropped"),))
            vol = replace(vol, Status=RUN)
            out = tuple(Send(Packet(p, q, "end", (e,))) for q in range(ctx.n) if not ctx.internal(p, q))
            return Step(vol, stab, out + (Note("restarts_ended"),))
        g = ctx.group_of[k]
        if e != stab.known[g] or k not in vol.waiting:
            return Step(vol, stab, (Note("stale_dropped"),))
        # lines 60–63 for member k; reading 7: each buffered message with its own date and phase
        out = tuple(Send(self._app(ctx, p, vol, stab, d, date, phase, m))
                    for d, date, phase, m in vol.PasEnvoyes if d == k)
        if self.flush_empties_buffer:
            vol = replace(vol, PasEnvoyes=tuple(x for x in vol.PasEnvoyes if x[0] != k))
        vol = replace(vol, waiting=vol.waiting - {k}, holds=frozenset(x for x in vol.holds if x[0] != k))
        if not any(ctx.group_of[x] == g for x in vol.waiting):                   # line 64
            vol = replace(vol, Redemarrage=vol.Redemarrage - {g})
        return Step(vol, stab, out + ((Note("buffered_messages_flushed"),) if out else ()))

    # -- the restart process: Fig. 6 ------------------------------------------------
    def _restart_process(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        rp = vol.rp
        if rp is None or pkt.hdr[0] != rp.epoch:
            return Step(vol, stab, (Note("stale_dropped"),))
        if pkt.kind == "rp_log":                                                 # lines 5–6
            _, date, phase, *mine = pkt.hdr
            entry = (phase, pkt.msg.dst, date, pkt.src, pkt.msg, *mine)
            if mine and (self._discarded(ctx, stab, pkt.src, date, mine[0]) or entry in rp.Enregistres):
                return Step(vol, stab, (Note("stale_dropped"),))  # reading 15, or taken already
            return Step(replace(vol, rp=replace(rp, Enregistres=rp.Enregistres + (entry,))), stab)
        if self.concurrent_restarts:
            rp = self._count_orphans(pkt, rp)
            if rp is None:
                return Step(vol, stab, (Note("stale_dropped"),))
            if len(rp.notified) < rp.expected:  # reading 5
                return Step(replace(vol, rp=rp), stab)
            return self._notification_phases(ctx, p, vol, stab, rp)
        counts = dict(rp.NbOrphPhase)
        if pkt.kind == "rp_orphans":                                             # lines 8–12
            _, k, phases = pkt.hdr
            for ph in phases:
                counts[ph] = counts.get(ph, 0) + 1
            rp = replace(rp, notified=rp.notified | {(pkt.src, k)})
        else:                                                                    # lines 14–17
            _, ph = pkt.hdr
            counts[ph] = counts.get(ph, 0) - 1
            assert counts[ph] >= 0, "an orphan reported twice"
        rp = replace(rp, NbOrphPhase=tuple(sorted(counts.items())))
        if len(rp.notified) < rp.expected:  # reading 5
            return Step(replace(vol, rp=rp), stab)
        return self._notification_phases(ctx, p, vol, stab, rp)

    def _count_orphans(self, pkt: Packet, rp: RestartProcess) -> RestartProcess | None:
        """Fig. 6 lines 8–10 and 14–15 per (reporter, restarting process) pair
        (reading 14); None for a repeated report."""
        j = pkt.src
        if pkt.kind == "rp_no_orphan":                                           # lines 14–15
            _, k, date = pkt.hdr
            return replace(rp, orphans=frozenset(o for o in rp.orphans if o[:3] != (j, k, date)))
        _, k, dated, epoch = pkt.hdr                                              # lines 8–10
        before = frozenset(x for x in rp.notified if x[:2] == (j, k))
        if any(x[2] >= epoch for x in before):
            return None  # the same answer again: counted once
        orphans = frozenset(o for o in rp.orphans if o[:2] != (j, k)) | {(j, k, d, ph) for d, ph in dated}
        return replace(rp, orphans=orphans, notified=rp.notified - before | {(j, k, epoch)})

    def _discarded(self, ctx: Context, stab: Stab, k: int, date: int, epoch: int) -> bool:
        """Reading 15: logged by an incarnation of k's group that a later restart
        discarded; reading 18: unless the restored state of that restart has sent it
        (reading 22: until p_k's own restart message tells that Date, it is not known
        to have)."""
        known = stab.known[ctx.group_of[k]]
        if not self.resend_lost:
            return epoch < known
        return epoch < known and stab.since[k][0] == known and date > stab.since[k][1]

    def _undecided(self, ctx: Context, stab: Stab, k: int, epoch: int) -> bool:
        """Reading 22: logged by an incarnation of k's group that a later restart replaced,
        whose restored Date p_k's restart message, still on its way, will tell."""
        known = stab.known[ctx.group_of[k]]
        return self.resend_lost and epoch < known and stab.since[k][0] < known

    @staticmethod
    def _releasable(phase: int, low: int | None) -> bool:
        """Fig. 6 line 20: a logged message of this phase goes once no lower phase waits for an orphan."""
        return low is None or phase <= low

    def _notification_phases(self, ctx: Context, p: int, vol: Vol, stab: Stab, rp: RestartProcess) -> Step:
        """Fig. 6 lines 19–24."""
        if self.concurrent_restarts:  # reading 14: NbOrphPhase[phase] > 0
            waiting = sorted({o[3] for o in rp.orphans})
            # reading 15: logged by an incarnation its group's restart discarded since
            # (reading 22: kept, neither replayed nor dropped, until that is known)
            undecided = frozenset(x for x in rp.Enregistres if self._undecided(ctx, stab, x[3], x[5]))
            rp = replace(rp, Enregistres=tuple(x for x in rp.Enregistres
                                               if not self._discarded(ctx, stab, x[3], x[2], x[5])))
        else:
            waiting, undecided = [ph for ph, c in rp.NbOrphPhase if c > 0], frozenset()
        low = min(waiting) if waiting else None
        go = tuple(x for x in sorted(rp.Enregistres, key=lambda x: x[:4])
                   if self._releasable(x[0], low) and x not in undecided)
        out = [Send(Packet(p, dst, "replay", (rp.epoch, date, phase, sender, *mine), m))
               for phase, dst, date, sender, m, *mine in go]
        held = len(rp.Enregistres) - len(go)
        rp = replace(rp, Enregistres=tuple(x for x in rp.Enregistres if x not in go))
        notes: tuple = (Note("replays_held_for_orphans"),) if held else ()
        if not waiting and not undecided:                                        # lines 23–24
            out += [Send(Packet(p, q, "end", (rp.epoch,))) for q in rp.members]
            return Step(replace(vol, rp=None), stab, tuple(out) + notes)
        return Step(replace(vol, rp=rp), stab, tuple(out) + notes)
