---------------------------- MODULE CorrelatedSet ----------------------------
(***************************************************************************)
(* Correlated-set coordinated message logging: Bouteiller, Herault,        *)
(* Bosilca, Dongarra, "Correlated set coordination in fault tolerant       *)
(* message logging protocols for many-core clusters" (CCPE 2013),          *)
(* §3.2-3.3, with the pessimistic message logging of §2.2 ("Message        *)
(* logging", "Event logging", "Payload copy") between sets.                *)
(*                                                                         *)
(* Processes that fail together (a correlated set, by default the          *)
(* processes of one node, §3.3.1) take coordinated checkpoints and roll    *)
(* back together; between sets, pessimistic message logging goes on:       *)
(*  - payload copy only for outgoing messages (§3.2.1, Theorem 1): the     *)
(*    sender keeps them in its volatile log, keyed by SSN, and serves them *)
(*    again to a recovering receiver on demand (resend);                   *)
(*  - event logging of every reception, internal ones included (§3.2.2,    *)
(*    Theorem 2): the determinant (RSN, source, SSN) goes to a reliable    *)
(*    event logger, and the process sends nothing until it is stable;      *)
(*  - checkpoint coordination inside the set (§3.3.3): eager silence       *)
(*    (tokens; internal sends stall), a first barrier, the checkpoint, a   *)
(*    second barrier after which internal sends resume; tokens, barrier    *)
(*    and checkpoint packets carry the wave, the epoch and the line;       *)
(*  - recovery (§3.2): a failure rolls the whole set back to its last      *)
(*    checkpoint; each member replays its logged receptions in RSN order   *)
(*    and asks the other sets for the messages received since; re-sent     *)
(*    messages are dropped by SSN; a member that hears of the rollback     *)
(*    from a packet of the new epoch (an application message, or a token   *)
(*    of the next wave that overtook the notice) rolls back as the notice  *)
(*    would have it do. An epoch names the restarts the set's line         *)
(*    recovers from, one count per process (a restart vector): a packet    *)
(*    whose epoch p's covers is stale, one that covers p's makes p roll    *)
(*    back to its line, and two epochs neither covers (two victims of one  *)
(*    node crash) give way to their join, on the lower line, told to the   *)
(*    set: a failure rolls the set back once per victim, whatever order    *)
(*    the notices arrive in.                                               *)
(* As rrcheck's protocols/correlated_set.py and the MessageLogging part of *)
(* protocols/logging.py, whose records and names this module keeps.        *)
(*                                                                         *)
(* Knobs (CONSTANTS; each registered mutant sets one):                     *)
(*   LogEvents, LogInternalEvents   event logging (Theorem 2)              *)
(*   PayloadCopyExternal            sender-based copy of outgoing messages *)
(*   DropDuplicates                 SSN duplicate suppression              *)
(*   RollbackToAll                  rollback notice to every process       *)
(*                                  (mutant global-rollback) or the set   *)
(*   Silence                        §3.3.3 coordination before a checkpoint*)
(*                                  (mutant no-internal-silence: at once,  *)
(*                                  the second barrier kept)               *)
(*   CommitAfterTheSet              the line moves at the second barrier   *)
(*                                  (mutant line-before-the-set-           *)
(*                                  checkpoints: at a member's own)        *)
(*   NewerEpochRollsBack            a control packet of a newer epoch      *)
(*                                  implies the rollback (mutant newer-    *)
(*                                  epoch-token-dropped sets it FALSE)     *)
(*   StaleRollbackIsAFailure        the first reading: a notice naming     *)
(*                                  only restarts p's line recovers from   *)
(*                                  is a new failure (a rollback storm)    *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC, RRValues, AppEvents

CONSTANTS N, Prog, NodeOf, GroupOf, Fifo, MaxFailures, MaxCheckpoints, CrashKinds,
          AtSites, NoFailureDuringRecovery
CONSTANTS LogEvents, LogInternalEvents, PayloadCopyExternal, DropDuplicates, RollbackToAll, Silence,
          CommitAfterTheSet, NewerEpochRollsBack, StaleRollbackIsAFailure

VARIABLES procs, wire, failures, failed

All == 0..(N - 1)
SetOf(p) == {q \in All : GroupOf[q] = GroupOf[p]}          \* p's correlated set
Peers(p) == SetOf(p) \ {p}
Leader(p) == \A q \in SetOf(p) : p <= q
RECURSIVE Asc(_)                                              \* ascending, as rrcheck sends
Asc(S) == IF S = {} THEN <<>> ELSE LET x == CHOOSE x \in S : \A y \in S : x <= y
                                   IN <<x>> \o Asc(S \ {x})
Set(t, i, v) == [t EXCEPT ![i + 1] = v]                      \* t indexed from 0
At(t, i) == t[i + 1]
Zeros == [i \in 1..N |-> 0]

\* The protocol part of a checkpoint: all but the event log
Saved(vol) == [ssn |-> vol.ssn, log |-> vol.log, rcv |-> vol.rcv, rsn |-> vol.rsn]
NewVol(s, replay, epoch, asked) ==
    [ssn |-> s.ssn, log |-> s.log, rcv |-> s.rcv, rsn |-> s.rsn, pending |-> <<>>, replay |-> replay,
     epoch |-> epoch, wave |-> 0, stage |-> "run", tokens |-> {}, b1 |-> {}, b2 |-> {}, asked |-> asked]
ProtoInit(p) ==
    LET s0 == [ssn |-> Zeros, log |-> <<>>, rcv |-> Zeros, rsn |-> 0] IN
    <<NewVol(s0, <<>>, Zeros, {}),
      [events |-> <<>>, ckpts |-> << <<0, s0>> >>, line |-> 0, waves |-> 0, epoch |-> Zeros]>>

\* Is the reception of a message from src event-logged (Theorem 2)?
Logged(p, src) == IF ~LogEvents THEN FALSE ELSE IF LogInternalEvents THEN TRUE ELSE src \notin SetOf(p)

ToEach(p, qs, kind, hdr) == Map(LAMBDA q : Send(Packet(p, q, kind, hdr, <<>>)), qs)

-----------------------------------------------------------------------------
(* Application send and reception                                           *)
MaySend(p, vol, dst) ==
    IF vol.stage # "run" /\ dst \in SetOf(p) THEN FALSE   \* §3.3.3 eager silence
    ELSE vol.pending = <<>>                                \* pessimistic logging

OnSend(p, vol, stab, m) ==
    LET ssn == At(vol.ssn, m.dst) + 1
        v1 == [vol EXCEPT !.ssn = Set(@, m.dst, ssn)]
        v == IF m.dst \notin SetOf(p) /\ PayloadCopyExternal
             THEN [v1 EXCEPT !.log = Append(@, <<m.dst, ssn, m>>)] ELSE v1
    IN Step(v, stab, <<Send(Packet(p, m.dst, "app", <<ssn, v.epoch, stab.line>>, <<m>>))>>)

\* during recovery, receptions follow the event log: every logged RSN fixes
\* its reception (Theorem 2's proof); a gap in the logged RSNs is a reception
\* the log does not know (the mutants), filled by any unlogged one
MayMatch(p, vol, mail) ==
    IF vol.replay = <<>> THEN TRUE
    ELSE LET det == <<mail.msg.src, mail.hdr[1]>>
             next == Head(vol.replay) IN
         IF next[1] = vol.rsn + 1 THEN det = <<next[2], next[3]>>
         ELSE ~Logged(p, mail.msg.src) /\ ~\E i \in DOMAIN vol.replay : <<vol.replay[i][2], vol.replay[i][3]>> = det

OnReceive(p, vol, stab, mail, src, tag) ==
    LET det == <<mail.msg.src, mail.hdr[1]>>
        v == [vol EXCEPT !.rsn = @ + 1]
    IN IF v.replay # <<>> /\ Head(v.replay) = <<v.rsn>> \o det
       THEN Step([v EXCEPT !.replay = Tail(@)], stab, <<Note("replayed_receptions")>>)
       ELSE IF Logged(p, mail.msg.src)
       THEN Step([v EXCEPT !.pending = Append(@, <<v.rsn>> \o det)], stab, <<>>)
       ELSE Step(v, stab, <<>>)

-----------------------------------------------------------------------------
(* Recovery (§3.2)                                                          *)
LastSaved(stab, cid) ==
    LET is == {i \in DOMAIN stab.ckpts : stab.ckpts[i][1] = cid} IN
    stab.ckpts[CHOOSE i \in is : \A j \in is : j <= i][2]

LexLess(a, b) == \E i \in DOMAIN a : a[i] < b[i] /\ \A j \in 1..(i - 1) : a[j] = b[j]

\* restore checkpoint line, replay the logged determinants after it, ask the
\* processes outside the set for the messages received since (payload copy)
Rollback(p, stab, epoch, line, notify) ==
    LET s == LastSaved(stab, line)
        after == SelectSeq(SortSeq(stab.events, LexLess), LAMBDA e : e[1] > s.rsn)
        replay == after
        outside == All \ SetOf(p)
        targets == IF RollbackToAll THEN All \ {p} ELSE Peers(p)
    IN Step(NewVol(s, replay, epoch, outside), [stab EXCEPT !.epoch = epoch, !.line = line],
            <<Restore(line)>>
            \o (IF notify THEN ToEach(p, Asc(targets), "rollback", <<epoch, line>>) ELSE <<>>)
            \o Map(LAMBDA q : Send(Packet(p, q, "resend", <<At(s.rcv, q), TRUE>>, <<>>)), Asc(outside)))

OnRestart(p, stab) == Rollback(p, stab, Restarted(stab.epoch, p), stab.line, TRUE)

\* The rollback a packet of p's set implies (§3.2: a failure rolls the whole set
\* back), by its epoch: to the sender's line if it covers p's; if neither covers
\* the other, to the join on the lower line, told to the set, as the sender will do
CatchUp(p, vol, stab, epoch, line) ==
    IF Covers(epoch, vol.epoch) THEN Rollback(p, stab, epoch, line, FALSE)
    ELSE Rollback(p, stab, EpochJoin(vol.epoch, epoch), IF line < stab.line THEN line ELSE stab.line, TRUE)

\* payload copy: serve the logged messages a recovering dst lacks
Serve(p, vol, stab, dst, after) ==
    LET es == SelectSeq(vol.log, LAMBDA e : e[1] = dst /\ e[2] > after)
        out == Map(LAMBDA e : Send(Packet(p, dst, "app", <<e[2], vol.epoch, stab.line>>, <<e[3]>>)), es)
    IN Step(vol, stab, IF out = <<>> THEN <<>> ELSE out \o <<Note("logged_messages_resent")>>)

Receive(p, vol, stab, pk) ==
    LET src == pk.src  ssn == pk.hdr[1]  epoch == pk.hdr[2]  line == pk.hdr[3]
        behind == src \in SetOf(p) /\ ~Covers(vol.epoch, epoch)
        r == IF behind THEN CatchUp(p, vol, stab, epoch, line) ELSE Step(vol, stab, <<>>)
    IN \* sent before the set rolled back, or for a restart p did not know while
       \* p knew another (the sender takes the join too)
       IF src \in SetOf(p) /\ epoch # vol.epoch /\ (Covers(vol.epoch, epoch) \/ ~Covers(epoch, vol.epoch))
       THEN Step(r.vol, r.stab, r.eff \o <<Note("stale_dropped")>>)
       ELSE IF ssn # At(r.vol.rcv, src) + 1 /\ DropDuplicates
       THEN Step(r.vol, r.stab, r.eff \o <<Note(IF ssn <= At(r.vol.rcv, src) THEN "duplicates_dropped"
                                              ELSE "out_of_order_dropped")>>)
       ELSE Step([r.vol EXCEPT !.rcv = Set(@, src, IF ssn > At(@, src) THEN ssn ELSE At(@, src))], r.stab,
                 r.eff \o <<Deliver(Mail(pk.msg[1], <<ssn>>))>>)

-----------------------------------------------------------------------------
(* §3.3.3: the three phases of a checkpoint inside the set                  *)
Advance(p, vol, stab, out) ==
    LET w == vol.wave
        v1 == IF vol.stage = "silence" /\ Peers(p) \subseteq vol.tokens    \* every internal message is here
              THEN [vol EXCEPT !.stage = "barrier1"] ELSE vol
        o1 == IF v1 # vol THEN out \o ToEach(p, Asc(Peers(p)), "b1", <<w, vol.epoch, stab.line>>) ELSE out
        v2 == IF v1.stage = "barrier1" /\ Peers(p) \subseteq v1.b1 THEN [v1 EXCEPT !.stage = "barrier2"] ELSE v1
        s2 == IF v2 = v1 THEN stab
              ELSE IF CommitAfterTheSet THEN [stab EXCEPT !.ckpts = Append(@, <<w, Saved(v2)>>)]
              ELSE [stab EXCEPT !.ckpts = Append(@, <<w, Saved(v2)>>), !.line = w]  \* mutant: before the set
        o2 == IF v2 # v1 THEN o1 \o <<Checkpoint(w)>> \o ToEach(p, Asc(Peers(p)), "b2", <<w, vol.epoch, stab.line>>) ELSE o1
        v3 == IF v2.stage = "barrier2" /\ Peers(p) \subseteq v2.b2
              THEN [v2 EXCEPT !.stage = "run", !.wave = 0, !.tokens = {}, !.b1 = {}, !.b2 = {}] ELSE v2
        s3 == IF v3 # v2 THEN [s2 EXCEPT !.line = w] ELSE s2
    IN Step(v3, s3, o2)

\* mutant no-internal-silence: the checkpoint with neither the silence nor the first
\* barrier; the second barrier is kept
CheckpointNow(p, vol, stab, w, out) ==
    Advance(p, [vol EXCEPT !.wave = w, !.stage = "barrier1", !.b1 = Peers(p)], stab, out)

\* eager silence: a token to every correlated endpoint
Enter(p, vol, stab, w) ==
    LET v == [vol EXCEPT !.wave = w, !.stage = "silence"] IN
    Advance(p, v, stab, ToEach(p, Asc(Peers(p)), "token", <<w, v.epoch, stab.line>>))

StartCheckpoint(p, vol, stab) ==
    LET w == stab.waves + 1
        st == [stab EXCEPT !.waves = w]
    IN IF ~Silence  \* mutant: checkpoint at once, peers when told
       THEN CheckpointNow(p, vol, st, w, ToEach(p, Asc(Peers(p)), "ckpt", <<w, vol.epoch, st.line>>))
       ELSE Enter(p, vol, st, w)

\* the handling of a control packet of p's own epoch
OnWavePacket(p, vol, stab, pk) ==
    LET w == pk.hdr[1] IN
    IF ~Silence /\ vol.stage = "run" /\ pk.kind \in {"ckpt", "b2"} /\ w > stab.line
    THEN \* mutant: told of the wave, or a peer's second barrier overtaking the telling
         LET c == CheckpointNow(p, vol, stab, w, <<>>) IN
         IF pk.kind = "ckpt" THEN c
         ELSE LET a == Advance(p, [c.vol EXCEPT !.b2 = @ \cup {pk.src}], c.stab, <<>>)
              IN Step(a.vol, a.stab, c.eff \o a.eff)
    ELSE IF pk.kind = "ckpt" THEN Step(vol, stab, <<>>)
    ELSE IF vol.stage = "run" /\ (pk.kind # "token" \/ w <= stab.line)
    THEN Step(vol, stab, <<Note("stale_dropped")>>)
    ELSE LET e == IF vol.stage = "run" THEN Enter(p, vol, stab, w) ELSE Step(vol, stab, <<>>)
             v == CASE pk.kind = "token" -> [e.vol EXCEPT !.tokens = @ \cup {pk.src}]
                    [] pk.kind = "b1" -> [e.vol EXCEPT !.b1 = @ \cup {pk.src}]
                    [] pk.kind = "b2" -> [e.vol EXCEPT !.b2 = @ \cup {pk.src}]
             a == Advance(p, v, e.stab, <<>>)
         IN Step(a.vol, a.stab, e.eff \o a.eff)

OnControl(p, vol, stab, pk) ==
    LET epoch == pk.hdr[2] line == pk.hdr[3] IN
    IF epoch = vol.epoch THEN OnWavePacket(p, vol, stab, pk)
    ELSE IF Covers(vol.epoch, epoch) \/ ~NewerEpochRollsBack
    THEN Step(vol, stab, <<Note("stale_dropped")>>)  \* of an execution rolled back
    ELSE \* the sender's set rolled back before the notice reached p (a token of the
         \* next wave overtook it): p rolls back, as for an application message in
         \* Receive (§3.2: the whole set rolls back)
         LET r == CatchUp(p, vol, stab, epoch, line) IN
         IF ~Covers(epoch, vol.epoch)  \* p took the join: the sender will too, and start again
         THEN Step(r.vol, r.stab, r.eff \o <<Note("stale_dropped")>>)
         ELSE LET h == OnWavePacket(p, r.vol, r.stab, pk) IN Step(h.vol, h.stab, r.eff \o h.eff)

-----------------------------------------------------------------------------
(* The handlers the system model calls                                      *)
OnPacket(p, vol, stab, pk) ==
    CASE pk.kind = "app" -> Receive(p, vol, stab, pk)
      [] pk.kind = "resend" ->
           LET s == Serve(p, vol, stab, pk.src, pk.hdr[1]) IN
           \* the requester restarted: the request p sent it during p's own
           \* recovery may have been lost with it, so p asks again
           IF pk.hdr[2] /\ pk.src \in vol.asked
           THEN Step(s.vol, s.stab, s.eff \o <<Send(Packet(p, pk.src, "resend", <<At(vol.rcv, pk.src), FALSE>>, <<>>))>>)
           ELSE s
      [] pk.kind = "rollback" ->
           IF Covers(vol.epoch, pk.hdr[1])
           THEN IF pk.hdr[1] # vol.epoch /\ StaleRollbackIsAFailure  \* the first reading: a new failure
                THEN Rollback(p, stab, Restarted(vol.epoch, p), IF pk.hdr[2] < stab.line THEN pk.hdr[2] ELSE stab.line,
                              TRUE)
                ELSE Step(vol, stab, <<>>)
           ELSE CatchUp(p, vol, stab, pk.hdr[1], pk.hdr[2])
      [] OTHER -> OnControl(p, vol, stab, pk)

InternalSteps(p, vol, stab, mayCheckpoint) ==
    (IF vol.pending # <<>> THEN {"log"} ELSE {})
    \cup (IF mayCheckpoint /\ Leader(p) /\ vol.replay = <<>> /\ vol.pending = <<>> /\ vol.stage = "run"
          THEN {"checkpoint"} ELSE {})
OnInternal(p, vol, stab, label) ==
    IF label = "log"  \* the event logger acknowledges the determinants
    THEN Step([vol EXCEPT !.pending = <<>>], [stab EXCEPT !.events = @ \o vol.pending], <<>>)
    ELSE StartCheckpoint(p, vol, stab)

Holdings(p, vol, stab) == {vol.log[i][3] : i \in DOMAIN vol.log}
RecordedChannels(p, stab, cid) == <<>>
Recovering(p, vol) == vol.replay # <<>>
RecoveryKinds == {"rollback", "resend"}
CoordinatedWith(p) == SetOf(p)
ScopeOf(f) == UNION {SetOf(x) : x \in f}                     \* the failed sets
RestoredTo(p, before, after) ==                               \* a rollback always takes a new epoch
    IF after.alive /\ after.stab.epoch # before.stab.epoch THEN {after.stab.line} ELSE {}

\* RecoveryBound: the restarts p's line recovers from
RestartsHeard(p, stab) == RestartCount(stab.epoch)

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
\* Bouteiller et al.'s Theorem 1 is the same line for correlated sets: rrcheck reports it under this name
Theorem1 == [][Sys!NoInTransitInGroup]_Sys!vars
=============================================================================
