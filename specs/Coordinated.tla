----------------------------- MODULE Coordinated -----------------------------
(***************************************************************************)
(* Coordinated checkpointing: Bouteiller, Herault, Bosilca, Dongarra,      *)
(* "Correlated set coordination in fault tolerant message logging         *)
(* protocols for many-core clusters" (CCPE 2013), §2.2 "Coordinated        *)
(* checkpoint": waves of tokens (markers) form a recovery line that        *)
(* eliminates orphan messages and detects in-transit ones, and on any      *)
(* failure every process rolls back to the last committed line.            *)
(*                                                                         *)
(* Two variants, as rrcheck's protocols/coordinated.py:                    *)
(*  - Blocking (their refs [7, 8]) silences the network: on the request a  *)
(*    process stops sending, sends a marker on every channel and takes its *)
(*    checkpoint once a marker came in on every channel (FIFO: everything  *)
(*    sent before has arrived); the initiator commits when all are done,   *)
(*    and the commit resumes the application.                              *)
(*  - Chandy and Lamport, "Distributed snapshots: determining global       *)
(*    states of distributed systems" (ACM TOCS 1985), their ref [6]: a     *)
(*    process checkpoints at the first marker and relays markers, and      *)
(*    records as channel state the messages that arrive on a channel after *)
(*    its checkpoint and before that channel's marker (the in-transit      *)
(*    messages, "integrated inside the receiver's checkpoint", §3.2.1).    *)
(*                                                                         *)
(* Recovery: the replacement restores the committed line and sends        *)
(* rollback to all. An epoch names the restarts a line recovers from, one  *)
(* count per process raised at its restart, so that a process rolls back  *)
(* once per restart whatever order one failure's rollbacks arrive in: a    *)
(* packet naming no restart p has not recovered from is dropped; one       *)
(* naming more makes p roll back first; one naming other restarts than p   *)
(* knows makes p roll back to the join of both, on the lower line, and     *)
(* tell everyone (rrcheck's docs/findings.md §4: the rollback storm).      *)
(*                                                                         *)
(* Knobs (CONSTANTS, so a mutant is a one-line override in a .cfg):        *)
(*   Blocking        TRUE: blocking coordinated; FALSE: Chandy-Lamport     *)
(*   RecordChannels  Chandy-Lamport records in-transit messages (mutant    *)
(*                   chandy-lamport/no-channel-recording sets it FALSE)    *)
(*   NextWaveCommits a marker of the next wave overtaking this wave's      *)
(*                   commit implies it (coordinated/next-wave-marker-      *)
(*                   dropped sets it FALSE)                                *)
(*   StaleRollbackIsAFailure  the first reading: a rollback naming only    *)
(*                   restarts p recovered from starts a new epoch, as if p *)
(*                   had restarted (coordinated/stale-rollback-is-a-       *)
(*                   failure sets it TRUE: the storm)                      *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC, RRValues, AppEvents

CONSTANTS N, Prog, NodeOf, GroupOf, Fifo, MaxFailures, MaxCheckpoints, CrashKinds,
          AtSites, NoFailureDuringRecovery
CONSTANTS Blocking, RecordChannels, NextWaveCommits, StaleRollbackIsAFailure

VARIABLES procs, wire, failures, failed

Coordinator == 0
All == 0..(N - 1)

\* An epoch: per process (index p + 1), the restarts of it a line recovers from.
NoRestart == [i \in 1..N |-> 0]
RestartsHeard(p, stab) == RestartCount(stab.epoch)

\* vol: lost at a crash; stab: stable storage
NewVol(epoch) == [epoch |-> epoch, wave |-> 0, taken |-> FALSE, markers |-> {},
                  recorded |-> <<>>, acks |-> {}]
ProtoInit(p) == <<NewVol(NoRestart), [epoch |-> NoRestart, line |-> 0, waves |-> 0, channels |-> <<>>]>>

Hdr(vol, stab, w) == <<vol.epoch, stab.line, w>>
ToOthers(p, kind, hdr) == Map(LAMBDA q : Send(Packet(p, q, kind, hdr, <<>>)), Others(p, N))

-----------------------------------------------------------------------------
(* Recovery                                                                 *)
RecordedChannels(p, stab, cid) ==
    LET ws == {i \in DOMAIN stab.channels : stab.channels[i][1] = cid} IN
    IF ws = {} THEN <<>> ELSE stab.channels[CHOOSE i \in ws : \A j \in ws : i <= j][2]

Rollback(p, stab, epoch, line, notify) ==
    LET st == [stab EXCEPT !.epoch = epoch, !.line = line]
        replayed == RecordedChannels(p, st, line)
        inTransit == [i \in 1..(2 * Len(replayed)) |->
                        IF i % 2 = 1 THEN Deliver(Mail(replayed[(i + 1) \div 2], <<>>))
                        ELSE Note("in_transit_restored")]
    IN Step(NewVol(epoch), st,
            <<Restore(line)>> \o inTransit
            \o (IF notify THEN ToOthers(p, "rollback", <<epoch, line, 0>>) ELSE <<>>))

OnRestart(p, stab) == Rollback(p, stab, Restarted(stab.epoch, p), stab.line, TRUE)

-----------------------------------------------------------------------------
(* The wave                                                                 *)
MaybeCommit(p, vol, stab) ==
    IF Cardinality(vol.acks) < N THEN Step(vol, stab, <<>>)
    ELSE Step(NewVol(vol.epoch), [stab EXCEPT !.line = vol.wave],
              ToOthers(p, "commit", Hdr(vol, stab, vol.wave)))

\* this process is done with the wave: tell the coordinator
Finish(p, vol, stab) ==
    IF p = Coordinator THEN MaybeCommit(p, [vol EXCEPT !.acks = @ \cup {p}], stab)
    ELSE Step(vol, stab, <<Send(Packet(p, Coordinator, "done", Hdr(vol, stab, vol.wave), <<>>))>>)

\* a marker came in on every channel (blocking: the network is silent
\* towards p, so p checkpoints; Chandy-Lamport: p's channel state is known)
OnMarker(p, vol, stab) ==
    IF Blocking THEN
        IF vol.taken \/ Cardinality(vol.markers) < N - 1 THEN Step(vol, stab, <<>>)
        ELSE LET v == [vol EXCEPT !.taken = TRUE]
                 f == Finish(p, v, stab)
             IN Step(f.vol, f.stab, <<Checkpoint(v.wave)>> \o f.eff)
    ELSE
        IF Cardinality(vol.markers) < N - 1 THEN Step(vol, stab, <<>>)
        ELSE Finish(p, vol, [stab EXCEPT !.channels = Append(@, <<vol.wave, vol.recorded>>)])

\* p joins wave w: blocking, it stops sending and sends markers; Chandy-Lamport,
\* it checkpoints first
Join(p, vol, stab, w) ==
    LET v == IF Blocking THEN [vol EXCEPT !.wave = w] ELSE [vol EXCEPT !.wave = w, !.taken = TRUE]
        out == (IF Blocking THEN <<>> ELSE <<Checkpoint(w)>>) \o ToOthers(p, "marker", Hdr(v, stab, w))
        m == OnMarker(p, v, stab)
    IN Step(m.vol, m.stab, out \o m.eff)

OnApp(p, vol, stab, pk) ==
    IF ~Blocking /\ RecordChannels /\ vol.wave # 0 /\ pk.src \notin vol.markers
    THEN Step([vol EXCEPT !.recorded = Append(@, pk.msg[1])], stab,   \* in transit at the line
              <<Deliver(Mail(pk.msg[1], <<>>)), Note("in_transit_recorded")>>)
    ELSE Step(vol, stab, <<Deliver(Mail(pk.msg[1], <<>>))>>)

\* wave w is the recovery line; the application resumes
Commit(vol, stab, w) ==
    Step([vol EXCEPT !.wave = 0, !.taken = FALSE, !.markers = {}, !.recorded = <<>>],
         [stab EXCEPT !.line = w], <<>>)

OnWave(p, vol, stab, pk) ==
    LET w == pk.hdr[3] IN
    CASE pk.kind = "app" -> OnApp(p, vol, stab, pk)
      [] pk.kind = "commit" ->
           IF w <= stab.line THEN Step(vol, stab, <<Note("stale_dropped")>>)  \* the next wave brought it
           ELSE Commit(vol, stab, w)
      [] pk.kind = "done" -> MaybeCommit(p, [vol EXCEPT !.acks = @ \cup {pk.src}], stab)
      [] pk.kind = "marker" ->
           IF w <= stab.line \/ (vol.wave # 0 /\ w # vol.wave /\ (w < vol.wave \/ ~NextWaveCommits)) THEN Step(vol, stab, <<Note("stale_dropped")>>)
           ELSE \* a marker of the next wave overtook the commit of this one, which it implies
                LET c == IF vol.wave # 0 /\ w > vol.wave
                         THEN LET k == Commit(vol, stab, vol.wave)
                              IN Step(k.vol, k.stab, <<Note("commit_implied_by_next_wave")>>)
                         ELSE Step(vol, stab, <<>>)
                    j == IF c.vol.wave = 0 THEN Join(p, c.vol, c.stab, w) ELSE Step(c.vol, c.stab, <<>>)
                    m == OnMarker(p, [j.vol EXCEPT !.markers = @ \cup {pk.src}], j.stab)
                IN Step(m.vol, m.stab, c.eff \o j.eff \o m.eff)

-----------------------------------------------------------------------------
(* The handlers the system model calls                                      *)
\* blocking: silenced from the request to the commit. (Guards are written with
\* IF, never \/: TLC takes each true disjunct of an action as one more
\* successor, which would count one transition twice.)
MaySend(p, vol, dst) == IF Blocking THEN vol.wave = 0 ELSE TRUE
OnSend(p, vol, stab, m) == Step(vol, stab, <<Send(Packet(p, m.dst, "app", Hdr(vol, stab, 0), <<m>>))>>)
MayMatch(p, vol, mail) == TRUE
OnReceive(p, vol, stab, mail, src, tag) == Step(vol, stab, <<>>)
InternalSteps(p, vol, stab, mayCheckpoint) ==
    IF p = Coordinator /\ mayCheckpoint /\ vol.wave = 0 THEN {"checkpoint"} ELSE {}
OnInternal(p, vol, stab, label) ==
    LET w == stab.waves + 1 IN Join(p, vol, [stab EXCEPT !.waves = w], w)

OnPacket(p, vol, stab, pk) ==
    LET epoch == pk.hdr[1]
        line == pk.hdr[2]
        lower == IF line < stab.line THEN line ELSE stab.line
    IN IF epoch # vol.epoch /\ Covers(vol.epoch, epoch) THEN  \* p recovered from all it names
           IF pk.kind = "rollback" /\ StaleRollbackIsAFailure
           THEN Rollback(p, stab, Restarted(vol.epoch, p), lower, TRUE)
           ELSE Step(vol, stab, <<Note("stale_dropped")>>)
       ELSE IF epoch # vol.epoch /\ ~Covers(epoch, vol.epoch) THEN
           \* each side knows a restart the other does not: the join, on the lower
           \* line, told to everyone; the packet's sender will roll back to it too
           LET r == Rollback(p, stab, EpochJoin(vol.epoch, epoch), lower, TRUE) IN
           IF pk.kind = "rollback" THEN r ELSE Step(r.vol, r.stab, r.eff \o <<Note("stale_dropped")>>)
       ELSE IF epoch # vol.epoch THEN   \* the sender rolled back to line for restarts p has not heard of
           LET r == Rollback(p, stab, epoch, line, FALSE) IN
           IF pk.kind = "rollback" THEN r
           ELSE LET w == OnWave(p, r.vol, r.stab, pk) IN Step(w.vol, w.stab, r.eff \o w.eff)
       ELSE IF pk.kind = "rollback" THEN Step(vol, stab, <<>>)
       ELSE OnWave(p, vol, stab, pk)

Holdings(p, vol, stab) == {}
Recovering(p, vol) == FALSE
RecoveryKinds == {"rollback"}
CoordinatedWith(p) == All
ScopeOf(f) == All
\* a rollback always takes a new epoch
RestoredTo(p, before, after) ==
    IF after.alive /\ after.stab.epoch # before.stab.epoch THEN {after.stab.line} ELSE {}

-----------------------------------------------------------------------------
Sys == INSTANCE RollbackRecovery

Init == Sys!Init
Next == Sys!Next
Spec == Sys!Spec
NoLostMessage == Sys!NoLostMessage
NoDuplicateDelivery == Sys!NoDuplicateDelivery
NoOrphan == Sys!NoOrphan
FailureFreeEquivalence == Sys!FailureFreeEquivalence
Termination == Sys!Termination
RollbackScope == Sys!RollbackScopeProp
RecoveryBound == Sys!RecoveryBoundProp
NoInTransitInGroup == [][Sys!NoInTransitInGroup]_Sys!vars
=============================================================================
