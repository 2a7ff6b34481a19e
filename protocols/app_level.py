"""Application-level checkpointing with epochs: the C3 protocol (the C3 slides,
Pingali, slides "The Protocol" to "Summary of collectives").

Checkpoints are taken only at ``checkpoint_site`` operations ("App-level
difficulties"). One line ``k`` of checkpoints splits the run into epochs
("The Global View"):

- **Coordination** ("High-level view (I)–(IV)"): the initiator (P0) takes
  checkpoint k at a site and sends everyone ``chkpt_ok``; a process receiving
  it checkpoints at its next site. After its checkpoint a process keeps a
  **log** (the *logging phase*); once it has received all its late messages it
  sends the initiator ``ready`` (Ready_to_stop_logging); with every process
  ready, the initiator sends ``stop`` (Stop_logging) and each process stops
  logging and saves the log with its checkpoint.
- **Control information** ("Mechanism: Control Information"): every message
  carries a unique message ID, the sender's epoch and its logging bit; from
  them the receiver tells a *late* message (older epoch: its data is logged,
  "Handling Late Messages") from an *early* one (newer epoch: its ID is
  recorded, "Handling Early Messages") from an intra-epoch one.
- **The log** ("Mechanism: The Log"): late messages, and the outcome of every
  non-deterministic event — ``nondet`` choices, receptions (which message an
  ANY_SOURCE receive, or on unordered channels any receive, matched), and
  collectives.
- **Log-End line** ("Log-End Line"): ``ready`` only after all late messages
  arrived; a process stops logging at ``stop`` or as soon as it hears from a
  process that stopped (a message whose header shows an epoch past its own or
  a cleared logging bit).
- **Recovery** ("The Global View": a failure in epoch n rolls every process
  back to the prior recovery line; "Possible Types of Messages"): the
  replacement restores the last line whose log it saved and tells all to roll
  back to it; each process restores that checkpoint, re-receives its late
  messages from the log, replays its logged events, and tells every sender
  which early messages it already has, so their re-sends are suppressed.
  A replayed reception matches the message the log names by its message ID
  ("Mechanism: Control Information"): on unordered channels ("Additional
  Issues": MPI allows non-FIFO communication) a sender's re-sent messages, or
  its late messages from the log, may come in another order than the one the
  receptions were logged in, so one that comes ahead of its turn is held back
  until the replay reaches it.
- **Collectives** ("Single-Receiver Collectives" and "Summary of
  collectives"): a call is never split into messages; its piggybacked headers
  tell each process, per recovery line, whether the call's data crosses the
  line late (logged inside the log and replayed from it), early (its
  re-execution is suppressed), or not at all (re-executed with the others).

Modelling choices where the slides are silent (each marked ``# choice`` below):
how a receiver learns how many late messages to expect (each process sends
its per-destination send count at its checkpoint; the initiator's rides on
``chkpt_ok``), when a line is complete (once a process saved its log;
any live process can close its log at a rollback, since ``stop`` was only
sent after every late message had arrived), and what a checkpoint taken
between a recovery and the suppressed re-sends keeps (the suppressions the
process still owes: see ``_owed``).
"""
from __future__ import annotations

from typing import Any

from rrcheck.protocols.base import (AppMsg, Checkpoint, Context, Deliver, Mail, Note, Packet,
                            Protocol, Restore, Send, Step, replace, value, coll_sources)
from rrcheck.protocols.restarts import covers, heard, join, none, restarted

INITIATOR = 0
COLL_CLASS = {"reduce": "single_receiver", "bcast": "single_sender", "alltoall": "all_to_all",
              "barrier": "barrier"}


@value
class Log:
    """The log of one epoch ("Mechanism: The Log")."""
    late: tuple = ()    # late messages recorded at the receiver: (ID, AppMsg)
    events: tuple = ()  # non-deterministic events in order: ("recv", src, ID) | ("nondet", c)
                        # | ("coll", "local", inputs) | ("coll", "joint", ())


@value
class Saved:
    """The protocol part of checkpoint k."""
    sent: tuple[int, ...]         # next message ID per destination
    rcvd: tuple[frozenset, ...]   # message IDs received per source
    early: tuple[frozenset, ...]  # early messages received per source: their re-sends are suppressed
    suppress: tuple[frozenset, ...]  # per destination: re-sends still to suppress (see _owed)


@value
class Vol:
    sent: tuple[int, ...]
    rcvd: tuple[frozenset, ...]
    early: tuple[frozenset, ...]
    counts: tuple                 # per source: (epoch, messages it sent here before that checkpoint)
    suppress: tuple[frozenset, ...]  # per destination: IDs not to re-send (told at recovery)
    heard: frozenset              # processes whose suppression list arrived since the last rollback
    epoch: int = 0
    logging: bool = False
    log: Log = Log()
    ok: int = 0                   # Chkpt_Ok received for this epoch
    ready: bool = False           # Ready_to_stop_logging sent
    readies: frozenset = frozenset()  # initiator: processes ready to stop logging
    replay: tuple = ()            # logged events still to replay after a rollback
    rec: tuple = ()               # recovery incarnation: the restarts its line recovers from
    line: int = 0                 # the line of this incarnation
    held: tuple = ()              # Mail held back during the replay until the log reaches it


@value
class Stab:
    ckpts: tuple               # (k, Saved)
    logs: tuple                # (k, Log): saved logs
    line: int = 0              # last line whose log this process saved
    rec: tuple = ()


def stopped(epoch: int, logging: bool, k: int) -> bool:
    """Has a process whose header shows (epoch, logging) stopped logging epoch k?"""
    return epoch > k or (epoch == k and not logging)


def _add(t: tuple, i: int, x) -> tuple:
    return t[:i] + (t[i] | {x},) + t[i + 1:]


def _set(t: tuple, i: int, x) -> tuple:
    return t[:i] + (x,) + t[i + 1:]


def _get(pairs: tuple, k: int):
    for key, v in pairs:
        if key == k:
            return v
    return None


def _put(pairs: tuple, k: int, v) -> tuple:
    return tuple(x for x in pairs if x[0] != k) + ((k, v),)


class AppLevel(Protocol):
    name = "app-level"
    scope = "all"
    RECOVERY_BOUND = ("a failure rolls every process back once per victim: each rollback takes in a restart "
                      "its incarnation had not recovered from (the C3 slides, \"The Global View\")")
    source = ("Pingali, Application-Level Fault Tolerance for MPI Programs (slides on C3, Bronevetsky et al.): "
              "The Protocol, Log-End Line, Collective Communication")
    RECOVERY_KINDS = frozenset({"rollback", "suppress"})
    at_sites = True  # "Application-level checkpoints can only be taken at certain places"
    KNOBS = {"log_late": True, "suppress_early": True, "log_nondet": True,
             "ready_after_late": True, "stop_on_stopped_sender": True,
             "late_from_every_sender": True,  # ready waits for the late messages of all senders
             "replay_by_message_id": True,  # a replayed reception matches the logged message ID
             "checkpoint_suppressions": True,  # a checkpoint keeps the suppressions still owed
             # the first reading: a rollback naming only restarts p has recovered from is a new failure
             "stale_rollback_is_a_failure": False}

    def initial(self, ctx: Context, p: int) -> tuple[Vol, Stab]:
        z, e = (0,) * ctx.n, (frozenset(),) * ctx.n
        vol = Vol(z, e, e, (None,) * ctx.n, e, frozenset(ctx.others(p)), rec=none(ctx.n))
        return vol, Stab(ckpts=((0, Saved(z, e, e, e)),), logs=((0, Log()),), rec=none(ctx.n))

    def restarts_heard(self, ctx: Context, p: int, stab: Stab) -> int:
        return heard(stab.rec)

    def coordinated_with(self, ctx: Context, p: int) -> tuple[int, ...]:
        return tuple(range(ctx.n))

    def recovering(self, ctx: Context, p: int, vol: Vol) -> bool:
        return len(vol.heard) < ctx.n - 1

    def holdings(self, ctx: Context, p: int, vol: Vol, stab: Stab):
        return (mail.msg for mail in vol.held)

    def recorded_channels(self, ctx: Context, p: int, stab: Stab, cid: int):
        log = _get(stab.logs, cid)
        return tuple(m for _, m in log.late) if log else ()

    def _hdr(self, vol: Vol) -> tuple:
        return (vol.rec, vol.line)

    # -- checkpoints: "High-level view of our protocol (I)" --------------------
    def internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, may_checkpoint: bool) -> tuple:
        if (p == INITIATOR and may_checkpoint and not vol.logging and not vol.replay
                and not self.recovering(ctx, p, vol)):
            return ("checkpoint",)
        return ()

    def on_internal(self, ctx: Context, p: int, vol: Vol, stab: Stab, label: Any) -> Step:
        """The initiator takes checkpoint k and sends everyone Chkpt_Ok."""
        k = vol.epoch + 1
        ok = tuple(Send(Packet(p, q, "chkpt_ok", self._hdr(vol) + (k, vol.sent[q]))) for q in ctx.others(p))
        vol, stab, out = self._checkpoint(ctx, p, vol, stab, k)
        return Step(vol, stab, ok + out)

    def on_site(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        """A process that got Chkpt_Ok checkpoints at its next available spot."""
        if p != INITIATOR and vol.ok == vol.epoch + 1:
            if vol.replay:
                # choice: a spot inside the log being replayed is not available
                # yet, or the replayed events would be missing from the new log
                return Step(vol, stab, (Note("checkpoints_deferred_past_replay"),))
            return self._checkpoint(ctx, p, vol, stab, vol.ok)
        return Step(vol, stab)

    def _checkpoint(self, ctx: Context, p: int, vol: Vol, stab: Stab, k: int) -> Step:
        """Checkpoint k, then the logging phase ("High-level view (II)")."""
        saved = Saved(vol.sent, vol.rcvd, vol.early, self._owed(ctx, vol))
        stab = replace(stab, ckpts=_put(stab.ckpts, k, saved))
        e = (frozenset(),) * ctx.n
        vol = replace(vol, epoch=k, logging=True, log=Log(), early=e, ready=False, readies=frozenset())
        out: tuple = (Checkpoint(k),)
        if p != INITIATOR:  # choice: tell each receiver how many messages precede this checkpoint
            out += tuple(Send(Packet(p, q, "count", self._hdr(vol) + (k, vol.sent[q]))) for q in ctx.others(p))
        vol, stab, more = self._maybe_ready(ctx, p, vol, stab)
        return Step(vol, stab, out + more)

    def _owed(self, ctx: Context, vol: Vol) -> tuple[frozenset, ...]:
        """The suppressions a checkpoint keeps: per destination, the IDs of
        early messages the process was told not to re-send and has not re-sent
        yet (IDs its ``sent`` counter has not reached); a rollback to the
        checkpoint suppresses them along with the receivers' new lists.

        Bronevetsky et al., C3 (the C3 slides, "Handling Early Messages": "The
        receiver records that this message must be suppressed and informs the
        sender on recovery"; "The Global View"). Right because an owed re-send
        lies after the new checkpoint while its message was received before the
        receiver's next one, so it is early for the new line too, and only the
        sender still knows it: the receiver recorded it with its older
        checkpoint and does not receive it again."""
        # choice: the slides are silent on a checkpoint taken between a recovery
        # and the suppressed re-sends; it keeps them, as it keeps the sent counters
        if not self.checkpoint_suppressions:
            return (frozenset(),) * ctx.n  # the mutant: a rollback to this checkpoint re-sends them
        return tuple(frozenset(i for i in ids if i >= vol.sent[q]) for q, ids in enumerate(vol.suppress))

    def _late_complete(self, ctx: Context, p: int, vol: Vol) -> bool:
        """Has every message sent to p before its sender's checkpoint arrived?"""
        for q in ctx.others(p):
            c = vol.counts[q]
            if c is None or c[0] != vol.epoch or not all(i in vol.rcvd[q] for i in range(c[1])):
                return False
            if not self.late_from_every_sender and c[1]:
                return True  # the mutant stops at the first sender that sent it anything
        return True

    def _maybe_ready(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        """"Send Ready_to_stop_logging message after receiving all late messages"."""
        if not vol.logging or vol.ready:
            return Step(vol, stab)
        if self.ready_after_late and not self._late_complete(ctx, p, vol):
            return Step(vol, stab)
        vol = replace(vol, ready=True)
        if p != INITIATOR:
            return Step(vol, stab, (Send(Packet(p, INITIATOR, "ready", self._hdr(vol) + (vol.epoch,))),))
        return self._maybe_stop(ctx, p, replace(vol, readies=vol.readies | {p}), stab)

    def _maybe_stop(self, ctx: Context, p: int, vol: Vol, stab: Stab) -> Step:
        """"High-level view (IV)": with every process ready, Stop_logging to all."""
        if len(vol.readies) < ctx.n:
            return Step(vol, stab)
        out = tuple(Send(Packet(p, q, "stop", self._hdr(vol) + (vol.epoch,))) for q in ctx.others(p))
        vol, stab, more = self._stop(vol, stab)
        return Step(vol, stab, out + more)

    def _stop(self, vol: Vol, stab: Stab) -> Step:
        """Stop logging and save the log with the checkpoint: line ``epoch`` is
        complete as far as this process is concerned."""
        stab = replace(stab, logs=_put(stab.logs, vol.epoch, vol.log), line=vol.epoch)
        return Step(replace(vol, logging=False, log=Log()), stab, (Note("logs_saved"),))

    # -- application events ------------------------------------------------
    def may_send(self, ctx: Context, p: int, vol: Vol, dst: int) -> bool:
        return dst in vol.heard  # after a rollback, wait for dst's suppression list

    def on_send(self, ctx: Context, p: int, vol: Vol, stab: Stab, msg: AppMsg) -> Step:
        dst = msg.dst
        mid = vol.sent[dst]
        vol = replace(vol, sent=_set(vol.sent, dst, mid + 1))
        if self.suppress_early and mid in vol.suppress[dst]:
            return Step(vol, stab, (Note("early_resends_suppressed"),))  # "Handling Early Messages"
        hdr = self._hdr(vol) + (vol.epoch, vol.logging, mid)
        return Step(vol, stab, (Send(Packet(p, dst, "app", hdr, msg)),))

    def _head(self, vol: Vol, kind: str):
        return vol.replay[0] if vol.replay and vol.replay[0][0] == kind else None

    def may_match(self, ctx: Context, p: int, vol: Vol, mail: Mail) -> bool:
        if not vol.replay:
            return True
        return vol.replay[0] == ("recv", mail.msg.src, mail.hdr[0])

    def _due(self, vol: Vol, src: int, mid: int) -> bool:
        """May message ``mid`` from ``src`` enter p's queue now? During the
        replay, of src's messages only the next one the log names may: MPI
        matches a receive from src to the first of src's messages queued.

        Bronevetsky et al., C3 (the C3 slides, "Mechanism: Control Information",
        "Mechanism: The Log", "Additional Issues": non-FIFO channels). Right
        because the log names each reception by the unique message ID every
        message carries, so matching exactly that message re-creates the logged
        run whatever order unordered channels deliver the re-sends in."""
        if not self.replay_by_message_id:
            return True  # the mutant queues messages as they come, as on FIFO channels
        for ev in vol.replay:
            if ev[0] == "recv" and ev[1] == src:
                return ev[2] == mid
        return True

    def _enqueue(self, vol: Vol, mail: Mail) -> tuple[Vol, tuple]:
        if self._due(vol, mail.msg.src, mail.hdr[0]):
            return vol, (Deliver(mail),)
        return replace(vol, held=vol.held + (mail,)), (Note("receptions_held_for_replay"),)

    def on_match(self, ctx: Context, p: int, vol: Vol, stab: Stab, mail: Mail) -> Step:
        det = ("recv", mail.msg.src, mail.hdr[0])
        if vol.replay:
            # "Mechanism: Control Information": the message ID tells which held
            # message the log names next
            vol = replace(vol, replay=vol.replay[1:])
            due = tuple(m for m in vol.held if self._due(vol, m.msg.src, m.hdr[0]))
            vol = replace(vol, held=tuple(m for m in vol.held if m not in due))
            return Step(vol, stab, (Note("receptions_replayed"),) + tuple(Deliver(m) for m in due))
        if vol.logging and self.log_nondet:
            # choice: on unordered channels which message a receive matches is
            # non-deterministic even for a named source, so every match is logged
            return Step(replace(vol, log=replace(vol.log, events=vol.log.events + (det,))), stab)
        return Step(vol, stab)

    def may_choose(self, ctx: Context, p: int, vol: Vol, k: int, choice: int) -> bool:
        return not vol.replay or vol.replay[0] == ("nondet", choice)

    def on_choose(self, ctx: Context, p: int, vol: Vol, stab: Stab, k: int, choice: int) -> Step:
        if vol.replay:
            return Step(replace(vol, replay=vol.replay[1:]), stab, (Note("nondet_replayed"),))
        if vol.logging and self.log_nondet:  # "Log all non-deterministic events ex: rand()"
            vol = replace(vol, log=replace(vol.log, events=vol.log.events + (("nondet", choice),)))
            return Step(vol, stab, (Note("nondet_logged"),))
        return Step(vol, stab)

    # -- collectives: "Collective Communication" ------------------------------
    def coll_header(self, ctx: Context, p: int, vol: Vol) -> tuple:
        return (vol.rec, vol.epoch, vol.logging)

    def may_collect(self, ctx: Context, headers: tuple) -> bool:
        return len({h[0] for h in headers}) == 1  # one incarnation

    def coll_local(self, ctx: Context, p: int, vol: Vol, op: tuple) -> tuple | None:
        head = self._head(vol, "coll")
        return head[2] if head and head[1] == "local" else None

    def on_collective(self, ctx: Context, p: int, vol: Vol, stab: Stab, op: tuple, inputs: tuple,
                      headers: tuple | None) -> Step:
        if vol.replay and vol.replay[0][0] == "coll":  # inside the log: from it, or called again with all
            note = "collectives_from_log" if headers is None else "collectives_reexecuted_in_replay"
            return Step(replace(vol, replay=vol.replay[1:]), stab, (Note(note),))
        kind, root = op[1], op[2]
        k = vol.epoch
        srcs = coll_sources(kind, root, p, ctx.n)
        out: tuple = ()
        if vol.logging and self.stop_on_stopped_sender and any(stopped(headers[q][1], headers[q][2], k)
                                                               for q in srcs):
            vol, stab, out = self._stop(vol, stab)  # Log-End line: data from a stopped process
            out += (Note("stopped_by_stopped_sender"),)
        top = max(h[1] for h in headers)
        if srcs:  # where this receive lies, against the newest line involved
            region = "before_checkpoint" if k < top else "inside_log" if vol.logging else "after_log"
            out += (Note(f"{COLL_CLASS[kind]}_receive_{region}"),)
        if vol.logging:
            # A partner behind line k will not call again on recovery: the data
            # that flowed in from it is late (logged here), what went out to it
            # early (suppressed); so p completes the call from its log alone
            # ("Receive is before the checkpoint" / "inside the log"). Otherwise
            # every process calls it again ("Receive is after the log").
            if any(h[1] < k for h in headers) and self.log_late:
                entry = ("coll", "local", inputs)
                out += (Note("collectives_logged"),)
            else:
                entry = ("coll", "joint", ())
            vol = replace(vol, log=replace(vol.log, events=vol.log.events + (entry,)))
        return Step(vol, stab, out)

    # -- the wire --------------------------------------------------------------
    def on_packet(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        rec, line = pkt.hdr[0], pkt.hdr[1]
        out: tuple = ()
        if rec != vol.rec:
            if covers(vol.rec, rec):  # p has recovered from every restart it names
                if pkt.kind == "rollback" and self.stale_rollback_is_a_failure:
                    return self._rollback(ctx, p, vol, stab, restarted(vol.rec, p), min(line, stab.line), True)
                return Step(vol, stab, (Note("stale_dropped"),))
            if not covers(rec, vol.rec) or not self._reachable(vol, stab, line):
                # each side knows a restart the other does not (two victims of one failure),
                # or p cannot restore the sender's line: the join, on the lower line, told
                # to everyone; the sender will roll back to it too, so its packet is dropped
                vol, stab, out = self._rollback(ctx, p, vol, stab, join(vol.rec, rec), min(line, stab.line), True)
                return Step(vol, stab, out + (Note("stale_dropped"),))
            vol, stab, out = self._rollback(ctx, p, vol, stab, rec, line, False)
        kind = pkt.kind
        if kind in ("rollback", "suppress"):
            # the receiver's list, with what the restored checkpoint still owes it
            vol = replace(vol, suppress=_set(vol.suppress, pkt.src, vol.suppress[pkt.src] | pkt.hdr[2]),
                          heard=vol.heard | {pkt.src})
            return Step(vol, stab, out)
        if kind == "app":
            vol, stab, more = self._receive(ctx, p, vol, stab, pkt)
        elif kind == "chkpt_ok":
            k, count = pkt.hdr[2], pkt.hdr[3]
            more = ()
            if vol.logging:  # Chkpt_Ok k+1 overtook Stop_logging k, which it implies
                vol, stab, more = self._stop(vol, stab)
            vol = replace(vol, ok=k, counts=_set(vol.counts, pkt.src, (k, count)))
        elif kind == "count":
            vol = replace(vol, counts=_set(vol.counts, pkt.src, (pkt.hdr[2], pkt.hdr[3])))
            vol, stab, more = self._maybe_ready(ctx, p, vol, stab)
        elif kind == "ready":
            more = ()
            if vol.logging and pkt.hdr[2] == vol.epoch:
                vol, stab, more = self._maybe_stop(ctx, p, replace(vol, readies=vol.readies | {pkt.src}), stab)
        elif kind == "stop":
            more = ()
            if vol.logging and pkt.hdr[2] == vol.epoch:
                vol, stab, more = self._stop(vol, stab)
        else:
            raise ValueError(f"{self.name}: unexpected packet {kind!r}")
        return Step(vol, stab, out + more)

    def _receive(self, ctx: Context, p: int, vol: Vol, stab: Stab, pkt: Packet) -> Step:
        """Classify by the piggybacked epoch ("Mechanism: Control Information")."""
        _, _, e, logging, mid = pkt.hdr
        src, out = pkt.src, ()
        if vol.logging and self.stop_on_stopped_sender and stopped(e, logging, vol.epoch):
            vol, stab, out = self._stop(vol, stab)  # "... or when it receives a message from a
            out += (Note("stopped_by_stopped_sender"),)  # process that has itself stopped logging"
        vol = replace(vol, rcvd=_add(vol.rcvd, src, mid))
        if e < vol.epoch:  # late: sent before the sender's checkpoint, received after ours
            if vol.logging and self.log_late:
                vol = replace(vol, log=replace(vol.log, late=vol.log.late + ((mid, pkt.msg),)))
                out += (Note("late_messages_logged"),)
        elif e > vol.epoch:  # early: "the receiver records that this message must be suppressed"
            vol = replace(vol, early=_add(vol.early, src, mid))
            out += (Note("early_messages_recorded"),)
        else:
            out += (Note("intra_epoch_messages"),)
        vol, more = self._enqueue(vol, Mail(pkt.msg, (mid,)))
        out += more
        vol, stab, more = self._maybe_ready(ctx, p, vol, stab)
        return Step(vol, stab, out + more)

    # -- recovery: "The Global View", "Possible Types of Messages" -------------
    def on_restart(self, ctx: Context, p: int, stab: Stab) -> Step:
        vol, stab, out = self._rollback(ctx, p, None, stab, restarted(stab.rec, p), stab.line, True)
        return Step(vol, stab, (Note(f"recoveries_to_line_{stab.line}"),) + out)

    def _reachable(self, vol: Vol, stab: Stab, line: int) -> bool:
        return line <= stab.line or (vol.logging and vol.epoch == line)

    def _rollback(self, ctx: Context, p: int, vol: Vol | None, stab: Stab, rec: tuple, line: int,
                  initiate: bool) -> Step:
        """Roll back to recovery line ``line``: restore its checkpoint, re-receive
        the late messages from its log, replay the logged events, and tell each
        sender which of its early messages not to re-send."""
        out: tuple = ()
        if vol is not None and vol.logging and vol.epoch == line and line > stab.line:
            vol, stab, out = self._stop(vol, stab)  # every late message is in: close the log here
        saved, log = _get(stab.ckpts, line), _get(stab.logs, line)
        stab = replace(stab, rec=rec, line=line, ckpts=tuple(x for x in stab.ckpts if x[0] <= line),
                       logs=tuple(x for x in stab.logs if x[0] <= line))
        rcvd = saved.rcvd
        for mid, m in log.late:
            rcvd = _add(rcvd, m.src, mid)
        e = (frozenset(),) * ctx.n
        vol = Vol(saved.sent, rcvd, e, (None,) * ctx.n, saved.suppress, frozenset(), epoch=line,
                  replay=log.events, rec=rec, line=line)
        out += (Restore(line),)
        for mid, m in log.late:
            vol, more = self._enqueue(vol, Mail(m, (mid,)))
            out += more + (Note("late_messages_replayed"),)
        kind = "rollback" if initiate else "suppress"
        out += tuple(Send(Packet(p, q, kind, (rec, line, saved.early[q] if self.suppress_early else frozenset())))
                     for q in ctx.others(p))
        return Step(vol, stab, out)
