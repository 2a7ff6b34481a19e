------------------------------ MODULE RRValues ------------------------------
(***************************************************************************)
(* The values a protocol handler builds: messages, packets, queue entries   *)
(* and the effects the system model executes (see RollbackRecovery).      *)
(***************************************************************************)
EXTENDS Integers, Sequences

ANY == -1                       \* MPI_ANY_SOURCE / MPI_ANY_TAG
Down == [crashed |-> TRUE]      \* the volatile state of a crashed process (a record:
                                \* TLC compares it with the live ones)

\* Effects, as the handlers return them
Send(pk) == [type |-> "send", packet |-> pk]
Deliver(mail) == [type |-> "deliver", mail |-> mail]
Checkpoint(cid) == [type |-> "checkpoint", cid |-> cid]
Restore(cid) == [type |-> "restore", cid |-> cid]
Note(name) == [type |-> "note", name |-> name]
Step(vol, stab, effects) == [vol |-> vol, stab |-> stab, eff |-> effects]

\* A message, and a packet carrying none (<<>>) or one (<<msg>>)
Msg(src, dst, k, tag, payload) == [gid |-> <<src, dst, k>>, src |-> src, dst |-> dst,
                                   tag |-> tag, payload |-> payload]
Packet(src, dst, kind, hdr, m) == [src |-> src, dst |-> dst, kind |-> kind, hdr |-> hdr, msg |-> m]
Mail(m, hdr) == [msg |-> m, hdr |-> hdr]

\* the processes but p, in ascending order, among 0..n-1
Others(p, n) == [i \in 1..(n - 1) |-> IF i - 1 < p THEN i - 1 ELSE i]
\* the sequence of f(x) for x in s
Map(f(_), s) == [i \in DOMAIN s |-> f(s[i])]

\* Restart vectors (rrcheck's protocols/restarts.py): an epoch names, per process
\* (index p + 1), the restarts of it a recovery line recovers from
Restarted(e, p) == [e EXCEPT ![p + 1] = @ + 1]
Covers(a, b) == \A i \in DOMAIN a : a[i] >= b[i]       \* a recovered from all b names
EpochJoin(a, b) == [i \in DOMAIN a |-> IF a[i] >= b[i] THEN a[i] ELSE b[i]]
RestartCount(e) == LET sum[i \in 0..Len(e)] == IF i = 0 THEN 0 ELSE sum[i - 1] + e[i] IN sum[Len(e)]
=============================================================================
