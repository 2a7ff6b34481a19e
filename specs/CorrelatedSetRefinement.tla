------------------------ MODULE CorrelatedSetRefinement ------------------------
(***************************************************************************)
(* CorrelatedSet.tla refines CorrelatedSetPaper.tla: every step of the     *)
(* model is a step of the paper's spec, or leaves what that spec reads     *)
(* unchanged. TLC checks PaperSpec, the paper's spec under the mapping     *)
(* below, as a temporal property of SpecH.                                 *)
(*                                                                         *)
(* The mapping. A process's receptions, sends and queue are its ghost      *)
(* history's and its matching queue; the network is the application        *)
(* packets on the wire; the event log is stable storage's; a process's     *)
(* checkpoints are its images of the waves that count. A failure is one    *)
(* step of the paper's: a victim, while down, is shown at its last         *)
(* checkpoint, which its restart restores; a member whose epoch does not   *)
(* name every restart of its set so far owes the rollback to the line its *)
(* set recovers (a victim that will not know every restart of its set when *)
(* it restarts, too).                                                      *)
(*                                                                         *)
(* Two history variables, which only record and never constrain the model: *)
(*   recovering[g]: the line set g recovers to (-1: none), the lowest its   *)
(*                  victims knew;                                          *)
(*   kept[p]:       the waves of p's checkpoints that count (the model      *)
(*                  keeps every image; the paper discards those after the  *)
(*                  line a rollback goes back to).                         *)
(***************************************************************************)
EXTENDS CorrelatedSet

VARIABLES recovering, kept,
          pRcvd, pQueue, pSent, pNet, pElog, pWave, pSaved, pLine, pOwed   \* the mapped state
varsH == <<procs, wire, failures, failed, recovering, kept,
           pRcvd, pQueue, pSent, pNet, pElog, pWave, pSaved, pLine, pOwed>>

Groups == {GroupOf[p] : p \in All}
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y
\* the restarts of q so far, counting the one a dead q is waiting for
RestartsOf(q) == procs[q].stab.epoch[q + 1] + (IF procs[q].alive THEN 0 ELSE 1)
\* p's epoch, or the one a dead p restarts with
EpochOf(p) == IF procs[p].alive THEN procs[p].vol.epoch ELSE Restarted(procs[p].stab.epoch, p)
KnowsAll(p) == \A q \in SetOf(p) : EpochOf(p)[q + 1] >= RestartsOf(q)
UpToDate(p) == procs[p].alive /\ KnowsAll(p)
Images(p) == {procs[p].images[i][1] : i \in DOMAIN procs[p].images}

-----------------------------------------------------------------------------
(* The mapping                                                              *)
Mails(mb) == {Sys!AsMessage(mb[i].msg) : i \in DOMAIN mb}
\* what p's state is as the paper sees it: its own, or while it is down its image of the line its set recovers
Shown(p) == IF procs[p].alive THEN Sys!Image(procs[p])
            ELSE Sys!ImageOf(procs[p], procs[p].stab.line)

mRcvd == [p \in All |-> Sys!Receptions(Shown(p).ghost)]
mQueue == [p \in All |-> Mails(Shown(p).mailbox)]
mSent == [p \in All |-> Shown(p).ghost.sent]
mNet == {Sys!AsMessage(pk.msg[1]) :
           pk \in UNION {{wire[c][i] : i \in {j \in DOMAIN wire[c] : wire[c][j].kind = "app"}} : c \in All \X All}}
mElog == [p \in All |-> {<<e[1], e[2], e[3]>> : e \in {procs[p].stab.events[i] : i \in DOMAIN procs[p].stab.events}}]
mWave == [p \in All |-> IF procs[p].alive THEN procs[p].vol.wave ELSE 0]
mLine == [p \in All |-> procs[p].stab.line]
SavedOf(img) == [n |-> Len(img.ghost.order), sent |-> img.ghost.sent, queue |-> Mails(img.mailbox)]
mSaved == [p \in All |-> [w \in kept[p] |-> SavedOf(Sys!ImageOf(procs[p], w))]]
mOwed == [p \in All |-> IF KnowsAll(p) THEN -1 ELSE recovering[GroupOf[p]]]

Mapped == /\ pRcvd = mRcvd /\ pQueue = mQueue /\ pSent = mSent /\ pNet = mNet /\ pElog = mElog
          /\ pWave = mWave /\ pSaved = mSaved /\ pLine = mLine /\ pOwed = mOwed

-----------------------------------------------------------------------------
InitH == Init /\ recovering = [g \in Groups |-> -1] /\ kept = [p \in All |-> {0}] /\ Mapped

NextH ==
    /\ Next
    /\ LET victims == {p \in All : procs[p].alive /\ ~procs'[p].alive}
           rolled == {p \in All : procs[p].alive /\ procs'[p].alive
                                  /\ procs'[p].stab.epoch # procs[p].stab.epoch}
       IN /\ recovering' =
                [g \in Groups |->
                   LET vs == {v \in victims : GroupOf[v] = g}
                       stale == \E p \in All : GroupOf[p] = g /\ ~UpToDate(p)
                   IN IF vs # {} THEN MinOf({procs[v].stab.line : v \in vs}
                                            \cup (IF stale THEN {recovering[g]} ELSE {}))
                      ELSE IF \A p \in All : GroupOf[p] = g => UpToDate(p)' THEN -1
                      ELSE recovering[g]]
          /\ kept' =
                [p \in All |->
                   LET base == IF p \in victims THEN {w \in kept[p] : w <= procs[p].stab.line}
                               ELSE IF p \in rolled THEN {w \in kept[p] : w <= recovering[GroupOf[p]]}
                               ELSE kept[p]
                   IN IF procs'[p].ckpts > procs[p].ckpts THEN base \cup (Images(p)' \ Images(p)) ELSE base]
    /\ pRcvd' = mRcvd' /\ pQueue' = mQueue' /\ pSent' = mSent' /\ pNet' = mNet' /\ pElog' = mElog'
    /\ pWave' = mWave' /\ pSaved' = mSaved' /\ pLine' = mLine' /\ pOwed' = mOwed'

SpecH == InitH /\ [][NextH]_varsH

\* a leader may start a wave after each rollback, none of which completes
Paper == INSTANCE CorrelatedSetPaper
    WITH SetOf <- SetOf, MaxWave <- MaxCheckpoints + 2 * N * MaxFailures + 1,
         rcvd <- pRcvd, queue <- pQueue, sent <- pSent, net <- pNet, elog <- pElog, wave <- pWave,
         saved <- pSaved, line <- pLine, owed <- pOwed, failures <- failures
\* Paper!Spec, its stuttering steps tried first (most of the model's steps are none of the paper's)
PaperSpec == Paper!Init /\ [][UNCHANGED Paper!vars \/ Paper!Next]_Paper!vars
PaperTypeOK == Paper!TypeOK
PaperNoOrphan == Paper!NoOrphan
PaperTheorem1 == Paper!Theorem1
=============================================================================
