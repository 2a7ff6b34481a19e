--------------------------- MODULE CoordinatedPaper ---------------------------
(***************************************************************************)
(* Coordinated checkpointing as the paper states it, written from the      *)
(* paper alone: Bouteiller, Herault, Bosilca, Dongarra, "Correlated set    *)
(* coordination in fault tolerant message logging protocols for many-core  *)
(* clusters" (CCPE 2013), §2.1 (events, checkpoints, the recovery line,    *)
(* in-transit and orphan messages) and §2.2 "Coordinated checkpoint":      *)
(* "waves of tokens are exchanged to form a recovery line that eliminates  *)
(* orphan messages and detects in-transit messages", and every process,    *)
(* "even if unaffected by failures, rolls back to its last checkpoint" of  *)
(* the line. Two algorithms it names:                                      *)
(*  - blocking (refs [7, 8]) "silences the network": a process stops       *)
(*    sending when it joins a wave and takes its checkpoint once every     *)
(*    other process has joined and every message sent to it has arrived;   *)
(*  - Chandy and Lamport (ref [6]): a process checkpoints as it joins, and *)
(*    a message that reaches it after its checkpoint and was sent before   *)
(*    its sender's is in transit at the line: it is recorded with the      *)
(*    checkpoint and delivered again at a rollback.                        *)
(*                                                                         *)
(* Channels are FIFO and reliable, so a channel is two counts: the k-th    *)
(* message sent on it is the k-th to arrive. A checkpoint saves a          *)
(* process's counts. A wave is a number; a process learns the line         *)
(* committed once every process has its checkpoint of the wave and every   *)
(* message sent before the line arrived. A failure rolls every process     *)
(* back to its checkpoint of the line the victims know.                    *)
(*                                                                         *)
(* Coordinated.tla (rrcheck's model, handler for handler) refines this     *)
(* spec: CoordinatedRefinement.tla maps its states here and TLC checks the *)
(* mapping step by step, so that a misreading shared by the model and its  *)
(* Python twin shows as a step this spec does not allow.                   *)
(***************************************************************************)

EXTENDS Naturals, FiniteSets, TLC

CONSTANTS N,            \* processes 0..N-1; process 0 initiates the waves
          Blocking,     \* TRUE: the blocking wave; FALSE: Chandy and Lamport's
          MaxFailures,  \* the failure budget
          MaxWave       \* the waves numbered, at most (one cut short leaves its number unused)

VARIABLES sent,      \* sent[p][q]: the messages p sent to q in its current history
          arrived,   \* arrived[p][q]: the messages from p that reached q in q's current history
          wave,      \* wave[p]: the wave p has joined (and stopped sending for), 0 if none
          line,      \* line[p]: the last wave p knows committed, its recovery line
          saved,     \* saved[p]: p's checkpoints on stable storage, by wave: its counts then, and
                     \* (Chandy-Lamport) the messages recorded in transit towards it, per source
          failures   \* the failures so far

vars == <<sent, arrived, wave, line, saved, failures>>
Procs == 0..(N - 1)
Initiator == 0
Zero == [q \in Procs |-> 0]
Min(S) == CHOOSE x \in S : \A y \in S : x <= y

\* what p's checkpoint saves: what it sent, and what arrived at it, per channel
Counts(p) == [sent |-> sent[p], arrived |-> [q \in Procs |-> arrived[q][p]], recorded |-> Zero]

TypeOK ==
    /\ sent \in [Procs -> [Procs -> Nat]]
    /\ arrived \in [Procs -> [Procs -> Nat]]
    /\ wave \in [Procs -> 0..MaxWave]
    /\ line \in [Procs -> Nat]
    /\ \A p \in Procs : DOMAIN saved[p] \subseteq Nat
    /\ failures \in Nat

Init ==
    /\ sent = [p \in Procs |-> Zero]
    /\ arrived = [p \in Procs |-> Zero]
    /\ wave = [p \in Procs |-> 0]
    /\ line = [p \in Procs |-> 0]
    /\ saved = [p \in Procs |-> 0 :> [sent |-> Zero, arrived |-> Zero, recorded |-> Zero]]
    /\ failures = 0

-----------------------------------------------------------------------------
(* The application: a send (outside a wave, if blocking), an arrival in     *)
(* FIFO order. Chandy-Lamport: a message that reaches q after q's          *)
(* checkpoint of its wave and was sent before p's (p has none yet, or it   *)
(* is among those p's counts) is in transit at the line: q records it.     *)
Send(p, q) ==
    /\ p # q /\ IF Blocking THEN wave[p] = 0 ELSE TRUE
    /\ sent' = [sent EXCEPT ![p][q] = @ + 1]
    /\ UNCHANGED <<arrived, wave, line, saved, failures>>

InTransit(p, q) ==
    LET w == wave[q] IN
    /\ ~Blocking /\ w # 0 /\ w \in DOMAIN saved[q]
    /\ IF w \in DOMAIN saved[p] THEN arrived[p][q] < saved[p][w].sent[q] ELSE TRUE
Arrive(p, q) ==
    /\ arrived[p][q] < sent[p][q]
    /\ arrived' = [arrived EXCEPT ![p][q] = @ + 1]
    /\ saved' = IF InTransit(p, q) THEN [saved EXCEPT ![q][wave[q]].recorded[p] = @ + 1] ELSE saved
    /\ UNCHANGED <<sent, wave, line, failures>>

-----------------------------------------------------------------------------
(* The wave. A token is one event at its receiver, which may learn the     *)
(* commit of the wave it is in, join the next and take its checkpoint at   *)
(* once: p's part of the wave is any run of these three, in this order.    *)
(* s is p's [wave, line, saved]; the others are read as they are.          *)
\* p's checkpoints as s has them, the others' as they are
SavedAt(p, s, q) == IF q = p THEN s.saved ELSE saved[q]
Commit(p, s) ==      \* every process has its checkpoint of s.wave, and every message in transit arrived
    IF /\ s.wave # 0
       /\ \A q \in Procs : s.wave \in DOMAIN SavedAt(p, s, q)
       /\ \A a, b \in Procs : a # b => arrived[a][b] >= SavedAt(p, s, a)[s.wave].sent[b]
    THEN {[s EXCEPT !.line = s.wave, !.wave = 0]} ELSE {}
\* the newest wave p knows of; the initiator numbers a new wave above it
Newest(s) == LET ws == DOMAIN s.saved \cup {s.line} \cup {wave[q] : q \in Procs} IN
             CHOOSE x \in ws : \A y \in ws : x >= y
Join(p, s) ==        \* a wave newer than p's line: the initiator's new one, or one another process is in
    IF s.wave # 0 THEN {}
    ELSE {[s EXCEPT !.wave = w] :
            w \in {x \in (IF p = Initiator THEN (Newest(s) + 1)..MaxWave
                          ELSE {wave[q] : q \in Procs}) :
                     x > s.line /\ x \notin DOMAIN s.saved}}
Take(p, s) ==        \* blocking: the network towards p is silent (every other process has joined,
                     \* all it sent to p arrived); Chandy-Lamport: at once
    IF s.wave # 0 /\ s.wave \notin DOMAIN s.saved
       /\ IF Blocking THEN \A q \in Procs \ {p} : wave[q] = s.wave /\ arrived[q][p] = sent[q][p] ELSE TRUE
    THEN {[s EXCEPT !.saved = @ @@ (s.wave :> Counts(p))]} ELSE {}

WaveStep(p) ==
    LET s0 == [wave |-> wave[p], line |-> line[p], saved |-> saved[p]]
        s1 == {s0} \cup Commit(p, s0)
        s2 == s1 \cup UNION {Join(p, s) : s \in s1}
        s3 == s2 \cup UNION {Take(p, s) : s \in s2}
        s4 == s3 \cup UNION {Commit(p, s) : s \in s3}
    IN \E s \in s4 \ {s0} :
          /\ wave' = [wave EXCEPT ![p] = s.wave]
          /\ line' = [line EXCEPT ![p] = s.line]
          /\ saved' = [saved EXCEPT ![p] = s.saved]
          /\ UNCHANGED <<sent, arrived, failures>>

-----------------------------------------------------------------------------
(* A failure of the victims V (a process, or the processes of a node): all *)
(* roll back to their checkpoint of the line the victims know (the lowest, *)
(* when a commit has not reached every victim), with the messages recorded *)
(* in transit towards them delivered again, and the checkpoints of later   *)
(* waves are discarded.                                                    *)
Fail(V) ==
    LET L == Min({line[v] : v \in V}) IN
    /\ failures < MaxFailures
    /\ \A p \in Procs : L \in DOMAIN saved[p]
    /\ sent' = [p \in Procs |-> saved[p][L].sent]
    /\ arrived' = [p \in Procs |-> [q \in Procs |-> saved[q][L].arrived[p] + saved[q][L].recorded[p]]]
    /\ wave' = [p \in Procs |-> 0]
    /\ line' = [p \in Procs |-> L]
    /\ saved' = [p \in Procs |-> [w \in {x \in DOMAIN saved[p] : x <= L} |-> saved[p][w]]]
    /\ failures' = failures + 1

Next ==
    \/ \E p, q \in Procs : Send(p, q) \/ Arrive(p, q)
    \/ \E p \in Procs : WaveStep(p)
    \/ \E V \in SUBSET Procs \ {{}} : Fail(V)
Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* §2.1: a line is a checkpoint of every process; an orphan crosses it     *)
(* from the future (received before the receiver's checkpoint, sent after  *)
(* the sender's), an in-transit message from the past. On a line any       *)
(* process knows committed, no message is an orphan, nor counted twice     *)
(* (arrived and recorded), and every message in transit is recorded (the   *)
(* blocking wave leaves none).                                             *)
Kept(a, b, w) == saved[b][w].arrived[a] + saved[b][w].recorded[a]   \* of a's messages, those b's line has
NoOrphanAtLine ==
    \A p \in Procs : \A a, b \in Procs :
        line[p] \in DOMAIN saved[a] /\ line[p] \in DOMAIN saved[b]
        => Kept(a, b, line[p]) <= saved[a][line[p]].sent[b]
NoInTransitAtLine ==
    \A p \in Procs : \A a, b \in Procs :
        line[p] \in DOMAIN saved[a] /\ line[p] \in DOMAIN saved[b]
        => Kept(a, b, line[p]) >= saved[a][line[p]].sent[b]
=============================================================================
