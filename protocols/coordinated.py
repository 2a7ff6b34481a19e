"""Coordinated checkpointing baselines (Bouteiller et al. 2013 §2.2, "Coordinated checkpoint").

Both form a global recovery line with waves of tokens initiated by process 0,
and on any failure every process rolls back to the last committed line:

- ``BlockingCoordinated`` silences the network (Bouteiller et al. 2013 refs [7, 8]): on the
  request, a process stops sending, sends a marker on every channel and takes
  its checkpoint once a marker came in on every channel (FIFO: everything sent
  before has arrived, so no message is in-transit or orphan); the initiator
  commits when all have checkpointed and the commit resumes the application.
- ``ChandyLamport`` (Bouteiller et al. 2013 ref [6]; the C3 slides, background) never blocks: a
  process checkpoints at the first marker, relays markers, and records as
  channel state the messages that arrive on a channel after its checkpoint and
  before that channel's marker — the in-transit messages, "integrated inside
  the receiver's checkpoint" (Bouteiller et al. 2013 §3.2.1).

Recovery: the replacement restores the committed line and sends ``rollback``
to all. An epoch names the restarts a line recovers from — one count per
process, raised at its restart — so that a process rolls back once per
restart, whatever order the rollbacks of one failure arrive in: a packet
whose epoch names no restart p has not recovered from is dropped; one that
names more makes p roll back first; one that names other restarts than p
knows (two restarts of one node crash) makes p roll back to the join of both
and tell everyone. The first reading took epochs (count, restarter), totally
ordered, and took an older rollback for a new failure: with two victims,
survivors started epochs in turn, a storm without end (docs/findings.md §4;
knob ``stale_rollback_is_a_failure``).
"""
from __future__ import annotations

from typing import Any

from rrcheck.protocols.base import (AppMsg, Checkpoint, Context, Deliver, Mail, Note, Packet,
                            Protocol, Restore, Send, Step, replace, value)
from rrcheck.protocols.restarts import covers, heard, join, none, restarted

COORDINATOR = 0


@value
class Vol:
    epoch: tuple = ()                  # per process, its restarts this line recovers from
    wave: int = 0                      # wave in progress
    taken: bool = False                # checkpoint of this wave taken
    markers: frozenset = frozenset()   # sources whose marker of this wave arrived
    recorded: tuple = ()               # Chandy–Lamport: in-transit messages recorded
    acks: frozenset = frozenset()      # coordinator: processes done with this wave


@value
class Stab:
    epoch: tuple = ()
    line: int = 0                      # last committed wave: the recovery line
    waves: int = 0                     # coordinator: waves issued
    channels: tuple = ()               # Chandy–Lamport: (wave, recorded messages)


class GlobalCheckpoint(Protocol):
    scope = "all"
    RECOVERY_KINDS = frozenset({"rollback"})
    RECOVERY_BOUND = ("each rollback takes in a restart the line had not recovered from (Bouteiller et al. "
                      "2013 §2.2: on a failure, every process rolls back to the last committed line)")
    # next_wave_commits: a marker of the next wave implies this wave's commit;
    # stale_rollback_is_a_failure: the first reading, an older rollback starts a new epoch
    KNOBS = {"next_wave_commits": True, "stale_rollback_is_a_failure": False}

    def initial(self, ctx: Context, p: int) -> tuple[Vol, Stab]:
        return Vol(epoch=none(ctx.n)), Stab(epoch=none(ctx.n))

    def restarts_heard(self, ctx: Context, p: int, stab: Stab) -> int:
        return heard(stab.epoch)

    def coordinated_with(self, ctx: Context, p: int) -> tuple[int, ...]:
        return tuple(range(ctx.n))

    def on_send(self, ctx: Context, p: int, vol: Vol, stab: Stab, msg: AppMsg) -> Step:
        return Step(vol, stab, (Send(Packet(p, msg.dst, "app", (vol.epoch, stab.line, 0), msg)),))

    def internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, may_checkpoint: bool) -> tuple:
        return ("checkpoint",) if p == COORDINATOR and may_checkpoint and not vol.wave else ()

    def on_internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, label: Any) -> Step:
        w = stab.waves + 1
        return self._join(ctx, p, vol, replace(stab, waves=w), w)

    def on_packet(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        epoch, line, _ = pkt.hdr
        rollback = pkt.kind == "rollback"
        effects: tuple = ()
        if epoch != vol.epoch:
            if covers(vol.epoch, epoch):  # p has recovered from every restart it names
                if rollback and self.stale_rollback_is_a_failure:
                    return self._rollback(ctx, p, stab, restarted(vol.epoch, p), min(line, stab.line), notify=True)
                return Step(vol, stab, (Note("stale_dropped"),))
            if not covers(epoch, vol.epoch):
                # each side knows a restart the other does not (two victims of one failure):
                # both lines give way to the join, on the lower line, and everyone is told;
                # the packet's sender will roll back to it too, so its packet is dropped
                vol, stab, effects = self._rollback(ctx, p, stab, join(vol.epoch, epoch),
                                                    min(line, stab.line), notify=True)
                return Step(vol, stab, effects + (() if rollback else (Note("stale_dropped"),)))
            # the sender rolled back to `line` for restarts p has not heard of
            vol, stab, effects = self._rollback(ctx, p, stab, epoch, line, notify=False)
            if rollback:
                return Step(vol, stab, effects)
        elif rollback:
            return Step(vol, stab)
        vol, stab, more = self.on_wave(ctx, p, vol, stab, pkt)
        return Step(vol, stab, effects + more)

    def on_wave(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        kind, w = pkt.kind, pkt.hdr[2]
        if kind == "app":
            return self.on_app(ctx, p, vol, stab, pkt)
        if kind == "commit":
            if w <= stab.line:  # a marker of the next wave brought it first
                return Step(vol, stab, (Note("stale_dropped"),))
            return self._commit(vol, stab, w)
        if kind == "done":  # at the coordinator
            vol = replace(vol, acks=vol.acks | {pkt.src})
            return self._maybe_commit(ctx, p, vol, stab)
        if kind == "marker":
            if w <= stab.line or (vol.wave and w != vol.wave and (w < vol.wave or not self.next_wave_commits)):
                return Step(vol, stab, (Note("stale_dropped"),))
            effects: tuple = ()
            if vol.wave and w > vol.wave:
                # the next wave's marker overtook the commit of this one (three processes
                # or more): its sender joined only after that commit, so p commits too
                vol, stab, effects = self._commit(vol, stab, vol.wave)
                effects += (Note("commit_implied_by_next_wave"),)
            if not vol.wave:
                vol, stab, joined = self._join(ctx, p, vol, stab, w)
                effects += joined
            vol, stab, more = self.on_marker(ctx, p, replace(vol, markers=vol.markers | {pkt.src}), stab)
            return Step(vol, stab, effects + more)
        raise ValueError(f"{self.name}: unexpected packet {kind!r}")

    def _commit(self, vol: Vol, stab: Stab, w: int) -> Step:
        """Wave w is the recovery line; the application resumes."""
        return Step(replace(vol, wave=0, taken=False, markers=frozenset(), recorded=()), replace(stab, line=w))

    def _finish(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        """This process is done with the wave: tell the coordinator."""
        if p == COORDINATOR:
            return self._maybe_commit(ctx, p, replace(vol, acks=vol.acks | {p}), stab)
        return Step(vol, stab, (Send(Packet(p, COORDINATOR, "done", (vol.epoch, stab.line, vol.wave))),))

    def _maybe_commit(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        if len(vol.acks) < ctx.n:
            return Step(vol, stab)
        w = vol.wave
        out = tuple(Send(Packet(p, q, "commit", (vol.epoch, stab.line, w))) for q in ctx.others(p))
        return Step(Vol(epoch=vol.epoch), replace(stab, line=w), out)

    def on_restart(self, ctx: Context, p: int, stab: Stab) -> Step:
        return self._rollback(ctx, p, stab, restarted(stab.epoch, p), stab.line, notify=True)

    def _rollback(self, ctx: Context, p: int, stab: Stab, epoch: tuple, line: int, notify: bool) -> Step:
        stab = replace(stab, epoch=epoch, line=line)
        out: tuple = (Restore(line),)
        out += tuple(x for m in self.recorded_channels(ctx, p, stab, line)
                     for x in (Deliver(Mail(m)), Note("in_transit_restored")))
        if notify:
            out += tuple(Send(Packet(p, q, "rollback", (epoch, line, 0))) for q in ctx.others(p))
        return Step(Vol(epoch=epoch), stab, out)

    # hooks
    def _join(self, ctx: Context, p: int, vol: Vol, stab: Stab, w: int) -> Step:
        raise NotImplementedError

    def on_marker(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        raise NotImplementedError

    def on_app(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        return Step(vol, stab, (Deliver(Mail(pkt.msg)),))


class BlockingCoordinated(GlobalCheckpoint):
    name = "coordinated"
    source = "Bouteiller et al. 2013 §2.2 (blocking coordinated checkpointing, refs [7, 8])"

    def may_send(self, ctx: Context, p: int, vol: Vol, dst: int) -> bool:
        return not vol.wave  # silenced from the request to the commit

    def _join(self, ctx: Context, p: int, vol: Vol, stab: Stab, w: int) -> Step:
        vol = replace(vol, wave=w)
        out = tuple(Send(Packet(p, q, "marker", (vol.epoch, stab.line, w))) for q in ctx.others(p))
        vol, stab, more = self.on_marker(ctx, p, vol, stab)
        return Step(vol, stab, out + more)

    def on_marker(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        if vol.taken or len(vol.markers) < ctx.n - 1:
            return Step(vol, stab)
        # a marker on every incoming channel: the network is silent towards p
        vol = replace(vol, taken=True)
        vol, stab, out = self._finish(ctx, p, vol, stab)
        return Step(vol, stab, (Checkpoint(vol.wave),) + out)


class ChandyLamport(GlobalCheckpoint):
    name = "chandy-lamport"
    source = "Chandy & Lamport 1985 (Bouteiller et al. 2013 ref [6]; Bronevetsky et al., C3 slides, background)"
    KNOBS = {**GlobalCheckpoint.KNOBS, "record_channels": True}

    def _join(self, ctx: Context, p: int, vol: Vol, stab: Stab, w: int) -> Step:
        vol = replace(vol, wave=w, taken=True)
        out = (Checkpoint(w),) + tuple(Send(Packet(p, q, "marker", (vol.epoch, stab.line, w)))
                                       for q in ctx.others(p))
        vol, stab, more = self.on_marker(ctx, p, vol, stab)
        return Step(vol, stab, out + more)

    def on_app(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        if vol.wave and pkt.src not in vol.markers and self.record_channels:
            vol = replace(vol, recorded=vol.recorded + (pkt.msg,))  # in-transit at the line
            return Step(vol, stab, (Deliver(Mail(pkt.msg)), Note("in_transit_recorded")))
        return Step(vol, stab, (Deliver(Mail(pkt.msg)),))

    def on_marker(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        if len(vol.markers) < ctx.n - 1:
            return Step(vol, stab)
        stab = replace(stab, channels=stab.channels + ((vol.wave, vol.recorded),))
        return self._finish(ctx, p, vol, stab)

    def recorded_channels(self, ctx: Context, p: int, stab: Stab, cid: int):
        for w, msgs in stab.channels:
            if w == cid:
                return msgs
        return ()
