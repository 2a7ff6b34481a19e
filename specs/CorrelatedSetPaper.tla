-------------------------- MODULE CorrelatedSetPaper --------------------------
(***************************************************************************)
(* Correlated-set coordinated message logging as the paper states it,     *)
(* written from the paper alone: Bouteiller, Herault, Bosilca, Dongarra,   *)
(* "Correlated set coordination in fault tolerant message logging          *)
(* protocols for many-core clusters" (CCPE 2013), §2.2 ("Message logging", *)
(* "Event logging", "Payload copy"), §3.2 and §3.3.3.                      *)
(*  - "Whenever a process of a correlated set needs to take a checkpoint,  *)
(*    it forces a synchronization with all other processes of the set":   *)
(*    each member checkpoints once no internal message is on its way to    *)
(*    it and its peers have stopped sending it (eager silence, the first   *)
(*    barrier), and the set's checkpoint is complete at the second         *)
(*    barrier, once all have.                                              *)
(*  - "If a failure hits a process, all processes of that set have to roll *)
(*    back to their last checkpoint"; "a process failing in another        *)
(*    correlated set does not trigger a rollback".                         *)
(*  - Between sets, "regular message logging, including payload copy and   *)
(*    event logging, must continue": "every outgoing message is saved in   *)
(*    the sender's volatile memory" and served again on demand; every      *)
(*    reception's outcome, internal ones included (Theorem 2), is logged   *)
(*    on stable storage before the process sends ("no unlogged             *)
(*    nondeterministic event can precede an orphan message"), and a        *)
(*    recovering process's receptions are "forced to a deterministic       *)
(*    outcome (identical to the initial execution)".                       *)
(*                                                                         *)
(* As in SBMLPaper.tla, a process's state is its receptions (and the      *)
(* messages that reached it and await a receive), a message its sender,    *)
(* receiver, SSN and a value of its sender's state (not computed here),    *)
(* the network a set of messages. A failure is one step for its victims;   *)
(* the other members of their sets roll back each at a step of its own     *)
(* (when it learns of the failure), doing meanwhile what any process may   *)
(* do; a failure of two members may make a member roll back twice, to the  *)
(* same line. A process's own steps of the checkpoint (join, save,         *)
(* complete) may come in one step, after a rollback or not.                *)
(*                                                                         *)
(* CorrelatedSet.tla (rrcheck's model, handler for handler) refines this   *)
(* spec: CorrelatedSetRefinement.tla maps its states here and TLC checks   *)
(* the mapping step by step.                                               *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC

CONSTANTS N,            \* processes 0..N-1
          SetOf(_),     \* SetOf(p): p's correlated set (p included)
          MaxFailures,  \* the failure budget
          MaxWave       \* the set checkpoints numbered, at most (one cut short leaves its number unused)

VARIABLES rcvd,     \* rcvd[p]: p's receptions in order (RSN), <<sender, SSN, value>>
          queue,    \* queue[p]: the messages that reached p and await its receive
          sent,     \* sent[p][q]: the values of the messages p sent q, by SSN, in its current history
          net,      \* the messages <<sender, receiver, SSN, value>> on their way
          elog,     \* elog[p]: p's reception events on stable storage, <<RSN, sender, SSN>>
          wave,     \* wave[p]: the set checkpoint p is in (0: none); p sends no internal message in one
          saved,    \* saved[p]: p's checkpoints by wave: its receptions then (n), its sends, its queue
          line,     \* line[p]: the last wave p knows complete, its set's recovery line
          owed,     \* owed[p]: the line p must roll back to, its set hit by a failure (-1: none)
          failures  \* the failures so far

vars == <<rcvd, queue, sent, net, elog, wave, saved, line, owed, failures>>
Procs == 0..(N - 1)
NoSends == [q \in Procs |-> <<>>]
Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Max(S) == CHOOSE x \in S : \A y \in S : x >= y
Internal(p, q) == q \in SetOf(p)

\* of s's messages, those r received, and those that reached r (received or queued),
\* in r's state, or in a local state l of r
Received(r, s) == Cardinality({i \in DOMAIN rcvd[r] : rcvd[r][i][1] = s})
ReachedIn(l, s) == Cardinality({i \in DOMAIN l.rcvd : l.rcvd[i][1] = s}) + Cardinality({m \in l.queue : m[1] = s})
\* every reception of p its line's checkpoint does not hold is on stable storage
Logged(p) ==
    LET n0 == IF line[p] \in DOMAIN saved[p] THEN saved[p][line[p]].n ELSE 0 IN
    \A i \in (n0 + 1)..Len(rcvd[p]) : <<i, rcvd[p][i][1], rcvd[p][i][2]>> \in elog[p]
\* the receptions the event log fixes for RSN i of p, and for later RSNs
Fixed(p, i) == {<<e[2], e[3]>> : e \in {x \in elog[p] : x[1] = i}}
FixedAfter(p, i) == {<<e[2], e[3]>> : e \in {x \in elog[p] : x[1] > i}}

TypeOK ==
    /\ \A p \in Procs : \A i \in DOMAIN rcvd[p] : rcvd[p][i][1] \in Procs /\ rcvd[p][i][2] \in Nat \ {0}
    /\ DOMAIN sent = Procs /\ \A p \in Procs : DOMAIN sent[p] = Procs
    /\ \A m \in net \cup UNION {queue[p] : p \in Procs} : m[1] \in Procs /\ m[2] \in Procs /\ m[3] \in Nat \ {0}
    /\ \A p \in Procs : elog[p] \subseteq (Nat \ {0}) \X Procs \X (Nat \ {0})
    /\ wave \in [Procs -> 0..MaxWave] /\ line \in [Procs -> Nat] /\ owed \in [Procs -> Int]
    /\ \A p \in Procs : DOMAIN saved[p] \subseteq Nat
    /\ failures \in Nat

Init ==
    /\ rcvd = [p \in Procs |-> <<>>]
    /\ queue = [p \in Procs |-> {}]
    /\ sent = [p \in Procs |-> NoSends]
    /\ net = {}
    /\ elog = [p \in Procs |-> {}]
    /\ wave = [p \in Procs |-> 0]
    /\ saved = [p \in Procs |-> 0 :> [n |-> 0, sent |-> NoSends, queue |-> {}]]
    /\ line = [p \in Procs |-> 0]
    /\ owed = [p \in Procs |-> -1]
    /\ failures = 0

-----------------------------------------------------------------------------
(* §2.2: p sends q its next message once every reception of p is logged;  *)
(* not to a peer while p is in a set checkpoint (§3.3.3: "any send         *)
(* targeting a correlated endpoint, if posted afterwards, is stalled"). A  *)
(* message to a process that is down is lost.                              *)
Send(p, q) ==
    LET k == Len(sent[p][q]) + 1 IN
    /\ p # q /\ Logged(p)
    /\ ~(Internal(p, q) /\ wave[p] # 0)
    /\ Len(sent'[p][q]) = k
    /\ LET v == sent'[p][q][k] IN
       /\ sent' = [sent EXCEPT ![p][q] = Append(@, v)]
       /\ net' \in {net, net \cup {<<p, q, k, v>>}}
    /\ UNCHANGED <<rcvd, queue, elog, wave, saved, line, owed, failures>>

(* r receives the next message from s by SSN: the one the event log fixes *)
(* for that RSN, if it fixes one ("forced to a deterministic outcome");    *)
(* otherwise one it fixes for no later RSN.                                *)
Deliver(s, r) ==
    LET rsn == Len(rcvd[r]) + 1 IN
    \E m \in queue[r] :
        /\ m[1] = s /\ m[3] = Received(r, s) + 1
        /\ IF Fixed(r, rsn) # {} THEN <<s, m[3]>> \in Fixed(r, rsn) ELSE <<s, m[3]>> \notin FixedAfter(r, rsn)
        /\ rcvd' = [rcvd EXCEPT ![r] = Append(@, <<s, m[3], m[4]>>)]
        /\ queue' = [queue EXCEPT ![r] = @ \ {m}]
        /\ UNCHANGED <<sent, net, elog, wave, saved, line, owed, failures>>

\* the event logger makes p's reception events stable
LogEvents(p) ==
    /\ elog'[p] # elog[p]
    /\ \A e \in elog'[p] \ elog[p] :
          e[1] \in DOMAIN rcvd[p] /\ <<e[2], e[3]>> = <<rcvd[p][e[1]][1], rcvd[p][e[1]][2]>>
    /\ elog' = [elog EXCEPT ![p] = elog'[p]]
    /\ UNCHANGED <<rcvd, queue, sent, net, wave, saved, line, owed, failures>>

\* payload copy: a sender serves again the outgoing messages its current history sent
Resend(s) ==
    /\ net \subseteq net'
    /\ \A m \in net' \ net : /\ m[1] = s /\ ~Internal(s, m[2])
                             /\ m[3] <= Len(sent[s][m[2]]) /\ sent[s][m[2]][m[3]] = m[4]
    /\ UNCHANGED <<rcvd, queue, sent, elog, wave, saved, line, owed, failures>>

\* a receiver drops what it does not need (a duplicate by SSN, a message of a rolled back history)
Discard ==
    /\ net' \subseteq net
    /\ UNCHANGED <<rcvd, queue, sent, elog, wave, saved, line, owed, failures>>

-----------------------------------------------------------------------------
(* A process's own steps, on its local state l. §3.2: a member that owes   *)
(* its set's rollback rolls back to its checkpoint of that line (and may   *)
(* owe it again, until it has heard of every victim). §3.3.3: a member     *)
(* joins the set's checkpoint (a new wave, or one a peer is in); saves its *)
(* state once every peer has joined and all they sent it before has       *)
(* reached it (eager silence, the first barrier); and learns the set's     *)
(* checkpoint complete once every member has saved (the second barrier).   *)
(* A member that owes a rollback acts on what it heard before the failure: *)
(* the checkpoints it takes meanwhile are of a history its rollback        *)
(* discards.                                                               *)
Local(p) == [rcvd |-> rcvd[p], queue |-> queue[p], sent |-> sent[p], wave |-> wave[p],
             saved |-> saved[p], line |-> line[p], owed |-> owed[p]]
RollTo(l, L) ==
    [l EXCEPT !.rcvd = SubSeq(l.rcvd, 1, l.saved[L].n), !.queue = l.saved[L].queue,
              !.sent = l.saved[L].sent, !.saved = [w \in {x \in DOMAIN l.saved : x <= L} |-> l.saved[w]],
              !.wave = 0, !.line = L]
RollS(p, l) ==
    IF l.owed >= 0 /\ l.owed \in DOMAIN l.saved
    THEN {[RollTo(l, l.owed) EXCEPT !.owed = o] : o \in {-1, l.owed}} ELSE {}
SavedOf(p, l, q) == IF q = p THEN l.saved ELSE saved[q]
WaveOf(p, l, q) == IF q = p THEN l.wave ELSE wave[q]
SetWaves(p, l) == {line[q] : q \in SetOf(p)} \cup {WaveOf(p, l, q) : q \in SetOf(p)}
                  \cup UNION {DOMAIN SavedOf(p, l, q) : q \in SetOf(p)}
JoinS(p, l) ==
    IF l.wave # 0 THEN {}
    ELSE {[l EXCEPT !.wave = w] :
            w \in {x \in IF l.owed >= 0 THEN 1..MaxWave
                          ELSE {wave[q] : q \in SetOf(p)} \cup (Max(SetWaves(p, l)) + 1)..MaxWave :
                     x > l.line /\ x \notin DOMAIN l.saved}}
SaveS(p, l) ==
    IF /\ l.wave # 0 /\ l.wave \notin DOMAIN l.saved
       /\ l.owed < 0 => \A q \in SetOf(p) \ {p} :
             /\ wave[q] = l.wave
             /\ Len(sent[q][p]) = ReachedIn(l, q)
    THEN {[l EXCEPT !.saved = @ @@ (l.wave :> [n |-> Len(l.rcvd), sent |-> l.sent, queue |-> l.queue])]}
    ELSE {}
CompleteS(p, l) ==
    IF l.wave # 0 /\ (l.owed < 0 => \A q \in SetOf(p) : l.wave \in DOMAIN SavedOf(p, l, q))
    THEN {[l EXCEPT !.line = l.wave, !.wave = 0]} ELSE {}

SetLocal(p, l) ==
    /\ rcvd' = [rcvd EXCEPT ![p] = l.rcvd] /\ queue' = [queue EXCEPT ![p] = l.queue]
    /\ sent' = [sent EXCEPT ![p] = l.sent] /\ wave' = [wave EXCEPT ![p] = l.wave]
    /\ saved' = [saved EXCEPT ![p] = l.saved] /\ line' = [line EXCEPT ![p] = l.line]
    /\ owed' = [owed EXCEPT ![p] = l.owed]

ProcStep(p) ==
    LET l0 == Local(p)
        l1 == {l0} \cup RollS(p, l0)
        l2 == l1 \cup UNION {JoinS(p, l) : l \in l1}
        l3 == l2 \cup UNION {SaveS(p, l) : l \in l2}
        l4 == l3 \cup UNION {CompleteS(p, l) : l \in l3}
    IN /\ \E l \in l4 \ {l0} : SetLocal(p, l)
       /\ net' \subseteq net /\ \A m \in net \ net' : m[2] = p   \* what p drops at that step
       /\ UNCHANGED <<elog, failures>>

\* a message reaches r (in SSN order: the Table of SSN), after r's rollback or not
Arrive(r) ==
    \E m \in net, l \in {Local(r)} \cup RollS(r, Local(r)) :
        /\ m[2] = r /\ m[3] = ReachedIn(l, m[1]) + 1
        /\ SetLocal(r, [l EXCEPT !.queue = @ \cup {m}])
        /\ net' \in {net, net \ {m}}
        /\ UNCHANGED <<elog, failures>>

-----------------------------------------------------------------------------
(* §3.2. A failure of V (a process, or the processes of a node): its       *)
(* victims lose their state and what was on its way to them, and each     *)
(* rolls back to its last checkpoint; their set's line is the lowest one   *)
(* its victims know of (or its members owe), and every member whose        *)
(* checkpoint is not that line's, or who has not heard of the failure, owes *)
(* the rollback to it.                                                     *)
LineOf(S, V) == Min({line[v] : v \in V \cap S} \cup {owed[q] : q \in {x \in S : owed[x] >= 0}})
Fail(V) ==
    LET Hit == UNION {SetOf(v) : v \in V}
        L(p) == LineOf(SetOf(p), V)
        after == [p \in Procs |-> IF p \in V THEN RollTo(Local(p), line[p]) ELSE Local(p)]
    IN /\ failures < MaxFailures
       /\ \A p \in Hit : L(p) \in DOMAIN saved[p] /\ (p \in V => line[p] \in DOMAIN saved[p])
       /\ rcvd' = [p \in Procs |-> after[p].rcvd] /\ queue' = [p \in Procs |-> after[p].queue]
       /\ sent' = [p \in Procs |-> after[p].sent] /\ saved' = [p \in Procs |-> after[p].saved]
       /\ wave' = [p \in Procs |-> after[p].wave] /\ line' = [p \in Procs |-> after[p].line]
       /\ \A p \in Procs : owed'[p] \in IF p \in V /\ line[p] = L(p) THEN {-1, L(p)}
                                         ELSE IF p \in Hit THEN {L(p)} ELSE {owed[p]}
       /\ net' = {m \in net : m[2] \notin V}
       /\ failures' = failures + 1
       /\ UNCHANGED elog

Next ==
    \/ \E p, q \in Procs : Send(p, q) \/ Deliver(p, q)
    \/ \E p \in Procs : Arrive(p) \/ LogEvents(p) \/ Resend(p) \/ ProcStep(p)
    \/ Discard
    \/ \E V \in SUBSET Procs \ {{}} : Fail(V)
Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* §2.1: no orphan (a message its sender's current history sent otherwise) *)
(* and Theorem 1: at the line a member knows, no message between two       *)
(* members of its set crosses it (neither in transit, sent before the      *)
(* sender's checkpoint and reached the receiver after its own, nor an      *)
(* orphan of it).                                                          *)
NoOrphan ==
    \A q \in Procs : \A i \in DOMAIN rcvd[q] :
        LET p == rcvd[q][i][1]  k == rcvd[q][i][2] IN
        k <= Len(sent[p][q]) => sent[p][q][k] = rcvd[q][i][3]
ReachedAt(q, p, w) == Cardinality({i \in 1..saved[q][w].n : rcvd[q][i][1] = p})
                      + Cardinality({m \in saved[q][w].queue : m[1] = p})
Theorem1 ==
    \A p, q \in Procs : p # q /\ Internal(p, q) =>
        LET w == line[q] IN
        (w \in DOMAIN saved[p] /\ w \in DOMAIN saved[q] /\ saved[q][w].n <= Len(rcvd[q]))
        => ReachedAt(q, p, w) = Len(saved[p][w].sent[q])
=============================================================================
