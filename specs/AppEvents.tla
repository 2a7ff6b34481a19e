------------------------------- MODULE AppEvents -------------------------------
(***************************************************************************)
(* The handlers of the application events that only application-level      *)
(* protocols act on (see RollbackRecovery): a checkpoint site changes       *)
(* nothing, every non-deterministic choice is allowed and changes nothing, *)
(* and collective calls complete together, changing nothing of the         *)
(* protocol. A protocol module that does not act on them EXTENDS this one.  *)
(***************************************************************************)
EXTENDS RRValues

OnSite(p, vol, stab) == Step(vol, stab, <<>>)
MayChoose(p, vol, k, c) == TRUE
OnChoose(p, vol, stab, k, c) == Step(vol, stab, <<>>)
CollHeader(p, vol) == <<>>
MayCollect(headers) == TRUE
CollLocal(p, vol, op) == <<>>
OnCollective(p, vol, stab, op, inputs, headers) == Step(vol, stab, <<>>)
=============================================================================
