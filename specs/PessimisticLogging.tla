------------------------- MODULE PessimisticLogging -------------------------
(***************************************************************************)
(* Pessimistic message logging as Hugo D. Meyer describes it in "Fault     *)
(* Tolerance in Multicore Clusters. Techniques to Balance Performance and  *)
(* Dependability" (PhD thesis, Universitat Autonoma de Barcelona, 2014),   *)
(* chapter 4: sender-based logging, SBML (§4.1.1, Fig. 4.1), receiver-     *)
(* based logging, RBML (§4.1.2, Fig. 4.2), and the hybrid of the two, HMPL *)
(* (§4.2, Figs. 4.3-4.6), with RADIC's logger placement (§2.3).            *)
(*                                                                         *)
(* One engine, three protocols that differ by knobs, as rrcheck's          *)
(* protocols/rbml.py (ReceiverBased), protocols/logging.py (ThesisSBML)   *)
(* and protocols/hmpl.py (Hybrid), whose records and field names this      *)
(* module keeps:                                                           *)
(*  - t1: the sender takes the next SSN for the destination and keeps      *)
(*    (dst, SSN, M) in its temporary buffer tb (SBML's Message Log);       *)
(*  - the receiver's FT layer checks the SSN against its Table of SSN      *)
(*    (tssn): duplicates are dropped (and released again), a gap waits    *)
(*    for the re-send;                                                     *)
(*  - t2: when the application matches M, M gets the next RSN and enters   *)
(*    the receiver TB (rtb); the log packet (RSN, src, SSN) goes to the    *)
(*    holder of that log: the logger L2 on the next node of the ring       *)
(*    (RBML, HMPL) or the sender (SBML, the RSN ACK), at once or as a step *)
(*    of its own (ForwardAtReception);                                     *)
(*  - t4-t6: the holder saves the entry (lg), confirms it (a step of its    *)
(*    own), and the receiver erases it from rtb and (t7) tells the sender  *)
(*    to erase M from its tb;                                              *)
(*  - RBML and SBML: the receiver sends nothing while rtb is not empty;    *)
(*    HMPL goes on, but waits after a wildcard reception (§4.2.3);         *)
(*  - recovery (§4.1.2, Fig. 4.5): restart from the checkpoint, fetch the  *)
(*    log from every holder, replay it in RSN order (an RSN whose holder   *)
(*    died with the receiver goes to a message the log does not name),     *)
(*    then ask the senders' TBs for what came after; a restarted holder    *)
(*    has the processes it protected checkpoint again (RADIC);             *)
(*  - garbage collection (§4.1.1, §4.1.2): a checkpoint tells the holders  *)
(*    which entries it covers.                                             *)
(*                                                                         *)
(* Knobs (CONSTANTS; rrcheck's names in checker/tla/model.py): LogAtSender *)
(* (SBML's holders are the senders) and LogEvents, BlockSends,             *)
(* BlockOnWildcard, LogChoices, SenderTB, ReleaseAt ("t2", "t6", "never"),  *)
(* LoggerDropsUnacked, DropDuplicates, Placement ("next-node",             *)
(* "same-node"), TbQuery ("after-log", "before-log", "none"),              *)
(* CompetingErasure ("own-sender", "any-sender"), FlushBeforeCheckpoint,   *)
(* GcAfterDurable, ReplayOrder ("rsn", "arrival"), SenderErasesOnNextSend, *)
(* ForwardAtReception, CheckpointTB, RetryFetch, FillRsnGaps.              *)
(* The properties of chapter 4 ("Safety properties for HMPL") are the ones *)
(* of checker/invariants/hmpl.py: ErasureOrder and GCBehindCheckpoint on   *)
(* transitions, LoggedOnce, LoggerPlacement, TBBound, BuffersErased on     *)
(* states.                                                                 *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC, RRValues

CONSTANTS N, Prog, NodeOf, GroupOf, Fifo, MaxFailures, MaxCheckpoints, CrashKinds,
          AtSites, NoFailureDuringRecovery
CONSTANTS LogAtSender, LogEvents, BlockSends, BlockOnWildcard, LogChoices, SenderTB, ReleaseAt,
          LoggerDropsUnacked, DropDuplicates, Placement, TbQuery, CompetingErasure,
          FlushBeforeCheckpoint, GcAfterDurable, ReplayOrder, SenderErasesOnNextSend,
          ForwardAtReception, CheckpointTB, RetryFetch, FillRsnGaps

VARIABLES procs, wire, failures, failed
vars == <<procs, wire, failures, failed>>

All == 0..(N - 1)
CHOICE == -1                         \* the "source" of a logged nondet outcome (its SSN: the outcome)
\* Python's None where rrcheck's value views meet it (a log entry without its
\* payload, an erase of every entry): the record they render it as
Nil == [crashed |-> TRUE]
IsNil(x) == ToString(x) = ToString(Nil)   \* x may be a number: = would not compare them
At(t, i) == t[i + 1]                 \* t indexed from 0, as rrcheck's tuples
Set(t, i, v) == [t EXCEPT ![i + 1] = v]
Max(a, b) == IF a > b THEN a ELSE b
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y
Zeros == [i \in 1..N |-> 0]
Ids == [i \in 1..N |-> i - 1]
Asc(S) == SelectSeq(Ids, LAMBDA q : q \in S)            \* ascending, as rrcheck iterates
SeqSet(s) == {s[i] : i \in DOMAIN s}
LexLess(a, b) == \E i \in DOMAIN a : a[i] < b[i] /\ \A j \in 1..(i - 1) : a[j] = b[j]
RECURSIVE Concat(_)
Concat(ss) == IF ss = <<>> THEN <<>> ELSE Head(ss) \o Concat(Tail(ss))

\* t7 at all: does the sender's copy go once the receiver is done with it?
Releases == SenderTB /\ ReleaseAt # "never"

-----------------------------------------------------------------------------
(* Where the logs live (RADIC §2.3): the logger of p is a thread on the    *)
(* next node of the ring, in the memory of that node's first process; on   *)
(* one node (or with the mutant's same-node placement), p itself. In SBML  *)
(* the log of a reception is held by its sender.                           *)
NodeIds == {NodeOf[p] : p \in All}
NextNode(x) == IF \E y \in NodeIds : y > x THEN MinOf({y \in NodeIds : y > x}) ELSE MinOf(NodeIds)
Host(p) == IF Placement = "same-node" \/ Cardinality(NodeIds) = 1 THEN p
           ELSE MinOf({q \in All : NodeOf[q] = NextNode(NodeOf[p])})
Holders(p) == IF LogAtSender THEN Others(p, N) ELSE <<Host(p)>>
HolderSet(p) == SeqSet(Holders(p))
HolderOf(p, src) == IF LogAtSender THEN src ELSE Host(p)
ProtectedBy(q) == IF LogAtSender THEN Others(q, N) ELSE Asc({p \in All : Host(p) = q})

-----------------------------------------------------------------------------
(* State. Saved: what a checkpoint keeps of the FT layer (all but the      *)
(* Table of RSN, §4.1.1), the sender TB with it (the process image).       *)
(* Log entries: <<RSN, src, SSN, M or Nil, acked>>; rtb, replay:           *)
(* <<RSN, src, SSN>>; tb: <<dst, SSN, M>>.                                 *)
Saved0 == [ssn |-> Zeros, tssn |-> Zeros, got |-> Zeros, conf |-> Zeros, rsn |-> 0, tb |-> <<>>]
NewVol(s, tb, stage, awaiting) ==
    [ssn |-> s.ssn, tssn |-> s.tssn, got |-> s.got, conf |-> s.conf, rsn |-> s.rsn, tb |-> tb,
     rtb |-> <<>>, wait |-> 0, stage |-> stage, replay |-> <<>>, awaiting |-> awaiting,
     lg |-> [i \in 1..N |-> <<>>], gc |-> 0, unsent |-> <<>>]
ProtoInit(p) == <<NewVol(Saved0, <<>>, "run", {}), [ckpts |-> << <<0, Saved0>> >>, line |-> 0]>>
SavedAt(stab) == stab.ckpts[CHOOSE i \in DOMAIN stab.ckpts : stab.ckpts[i][1] = stab.line][2]

TakeCheckpoint(vol, stab) ==
    LET cid == stab.ckpts[Len(stab.ckpts)][1] + 1        \* cids grow: the last is the largest
        s == [ssn |-> vol.ssn, tssn |-> vol.tssn, got |-> vol.got, conf |-> vol.conf, rsn |-> vol.rsn,
              tb |-> IF CheckpointTB THEN vol.tb ELSE <<>>]
    IN Step(vol, [ckpts |-> Append(stab.ckpts, <<cid, s>>), line |-> cid], <<Checkpoint(cid)>>)

\* §4.1.1, §4.1.2: tell the holders of p's log what the checkpoint covers
Gc(p, vol) == Map(LAMBDA q : Send(Packet(p, q, "gc", <<vol.rsn, At(vol.tssn, q)>>, <<>>)), Holders(p))

Erase(p, q, x) == Send(Packet(p, q, "erase", <<x>>, <<>>))

-----------------------------------------------------------------------------
(* The application                                                          *)
Blocked(vol) == vol.stage = "fetch" \/ vol.wait # 0

\* guards are written with IF (see RollbackRecovery: TLC takes each true disjunct as a successor)
MaySend(p, vol, dst) ==
    IF Blocked(vol) THEN FALSE
    ELSE IF BlockSends THEN vol.rtb = <<>>           \* §4.1.1, §4.1.2: nothing until logged
    ELSE TRUE

\* t1: (M, SSN) into the sender's TB, then the send
OnSend(p, vol, stab, m) ==
    LET dst == m.dst
        ssn == At(vol.ssn, dst) + 1
        v1 == [vol EXCEPT !.ssn = Set(@, dst, ssn)]
        tb == IF SenderErasesOnNextSend THEN SelectSeq(v1.tb, LAMBDA e : e[1] # dst) ELSE v1.tb
        v == IF SenderTB THEN [v1 EXCEPT !.tb = Append(tb, <<dst, ssn, m>>)] ELSE v1
    IN Step(v, stab, <<Send(Packet(p, dst, "app", <<ssn>>, <<m>>))>>)

Det(e) == <<e[2], e[3]>>
\* the next RSN is missing from the collected log: its holder died with the
\* receiver (a node crash); a message the log does not name takes it (§4.1.1)
Gap(vol) == IF FillRsnGaps /\ ReplayOrder = "rsn" THEN Head(vol.replay)[1] > vol.rsn + 1 ELSE FALSE

MayMatch(p, vol, mail) ==
    IF Blocked(vol) THEN FALSE
    ELSE IF vol.replay = <<>> THEN TRUE
    ELSE LET det == <<mail.msg.src, mail.hdr[1]>> IN
         IF Gap(vol) THEN ~\E i \in DOMAIN vol.replay : Det(vol.replay[i]) = det
         ELSE Det(Head(vol.replay)) = det

MayChoose(p, vol, k, c) ==
    IF Blocked(vol) THEN FALSE
    ELSE IF vol.replay # <<>> THEN Det(Head(vol.replay)) = <<CHOICE, c>>
    ELSE TRUE

\* Fig. 4.5: the log consumed, ask each sender's TB for what came after tssn;
\* what the checkpoint and the log hold is safe and may be erased
Queries(p, vol, stab) ==
    LET s == SavedAt(stab) IN
    Map(LAMBDA q : Send(Packet(p, q, "tbq", <<At(vol.tssn, q), Max(At(s.tssn, q), At(vol.conf, q))>>, <<>>)),
        Others(p, N))
EndReplay(p, vol, stab) ==
    LET v == [vol EXCEPT !.stage = "run"] IN
    IF SenderTB /\ TbQuery = "after-log" THEN Step(v, stab, Queries(p, v, stab)) ELSE Step(v, stab, <<>>)

\* a reception forced by the log; from t6 the sender is released (§4.2.2)
Replayed(p, vol, stab, det) ==
    LET src == det[1]  ssn == det[2]
        v0 == [vol EXCEPT !.rsn = @ + 1, !.replay = Tail(@)]
        v == IF src # CHOICE THEN [v0 EXCEPT !.conf = Set(@, src, Max(At(@, src), ssn))] ELSE v0
        out == IF src # CHOICE /\ Releases THEN <<Erase(p, src, ssn)>> ELSE <<>>
    IN IF v.replay = <<>> /\ v.stage = "replay"
       THEN LET e == EndReplay(p, v, stab) IN Step(e.vol, e.stab, out \o e.eff)
       ELSE Step(v, stab, out)

\* t2: the next RSN, the receiver TB, the log packet to the holder (m: <<>> or <<M>>)
Log(p, vol, stab, src, ssn, m, wait) ==
    IF ~LogEvents THEN Step([vol EXCEPT !.rsn = @ + 1], stab, <<>>)   \* the RSN never leaves the receiver
    ELSE LET rsn == vol.rsn + 1
             v == [vol EXCEPT !.rsn = rsn, !.rtb = Append(@, <<rsn, src, ssn>>),
                              !.wait = IF wait THEN rsn ELSE @]
             pk == Packet(p, HolderOf(p, src), "log", <<rsn, src, ssn>>, IF LogAtSender THEN <<>> ELSE m)
         IN IF ForwardAtReception THEN Step(v, stab, <<Send(pk)>>)
            ELSE Step([v EXCEPT !.unsent = Append(@, pk)], stab, <<>>)

OnReceive(p, vol, stab, mail, src, tag) ==
    LET m == mail.msg  ssn == mail.hdr[1]
        v == [vol EXCEPT !.got = Set(@, m.src, Max(At(@, m.src), ssn))]
    IN IF v.replay # <<>> /\ ~Gap(v) THEN Replayed(p, v, stab, <<m.src, ssn>>)
       ELSE LET rel == IF ReleaseAt = "t2" /\ Releases THEN <<Erase(p, m.src, ssn)>> ELSE <<>>
                l == Log(p, v, stab, m.src, ssn, <<m>>, src = ANY /\ BlockOnWildcard)  \* §4.2.3
            IN Step(l.vol, l.stab, rel \o l.eff)

\* a Waitany/Testany/probe outcome: a non-deterministic event of its own
OnChoose(p, vol, stab, k, c) ==
    IF vol.replay # <<>> THEN Replayed(p, vol, stab, <<CHOICE, c>>)
    ELSE IF ~LogChoices THEN Step(vol, stab, <<>>)
    ELSE Log(p, vol, stab, CHOICE, c, <<>>, BlockOnWildcard)

\* the other application events change nothing here
App == INSTANCE AppEvents
OnSite(p, vol, stab) == App!OnSite(p, vol, stab)
CollHeader(p, vol) == App!CollHeader(p, vol)
MayCollect(headers) == App!MayCollect(headers)
CollLocal(p, vol, op) == App!CollLocal(p, vol, op)
OnCollective(p, vol, stab, op, inputs, headers) == App!OnCollective(p, vol, stab, op, inputs, headers)

-----------------------------------------------------------------------------
(* The wire                                                                 *)

\* the FT layer checks the SSN before anything else (§4.1.2, §4.2.4)
OnApp(p, vol, stab, pk) ==
    LET src == pk.src  ssn == pk.hdr[1] IN
    IF DropDuplicates /\ ssn <= At(vol.tssn, src)
    THEN LET released == IF ReleaseAt = "t6" THEN vol.conf ELSE vol.got IN
         \* from t6 (§4.2.2): the restarted receiver tells the sender to erase M
         Step(vol, stab, IF Releases /\ ssn <= At(released, src) THEN <<Erase(p, src, ssn)>> ELSE <<>>)
    ELSE IF DropDuplicates /\ ssn # At(vol.tssn, src) + 1
    THEN Step(vol, stab, <<>>)              \* an earlier one was lost: it comes back from the TB
    ELSE Step([vol EXCEPT !.tssn = Set(@, src, Max(ssn, At(@, src)))], stab,
              <<Deliver(Mail(pk.msg[1], <<ssn>>))>>)

\* t4: the holder saves the entry (SBML: the RSN ACK; the payload is in its own TB)
OnLog(q, vol, stab, pk) ==
    LET p == pk.src
        mine == {i \in DOMAIN vol.tb : vol.tb[i][1] = p /\ vol.tb[i][2] = pk.hdr[3]}
        m == IF pk.msg # <<>> THEN pk.msg[1]
             ELSE IF pk.hdr[2] # CHOICE /\ mine # {} THEN vol.tb[MinOf(mine)][3]
             ELSE Nil
    IN Step([vol EXCEPT !.lg = Set(@, p, Append(At(@, p), <<pk.hdr[1], pk.hdr[2], pk.hdr[3], m, FALSE>>))],
            stab, <<>>)

\* t7, as the receiver sends it: the sender of the confirmed message, or
\* (the other reading of §4.2.3) every sender
Release(p, src, ssn) ==
    IF ~Releases \/ ReleaseAt # "t6" THEN <<>>
    ELSE IF CompetingErasure = "any-sender"
    THEN <<Erase(p, src, ssn)>> \o Map(LAMBDA q : Erase(p, q, Nil), SelectSeq(Others(p, N), LAMBDA q : q # src))
    ELSE <<Erase(p, src, ssn)>>

\* t6: the holder confirms; the receiver TB entry goes, the sender is released
OnLogged(p, vol, stab, pk) ==
    LET rsn == pk.hdr[1]
        hit == {i \in DOMAIN vol.rtb : vol.rtb[i][1] = rsn}
    IN IF hit = {} THEN Step(vol, stab, <<>>)     \* a re-protection checkpoint covered it
       ELSE LET e == vol.rtb[MinOf(hit)]
                v == [vol EXCEPT !.rtb = SelectSeq(@, LAMBDA x : x[1] # rsn), !.wait = IF @ = rsn THEN 0 ELSE @]
            IN IF e[2] # CHOICE
               THEN Step([v EXCEPT !.conf = Set(@, e[2], Max(At(@, e[2]), e[3]))], stab, Release(p, e[2], e[3]))
               ELSE Step(v, stab, <<>>)

\* t7: the sender erases M and every earlier message to that receiver (Nil: all)
OnErase(s, vol, stab, pk) ==
    LET r == pk.src  x == pk.hdr[1] IN
    Step([vol EXCEPT !.tb = SelectSeq(@, LAMBDA e : e[1] # r \/ (~IsNil(x) /\ e[2] > x))], stab, <<>>)

\* a restarted process takes its log from a holder (§4.1.2, §4.2.2); SBML:
\* the partially logged messages follow (§4.1.1)
OnFetch(q, vol, stab, pk) ==
    LET p == pk.src  after == pk.hdr[1]
        \* p restarted too (a node crash takes both): q asks p again (RADIC)
        retry == IF RetryFetch /\ vol.stage = "fetch" /\ p \in vol.awaiting
                 THEN <<Send(Packet(q, p, "fetch", <<vol.rsn, At(vol.tssn, p)>>, <<>>))>> ELSE <<>>
        entries == IF LoggerDropsUnacked THEN SelectSeq(At(vol.lg, p), LAMBDA e : e[5]) ELSE At(vol.lg, p)
        v == [vol EXCEPT !.lg = Set(@, p, entries)]
        rlog == Map(LAMBDA e : Send(Packet(q, p, "rlog", <<e[1], e[2], e[3]>>, IF e[4] = Nil THEN <<>> ELSE <<e[4]>>)),
                    SelectSeq(entries, LAMBDA e : e[1] > after))
        logged == {e[3] : e \in SeqSet(entries)}
        partial == IF ~LogAtSender THEN <<>>
                   ELSE Map(LAMBDA e : Send(Packet(q, p, "app", <<e[2]>>, <<e[3]>>)),
                            SelectSeq(v.tb, LAMBDA e : e[1] = p /\ e[2] > pk.hdr[2] /\ e[2] \notin logged))
    IN Step(v, stab, retry \o rlog \o <<Send(Packet(q, p, "rlog_end", <<>>, <<>>))>> \o partial)

OnRlog(p, vol, stab, pk) ==
    LET entry == pk.hdr  src == entry[2]  ssn == entry[3] IN
    IF entry \in SeqSet(vol.replay) \/ entry[1] <= vol.rsn THEN Step(vol, stab, <<>>)  \* a retried fetch's
    ELSE LET r0 == Append(vol.replay, entry)
             v == [vol EXCEPT !.replay = IF ReplayOrder = "rsn" THEN SortSeq(r0, LexLess) ELSE r0]
         IN IF src = CHOICE \/ ssn <= At(v.tssn, src) THEN Step(v, stab, <<>>)  \* in the restored queue
            ELSE IF pk.msg = <<>> THEN Step(v, stab, <<>>)   \* SBML: the sender's re-execution sends M
            ELSE Step([v EXCEPT !.tssn = Set(@, src, ssn)], stab, <<Deliver(Mail(pk.msg[1], <<ssn>>))>>)

OnRlogEnd(p, vol, stab, pk) ==
    IF pk.src \notin vol.awaiting THEN Step(vol, stab, <<>>)
    ELSE LET v == [vol EXCEPT !.awaiting = @ \ {pk.src}] IN
         IF v.awaiting # {} THEN Step(v, stab, <<>>)
         ELSE LET v2 == [v EXCEPT !.stage = "replay"] IN
              IF v2.replay # <<>> THEN Step(v2, stab, <<>>) ELSE EndReplay(p, v2, stab)

\* a recovering receiver asks this sender's TB (Fig. 4.5, §4.2.2)
OnTbq(s, vol, stab, pk) ==
    LET r == pk.src  after == pk.hdr[1]  safe == pk.hdr[2]
        out == Map(LAMBDA e : Send(Packet(s, r, "app", <<e[2]>>, <<e[3]>>)),
                   SelectSeq(vol.tb, LAMBDA e : e[1] = r /\ e[2] > after))
        v == IF Releases THEN [vol EXCEPT !.tb = SelectSeq(@, LAMBDA e : e[1] # r \/ e[2] > safe)] ELSE vol
    IN Step(v, stab, out)

\* p's protector restarted without p's log (RADIC §2.3): p checkpoints to it
OnReprotect(p, vol, stab, pk) ==
    LET dets == SelectSeq(vol.rtb, LAMBDA e : e[2] # CHOICE)
        conf == [i \in 1..N |-> LET got == {e[3] : e \in {x \in SeqSet(dets) : x[2] = i - 1}} IN
                                IF got = {} THEN vol.conf[i] ELSE Max(vol.conf[i], CHOOSE y \in got : \A z \in got : z <= y)]
        released == Concat(Map(LAMBDA e : Release(p, e[2], e[3]), dets))
        c == TakeCheckpoint([vol EXCEPT !.conf = conf, !.rtb = <<>>, !.unsent = <<>>, !.wait = 0], stab)
    IN Step(c.vol, c.stab, c.eff \o released)

\* §4.1.2: the holder deletes what p's checkpoint covers (§4.1.1: SBML's log too)
OnGc(q, vol, stab, pk) ==
    LET p == pk.src  upto == pk.hdr[1]  ssn == pk.hdr[2] IN
    Step([vol EXCEPT !.lg = Set(@, p, SelectSeq(At(@, p), LAMBDA e : e[1] > upto)),
                     !.tb = IF Releases THEN @ ELSE SelectSeq(@, LAMBDA e : e[1] # p \/ e[2] > ssn)],
         stab, <<>>)

OnPacket(p, vol, stab, pk) ==
    CASE pk.kind = "app" -> OnApp(p, vol, stab, pk)
      [] pk.kind = "log" -> OnLog(p, vol, stab, pk)
      [] pk.kind = "logged" -> OnLogged(p, vol, stab, pk)
      [] pk.kind = "erase" -> OnErase(p, vol, stab, pk)
      [] pk.kind = "fetch" -> OnFetch(p, vol, stab, pk)
      [] pk.kind = "rlog" -> OnRlog(p, vol, stab, pk)
      [] pk.kind = "rlog_end" -> OnRlogEnd(p, vol, stab, pk)
      [] pk.kind = "tbq" -> OnTbq(p, vol, stab, pk)
      [] pk.kind = "reprotect" -> OnReprotect(p, vol, stab, pk)
      [] pk.kind = "gc" -> OnGc(p, vol, stab, pk)

-----------------------------------------------------------------------------
(* Internal steps: a holder confirms the oldest unconfirmed entry of x (t5),*)
(* the FT layer forwards a log packet (t2-t4), a checkpoint (with the      *)
(* mutant of GcAfterDurable off, announced first and made durable by a    *)
(* commit).                                                                *)
InternalSteps(p, vol, stab, mayCheckpoint) ==
    {<<"confirm", x>> : x \in {y \in All : \E i \in DOMAIN At(vol.lg, y) : ~At(vol.lg, y)[i][5]}}
    \cup (IF vol.unsent # <<>> THEN {<<"forward", 0>>} ELSE {})
    \cup (IF vol.gc # 0 THEN {<<"commit", 0>>}
          ELSE IF mayCheckpoint /\ vol.stage = "run" /\ vol.replay = <<>> /\ vol.wait = 0
                  /\ ~(FlushBeforeCheckpoint /\ vol.rtb # <<>>)
          THEN {<<"checkpoint", 0>>} ELSE {})

OnInternal(p, vol, stab, label) ==
    CASE label[1] = "checkpoint" ->
           IF ~GcAfterDurable THEN Step([vol EXCEPT !.gc = 1], stab, Gc(p, vol))
           ELSE LET c == TakeCheckpoint(vol, stab) IN Step(c.vol, c.stab, c.eff \o Gc(p, vol))
      [] label[1] = "forward" -> Step([vol EXCEPT !.unsent = Tail(@)], stab, <<Send(Head(vol.unsent))>>)
      [] label[1] = "commit" -> TakeCheckpoint([vol EXCEPT !.gc = 0], stab)
      [] label[1] = "confirm" ->
           LET x == label[2]  es == At(vol.lg, x)
               i == MinOf({j \in DOMAIN es : ~es[j][5]})
           IN Step([vol EXCEPT !.lg = Set(@, x, [es EXCEPT ![i][5] = TRUE])], stab,
                   <<Send(Packet(p, x, "logged", <<es[i][1]>>, <<>>))>>)

-----------------------------------------------------------------------------
(* Restart from the checkpoint, fetch the log from its holders (§4.1.2,    *)
(* Fig. 4.5); re-send what the restored TB holds (RADIC's retried send: a  *)
(* receiver done with M drops it and releases it); the processes whose log  *)
(* died here re-establish protection.                                      *)
OnRestart(p, stab) ==
    LET s == SavedAt(stab)
        v0 == NewVol(s, s.tb, "fetch", HolderSet(p))
        resend == IF Releases THEN Map(LAMBDA e : Send(Packet(p, e[1], "app", <<e[2]>>, <<e[3]>>)), s.tb) ELSE <<>>
        early == IF SenderTB /\ TbQuery = "before-log" THEN Queries(p, v0, stab) ELSE <<>>  \* mutant 6
        fetch == Map(LAMBDA q : Send(Packet(p, q, "fetch", <<s.rsn, At(s.tssn, q)>>, <<>>)), Holders(p))
        reprotect == Map(LAMBDA x : Send(Packet(p, x, "reprotect", <<>>, <<>>)),
                         SelectSeq(ProtectedBy(p), LAMBDA x : x # p))
        v == IF TbQuery = "before-log" THEN [v0 EXCEPT !.stage = "replay"] ELSE v0
    IN Step(v, stab, <<Restore(stab.line)>> \o resend \o early \o fetch \o reprotect)

Holdings(p, vol, stab) ==
    {e[3] : e \in SeqSet(vol.tb)} \cup {e[4] : e \in {x \in UNION {SeqSet(vol.lg[i]) : i \in 1..N} : x[4] # Nil}}
RecordedChannels(p, stab, cid) == <<>>
Recovering(p, vol) == vol.stage # "run" \/ vol.replay # <<>>
RecoveryKinds == {"fetch", "rlog", "rlog_end", "tbq", "reprotect"}
CoordinatedWith(p) == {p}
ScopeOf(f) == f                                  \* pessimistic: only the failed roll back
RestoredTo(p, before, after) == IF ~before.alive /\ after.alive THEN {after.stab.line} ELSE {}

\* RecoveryBound counts no restart here: only a failed process rolls back, at its
\* restart (or, where survivors roll back, the bound is not declared yet)
RestartsHeard(p, stab) == 0

-----------------------------------------------------------------------------
Sys == INSTANCE RollbackRecovery

(* The properties of checker/invariants/hmpl.py. p's log, as its holders   *)
(* keep it (in holder order), in a value ps of procs; it is known only     *)
(* while every holder is up.                                               *)
RECURSIVE LogOf(_, _, _)
LogOf(ps, hs, p) == IF hs = <<>> THEN <<>> ELSE At(ps[Head(hs)].vol.lg, p) \o LogOf(ps, Tail(hs), p)
LoggerUp(ps, p) == \A h \in HolderSet(p) : ps[h].alive
LogIn(ps, p) == LogOf(ps, Holders(p), p)

\* M = (src, SSN) may leave every temporary buffer: r's durable checkpoint
\* covers it, its logger died (its confirmations stand), or the logger holds
\* it (confirmed, or, where the logger keeps what it never confirmed, saved
\* or on its way)
Durable(ps, wr, fl, r, src, ssn) ==
    IF At(SavedAt(ps[r].stab).tssn, src) >= ssn THEN TRUE
    ELSE IF \E h \in HolderSet(r) : h # r /\ h \in fl THEN TRUE
    ELSE IF ~LoggerUp(ps, r) THEN FALSE
    ELSE LET lg == LogIn(ps, r) IN
         IF \E e \in SeqSet(lg) : e[2] = src /\ e[3] = ssn /\ (e[5] \/ ~LoggerDropsUnacked) THEN TRUE
         ELSE IF LoggerDropsUnacked THEN FALSE
         ELSE \E h \in HolderSet(r) : \E e \in SeqSet(wr[<<r, h>>]) :
                 e.kind = "log" /\ e.hdr[2] = src /\ e.hdr[3] = ssn

\* P2 (§4.2.2): a TB entry is erased only once M is safe (t6 before t7)
ErasureOrderAction ==
    \A s \in All : procs[s].alive /\ procs'[s].alive =>
       /\ \A e \in SeqSet(procs[s].vol.tb) \ SeqSet(procs'[s].vol.tb) :
             Durable(procs', wire', failed', e[1], s, e[2])
       /\ \A e \in SeqSet(procs[s].vol.rtb) \ SeqSet(procs'[s].vol.rtb) :
             e[2] < 0 \/ Durable(procs', wire', failed', s, e[2], e[3])

\* P7: each (sender, SSN) is logged once, each RSN names one event
LoggedOnce ==
    \A p \in All : LoggerUp(procs, p) =>
       LET lg == LogIn(procs, p) IN
       \A i, j \in DOMAIN lg : i < j =>
          /\ lg[i][1] # lg[j][1]
          /\ (lg[i][2] >= 0 /\ lg[j][2] >= 0) => Det(lg[i]) # Det(lg[j])

\* P8: the logger of every process runs on another node (over DOMAIN procs,
\* All: TLC judges a constant invariant once, at parse time, as a model error)
LoggerPlacement == \A p \in DOMAIN procs : NodeOf[Host(p)] # NodeOf[p]

\* P9: a holder deletes only entries a durable checkpoint covers (the drop of
\* never-confirmed entries at a fetch, §4.2.2, is not such a deletion)
GCBehindCheckpointAction ==
    \A p \in All : LoggerUp(procs, p) /\ LoggerUp(procs', p) =>
       \A e \in SeqSet(LogIn(procs, p)) \ SeqSet(LogIn(procs', p)) :
          ~(e[1] > SavedAt(procs'[p].stab).rsn /\ e[5])

\* P10: in failure-free runs a TB holds no entry its receiver released (the erase
\* notices on the wire are read by position: a set of them may mix Nil and SSNs,
\* which TLC cannot order)
TBBound ==
    failures = 0 =>
      \A q, r \in All :
        LET released == At(IF ReleaseAt = "t6" THEN procs[r].vol.conf ELSE procs[r].vol.got, q)
            w == wire[<<r, q>>]
        IN \A e \in SeqSet(procs[q].vol.tb) :
              (e[1] = r /\ e[2] <= released) =>
                 \E i \in DOMAIN w : w[i].kind = "erase" /\ (IsNil(w[i].hdr[1]) \/ w[i].hdr[1] >= e[2])

\* P11: under no failure during recovery (§2.2.1), a run ends with every TB
\* entry and unconfirmed log entry erased
BuffersErased ==
    Sys!Ended =>
      \/ failures > 1 /\ ~NoFailureDuringRecovery
      \/ \A p \in All : /\ procs[p].vol.tb = <<>> /\ procs[p].vol.rtb = <<>>
                        /\ \A e \in SeqSet(LogIn(procs, p)) : e[5]

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
ErasureOrder == [][ErasureOrderAction]_vars
GCBehindCheckpoint == [][GCBehindCheckpointAction]_vars
=============================================================================
