------------------------------ MODULE SBMLPaper ------------------------------
(***************************************************************************)
(* Pessimistic sender-based message logging as the thesis states it,      *)
(* written from the text alone: Hugo D. Meyer, "Fault Tolerance in         *)
(* Multicore Clusters" (PhD thesis, UAB 2014), §4.1.1 and Fig. 4.1, after  *)
(* Johnson and Zwaenepoel's SBML (its ref. [48]).                          *)
(*  - A message carries its sender's SSN; the receiver's Table of SSN      *)
(*    takes them in order and discards duplicates.                         *)
(*  - A reception gets the receiver's next RSN; the RSN goes back to the   *)
(*    sender, which adds it to its Message Log and acknowledges it (the    *)
(*    Table of RSN's flag). "Between the reception of a message and the    *)
(*    ACK with the RSN included, the receiver process should not send      *)
(*    messages."                                                           *)
(*  - A checkpoint saves "all these data structures ... except the Table   *)
(*    of RSN"; the senders may then delete what it covers.                 *)
(*  - A restarted process "broadcast[s] requests for its logged messages": *)
(*    "fully logged messages will be replayed in ascending RSN order,      *)
(*    starting with the stored RSN+1", partially logged ones "in any       *)
(*    order".                                                              *)
(*                                                                         *)
(* A process's state is its receptions (piecewise determinism): a message  *)
(* is the value its sender's state gave it, which this spec does not       *)
(* compute (Send takes any value), and a message is identified by          *)
(* <<sender, receiver, SSN>>. The network is a set: the messages in        *)
(* transit or waiting at the receiver. A failure of the processes V is     *)
(* one step: each rolls back to its checkpoint (its receptions, sends and  *)
(* Message Log then), and what was in transit to them is lost. Its replay  *)
(* is the receptions that follow, bound by the RSNs the senders hold.      *)
(* Not modelled: the payloads' garbage collection (a sender can always     *)
(* serve again what its current history sent). Channels lose nothing but   *)
(* what is sent to a process that is down (a send may be lost).            *)
(*                                                                         *)
(* PessimisticLogging.tla (rrcheck's model, handler for handler) refines   *)
(* this spec with SBML's knobs: SBMLRefinement.tla maps its states here    *)
(* and TLC checks the mapping step by step.                                *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS N,            \* processes 0..N-1
          MaxFailures   \* the failure budget

VARIABLES rcvd,     \* rcvd[p]: p's receptions in RSN order, <<sender, SSN, value>>
          sent,     \* sent[p][q]: the values of the messages p sent q, by SSN, in its current history
          net,      \* the messages <<sender, receiver, SSN, value>> in transit or waiting
          rsnOut,   \* RSNs on their way to the senders: <<sender, receiver, SSN, RSN>>
          mlog,     \* mlog[s]: the RSNs in s's Message Log, <<receiver, SSN, RSN>>
          ackOut,   \* the senders' ACKs of an RSN: <<receiver, sender, RSN>>
          acked,    \* acked[p]: the RSNs of p whose ACK came back (the Table of RSN's flag)
          ckpt,     \* ckpt[p]: p's checkpoint: its receptions then (n), its sends, its Message Log
          failures  \* the failures so far

vars == <<rcvd, sent, net, rsnOut, mlog, ackOut, acked, ckpt, failures>>
Procs == 0..(N - 1)
NoSends == [q \in Procs |-> <<>>]

\* the next SSN r takes from s (the Table of SSN)
NextSSN(r, s) == Cardinality({i \in DOMAIN rcvd[r] : rcvd[r][i][1] = s}) + 1
\* p's receptions its checkpoint does not cover
Since(p) == (ckpt[p].n + 1)..Len(rcvd[p])
\* the messages <<sender, SSN>> the senders' logs give RSN rsn of r, or a later one
NamedAt(r, rsn) == UNION {{<<s, e[2]>> : e \in {x \in mlog[s] : x[1] = r /\ x[3] = rsn}} : s \in Procs}
NamedAfter(r, rsn) == UNION {{<<s, e[2]>> : e \in {x \in mlog[s] : x[1] = r /\ x[3] > rsn}} : s \in Procs}
Logged(p) == \A i \in Since(p) : i \in acked[p]

TypeOK ==
    /\ \A p \in Procs : \A i \in DOMAIN rcvd[p] : rcvd[p][i][1] \in Procs /\ rcvd[p][i][2] \in Nat \ {0}
    /\ DOMAIN sent = Procs /\ \A p \in Procs : DOMAIN sent[p] = Procs
    /\ \A m \in net : m[1] \in Procs /\ m[2] \in Procs /\ m[3] \in Nat \ {0}
    /\ \A p \in Procs : mlog[p] \subseteq Procs \X (Nat \ {0}) \X (Nat \ {0})
    /\ rsnOut \subseteq Procs \X Procs \X Nat \X Nat
    /\ ackOut \subseteq Procs \X Procs \X Nat
    /\ \A p \in Procs : acked[p] \subseteq Nat /\ ckpt[p].n \in Nat
    /\ failures \in Nat

Init ==
    /\ rcvd = [p \in Procs |-> <<>>]
    /\ sent = [p \in Procs |-> NoSends]
    /\ net = {} /\ rsnOut = {} /\ ackOut = {}
    /\ mlog = [p \in Procs |-> {}]
    /\ acked = [p \in Procs |-> {}]
    /\ ckpt = [p \in Procs |-> [n |-> 0, sent |-> NoSends, mlog |-> {}]]
    /\ failures = 0

-----------------------------------------------------------------------------
(* Fig. 4.1. p sends q its next message (SSN), a value of p's state, once *)
(* every reception of p is acknowledged; the Message Log keeps it (its     *)
(* payload: the value in sent). A message to a process that is down is     *)
(* lost.                                                                   *)
Send(p, q) ==
    LET k == Len(sent[p][q]) + 1 IN
    /\ p # q /\ Logged(p)
    /\ Len(sent'[p][q]) = k
    /\ LET v == sent'[p][q][k] IN
       /\ sent' = [sent EXCEPT ![p][q] = Append(@, v)]
       /\ net' \in {net, net \cup {<<p, q, k, v>>}}
    /\ UNCHANGED <<rcvd, rsnOut, mlog, ackOut, acked, ckpt, failures>>

(* r receives the next message from s by SSN and gives it its next RSN. If *)
(* a sender's log names that RSN, it is that message (the replay); if not, *)
(* it is one no later RSN names (a partially logged one, or a new one). A  *)
(* replayed reception is logged already: the receiver need not wait for    *)
(* its ACK (it may: its RSN then goes to the sender again).                *)
Deliver(s, r) ==
    LET rsn == Len(rcvd[r]) + 1
        named == NamedAt(r, rsn)
    IN \E m \in net :
        /\ m[1] = s /\ m[2] = r /\ m[3] = NextSSN(r, s)
        /\ IF named # {} THEN <<s, m[3]>> \in named
           ELSE <<s, m[3]>> \notin NamedAfter(r, rsn)
        /\ rcvd' = [rcvd EXCEPT ![r] = Append(@, <<s, m[3], m[4]>>)]
        /\ acked' \in IF named # {} THEN {acked, [acked EXCEPT ![r] = @ \cup {rsn}]} ELSE {acked}
        /\ net' \in {net, net \ {m}}
        /\ UNCHANGED <<sent, rsnOut, mlog, ackOut, ckpt, failures>>

\* r sends the RSN of its reception i to the sender (lost if the sender is down)
SendRsn(r, i) ==
    /\ i \in DOMAIN rcvd[r]
    /\ rsnOut' \in {rsnOut, rsnOut \cup {<<rcvd[r][i][1], r, rcvd[r][i][2], i>>}}
    /\ UNCHANGED <<rcvd, sent, net, mlog, ackOut, acked, ckpt, failures>>

\* the sender adds an RSN to its Message Log
Record(s) ==
    \E x \in rsnOut :
        /\ x[1] = s
        /\ mlog' = [mlog EXCEPT ![s] = @ \cup {<<x[2], x[3], x[4]>>}]
        /\ rsnOut' \in {rsnOut, rsnOut \ {x}}
        /\ UNCHANGED <<rcvd, sent, net, ackOut, acked, ckpt, failures>>

\* ... and acknowledges it (lost if the receiver is down)
AckRsn(s) ==
    \E e \in mlog[s] :
        /\ ackOut' \in {ackOut, ackOut \cup {<<e[1], s, e[3]>>}}
        /\ UNCHANGED <<rcvd, sent, net, rsnOut, mlog, acked, ckpt, failures>>

\* the receiver marks its reception i acknowledged
Confirm(r) ==
    \E a \in ackOut :
        /\ a[1] = r /\ a[3] \in Since(r) /\ rcvd[r][a[3]][1] = a[2]
        /\ acked' = [acked EXCEPT ![r] = @ \cup {a[3]}]
        /\ ackOut' \in {ackOut, ackOut \ {a}}
        /\ UNCHANGED <<rcvd, sent, net, rsnOut, mlog, ckpt, failures>>

\* a receiver drops what it does not need (a duplicate by SSN, a stale ACK)
Discard ==
    /\ net' \subseteq net /\ rsnOut' \subseteq rsnOut /\ ackOut' \subseteq ackOut
    /\ UNCHANGED <<rcvd, sent, mlog, acked, ckpt, failures>>

-----------------------------------------------------------------------------
(* A checkpoint saves all but the Table of RSN; "all messages sent to an   *)
(* already checkpointed process should be deleted from the message log",   *)
(* and a restarted process's senders serve its messages again.             *)
Checkpoint(p) ==
    /\ ckpt' = [ckpt EXCEPT ![p] = [n |-> Len(rcvd[p]), sent |-> sent[p], mlog |-> mlog[p]]]
    /\ acked' = [acked EXCEPT ![p] = {}]
    /\ UNCHANGED <<rcvd, sent, net, rsnOut, mlog, ackOut, failures>>

Forget(s) ==
    /\ mlog'[s] \subseteq mlog[s]
    /\ \A e \in mlog[s] \ mlog'[s] : e[3] <= ckpt[e[1]].n
    /\ mlog' = [mlog EXCEPT ![s] = mlog'[s]]
    /\ UNCHANGED <<rcvd, sent, net, rsnOut, ackOut, acked, ckpt, failures>>

Resend(s) ==
    /\ net \subseteq net'
    /\ \A m \in net' \ net : m[1] = s /\ m[3] <= Len(sent[s][m[2]]) /\ sent[s][m[2]][m[3]] = m[4]
    /\ UNCHANGED <<rcvd, sent, rsnOut, mlog, ackOut, acked, ckpt, failures>>

(* A failure of V (a process, or the processes of a node): each rolls back *)
(* to its checkpoint, its Message Log with it; what was on its way to them *)
(* is lost.                                                                *)
Fail(V) ==
    /\ failures < MaxFailures
    /\ rcvd' = [p \in Procs |-> IF p \in V THEN SubSeq(rcvd[p], 1, ckpt[p].n) ELSE rcvd[p]]
    /\ sent' = [p \in Procs |-> IF p \in V THEN ckpt[p].sent ELSE sent[p]]
    /\ mlog' = [p \in Procs |-> IF p \in V THEN ckpt[p].mlog ELSE mlog[p]]
    /\ acked' = [p \in Procs |-> IF p \in V THEN {} ELSE acked[p]]
    /\ net' = {m \in net : m[2] \notin V}
    /\ rsnOut' = {x \in rsnOut : x[1] \notin V}
    /\ ackOut' = {a \in ackOut : a[1] \notin V}
    /\ failures' = failures + 1
    /\ UNCHANGED ckpt

Next ==
    \/ \E p, q \in Procs : Send(p, q) \/ Deliver(p, q)
    \/ \E p \in Procs : \/ \E i \in DOMAIN rcvd[p] : SendRsn(p, i)
                        \/ Record(p) \/ AckRsn(p) \/ Confirm(p)
                        \/ Checkpoint(p) \/ Forget(p) \/ Resend(p)
    \/ Discard
    \/ \E V \in SUBSET Procs \ {{}} : Fail(V)
Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* §4.1.1: "no other processes than P2 can be affected by the receipt of a *)
(* message that is partially logged": no process holds a message its       *)
(* sender's current history sent otherwise (an orphan, §2.1 of Bouteiller *)
(* et al. 2013).                                                            *)
NoOrphan ==
    \A q \in Procs : \A i \in DOMAIN rcvd[q] :
        LET p == rcvd[q][i][1]  k == rcvd[q][i][2] IN
        k <= Len(sent[p][q]) => sent[p][q][k] = rcvd[q][i][3]
=============================================================================
