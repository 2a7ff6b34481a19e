"""The catalogue of protocols and of their deliberately broken variants (DESIGN §6).

A mutant is a correct protocol with one knob set wrong, named after the rule it
breaks, with the source that states the rule and the properties expected to
catch it. Every mutant must be caught (``rrcheck check --all``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from protocols.base import Protocol
from protocols.coordinated import BlockingCoordinated, ChandyLamport
from protocols.correlated_set import CorrelatedSet
from protocols.hmpl import Hybrid
from protocols.logging import SenderBased
from protocols.rbml import ReceiverBased

PROTOCOLS: dict[str, type[Protocol]] = {
    "coordinated": BlockingCoordinated,
    "chandy-lamport": ChandyLamport,
    "sbml": SenderBased,
    "correlated-set": CorrelatedSet,
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
    catches: tuple[str, ...]  # properties any of which may report it
    extra: dict = field(default_factory=dict)


MUTANTS: dict[str, Mutant] = {m.name: m for m in (
    Mutant("correlated-set/no-internal-event-logging", "correlated-set", {"log_internal_events": False},
           "every reception is event-logged, internal ones included (Theorem 2)",
           "seed 000 §3.2.2, Theorem 2", ("NoOrphan", "FailureFreeEquivalence")),
    Mutant("correlated-set/no-internal-silence", "correlated-set", {"silence": False},
           "members checkpoint only after eager silence, drain and barrier (Theorem 1)",
           "seed 000 §3.2.1 Theorem 1, §3.3.3", ("Theorem1", "NoLostMessage", "Termination")),
    Mutant("correlated-set/no-external-payload-copy", "correlated-set", {"payload_copy_external": False},
           "messages leaving the set are copied by their sender",
           "seed 000 §3.2, §3.3.2", ("NoLostMessage", "Termination")),
    Mutant("correlated-set/global-rollback", "correlated-set", {"rollback_scope": "all"},
           "a failure rolls back the failed correlated set only",
           "seed 000 §3.2 (\"A process failing in another correlated set does not trigger a rollback\")",
           ("RollbackScope",)),
    Mutant("chandy-lamport/no-channel-recording", "chandy-lamport", {"record_channels": False},
           "messages arriving between a checkpoint and the channel's marker are recorded",
           "Chandy–Lamport; seed 000 §3.2.1", ("NoLostMessage", "Theorem1", "Termination")),
    Mutant("sbml/no-event-logging", "sbml", {"log_events": False},
           "the outcome of every reception is logged before the receiver sends",
           "seed 000 §2.2 \"Event logging\"", ("NoOrphan", "FailureFreeEquivalence")),
    Mutant("sbml/no-duplicate-suppression", "sbml", {"drop_duplicates": False},
           "re-sent messages are discarded by SSN", "seed 004 L695, L703",
           ("NoDuplicateDelivery",)),
    Mutant("uncoordinated/no-logging", "sbml", {"log_events": False, "payload_copy_external": False},
           "independent checkpoints need logs, or rollbacks cascade (domino effect)",
           "seed 000 §2.1 (\"a domino effect can force all checkpoints to be discarded\")",
           ("NoLostMessage", "NoOrphan", "Termination", "FailureFreeEquivalence")),
)}


def build(protocol: str, mutant: str | None = None) -> Protocol:
    from checker.errors import UsageError
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
