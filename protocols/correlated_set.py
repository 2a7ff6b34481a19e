"""Correlated-set coordinated message logging (Bouteiller et al. 2013 §3.2–3.3).

Processes that fail together (a correlated set, by default the processes of
one node, §3.3.1) take coordinated checkpoints and roll back together; between
sets, pessimistic message logging goes on (protocols/logging.py):

- **Payload copy only for outgoing messages** (§3.2.1, Theorem 1): an internal
  message is never in-transit, so it is not copied (§3.3.2).
- **Event logging of every reception, internal ones included** (§3.2.2,
  Theorem 2).
- **Checkpoint coordination inside the set** (§3.3.3): *eager silence* — the
  initiator sends a token to every correlated endpoint and stalls internal
  sends; a process receiving a token enters the synchronisation; the phase ends
  when a token came from every peer; since eager fragments are FIFO, every
  internal message sent before has arrived (*rendezvous silence*: in this model
  a message arrives whole, so draining is complete once the tokens are in);
  then a first barrier, the checkpoint, and a second barrier after which
  internal sends resume. Tokens, barrier and checkpoint packets carry the wave,
  the sender's epoch and its line, like application messages.
- **Recovery** (§3.2): a failure of any member, or of its node, rolls the whole
  set back to its last checkpoint; the replacement tells its peers, each member
  replays its logged receptions and asks the other sets for the messages it
  received since the checkpoint. A member that hears of the rollback from a
  packet of the new epoch — an application message or a token of the set's next
  wave that overtook the notice — rolls back as the notice would have it do.
  An epoch names the restarts the set's line recovers from (protocols/restarts.py),
  so a node crash that restarts every member rolls each back once per victim,
  whatever order the notices arrive in. The first reading took epochs (count,
  restarter) and an older notice for a new failure: on a set of three the epochs
  grew without end (docs/findings.md §4; knob ``stale_rollback_is_a_failure``).
"""
from __future__ import annotations


from rrcheck.protocols.base import Checkpoint, Context, Note, Packet, Send, Step, replace
from rrcheck.protocols.logging import MessageLogging, Saved, Stab, Vol
from rrcheck.protocols.restarts import covers, heard


class CorrelatedSet(MessageLogging):
    name = "correlated-set"
    scope = "group"
    RECOVERY_BOUND = ("a failure rolls its correlated set back once: each rollback of a member takes in a "
                      "restart its line had not recovered from (Bouteiller et al. 2013 §3.2)")
    source = "Bouteiller et al. 2013 §3.2–3.3"
    # newer_epoch_rolls_back: a control packet of a newer epoch implies its set's rollback
    # silence: eager silence and the first barrier before the checkpoint (§3.3.3); commit_after_the_set:
    # the line moves at the second barrier, once every member has checkpointed
    KNOBS = {**MessageLogging.KNOBS, "silence": True, "commit_after_the_set": True, "newer_epoch_rolls_back": True}

    def set_of(self, ctx: Context, p: int) -> tuple[int, ...]:
        return ctx.group(p)

    def restarts_heard(self, ctx: Context, p: int, stab: Stab) -> int:
        return heard(stab.epoch)

    def _leader(self, ctx: Context, p: int) -> bool:
        return p == min(self.set_of(ctx, p))

    def _may_start_checkpoint(self, ctx: Context, p: int, vol: Vol) -> bool:
        return self._leader(ctx, p) and super()._may_start_checkpoint(ctx, p, vol)

    def may_send(self, ctx: Context, p: int, vol: Vol, dst: int) -> bool:
        # §3.3.3 eager silence: a send to a correlated endpoint stalls until the end
        if vol.stage != "run" and ctx.internal(p, dst):
            return False
        return super().may_send(ctx, p, vol, dst)

    # -- §3.3.3: the three phases ----------------------------------------------
    def start_checkpoint(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        w = stab.waves + 1
        stab = replace(stab, waves=w)
        if not self.silence:  # mutant: checkpoint at once, peers when told
            out = tuple(Send(Packet(p, q, "ckpt", (w, vol.epoch, stab.line))) for q in ctx.peers(p))
            return self._checkpoint_now(ctx, p, vol, stab, w, out)
        return self._enter(ctx, p, vol, stab, w)

    def _checkpoint_now(self, ctx: Context, p: int, vol: Vol, stab: Stab, w: int, out: tuple) -> Step:
        """Mutant ``no-internal-silence``: the checkpoint with neither the silence
        nor the first barrier, so an internal message sent before a peer's
        checkpoint may arrive after this one; the second barrier is kept."""
        return self._advance(ctx, p, replace(vol, wave=w, stage="barrier1", b1=frozenset(ctx.peers(p))), stab, out)

    def _enter(self, ctx: Context, p: int, vol: Vol, stab: Stab, w: int) -> Step:
        """Eager silence: send a token to every correlated endpoint."""
        vol = replace(vol, wave=w, stage="silence")
        out = tuple(Send(Packet(p, q, "token", (w, vol.epoch, stab.line))) for q in ctx.peers(p))
        return self._advance(ctx, p, vol, stab, out)

    def on_control(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        w, epoch, line = pkt.hdr
        effects: tuple = ()
        if epoch != vol.epoch:
            if covers(vol.epoch, epoch) or not self.newer_epoch_rolls_back:  # a wave of an execution rolled back
                return Step(vol, stab, (Note("stale_dropped"),))
            # Bouteiller et al. 2013 §3.2: a failure rolls the whole set back. A packet of a
            # newer epoch says the sender's set rolled back before the notice reached p (a
            # token of the next wave overtook it): p rolls back as for an application message
            # in _receive; dropped, the wave waits for p forever
            vol, stab, effects = self._catch_up(ctx, p, vol, stab, epoch, line)
            if not covers(epoch, vol.epoch):  # p took the join: the sender will too, and start again
                return Step(vol, stab, effects + (Note("stale_dropped"),))
        if not self.silence and vol.stage == "run" and pkt.kind in ("ckpt", "b2") and w > stab.line:
            # mutant: a member told of the wave (or a peer's second barrier overtaking the telling) checkpoints
            vol, stab, more = self._checkpoint_now(ctx, p, vol, stab, w, ())
            effects += more
        if pkt.kind == "ckpt":
            return Step(vol, stab, effects)
        if vol.stage == "run":
            if pkt.kind != "token" or w <= stab.line:
                return Step(vol, stab, effects + (Note("stale_dropped"),))
            vol, stab, entered = self._enter(ctx, p, vol, stab, w)
            effects += entered
        field = {"token": "tokens", "b1": "b1", "b2": "b2"}[pkt.kind]
        vol = replace(vol, **{field: getattr(vol, field) | {pkt.src}})
        vol, stab, more = self._advance(ctx, p, vol, stab, ())
        return Step(vol, stab, effects + more)

    def _advance(self, ctx: Context, p: int, vol: Vol, stab: Stab, out: tuple) -> Step:
        peers = frozenset(ctx.peers(p))
        w = vol.wave
        if vol.stage == "silence" and vol.tokens >= peers:
            # tokens from every peer: all internal messages sent before are here
            vol = replace(vol, stage="barrier1")
            out += tuple(Send(Packet(p, q, "b1", (w, vol.epoch, stab.line))) for q in peers)
        if vol.stage == "barrier1" and vol.b1 >= peers:
            vol = replace(vol, stage="barrier2")
            saved = Saved(vol.ssn, vol.log, vol.rcv, vol.rsn)
            b2 = tuple(Send(Packet(p, q, "b2", (w, vol.epoch, stab.line))) for q in peers)
            stab = replace(stab, ckpts=stab.ckpts + ((w, saved),))
            if not self.commit_after_the_set:  # mutant: the line moves before the other members checkpoint
                stab = replace(stab, line=w)
            out += (Checkpoint(w),) + b2
        if vol.stage == "barrier2" and vol.b2 >= peers:
            vol = replace(vol, stage="run", wave=0, tokens=frozenset(), b1=frozenset(), b2=frozenset())
            stab = replace(stab, line=w)
        return Step(vol, stab, out)
