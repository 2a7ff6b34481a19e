"""Hybrid Message Pessimistic Logging, HMPL (seed 004 §4.2, L1120–1210,
Figs. 4.3–4.6): "a combination of a pessimistic SBML and an optimistic RBML"
(L1128), on RBML's engine (protocols/rbml.py) with other knobs.

Protection flow (Fig. 4.4, L1142; only t6 and t7 are named in the text):

- t1  P1's FT layer inserts (M, SSN) in its temporary buffer TB_P1, then sends;
- t2  P2's FT layer checks the SSN (drops duplicates), inserts (M, SSN, RSN) in
      TB_P2 and the application goes on (it may send at once);
- t2–t4  P2 forwards M with its metadata to its logger L2 on another node;
- t4  L2 has saved M;  (t5) L2 sends its confirmation;
- t6  P2 gets it and erases M from TB_P2;  t7  P1 erases M from TB_P1.

Receiver failures (L1164–1166): t2–t4, M comes back from TB_P1 after the log;
t4–t6, L2 erases the unconfirmed M and P1 re-sends it; from t6, M is replayed
from the log and P2 tells P1 to erase it if it still holds it.

Recovery (Fig. 4.5, L1148–1160): restart from the checkpoint, connect to the
logger, consume its log in RSN order, then ask the senders' TBs. The thesis
adds a query "at the first receive from each sender after recovery"; with FIFO
channels and every sender asked once the log is consumed, that later query
finds nothing the first one did not (one query per sender is modelled).

Wildcard rule (L1188, Fig. 4.6): after a reception by MPI_ANY_SOURCE the
receiver does not go on until that message is fully logged; Waitany/Testany
outcomes and probes (``nondet``) fall under the same rule (the thesis names
ANY_SOURCE only; mutant 15 keeps it at that). A receive by MPI_ANY_TAG from a
named source needs nothing more here: with FIFO channels and MPI's
non-overtaking rule it matches the first message of that source either way.

Competing senders (L1195): "non-confirmed messages by the receiver will be
erased from the TB of the senders after the receiver process confirms the
reception of a subsequent message". Two readings, a knob each:
``own-sender`` (default) — a sender erases its entries up to the confirmed one,
a subsequent message *from that sender*: with FIFO channels and in-order
matching per source those are all received and logged, so it is safe;
``any-sender`` — every sender erases its unconfirmed entries for the receiver
once any later message is confirmed: the competing M2'' of Fig. 4.6 may still
be unreceived, and a receiver crash loses it (mutant 9).
"""
from __future__ import annotations

from rrcheck.protocols.rbml import ReceiverBased


class Hybrid(ReceiverBased):
    name = "hmpl"
    scope = "failed"
    source = "Meyer 2014 §4.2, Figs. 4.3–4.6; §2.3 (RADIC)"
    KNOBS = {
        **ReceiverBased.KNOBS,
        "block_sends_until_logged": False,  # the receiver goes on at t2 (L1142)
        "block_on_wildcard": True,          # L1188
        "release_at": "t6",                 # t7 follows L2's confirmation (L1148)
        "logger_drops_unacked": True,       # L1165
        # M is handed to the non-blocking send towards L2 at t2 (L1205); a
        # separate forward step would add no case: an unsent M and a saved but
        # unconfirmed one both end outside the log and come back from TB_P1
        "forward_at_reception": True,
    }
