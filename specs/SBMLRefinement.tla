--------------------------- MODULE SBMLRefinement ---------------------------
(***************************************************************************)
(* PessimisticLogging.tla with SBML's knobs refines SBMLPaper.tla: every   *)
(* step of the model is a step of the thesis's SBML, or leaves what that   *)
(* spec reads unchanged. TLC checks PaperSpec, the paper's spec under the  *)
(* mapping below, as a temporal property of SpecH.                         *)
(*                                                                         *)
(* The mapping. A process's receptions and sends are its ghost history's;  *)
(* while it is down, its checkpoint's, which its restart restores (the     *)
(* paper's failure is one step: the crash). The network is the            *)
(* application messages on the wire (a log's replayed copy included) and   *)
(* in the receivers' queues; the RSNs and their ACKs in transit are the    *)
(* "log" and "logged" packets; a sender's Message Log is the entries it    *)
(* holds for its receivers (lg); a reception is acknowledged once it has   *)
(* left the receiver's TB (rtb).                                           *)
(*                                                                         *)
(* Two history variables, which only record and never constrain the model: *)
(*   ckLog[p]:    p's Message Log when it last checkpointed (the thesis     *)
(*                saves it; the model's checkpoint does not, and instead   *)
(*                has the processes a restarted holder protected           *)
(*                checkpoint again, RADIC §2.3);                           *)
(*   restored[p]: the entries of ckLog[p] p's last failure brought back.   *)
(* A reception the model then replays otherwise than the thesis's restored *)
(* log would have it shows as a step the paper does not allow.             *)
(***************************************************************************)
EXTENDS PessimisticLogging

VARIABLES ckLog, restored,
          pRcvd, pSent, pNet, pRsnOut, pMlog, pAckOut, pAcked, pCkpt   \* the mapped state
varsH == <<procs, wire, failures, failed, ckLog, restored,
           pRcvd, pSent, pNet, pRsnOut, pMlog, pAckOut, pAcked, pCkpt>>

-----------------------------------------------------------------------------
(* The mapping                                                              *)
CkGhost(p) == Sys!ImageOf(procs[p], procs[p].stab.line).ghost
Ghost(p) == IF procs[p].alive THEN procs[p].ghost ELSE CkGhost(p)
PacketsOf(kinds) == UNION {{wire[c][i] : i \in {j \in DOMAIN wire[c] : wire[c][j].kind \in kinds}} : c \in All \X All}
Queued(p) == IF procs[p].alive THEN {Sys!AsMessage(procs[p].mailbox[i].msg) : i \in DOMAIN procs[p].mailbox} ELSE {}
\* the RSNs s holds for its messages
Lg(s) == IF procs[s].alive
         THEN UNION {{<<r, e[3], e[1]>> : e \in {x \in SeqSet(At(procs[s].vol.lg, r)) : x[2] = s}} : r \in All}
         ELSE {}

mRcvd == [p \in All |-> Sys!Receptions(Ghost(p))]
mSent == [p \in All |-> Ghost(p).sent]
mNet == {Sys!AsMessage(pk.msg[1]) : pk \in {x \in PacketsOf({"app", "rlog"}) : x.msg # <<>>}}
        \cup UNION {Queued(p) : p \in All}
mRsnOut == {<<pk.dst, pk.src, pk.hdr[3], pk.hdr[1]>> : pk \in PacketsOf({"log"})}
mAckOut == {<<pk.dst, pk.src, pk.hdr[1]>> : pk \in PacketsOf({"logged"})}
mMlog == [s \in All |-> Lg(s) \cup restored[s]]
mCkpt == [p \in All |-> [n |-> Len(CkGhost(p).order), sent |-> CkGhost(p).sent, mlog |-> ckLog[p]]]
mAcked == [p \in All |->
             IF procs[p].alive
             THEN {i \in (Len(CkGhost(p).order) + 1)..Len(procs[p].ghost.order) :
                     ~\E x \in SeqSet(procs[p].vol.rtb) : x[1] = i}
             ELSE {}]

Mapped == /\ pRcvd = mRcvd /\ pSent = mSent /\ pNet = mNet /\ pRsnOut = mRsnOut
          /\ pMlog = mMlog /\ pAckOut = mAckOut /\ pAcked = mAcked /\ pCkpt = mCkpt

-----------------------------------------------------------------------------
InitH == Init /\ ckLog = [p \in All |-> {}] /\ restored = [p \in All |-> {}] /\ Mapped

NextH ==
    /\ Next
    /\ restored' = [p \in All |-> IF procs[p].alive /\ ~procs'[p].alive THEN ckLog[p] ELSE restored[p]]
    /\ ckLog' = [p \in All |-> IF procs'[p].stab.line # procs[p].stab.line
                               THEN Lg(p)' \cup restored'[p] ELSE ckLog[p]]
    /\ pRcvd' = mRcvd' /\ pSent' = mSent' /\ pNet' = mNet' /\ pRsnOut' = mRsnOut'
    /\ pMlog' = mMlog' /\ pAckOut' = mAckOut' /\ pAcked' = mAcked' /\ pCkpt' = mCkpt'

SpecH == InitH /\ [][NextH]_varsH

Paper == INSTANCE SBMLPaper
    WITH rcvd <- pRcvd, sent <- pSent, net <- pNet, rsnOut <- pRsnOut, mlog <- pMlog,
         ackOut <- pAckOut, acked <- pAcked, ckpt <- pCkpt, failures <- failures
\* Paper!Spec, its stuttering steps tried first (most of the model's steps are none of the paper's)
PaperSpec == Paper!Init /\ [][UNCHANGED Paper!vars \/ Paper!Next]_Paper!vars
PaperTypeOK == Paper!TypeOK
PaperNoOrphan == Paper!NoOrphan
=============================================================================
