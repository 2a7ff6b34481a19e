"""The built-in workloads (``rrcheck list``) and :func:`make`, which gives a
workload by name or reads a workload file (docs/design.md §2, "Application").
The operations and the :class:`Workload` type are in checker/model/program.py."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rrcheck.checker.model.program import (  # noqa: F401
    CLASSES,
    DETERMINISTIC,
    M32,
    NON_DETERMINISTIC,
    SEND_DETERMINISTIC,
    SITE,
    Workload,
    coll,
    mix,
    nondet,
    recv,
    reply,
    send,
)
from rrcheck.protocols.base import ANY, COLLECTIVES  # noqa: F401


def blocks(n: int, nodes: int) -> tuple[int, ...]:
    """Block placement of n processes on ``nodes`` nodes."""
    nodes = max(1, min(nodes, n))
    return tuple(p * nodes // n for p in range(n))


def ring(n: int = 4, nodes: int = 2, rounds: int = 1) -> Workload:
    progs = [(send((p + 1) % n), recv((p - 1) % n)) * rounds for p in range(n)]
    return Workload("ring", tuple(progs), DETERMINISTIC, blocks(n, nodes),
                    "each process sends to its successor and receives from its predecessor; "
                    "deterministic, hence send-deterministic")


def exchange(n: int = 3, nodes: int = 2) -> Workload:
    progs = []
    for p in range(n):
        others = [q for q in range(n) if q != p]
        progs.append(tuple(send(q) for q in others) + tuple(recv(q) for q in others))
    return Workload("exchange", tuple(progs), DETERMINISTIC, blocks(n, nodes),
                    "every pair of processes exchanges one message")


def idle(n: int = 2, nodes: int = 1) -> Workload:
    """No application message: only the protocol runs, its checkpoint waves, crashes,
    restart notices and rollbacks (Bouteiller et al. 2013 §3.2, a failure rolls the
    whole set back; §3.3.3, the token, barrier and checkpoint phases inside a set).
    Placed on one node, one correlated set of two: a node crash restarts both members
    one by one, each naming only its own restart, so one member's tokens of a new wave
    meet a peer that knows another restart, and two or three failures bring a second
    such packet to one member. Small enough for three failures (20,337 states under
    correlated-set with a checkpoint), where one message already takes more than 300,000."""
    return Workload("idle", tuple(() for _ in range(n)), DETERMINISTIC, blocks(n, nodes),
                    "no application message: checkpoint waves, crashes and rollbacks only")


def any_source_race(n: int = 4, nodes: int = 2) -> Workload:
    """P1 and P2 race to P0, which receives both with ANY_SOURCE and then sends
    to P3 a message whose content depends on the order (not send-deterministic)."""
    n = max(n, 3)
    progs = [() for _ in range(n)]
    progs[0] = (recv(ANY), recv(ANY), send(n - 1))
    progs[1] = (send(0),)
    progs[2] = (send(0),)
    progs[n - 1] = progs[n - 1] + (recv(0),)
    return Workload("any_source_race", tuple(progs), NON_DETERMINISTIC, blocks(n, nodes),
                    "two senders race to an ANY_SOURCE receiver whose next send depends on the order")


def reduce(n: int = 4, nodes: int = 2) -> Workload:
    """Everyone sends to root 0, which sums with ANY_SOURCE (order-independent)
    and broadcasts the result: send-deterministic, not deterministic."""
    progs = [tuple(recv(ANY, combine="sum") for _ in range(n - 1)) + tuple(send(q) for q in range(1, n))]
    progs += [(send(0), recv(0)) for _ in range(1, n)]
    return Workload("reduce", tuple(progs), SEND_DETERMINISTIC, blocks(n, nodes),
                    "reduce to 0 with ANY_SOURCE and a commutative sum, then broadcast")


def master_worker(n: int = 3, nodes: int = 2, rounds: int = 1) -> Workload:
    """The master hands one task to each worker, takes results with ANY_SOURCE
    and answers each in arrival order: the answers depend on that order."""
    workers = range(1, n)
    master = tuple(send(w) for w in workers) + tuple(x for _ in workers for x in (recv(ANY), reply()))
    progs = [master * rounds] + [(recv(0), send(0), recv(0)) * rounds for _ in workers]
    return Workload("master_worker", tuple(progs), NON_DETERMINISTIC, blocks(n, nodes),
                    "master–worker with ANY_SOURCE result collection")


def pingpong(n: int = 2, nodes: int = 2, rounds: int = 2) -> Workload:
    """NetPIPE-like ping-pong between P0 and P1, ``rounds`` times (Bouteiller et al. 2013
    §4.2.2; Meyer 2014 §4.3)."""
    progs = [tuple(x for _ in range(rounds) for x in (send(1), recv(1))),
             tuple(x for _ in range(rounds) for x in (recv(0), send(0)))]
    progs += [() for _ in range(2, n)]
    return Workload("pingpong", tuple(progs), DETERMINISTIC, blocks(n, nodes),
                    "ping-pong between P0 and P1")


def fig1(n: int = 3, nodes: int = 3) -> Workload:
    """Bouteiller et al. 2013 §2.1, Fig. 1 (reconstructed from the prose; the figure is not in
    the text): P1 checkpoints after m1 and m2, then receives m3 (from P0) and m4
    (from P2) in either order (e3, e4) and sends m5 to P0. If P1 alone rolls
    back, m3 and m4 are in-transit and m5 is an orphan."""
    progs = (
        (send(1), send(1), recv(1)),            # P0: m1, m3, receives m5
        (recv(0), send(2), SITE, recv(ANY), recv(ANY), send(0)),  # P1: m1, m2, C_1^1, e3/e4, m5
        (recv(1), send(1)),                     # P2: m2, m4
    )
    labels = {(0, 1, 0): "m1", (1, 2, 0): "m2", (0, 1, 1): "m3", (2, 1, 0): "m4", (1, 0, 0): "m5"}
    return Workload("fig1", progs, NON_DETERMINISTIC, (0, 1, 2),
                    "Bouteiller et al. 2013 Fig. 1: in-transit m3, m4 and orphan m5 around P1's checkpoint",
                    "Bouteiller et al. 2013 §2.1, Fig. 1", labels=labels)


def fig2(n: int = 5, nodes: int = 2) -> Workload:
    """Bouteiller et al. 2013 §3.2, Fig. 2 (reconstructed from the prose): correlated sets
    S1 = {P0, P1, P2} and S2 = {P3, P4}; m1, m2 ingoing to S1, m3, m4 internal,
    received by P2 in either order, and m5 outgoing to P4 carries that order."""
    progs = (
        (recv(3), send(2)),            # P0: m1 in, m3 out
        (recv(4), send(2)),            # P1: m2 in, m4 out
        (recv(ANY), recv(ANY), send(4)),  # P2: m3/m4 in either order, m5
        (send(0),),                    # P3: m1
        (send(1), recv(2)),            # P4: m2, receives m5
    )
    labels = {(3, 0, 0): "m1", (4, 1, 0): "m2", (0, 2, 0): "m3", (1, 2, 0): "m4", (2, 4, 0): "m5"}
    return Workload("fig2", progs, NON_DETERMINISTIC, (0, 0, 0, 1, 1),
                    "Bouteiller et al. 2013 Fig. 2: ingoing m1, m2, internal m3, m4, outgoing m5 that depends on their order",
                    "Bouteiller et al. 2013 §3.2, Fig. 2", labels=labels)


def theorem2(n: int = 4, nodes: int = 2) -> Workload:
    """The smallest execution of Theorem 2 (Bouteiller et al. 2013 §3.2.2): in S1 = {P0, P1},
    P1 receives internal m3 from P0 and ingoing m1 from P2 in either order, then
    sends outgoing m5 to P3 in S2 = {P2, P3}."""
    progs = ((send(1), SITE), (recv(ANY), recv(ANY), send(3)), (send(1), SITE), (recv(1),))
    labels = {(0, 1, 0): "m3", (2, 1, 0): "m1", (1, 3, 0): "m5"}
    return Workload("theorem2", progs, NON_DETERMINISTIC, (0, 0, 1, 1),
                    "Bouteiller et al. 2013 Theorem 2: an internal reception's order flows into an outgoing message",
                    "Bouteiller et al. 2013 §3.2.2, Theorem 2", labels=labels)


def theorem2_three(n: int = 4, nodes: int = 2) -> Workload:
    """Theorem 2 inside a set of three (Bouteiller et al. 2013 §3.2.2; Fig. 2
    without its ingoing messages): in S1 = {P0, P1, P2}, P2 receives internal m3
    from P0 and m4 from P1 in either order, then sends outgoing m5 to P3 in
    S2 = {P3}. Two unlogged internal receptions are what the orphan needs."""
    progs = ((send(2),), (send(2),), (recv(ANY), recv(ANY), send(3)), (recv(2),))
    labels = {(0, 2, 0): "m3", (1, 2, 0): "m4", (2, 3, 0): "m5"}
    return Workload("theorem2_three", progs, NON_DETERMINISTIC, (0, 0, 0, 1),
                    "Bouteiller et al. 2013 Theorem 2 in a set of three: two internal receptions' order flows out",
                    "Bouteiller et al. 2013 §3.2.2, Theorem 2", labels=labels)


def pairs(n: int = 4, nodes: int = 2) -> Workload:
    """Two correlated sets of two, S1 = {P0, P1} and S2 = {P2, P3}: an internal
    message m1 (P0 to P1), then an outgoing m2 (P1 to P2) that carries it.
    Each set leader then passes a checkpoint site, so a recovery line of S1 may
    follow m1 (Theorem 1) and one of S2 may follow m2 (a rollback of S2 to its
    first line finds m2 in transit, served from P1's log)."""
    progs = ((send(1), SITE), (recv(0), send(2)), (recv(1), SITE), ())
    return Workload("pairs", progs, DETERMINISTIC, (0, 0, 1, 1),
                    "two sets of two: an internal message, then an outgoing one",
                    labels={(0, 1, 0): "m1", (1, 2, 0): "m2"})


def pair_and_one(n: int = 3, nodes: int = 2) -> Workload:
    """`pairs` with the second set cut to one process, S1 = {P0, P1} and S2 = {P2}:
    internal m1 (P0 to P1), outgoing m2 (P1 to P2), a checkpoint site in each set
    (Bouteiller et al. 2013 §3.3, Theorem 1). Small enough unreduced for TLC,
    where `pairs` with its two checkpoint waves is not (more than 3.4 million states)."""
    progs = ((send(1), SITE), (recv(0), send(2)), (recv(1), SITE))
    return Workload("pair_and_one", progs, DETERMINISTIC, (0, 0, 1),
                    "a set of two and a set of one: an internal message, then an outgoing one",
                    labels={(0, 1, 0): "m1", (1, 2, 0): "m2"})


def sd_ack(n: int = 3, nodes: int = 2) -> Workload:
    """Group {P0, P1} checkpoints while P2, in the other group, sends m1 and m2
    to P1: m1 may arrive between P1's checkpoint and the group's commit, m2
    after it, and m2's reception acknowledges P2's log (Guermouche and Ropars 2011 Fig. 5 lines
    29–31, 36–42)."""
    progs = ((), (recv(2), recv(2)), (send(1), send(1)))
    return Workload("sd_ack", progs, DETERMINISTIC, (0, 0, 1),
                    "a message from another group between a member's checkpoint and the commit",
                    "Guermouche and Ropars 2011 §3.3, Fig. 5 lines 29–31, 36–42",
                    labels={(2, 1, 0): "m1", (2, 1, 1): "m2"})


def sd_fig2(n: int = 7, nodes: int = 2) -> Workload:
    """Guermouche and Ropars 2011 §3.2, Fig. 2 (reconstructed from the prose of §3.1–3.2; the
    figure is not in the text): Groupe 1 = {p1, p2, p3} = P0–P2 and Groupe 2 =
    {p4…p7} = P3–P6, one node each. m1 (p4 to p3) raises p3 to phase 2; m2 (p3
    to p1) raises p1 to 2; m3 (p3 to p4) raises p4 to 3; m4 (p4 to p5) and m5
    (p5 to p7) raise p5 and p7 to 3; m6 (p6 to p7) is independent of m5, and p7
    folds both commutatively (send-determinism, §3.1); m7 (p7 to p2) has phase
    3; m8 (p2 to p1) follows it. If Groupe 1 rolls back, m1 and m7 are replayed
    and m3 is an orphan; m7 may only be replayed once p4 has received m3 again."""
    progs = (
        (recv(ANY), recv(ANY)),                            # p1: m2, m8
        (recv(6), send(0)),                                # p2: m7, m8
        (recv(3), send(0), send(3)),                       # p3: m1, m2, m3
        (send(2), recv(2), send(4)),                       # p4: m1, m3, m4
        (recv(3), send(6)),                                # p5: m4, m5
        (send(6),),                                        # p6: m6
        (recv(ANY, combine="sum"), recv(ANY, combine="sum"), send(1)),  # p7: m5, m6, m7
    )
    labels = {(3, 2, 0): "m1", (2, 0, 0): "m2", (2, 3, 0): "m3", (3, 4, 0): "m4", (4, 6, 0): "m5",
              (5, 6, 0): "m6", (6, 1, 0): "m7", (1, 0, 0): "m8"}
    return Workload("sd_fig2", progs, SEND_DETERMINISTIC, (0, 0, 0, 1, 1, 1, 1),
                    "Guermouche & Ropars 2011 Fig. 2 (our reconstruction from the prose): "
                    "groups p1–p3 and p4–p7, phases 2 and 3, orphan m3, logged m1 and m7",
                    "Guermouche and Ropars 2011 §3.1–3.2, Fig. 2", group_of=(0, 0, 0, 1, 1, 1, 1), labels=labels)


def sd_phases(n: int = 3, nodes: int = 2) -> Workload:
    """The core of Guermouche and Ropars 2011's Fig. 2 on three processes: Groupe 1 = {P0, P1},
    Groupe 2 = {P2}. m1 (P2 to P0) then m3 (P0 to P2) then m7 (P2 to P1): if
    Groupe 1 rolls back, m3 is an orphan and m7 (phase 3) causally depends on it."""
    progs = ((recv(2), send(2)), (recv(2),), (send(0), recv(0), send(1)))
    labels = {(2, 0, 0): "m1", (0, 2, 0): "m3", (2, 1, 0): "m7"}
    return Workload("sd_phases", progs, DETERMINISTIC, (0, 0, 1),
                    "Guermouche & Ropars 2011 Fig. 2 cut to three processes (ours): m7 depends on the orphan m3",
                    "Guermouche and Ropars 2011 §3.2", group_of=(0, 0, 1), labels=labels)


def sd_told_again(n: int = 3, nodes: int = 2) -> Workload:
    """`sd_phases` with a checkpoint site in P2 between m3 and m7, the only one
    (docs/findings.md §3): with two failures P2 checkpoints holding the orphan m3,
    crashes with group 1's restart messages on their way to it, and hears of that
    restart again from one member only (Guermouche and Ropars 2011 Fig. 5 lines 15–16,
    52). Checkpoints at sites keep group 1's waves out: small enough unreduced for TLC."""
    progs = ((recv(2), send(2)), (recv(2),), (send(0), recv(0), SITE, send(1)))
    labels = {(2, 0, 0): "m1", (0, 2, 0): "m3", (2, 1, 0): "m7"}
    return Workload("sd_told_again", progs, DETERMINISTIC, (0, 0, 1),
                    "sd_phases with P2's checkpoint site between m3 and m7: a restart told again",
                    "Guermouche and Ropars 2011 §2.1, Fig. 5 lines 15–16, 52", group_of=(0, 0, 1), labels=labels)


def sd_burst(n: int = 2, nodes: int = 2) -> Workload:
    """P0 sends two messages in a row to P1 of another group: the second may be
    sent while P1's group restarts (Guermouche and Ropars 2011 Fig. 5 lines 15–16) or after P1's
    checkpoint, acknowledged by it (lines 29–31, 40–42)."""
    return Workload("sd_burst", ((send(1), send(1)), (recv(0), recv(0))), DETERMINISTIC, (0, 1),
                    "two messages in a row to a process of another group",
                    "Guermouche and Ropars 2011 §3.2–3.3, Fig. 5 lines 15–16, 29–31, 40–42",
                    labels={(0, 1, 0): "m1", (0, 1, 1): "m2"})


def burst(n: int = 2, nodes: int = 2) -> Workload:
    """P0 sends three messages in a row to P1: if P1 crashes with the first on its way,
    the two after it overtake the copy its log or TB brings back, and the FT layer,
    which checks the SSN before anything else (Meyer 2014 §4.2.4, §4.1.2), drops each."""
    return Workload("burst", ((send(1), send(1), send(1)), (recv(0), recv(0), recv(0))), DETERMINISTIC, (0, 1),
                    "three messages in a row from one sender to one receiver",
                    "Meyer 2014 §4.2.4, §4.1.2", labels={(0, 1, 0): "m1", (0, 1, 1): "m2", (0, 1, 2): "m3"})


def channel_state(n: int = 2, nodes: int = 2) -> Workload:
    """P1 sends two messages in a row to P0, the checkpoint's initiator: both may
    arrive after P0's checkpoint and before P1's marker, and then both are the
    channel's recorded state (Chandy and Lamport 1985, as in the C3 slides' "Algorithm
    (revised)"): a rule that records only the first loses the second on a rollback."""
    return Workload("channel_state", ((recv(1), recv(1)), (send(0), send(0))), DETERMINISTIC, (0, 1),
                    "two messages in a row to the initiator, both in the channel's recorded state",
                    "Chandy and Lamport 1985, as in the C3 slides", labels={(1, 0, 0): "m1", (1, 0, 1): "m2"})


def sd_orphan_path(n: int = 3, nodes: int = 2) -> Workload:
    """Groups {P0, P1} and {P2}: P1's o to P2 becomes an orphan when P1's group
    restarts, and P2's m7 to the group's leader P0 follows it. With two
    failures a replay of m7 from an older restart can reach P0 after a newer
    restart began, ahead of o sent again (Guermouche and Ropars 2011 Fig. 6
    line 22 replays; that a replay of a restart a later one replaced is dropped
    is our reading 15 of protocols/send_deterministic.py). With one failure
    and a checkpoint it shows the open finding of docs/send-deterministic.md."""
    progs = ((recv(2),), (send(2),), (recv(1), send(0)))
    return Workload("sd_orphan_path", progs, DETERMINISTIC, (0, 0, 1),
                    "an orphan of one group's restart, and a message that follows it back into the group",
                    "Guermouche and Ropars 2011 Fig. 6", labels={(1, 2, 0): "o", (2, 0, 0): "m7"})


def sd_path_back(n: int = 3, nodes: int = 2) -> Workload:
    """Groups {P0, P1} and {P2}, every run receiving y, o, m7, x in that order:
    P2 sends y to P1, P1 answers o from what it received first, P2's m7 to P0
    follows o and P0's x to P1 follows m7. If the group's line holds m7 but
    not o (docs/findings.md, "A group's line past its cause"), x can reach P1's
    first receive ahead of y after the rollback: P1 sends another o, and P2,
    which never rolled back, is an orphan."""
    progs = ((recv(2), send(1)), (recv(ANY), send(2), recv(ANY)), (send(1), recv(1), send(0)))
    return Workload("sd_path_back", progs, DETERMINISTIC, (0, 0, 1),
                    "a group's line holding m7 past its cause o; x, sent from that line, races y at P1",
                    "Guermouche and Ropars 2011 §2.2, §3.1",
                    labels={(2, 1, 0): "y", (1, 2, 0): "o", (2, 0, 0): "m7", (0, 1, 0): "x"})


def sd_wave_after_restarts(n: int = 3, nodes: int = 2) -> Workload:
    """One group {P0, P1, P2} whose members P1 and P2 share a node: that node's crash
    (Guermouche and Ropars 2011 §2.1, several faults at once) sends the leader two
    "failed" messages, and the group restarts twice (Fig. 5 lines 44–49). A mark of the
    wave P0 then starts at its site (§3.1) can reach a member through a peer already
    rolled back by the newer restart, ahead of the leader's rollback (readings 7 and 11
    of protocols/send_deterministic.py); P0's m to P1 waits for the wave's commit."""
    progs = ((SITE, send(1)), (recv(0),), ())
    return Workload("sd_wave_after_restarts", progs, DETERMINISTIC, (0, 1, 1),
                    "one group of three, two members on one node: two restarts, then a checkpoint wave "
                    "before P0's m to P1", "Guermouche and Ropars 2011 §2.1, §3.1, Fig. 5 lines 44–49",
                    group_of=(0, 0, 0), labels={(0, 1, 0): "m"})


def sd_two_replays(n: int = 3, nodes: int = 2) -> Workload:
    """Groups {P0, P1} and {P2}: P2 receives o from P1, then sends a and b to the
    group's leader P0, which hosts the restart process (Guermouche and Ropars 2011
    §3.2, Fig. 6 lines 19–24): the replays of a and b travel on P0's channel to itself,
    and a second restart (§2.1) can overtake them there. Both are then replays of a
    restart that is over, and b follows o, which the newer re-execution has not sent again."""
    progs = ((recv(2), recv(2)), (send(2),), (recv(1), send(0), send(0)))
    return Workload("sd_two_replays", progs, DETERMINISTIC, (0, 0, 1),
                    "groups {P0, P1} and {P2}: P2 receives o from P1, then sends a and b to the leader P0",
                    "Guermouche and Ropars 2011 §2.1, §3.2, Fig. 6 lines 19–24", group_of=(0, 0, 1),
                    labels={(1, 2, 0): "o", (2, 0, 0): "a", (2, 0, 1): "b"})


def sd_stale_end(n: int = 4, nodes: int = 3) -> Workload:
    """Groups {P0, P1, P2} and {P3}, P1 and P2 on one node: that node's crash restarts
    the group twice (Guermouche and Ropars 2011 §2.1, Fig. 5 lines 44–49). P3 receives
    o from P0 and sends m to P2, buffered while P2's group restarts (Fig. 5 lines 15–16);
    only P2's FinRedemarrage of the newer restart may flush it (lines 60–64), not the
    older one's still on its way (reading 6): flushed early, m reaches P2 before P0's
    re-execution sends o again."""
    progs = ((send(3),), (), (recv(3),), (recv(0), send(2)))
    return Workload("sd_stale_end", progs, DETERMINISTIC, (0, 1, 1, 2),
                    "groups {P0, P1, P2} and {P3}, P1 and P2 on one node: P0's o to P3, then P3's m to P2",
                    "Guermouche and Ropars 2011 §2.1, §3.2, Fig. 5 lines 15–16, 60–64",
                    group_of=(0, 0, 0, 1), labels={(0, 3, 0): "o", (3, 2, 0): "m"})


def sd_three_restarts(n: int = 3, nodes: int = 2) -> Workload:
    """Groups {P0, P1} and {P2}: P2 sends m to the group's leader P0, P1 does nothing.
    With three crashes of P1 the group restarts three times (Guermouche and Ropars
    2011 §2.1, Fig. 5 lines 44–49), each restart's FinRedemarrage (lines 60–64) reaching
    P0 after the next began: two stale ends at one process, and m, buffered and logged
    during a restart, replayed to the restart process that is still waiting."""
    progs = ((recv(2),), (), (send(0),))
    return Workload("sd_three_restarts", progs, DETERMINISTIC, (0, 0, 1),
                    "groups {P0, P1} and {P2}: P2's m to the leader P0, P1 idle (three restarts of one group)",
                    "Guermouche and Ropars 2011 §2.1, Fig. 5 lines 44–49, 60–64", labels={(2, 0, 0): "m"})


def c3_epochs(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "App-level difficulties" and "Possible Types of Messages": P0
    (the initiator) may checkpoint at its sites; P1 checkpoints at its next
    site after Chkpt_Ok. Depending on where P1's checkpoint falls, m1 (sent
    after P0's checkpoint) is early or intra-epoch, m2 late or intra-epoch; a
    nondet choice of P0 flows into m1; m3 may reach P1 after P0 stopped
    logging but before Stop_logging does (unordered channels)."""
    progs = ((SITE, nondet(2), send(1), recv(1), SITE, send(1)),
             (SITE, recv(0), send(0), SITE, recv(0)))
    labels = {(0, 1, 0): "m1", (1, 0, 0): "m2", (0, 1, 1): "m3"}
    return Workload("c3_epochs", progs, NON_DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: late, early and intra-epoch messages around checkpoints at program sites",
                    "Bronevetsky et al., C3 slides (Pingali), \"Possible Types of Messages\"",
                    fifo=False, labels=labels)


def c3_two_epochs(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "The Global View": two checkpoints of P0 and two sites of P1
    make two successive epochs, with a message in each (m1 from P0 in epoch 1,
    m2 back to P0 in epoch 2 or late)."""
    progs = ((SITE, send(1), SITE, recv(1)), (SITE, recv(0), SITE, send(0)))
    return Workload("c3_two_epochs", progs, DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: two successive epochs with a message in each",
                    "Bronevetsky et al., C3 slides (Pingali), \"The Global View\"",
                    fifo=False, labels={(0, 1, 0): "m1", (1, 0, 0): "m2"})


def c3_collectives(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "Collective Communication": a reduce to P1 (single receiver),
    a bcast from P0 (single sender), an all-to-all and a barrier, between the
    checkpoint sites of two processes, so that each call may fall before a
    checkpoint, inside a log or after it."""
    progs = ((SITE, coll("reduce", 1), coll("bcast", 0), SITE, coll("alltoall"), coll("barrier"), send(1)),
             (SITE, coll("reduce", 1), coll("bcast", 0), SITE, coll("alltoall"), SITE, coll("barrier"), recv(0)))
    return Workload("c3_collectives", progs, DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: one collective of each class around application-level checkpoints",
                    "Bronevetsky et al., C3 slides (Pingali), \"Collective Communication\"", fifo=False)


def c3_bcast_root(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "Collective Communication" (single sender) with "Receive is
    after the log": a bcast rooted at P1, called after both checkpoints. The
    initiator P0 stops logging first, so P0 may call it after its log while P1,
    the root, still logs; on recovery P0 calls it again, and P1 must join the
    call rather than complete it from its log (no data flowed in from a partner
    behind the line). P1 then sends P0 m1, which a rollback of P1 can orphan."""
    progs = ((SITE, coll("bcast", 1), recv(1)), (SITE, coll("bcast", 1), send(0)))
    return Workload("c3_bcast_root", progs, DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: a bcast from a process still logging to one that has stopped",
                    "Bronevetsky et al., C3 slides (Pingali), \"Collective Communication\"",
                    fifo=False, labels={(1, 0, 0): "m1"})


def c3_two_late(n: int = 3, nodes: int = 3) -> Workload:
    """the C3 slides, "Handling Late Messages" with two senders: P1 and P2 each
    send P0 a message before their checkpoint, which P0 receives after its own,
    so both are late; channels are unordered, so a sender's Ready_to_stop_logging
    may overtake its late message."""
    progs = ((SITE, recv(1), recv(2)), (send(0), SITE), (send(0), SITE))
    return Workload("c3_two_late", progs, DETERMINISTIC, (0, 1, 2),
                    "Bronevetsky et al., C3: late messages from two senders to one receiver",
                    "Bronevetsky et al., C3 slides (Pingali), \"Handling Late Messages\"",
                    fifo=False, labels={(1, 0, 0): "m1", (2, 0, 0): "m2"})


def c3_same_sender(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "Mechanism: Control Information" (a unique message ID)
    and "Additional Issues" (MPI allows non-FIFO communication): P1 sends P0
    m1 before its checkpoint (late when P0 checkpointed first), m2 and m3
    after it. Channels are unordered, so on recovery P1's re-sent m2 and m3,
    and m1 replayed from P0's log, may come in another order than the one
    P0's receptions were logged in."""
    progs = ((SITE, recv(1), recv(1), recv(1)), (send(0), SITE, send(0), send(0)))
    return Workload("c3_same_sender", progs, SEND_DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: three messages from one sender replayed in their logged order",
                    "Bronevetsky et al., C3 slides (Pingali), \"Mechanism: Control Information\"", fifo=False,
                    labels={(1, 0, 0): "m1", (1, 0, 1): "m2", (1, 0, 2): "m3"})


def c3_any_source(n: int = 3, nodes: int = 3) -> Workload:
    """the C3 slides, "Mechanism: The Log" (MPI_Recv(ANY_SOURCE)): after P0's
    checkpoint, P0 receives from P1 and P2 in either order and its next message
    to P1 carries that order."""
    progs = ((SITE, recv(ANY), recv(ANY), send(1)), (send(0), SITE, recv(0)), (send(0), SITE))
    return Workload("c3_any_source", progs, NON_DETERMINISTIC, (0, 1, 2),
                    "Bronevetsky et al., C3: an ANY_SOURCE order logged during the logging phase",
                    "Bronevetsky et al., C3 slides (Pingali), \"Mechanism: The Log\"")


def c3_resuppress(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "Handling Early Messages" ("The receiver records that
    this message must be suppressed and informs the sender on recovery") and
    "The Global View", with two failures: m1, sent after P0's checkpoint, may
    reach P1 before P1's, so it is early; P1 fails and on recovery tells P0 to
    suppress m1's re-send; P0 may take its next checkpoint before that re-send
    and P1 its own after receiving m1, so m1 is early for the new line too; a
    second failure rolls both back to it. m2 gives P1's last receive its
    message."""
    progs = ((SITE, send(1), send(1)), (SITE, recv(0), SITE, recv(0)))
    return Workload("c3_resuppress", progs, DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: an early message whose suppression is owed across a checkpoint",
                    "Bronevetsky et al., C3 slides (Pingali), \"Handling Early Messages\"",
                    labels={(0, 1, 0): "m1", (0, 1, 1): "m2"})


def c3_site_in_replay(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "Mechanism: The Log" ("Log all non-deterministic events")
    and "The Global View", with two failures: P1 checkpoints at its first site
    and may pass its second one still logging, so its log holds the nondet
    choice made after that site. After a failure rolls both back to line 1,
    P0 takes its next checkpoint and P1 gets Chkpt_Ok while it replays that
    log: its second site is then inside the replay. m1, received after the
    nondet, gives P1 a logged event behind it, and a second failure rolls both
    back to the next line."""
    progs = ((SITE, SITE, send(1)), (SITE, SITE, nondet(2), recv(0)))
    return Workload("c3_site_in_replay", progs, SEND_DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: a checkpoint site reached while the log of the line before is replayed",
                    "Bronevetsky et al., C3 slides (Pingali), \"Mechanism: The Log\"", labels={(0, 1, 0): "m1"})


def c3_ok_overtakes_stop(n: int = 3, nodes: int = 3) -> Workload:
    """the C3 slides, "High-level view of our protocol (IV)" (Stop_logging),
    "Additional Issues" (MPI allows non-FIFO communication) and "The Global
    View": three processes with two sites each and no messages, so that the
    initiator takes two checkpoints. Channels are unordered, so P0's Chkpt_Ok
    for line 2 may reach P1 before its Stop_logging for line 1; P1 must then
    close its log 1 (Chkpt_Ok implies Stop_logging), since P2, which may save
    line 1 and not yet line 2, can fail and roll everyone back to line 1."""
    progs = ((SITE, SITE), (SITE, SITE), (SITE, SITE))
    return Workload("c3_ok_overtakes_stop", progs, DETERMINISTIC, (0, 1, 2),
                    "Bronevetsky et al., C3: Chkpt_Ok of the next line overtakes Stop_logging of this one",
                    "Bronevetsky et al., C3 slides (Pingali), \"High-level view of our protocol: (IV)\"", fifo=False)


def c3_two_sites(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "The Global View" (a failure rolls every process back to the
    prior recovery line) and "Additional Issues" (MPI allows non-FIFO
    communication): ``c3_ok_overtakes_stop`` with two processes, for two
    failures. P0 saves line k before P1 hears Stop_logging k, then fails, and its
    rollback overtakes Stop_logging: P1, still logging k, closes its log k at the
    rollback — once for line 1 and again for line 2."""
    progs = ((SITE, SITE), (SITE, SITE))
    return Workload("c3_two_sites", progs, DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: a rollback to a line the receiver still logs, in two epochs",
                    "Bronevetsky et al., C3 slides (Pingali), \"The Global View\", \"Additional Issues\"", fifo=False)


def c3_three_sites(n: int = 2, nodes: int = 2) -> Workload:
    """``c3_two_sites`` with a third site each, for three lines: on unordered channels
    Chkpt_Ok k+1 may reach P1 ahead of Stop_logging k (the C3 slides, "High-level view
    of our protocol (IV)", "Additional Issues"), and P1 must close its log k there —
    once for line 1 and again for line 2."""
    progs = ((SITE, SITE, SITE), (SITE, SITE, SITE))
    return Workload("c3_three_sites", progs, DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: Chkpt_Ok overtakes Stop_logging in two successive epochs",
                    "Bronevetsky et al., C3 slides (Pingali), \"High-level view of our protocol: (IV)\"", fifo=False)


def c3_two_readies(n: int = 3, nodes: int = 3) -> Workload:
    """the C3 slides, "High-level view of our protocol (III)-(IV)": three
    processes with one site each and no messages; the initiator sends
    Stop_logging only once it holds Ready_to_stop_logging from both P1 and P2,
    two readies in one epoch."""
    progs = ((SITE,), (SITE,), (SITE,))
    return Workload("c3_two_readies", progs, DETERMINISTIC, (0, 1, 2),
                    "Bronevetsky et al., C3: the initiator waits for Ready_to_stop_logging from two processes",
                    "Bronevetsky et al., C3 slides (Pingali), \"High-level view of our protocol: (III)\"")


def c3_recv_then_nondet(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "Mechanism: The Log" ("log all non-deterministic events")
    and "Additional Issues" (non-FIFO channels): P1, logging, receives m1 and m2
    from P0 in either order, then makes a nondet choice; its log names both
    receptions before the choice, and a failure replays them in that order."""
    progs = ((SITE, send(1), send(1)), (SITE, recv(0), recv(0), nondet(2)))
    return Workload("c3_recv_then_nondet", progs, SEND_DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: two receptions and a nondet choice in one log, replayed in order",
                    "Bronevetsky et al., C3 slides (Pingali), \"Mechanism: The Log\"", fifo=False,
                    labels={(0, 1, 0): "m1", (0, 1, 1): "m2"})


def c3_sites_in_replay(n: int = 2, nodes: int = 2) -> Workload:
    """the C3 slides, "Mechanism: The Log" and "The Global View", with two
    failures: ``c3_site_in_replay`` with one more site and a barrier. After a
    failure rolls both back to line 1, P1 gets Chkpt_Ok 2 while it replays log 1,
    and both its second and third sites lie inside the replay, where it may not
    checkpoint; the barrier after the choice belongs to the log of line 2, which
    a second failure replays."""
    progs = ((SITE, SITE, coll("barrier")), (SITE, SITE, SITE, nondet(2), coll("barrier")))
    return Workload("c3_sites_in_replay", progs, SEND_DETERMINISTIC, (0, 1),
                    "Bronevetsky et al., C3: two checkpoint sites reached while the log of the line before is replayed",
                    "Bronevetsky et al., C3 slides (Pingali), \"Mechanism: The Log\"")


def fig46(n: int = 4, nodes: int = 4) -> Workload:
    """Meyer 2014 §4.2.3, Fig. 4.6 (Meyer 2014 §4.2.3; reconstructed from the prose): the
    thesis' P1..P4 are P0..P3 here. P0 sends M1 and M2 to P1, which receives M1
    by name and then, by ANY_SOURCE, M2 or the competing M2'' from P2; P1 then
    sends M3 to P3 (whose content depends on which one came first) and takes the
    other. If P1 fails before M2 is logged and replays M2'' instead, P3 is an orphan."""
    progs = (
        (send(1), send(1)),                       # P1 of the thesis: M1, M2
        (recv(0), recv(ANY), send(3), recv(ANY)),  # P2: R1, R2 (wildcard), M3, the other
        (send(1),),                               # P3: M2''
        (recv(1),),                               # P4: receives M3
    )
    labels = {(0, 1, 0): "M1", (0, 1, 1): "M2", (2, 1, 0): "M2''", (1, 3, 0): "M3"}
    return Workload("fig46", progs, NON_DETERMINISTIC, (0, 1, 2, 3),
                    "Meyer 2014 Fig. 4.6: a wildcard reception, a competing sender, and M3 to P4",
                    "Meyer 2014 §4.2.3, Fig. 4.6", labels=labels)


def wildcard_race(n: int = 3, nodes: int = 3) -> Workload:
    """The orphan of Meyer 2014 §4.1.2, §4.2.3 in its smallest form: P1 and
    P2 race to P0's ANY_SOURCE receive; P0 answers P1 with a message that
    depends on which came first, then takes the other."""
    progs = ((recv(ANY), send(1), recv(ANY)), (send(0), recv(0)), (send(0),))
    return Workload("wildcard_race", progs, NON_DETERMINISTIC, (0, 1, 2),
                    "two senders race to a wildcard receive whose answer depends on the winner",
                    "Meyer 2014 §4.1.2, §4.2.3", labels={(1, 0, 0): "m1", (2, 0, 0): "m2", (0, 1, 0): "m3"})


def node_handoff(n: int = 3, nodes: int = 2) -> Workload:
    """A sender and its receiver on one node, their logger on the other (RADIC
    §2.3): P0 sends m1 to P1, then reaches a checkpoint site. A node crash after
    that checkpoint takes m1's receiver and the sender's volatile copy of m1
    together (Meyer 2014 §2.2.1: permanent node faults)."""
    progs = ((send(1), SITE), (recv(0),), ())
    return Workload("node_handoff", progs, DETERMINISTIC, (0, 0, 1),
                    "a send inside a node whose logger is on the other node", "Meyer 2014 §2.2.1, §2.3",
                    labels={(0, 1, 0): "m1"})


def node_rsn_gap(n: int = 3, nodes: int = 2) -> Workload:
    """P0 receives m1 from P1 on its node, then m2 from P2 on the other. With
    sender-based logging m1's RSN is held by P1: a crash of node 0 loses it
    while m2's RSN survives at P2, so the restarted P0 finds RSN 1 missing
    before RSN 2 (Meyer 2014 §4.1.1, §2.2.1)."""
    progs = ((recv(1), recv(2)), (send(0),), (send(0),))
    return Workload("node_rsn_gap", progs, DETERMINISTIC, (0, 0, 1),
                    "an RSN held on the crashed node, the next one on the other", "Meyer 2014 §4.1.1, §2.2.1",
                    labels={(1, 0, 0): "m1", (2, 0, 0): "m2"})


def node_rsn_last(n: int = 3, nodes: int = 2) -> Workload:
    """P0 and P1 share node 0, P2 is on node 1. P0 takes m1 and m2 by ANY_SOURCE,
    answers P2 with m3 from their order, and then takes P2's m4. With
    sender-based logging the RSN of m1 lives in P1's volatile memory: a crash
    of node 0 loses it, the last one, so no gap shows, and the restarted P0 may
    take m4 where m1 was and send P2, which acted on m3, another m3
    (docs/findings.md, "SBML and a node crash"; Meyer 2014 §4.1.1, §2.2.1)."""
    progs = ((recv(ANY), recv(ANY), send(2), recv(ANY)), (send(0),), (send(0), recv(0), send(0)))
    return Workload("node_rsn_last", progs, NON_DETERMINISTIC, (0, 0, 1),
                    "an RSN held by a sender on the receiver's node, lost with the node; an ANY_SOURCE answer",
                    "Meyer 2014 §4.1.1, §2.2.1",
                    labels={(1, 0, 0): "m1", (2, 0, 0): "m2", (0, 2, 0): "m3", (2, 0, 1): "m4"})


def testany(n: int = 3, nodes: int = 3) -> Workload:
    """Non-determinism other than ANY_SOURCE (our derived mutant 15: Meyer 2014
    §4.2.3 names only the wildcard MPI_ANY_SOURCE as non-determinism): P1
    receives from P0, takes a Waitany/Testany-like outcome (``nondet``) and
    sends P2 a message that depends on it."""
    progs = ((send(1),), (recv(0), nondet(2), send(2)), (recv(1),))
    return Workload("testany", progs, NON_DETERMINISTIC, (0, 1, 2),
                    "a Testany outcome flows into a message to a third process",
                    labels={(0, 1, 0): "m1", (1, 2, 0): "m2"})

def testany2(n: int = 2, nodes: int = 2) -> Workload:
    """Two Testany-like outcomes replayed after one crash (our derived mutant 15,
    Meyer 2014 §4.2.3; the RSN-ordered replay of §4.1.1, §4.1.2): P0 takes two
    outcomes (``nondet``), each logged as an event of its own, then sends P1 a
    message that depends on both. A rule that treats only the first replayed
    outcome as replayed logs the second again under a new RSN."""
    progs = ((nondet(2), nondet(2), send(1)), (recv(0),))
    return Workload("testany2", progs, NON_DETERMINISTIC, (0, 1),
                    "two Testany-like outcomes, both replayed after one crash",
                    "Meyer 2014 §4.1.2, §4.2.3", labels={(0, 1, 0): "m1"})


def queued_choice(n: int = 2, nodes: int = 2) -> Workload:
    """A log entry the restored queue already holds (Meyer 2014 §4.1.2; RADIC's
    checkpoint takes the whole process, its MPI queue with it, §2.3): P1
    checkpoints with m1 taken by its FT layer but not yet matched, then takes a
    Testany-like outcome and matches m1, both logged. After P1's crash the
    fetched log names the outcome and m1; neither may be handed to the
    application again, or P1's second receive takes m1 a second time."""
    progs = ((send(1), send(1)), (SITE, nondet(2), recv(0), recv(0)))
    return Workload("queued_choice", progs, SEND_DETERMINISTIC, (0, 1),
                    "a checkpoint with m1 queued, then a logged outcome and m1's reception",
                    "Meyer 2014 §4.1.2, §2.3", labels={(0, 1, 0): "m1", (0, 1, 1): "m2"})


def node_handoff2(n: int = 3, nodes: int = 2) -> Workload:
    """``node_handoff`` with two messages (Meyer 2014 §4.1.1, §2.2.1): P0 sends m0
    and m1 to P1 on its node, then reaches a checkpoint site. Under SBML a node
    crash after P0's checkpoint takes P1 and P0's volatile RSN log together, so
    m0 and m1 come back only from the Message Log in P0's checkpoint — which a
    release after the second RSN acknowledgement would have emptied. Beyond the
    thesis's claim for SBML, like ``node_handoff`` (docs/findings.md)."""
    progs = ((send(1), send(1), SITE), (recv(0), recv(0)), ())
    return Workload("node_handoff2", progs, DETERMINISTIC, (0, 0, 1),
                    "two sends inside a node whose logger is on the other node", "Meyer 2014 §4.1.1, §2.2.1",
                    labels={(0, 1, 0): "m0", (0, 1, 1): "m1"})


WORKLOADS: dict[str, Callable[..., Workload]] = {
    "ring": ring, "idle": idle, "exchange": exchange, "any_source_race": any_source_race, "reduce": reduce,
    "master_worker": master_worker, "pingpong": pingpong, "fig1": fig1, "fig2": fig2, "theorem2": theorem2,
    "theorem2_three": theorem2_three, "pairs": pairs, "pair_and_one": pair_and_one,
    "sd_fig2": sd_fig2, "sd_phases": sd_phases, "sd_burst": sd_burst, "channel_state": channel_state, "burst": burst, "sd_orphan_path": sd_orphan_path,
    "sd_path_back": sd_path_back, "sd_told_again": sd_told_again,
    "c3_epochs": c3_epochs, "c3_collectives": c3_collectives,
    "c3_two_epochs": c3_two_epochs, "c3_any_source": c3_any_source, "c3_two_late": c3_two_late,
    "c3_same_sender": c3_same_sender, "c3_bcast_root": c3_bcast_root,
    "c3_resuppress": c3_resuppress, "c3_site_in_replay": c3_site_in_replay,
    "c3_ok_overtakes_stop": c3_ok_overtakes_stop, "c3_two_sites": c3_two_sites,
    "c3_three_sites": c3_three_sites, "c3_two_readies": c3_two_readies,
    "c3_recv_then_nondet": c3_recv_then_nondet, "c3_sites_in_replay": c3_sites_in_replay,
    "testany2": testany2, "queued_choice": queued_choice, "node_handoff2": node_handoff2,
    "sd_wave_after_restarts": sd_wave_after_restarts, "sd_two_replays": sd_two_replays, "sd_stale_end": sd_stale_end,
    "sd_three_restarts": sd_three_restarts,
    "fig46": fig46, "testany": testany, "wildcard_race": wildcard_race,
}
FIXED = {"fig1", "fig2", "theorem2", "theorem2_three", "pairs", "pair_and_one",  # fixed size and placement: a paper's figure, one rule's case
         "sd_fig2", "sd_phases", "sd_burst", "channel_state", "burst", "sd_orphan_path", "sd_path_back", "sd_told_again",
         "c3_epochs", "c3_collectives", "c3_any_source", "c3_two_epochs", "c3_two_late",
         "c3_same_sender", "c3_bcast_root", "c3_resuppress", "c3_site_in_replay",
         "c3_ok_overtakes_stop", "c3_two_sites", "c3_three_sites", "c3_two_readies", "c3_recv_then_nondet", "c3_sites_in_replay",
         "testany2", "queued_choice", "node_handoff2", "sd_wave_after_restarts", "sd_two_replays", "sd_stale_end",
         "sd_three_restarts",
         "fig46", "testany", "wildcard_race"}


def is_file(name: str) -> bool:
    """A workload named by a path, a file of the user's (checker/model/workload_file.py), not a
    built-in name: it holds a path separator or a dot, or names an existing file. So ``w.yaml``
    and ``runs/w`` are refused as workload files, never taken for unknown built-in names."""
    if name in WORKLOADS:
        return False
    return any(c in name for c in ("/", os.sep, ".")) or Path(name).exists()


def make(name: str, procs: int | None = None, nodes: int | None = None) -> Workload:
    """A built-in workload at the size asked, or a workload file; sizes it
    cannot have are refused, never clamped."""
    from rrcheck.errors import UsageError
    if is_file(name):
        from rrcheck.checker.model.workload_file import build, read
        doc = read(name)                   # a file that is no workload file is refused first
        if procs or nodes:
            raise UsageError(f"workload file {name} fixes its processes and nodes; drop --procs/--nodes")
        return build(doc, name)
    if name not in WORKLOADS:
        raise UsageError(f"unknown workload {name!r}; choose one of {', '.join(WORKLOADS)} (rrcheck list), "
                         "or give a .toml/.json workload file")
    if name in FIXED:
        if procs or nodes:
            raise UsageError(f"workload {name!r} is a fixed execution (a paper's figure or one rule's case); drop --procs/--nodes")
        return WORKLOADS[name]()
    kw = {}
    if procs is not None:
        if procs < 2:
            raise UsageError("--procs must be at least 2")
        if procs > 16:
            raise UsageError(f"--procs {procs}: at most 16 processes (an exhaustive search ends far below)")
        kw["n"] = procs
    if nodes is not None:
        if nodes < 1:
            raise UsageError("--nodes must be at least 1")
        kw["nodes"] = nodes
    w = WORKLOADS[name](**kw)
    if procs is not None and w.n != procs:
        raise UsageError(f"workload {name!r} needs at least {w.n} processes; --procs {procs} is too few")
    if nodes is not None and nodes > w.n:
        raise UsageError(f"--nodes {nodes}: more nodes than the {w.n} processes of {name!r}")
    return w


# -- the model twins of the MPI runtime's workloads (runtime/apps.py) --------------

def grid_shape(n: int) -> tuple[int, int]:
    """The process grid of ``stencil2d``: rows x cols = n, as square as n allows."""
    rows = max(d for d in range(1, int(n ** 0.5) + 1) if n % d == 0)
    return rows, n // rows


def stencil_neighbors(p: int, n: int) -> tuple[int, ...]:
    """p's up, down, left and right neighbours on the grid (those that exist)."""
    rows, cols = grid_shape(n)
    r, c = divmod(p, cols)
    out = []
    if r > 0:
        out.append(p - cols)
    if r < rows - 1:
        out.append(p + cols)
    if c > 0:
        out.append(p - 1)
    if c < cols - 1:
        out.append(p + 1)
    return tuple(out)


def stencil2d(n: int = 4, nodes: int = 2, iters: int = 1) -> Workload:
    """The model twin of the 2-D Jacobi stencil of runtime/apps.py: each
    iteration, every process sends a halo to each grid neighbour, then receives
    one from each (named sources), then updates its block."""
    progs = []
    for p in range(n):
        nb = stencil_neighbors(p, n)
        progs.append(tuple(
            op for _ in range(iters) for op in tuple(send(q) for q in nb) + tuple(recv(q) for q in nb)))
    return Workload("stencil2d", tuple(progs), DETERMINISTIC, blocks(n, nodes),
                    "2-D Jacobi halo exchange on a process grid (the MPI runtime's stencil2d)")


WORKLOADS["stencil2d"] = stencil2d
WORKLOADS["node_handoff"] = node_handoff
FIXED.add("node_handoff")
WORKLOADS["node_rsn_gap"] = node_rsn_gap
FIXED.add("node_rsn_gap")
WORKLOADS["node_rsn_last"] = node_rsn_last
FIXED.add("node_rsn_last")
WORKLOADS["sd_ack"] = sd_ack
FIXED.add("sd_ack")


# -- trees of point-to-point messages: the collectives of the runtime's workloads --------
# Tags name the role of a message and its iteration (tag = ROLES * k + role), as an MPI
# code keeps the messages of successive collectives apart; the runtime apps read them.

HALO, REDUCE, BCAST = 1, 2, 3
ROLES = 4


def tag_of(k: int, role: int) -> int:
    return ROLES * k + role


def binomial_bcast(members: tuple[int, ...], p: int, tag: int) -> tuple:
    """p's ops in a binomial-tree broadcast from members[0] over ``members``
    (MPICH's algorithm on relative ranks): receive from the parent, then send
    to the children, farthest first."""
    if p not in members:
        return ()
    size, i = len(members), members.index(p)
    ops, mask = [], 1
    while mask < size:
        if i & mask:
            ops.append(recv(members[i - mask], tag))
            break
        mask <<= 1
    mask >>= 1
    while mask > 0:
        if i + mask < size:
            ops.append(send(members[i + mask], tag))
        mask >>= 1
    return tuple(ops)


def binomial_reduce(members: tuple[int, ...], p: int, tag: int) -> tuple:
    """The mirror of :func:`binomial_bcast`: receive from the children, nearest
    first, folding each in; then send the partial result to the parent."""
    return tuple(recv(op[1], tag, "sum") if op[0] == "send" else send(op[1], tag)
                 for op in reversed(binomial_bcast(members, p, tag)))


def leaders(node_of: tuple[int, ...], root: int) -> tuple[int, ...]:
    """One leader per node, the root's node first: the lowest rank of each
    node, except that the root leads its own node (Bouteiller et al. 2013 §4.4, Hierarch)."""
    out = [root]
    for j in sorted(set(node_of)):
        if j != node_of[root]:
            out.append(min(q for q in range(len(node_of)) if node_of[q] == j))
    return tuple(out)


def local_members(node_of: tuple[int, ...], leader: int) -> tuple[int, ...]:
    """The ranks of the leader's node, the leader first."""
    return (leader,) + tuple(q for q in range(len(node_of)) if node_of[q] == node_of[leader] and q != leader)


def collective_ops(kind: str, hierarchical: bool, node_of: tuple[int, ...], root: int, p: int, tag: int) -> tuple:
    """p's point-to-point ops in one ``bcast`` or ``reduce`` rooted at ``root``.
    Hierarchical (topology-aware, Bouteiller et al. 2013 §4.4): a binomial tree over the node
    leaders, and one inside each node from its leader; a broadcast goes root ->
    leaders -> local ranks, a reduce the mirror. Flat: one binomial tree over
    all ranks numbered from the root, blind to the nodes."""
    tree = binomial_bcast if kind == "bcast" else binomial_reduce
    n = len(node_of)
    if not hierarchical:
        return tree(tuple((root + i) % n for i in range(n)), p, tag)
    lead = leaders(node_of, root)
    mine = next(x for x in lead if node_of[x] == node_of[p])
    inter, intra = tree(lead, p, tag), tree(local_members(node_of, mine), p, tag)
    return inter + intra if kind == "bcast" else intra + inter


def _collectives(kind: str, hierarchical: bool, n: int, nodes: int, iters: int) -> Workload:
    node_of = blocks(n, nodes)
    role = BCAST if kind == "bcast" else REDUCE
    progs = tuple(tuple(op for k in range(iters)
                        for op in collective_ops(kind, hierarchical, node_of, k % n, p, tag_of(k, role)))
                  for p in range(n))
    style = "hierarchical tree (node leaders, then inside nodes)" if hierarchical else "flat binomial tree"
    name = ("hier_" if hierarchical else "flat_") + kind
    return Workload(name, progs, DETERMINISTIC, node_of,
                    f"{kind} over a {style}, rooted at rank k mod n in iteration k (the MPI runtime's {name})",
                    "Bouteiller et al. 2013 §4.4")


def hier_bcast(n: int = 4, nodes: int = 2, iters: int = 1) -> Workload:
    return _collectives("bcast", True, n, nodes, iters)


def hier_reduce(n: int = 4, nodes: int = 2, iters: int = 1) -> Workload:
    return _collectives("reduce", True, n, nodes, iters)


def flat_bcast(n: int = 4, nodes: int = 2, iters: int = 1) -> Workload:
    return _collectives("bcast", False, n, nodes, iters)


def flat_reduce(n: int = 4, nodes: int = 2, iters: int = 1) -> Workload:
    return _collectives("reduce", False, n, nodes, iters)


def cg_step(p: int, n: int, k: int) -> tuple:
    """p's ops in step k of the CG-like iteration of runtime/apps_hpc.py: the
    halo exchange of the residual with the row blocks above and below (the
    mat-vec), then one allreduce of its two dot products built as a binomial
    reduce to rank 0 and a binomial broadcast back."""
    nb = tuple(q for q in (p - 1, p + 1) if 0 <= q < n)
    everyone = tuple(range(n))
    return (tuple(send(q, tag_of(k, HALO)) for q in nb) + tuple(recv(q, tag_of(k, HALO)) for q in nb)
            + binomial_reduce(everyone, p, tag_of(k, REDUCE)) + binomial_bcast(everyone, p, tag_of(k, BCAST)))


def cg(n: int = 4, nodes: int = 2, iters: int = 1) -> Workload:
    """The model twin of the CG-like iteration (row blocks of a 2-D Poisson
    matrix, one allreduce per step)."""
    progs = tuple(tuple(op for k in range(iters) for op in cg_step(p, n, k)) for p in range(n))
    return Workload("cg", progs, DETERMINISTIC, blocks(n, nodes),
                    "CG-like: halo exchange for the mat-vec, dot products by a binomial reduce and broadcast")


WORKLOADS.update(cg=cg, hier_bcast=hier_bcast, hier_reduce=hier_reduce, flat_bcast=flat_bcast,
                 flat_reduce=flat_reduce)
