------------------------------ MODULE AppLevel ------------------------------
(***************************************************************************)
(* Application-level checkpointing with epochs: the C3 protocol of         *)
(* Bronevetsky, Marques, Pingali, Stodghill, as Pingali presents it in      *)
(* "Application-Level Fault Tolerance for MPI Programs" (slides "The        *)
(* Protocol" to "Summary of collectives").                                 *)
(*                                                                         *)
(* Checkpoints only at checkpoint sites; the initiator P0 takes checkpoint *)
(* k at a site and sends Chkpt_Ok; the others checkpoint at their next     *)
(* site. After its checkpoint a process logs (the logging phase): late     *)
(* messages (older epoch) and every non-deterministic event (choices,      *)
(* which message a receive matched); early messages (newer epoch) are      *)
(* recorded so that their re-sends are suppressed. Once all its late       *)
(* messages arrived a process sends Ready_to_stop_logging; with all ready, *)
(* P0 sends Stop_logging. A process also stops when it hears from one that *)
(* stopped (the Log-End line). Recovery: the replacement restores the last *)
(* line whose log it saved, and everyone rolls back to it, re-receives the *)
(* late messages, replays the logged events and tells each sender which    *)
(* early messages it already has. A replayed reception matches the message *)
(* its log entry names by message ID ("Mechanism: Control Information"):   *)
(* on unordered channels ("Additional Issues") a message that comes ahead   *)
(* of its turn in the replay is held back until the replay reaches it.      *)
(*                                                                         *)
(* As rrcheck's protocols/app_level.py, with its records, field names and  *)
(* its three modelling choices (per-destination send counts at each        *)
(* checkpoint, Chkpt_Ok carrying the initiator's; a line is complete once  *)
(* a process saved its log; a checkpoint taken between a recovery and the  *)
(* suppressed re-sends keeps the suppressions the process still owes, see  *)
(* Owed).                                                                  *)
(*                                                                         *)
(* Knobs (CONSTANTS; each registered mutant sets one):                     *)
(*   LogLate, SuppressEarly, LogNondet, ReadyAfterLate, StopOnStoppedSender, *)
(*   LateFromEverySender, ReplayByMessageId,                               *)
(*   CheckpointSuppressions  a checkpoint keeps the suppressions still     *)
(*                   owed (app-level/checkpoint-drops-suppressions sets    *)
(*                   it FALSE)                                             *)
(*   StaleRollbackIsAFailure  the first reading: a rollback naming only    *)
(*                   restarts p's incarnation recovers from is a new       *)
(*                   failure (a rollback storm, rrcheck's findings §4)     *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC, RRValues

CONSTANTS N, Prog, NodeOf, GroupOf, Fifo, MaxFailures, MaxCheckpoints, CrashKinds,
          AtSites, NoFailureDuringRecovery
CONSTANTS LogLate, SuppressEarly, LogNondet, ReadyAfterLate, StopOnStoppedSender, LateFromEverySender,
          ReplayByMessageId, CheckpointSuppressions, StaleRollbackIsAFailure

VARIABLES procs, wire, failures, failed
vars == <<procs, wire, failures, failed>>

INITIATOR == 0
All == 0..(N - 1)
RECURSIVE Asc(_)
Asc(S) == IF S = {} THEN <<>> ELSE LET x == CHOOSE x \in S : \A y \in S : x <= y
                                   IN <<x>> \o Asc(S \ {x})
Set(t, i, v) == [t EXCEPT ![i + 1] = v]                      \* t indexed from 0
At(t, i) == t[i + 1]
AddTo(t, i, x) == [t EXCEPT ![i + 1] = @ \cup {x}]
NoCount == Down      \* Python's None (checker/tla/values.py reads None as this record)
Empties == [i \in 1..N |-> {}]
Zeros == [i \in 1..N |-> 0]
EmptyLog == [late |-> <<>>, events |-> <<>>]
Min(a, b) == IF a <= b THEN a ELSE b
\* pairs <<key, value>>: the value of key k (rrcheck's _get), and k set to v at the end (_put)
Get(pairs, k) == pairs[CHOOSE i \in DOMAIN pairs : pairs[i][1] = k /\ \A j \in 1..(i - 1) : pairs[j][1] # k][2]
Has(pairs, k) == \E i \in DOMAIN pairs : pairs[i][1] = k
Put(pairs, k, v) == Append(SelectSeq(pairs, LAMBDA x : x[1] # k), <<k, v>>)

AllBut(q) == Asc(All \ {q})
\* the processes whose data flows into p in a collective (RollbackRecovery's CollSources)
Sources(kind, root, p) ==
    IF kind = "reduce" THEN (IF p = root THEN AllBut(root) ELSE <<>>)
    ELSE IF kind = "bcast" THEN (IF p = root THEN <<>> ELSE <<root>>)
    ELSE AllBut(p)
ToOthers(p, kind, hdrOf(_)) == Map(LAMBDA q : Send(Packet(p, q, kind, hdrOf(q), <<>>)), AllBut(p))

\* "Mechanism: Control Information": the incarnation and the line of every packet
Hdr(vol) == <<vol.rec, vol.line>>

ProtoInit(p) ==
    <<[sent |-> Zeros, rcvd |-> Empties, early |-> Empties, counts |-> [i \in 1..N |-> NoCount],
       suppress |-> Empties, heard |-> All \ {p}, epoch |-> 0, logging |-> FALSE, log |-> EmptyLog,
       ok |-> 0, ready |-> FALSE, readies |-> {}, replay |-> <<>>, rec |-> Zeros, line |-> 0,
       held |-> <<>>],
      [ckpts |-> << <<0, [sent |-> Zeros, rcvd |-> Empties, early |-> Empties, suppress |-> Empties]>> >>,
       logs |-> << <<0, EmptyLog>> >>, line |-> 0, rec |-> Zeros]>>

Recovering(p, vol) == Cardinality(vol.heard) < N - 1

Stopped(epoch, logging, k) == IF epoch > k THEN TRUE ELSE epoch = k /\ ~logging

-----------------------------------------------------------------------------
(* The Log-End line: "High-level view (III)-(IV)"                          *)

\* stop logging and save the log with the checkpoint
Stop(vol, stab) ==
    Step([vol EXCEPT !.logging = FALSE, !.log = EmptyLog],
         [stab EXCEPT !.logs = Put(@, vol.epoch, vol.log), !.line = vol.epoch], <<Note("logs_saved")>>)

\* with every process ready, Stop_logging to all
MaybeStop(p, vol, stab) ==
    IF Cardinality(vol.readies) < N THEN Step(vol, stab, <<>>)
    ELSE LET s == Stop(vol, stab) IN
         Step(s.vol, s.stab, ToOthers(p, "stop", LAMBDA q : Hdr(vol) \o <<vol.epoch>>) \o s.eff)

\* has every message sent to p before its sender's checkpoint arrived?
SenderComplete(p, vol, q) ==
    LET c == At(vol.counts, q) IN
    IF c = NoCount THEN FALSE
    ELSE c[1] = vol.epoch /\ \A i \in 0..(c[2] - 1) : i \in At(vol.rcvd, q)

LateComplete(p, vol) ==
    IF LateFromEverySender THEN \A q \in All \ {p} : SenderComplete(p, vol, q)
    ELSE \* the mutant stops at the first sender that is incomplete or sent p anything
         LET S == {q \in All \ {p} : ~SenderComplete(p, vol, q) \/ At(vol.counts, q)[2] > 0}
         IN S = {} \/ SenderComplete(p, vol, CHOOSE q \in S : \A r \in S : q <= r)

\* "Send Ready_to_stop_logging message after receiving all late messages"
MaybeReady(p, vol, stab) ==
    IF ~vol.logging \/ vol.ready THEN Step(vol, stab, <<>>)
    ELSE IF ReadyAfterLate /\ ~LateComplete(p, vol) THEN Step(vol, stab, <<>>)
    ELSE LET v == [vol EXCEPT !.ready = TRUE] IN
         IF p # INITIATOR THEN Step(v, stab, <<Send(Packet(p, INITIATOR, "ready", Hdr(v) \o <<v.epoch>>, <<>>))>>)
         ELSE MaybeStop(p, [v EXCEPT !.readies = @ \cup {p}], stab)

\* The suppressions a checkpoint keeps: per destination, the IDs of early
\* messages the process was told not to re-send and has not re-sent yet (IDs
\* its sent counter has not reached); a rollback to the checkpoint suppresses
\* them along with the receivers' new lists. Bronevetsky et al., C3 ("Handling
\* Early Messages": "The receiver records that this message must be suppressed
\* and informs the sender on recovery"; "The Global View"). Right because an
\* owed re-send lies after the new checkpoint while its message was received
\* before the receiver's next one, so it is early for the new line too, and
\* only the sender still knows it: the receiver recorded it with its older
\* checkpoint and does not receive it again.
\* choice: the slides are silent on a checkpoint taken between a recovery and
\* the suppressed re-sends; it keeps them, as it keeps the sent counters
Owed(vol) ==
    IF CheckpointSuppressions THEN [i \in 1..N |-> {x \in vol.suppress[i] : x >= vol.sent[i]}]
    ELSE Empties   \* the mutant: a rollback to this checkpoint re-sends them

\* checkpoint k, then the logging phase ("High-level view (II)")
TakeCheckpoint(p, vol, stab, k) ==
    LET st == [stab EXCEPT !.ckpts = Put(@, k, [sent |-> vol.sent, rcvd |-> vol.rcvd, early |-> vol.early,
                                                suppress |-> Owed(vol)])]
        v == [vol EXCEPT !.epoch = k, !.logging = TRUE, !.log = EmptyLog, !.early = Empties, !.ready = FALSE,
                         !.readies = {}]
        \* choice: tell each receiver how many messages precede this checkpoint
        out == <<Checkpoint(k)>>
               \o (IF p # INITIATOR THEN ToOthers(p, "count", LAMBDA q : Hdr(v) \o <<k, At(v.sent, q)>>) ELSE <<>>)
        r == MaybeReady(p, v, st)
    IN Step(r.vol, r.stab, out \o r.eff)

-----------------------------------------------------------------------------
(* Recovery: "The Global View", "Possible Types of Messages"               *)

\* may message mid from src enter p's queue now? During the replay, of src's
\* messages only the next one the log names may (MPI matches a receive from
\* src to the first of src's messages queued)
Due(vol, src, mid) ==
    LET R == {i \in DOMAIN vol.replay : vol.replay[i][1] = "recv" /\ vol.replay[i][2] = src} IN
    IF ~ReplayByMessageId \/ R = {} THEN TRUE   \* the mutant queues messages as they come
    ELSE vol.replay[CHOOSE i \in R : \A j \in R : i <= j][3] = mid
DueMail(vol, mail) == Due(vol, mail.msg.src, mail.hdr[1])
\* queue a message, or hold it back until the replay reaches it
Enqueue(vol, stab, mail) ==
    IF DueMail(vol, mail) THEN Step(vol, stab, <<Deliver(mail)>>)
    ELSE Step([vol EXCEPT !.held = Append(@, mail)], stab, <<Note("receptions_held_for_replay")>>)
Reachable(vol, stab, line) == IF line <= stab.line THEN TRUE ELSE vol.logging /\ vol.epoch = line

\* roll back to line: restore its checkpoint, re-receive the late messages
\* from its log, replay the logged events, tell each sender which of its
\* early messages not to re-send. hasVol: p is up (else it restarts).
Rollback(p, vol, hasVol, stab, rec, line, initiate) ==
    LET s0 == IF ~hasVol THEN Step(vol, stab, <<>>)
              ELSE IF vol.logging /\ vol.epoch = line /\ line > stab.line
              THEN Stop(vol, stab)   \* every late message is in: close the log here
              ELSE Step(vol, stab, <<>>)
        saved == Get(s0.stab.ckpts, line)
        log == Get(s0.stab.logs, line)
        st == [s0.stab EXCEPT !.rec = rec, !.line = line, !.ckpts = SelectSeq(@, LAMBDA x : x[1] <= line),
                              !.logs = SelectSeq(@, LAMBDA x : x[1] <= line)]
        rcvd == [i \in 1..N |-> saved.rcvd[i] \cup {log.late[j][1] : j \in {x \in DOMAIN log.late : log.late[x][2].src = i - 1}}]
        v0 == [sent |-> saved.sent, rcvd |-> rcvd, early |-> Empties, counts |-> [i \in 1..N |-> NoCount],
               suppress |-> saved.suppress, heard |-> {}, epoch |-> line, logging |-> FALSE, log |-> EmptyLog,
               ok |-> 0, ready |-> FALSE, readies |-> {}, replay |-> log.events, rec |-> rec, line |-> line,
               held |-> <<>>]
        \* the late messages from the log: queued, or held back until their turn
        mails == [i \in DOMAIN log.late |-> Mail(log.late[i][2], <<log.late[i][1]>>)]
        v == [v0 EXCEPT !.held = SelectSeq(mails, LAMBDA m : ~DueMail(v0, m))]
        late == [i \in 1..(2 * Len(mails)) |->
                   IF i % 2 = 0 THEN Note("late_messages_replayed")
                   ELSE IF DueMail(v0, mails[(i + 1) \div 2]) THEN Deliver(mails[(i + 1) \div 2])
                   ELSE Note("receptions_held_for_replay")]
        kind == IF initiate THEN "rollback" ELSE "suppress"
    IN Step(v, st, s0.eff \o <<Restore(line)>> \o late
                   \o ToOthers(p, kind, LAMBDA q : <<rec, line, IF SuppressEarly THEN At(saved.early, q) ELSE {}>>))

OnRestart(p, stab) ==
    LET r == Rollback(p, NoCount, FALSE, stab, Restarted(stab.rec, p), stab.line, TRUE) IN
    Step(r.vol, r.stab, <<Note("recoveries")>> \o r.eff)

-----------------------------------------------------------------------------
(* Application events                                                       *)
InternalSteps(p, vol, stab, mayCheckpoint) ==
    IF p = INITIATOR /\ mayCheckpoint /\ ~vol.logging /\ vol.replay = <<>> /\ ~Recovering(p, vol)
    THEN {"checkpoint"} ELSE {}

\* the initiator takes checkpoint k and sends everyone Chkpt_Ok
OnInternal(p, vol, stab, label) ==
    LET k == vol.epoch + 1
        r == TakeCheckpoint(p, vol, stab, k)
    IN Step(r.vol, r.stab, ToOthers(p, "chkpt_ok", LAMBDA q : Hdr(vol) \o <<k, At(vol.sent, q)>>) \o r.eff)

\* a process that got Chkpt_Ok checkpoints at its next available spot
OnSite(p, vol, stab) ==
    IF p # INITIATOR /\ vol.ok = vol.epoch + 1
    THEN IF vol.replay # <<>>
         \* choice: a spot inside the log being replayed is not available yet
         THEN Step(vol, stab, <<Note("checkpoints_deferred_past_replay")>>)
         ELSE TakeCheckpoint(p, vol, stab, vol.ok)
    ELSE Step(vol, stab, <<>>)

MaySend(p, vol, dst) == dst \in vol.heard   \* after a rollback, wait for dst's suppression list

OnSend(p, vol, stab, m) ==
    LET dst == m.dst
        mid == At(vol.sent, dst)
        v == [vol EXCEPT !.sent = Set(@, dst, mid + 1)]
    IN IF SuppressEarly /\ mid \in At(v.suppress, dst)
       THEN Step(v, stab, <<Note("early_resends_suppressed")>>)   \* "Handling Early Messages"
       ELSE Step(v, stab, <<Send(Packet(p, dst, "app", Hdr(v) \o <<v.epoch, v.logging, mid>>, <<m>>))>>)

MayMatch(p, vol, mail) == IF vol.replay = <<>> THEN TRUE ELSE vol.replay[1] = <<"recv", mail.msg.src, mail.hdr[1]>>

OnReceive(p, vol, stab, mail, src, tag) ==
    IF vol.replay # <<>>
    \* "Mechanism: Control Information": the message ID tells which held
    \* message the log names next
    THEN LET v == [vol EXCEPT !.replay = Tail(@)]
             due == SelectSeq(v.held, LAMBDA m : DueMail(v, m))
         IN Step([v EXCEPT !.held = SelectSeq(@, LAMBDA m : ~DueMail(v, m))], stab,
                 <<Note("receptions_replayed")>> \o Map(Deliver, due))
    \* choice: on unordered channels which message a receive matches is
    \* non-deterministic even for a named source, so every match is logged
    ELSE IF vol.logging /\ LogNondet
    THEN Step([vol EXCEPT !.log.events = Append(@, <<"recv", mail.msg.src, mail.hdr[1]>>)], stab, <<>>)
    ELSE Step(vol, stab, <<>>)

MayChoose(p, vol, k, c) == IF vol.replay = <<>> THEN TRUE ELSE vol.replay[1] = <<"nondet", c>>

OnChoose(p, vol, stab, k, c) ==
    IF vol.replay # <<>> THEN Step([vol EXCEPT !.replay = Tail(@)], stab, <<Note("nondet_replayed")>>)
    ELSE IF vol.logging /\ LogNondet   \* "Log all non-deterministic events ex: rand()"
    THEN Step([vol EXCEPT !.log.events = Append(@, <<"nondet", c>>)], stab, <<Note("nondet_logged")>>)
    ELSE Step(vol, stab, <<>>)

-----------------------------------------------------------------------------
(* Collectives: "Collective Communication", "Summary of collectives"        *)
CollHeader(p, vol) == <<vol.rec, vol.epoch, vol.logging>>
MayCollect(headers) == Cardinality({headers[q][1] : q \in All}) = 1   \* one incarnation
CollLocal(p, vol, op) ==
    IF vol.replay # <<>> THEN IF vol.replay[1][1] = "coll" /\ vol.replay[1][2] = "local" THEN <<vol.replay[1][3]>> ELSE <<>>
    ELSE <<>>

OnCollective(p, vol, stab, op, inputs, headers) ==
    IF vol.replay # <<>> /\ vol.replay[1][1] = "coll"   \* inside the log: from it, or called again with all
    THEN Step([vol EXCEPT !.replay = Tail(@)], stab, <<>>)
    ELSE LET k == vol.epoch
             srcs == Sources(op[2], op[3], p)
             s0 == IF vol.logging /\ StopOnStoppedSender
                      /\ \E i \in DOMAIN srcs : Stopped(headers[srcs[i]][2], headers[srcs[i]][3], k)
                   THEN Stop(vol, stab)   \* Log-End line: data from a stopped process
                   ELSE Step(vol, stab, <<>>)
             \* A partner behind line k will not call again on recovery: the data
             \* that flowed in from it is late (logged here), what went out to it
             \* early (suppressed); so p completes the call from its log alone.
             \* Otherwise every process calls it again.
             entry == IF (\E q \in All : headers[q][2] < k) /\ LogLate THEN <<"coll", "local", inputs>>
                      ELSE <<"coll", "joint", <<>>>>
         IN IF s0.vol.logging THEN Step([s0.vol EXCEPT !.log.events = Append(@, entry)], s0.stab, s0.eff)
            ELSE s0

-----------------------------------------------------------------------------
(* The wire                                                                 *)

\* classify by the piggybacked epoch ("Mechanism: Control Information")
Receive(p, vol, stab, pk) ==
    LET e == pk.hdr[3]  lg == pk.hdr[4]  mid == pk.hdr[5]  src == pk.src
        s0 == IF vol.logging /\ StopOnStoppedSender /\ Stopped(e, lg, vol.epoch)
              THEN LET s == Stop(vol, stab) IN Step(s.vol, s.stab, s.eff \o <<Note("stopped_by_stopped_sender")>>)
              ELSE Step(vol, stab, <<>>)
        v1 == [s0.vol EXCEPT !.rcvd = AddTo(@, src, mid)]
        v2 == IF e < v1.epoch   \* late: sent before the sender's checkpoint, received after ours
              THEN IF v1.logging /\ LogLate THEN [v1 EXCEPT !.log.late = Append(@, <<mid, pk.msg[1]>>)] ELSE v1
              ELSE IF e > v1.epoch THEN [v1 EXCEPT !.early = AddTo(@, src, mid)]
              ELSE v1
        notes == IF e < v1.epoch THEN (IF v1.logging /\ LogLate THEN <<Note("late_messages_logged")>> ELSE <<>>)
                 ELSE IF e > v1.epoch THEN <<Note("early_messages_recorded")>>
                 ELSE <<Note("intra_epoch_messages")>>
        q == Enqueue(v2, s0.stab, Mail(pk.msg[1], <<mid>>))
        r == MaybeReady(p, q.vol, q.stab)
    IN Step(r.vol, r.stab, s0.eff \o notes \o q.eff \o r.eff)

Handle(p, vol, stab, pk) ==
    CASE pk.kind \in {"rollback", "suppress"} ->   \* the receiver's list, with what the restored checkpoint still owes it
           Step([vol EXCEPT !.suppress = Set(@, pk.src, At(@, pk.src) \cup pk.hdr[3]), !.heard = @ \cup {pk.src}],
                stab, <<>>)
      [] pk.kind = "app" -> Receive(p, vol, stab, pk)
      [] pk.kind = "chkpt_ok" ->
           LET s == IF vol.logging THEN Stop(vol, stab) ELSE Step(vol, stab, <<>>)  \* Chkpt_Ok k+1 implies Stop_logging k
           IN Step([s.vol EXCEPT !.ok = pk.hdr[3], !.counts = Set(@, pk.src, <<pk.hdr[3], pk.hdr[4]>>)], s.stab, s.eff)
      [] pk.kind = "count" ->
           MaybeReady(p, [vol EXCEPT !.counts = Set(@, pk.src, <<pk.hdr[3], pk.hdr[4]>>)], stab)
      [] pk.kind = "ready" ->
           IF vol.logging /\ pk.hdr[3] = vol.epoch THEN MaybeStop(p, [vol EXCEPT !.readies = @ \cup {pk.src}], stab)
           ELSE Step(vol, stab, <<>>)
      [] pk.kind = "stop" ->
           IF vol.logging /\ pk.hdr[3] = vol.epoch THEN Stop(vol, stab) ELSE Step(vol, stab, <<>>)

OnPacket(p, vol, stab, pk) ==
    LET rec == pk.hdr[1]  line == pk.hdr[2] IN
    IF rec = vol.rec THEN Handle(p, vol, stab, pk)
    ELSE IF Covers(vol.rec, rec)  \* p has recovered from every restart it names
    THEN IF pk.kind = "rollback" /\ StaleRollbackIsAFailure
         THEN Rollback(p, vol, TRUE, stab, Restarted(vol.rec, p), Min(line, stab.line), TRUE)
         ELSE Step(vol, stab, <<Note("stale_dropped")>>)
    ELSE IF ~Covers(rec, vol.rec) \/ ~Reachable(vol, stab, line)
    THEN \* each side knows a restart the other does not, or p cannot restore the sender's
         \* line: the join, on the lower line, told to everyone; the sender will take it too
         LET r == Rollback(p, vol, TRUE, stab, EpochJoin(vol.rec, rec), Min(line, stab.line), TRUE)
         IN Step(r.vol, r.stab, r.eff \o <<Note("stale_dropped")>>)
    ELSE LET r == Rollback(p, vol, TRUE, stab, rec, line, FALSE)
             h == Handle(p, r.vol, r.stab, pk)
         IN Step(h.vol, h.stab, r.eff \o h.eff)

Holdings(p, vol, stab) == {vol.held[i].msg : i \in DOMAIN vol.held}
RecordedChannels(p, stab, cid) ==
    IF Has(stab.logs, cid) THEN LET log == Get(stab.logs, cid) IN [i \in DOMAIN log.late |-> log.late[i][2]]
    ELSE <<>>
RecoveryKinds == {"rollback", "suppress"}
CoordinatedWith(p) == All
ScopeOf(f) == All
\* a restart restores; a rollback of a live process takes a new incarnation
RestoredTo(p, before, after) ==
    IF after.alive /\ (IF before.alive THEN after.stab.rec # before.stab.rec ELSE TRUE)
    THEN {after.stab.line} ELSE {}

\* RecoveryBound: the restarts p's incarnation recovers from
RestartsHeard(p, stab) == RestartCount(stab.rec)

-----------------------------------------------------------------------------
Sys == INSTANCE RollbackRecovery

(* The Log-End line (checker/invariants/app_level.py), judged at each      *)
(* delivery of an application packet of the receiver's incarnation, from   *)
(* its header (epoch, logging bit) and the receiver before and after.      *)
AppDelivery(src, dst, i) ==
    /\ i \in DOMAIN wire[<<src, dst>>]
    /\ wire[<<src, dst>>][i].kind = "app"
    /\ wire[<<src, dst>>][i].hdr[1] = procs[dst].vol.rec
    /\ Sys!DeliverPacket(src, dst, i)
NoBackward(src, dst, i) ==
    LET pk == wire[<<src, dst>>][i]  now == procs'[dst].vol IN
    ~(now.logging /\ now.rec = procs[dst].vol.rec /\ Stopped(pk.hdr[3], pk.hdr[4], now.epoch))
NoLate(src, dst, i) ==
    LET pk == wire[<<src, dst>>][i] IN pk.hdr[3] < procs[dst].vol.epoch => procs[dst].vol.logging
\* and at each call all complete together, for the data flowing into a
\* process that does not replay the call (its data crossed the line in the
\* original run)
CollPairs == {<<p, q>> \in All \X All :
                procs[p].vol.replay = <<>>
                /\ \E i \in DOMAIN Sources(Sys!Op(p, procs[p].pc)[2], Sys!Op(p, procs[p].pc)[3], p) :
                      Sources(Sys!Op(p, procs[p].pc)[2], Sys!Op(p, procs[p].pc)[3], p)[i] = q}
LogEndNoBackwardCrossingAction ==
    /\ \A src, dst \in All : \A i \in DOMAIN wire[<<src, dst>>] : AppDelivery(src, dst, i) => NoBackward(src, dst, i)
    /\ Sys!AppCollAll => \A pq \in CollPairs :
          LET now == procs'[pq[1]].vol  q == procs[pq[2]].vol IN
          ~(now.logging /\ now.rec = procs[pq[1]].vol.rec /\ Stopped(q.epoch, q.logging, now.epoch))
LogEndNoLateCrossingAction ==
    /\ \A src, dst \in All : \A i \in DOMAIN wire[<<src, dst>>] : AppDelivery(src, dst, i) => NoLate(src, dst, i)
    /\ Sys!AppCollAll => \A pq \in CollPairs :
          procs[pq[2]].vol.epoch < procs[pq[1]].vol.epoch => procs[pq[1]].vol.logging

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
NoInTransitInGroup == [][Sys!NoInTransitInGroup]_vars
LogEndNoBackwardCrossing == [][LogEndNoBackwardCrossingAction]_vars
LogEndNoLateCrossing == [][LogEndNoLateCrossingAction]_vars
=============================================================================
