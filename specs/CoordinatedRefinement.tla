------------------------ MODULE CoordinatedRefinement ------------------------
(***************************************************************************)
(* Coordinated.tla refines CoordinatedPaper.tla, blocking or not: every    *)
(* step of the model is a step of the paper's spec, or leaves what the     *)
(* paper's spec reads unchanged. TLC checks PaperSpec, the paper's spec    *)
(* under the mapping below, as a temporal property of SpecH.               *)
(*                                                                         *)
(* The mapping. A process's counts are its current history's: the         *)
(* messages it sent, per destination, and those that reached it (its queue *)
(* and what it received), per source. A failure is one step in the paper  *)
(* and many in the model (a restart, then rollbacks as they arrive): from  *)
(* the crash on, a process whose epoch does not name every restart so far  *)
(* (a victim before its restart, a survivor before its rollback) is shown  *)
(* as it will be, at its checkpoint of the line being recovered, so that   *)
(* what it does in a history the recovery discards is no step at all.      *)
(*                                                                         *)
(* Two history variables, which only record and never constrain the model: *)
(*   recovering: the line the failure under way rolls back to (-1: none),  *)
(*               the lowest line its victims knew;                         *)
(*   kept[p]:    the waves of p's checkpoints that count: taken while p    *)
(*               was up to date, and not of a wave a failure cut short     *)
(*               (the model keeps every image; the paper discards those).  *)
(***************************************************************************)
EXTENDS Coordinated

VARIABLES recovering, kept,
          pCounts, pWave, pLine, pSaved   \* the mapped state, kept so that TLC computes it once a state
varsH == <<procs, wire, failures, failed, recovering, kept, pCounts, pWave, pLine, pSaved>>

\* the restarts of q so far, counting the one a dead q is waiting for
RestartsOf(q) == procs[q].stab.epoch[q + 1] + (IF procs[q].alive THEN 0 ELSE 1)
UpToDate(p) == procs[p].alive /\ \A q \in All : procs[p].vol.epoch[q + 1] >= RestartsOf(q)
Images(p) == {procs[p].images[i][1] : i \in DOMAIN procs[p].images}
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y

-----------------------------------------------------------------------------
(* The mapping                                                              *)
SentCounts(h) == [q \in All |-> Len(h.sent[q])]
ArrivedCounts(img) ==
    [q \in All |-> Len(img.ghost.delivered[q])
                   + Cardinality({i \in DOMAIN img.mailbox : img.mailbox[i].msg.src = q})]
CountsOf(img) == [sent |-> SentCounts(img.ghost), arrived |-> ArrivedCounts(img)]

mWave == [p \in All |-> IF UpToDate(p) THEN procs[p].vol.wave ELSE 0]
mLine == [p \in All |-> IF UpToDate(p) THEN procs[p].stab.line ELSE recovering]
\* Chandy-Lamport: the messages recorded in transit towards p with its checkpoint of w,
\* per source (while the wave is under way, in vol; then in stable storage)
RecordedCounts(p, w) ==
    LET ms == IF UpToDate(p) /\ procs[p].vol.wave = w THEN procs[p].vol.recorded
              ELSE RecordedChannels(p, procs[p].stab, w)
    IN [q \in All |-> Cardinality({i \in DOMAIN ms : ms[i].src = q})]
SavedCounts(p, w) ==
    LET c == CountsOf(Sys!ImageOf(procs[p], w)) IN
    [sent |-> c.sent, arrived |-> c.arrived, recorded |-> RecordedCounts(p, w)]
mSaved == [p \in All |-> [w \in kept[p] |-> SavedCounts(p, w)]]
\* p's counts as the paper sees them: a process not yet told of the failure under way
\* as it will be, its checkpoint of the line with the messages recorded in transit
\* towards it delivered again
Shown(p) ==
    IF UpToDate(p) THEN CountsOf(Sys!Image(procs[p]))
    ELSE LET c == SavedCounts(p, recovering) IN
         [sent |-> c.sent, arrived |-> [q \in All |-> c.arrived[q] + c.recorded[q]]]
mCounts == [p \in All |-> Shown(p)]

Mapped == pCounts = mCounts /\ pWave = mWave /\ pLine = mLine /\ pSaved = mSaved

-----------------------------------------------------------------------------
InitH == Init /\ recovering = -1 /\ kept = [p \in All |-> {0}] /\ Mapped

NextH ==
    /\ Next
    /\ LET victims == {p \in All : procs[p].alive /\ ~procs'[p].alive}
           stale == \E p \in All : ~UpToDate(p)
       IN /\ recovering' =
                IF victims # {} THEN
                    MinOf({procs[v].stab.line : v \in victims} \cup (IF stale THEN {recovering} ELSE {}))
                ELSE IF \A p \in All : UpToDate(p)' THEN -1 ELSE recovering
          /\ kept' =
                IF victims # {} THEN [p \in All |-> {w \in kept[p] : w <= recovering'}]
                ELSE [p \in All |-> IF UpToDate(p)' /\ procs'[p].ckpts > procs[p].ckpts
                                    THEN kept[p] \cup (Images(p)' \ Images(p))
                                    ELSE kept[p]]
    /\ pCounts' = mCounts' /\ pWave' = mWave' /\ pLine' = mLine' /\ pSaved' = mSaved'

SpecH == InitH /\ [][NextH]_varsH

\* the coordinator may start a wave after each of its rollbacks, none of which commits
Paper == INSTANCE CoordinatedPaper
    WITH MaxWave <- MaxCheckpoints + 2 * N * MaxFailures + 1, sent <- [p \in All |-> pCounts[p].sent],
         arrived <- [p \in All |-> [q \in All |-> pCounts[q].arrived[p]]],
         wave <- pWave, line <- pLine, saved <- pSaved, failures <- failures
\* Paper!Spec, its stuttering steps tried first (most of the model's steps are
\* none of the paper's, and TLC evaluates a disjunction left to right)
PaperSpec == Paper!Init /\ [][UNCHANGED Paper!vars \/ Paper!Next]_Paper!vars
PaperTypeOK == Paper!TypeOK
PaperNoOrphanAtLine == Paper!NoOrphanAtLine
PaperNoInTransitAtLine == Paper!NoInTransitAtLine
=============================================================================
