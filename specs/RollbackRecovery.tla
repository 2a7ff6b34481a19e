-------------------------- MODULE RollbackRecovery --------------------------
(***************************************************************************)
(* The system model of rollback-recovery protocols for MPI jobs, as in     *)
(* Bouteiller, Herault, Bosilca, Dongarra, "Correlated set coordination in *)
(* fault tolerant message logging protocols for many-core clusters"        *)
(* (CCPE 2013), §2.1 (the execution model: events, recovery line,          *)
(* in-transit and orphan messages).                                        *)
(*                                                                         *)
(* Processes 0..N-1 run small programs and are placed on nodes (a node     *)
(* crash takes every process on it: one failure). Channels join every      *)
(* ordered pair, FIFO or unordered, reliable; a crash empties the channels *)
(* INTO its victim. A crash loses the volatile state (vol, the matching    *)
(* queue) and keeps stable storage (stab, checkpoint images). The ghost    *)
(* history of each process (what it sent and delivered in its current     *)
(* history) is what the invariants read; a rollback restores it with the   *)
(* image.                                                                  *)
(*                                                                         *)
(* The protocol is a parameter: its handlers are CONSTANT operators that   *)
(* take one process's (vol, stab) and one event and return the new pair   *)
(* and a sequence of effects (send a packet, deliver a message, take a     *)
(* checkpoint, restore one, count a note), which this module executes in   *)
(* order. A protocol module instantiates this one with its handlers.       *)
(*                                                                         *)
(* Values as terms. rrcheck's Python model digests a process's state and   *)
(* every payload with a 32-bit mixing function; here they are terms built  *)
(* by the same constructors (<<"init", p>>, <<"pay", acc, pc>>,            *)
(* <<"rcv", acc, src, payload>>; a commutative "sum" reception builds      *)
(* <<"sum", base, bag>>), and the reception order is the sequence          *)
(* of <<src, k>> it digests. The map from terms to digests is injective on *)
(* every reachable value unless the 32-bit digest collides, so the two    *)
(* state graphs have the same number of states (tests check it).          *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC, RRValues

CONSTANTS
    N,              \* processes 0..N-1
    Prog,           \* Prog[p]: p's program, a sequence of operations
    NodeOf,         \* NodeOf[p]: the node p runs on
    GroupOf,        \* GroupOf[p]: p's group (correlated set, cluster)
    Fifo,           \* channels FIFO (TRUE) or unordered
    MaxFailures,    \* the failure budget: crashes of a process or of a node
    MaxCheckpoints, \* checkpoints a process may initiate
    CrashKinds,     \* a subset of {"process", "node"}
    AtSites,        \* checkpoints start only at a checkpoint site
    NoFailureDuringRecovery

\* The protocol: its state at start, its handlers, what it keeps.
CONSTANTS
    ProtoInit(_),            \* p |-> <<vol, stab>>
    MaySend(_, _, _),        \* p, vol, dst
    OnSend(_, _, _, _),      \* p, vol, stab, msg
    MayMatch(_, _, _),       \* p, vol, mail
    OnReceive(_, _, _, _, _, _), \* p, vol, stab, mail, src, tag
    OnPacket(_, _, _, _),    \* p, vol, stab, packet
    InternalSteps(_, _, _, _), \* p, vol, stab, may checkpoint |-> set of labels
    OnInternal(_, _, _, _),  \* p, vol, stab, label
    OnRestart(_, _),         \* p, stab
    Holdings(_, _, _),       \* p, vol, stab |-> set of messages p can reproduce
    RecordedChannels(_, _, _), \* p, stab, cid |-> sequence of messages
    Recovering(_, _),        \* p, vol
    RecoveryKinds,           \* packet kinds that belong to a recovery
    CoordinatedWith(_),      \* p |-> the processes rolling back with p to one line
    ScopeOf(_),              \* the failed set |-> the processes that may roll back
    RestoredTo(_, _, _),     \* p, p before, p after a step |-> the checkpoints p restored
    RestartsHeard(_, _)      \* p, stab |-> the restarts p's stable state has rolled back for

\* Application events only application-level protocols act on (the others
\* take AppEvents.tla's defaults): a checkpoint site, a non-deterministic choice.
CONSTANTS
    OnSite(_, _, _),         \* p, vol, stab
    MayChoose(_, _, _, _),   \* p, vol, k choices, choice
    OnChoose(_, _, _, _, _), \* p, vol, stab, k, choice
    CollHeader(_, _),        \* p, vol |-> what p piggybacks on a collective call
    MayCollect(_),           \* the headers of all |-> may the call complete together
    CollLocal(_, _, _),      \* p, vol, op |-> <<the inputs p completes the call with alone>>, or <<>>
    OnCollective(_, _, _, _, _, _)  \* p, vol, stab, op, inputs, headers (<<>> alone)

VARIABLES procs, wire, failures, failed
vars == <<procs, wire, failures, failed>>

Procs == 0..(N - 1)
Nodes == {NodeOf[p] : p \in Procs}

(* Operations of a program: <<"send", dst, tag>>, <<"reply", tag>>,        *)
(* <<"recv", src, tag, combine>>, <<"site">>, <<"nondet", k>>,             *)
(* <<"coll", kind, root>>. pc counts from 0, as in rrcheck.                 *)
Op(p, pc) == Prog[p][pc + 1]
Finished(p) == procs[p].pc >= Len(Prog[p])

\* Values as terms (see the header)
InitAcc(p) == <<"init", p>>
Payload(acc, pc) == <<"pay", acc, pc>>
Fold(acc, src, payload) == <<"rcv", acc, src, payload>>
\* a reception folded commutatively (combine "sum": rrcheck adds the payload's
\* digest): the base and the bag of <<src, payload>> received since
AddToBag(b, x) == [y \in DOMAIN b \cup {x} |-> (IF y \in DOMAIN b THEN b[y] ELSE 0) + (IF y = x THEN 1 ELSE 0)]
SumIn(acc, src, payload) ==
    IF acc[1] = "sum" THEN <<"sum", acc[2], AddToBag(acc[3], <<src, payload>>)>>
    ELSE <<"sum", acc, <<src, payload>> :> 1>>
Combine(how, acc, src, payload) == IF how = "sum" THEN SumIn(acc, src, payload) ELSE Fold(acc, src, payload)
\* a non-deterministic choice c: in the state (rrcheck mixes 0x6E64 and c
\* into the accumulator) and in the reception order, as the pair <<0x6E64, c>>
NondetTag == 28260
Chosen(acc, c) == <<"nd", acc, c>>
\* a collective call <<"coll", kind, root>>: p's state after it, from its
\* own and the data flowing in (rrcheck: mix(acc, 0xC0 + kind's index, inputs...)),
\* each process's data being <<"cdata", acc, pc>> (rrcheck: mix(acc, pc, 0xC011))
CollAcc(acc, op, inputs) == <<"collacc", acc, op[2], inputs>>
CollData(acc, pc) == <<"cdata", acc, pc>>
\* the processes whose data flows into p (rrcheck's coll_sources)
CollSources(kind, root, p) ==
    IF kind = "reduce" THEN (IF p = root THEN [i \in 1..(N - 1) |-> IF i - 1 < root THEN i - 1 ELSE i] ELSE <<>>)
    ELSE IF kind = "bcast" THEN (IF p = root THEN <<>> ELSE <<root>>)
    ELSE [i \in 1..(N - 1) |-> IF i - 1 < p THEN i - 1 ELSE i]

\* Ghost histories: per destination the payloads sent, per source the
\* (k, payload) delivered, and the order of receptions.
NoHistory == [sent |-> [q \in Procs |-> <<>>], delivered |-> [q \in Procs |-> <<>>],
              order |-> <<>>]
DeliveredIds(h, src) == {h.delivered[src][i][1] : i \in DOMAIN h.delivered[src]}

Image(pr) == [pc |-> pr.pc, acc |-> pr.acc, last_src |-> pr.last_src,
              mailbox |-> pr.mailbox, ghost |-> pr.ghost]
ImageOf(pr, cid) == LET i == CHOOSE i \in DOMAIN pr.images : pr.images[i][1] = cid
                    IN pr.images[i][2]
HasImage(pr, cid) == \E i \in DOMAIN pr.images : pr.images[i][1] = cid
Remove(s, i) == [j \in 1..(Len(s) - 1) |-> IF j < i THEN s[j] ELSE s[j + 1]]

-----------------------------------------------------------------------------
(* Executing one handler's effects, in order, on process p: the new process *)
(* and the new wire. A packet to a dead process is lost (unless it is p's).  *)
RECURSIVE Effects(_, _, _, _)
Effects(p, pr, wr, effs) ==
    IF effs = <<>> THEN <<pr, wr>>
    ELSE LET e == Head(effs)
             next ==
               CASE e.type = "send" ->
                      LET pk == e.packet IN
                      IF procs[pk.dst].alive \/ pk.dst = p
                      THEN <<pr, [wr EXCEPT ![<<pk.src, pk.dst>>] = Append(@, pk)]>>
                      ELSE <<pr, wr>>
                 [] e.type = "deliver" -> <<[pr EXCEPT !.mailbox = Append(@, e.mail)], wr>>
                 [] e.type = "checkpoint" ->
                      LET kept == SelectSeq(pr.images, LAMBDA x : x[1] # e.cid) IN
                      <<[pr EXCEPT !.images = Append(kept, <<e.cid, Image(pr)>>),
                                   !.ckpts = @ + 1], wr>>
                 [] e.type = "restore" ->
                      LET img == ImageOf(pr, e.cid) IN
                      <<[pr EXCEPT !.pc = img.pc, !.acc = img.acc, !.last_src = img.last_src,
                                   !.mailbox = img.mailbox, !.ghost = img.ghost], wr>>
                 [] e.type = "note" -> <<pr, wr>>
         IN Effects(p, next[1], next[2], Tail(effs))

\* Process p (now pr) handled an event: handler result st, wire wr.
Handled(p, pr, st, wr) ==
    LET r == Effects(p, [pr EXCEPT !.vol = st.vol, !.stab = st.stab], wr, st.eff) IN
    /\ procs' = [procs EXCEPT ![p] = r[1]]
    /\ wire' = r[2]

-----------------------------------------------------------------------------
Init ==
    /\ procs = [p \in Procs |->
                  LET s == ProtoInit(p) IN
                  [alive |-> TRUE, pc |-> 0, acc |-> InitAcc(p), last_src |-> -1,
                   mailbox |-> <<>>, vol |-> s[1], stab |-> s[2],
                   images |-> << <<0, [pc |-> 0, acc |-> InitAcc(p), last_src |-> -1,
                                       mailbox |-> <<>>, ghost |-> NoHistory]>> >>,
                   ckpts |-> 0, ghost |-> NoHistory]]
    /\ wire = [c \in Procs \X Procs |-> <<>>]
    /\ failures = 0
    /\ failed = {}

(* An application send ("send" or "reply" to the last source): the payload *)
(* is a function of the local state; the ghost records it.                  *)
SendTo(p) == LET op == Op(p, procs[p].pc) IN IF op[1] = "send" THEN op[2] ELSE procs[p].last_src
AppSend(p) ==
    LET pr == procs[p]
        op == Op(p, pr.pc)
        dst == SendTo(p)
        tag == IF op[1] = "send" THEN op[3] ELSE op[2]
        pay == Payload(pr.acc, pr.pc)
        m == Msg(p, dst, Len(pr.ghost.sent[dst]), tag, pay)
        pr2 == [pr EXCEPT !.pc = @ + 1, !.ghost.sent[dst] = Append(@, pay)]
    IN /\ pr.alive /\ ~Finished(p) /\ op[1] \in {"send", "reply"}
       /\ MaySend(p, pr.vol, dst)
       /\ Handled(p, pr2, OnSend(p, pr2.vol, pr2.stab, m), wire)
       /\ UNCHANGED <<failures, failed>>

(* A checkpoint site of the program (only application-level protocols act *)
(* on one), and a non-deterministic choice among k.                        *)
AppSite(p) ==
    LET pr == [procs[p] EXCEPT !.pc = @ + 1] IN
    /\ procs[p].alive /\ ~Finished(p) /\ Op(p, procs[p].pc)[1] = "site"
    /\ Handled(p, pr, OnSite(p, pr.vol, pr.stab), wire)
    /\ UNCHANGED <<failures, failed>>
Choices(p) == IF procs[p].alive /\ ~Finished(p) /\ Op(p, procs[p].pc)[1] = "nondet"
              THEN 0..(Op(p, procs[p].pc)[2] - 1) ELSE {}
AppChoose(p, c) ==
    LET pr == procs[p]
        k == Op(p, pr.pc)[2]
        pr2 == [pr EXCEPT !.pc = @ + 1, !.acc = Chosen(@, c), !.ghost.order = Append(@, <<NondetTag, c>>)]
    IN /\ c \in Choices(p)
       /\ MayChoose(p, pr.vol, k, c)
       /\ Handled(p, pr2, OnChoose(p, pr2.vol, pr2.stab, k, c), wire)
       /\ UNCHANGED <<failures, failed>>

(* A collective call is never split into messages: a process completes it  *)
(* alone when its protocol holds the inputs (CollLocal, a replay from a     *)
(* log), or all complete it together when every process calls the same     *)
(* one (its op and its rank among the program's collectives) and the       *)
(* protocol agrees on their headers; each then in turn, from 0 to N-1.      *)
AtColl(p) == procs[p].alive /\ ~Finished(p) /\ Op(p, procs[p].pc)[1] = "coll"
CollNo(p) == Cardinality({i \in 1..procs[p].pc : Prog[p][i][1] = "coll"})
AppCollLocal(p) ==
    LET pr == procs[p]
        op == Op(p, pr.pc)
        local == CollLocal(p, pr.vol, op)
    IN /\ AtColl(p)
       /\ local # <<>>
       /\ Handled(p, [pr EXCEPT !.pc = @ + 1, !.acc = CollAcc(@, op, local[1])],
                  OnCollective(p, pr.vol, pr.stab, op, local[1], <<>>), wire)
       /\ UNCHANGED <<failures, failed>>
CollHeaders == [p \in Procs |-> CollHeader(p, procs[p].vol)]
CanCollectAll ==
    /\ \A p \in Procs : AtColl(p)
    /\ \A p, q \in Procs : Op(p, procs[p].pc) = Op(q, procs[q].pc) /\ CollNo(p) = CollNo(q)
    /\ \A p \in Procs : CollLocal(p, procs[p].vol, Op(p, procs[p].pc)) = <<>>
    /\ MayCollect(CollHeaders)
RECURSIVE Joint(_, _, _)
Joint(p, ps, wr) ==
    IF p = N THEN <<ps, wr>>
    ELSE LET pr == ps[p]
             op == Op(p, pr.pc)
             srcs == CollSources(op[2], op[3], p)
             ins == [i \in DOMAIN srcs |-> CollData(procs[srcs[i]].acc, procs[srcs[i]].pc)]
             st == OnCollective(p, pr.vol, pr.stab, op, ins, CollHeaders)
             r == Effects(p, [pr EXCEPT !.pc = @ + 1, !.acc = CollAcc(@, op, ins), !.vol = st.vol, !.stab = st.stab],
                          wr, st.eff)
         IN Joint(p + 1, [ps EXCEPT ![p] = r[1]], r[2])
AppCollAll ==
    /\ CanCollectAll
    /\ LET r == Joint(0, procs, wire) IN procs' = r[1] /\ wire' = r[2]
    /\ UNCHANGED <<failures, failed>>

(* A receive matches mail i: the first matching mail from its source (MPI  *)
(* non-overtaking).                                                         *)
\* (guards use IF, not \/: TLC takes each true disjunct of an action as a successor)
Matches(op, mail) == /\ IF op[2] = ANY THEN TRUE ELSE op[2] = mail.msg.src
                     /\ IF op[3] = ANY THEN TRUE ELSE op[3] = mail.msg.tag
Matchable(p, i) ==
    LET pr == procs[p] op == Op(p, pr.pc) mb == pr.mailbox IN
    /\ Matches(op, mb[i])
    /\ ~\E j \in 1..(i - 1) : mb[j].msg.src = mb[i].msg.src /\ Matches(op, mb[j])
AppRecv(p, i) ==
    LET pr == procs[p]
        op == Op(p, pr.pc)
        mail == pr.mailbox[i]
        m == mail.msg
        pr2 == [pr EXCEPT !.pc = @ + 1, !.acc = Combine(op[4], @, m.src, m.payload), !.last_src = m.src,
                          !.mailbox = Remove(@, i),
                          !.ghost.delivered[m.src] = Append(@, <<m.gid[3], m.payload>>),
                          !.ghost.order = Append(@, <<m.src, m.gid[3]>>)]
    IN /\ pr.alive /\ ~Finished(p) /\ op[1] = "recv"
       /\ i \in DOMAIN pr.mailbox /\ Matchable(p, i)
       /\ MayMatch(p, pr.vol, mail)
       /\ Handled(p, pr2, OnReceive(p, pr2.vol, pr2.stab, mail, op[2], op[3]), wire)
       /\ UNCHANGED <<failures, failed>>

(* The delivery of packet i of channel src -> dst to dst's protocol (the    *)
(* head on FIFO channels; one of equal packets on unordered ones).          *)
Deliverable(src, dst, i) ==
    LET ch == wire[<<src, dst>>] IN
    /\ i \in DOMAIN ch
    /\ IF Fifo THEN i = 1 ELSE ~\E j \in 1..(i - 1) : ch[j] = ch[i]
DeliverPacket(src, dst, i) ==
    LET pk == wire[<<src, dst>>][i]
        wr == [wire EXCEPT ![<<src, dst>>] = Remove(@, i)]
        pr == procs[dst]
    IN /\ Deliverable(src, dst, i)
       /\ Handled(dst, pr, OnPacket(dst, pr.vol, pr.stab, pk), wr)
       /\ UNCHANGED <<failures, failed>>

(* A protocol-internal step (a checkpoint wave started, say).              *)
MayCheckpoint(p) ==
    /\ procs[p].ckpts < MaxCheckpoints
    /\ ~AtSites \/ (~Finished(p) /\ Op(p, procs[p].pc)[1] = "site")
Internal(p, label) ==
    LET pr == procs[p] IN
    /\ pr.alive
    /\ label \in InternalSteps(p, pr.vol, pr.stab, MayCheckpoint(p))
    /\ Handled(p, pr, OnInternal(p, pr.vol, pr.stab, label), wire)
    /\ UNCHANGED <<failures, failed>>

(* Failures: a crash of a process, or of a node (every live process on it, *)
(* one failure). The victims lose vol and their queue; what was sent to    *)
(* them is lost.                                                            *)
RecoveryUnderWay ==
    \/ \E p \in Procs : ~procs[p].alive \/ Recovering(p, procs[p].vol)
    \/ RecoveryKinds # {} /\ \E c \in Procs \X Procs :
                                 \E i \in DOMAIN wire[c] : wire[c][i].kind \in RecoveryKinds
MayFail == failures < MaxFailures /\ ~(NoFailureDuringRecovery /\ RecoveryUnderWay)
Kill(victims) ==
    /\ procs' = [p \in Procs |-> IF p \in victims
                                 THEN [procs[p] EXCEPT !.alive = FALSE, !.mailbox = <<>>, !.vol = Down]
                                 ELSE procs[p]]
    /\ wire' = [c \in Procs \X Procs |-> IF c[2] \in victims THEN <<>> ELSE wire[c]]
    /\ failures' = failures + 1
    /\ failed' = failed \cup victims
Crash(p) == MayFail /\ "process" \in CrashKinds /\ procs[p].alive /\ Kill({p})
AliveOn(node) == {p \in Procs : NodeOf[p] = node /\ procs[p].alive}
CrashNode(node) ==
    /\ MayFail /\ "node" \in CrashKinds
    \* a node of one live process crashes exactly as that process does
    /\ IF "process" \in CrashKinds THEN Cardinality(AliveOn(node)) >= 2
       ELSE Cardinality(AliveOn(node)) >= 1
    /\ Kill(AliveOn(node))

(* A replacement of p starts from stable storage alone.                     *)
Restart(p) ==
    LET pr == [procs[p] EXCEPT !.alive = TRUE] IN
    /\ ~procs[p].alive
    /\ Handled(p, pr, OnRestart(p, pr.stab), wire)
    /\ UNCHANGED <<failures, failed>>

\* Every scheduler event but a failure: what Termination asks for.
Progress ==
    \/ \E p \in Procs : AppSend(p) \/ AppSite(p) \/ Restart(p)
    \/ \E p \in Procs : \E i \in 1..Len(procs[p].mailbox) : AppRecv(p, i)
    \/ \E p \in Procs : \E c \in Choices(p) : AppChoose(p, c)
    \/ \E p \in Procs : AppCollLocal(p)
    \/ AppCollAll
    \/ \E src, dst \in Procs : \E i \in 1..Len(wire[<<src, dst>>]) : DeliverPacket(src, dst, i)
    \/ \E p \in Procs : \E label \in (IF procs[p].alive
                                      THEN InternalSteps(p, procs[p].vol, procs[p].stab, MayCheckpoint(p))
                                      ELSE {}) : Internal(p, label)
Next == Progress \/ (\E p \in Procs : Crash(p)) \/ (\E node \in Nodes : CrashNode(node))
Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* The failure-free runs of the application alone (no protocol, no failure) *)
(* and their final states: the reference of FailureFreeEquivalence.        *)
(* A configuration: every process's pc, acc, last source and queue, and the *)
(* channels.                                                                *)
PlainInit == [pc |-> [p \in Procs |-> 0], acc |-> [p \in Procs |-> InitAcc(p)],
              last |-> [p \in Procs |-> -1], mb |-> [p \in Procs |-> <<>>],
              ch |-> [src \in Procs |-> [dst \in Procs |-> <<>>]]]
PlainOp(c, p) == Prog[p][c.pc[p] + 1]
PlainDone(c, p) == c.pc[p] >= Len(Prog[p])
PlainMatch(c, p, j) ==
    LET op == PlainOp(c, p) IN
    (op[2] = ANY \/ op[2] = c.mb[p][j].src) /\ (op[3] = ANY \/ op[3] = c.mb[p][j].tag)
PlainSend(c, p) ==
    LET op == PlainOp(c, p)
        dst == IF op[1] = "send" THEN op[2] ELSE c.last[p]
        tag == IF op[1] = "send" THEN op[3] ELSE op[2]
    IN [c EXCEPT !.pc[p] = @ + 1,
                 !.ch[p][dst] = Append(@, [src |-> p, tag |-> tag, payload |-> Payload(c.acc[p], c.pc[p])])]
PlainRecv(c, p, i) ==
    LET m == c.mb[p][i] IN
    [c EXCEPT !.pc[p] = @ + 1, !.acc[p] = Combine(PlainOp(c, p)[4], @, m.src, m.payload), !.last[p] = m.src,
              !.mb[p] = Remove(@, i)]
PlainArrive(c, x, i) ==
    [c EXCEPT !.ch[x[1]][x[2]] = Remove(@, i), !.mb[x[2]] = Append(@, c.ch[x[1]][x[2]][i])]
PlainSucc(c) ==
    LET live == {p \in Procs : ~PlainDone(c, p)}
        senders == {p \in live : PlainOp(c, p)[1] \in {"send", "reply"}}
        receivers == {p \in live : PlainOp(c, p)[1] = "recv"}
        sites == {p \in live : PlainOp(c, p)[1] = "site"}
        nondets == {p \in live : PlainOp(c, p)[1] = "nondet"}
        joint == /\ \A p \in Procs : p \in live /\ PlainOp(c, p)[1] = "coll"
                 /\ \A p, q \in Procs : PlainOp(c, p) = PlainOp(c, q)
                      /\ Cardinality({i \in 1..c.pc[p] : Prog[p][i][1] = "coll"})
                         = Cardinality({i \in 1..c.pc[q] : Prog[q][i][1] = "coll"})
        collAll == [c EXCEPT !.pc = [p \in Procs |-> @[p] + 1],
                             !.acc = [p \in Procs |->
                                LET op == PlainOp(c, p)  srcs == CollSources(op[2], op[3], p) IN
                                CollAcc(@[p], op, [i \in DOMAIN srcs |-> CollData(c.acc[srcs[i]], c.pc[srcs[i]])])]]
    IN (IF joint THEN {collAll} ELSE {})
       \cup {PlainSend(c, p) : p \in senders}
       \cup {[c EXCEPT !.pc[p] = @ + 1] : p \in sites}
       \cup UNION {{[c EXCEPT !.pc[p] = @ + 1, !.acc[p] = Chosen(@, x)] : x \in 0..(PlainOp(c, p)[2] - 1)}
                   : p \in nondets}
       \cup UNION {{PlainRecv(c, p, i) :
                      i \in {j \in DOMAIN c.mb[p] :
                               PlainMatch(c, p, j)
                               /\ ~\E k \in 1..(j - 1) : c.mb[p][k].src = c.mb[p][j].src /\ PlainMatch(c, p, k)}}
                   : p \in receivers}
       \cup UNION {{PlainArrive(c, x, i) : i \in {j \in DOMAIN c.ch[x[1]][x[2]] : Fifo => j = 1}} : x \in Procs \X Procs}
RECURSIVE PlainReach(_, _)
PlainReach(seen, frontier) ==
    IF frontier = {} THEN seen
    ELSE LET new == UNION {PlainSucc(c) : c \in frontier} \ seen
         IN PlainReach(seen \cup new, new)
FailureFreeFinals ==
    {c.acc : c \in {x \in PlainReach({PlainInit}, {PlainInit}) :
                      \A p \in Procs : x.pc[p] >= Len(Prog[p])}}

-----------------------------------------------------------------------------
(* What the paper-level specs see of a history (SBMLRefinement.tla,          *)
(* CorrelatedSetRefinement.tla): a message as <<sender, receiver, SSN,      *)
(* value>>, and a ghost history's receptions in order as <<sender, SSN,     *)
(* value>> (the SSN counts from 1, rrcheck's message ids from 0).           *)
AsMessage(m) == <<m.src, m.dst, m.gid[3] + 1, m.payload>>
ValueOf(g, src, k) == LET d == g.delivered[src] IN d[CHOOSE i \in DOMAIN d : d[i][1] = k][2]
Receptions(g) == [i \in DOMAIN g.order |->
                    <<g.order[i][1], g.order[i][2] + 1, ValueOf(g, g.order[i][1], g.order[i][2])>>]

-----------------------------------------------------------------------------
(* The properties, under the names rrcheck's invariants use.               *)
(* "Quiescent": no recovery under way (every process up, none recovering,  *)
(* no recovery packet on the wire). "Terminal": nothing is enabled but a   *)
(* failure, where rrcheck judges a run's end.                               *)
Quiescent == ~RecoveryUnderWay
\* ENABLED Progress, written out as the guards of the actions above (TLC
\* evaluates this form much faster)
CanProgress ==
    \E p \in Procs :
        \/ ~procs[p].alive
        \/ /\ procs[p].alive /\ ~Finished(p)
           /\ LET op == Op(p, procs[p].pc) IN
              \/ op[1] \in {"send", "reply"} /\ MaySend(p, procs[p].vol, SendTo(p))
              \/ op[1] = "site"
              \/ op[1] = "nondet" /\ \E c \in 0..(op[2] - 1) : MayChoose(p, procs[p].vol, op[2], c)
              \/ op[1] = "coll" /\ CollLocal(p, procs[p].vol, op) # <<>>
              \/ op[1] = "recv" /\ \E i \in DOMAIN procs[p].mailbox :
                                     Matchable(p, i) /\ MayMatch(p, procs[p].vol, procs[p].mailbox[i])
        \/ procs[p].alive /\ InternalSteps(p, procs[p].vol, procs[p].stab, MayCheckpoint(p)) # {}
        \/ \E q \in Procs : wire[<<p, q>>] # <<>>
    \/ CanCollectAll
Terminal == ~CanProgress
Ended == Terminal /\ Quiescent /\ \A p \in Procs : Finished(p)

Obtainable ==
    UNION {{wire[c][i].msg[1].gid : i \in {j \in DOMAIN wire[c] : wire[c][j].msg # <<>>}} : c \in Procs \X Procs}
    \cup UNION {{procs[p].mailbox[i].msg.gid : i \in DOMAIN procs[p].mailbox} : p \in {q \in Procs : procs[q].alive}}
    \cup UNION {{m.gid : m \in Holdings(p, procs[p].vol, procs[p].stab)} : p \in {q \in Procs : procs[q].alive}}

\* every message sent in its sender's current history and not yet delivered
\* is still obtainable (wire, queue, log, buffer)
NoLostMessage ==
    Quiescent =>
      \A p, r \in Procs : \A k \in 0..(Len(procs[p].ghost.sent[r]) - 1) :
          k \notin DeliveredIds(procs[r].ghost, p) => <<p, r, k>> \in Obtainable

\* no process delivers the same logical message twice in its current history
\* (a history gains a duplicate only by such a delivery: the state form is the
\* transition form of rrcheck)
NoDuplicateDelivery ==
    \A r, p \in Procs : LET d == procs[r].ghost.delivered[p] IN
        \A i, j \in DOMAIN d : i < j => d[i][1] # d[j][1]

\* a delivered message is never contradicted by its sender's re-execution,
\* nor, at the end, left unsent by it
NoOrphan ==
    /\ Quiescent =>
         \A r, p \in Procs : LET sent == procs[p].ghost.sent[r] IN
            \A i \in DOMAIN procs[r].ghost.delivered[p] :
               LET kd == procs[r].ghost.delivered[p][i] IN
               kd[1] < Len(sent) => sent[kd[1] + 1] = kd[2]
    /\ Ended =>
         \A r, p \in Procs : \A i \in DOMAIN procs[r].ghost.delivered[p] :
               procs[r].ghost.delivered[p][i][1] < Len(procs[p].ghost.sent[r])

\* a terminated run with failures ends in the final state of some
\* failure-free run
FailureFreeEquivalence == Ended => [p \in Procs |-> procs[p].acc] \in FailureFreeFinals

\* no reachable state is stuck with unfinished processes or an unfinished
\* recovery
Termination == Terminal => Quiescent /\ \A p \in Procs : Finished(p)

\* (action) only the processes the protocol promises roll back after a failure
RollbackScope == \A p \in Procs : RestoredTo(p, procs[p], procs'[p]) # {} => p \in ScopeOf(failed')

(* (action) Bouteiller et al. §3.2.1 Theorem 1: at the rollback of p to     *)
(* checkpoint cid, every process q that rolls back with p took cid, and no  *)
(* message q sent p before its checkpoint is missing from p's recovered     *)
(* history, queue or recorded channel state: none crosses the line from     *)
(* past to future.                                                          *)
Received(p, q, cid) ==
    LET img == ImageOf(procs'[p], cid) IN
    DeliveredIds(procs'[p].ghost, q)
    \cup {img.mailbox[i].msg.gid[3] : i \in {j \in DOMAIN img.mailbox : img.mailbox[j].msg.src = q}}
    \cup {RecordedChannels(p, procs'[p].stab, cid)[i].gid[3] :
            i \in {j \in DOMAIN RecordedChannels(p, procs'[p].stab, cid) :
                     RecordedChannels(p, procs'[p].stab, cid)[j].src = q}}
NoInTransitInGroup ==
    \A p \in Procs : \A cid \in RestoredTo(p, procs[p], procs'[p]) :
        Cardinality(CoordinatedWith(p)) > 1 =>
          \A q \in CoordinatedWith(p) \ {p} :
             /\ HasImage(procs'[q], cid)
             /\ \A k \in 0..(Len(ImageOf(procs'[q], cid).ghost.sent[p]) - 1) : k \in Received(p, q, cid)

RollbackScopeProp == [][RollbackScope]_vars

\* (action) no failure makes a process roll back twice: a rollback other than
\* the process's own restart raises the restarts it has rolled back for, which
\* never exceed the restarts that can have happened, one per victim of each
\* failure so far
VictimsPerFailure ==
    IF "node" \notin CrashKinds THEN 1
    ELSE LET sizes == {Cardinality({q \in Procs : NodeOf[q] = NodeOf[p]}) : p \in Procs}
         IN CHOOSE m \in sizes : \A x \in sizes : x <= m
RecoveryBound ==
    \A p \in Procs : RestoredTo(p, procs[p], procs'[p]) # {} /\ procs[p].alive =>
        /\ RestartsHeard(p, procs'[p].stab) > RestartsHeard(p, procs[p].stab)
        /\ RestartsHeard(p, procs'[p].stab) <= failures' * VictimsPerFailure
RecoveryBoundProp == [][RecoveryBound]_vars
NoInTransitInGroupProp == [][NoInTransitInGroup]_vars
=============================================================================
