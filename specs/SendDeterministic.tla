-------------------------- MODULE SendDeterministic --------------------------
(***************************************************************************)
(* The send-deterministic hierarchical protocol with phases: Guermouche    *)
(* and Ropars, "Un protocole de recouvrement arrière hiérarchique pour     *)
(* applications MPI de très grande taille avec émissions déterministes"    *)
(* (RenPar 2011), §3 with Figures 5 (application processes) and 6 (the     *)
(* restart process).                                                       *)
(*                                                                         *)
(* Coordinated checkpoints inside each group (§3.1); sender-based logging  *)
(* of the messages between groups with their destination, date and phase,  *)
(* no determinant (Fig. 5 lines 11-18): send-determinism (§2.3) re-creates *)
(* the orphans, and phases (lines 20-27, §3.2) keep the replay causal.     *)
(* After a failure the whole group restarts (lines 44-49); the other       *)
(* groups send the logged messages after the restart date to the group's   *)
(* restart process and report the phases of the orphans they hold (lines   *)
(* 51-58), buffer new messages to the group and flush them at the end of   *)
(* the restart (lines 15-16, 60-64). The restart process (Fig. 6) replays  *)
(* a phase once no lower phase waits for an orphan. Acknowledgements       *)
(* collect the logs (lines 29-31, 40-42).                                  *)
(*                                                                         *)
(* As rrcheck's protocols/send_deterministic.py, with the same records,    *)
(* field names and line marks ("line n" is Fig. 5's unless Fig. 6 is      *)
(* named), and the same readings where the printed pseudo-code is          *)
(* inconsistent or silent ("reading n" below marks each at its place):     *)
(*  1. Line 14 logs (P_j, Date, Phase, msg), line 16 buffers without the   *)
(*     destination: both store the destination, date and phase just taken.*)
(*  2. Line 42 deletes from Enregistres_j: it is the acknowledged sender's *)
(*     own log Enregistres_i.                                              *)
(*  3. Line 53 compares the sender's dates with the restarting process's   *)
(*     Date, another clock: the restart message carries the restored Date  *)
(*     (for the orphans of line 56) and RPP[j].Maxdate restored from the   *)
(*     checkpoint (line 37) for the logged messages to re-send.            *)
(*  4. Lines 55-58 run per restart message, once per restarting process    *)
(*     p_k; the restart process waits for one notification per (process of *)
(*     another group, restarting process) pair. NbOrphPhase counts orphan  *)
(*     messages (Fig. 6 line 1 says processes; line 34 decrements once per *)
(*     orphan message) and line 34 sends the phase recorded at line 25,    *)
(*     the one counted at line 57.                                         *)
(*  5. Fig. 6 line 20 releases phases only once every notification arrived *)
(*     (line 11), also when started by line 17; released messages leave    *)
(*     Enregistres (Fig. 6 lines 2, 5-6).                                  *)
(*  6. FinRedemarrage goes from the restart process to the members, behind *)
(*     their replayed messages, and each member forwards it to the other   *)
(*     groups, which flush their buffer for it (lines 60-63) and drop the  *)
(*     group from Redemarrage (line 4) once every member has (line 64).    *)
(*  7. Every header carries the epoch of the destination's group as its    *)
(*     sender knows it; a message sent to a restarting process before its  *)
(*     sender heard of the restart is dropped (it is logged: line 54       *)
(*     re-sends it). Buffered messages are flushed with their own date and *)
(*     phase (line 62 writes the sender's current ones).                   *)
(*  8. Group checkpoints are a blocking coordinated wave led by the        *)
(*     group's least process, which also restarts the group and hosts the  *)
(*     restart process; line 38 happens at the commit, and an              *)
(*     acknowledgement names the committed checkpoint's RPP[j].Maxdate + 1 *)
(*     (line 42 deletes below it, line 41 strictly), not the triggering    *)
(*     message's date.                                                     *)
(*  9. A reception (lines 20-28) is split as MPI splits it: line 21, RPP   *)
(*     and the acknowledgement when the packet arrives; lines 22-23, 26-28 *)
(*     when the application's receive consumes the message, so that a      *)
(*     re-execution re-creates the dates lines 53 and 56 compare.          *)
(* 10. An orphan (line 33) is reported only if re-sent by the sender       *)
(*     group's current incarnation.                                        *)
(* 11. A group checkpoint's mark of a newer epoch than its receiver's      *)
(*     comes from a peer that epoch's restart already rolled back (lines   *)
(*     46-48 roll the whole group back): it implies the receiver's own     *)
(*     rollback to the line the mark names, as a peer's application        *)
(*     message of a newer epoch does; the rollback message behind it is    *)
(*     then stale. A wave packet of an older epoch, or of the epoch of a   *)
(*     member awaiting its restart, belongs to an abandoned wave: dropped. *)
(* 12. A group checkpoint's mark of a later wave of the same epoch,        *)
(*     arriving while the receiver is still in its wave, comes from a peer *)
(*     that joined that wave only after the commit of the receiver's (the  *)
(*     leader starts a wave only once the previous one is committed,       *)
(*     §3.1's coordinated protocol): it implies that commit, still on its  *)
(*     way (a peer's mark can overtake the leader's commit once the group  *)
(*     has three processes). The receiver commits, then takes the mark as  *)
(*     the first of the new wave; the commit, when it arrives, is stale.   *)
(*     Counted with the old wave's marks, the mark is wiped by the commit  *)
(*     and the new wave waits for it forever.                              *)
(* 13. Several faults at once (§2.1: "plusieurs fautes peuvent se          *)
(*     produire à la fois"; §3.2: "un processus de redémarrage est lancé   *)
(*     pour chacun d'eux"): a restart of another group can reach a process *)
(*     that is itself restarting, and a rollback loses what its process    *)
(*     heard and answered of another group's restart (a crash loses the    *)
(*     restart message in flight to it; the answer was of a state it       *)
(*     left). So a process still restarting (line 48's Status) that hears  *)
(*     of p_k's restart tells p_k of its own again (line 49, with the      *)
(*     restored Date and RPP[k].Maxdate of the first time, marked as told  *)
(*     again so that p_k does not answer in kind), and a restart message   *)
(*     of an epoch already known is answered again (lines 53-58) and its   *)
(*     sender awaited again (line 52: its FinRedemarrage follows on the    *)
(*     same channel); what was buffered for it since (line 16) is flushed  *)
(*     at that FinRedemarrage (lines 60-63), not re-sent to a restart      *)
(*     process that may have ended.                                        *)
(* 14. The restart process counts orphans per (reporter P_j, restarting    *)
(*     process p_k), by their date and phase (Fig. 6 line 1's              *)
(*     NbOrphPhase[phase] is the number of those of that phase): a report  *)
(*     (line 58) carries the reporter's own epoch; one of a newer epoch    *)
(*     replaces the pair's orphans (the reporter rolled back: only what    *)
(*     its restored state holds is still an orphan), one of the same epoch *)
(*     is a repeat and changes nothing. PlusOrphelinPhase (line 34, Fig. 6 *)
(*     line 14) names the pair and the date, and takes away only an orphan *)
(*     that was reported: a message P_j gets twice, from a replay of the   *)
(*     old incarnation's log and from the re-execution, is counted once.   *)
(* 15. Incarnations: RPP records with each date the epoch of the sender's  *)
(*     group that sent it (line 25), and only what an incarnation before   *)
(*     restart e sent is an orphan of restart e (line 56): a told-again    *)
(*     restart message comes after the re-execution's own messages. A      *)
(*     logged message carries the epoch of its sender's group when it goes *)
(*     to a restart process (line 54), and is not replayed (Fig. 6         *)
(*     line 22), nor taken, once a later restart of that group is known:   *)
(*     that restart discarded it, its re-execution sends it again, and     *)
(*     replayed early it would overtake its own causes.                    *)
(* 16. Two failures and a group checkpoint (§2.1's several faults, §3.1's  *)
(*     checkpoints): line 37 saves PasEnvoyes too, since a message         *)
(*     buffered at line 16 is logged and dated in the image but was not    *)
(*     sent; a rollback restores that buffer less what was sent since      *)
(*     (flushed, or handed to a restart process at line 54). A crash loses *)
(*     Redemarrage (line 4) but not the epochs of reading 7: the restarted *)
(*     process counts every group it knows to have restarted as            *)
(*     restarting, and buffers for it (line 16), until told again; a       *)
(*     process whose restart is over answers a restart message with its    *)
(*     FinRedemarrage again (lines 60-64), which the crash or rollback of  *)
(*     the restarting process lost.                                        *)
(* 17. An orphan re-sent is not a new message (§3.2 buffers the *new*      *)
(*     messages of a process that has not failed): a message dated no      *)
(*     later than the RPP[j].Maxdate that its destination's restart        *)
(*     message carried (reading 3) is sent, not buffered, and a message    *)
(*     the receiver's restored state holds (line 21's date test fails) is  *)
(*     an orphan re-received (line 33), not a stale one (reading 7),       *)
(*     whatever epoch its sender knew. A restarting process tells p_k of   *)
(*     its restart again (reading 13) with the Date its re-execution has   *)
(*     reached: what it sent up to there is no longer an orphan of line    *)
(*     56, and a copy lost with p_k's crash, whose restored state holds    *)
(*     the first one, would never be re-received.                          *)
(* 18. Reading 15 discards a logged message of an incarnation that a later *)
(*     restart of its group replaced only if it is dated after the Date    *)
(*     that restart restored (the date its restart message carried, line   *)
(*     49, or the one reading 17 tells again): the new incarnation's       *)
(*     restored state has sent it too, and will not send it again.         *)
(* 19. (correction 19 of docs/findings.md: knob HoldExternalUntilCommit.)  *)
(* 20. Line 52 adds the sender's whole group to Redemarrage (and line 15   *)
(*     asks whether P_j's group restarts): a restart told again (reading   *)
(*     13) names the members of its teller's restart, as the first one     *)
(*     did, not the teller alone.                                          *)
(* 21. Line 53 hands the restart process only what is dated after Maxdate  *)
(*     and lines 60-63 flush PasEnvoyes: what p buffered for p_k before    *)
(*     p_k's restart message came, dated no later than the Maxdate it      *)
(*     carries, stays buffered and is flushed at p_k's FinRedemarrage.     *)
(* 22. Reading 18's since is learnt from p_k's own restart message, so it  *)
(*     is kept with that restart's epoch: a logged message of a replaced   *)
(*     incarnation is known discarded only once p_k's message for the last *)
(*     restart told its Date; until then the restart process keeps it,     *)
(*     neither replayed nor dropped, does not end (Fig. 6 line 23), and    *)
(*     decides when p_k's restart message arrives. A replay not yet known  *)
(*     to be discarded is delivered (line 56 reports it as an orphan).     *)
(* 23. A member restored after a crash and awaiting its line (reading 8)   *)
(*     takes the whole buffer of the checkpoint its leader names (line 45: *)
(*     "pour le Groupe_i"): it knows nothing of what it sent after it.     *)
(* 24. Lines 53-58 answer from the restored state (line 47): a member      *)
(*     awaiting its line does not answer a restart message beyond line     *)
(*     52; its rollback's restart message brings the question again.       *)
(*                                                                         *)
(* Knobs (CONSTANTS; each registered mutant sets one):                     *)
(*   Phases          lines 22-27 (send-deterministic/no-phases)            *)
(*   RestartBuffer   lines 15-16, 60-64 (no-restart-buffer)                *)
(*   GcInclusive     line 41 with <= (gc-off-by-one)                       *)
(*   GroupRollback   lines 44-49 roll the whole group back                 *)
(*                   (restart-failed-only sets it FALSE)                   *)
(*   AckCheckpointed reading 8 (ack-at-next-message sets it FALSE)         *)
(*   FlushEmptiesBuffer line 63 (flush-keeps-buffer sets it FALSE)         *)
(*   NewerMarkRestarts reading 11 (newer-epoch-mark-dropped sets it FALSE) *)
(*   NextWaveCommits reading 12 (next-wave-mark-dropped sets it FALSE)     *)
(*   ConcurrentRestarts readings 13-15, 20 (second-restart-unanswered      *)
(*                   sets it FALSE)                                        *)
(*   ToldAgainNamesGroup  reading 20 alone, Fig. 5 line 52: a restart told *)
(*                   again names the teller's whole group (told-again-     *)
(*                   names-only-the-teller sets it FALSE: the model's      *)
(*                   first reading, docs/findings.md §3)                   *)
(*   ResendLost      readings 16-18, 21-24 (lost-on-rollback sets it FALSE)*)
(*   HoldExternalUntilCommit  correction 19: a member that has taken its   *)
(*                   part of a group checkpoint sends nothing out of the   *)
(*                   group until the commit (checkpoint-holds-a-message-   *)
(*                   past-its-cause sets it FALSE: the paper as printed)   *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC, RRValues, AppEvents

CONSTANTS N, Prog, NodeOf, GroupOf, Fifo, MaxFailures, MaxCheckpoints, CrashKinds,
          AtSites, NoFailureDuringRecovery
CONSTANTS Phases, RestartBuffer, GcInclusive, GroupRollback, AckCheckpointed, FlushEmptiesBuffer,
          NewerMarkRestarts, NextWaveCommits, ConcurrentRestarts, ResendLost, HoldExternalUntilCommit,
          ToldAgainNamesGroup

VARIABLES procs, wire, failures, failed
vars == <<procs, wire, failures, failed>>

All == 0..(N - 1)
Group(p) == {q \in All : GroupOf[q] = GroupOf[p]}
SameGroup(p, q) == GroupOf[p] = GroupOf[q]
Peers(p) == Group(p) \ {p}
Leader(p) == CHOOSE q \in Group(p) : \A x \in Group(p) : q <= x
Groups == {GroupOf[q] : q \in All}
NG == 1 + CHOOSE g \in Groups : \A h \in Groups : h <= g
RECURSIVE Asc(_)                                              \* ascending, as rrcheck sends
Asc(S) == IF S = {} THEN <<>> ELSE LET x == CHOOSE x \in S : \A y \in S : x <= y
                                   IN <<x>> \o Asc(S \ {x})
Set(t, i, v) == [t EXCEPT ![i + 1] = v]                      \* t indexed from 0
At(t, i) == t[i + 1]
Max(a, b) == IF a >= b THEN a ELSE b
Biggest(S) == CHOOSE x \in S : \A y \in S : y <= x
Range(s) == {s[i] : i \in DOMAIN s}

RUN == "run"
RESTART == "restart"
AWAIT == "await"
NoRP == Down      \* Python's None (checker/tla/values.py reads None as this record)
NoEpoch == -1     \* a replayed message carries no sender epoch (Python's None)

ToEach(p, qs, kind, hdr) == Map(LAMBDA q : Send(Packet(p, q, kind, hdr, <<>>)), qs)

\* Fig. 5 line 37: (ImagePs_i, RPP_i, Enregistres_i, Phase_i, Date_i); the image is the model's checkpoint;
\* reading 16: and PasEnvoyes, what the image logged and dated but did not send
SavedOf(vol) == [RPP |-> vol.RPP, Enregistres |-> vol.Enregistres, Phase |-> vol.Phase, Date |-> vol.Date,
                 PasEnvoyes |-> IF ResendLost THEN vol.PasEnvoyes ELSE <<>>]
LastSaved(stab, cid) ==
    LET is == {i \in DOMAIN stab.ckpts : stab.ckpts[i][1] = cid} IN
    stab.ckpts[CHOOSE i \in is : \A j \in is : j <= i][2]

\* Fig. 5's local variables: Date and Phase (line 3), Enregistres (line 5:
\* <<dst, date, phase, msg>>), RPP (line 6: per sender <<Maxdate, <<date, phase>>...>>),
\* RamasseMiette (line 8), PasEnvoyes (line 9: <<dst, date, phase, msg>>),
\* Redemarrage (line 4) and the restarting members waited for (reading 6);
\* reading 17: holds, <<P_k, the Maxdate of p's messages its restart restored>>
Fresh(s, status, epoch, gc) ==
    [Date |-> s.Date, Phase |-> s.Phase, Enregistres |-> s.Enregistres, RPP |-> s.RPP,
     RamasseMiette |-> [i \in 1..N |-> gc], PasEnvoyes |-> <<>>, Redemarrage |-> {}, waiting |-> {},
     holds |-> {},
     Status |-> status, epoch |-> epoch, wave |-> 0, marks |-> {}, done |-> {}, taken |-> FALSE,
     rp |-> NoRP]

ProtoInit(p) ==
    LET s0 == [RPP |-> [i \in 1..N |-> <<0, <<>>>>], Enregistres |-> <<>>, Phase |-> 1, Date |-> 1,  \* line 3
               PasEnvoyes |-> <<>>] IN
    \* reading 18: since, per process, the Date its group's last restart restored;
    \* reading 22: <<that restart's epoch, the Date>>
    <<Fresh(s0, RUN, 0, FALSE),
      [ckpts |-> << <<0, s0>> >>, line |-> 0, waves |-> 0, epoch |-> 0, known |-> [i \in 1..NG |-> 0],
       since |-> [i \in 1..N |-> <<0, 1>>]]>>

-----------------------------------------------------------------------------
(* Application send: Fig. 5 lines 11-18                                    *)

\* (msg, Date, Phase, Groupe), the epoch of dst's group as p knows it, p's
\* committed line and p's own epoch (reading 7)
App(p, vol, stab, dst, date, phase, m) ==
    LET epoch == IF SameGroup(p, dst) THEN vol.epoch ELSE At(stab.known, GroupOf[dst]) IN
    Packet(p, dst, "app", <<date, phase, GroupOf[p], epoch, stab.line, vol.epoch>>, <<m>>)

\* silence inside the group during a group checkpoint (reading 8)
MaySend(p, vol, dst) ==
    IF vol.Status = AWAIT THEN FALSE
    ELSE ~(vol.wave # 0 /\ (SameGroup(p, dst) \/ (HoldExternalUntilCommit /\ vol.taken)))
MayMatch(p, vol, mail) == vol.Status # AWAIT

OnSend(p, vol, stab, m) ==
    LET dst == m.dst
        date == vol.Date + 1                                                  \* line 12
        v == [vol EXCEPT !.Date = date]
        \* reading 1: the destination, date and phase are logged with the message
        lg == [v EXCEPT !.Enregistres = Append(@, <<dst, date, v.Phase, m>>)]   \* lines 13-14
        \* reading 17: §3.2 buffers new messages; one dst's restored state holds already
        \* is an orphan re-sent, and its re-reception ends dst's wait for it
        resent == ResendLost /\ \E h \in lg.holds : h[1] = dst /\ date <= h[2]
    IN IF SameGroup(p, dst) THEN Step(v, stab, <<Send(App(p, v, stab, dst, date, v.Phase, m))>>)
       ELSE IF RestartBuffer /\ dst \in lg.waiting /\ ~resent              \* lines 15-16
       THEN Step([lg EXCEPT !.PasEnvoyes = Append(@, <<dst, date, lg.Phase, m>>)], stab,
                 <<Note("messages_buffered_during_restart")>>)
       ELSE Step(lg, stab, <<Send(App(p, lg, stab, dst, date, lg.Phase, m))>>)  \* line 18

-----------------------------------------------------------------------------
(* Reception: lines 20-34 when the packet arrives; lines 22-23, 26-28 when *)
(* the application's receive consumes the message (reading 9)               *)

\* the phase RPP recorded for date (line 25), else dflt
RecordedPhase(seen, date, dflt) ==
    LET is == {i \in DOMAIN seen : seen[i][1] = date} IN
    IF is = {} THEN dflt ELSE seen[CHOOSE i \in is : \A j \in is : j <= i][2]

\* srcEpoch: the epoch of the sender's group that sent it now; sentEpoch: the one
\* that sent it first (a replay's), else NoEpoch
Receive(p, vol, stab, j, date, phase, m, effects, srcEpoch, sentEpoch) ==
    LET other == ~SameGroup(p, j)
        maxdate == At(vol.RPP, j)[1]
        seen == At(vol.RPP, j)[2]
        g == GroupOf[j]
    IN IF date > maxdate \/ ~other                    \* line 21 (RPP[j] is bottom inside the group)
       THEN LET \* reading 15: and the sender's incarnation
                sent == IF ConcurrentRestarts THEN <<IF sentEpoch = NoEpoch THEN srcEpoch ELSE sentEpoch>> ELSE <<>>
                v1 == IF other                                                  \* lines 24-25
                      THEN [vol EXCEPT !.RPP = Set(@, j, <<date, Append(seen, <<date, phase>> \o sent)>>)]
                      ELSE vol
                ack == other /\ At(v1.RamasseMiette, j)                          \* lines 29-31
                \* reading 8: what the committed checkpoint holds from j, not what
                \* came before this message: some came between checkpoint and commit
                covered == IF AckCheckpointed THEN At(LastSaved(stab, stab.line).RPP, j)[1] + 1 ELSE date
                v2 == IF ack THEN [v1 EXCEPT !.RamasseMiette = Set(@, j, FALSE)] ELSE v1
                out == IF ack THEN <<Send(Packet(p, j, "ack", <<covered>>, <<>>)), Note("acks_sent")>>
                       ELSE <<>>
            IN Step(v2, stab, effects \o out \o <<Deliver(Mail(m, <<date, phase, other>>))>>)  \* line 32
       ELSE IF g \notin vol.Redemarrage THEN Step(vol, stab, effects \o <<Note("duplicates_dropped")>>)
       \* re-sent by an incarnation a newer restart of j's group discarded: it
       \* will be re-sent again, and counted by that restart (line 56)
       ELSE IF srcEpoch # At(stab.known, g) THEN Step(vol, stab, effects \o <<Note("stale_dropped")>>)
       \* lines 33-34: an orphan re-sent by the re-execution; reading 4: its recorded phase;
       \* reading 14: the pair and the date, so that only a reported orphan is taken away
       ELSE Step(vol, stab, effects \o <<Send(Packet(p, Leader(j), "rp_no_orphan",
                                                     IF ConcurrentRestarts THEN <<At(stab.known, g), j, date>>
                                                     ELSE <<At(stab.known, g), RecordedPhase(seen, date, phase)>>,
                                                     <<>>)),
                                         Note("orphans_rereceived")>>)

\* lines 22-23, 26-28 at the application's reception
OnReceive(p, vol, stab, mail, src, tag) ==
    LET phase == mail.hdr[2]
        other == mail.hdr[3]
        v == IF Phases THEN [vol EXCEPT !.Phase = Max(@, IF other THEN phase + 1 ELSE phase)]   \* lines 23, 27
             ELSE vol
        out == IF Phases /\ other /\ phase + 1 > vol.Phase THEN <<Note("phase_raised_by_other_group")>> ELSE <<>>
    IN Step([v EXCEPT !.Date = @ + 1], stab, out)                               \* line 28

-----------------------------------------------------------------------------
(* Garbage collection: lines 36-42                                          *)
\* reading 2: p deletes from its own log the messages to P_j dated before MaxDate (line 41)
Ack(p, vol, stab, j, maxdate) ==
    LET keep == SelectSeq(vol.Enregistres,
                          LAMBDA e : e[1] # j \/ ~(IF GcInclusive THEN e[2] <= maxdate ELSE e[2] < maxdate))
    IN Step([vol EXCEPT !.Enregistres = keep], stab,
            IF Len(keep) < Len(vol.Enregistres) THEN <<Note("logged_messages_collected")>> ELSE <<>>)

-----------------------------------------------------------------------------
(* Group checkpoints: a blocking coordinated wave (reading 8)               *)
EndWave(vol) ==   \* line 38 at the commit (reading 8)
    [vol EXCEPT !.wave = 0, !.marks = {}, !.done = {}, !.taken = FALSE, !.RamasseMiette = [i \in 1..N |-> TRUE]]

Advance(p, vol, stab, out) ==
    LET w == vol.wave
        lead == Leader(p)
        take == ~vol.taken /\ Peers(p) \subseteq vol.marks   \* every peer is silent towards p
        v1 == IF take THEN [vol EXCEPT !.taken = TRUE, !.done = IF p = lead THEN @ \cup {p} ELSE @] ELSE vol
        s1 == IF take THEN [stab EXCEPT !.ckpts = Append(@, <<w, SavedOf(vol)>>)] ELSE stab   \* line 37
        o1 == IF take THEN out \o <<Checkpoint(w)>>
                           \o (IF p = lead THEN <<>> ELSE <<Send(Packet(p, lead, "done", <<vol.epoch, w>>, <<>>))>>)
              ELSE out
    IN IF p = lead /\ Group(p) \subseteq v1.done
       THEN Step(EndWave(v1), [s1 EXCEPT !.line = w], o1 \o ToEach(p, Asc(Peers(p)), "commit", <<v1.epoch, w>>))
       ELSE Step(v1, s1, o1)

StartWave(p, vol, stab) ==
    LET w == stab.waves + 1
        v == [vol EXCEPT !.wave = w]
    IN Advance(p, v, [stab EXCEPT !.waves = w], ToEach(p, Asc(Peers(p)), "mark", <<v.epoch, w, stab.line>>))

\* a mark <<epoch, wave, the sender's committed line>>, a done or a commit <<epoch, wave>>
OnWaveAt(p, vol, stab, pk, eff) ==
    LET e == pk.hdr[1]  w == pk.hdr[2] IN
    CASE pk.kind = "mark" ->
           \* reading 12: its sender joined wave w after the commit of p's wave (§3.1)
           LET next == vol.wave # 0 /\ w > vol.wave /\ NextWaveCommits
               c == IF next THEN EndWave(vol) ELSE vol
               s == IF next THEN [stab EXCEPT !.line = vol.wave] ELSE stab
               ce == IF next THEN eff \o <<Note("commit_implied_by_next_wave")>> ELSE eff
               j == IF c.wave = 0 THEN [c EXCEPT !.wave = w] ELSE c
               out == IF c.wave = 0 THEN ToEach(p, Asc(Peers(p)), "mark", <<e, w, s.line>>) ELSE <<>>
           IN Advance(p, [j EXCEPT !.marks = @ \cup {pk.src}], s, ce \o out)
      [] pk.kind = "done" -> Advance(p, [vol EXCEPT !.done = @ \cup {pk.src}], stab, eff)
      [] pk.kind = "commit" ->
           IF w <= stab.line THEN Step(vol, stab, eff \o <<Note("stale_dropped")>>)  \* reading 12: implied already
           ELSE Step(EndWave(vol), [stab EXCEPT !.line = w], eff)

-----------------------------------------------------------------------------
(* Failure: lines 44-49                                                     *)

\* Reading 16 (§2.1, §3.2, Fig. 5 lines 4, 37): a crash loses which groups
\* restart but not their epochs (reading 7), so p awaits the end of each it
\* knows to have restarted, with the buffer its image saved, until told again
AfterCrash(p, vol, stab, saved) ==
    IF ~ResendLost THEN vol
    ELSE LET dsts == {q \in All \ Group(p) : At(stab.known, GroupOf[q]) # 0}
                     \cup {saved.PasEnvoyes[i][1] : i \in DOMAIN saved.PasEnvoyes}
         IN [vol EXCEPT !.PasEnvoyes = saved.PasEnvoyes, !.waiting = dsts,
                        !.Redemarrage = {GroupOf[q] : q \in dsts}]

\* Reading 15: logged by an incarnation of k's group that a later restart
\* discarded; reading 18: unless the restored state of that restart has sent it
\* (reading 22: until p_k's own restart message tells that Date, it is not known to have)
Discarded(stab, k, date, epoch) ==
    epoch < At(stab.known, GroupOf[k])
    /\ (ResendLost => At(stab.since, k)[1] = At(stab.known, GroupOf[k]) /\ date > At(stab.since, k)[2])
\* Reading 22: logged by an incarnation of k's group that a later restart replaced,
\* whose restored Date p_k's restart message, still on its way, will tell
Undecided(stab, k, epoch) ==
    ResendLost /\ epoch < At(stab.known, GroupOf[k]) /\ At(stab.since, k)[1] < At(stab.known, GroupOf[k])

\* Lines 45-49 at one member: restore, Status <- Redemarrage, tell the other
\* groups. hasVol: p was up (what p knows of other groups' restarts is not
\* rolled back).
Rollback(p, vol, hasVol, stab, e, line, members) ==
    LET saved == LastSaved(stab, line)
        v0 == Fresh(saved, RESTART, e, line > 0)
        v1 == IF hasVol THEN [v0 EXCEPT !.Redemarrage = vol.Redemarrage, !.waiting = vol.waiting, !.rp = vol.rp]
              ELSE AfterCrash(p, v0, stab, saved)
        dsts == {saved.PasEnvoyes[i][1] : i \in DOMAIN saved.PasEnvoyes}
        \* reading 23: restored from another image since its crash, p knows nothing of what
        \* it sent since this one: the image's whole buffer, flushed when its group ends;
        \* reading 16: the image's buffer, less what was sent since
        v2 == IF hasVol /\ ResendLost /\ vol.Status = AWAIT
              THEN [v1 EXCEPT !.PasEnvoyes = saved.PasEnvoyes, !.waiting = vol.waiting \cup dsts,
                              !.Redemarrage = vol.Redemarrage \cup {GroupOf[q] : q \in dsts}]
              ELSE IF hasVol /\ ResendLost
              THEN [v1 EXCEPT !.PasEnvoyes = SelectSeq(saved.PasEnvoyes, LAMBDA x : x \in Range(vol.PasEnvoyes))]
              ELSE v1
    IN Step(v2, [stab EXCEPT !.line = line, !.epoch = e],
            <<Restore(line)>>
            \* reading 3: the restored Date, and what p had received from q at the line
            \o Map(LAMBDA q : Send(Packet(p, q, "restart", <<e, v2.Date, At(v2.RPP, q)[1], members>>, <<>>)),
                   Asc(All \ Group(p))))

(* Fig. 6 lines 19-24: replay every phase up to the lowest one that waits   *)
(* for an orphan (line 20, reading 5), in rrcheck's order (phase, dst,      *)
(* date, sender); when none waits, FinRedemarrage to the members (lines     *)
(* 23-24, reading 6).                                                       *)
Lex4Less(a, b) == \E i \in 1..4 : a[i] < b[i] /\ \A j \in 1..(i - 1) : a[j] = b[j]
NotificationPhases(p, vol, stab, rp0) ==
    LET waitingPh == IF ConcurrentRestarts THEN {o[4] : o \in rp0.orphans}   \* reading 14
                     ELSE {rp0.NbOrphPhase[i][1] : i \in {j \in DOMAIN rp0.NbOrphPhase : rp0.NbOrphPhase[j][2] > 0}}
        \* reading 15: logged by an incarnation its group's restart discarded since
        \* (reading 22: kept, neither replayed nor dropped, until that is known)
        undecided == IF ConcurrentRestarts
                     THEN {rp0.Enregistres[i] : i \in {j \in DOMAIN rp0.Enregistres :
                                                     Undecided(stab, rp0.Enregistres[j][4], rp0.Enregistres[j][6])}}
                     ELSE {}
        rp == IF ConcurrentRestarts
              THEN [rp0 EXCEPT !.Enregistres = SelectSeq(@, LAMBDA x : ~Discarded(stab, x[4], x[3], x[6]))]
              ELSE rp0
        low == IF waitingPh = {} THEN 0 ELSE CHOOSE x \in waitingPh : \A y \in waitingPh : x <= y
        go == SortSeq(SelectSeq(rp.Enregistres, LAMBDA x : (waitingPh = {} \/ x[1] <= low) /\ x \notin undecided),
                      Lex4Less)
        out == Map(LAMBDA x : Send(Packet(p, x[2], "replay", <<rp.epoch, x[3], x[1], x[4]>>
                                                            \o (IF ConcurrentRestarts THEN <<x[6]>> ELSE <<>>),
                                          <<x[5]>>)), go)
        held == Len(rp.Enregistres) - Len(go)
        notes == IF held > 0 THEN <<Note("replays_held_for_orphans")>> ELSE <<>>
        rp2 == [rp EXCEPT !.Enregistres = SelectSeq(@, LAMBDA x : x \notin Range(go))]
    IN IF waitingPh = {} /\ undecided = {}                                    \* lines 23-24
       THEN Step([vol EXCEPT !.rp = NoRP], stab, out \o ToEach(p, rp.members, "end", <<rp.epoch>>) \o notes)
       ELSE Step([vol EXCEPT !.rp = rp2], stab, out \o notes)

\* At the leader: a new epoch; every P of the group (line 46) rolls back to
\* the committed line, and the leader starts the restart process (§3.2).
\* hasVol: the leader is up (a member's "failed"), else it restarts itself.
GroupRestart(p, vol, hasVol, stab, failedP) ==
    LET e == Max(stab.epoch, IF hasVol THEN vol.epoch ELSE 0) + 1
        members == IF GroupRollback THEN Asc(Group(p)) ELSE <<failedP>>   \* mutant: the failed one alone
        r == IF p \in Range(members) THEN Rollback(p, vol, hasVol, [stab EXCEPT !.epoch = e], e, stab.line, members)
             ELSE Step(vol, stab, <<>>)
        \* Fig. 6's local variables, for this restart: Enregistres (lines 2, 5-6:
        \* <<phase, dst, date, sender, msg>>), NbOrphPhase (line 1), the
        \* (process, restarting process) pairs heard (line 11) and how many there are;
        \* reading 14: notified with the reporter's epoch, the orphans still awaited
        rp == [epoch |-> e, Enregistres |-> <<>>, NbOrphPhase |-> <<>>, notified |-> {}, orphans |-> {},
               expected |-> Len(members) * (N - Cardinality(Group(p))), members |-> members]
        out == r.eff \o ToEach(p, SelectSeq(members, LAMBDA q : q # p), "rollback", <<e, stab.line, members>>)
    IN IF rp.expected > 0 THEN Step([r.vol EXCEPT !.rp = rp], r.stab, out)
       ELSE LET np == NotificationPhases(p, r.vol, r.stab, rp) IN   \* no other group to hear from
            Step(np.vol, np.stab, out \o np.eff)

OnRestart(p, stab) ==
    IF p = Leader(p) THEN GroupRestart(p, NoRP, FALSE, stab, p)
    \* a member restores its committed checkpoint and asks the leader to restart the group
    ELSE Step(AfterCrash(p, Fresh(LastSaved(stab, stab.line), AWAIT, stab.epoch, FALSE), stab,
                         LastSaved(stab, stab.line)), stab,
              <<Restore(stab.line), Send(Packet(p, Leader(p), "failed", <<stab.epoch>>, <<>>))>>)

-----------------------------------------------------------------------------
(* At the other groups: lines 51-58 and 60-64                               *)
OnRestartMsg(p, vol, stab, pk) ==
    LET e == pk.hdr[1]  dateRe == pk.hdr[2]  maxdate == pk.hdr[3]  members == pk.hdr[4]
        k == pk.src
        g == GroupOf[k]
        again == Len(pk.hdr) > 4                                                 \* reading 13: told again
        new == e > At(stab.known, g)                                             \* line 52
        \* reading 18: the Date p_k restored (or re-executed since, reading 17);
        \* reading 22: learnt from p_k's own restart message, for that restart
        wasE == At(stab.since, k)[1]
        st0 == IF ResendLost
               THEN [stab EXCEPT !.since = Set(@, k, <<e, IF e > wasE THEN dateRe ELSE Max(dateRe, At(@, k)[2])>>)]
               ELSE stab
        st == IF new THEN [st0 EXCEPT !.known = Set(@, g, e)] ELSE st0
        \* reading 13: p_k's restart is not over (its FinRedemarrage follows on this
        \* channel); p may have lost line 52 with its own rollback
        v1 == IF new THEN [vol EXCEPT !.Redemarrage = @ \cup {g}, !.waiting = @ \cup Range(members)]
              ELSE IF ConcurrentRestarts THEN [vol EXCEPT !.Redemarrage = @ \cup {g}, !.waiting = @ \cup {k}]
              ELSE vol
        \* reading 13 (§2.1, §3.2: several groups restart at once): p_k rolled back and
        \* lost what it knew and said of p's restart, so p tells it again
        saved == LastSaved(st, st.line)
        \* reading 17: with the date the re-execution has reached, not the restored one
        told == IF ConcurrentRestarts /\ v1.Status = RESTART /\ ~again
                THEN <<Send(Packet(p, k, "restart", <<v1.epoch, IF ResendLost THEN v1.Date ELSE saved.Date,
                                                      At(saved.RPP, k)[1],
                                                      \* reading 20: line 52 adds the teller's whole group
                                                      IF GroupRollback /\ ToldAgainNamesGroup
                                                      THEN Asc(Group(p)) ELSE <<p>>,
                                                      TRUE>>, <<>>))>>
                \* reading 16: p's restart is over; p_k's rollback may have lost its FinRedemarrage
                ELSE IF ResendLost /\ v1.Status = RUN /\ v1.epoch # 0 /\ ~again
                THEN <<Send(Packet(p, k, "end", <<v1.epoch>>, <<>>))>>
                ELSE <<>>
        \* reading 17: what k's restored state holds of p's messages
        vh == IF ResendLost THEN [v1 EXCEPT !.holds = {h \in @ : h[1] # k} \cup {<<k, maxdate>>}] ELSE v1
        \* lines 53-54; what p buffered for k is logged too, so it goes with them;
        \* reading 13: told again, what p buffered for k since is flushed at k's FinRedemarrage
        \* reading 21: what is dated no later than Maxdate is not (line 53): flushed at lines 60-63
        v2 == IF again THEN vh
              ELSE [vh EXCEPT !.PasEnvoyes = SelectSeq(@, LAMBDA x : x[1] # k \/ (ResendLost /\ x[2] <= maxdate))]
        held == IF again THEN Range(vh.PasEnvoyes) ELSE {}
        logs == SelectSeq(v2.Enregistres, LAMBDA x : x[1] = k /\ x[2] > maxdate /\ x \notin held)
        mine == IF ConcurrentRestarts THEN <<v2.epoch>> ELSE <<>>   \* reading 15: the logging incarnation
        out == Map(LAMBDA x : Send(Packet(p, Leader(k), "rp_log", <<e, x[2], x[3]>> \o mine, <<x[4]>>)), logs)
        \* lines 55-57: the phases of the orphans p holds from k (reading 4: with multiplicity);
        \* readings 14-15: by date, sent before restart e, and p's own epoch
        dated == Map(LAMBDA x : <<x[1], x[2]>>, SelectSeq(At(v2.RPP, k)[2], LAMBDA x : x[1] > dateRe /\ x[3] < e))
        phases == IF ConcurrentRestarts THEN Map(LAMBDA x : x[2], dated)
                  ELSE Map(LAMBDA x : x[2], SelectSeq(At(v2.RPP, k)[2], LAMBDA x : x[1] > dateRe))
        report == IF ConcurrentRestarts THEN <<e, k, dated, v2.epoch>> ELSE <<e, k, phases>>
        notes == (IF logs # <<>> THEN <<Note("logged_messages_resent")>> ELSE <<>>)
                 \o (IF phases # <<>> THEN <<Note("orphan_phases_reported")>> ELSE <<>>)
        ans == told \o out \o <<Send(Packet(p, Leader(k), "rp_orphans", report, <<>>))>> \o notes   \* line 58
        \* reading 22: p's restart process may now decide on what p_k logged before its restart
        np == NotificationPhases(p, v2, st, v2.rp)
    IN IF e < At(stab.known, g) THEN Step(vol, stab, <<Note("stale_dropped")>>)
       \* reading 24: restored but not yet told its line (reading 8), p has no state to answer
       \* from (line 47); its rollback's restart message brings the question again (reading 13)
       ELSE IF ResendLost /\ vol.Status = AWAIT THEN Step(vh, st, <<>>)
       ELSE IF ResendLost /\ v2.rp # NoRP /\ Cardinality(v2.rp.notified) >= v2.rp.expected
       THEN Step(np.vol, np.stab, ans \o np.eff)
       ELSE Step(v2, st, ans)

OnEnd(p, vol, stab, pk) ==
    LET e == pk.hdr[1]  k == pk.src  g == GroupOf[k] IN
    IF SameGroup(p, k)   \* from the restart process: p's restart is over (reading 6)
    THEN IF e # vol.epoch \/ vol.Status # RESTART THEN Step(vol, stab, <<Note("stale_dropped")>>)
         ELSE Step([vol EXCEPT !.Status = RUN], stab,
                   ToEach(p, Asc(All \ Group(p)), "end", <<e>>) \o <<Note("restarts_ended")>>)
    ELSE IF e # At(stab.known, g) \/ k \notin vol.waiting THEN Step(vol, stab, <<Note("stale_dropped")>>)
    \* lines 60-63 for member k; reading 7: each buffered message with its own date and phase
    ELSE LET fl == SelectSeq(vol.PasEnvoyes, LAMBDA x : x[1] = k)
             out == Map(LAMBDA x : Send(App(p, vol, stab, x[1], x[2], x[3], x[4])), fl)
             v0 == IF FlushEmptiesBuffer THEN [vol EXCEPT !.PasEnvoyes = SelectSeq(@, LAMBDA x : x[1] # k)]
                   ELSE vol                                                    \* line 63
             v1 == [v0 EXCEPT !.waiting = @ \ {k}, !.holds = {h \in @ : h[1] # k}]
             v2 == IF \E x \in v1.waiting : GroupOf[x] = g THEN v1
                   ELSE [v1 EXCEPT !.Redemarrage = @ \ {g}]                    \* line 64
         IN Step(v2, stab, out \o (IF fl # <<>> THEN <<Note("buffered_messages_flushed")>> ELSE <<>>))

-----------------------------------------------------------------------------
(* The restart process: Fig. 6                                              *)
\* NbOrphPhase as a sequence of <<phase, count>> in ascending phase, d added to ph's count
AddCount(nb, ph, d) ==
    LET ps == {nb[i][1] : i \in DOMAIN nb} \cup {ph}
        old(x) == LET is == {i \in DOMAIN nb : nb[i][1] = x} IN IF is = {} THEN 0 ELSE nb[CHOOSE i \in is : TRUE][2]
    IN Map(LAMBDA x : <<x, old(x) + (IF x = ph THEN d ELSE 0)>>, Asc(ps))
RECURSIVE AddAll(_, _)
AddAll(nb, phs) == IF phs = <<>> THEN nb ELSE AddAll(AddCount(nb, Head(phs), 1), Tail(phs))

\* reading 5: every notification heard, the phases go (Fig. 6 lines 11-12, 16-17)
Counted(p, vol, stab, rp2) ==
    IF Cardinality(rp2.notified) < rp2.expected THEN Step([vol EXCEPT !.rp = rp2], stab, <<>>)
    ELSE NotificationPhases(p, vol, stab, rp2)

\* Fig. 6 lines 8-10 and 14-15 per (reporter, restarting process) pair (reading 14)
CountOrphans(p, vol, stab, pk, rp) ==
    IF pk.kind = "rp_no_orphan"                                                 \* lines 14-15
    THEN Counted(p, vol, stab, [rp EXCEPT !.orphans = {o \in @ : ~(o[1] = pk.src /\ o[2] = pk.hdr[2]
                                                                      /\ o[3] = pk.hdr[3])}])
    ELSE LET j == pk.src  k == pk.hdr[2]  dated == pk.hdr[3]  ep == pk.hdr[4]  \* lines 8-10
             before == {x \in rp.notified : x[1] = j /\ x[2] = k}
         IN IF \E x \in before : x[3] >= ep THEN Step(vol, stab, <<Note("stale_dropped")>>)  \* counted once
            ELSE Counted(p, vol, stab,
                         [rp EXCEPT !.orphans = {o \in @ : ~(o[1] = j /\ o[2] = k)}
                                                \cup {<<j, k, d[1], d[2]>> : d \in Range(dated)},
                                    !.notified = (@ \ before) \cup {<<j, k, ep>>}])

RestartProcess(p, vol, stab, pk) ==
    LET rp == vol.rp IN
    IF rp = NoRP THEN Step(vol, stab, <<Note("stale_dropped")>>)
    ELSE IF pk.hdr[1] # rp.epoch THEN Step(vol, stab, <<Note("stale_dropped")>>)
    ELSE IF pk.kind = "rp_log"                                        \* Fig. 6 lines 5-6
    THEN LET mine == Len(pk.hdr) > 3
             entry == <<pk.hdr[3], pk.msg[1].dst, pk.hdr[2], pk.src, pk.msg[1]>> \o (IF mine THEN <<pk.hdr[4]>> ELSE <<>>)
         IN IF mine /\ (Discarded(stab, pk.src, pk.hdr[2], pk.hdr[4]) \/ entry \in Range(rp.Enregistres))
            THEN Step(vol, stab, <<Note("stale_dropped")>>)            \* reading 15, or taken already
            ELSE Step([vol EXCEPT !.rp.Enregistres = Append(@, entry)], stab, <<>>)
    ELSE IF ConcurrentRestarts THEN CountOrphans(p, vol, stab, pk, rp)
    ELSE LET rp2 == IF pk.kind = "rp_orphans"                            \* Fig. 6 lines 8-12
                    THEN [rp EXCEPT !.NbOrphPhase = AddAll(@, pk.hdr[3]), !.notified = @ \cup {<<pk.src, pk.hdr[2]>>}]
                    ELSE [rp EXCEPT !.NbOrphPhase = AddCount(@, pk.hdr[2], -1)]   \* Fig. 6 lines 14-17
         IN IF Cardinality(rp2.notified) < rp2.expected   \* reading 5
            THEN Step([vol EXCEPT !.rp = rp2], stab, <<>>)
            ELSE NotificationPhases(p, vol, stab, rp2)

\* a wave packet on the wire (the wave above, after the epoch checks)
OnWave(p, vol, stab, pk) ==
    LET e == pk.hdr[1] IN
    IF pk.kind = "mark" /\ e > vol.epoch /\ NewerMarkRestarts /\ GroupRollback
    \* reading 11: lines 46-48 roll the whole group back, so a peer's mark of a
    \* newer epoch implies p's rollback, still on its way
    THEN LET r == Rollback(p, vol, TRUE, stab, e, pk.hdr[3], Asc(Group(p))) IN
         OnWaveAt(p, r.vol, r.stab, pk, r.eff \o <<Note("rollback_implied_by_mark")>>)
    ELSE IF e # vol.epoch \/ vol.Status = AWAIT THEN Step(vol, stab, <<Note("stale_dropped")>>)
    ELSE OnWaveAt(p, vol, stab, pk, <<>>)

\* an application message on the wire (the reception above, after the epoch checks)
AppPacket(p, vol, stab, pk) ==
    LET date == pk.hdr[1]  phase == pk.hdr[2]  epoch == pk.hdr[4]  line == pk.hdr[5]  srcEpoch == pk.hdr[6]
        internal == SameGroup(p, pk.src)
        held == ResendLost /\ ~internal /\ date <= At(vol.RPP, pk.src)[1]   \* reading 17: p's restored state holds it
    IN IF epoch < vol.epoch /\ (IF GroupRollback THEN TRUE ELSE ~internal) /\ ~held
       \* sent before its sender heard of this group's restart (reading 7)
       THEN Step(vol, stab, <<Note("stale_dropped")>>)
       ELSE IF epoch > vol.epoch /\ internal /\ GroupRollback
       \* a peer restarted and re-executes; the rollback itself is still on its way
       THEN LET r == Rollback(p, vol, TRUE, stab, epoch, line, Asc(Group(p))) IN
            Receive(p, r.vol, r.stab, pk.src, date, phase, pk.msg[1], r.eff, srcEpoch, NoEpoch)
       ELSE Receive(p, vol, stab, pk.src, date, phase, pk.msg[1], <<>>, srcEpoch, NoEpoch)

-----------------------------------------------------------------------------
(* The handlers the system model calls                                      *)
OnPacket(p, vol, stab, pk) ==
    CASE pk.kind = "app" -> AppPacket(p, vol, stab, pk)
      [] pk.kind = "replay" ->
           IF pk.hdr[1] # vol.epoch \/ vol.Status # RESTART THEN Step(vol, stab, <<Note("stale_dropped")>>)
           \* reading 15: logged by an incarnation a later restart of its group discarded
           \* (reading 22: one not yet known to be is delivered; line 56 reports it as an orphan)
           ELSE IF Len(pk.hdr) > 4 /\ Discarded(stab, pk.hdr[4], pk.hdr[2], pk.hdr[5])
           THEN Step(vol, stab, <<Note("stale_dropped")>>)
           ELSE Receive(p, vol, stab, pk.hdr[4], pk.hdr[2], pk.hdr[3], pk.msg[1], <<Note("replayed_messages")>>, NoEpoch,
                        IF Len(pk.hdr) > 4 THEN pk.hdr[5] ELSE NoEpoch)
      [] pk.kind = "ack" -> Ack(p, vol, stab, pk.src, pk.hdr[1])
      [] pk.kind \in {"mark", "done", "commit"} -> OnWave(p, vol, stab, pk)
      [] pk.kind = "failed" -> GroupRestart(p, vol, TRUE, stab, pk.src)
      [] pk.kind = "rollback" ->
           IF pk.hdr[1] <= vol.epoch /\ vol.Status # AWAIT THEN Step(vol, stab, <<Note("stale_dropped")>>)
           ELSE Rollback(p, vol, TRUE, stab, pk.hdr[1], pk.hdr[2], pk.hdr[3])
      [] pk.kind = "restart" -> OnRestartMsg(p, vol, stab, pk)
      [] pk.kind = "end" -> OnEnd(p, vol, stab, pk)
      [] pk.kind \in {"rp_log", "rp_orphans", "rp_no_orphan"} -> RestartProcess(p, vol, stab, pk)

InternalSteps(p, vol, stab, mayCheckpoint) ==
    IF mayCheckpoint /\ p = Leader(p) /\ vol.Status = RUN /\ vol.rp = NoRP /\ vol.wave = 0
    THEN {"checkpoint"} ELSE {}
OnInternal(p, vol, stab, label) == StartWave(p, vol, stab)

Holdings(p, vol, stab) ==
    {vol.Enregistres[i][4] : i \in DOMAIN vol.Enregistres}
    \cup {vol.PasEnvoyes[i][4] : i \in DOMAIN vol.PasEnvoyes}
    \cup (IF vol.rp = NoRP THEN {} ELSE {vol.rp.Enregistres[i][5] : i \in DOMAIN vol.rp.Enregistres})
RecordedChannels(p, stab, cid) == <<>>
Recovering(p, vol) == IF vol.Status # RUN THEN TRUE ELSE vol.rp # NoRP
RecoveryKinds == {"failed", "rollback", "restart", "rp_log", "rp_orphans", "rp_no_orphan", "replay", "end"}
CoordinatedWith(p) == Group(p)
ScopeOf(f) == UNION {Group(x) : x \in f}
\* a restart restores; a rollback of a live process takes a new epoch
RestoredTo(p, before, after) ==
    IF after.alive /\ (IF before.alive THEN after.stab.epoch # before.stab.epoch ELSE TRUE)
    THEN {after.stab.line} ELSE {}

\* RecoveryBound counts no restart here: only a failed process rolls back, at its
\* restart (or, where survivors roll back, the bound is not declared yet)
RestartsHeard(p, stab) == 0

-----------------------------------------------------------------------------
Sys == INSTANCE RollbackRecovery

(* §3.2, CausalReplayOrder (checker/invariants/send_deterministic.py): no  *)
(* process delivers a message whose causal past holds a send of its own    *)
(* group that the group's re-execution has not made again. The causal past *)
(* of a message, counted per process in sends, is read off its payload     *)
(* term: <<"pay", acc, pc>> folds every reception before the send.         *)
SendsBefore(p, pc) == Cardinality({i \in 1..pc : Prog[p][i][1] \in {"send", "reply"}})
RECURSIVE PastOfAcc(_), PastOfPay(_, _)
PastOfAcc(acc) ==
    IF acc[1] = "init" THEN [q \in All |-> 0]
    ELSE IF acc[1] = "sum"   \* a base, and a bag of <<src, payload>>
    THEN LET a == PastOfAcc(acc[2])
             ps == {PastOfPay(x[1], x[2]) : x \in DOMAIN acc[3]}
         IN [q \in All |-> Max(a[q], Biggest({v[q] : v \in ps}))]
    ELSE LET a == PastOfAcc(acc[2])  b == PastOfPay(acc[3], acc[4]) IN [q \in All |-> Max(a[q], b[q])]
PastOfPay(src, pay) == [PastOfAcc(pay[2]) EXCEPT ![src] = SendsBefore(src, pay[3]) + 1]
RECURSIVE SumLen(_, _)
SumLen(s, i) == IF i >= N THEN 0 ELSE Len(s[i]) + SumLen(s, i + 1)
SentCount(pr) == SumLen(pr.ghost.sent, 0)
CausalOK(r) ==
    LET o == procs'[r].ghost.order
        src == o[Len(o)][1]
        d == procs'[r].ghost.delivered[src]
        past == PastOfPay(src, d[Len(d)][2])
    IN \A q \in Group(r) :
          LET qv == procs'[q].vol IN
          IF past[q] = 0 \/ ~procs'[q].alive THEN TRUE
          ELSE IF qv.epoch # procs'[r].vol.epoch \/ qv.Status = AWAIT THEN TRUE
          ELSE past[q] <= SentCount(procs'[q])
CausalReplayOrderAction ==
    \A r \in All : (\E i \in DOMAIN procs[r].mailbox : Sys!AppRecv(r, i)) => CausalOK(r)

\* Fig. 5-6: every restart ends. Judged where a run ends (every process finished, no
\* recovery under way), as rrcheck's judge does: a run stuck in a restart is Termination's
\* (a recovery unfinished), so each property has one meaning in both engines
RestartTermination ==
    Sys!Ended => \A p \in All :
        procs[p].alive => /\ procs[p].vol.Status = RUN /\ procs[p].vol.rp = NoRP
                          /\ procs[p].vol.Redemarrage = {} /\ procs[p].vol.PasEnvoyes = <<>>

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
CausalReplayOrder == [][CausalReplayOrderAction]_vars
=============================================================================
