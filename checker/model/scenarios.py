"""Scenarios: a workload, its placement and grouping, and the bounds — the
default ones each protocol and mutant is checked on by ``rrcheck check --all``.

Sizes are chosen so that the exhaustive search of every default scenario ends
in seconds to a minute on 2 cores (benchmarks/explore_throughput.py measures
them); larger ones are a ``--procs/--failures`` away.
"""
from __future__ import annotations

from dataclasses import dataclass

from rrcheck.checker.model import workloads as W
from rrcheck.errors import UsageError
from rrcheck.checker.model.system import Bounds, System
from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS, build


@dataclass(frozen=True)
class Scenario:
    workload: str
    procs: int | None = None
    nodes: int | None = None
    failures: int = 1
    checkpoints: int = 1
    crash_kinds: tuple[str, ...] = ("process", "node")
    grouping: tuple[int, ...] | None = None
    at_sites: bool = False
    depth: int = 10_000
    note: str = ""
    no_failure_during_recovery: bool = False  # Meyer 2014 §2.2.1
    beyond_fault_model: bool = False  # run a configuration the protocol's source does not claim (docs/findings.md)

    def bounds(self) -> Bounds:
        return Bounds(failures=self.failures, checkpoints=self.checkpoints, depth=self.depth,
                      crash_kinds=self.crash_kinds, checkpoint_at_sites=self.at_sites,
                      no_failure_during_recovery=self.no_failure_during_recovery)

    def label(self) -> str:
        """The workload and every value used: processes, nodes, failures, checkpoints."""
        from pathlib import Path
        try:
            w = W.make(self.workload, self.procs, self.nodes)
            size = f" n={w.n}/{len(set(w.node_of))}nodes"
        except UsageError:
            size = ""
        name = Path(self.workload).name if W.is_file(self.workload) else self.workload
        where = "@sites" if self.at_sites else ""
        kinds = "" if len(self.crash_kinds) == 2 else f" {self.crash_kinds[0]}"
        calm = " no-failure-in-recovery" if self.no_failure_during_recovery else ""
        return f"{name}{size} f={self.failures} c={self.checkpoints}{where}{kinds}{calm}"


# Every correct protocol on at least three scenarios, chosen so that the
# exhaustive search of each ends in seconds (the full interleaving semantics of
# four processes with checkpoint waves reaches millions of states: see
# benchmarks/results/explore_throughput.json and SLOW below).
DEFAULTS: dict[str, tuple[Scenario, ...]] = {
    "correlated-set": (
        Scenario("ring", 2, 1, note="one set of two on one node, a checkpoint wave, node crash"),
        Scenario("pairs", checkpoints=0, note="two sets of two, node and process crashes"),
        Scenario("pair_and_one", at_sites=True, crash_kinds=("node",),
                 note="a set of two and one of one, a checkpoint per set, node crash"),
        Scenario("pingpong", 2, 1, note="one set of two, a checkpoint wave"),
        Scenario("any_source_race", 3, 2, checkpoints=0, note="ANY_SOURCE race across two sets"),
        Scenario("fig1", at_sites=True, crash_kinds=("process",),
                 note="Bouteiller et al. Fig. 1, singleton sets: C_1^1 after m1 and m2"),
        Scenario("fig2", checkpoints=0, crash_kinds=("process",),
                 note="Bouteiller et al. Fig. 2: the execution of Theorem 2, S1 = {P0, P1, P2}"),
        Scenario("pingpong", 3, 1, checkpoints=0, crash_kinds=("node",),
                 note="one set of three on one node: a node crash, three restarts heard in any order"),
        Scenario("idle", 2, 1, failures=3,
                 note="a set of two on one node, no message, three failures: control packets of another epoch "
                      "reach one member twice (the occurrence operator)"),
    ),
    "sbml": (
        Scenario("ring", 2, 2, note="a checkpoint and its garbage collection at the senders"),
        Scenario("pingpong", 2, 2, checkpoints=0, note="NetPIPE-like ping-pong (Meyer 2014 §5.1.2)"),
        Scenario("node_handoff", at_sites=True, beyond_fault_model=True,
                 note="a node crash takes a sender checkpointed past m1 and m1's receiver: beyond the thesis's "
                      "claim for SBML, the model's readings of §2.2.1 (docs/findings.md)"),
        Scenario("node_rsn_gap", checkpoints=0, beyond_fault_model=True,
                 note="a node crash loses the RSN its sender held, not the next one: beyond the thesis's claim, "
                      "the model's gap reading of §4.1.1 (docs/findings.md)"),
        Scenario("ring", 2, 2, failures=0, checkpoints=2,
                 note="failure-free, two checkpoints per process: the log collected behind the second (the survivor "
                      "sweep's occurrence operator)"),
        Scenario("burst", checkpoints=0,
                 note="three messages in a row: a restarted receiver drops each one that overtakes a lost one "
                      "(the survivor sweep's occurrence operator)"),
        Scenario("node_handoff2", at_sites=True, crash_kinds=("node",), beyond_fault_model=True,
                 note="two sends inside a node, the sender checkpointed past both: a release after the second RSN "
                      "acknowledgement empties the Message Log the node crash needs (the occurrence operator)"),
    ),
    "hmpl": (
        Scenario("pingpong", 2, 2, checkpoints=0,
                 note="NetPIPE-like ping-pong: every failure moment of Fig. 4.4 (Meyer 2014 §4.2.2)"),
        Scenario("wildcard_race", checkpoints=0, crash_kinds=("process",),
                 note="wildcard rule (Meyer 2014 §4.2.3) with competing senders (Meyer 2014 §4.2.3)"),
        Scenario("ring", 2, 2, note="a checkpoint, the log collected behind it"),
        Scenario("node_handoff", at_sites=True,
                 note="a node crash takes a sender checkpointed past m1 and m1's receiver (Meyer 2014 §2.2.1)"),
        Scenario("ring", 2, 2, failures=0, checkpoints=2,
                 note="failure-free, two checkpoints per process: the log collected behind the second (the survivor "
                      "sweep's occurrence operator)"),
        Scenario("queued_choice", at_sites=True, crash_kinds=("process",),
                 note="a checkpoint with m1 queued, then a logged outcome and m1: two log entries the restored "
                      "state already holds (the occurrence operator)"),
    ),
    "rbml": (
        Scenario("ring", 2, 2, checkpoints=0, note="every failure moment of the flow"),
        Scenario("pingpong", 2, 2, checkpoints=0, note="NetPIPE-like ping-pong"),
        Scenario("testany", checkpoints=0, crash_kinds=("process",), note="a logged Testany outcome"),
        Scenario("node_handoff", at_sites=True,
                 note="a node crash takes a sender checkpointed past m1 and m1's receiver (Meyer 2014 §2.2.1)"),
        Scenario("master_worker", 2, 2, crash_kinds=("process",),
                 note="a checkpoint behind logged receptions: the log entries it covers are not replayed"),
        Scenario("ring", 2, 2, failures=0, checkpoints=2,
                 note="failure-free, two checkpoints per process: the log collected behind the second (the survivor "
                      "sweep's occurrence operator)"),
        Scenario("testany2", checkpoints=0, crash_kinds=("process",),
                 note="two Testany-like outcomes replayed after one crash (the occurrence operator)"),
    ),
    "coordinated": (
        Scenario("ring", 2, 2),
        Scenario("ring", 2, 1, note="node crash"),
        Scenario("pingpong", 2, 2),
        Scenario("ring", 3, 2, checkpoints=0, crash_kinds=("node",),
                 note="two processes on one node: a node crash restarts both at once (docs/findings.md §4)"),
        Scenario("pingpong", 3, 2, crash_kinds=("node",),
                 note="a checkpoint wave and a node crash of two: rollbacks join on the lower line"),
        Scenario("pingpong", 3, 1, failures=0, checkpoints=3,
                 note="failure-free, three waves: a commit of wave k reaches P2 after P1's marker of wave k+1, "
                      "twice (the occurrence operator)"),
    ),
    "chandy-lamport": (
        Scenario("ring", 2, 2),
        Scenario("ring", 2, 1, note="node crash"),
        Scenario("pingpong", 2, 2),
        Scenario("channel_state", note="two messages recorded as one channel's state: a rule kept for the first "
                                       "alone loses the second (the survivor sweep's occurrence operator)"),
    ),
    "send-deterministic": (
        Scenario("sd_phases", checkpoints=0, note="Guermouche and Ropars 2011 Fig. 2 core: two groups, orphan m3, m7 held"),
        Scenario("sd_burst", note="a checkpoint, acknowledgements, buffering during a restart"),
        Scenario("reduce", 3, 2, checkpoints=0, note="send-deterministic ANY_SOURCE reduction, node crash"),
        Scenario("ring", 2, 1, note="a coordinated checkpoint wave inside a group of two, node crash"),
        Scenario("sd_ack", crash_kinds=("process",),
                 note="a message from the other group between a member's checkpoint and the commit"),
        Scenario("ring", 3, 2, checkpoints=0,
                 note="groups of two and one: a restart's end and a failure it learns late (the rule sweep)"),
        Scenario("sd_burst", failures=2, checkpoints=0, crash_kinds=("process",),
                 note="two failures, both groups restarting at once (Guermouche and Ropars 2011 §2.1, §3.2)"),
        Scenario("ring", 2, 2, failures=2, checkpoints=1, crash_kinds=("process",),
                 note="two failures and a group checkpoint: what a crash or rollback loses of a restart"),

        Scenario("sd_orphan_path", note="a path out of the group and back in across a group checkpoint: "
                                        "correction 19 (docs/findings.md)"),
        Scenario("sd_path_back", crash_kinds=("process",),
                 note="the same path, and a survivor that would be an orphan without correction 19"),
        Scenario("pingpong", 3, 1, failures=0, checkpoints=3,
                 note="failure-free, one group of three, three waves: a commit of wave k reaches P2 after P1's "
                      "mark of wave k+1, twice (the occurrence operator)"),
        Scenario("sd_wave_after_restarts", at_sites=True, crash_kinds=("node",),
                 note="a node crash of two members restarts the group twice, then a wave: a stale rollback and a "
                      "newer mark met twice (the occurrence operator)"),
        Scenario("sd_stale_end", checkpoints=0, crash_kinds=("node",),
                 note="two restarts of one group: the older restart's end reaches the other group after the newer "
                      "began (the occurrence operator)"),
    ),
    "app-level": (
        Scenario("c3_epochs", at_sites=True, crash_kinds=("process",),
                 note="the C3 slides: late, early, intra-epoch messages, a nondet choice, a Log-End line"),
        Scenario("c3_two_epochs", checkpoints=2, at_sites=True, crash_kinds=("process",),
                 note="the C3 slides: two successive epochs, a failure in either"),
        Scenario("c3_collectives", at_sites=True, crash_kinds=("process",),
                 note="the C3 slides: reduce, bcast, alltoall and barrier before a checkpoint, inside a log, after it"),
        Scenario("c3_bcast_root", at_sites=True, crash_kinds=("process",),
                 note="the C3 slides: a bcast from a root still logging to a receiver that has stopped (the rule sweep)"),
        Scenario("c3_resuppress", failures=2, checkpoints=2, at_sites=True, crash_kinds=("process",),
                 note="the C3 slides: two failures, a checkpoint between a recovery and a suppressed re-send"),
        Scenario("ring", 3, 1, checkpoints=0, crash_kinds=("node",),
                 note="three processes on one node: a node crash, three restarts heard in any order"),
        Scenario("c3_two_sites", failures=2, checkpoints=2, at_sites=True, crash_kinds=("process",),
                 note="the C3 slides, unordered channels: a rollback overtakes Stop_logging in two epochs "
                      "(the occurrence operator)"),
        Scenario("c3_recv_then_nondet", at_sites=True, crash_kinds=("process",),
                 note="the C3 slides: two receptions, then a nondet choice, in one log (the occurrence operator)"),
        Scenario("c3_two_readies", at_sites=True, crash_kinds=("process",),
                 note="the C3 slides: the initiator waits for two Ready_to_stop_logging (the occurrence operator)"),
        Scenario("c3_three_sites", checkpoints=3, at_sites=True, crash_kinds=("process",),
                 note="the C3 slides, unordered channels: Chkpt_Ok overtakes Stop_logging twice (the occurrence "
                      "operator)"),
    ),
}

# Beyond the default test run (pytest -m slow, a minute or two each). Two
# correlated sets of two with a checkpoint per set is out of reach so far:
# more than 5 million states (see the README's limits).
SLOW: dict[str, tuple[Scenario, ...]] = {
    "correlated-set": (Scenario("theorem2", checkpoints=0, note="two sets of two, node and process crashes"),),
    "sbml": (Scenario("any_source_race", 3, 3, checkpoints=0, crash_kinds=("process",)),
             Scenario("fig1", checkpoints=0, crash_kinds=("process",), note="Bouteiller et al. 2013 Fig. 1"),
             Scenario("theorem2", checkpoints=0, beyond_fault_model=True,
                      note="two nodes of two, ANY_SOURCE; node crashes beyond the thesis's claim for SBML"),
             Scenario("node_handoff", failures=2, checkpoints=0, crash_kinds=("node",), no_failure_during_recovery=True,
                      beyond_fault_model=True, note="two node crashes in turn: a fetch retried once in each")),
    "hmpl": (Scenario("fig46", checkpoints=0, crash_kinds=("process",), note="Meyer 2014 Fig. 4.6"),
             Scenario("any_source_race", 3, 3, checkpoints=0, crash_kinds=("process",)),
             Scenario("pingpong", 2, 2, note="ping-pong with a checkpoint"),
             Scenario("ring", 2, 2, checkpoints=0, failures=2, crash_kinds=("process",),
                      no_failure_during_recovery=True, note="two sequential failures (Meyer 2014 §2.2.1)"),
             Scenario("node_handoff", at_sites=True, failures=2, crash_kinds=("node",), no_failure_during_recovery=True,
                      note="two node crashes in turn: the restored TB re-sent at each restart (Meyer 2014 §2.2.1)")),
    "rbml": (Scenario("any_source_race", 3, 3, checkpoints=0, crash_kinds=("process",)),
             Scenario("ring", 2, 2, note="a checkpoint, the log collected behind it")),
    "coordinated": (Scenario("any_source_race", 3, 3, crash_kinds=("process",)),),
    "send-deterministic": (Scenario("sd_phases", note="two groups, a checkpoint wave in each, node crashes"),
                           Scenario("sd_phases", failures=2, checkpoints=0, crash_kinds=("process",),
                                    note="two failures in a group of two and one: an end that a newer restart made stale"),
                           Scenario("sd_orphan_path", failures=2, checkpoints=0, crash_kinds=("process",),
                                    note="two failures: a replay of a restart that is over, dropped (the rule sweep)"),
                           Scenario("sd_two_replays", failures=2, checkpoints=0, crash_kinds=("process",),
                                    note="two replays of an ended restart overtaken on the leader's own channel "
                                         "(the occurrence operator)"),
                           Scenario("sd_three_restarts", failures=3, checkpoints=0, crash_kinds=("process",),
                                    note="three restarts of one group: two stale ends at the leader (the occurrence "
                                         "operator; 514,408 states)")),
    "app-level": (Scenario("c3_any_source", at_sites=True, crash_kinds=("process",),
                           note="the C3 slides: an ANY_SOURCE order replayed from the log, three processes"),
                  Scenario("c3_epochs", checkpoints=2, at_sites=True, crash_kinds=("process",)),
                  Scenario("c3_collectives", checkpoints=2, at_sites=True, crash_kinds=("process",)),
                  Scenario("c3_site_in_replay", failures=2, checkpoints=2, at_sites=True, crash_kinds=("process",),
                           note="the C3 slides: a checkpoint site inside the replay of the log before (the rule sweep)"),
                  Scenario("c3_sites_in_replay", failures=2, checkpoints=2, at_sites=True, crash_kinds=("process",),
                           note="the C3 slides: two sites inside the replay of the log before, two failures")),
}

# Larger scenarios the main job (rrcheck check --all) checks exhaustively, with its
# reductions, beyond the default scenarios that every test run and TLC's catalogue
# check: the thesis's Fig. 4.6, and two correlated sets of two with a checkpoint wave
# in each (222,949 states reduced; unreduced more than 3.4 million, out of TLC's reach
# here). Guermouche and Ropars' Fig. 2 (sd_fig2, seven processes) is still out of
# reach: with one failure and no checkpoint, more than 3 million states by depth 13 in
# two minutes. Its failure-free runs are 182 states; the growth is in the recovery, where
# the stubborn set's closure (an empty channel brings its sender in) takes in every process
# (docs/design.md §5: why no account of the recovery's control traffic narrows it).
TWO_BY_TWO = Scenario("pairs", at_sites=True, crash_kinds=("node",),
                      note="two sets of two, a checkpoint per set, node crash")
# Theorem 2 under node crashes: the node's crash takes the whole set of three, whose
# internal receptions are then replayed from the event log alone (509,353 states reduced;
# unreduced more than 1.5 million by depth 14, out of TLC's reach here).
THEOREM2_NODE = Scenario("theorem2_three", checkpoints=0, crash_kinds=("node",),
                         note="Theorem 2 in a set of three on one node: a node crash, internal receptions replayed")
FIGURES: dict[str, tuple[Scenario, ...]] = {"hmpl": (SLOW["hmpl"][0],), "correlated-set": (TWO_BY_TWO, THEOREM2_NODE)}

MUTANT_SCENARIOS: dict[str, Scenario] = {
    "correlated-set/no-internal-event-logging": Scenario("fig2", checkpoints=0, crash_kinds=("process",)),
    "correlated-set/no-internal-silence": Scenario("ring", 2, 1),
    "correlated-set/line-before-the-set-checkpoints": Scenario("ring", 2, 1),
    "correlated-set/no-external-payload-copy": Scenario("ring", 4, 2, checkpoints=0),
    "correlated-set/global-rollback": Scenario("ring", 4, 2, checkpoints=0),
    # three processes, two waves: P1's marker of wave 2 reaches P2 before P0's commit of wave 1
    "coordinated/next-wave-marker-dropped": Scenario("ring", 3, 1, failures=0, checkpoints=2),
    "coordinated/stale-rollback-is-a-failure": Scenario("ring", 3, 2, checkpoints=0, crash_kinds=("node",)),
    # one group of three, two waves: P1's mark of wave 2 reaches P2 before P0's commit of wave 1
    "send-deterministic/next-wave-mark-dropped": Scenario("ring", 3, 1, failures=0, checkpoints=2),
    # two groups of one: P1 crashes with P0's restart message in flight to it, and P0 waits for its report
    # (ring scales, so the fuzzer's twice-as-large configuration lets failures overlap; sd_burst is fixed)
    "send-deterministic/second-restart-unanswered": Scenario("ring", 2, 2, failures=2, checkpoints=0,
                                                             crash_kinds=("process",)),
    # two groups of one, a checkpoint each: a crash or rollback loses a buffered message, an orphan's
    # re-reception or a restart's end, and a restart never ends
    "send-deterministic/lost-on-rollback": Scenario("pingpong", 2, 2, failures=2, checkpoints=1,
                                                    crash_kinds=("process",)),
    # groups {P0, P1} and {P2}: P2 checkpoints holding the orphan m3 and crashes with group 1's restart
    # messages on their way; told again by P0 alone, it sends m7 to P1 ahead of m3's re-execution
    "send-deterministic/told-again-names-only-the-teller": Scenario("sd_told_again", failures=2, checkpoints=1,
                                                                    at_sites=True, crash_kinds=("process",)),
    # one set of three: P1's token of the wave after P0's restart reaches P2 before P0's rollback notice
    "correlated-set/newer-epoch-token-dropped": Scenario("pingpong", 3, 1, crash_kinds=("process",)),
    "correlated-set/stale-rollback-is-a-failure": Scenario("pingpong", 3, 1, checkpoints=0, crash_kinds=("node",)),
    "chandy-lamport/no-channel-recording": Scenario("ring", 2, 2),
    "sbml/no-event-logging": Scenario("fig1", checkpoints=0, crash_kinds=("process",)),
    "sbml/no-duplicate-suppression": Scenario("pingpong", checkpoints=0, crash_kinds=("process",)),
    "uncoordinated/no-logging": Scenario("fig1", crash_kinds=("process",)),
    "model/crash-keeps-queue": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "model/rollback-keeps-app-state": Scenario("ring", 2, 2, crash_kinds=("process",)),
    "model/image-without-data": Scenario("ring", 2, 2, crash_kinds=("process",)),
    "model/fifo-reorders": Scenario("ring", 2, 2, crash_kinds=("process",)),
    "send-deterministic/no-phases": Scenario("sd_phases", checkpoints=0, crash_kinds=("process",)),
    "send-deterministic/checkpoint-holds-a-message-past-its-cause": Scenario("sd_orphan_path",
                                                                             crash_kinds=("process",)),
    "send-deterministic/not-send-deterministic": Scenario("any_source_race", 3, 2, checkpoints=0,
                                                          crash_kinds=("process",)),
    "send-deterministic/no-restart-buffer": Scenario("sd_burst", checkpoints=0, crash_kinds=("process",)),
    "send-deterministic/flush-keeps-buffer": Scenario("sd_burst", checkpoints=0, crash_kinds=("process",)),
    "send-deterministic/gc-off-by-one": Scenario("sd_burst", crash_kinds=("process",)),
    "send-deterministic/restart-failed-only": Scenario("ring", 2, 1, checkpoints=0, crash_kinds=("process",)),
    # one group of three: P1, rolled back, forwards P0's mark of the next wave to P2 ahead of P0's rollback
    "send-deterministic/newer-epoch-mark-dropped": Scenario("pingpong", 3, 1, checkpoints=1, crash_kinds=("process",)),
    "app-level/no-late-logging": Scenario("c3_epochs", at_sites=True, crash_kinds=("process",)),
    "app-level/no-early-suppression": Scenario("c3_epochs", at_sites=True, crash_kinds=("process",)),
    "app-level/no-nondet-logging": Scenario("c3_epochs", at_sites=True, crash_kinds=("process",)),
    "app-level/early-ready-to-stop": Scenario("c3_epochs", at_sites=True, crash_kinds=("process",)),
    # LogEndNoLateCrossing is a failure-free property of the log-end line: no crash needed
    # (with one the unreduced graph is 2.2 million states, against 2,912)
    "app-level/ready-after-one-sender": Scenario("c3_two_late", failures=0, at_sites=True, crash_kinds=("process",)),
    "app-level/no-stop-on-logged-sender": Scenario("c3_epochs", at_sites=True, crash_kinds=("process",)),
    # m1 (late, from P0's log) and P1's re-sent m2, m3 come in another order than P0 logged
    "app-level/replay-in-arrival-order": Scenario("c3_same_sender", at_sites=True, crash_kinds=("process",)),
    # two failures: P0 checkpoints again before the re-send of m1 it was told to suppress
    "app-level/checkpoint-drops-suppressions": Scenario("c3_resuppress", failures=2, checkpoints=2, at_sites=True,
                                                        crash_kinds=("process",)),
    "app-level/stale-rollback-is-a-failure": Scenario("ring", 3, 1, checkpoints=0, crash_kinds=("node",)),
    "rbml/checkpoint-without-tb": Scenario("node_handoff", at_sites=True, crash_kinds=("node",)),
    "sbml/no-fetch-retry": Scenario("node_handoff", at_sites=True, crash_kinds=("node",), beyond_fault_model=True),
    "sbml/no-rsn-gap-fill": Scenario("node_rsn_gap", checkpoints=0, crash_kinds=("node",), beyond_fault_model=True),
    # outside the thesis's claim for SBML (docs/findings.md): the same scenario passes under process crashes
    "sbml/node-crash-takes-sender-and-receiver": Scenario("node_rsn_last", checkpoints=0, crash_kinds=("node",),
                                                           beyond_fault_model=True),
    "send-deterministic/ack-at-next-message": Scenario("sd_ack", crash_kinds=("process",)),
    "hmpl/no-wildcard-block": Scenario("wildcard_race", checkpoints=0, crash_kinds=("process",)),
    "hmpl/sender-erases-before-t6": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/release-before-logger-ack": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/no-release": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/logger-keeps-unacked-no-ssn-check": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/no-ssn-check": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/tb-before-log": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/no-tb-query": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/logger-on-same-node": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/no-sender-tb": Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",)),
    "hmpl/competing-erasure-any-sender": Scenario("any_source_race", 3, 3, checkpoints=0, crash_kinds=("process",)),
    "rbml/send-before-logged": Scenario("testany", checkpoints=0, crash_kinds=("process",)),
    "sbml/send-before-rsn-ack": Scenario("wildcard_race", checkpoints=0, crash_kinds=("process",)),
    "sbml/replay-out-of-rsn-order": Scenario("any_source_race", 3, 3, checkpoints=0, crash_kinds=("process",)),
    "hmpl/checkpoint-without-flush": Scenario("ring", 2, 2, crash_kinds=("process",)),
    "hmpl/gc-before-durable-checkpoint": Scenario("ring", 2, 2, crash_kinds=("process",)),
    # outside the thesis' assumptions (Meyer 2014 §2.2.1): the same scenario with
    # no_failure_during_recovery passes (SLOW["hmpl"], tests/test_invariants_hmpl.py)
    "hmpl/failure-during-recovery": Scenario("pingpong", 2, 2, checkpoints=0, failures=2, crash_kinds=("process",)),
    "hmpl/wildcard-rule-any-source-only": Scenario("testany", checkpoints=0, crash_kinds=("process",)),
}


def scenario_for_mutant(name: str) -> Scenario:
    if name not in MUTANTS:
        raise UsageError(f"unknown mutant {name!r}; `rrcheck list` shows them all")
    return MUTANT_SCENARIOS[name]


def make_system(protocol: str, scenario: Scenario, mutant: str | None = None,
                grouping: tuple[int, ...] | None = None):
    proto = build(protocol, mutant)
    workload = W.make(scenario.workload, scenario.procs, scenario.nodes)
    group_of = grouping or scenario.grouping
    if group_of is not None and len(group_of) != workload.n:
        raise UsageError(f"the grouping names {len(group_of)} processes but {workload.name} has {workload.n}")
    beyond = proto.beyond_fault_model(workload.node_of, [(s, d) for s, d, _ in workload.comm_edges()],
                                      scenario.crash_kinds)
    if beyond and not scenario.beyond_fault_model:
        raise UsageError(f"{beyond}; add --beyond-fault-model to check it all the same")
    return System(proto, workload, scenario.bounds(), group_of, MUTANTS[mutant].model if mutant else None), workload


def system_for(cx) -> tuple[System, W.Workload]:
    """Rebuild the system a counterexample file describes."""
    if cx.protocol not in PROTOCOLS:
        raise UsageError(f"counterexample names unknown protocol {cx.protocol!r}")
    if cx.mutant and cx.mutant not in MUTANTS:
        raise UsageError(f"counterexample names unknown mutant {cx.mutant!r}")
    proto_cls = PROTOCOLS[cx.protocol]
    try:
        proto = proto_cls(**cx.knobs)
    except ValueError as e:
        raise UsageError(f"counterexample knobs: {e}")
    if cx.workload_spec is not None:
        from rrcheck.checker.model.workload_file import build
        workload = build(cx.workload_spec, "the counterexample's workload")
        if workload.name != cx.workload:
            raise UsageError(f"counterexample names workload {cx.workload!r} but embeds {workload.name!r}")
    else:
        workload = W.make(cx.workload, cx.procs, cx.nodes)
    if list(workload.node_of) != cx.placement:
        raise UsageError(f"counterexample placement {cx.placement} differs from workload {cx.workload!r}'s")
    b = cx.bounds
    bounds = Bounds(b.failures, b.checkpoints, b.depth, tuple(b.crash_kinds), b.no_failure_during_recovery,
                    b.checkpoint_at_sites)
    if len(cx.grouping) != workload.n:
        raise UsageError(f"counterexample grouping has {len(cx.grouping)} entries for {workload.n} processes")
    model = MUTANTS[cx.mutant].model if cx.mutant else None
    return System(proto, workload, bounds, tuple(cx.grouping), model), workload
