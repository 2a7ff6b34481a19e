"""The catalogue of protocols and of their deliberately broken variants (docs/design.md §6).

A mutant is a correct protocol with one knob set wrong, named after the rule it
breaks, with the source that states the rule and the properties expected to
catch it. Every mutant must be caught (``rrcheck check --all``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rrcheck.protocols.app_level import AppLevel
from rrcheck.protocols.base import Protocol
from rrcheck.protocols.coordinated import BlockingCoordinated, ChandyLamport
from rrcheck.protocols.correlated_set import CorrelatedSet
from rrcheck.protocols.hmpl import Hybrid
from rrcheck.protocols.logging import ThesisSBML
from rrcheck.protocols.rbml import ReceiverBased
from rrcheck.protocols.send_deterministic import SendDeterministic

PROTOCOLS: dict[str, type[Protocol]] = {
    "coordinated": BlockingCoordinated,
    "chandy-lamport": ChandyLamport,
    "sbml": ThesisSBML,
    "correlated-set": CorrelatedSet,
    "send-deterministic": SendDeterministic,
    "app-level": AppLevel,
    "rbml": ReceiverBased,
    "hmpl": Hybrid,
}


@dataclass(frozen=True)
class Mutant:
    name: str
    protocol: str
    knobs: dict
    rule: str
    source: str
    # the properties that may report it; the first is its primary catcher, the one the
    # breadth-first search of `rrcheck check` reports on the mutant's scenario, which
    # `check --all` requires; the others report the same bug in other engines (Hypothesis,
    # TLC, a real run's trace) or on other scenarios, where another symptom comes first
    catches: tuple[str, ...]
    extra: dict = field(default_factory=dict)

    @property
    def primary(self) -> str:
        return self.catches[0]

    @property
    def model(self) -> dict:
        """Model knobs (checker/model/system.py MODEL_KNOBS) a model-level mutant sets wrong."""
        return self.extra.get("model", {})


MUTANTS: dict[str, Mutant] = {m.name: m for m in (
    Mutant("correlated-set/no-internal-event-logging", "correlated-set", {"log_internal_events": False},
           "every reception is event-logged, internal ones included (Theorem 2)",
           "Bouteiller et al. 2013 §3.2.2, Theorem 2", ("NoOrphan", "FailureFreeEquivalence")),
    Mutant("correlated-set/no-internal-silence", "correlated-set", {"silence": False},
           "members checkpoint only after eager silence, drain and barrier (Theorem 1): without them an internal "
           "message crosses the set's recovery line",
           "Bouteiller et al. 2013 §3.2.1 Theorem 1, §3.3.3", ("Theorem1", "NoLostMessage", "Termination")),
    Mutant("correlated-set/line-before-the-set-checkpoints", "correlated-set", {"commit_after_the_set": False},
           "the set's line moves at the second barrier, once every member has checkpointed: moved at a member's "
           "own checkpoint, a rollback may return to a checkpoint another member never took (no recovery line)",
           "Bouteiller et al. 2013 §3.3.3 (\"The second barrier denotes that all processes finished checkpointing\"; "
           "our reading: the line moves there), §3.2", ("Theorem1", "Termination")),
    Mutant("correlated-set/no-external-payload-copy", "correlated-set", {"payload_copy_external": False},
           "messages leaving the set are copied by their sender",
           "Bouteiller et al. 2013 §3.2, §3.3.2", ("NoLostMessage", "Termination")),
    Mutant("correlated-set/global-rollback", "correlated-set", {"rollback_scope": "all"},
           "a failure rolls back the failed correlated set only",
           "Bouteiller et al. 2013 §3.2 (\"A process failing in another correlated set does not trigger a rollback\")",
           ("RollbackScope",)),
    Mutant("correlated-set/newer-epoch-token-dropped", "correlated-set", {"newer_epoch_rolls_back": False},
           "a token of the set's next wave that overtakes the rollback notice implies the rollback (its "
           "sender rolled back first); dropping it as stale leaves the receiver out of the wave",
           "Bouteiller et al. 2013 §3.2 (a failure rolls the whole set back), §3.3.3 (tokens); our reading: the "
           "paper has no epochs",
           ("Termination",)),
    Mutant("correlated-set/stale-rollback-is-a-failure", "correlated-set", {"stale_rollback_is_a_failure": True},
           "a rollback naming only restarts the set's line has recovered from is no new failure; taking it for "
           "one rolls the set back again for a failure it has already recovered from",
           "Bouteiller et al. 2013 §3.2 (\"all processes of that set have to roll back to their last checkpoint\": "
           "our reading: once per failure)", ("RecoveryBound",),
           extra={"unbounded": "the epochs grow without end: its state graph is infinite"}),
    Mutant("chandy-lamport/no-channel-recording", "chandy-lamport", {"record_channels": False},
           "messages arriving between a checkpoint and the channel's marker are recorded",
           "Chandy and Lamport, TOCS 1985, as in Pingali's C3 slides \"Algorithm (revised)\"; Bouteiller et al. 2013 "
           "§3.2.1", ("NoInTransitInGroup", "NoLostMessage", "Termination")),
    Mutant("coordinated/next-wave-marker-dropped", "coordinated", {"next_wave_commits": False},
           "a marker of the next wave that overtakes this wave's commit implies the commit (its sender "
           "joined only after it); dropping it as stale leaves the receiver out of the next wave",
           "Bouteiller et al. 2013 §2.2 \"Coordinated checkpoint\" (waves of tokens; our reading: a wave starts "
           "after the last one's commit)",
           ("Termination",)),
    Mutant("coordinated/stale-rollback-is-a-failure", "coordinated", {"stale_rollback_is_a_failure": True},
           "a rollback naming only restarts the receiver has recovered from is no new failure; taking it for one "
           "starts a new epoch that every rollback still in flight outdates again: a rollback storm",
           "Bouteiller et al. 2013 §2.2 \"Coordinated checkpoint\" (every process rolls back to its last checkpoint; "
           "our reading: once per failure)",
           ("RecoveryBound",), extra={"unbounded": "the epochs grow without end: its state graph is infinite"}),
    Mutant("rbml/checkpoint-without-tb", "rbml", {"checkpoint_tb": False},
           "a checkpoint holds the sender's copies of unlogged messages (the process image)",
           "Meyer 2014 §4.1.1 (the Message Log is saved with the checkpoint), §2.3.4 (RADIC checkpoints whole "
           "processes with BLCR), §2.2.1 node faults; our reading for RBML", ("NoLostMessage",)),
    Mutant("sbml/no-fetch-retry", "sbml", {"retry_fetch": False},
           "a restarted process asks again a log holder that crashed with it",
           "Meyer 2014 §2.3.4 (RADIC: a sender that fails to communicate will \"consult the receiver's protector\" "
           "and \"the communication will be retried later\"), §2.2.1 node faults; our reading: a restarted "
           "process's fetch is retried likewise", ("Termination",)),
    Mutant("sbml/no-rsn-gap-fill", "sbml", {"fill_rsn_gaps": False},
           "an RSN whose holder crashed with the receiver goes to a message the log does not name",
           "Meyer 2014 §4.1.1 (\"Partially logged messages will be send in any order\"), §2.2.1 node faults; "
           "our reading for a node crash", ("Termination",)),
    Mutant("sbml/no-event-logging", "sbml", {"log_events": False},
           "the outcome of every reception is logged before the receiver sends",
           "Bouteiller et al. 2013 §2.2 \"Event logging\" (\"no unlogged nondeterministic event can precede an "
           "orphan message\"); Meyer 2014 §4.1.1", ("NoOrphan", "FailureFreeEquivalence")),
    Mutant("sbml/no-duplicate-suppression", "sbml", {"drop_duplicates": False},
           "re-sent messages are discarded by SSN", "Meyer 2014 §4.1.1 (SSN: \"used for duplicate message "
           "suppression\"), §2.2.4 (duplicated messages)",
           ("NoDuplicateDelivery",)),
    Mutant("uncoordinated/no-logging", "sbml", {"log_events": False, "payload_copy_external": False},
           "independent checkpoints need logs, or rollbacks cascade (domino effect)",
           "Bouteiller et al. 2013 §2.1 (\"a domino effect can force all checkpoints to be discarded\")",
           ("NoLostMessage", "NoOrphan", "Termination", "FailureFreeEquivalence")),
    Mutant("send-deterministic/no-phases", "send-deterministic", {"phases": False},
           "a message after one from another group carries a higher phase, and a phase is replayed only "
           "once no lower phase waits for an orphan", "Guermouche & Ropars 2011 §3.2, Fig. 5 lines 22–27, Fig. 6 line 20",
           ("CausalReplayOrder",)),
    Mutant("send-deterministic/not-send-deterministic", "send-deterministic", {},
           "the application is send-deterministic: a re-execution re-sends the orphans unchanged",
           "Guermouche & Ropars 2011 §2.3, §3.1", ("NoOrphan", "FailureFreeEquivalence"), {"anyway": True}),
    Mutant("send-deterministic/no-restart-buffer", "send-deterministic", {"restart_buffer": False},
           "new messages to a restarting group are buffered and sent when its restart ends",
           "Guermouche & Ropars 2011 §3.2, Fig. 5 lines 15–16, 60–64",
           ("Termination", "NoLostMessage", "NoOrphan", "CausalReplayOrder", "FailureFreeEquivalence")),
    Mutant("send-deterministic/ack-at-next-message", "send-deterministic", {"ack_checkpointed": False},
           "an acknowledgement names what the committed checkpoint holds, not what came before the message "
           "that triggers it (messages may arrive between a member's checkpoint and the commit)",
           "Guermouche & Ropars 2011 Fig. 5 lines 29–31, 36–42; §3.1 coordinated group checkpoints; our reading: "
           "line 30 acks with the triggering message's (Ack, Date_send)", ("NoLostMessage",)),
    Mutant("send-deterministic/gc-off-by-one", "send-deterministic", {"gc_inclusive": True},
           "an acknowledgement deletes the logged messages dated strictly before its MaxDate",
           "Guermouche & Ropars 2011 §3.3, Fig. 5 lines 29–31, 40–42", ("NoLostMessage", "Termination")),
    Mutant("send-deterministic/flush-keeps-buffer", "send-deterministic", {"flush_empties_buffer": False},
           "a message buffered for a restarting group leaves PasEnvoyes when it is sent at the end of the restart",
           "Guermouche & Ropars 2011 Fig. 5 lines 60–64", ("RestartTermination",)),
    Mutant("send-deterministic/restart-failed-only", "send-deterministic", {"group_rollback": False},
           "a failure rolls the whole group back to its coordinated checkpoint",
           "Guermouche & Ropars 2011 §3.1, Fig. 5 lines 44–49",
           ("NoLostMessage", "NoOrphan", "Termination", "FailureFreeEquivalence", "NoDuplicateDelivery")),
    Mutant("send-deterministic/newer-epoch-mark-dropped", "send-deterministic", {"newer_mark_restarts": False},
           "a checkpoint mark of a newer epoch comes from a peer the group's restart already rolled back: it "
           "implies the receiver's rollback; dropped as stale, it never comes again and the wave never ends",
           "Guermouche & Ropars 2011 §3.1, Fig. 5 lines 44–49 (the whole group restarts; coordinated inside it); "
           "our reading: the paper has no epochs or marks",
           ("Termination",)),
    Mutant("send-deterministic/next-wave-mark-dropped", "send-deterministic", {"next_wave_commits": False},
           "a checkpoint mark of the group's next wave that overtakes the commit of this one implies the "
           "commit (its sender joined only after it); counted with this wave's marks, the commit wipes it "
           "and the receiver is left out of the next wave",
           "Guermouche & Ropars 2011 §3.1 (coordinated checkpoints inside a group; our reading: a wave after the "
           "commit)",
           ("Termination",)),
    Mutant("send-deterministic/second-restart-unanswered", "send-deterministic", {"concurrent_restarts": False},
           "a process still restarting that hears of another group's restart tells that group's process its own "
           "restart again (that process's rollback lost it), and the restart process counts orphans per "
           "(reporter, restarting process) once; else the first restart waits forever for an orphan report",
           "Guermouche & Ropars 2011 §2.1 (several faults at once), §3.2 (a restart process per group), "
           "Fig. 5 lines 48–58, Fig. 6 lines 8–17; our reading for concurrent restarts", ("Termination",)),
    Mutant("send-deterministic/lost-on-rollback", "send-deterministic", {"resend_lost": False},
           "what a crash or rollback loses of another group's restart comes again: the checkpoint saves the "
           "buffer of messages for a restarting group, a restarted process awaits the groups it knew restarting "
           "and a finished restart tells its end again, an orphan re-sent is neither buffered nor dropped as "
           "stale, a restart is told again with the date its re-execution reached; else, with two failures and "
           "a group checkpoint, a buffered message or an orphan's re-reception is lost and a restart never ends",
           "Guermouche & Ropars 2011 §2.1 (several faults at once), §3.2 (the buffer of new messages), "
           "Fig. 5 lines 16, 37, 49–64; our reading for two failures", ("Termination",)),
    Mutant("send-deterministic/checkpoint-holds-a-message-past-its-cause", "send-deterministic",
           {"hold_external_until_commit": False},
           "a member that has taken its part of a group checkpoint sends nothing out of its group until the "
           "commit (correction 19, docs/findings.md); as published, P1 checkpoints and sends o to another "
           "group, whose m7 that follows o reaches P0 before P0 checkpoints: the group's line holds m7 but not o",
           "Guermouche & Ropars 2011 §3.1 (\"un protocole coordonné\" inside a group), §2.2 (a consistent "
           "state is one a failure-free run meets), §3.2 (a re-sent message must not overtake its cause)",
           ("CausalReplayOrder", "NoOrphan")),
    Mutant("send-deterministic/told-again-names-only-the-teller", "send-deterministic",
           {"told_again_names_group": False},
           "a restart told again names its teller's whole group, as the first restart message does: line 52 "
           "adds the sender's group to Redemarrage and line 15 buffers for a restarting group (reading 20). "
           "The model's first reading named the teller alone: a process whose crash lost the group's restart "
           "messages waited for the teller only, and its message to another member went out (line 18) ahead "
           "of the re-sent message it depends on (docs/findings.md §3)",
           "Guermouche & Ropars 2011 §2.1, Fig. 5 lines 15–16, 52", ("CausalReplayOrder",)),
    Mutant("app-level/no-late-logging", "app-level", {"log_late": False},
           "late messages are recorded at the receiver and replayed from the log on recovery",
           "Bronevetsky et al., C3, \"Late Messages\", \"Handling Late Messages\"",
           ("NoInTransitInGroup", "NoLostMessage", "Termination")),
    Mutant("app-level/no-early-suppression", "app-level", {"suppress_early": False},
           "the re-sends of early messages are suppressed on recovery",
           "Bronevetsky et al., C3, \"Early Messages\", \"Handling Early Messages\"", ("NoDuplicateDelivery",)),
    Mutant("app-level/no-nondet-logging", "app-level", {"log_nondet": False},
           "non-deterministic events are logged during the logging phase and replayed on recovery",
           "Bronevetsky et al., C3, \"Difficulties in recovery (II)\", \"Mechanism: The Log\"",
           ("NoOrphan", "FailureFreeEquivalence")),
    Mutant("app-level/early-ready-to-stop", "app-level", {"ready_after_late": False},
           "Ready_to_stop_logging is sent only after receiving all late messages",
           "Bronevetsky et al., C3, \"Log-End Line\"", ("LogEndNoLateCrossing", "NoLostMessage", "NoInTransitInGroup")),
    Mutant("app-level/ready-after-one-sender", "app-level", {"late_from_every_sender": False},
           "Ready_to_stop_logging waits for the late messages of every sender, not only of the first",
           "Bronevetsky et al., C3, \"Log-End Line\", \"Handling Late Messages\"",
           ("LogEndNoLateCrossing", "NoLostMessage", "NoInTransitInGroup")),
    Mutant("app-level/no-stop-on-logged-sender", "app-level", {"stop_on_stopped_sender": False},
           "a process stops logging when it receives a message from a process that stopped logging",
           "Bronevetsky et al., C3, \"Log-End Line\"", ("LogEndNoBackwardCrossing",)),
    Mutant("app-level/replay-in-arrival-order", "app-level", {"replay_by_message_id": False},
           "a replayed reception matches the message its log entry names by message ID; queued as they "
           "come on unordered channels, a sender's messages stop the replay at the first out of order",
           "Bronevetsky et al., C3, \"Mechanism: Control Information\", \"Mechanism: The Log\", "
           "\"Additional Issues\" (non-FIFO channels); our reading: the slides do not say how a replay matches",
           ("Termination",)),
    Mutant("app-level/checkpoint-drops-suppressions", "app-level", {"checkpoint_suppressions": False},
           "a checkpoint taken between a recovery and the suppressed re-sends keeps the suppressions "
           "still owed; without them a second rollback to it re-sends an early message its receiver "
           "already has (two failures)",
           "Bronevetsky et al., C3, \"Handling Early Messages\", \"The Global View\"; our reading: the slides "
           "do not cover this case", ("NoDuplicateDelivery",)),
    Mutant("app-level/stale-rollback-is-a-failure", "app-level", {"stale_rollback_is_a_failure": True},
           "a rollback naming only restarts the incarnation has recovered from is no new failure; taking it for "
           "one starts an incarnation that every rollback still in flight outdates again: a rollback storm",
           "Bronevetsky et al., C3, \"The Global View\" (\"A failure in Epoch n means all processes roll back to "
           "the prior recovery line\"; our reading: once)",
           ("RecoveryBound",), extra={"unbounded": "the incarnations grow without end: its state graph is infinite"}),
    # Meyer 2014 (Meyer's thesis): the digest's list, numbered as there
    Mutant("hmpl/no-wildcard-block", "hmpl", {"block_on_wildcard": False},
           "after an ANY_SOURCE reception the receiver waits until the message is fully logged (1)",
           "Meyer 2014 §4.2.3, Fig. 4.6", ("NoOrphan", "FailureFreeEquivalence")),
    Mutant("hmpl/sender-erases-before-t6", "hmpl", {"sender_erases_on_next_send": True},
           "the sender erases M from its TB only when the receiver tells it, after t6 (2)",
           "Meyer 2014 §4.2.2 (t7), §4.2.4", ("ErasureOrder", "NoLostMessage", "Termination")),
    Mutant("hmpl/release-before-logger-ack", "hmpl", {"release_at": "t2"},
           "the receiver tells the sender to erase M only after L2's confirmation (3)",
           "Meyer 2014 §4.2.2 (t6 before t7)", ("ErasureOrder", "NoLostMessage", "Termination")),
    Mutant("hmpl/no-release", "hmpl", {"release_at": "never"},
           "after L2's confirmation the receiver tells the sender, which erases M (t7)",
           "Meyer 2014 §4.2.2, §4.2.4", ("TBBound", "BuffersErased")),
    Mutant("hmpl/logger-keeps-unacked-no-ssn-check", "hmpl",
           {"logger_drops_unacked": False, "drop_duplicates": False},
           "L2 erases what it saved but never confirmed, and every reception is checked by SSN (4)",
           "Meyer 2014 §4.2.2, §4.2.4", ("NoDuplicateDelivery", "LoggedOnce", "BuffersErased")),
    Mutant("hmpl/no-ssn-check", "hmpl", {"drop_duplicates": False},
           "the FT layer checks the SSN of every reception and drops duplicates (5)",
           "Meyer 2014 §4.2.2, §4.2.4", ("NoDuplicateDelivery", "LoggedOnce", "BuffersErased")),
    Mutant("hmpl/tb-before-log", "hmpl", {"tb_query": "before-log"},
           "recovery consumes the log first, the senders' TBs after (6)",
           "Meyer 2014 §4.2.2, Fig. 4.5", ("LoggedOnce", "NoOrphan", "FailureFreeEquivalence",
                                         "Termination", "NoDuplicateDelivery")),
    Mutant("hmpl/no-tb-query", "hmpl", {"tb_query": "none"},
           "after the log, the restarted receiver asks the senders' TBs (6)",
           "Meyer 2014 §4.2.2", ("Termination", "NoLostMessage", "BuffersErased")),
    Mutant("hmpl/logger-on-same-node", "hmpl", {"logger_placement": "same-node"},
           "each process's logger runs on another node (7)",
           "Meyer 2014 §4.2.2, §4.2.4; §2.3 (RADIC)", ("LoggerPlacement", "NoLostMessage", "Termination")),
    Mutant("hmpl/no-sender-tb", "hmpl", {"sender_tb": False},
           "the sender keeps M in its TB until the receiver's logging ends (8)",
           "Meyer 2014 §4.2 (\"a pessimistic sender-based logging is used to temporarily save messages\"), "
           "§4.2.2 (t2–t4)", ("NoLostMessage", "Termination")),
    Mutant("hmpl/competing-erasure-any-sender", "hmpl", {"competing_erasure": "any-sender"},
           "a competing sender's unconfirmed TB entry goes only after a later message from it is confirmed (9)",
           "Meyer 2014 §4.2.3 (\"after the receiver process confirms the reception of a subsequent message\": "
           "ambiguous; our reading is the own-sender one, the mutant the other)",
           ("ErasureOrder", "NoLostMessage", "Termination")),
    Mutant("rbml/send-before-logged", "rbml", {"block_sends_until_logged": False},
           "the RBML receiver sends nothing until its logger confirms every reception (10)",
           "Meyer 2014 §4.1.2", ("NoOrphan", "FailureFreeEquivalence")),
    Mutant("sbml/send-before-rsn-ack", "sbml", {"block_sends_until_logged": False},
           "between a reception and the ACK of its RSN the receiver sends nothing (11)",
           "Meyer 2014 §4.1.1", ("NoOrphan", "FailureFreeEquivalence")),
    Mutant("sbml/replay-out-of-rsn-order", "sbml", {"replay_order": "arrival"},
           "fully logged messages are replayed in ascending RSN from the checkpointed RSN + 1 (11)",
           "Meyer 2014 §4.1.1", ("NoOrphan", "FailureFreeEquivalence", "Termination")),
    Mutant("hmpl/checkpoint-without-flush", "hmpl", {"flush_before_checkpoint": False},
           "a process checkpoints with its channel to the logger flushed (12)",
           "Meyer 2014 §2.3.4 (\"all communication channels are flushed\" before a checkpoint); our reading: "
           "the receiver TB too", ("BuffersErased", "Termination", "ErasureOrder", "GCBehindCheckpoint")),
    Mutant("hmpl/gc-before-durable-checkpoint", "hmpl", {"gc_after_durable": False},
           "the log is collected only behind a durable checkpoint (13)",
           "Meyer 2014 §4.1.1, §4.1.2 (the log is deleted after a checkpoint); our reading: only once it is "
           "durable", ("GCBehindCheckpoint", "NoLostMessage", "Termination")),
    Mutant("sbml/node-crash-takes-sender-and-receiver", "sbml", {},
           "a determinant survives the failure: SBML keeps it in its sender's volatile memory, so it survives one "
           "failed process, not a node crash that takes a receiver with a sender on its node (outside the thesis's "
           "claim for SBML; the same scenario passes under process crashes)",
           "Meyer 2014 §4.1.1 (\"logged in the volatile memory of the machine from which the message is going to "
           "be sent\"), §2.2.1 (stable storage: \"the volatile memory of another node\")",
           ("NoOrphan", "FailureFreeEquivalence"), extra={"assumption": "beyond_fault_model"}),
    Mutant("hmpl/failure-during-recovery", "hmpl", {},
           "no failure during recovery, nor of a node together with its protector (14: outside the "
           "assumptions; the same scenario passes with no_failure_during_recovery)",
           "Meyer 2014 §2.2.1; §2.3 (RADIC)", ("Termination", "NoLostMessage", "NoOrphan", "FailureFreeEquivalence"),
           extra={"assumption": "no_failure_during_recovery"}),
    Mutant("hmpl/wildcard-rule-any-source-only", "hmpl", {"log_choices": False},
           "every non-deterministic event (Waitany/Testany outcomes, probes), not only ANY_SOURCE, is "
           "logged before the process goes on (15)",
           "Meyer 2014 §4.2.3 (ANY_SOURCE as \"the main source of non-determinism\"), §4.1 (piecewise "
           "determinism); our reading: the rule extends to the others", ("NoOrphan", "FailureFreeEquivalence")),
    # Model-level mutants: the model's own semantics set wrong (checker/model/system.py MODEL_KNOBS), run
    # under a correct protocol. They show the properties, not golden files, pin the model's rules.
    # (A crash that keeps the packets addressed to the dead process for its next incarnation is not
    # among them: every protocol here drops such stale packets by SSN or epoch, so no property can
    # tell; docs/design.md §6 says so.)
    Mutant("model/crash-keeps-queue", "sbml", {},
           "the receive queue (MPI's unexpected messages) is volatile: a crash empties it",
           "docs/design.md §2; Meyer 2014 §2.2.1 (a crash loses the process's volatile state)",
           ("NoDuplicateDelivery",), extra={"model": {"crash_drops_queue": False}}),
    Mutant("model/rollback-keeps-app-state", "coordinated", {},
           "a rollback restores the application's state from the checkpoint image",
           "docs/design.md §2; Bouteiller et al. 2013 §2.1 (a checkpoint is \"used to restore the process in case "
           "of failure\")",
           ("NoLostMessage", "FailureFreeEquivalence", "Termination"),
           extra={"model": {"rollback_restores_app": False}}),
    Mutant("model/image-without-data", "coordinated", {},
           "a checkpoint image holds the application's data (its memory), not only its program counter",
           "docs/design.md §2; Bouteiller et al. 2013 §2.1 (a checkpoint saves the process's state)",
           ("FailureFreeEquivalence",), extra={"model": {"image_holds_data": False}}),
    Mutant("model/fifo-reorders", "chandy-lamport", {},
           "a FIFO channel delivers its oldest packet first (the markers' precondition)",
           "docs/design.md §2; Chandy and Lamport, TOCS 1985 (FIFO channels, as in Pingali's C3 slides "
           "\"Chandy-Lamport protocol\")",
           ("NoInTransitInGroup", "NoLostMessage", "Termination"), extra={"model": {"fifo_in_order": False}}),
)}


def build(protocol: str, mutant: str | None = None) -> Protocol:
    from rrcheck.errors import UsageError
    if mutant:
        if mutant not in MUTANTS:
            raise UsageError(f"unknown mutant {mutant!r}; `rrcheck list` shows them all")
        m = MUTANTS[mutant]
        if protocol and protocol != m.protocol:
            raise UsageError(f"mutant {mutant!r} is a variant of {m.protocol!r}, not {protocol!r}")
        return PROTOCOLS[m.protocol](**m.knobs)
    if protocol not in PROTOCOLS:
        raise UsageError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)} (rrcheck list)")
    return PROTOCOLS[protocol]()
