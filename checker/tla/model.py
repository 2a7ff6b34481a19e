"""A scenario as a TLC model: the generated ``MC.tla`` and ``MC.cfg``, over
the specs of :func:`specs_dir` (whose ``manifest.json`` fixes each model's counts).

The workload (programs, placement, grouping) and the bounds become the
CONSTANTS of the protocol's module in specs/; a mutant's knobs become the
module's knob constants (one line each).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rrcheck.errors import UsageError
from rrcheck.files import loads_json, read_capped
from rrcheck.checker.invariants import OWN, applicable

# specs/ beside the source folders; installed as rrcheck/specs, the same two levels up
SPECS = Path(__file__).resolve().parents[2] / "specs"


def specs_dir(module: str | None = None) -> Path:
    """The specs TLC checks: ``RRCHECK_SPECS`` when set (read at each call, so a
    test can point the bridge at an edited copy), else :data:`SPECS`; with
    ``module``, refused in one line unless it holds ``module``.tla."""
    named = os.environ.get("RRCHECK_SPECS")
    d = Path(named) if named else SPECS
    if module is not None and not (d / f"{module}.tla").is_file():
        raise UsageError(f"RRCHECK_SPECS names {d}, which has no {module}.tla: point it at a copy of specs/"
                         if named else f"{d} has no {module}.tla: reinstall rrcheck")
    return d


def manifest() -> dict[tuple, dict]:
    """specs/manifest.json (of :func:`specs_dir`): its rows by (protocol,
    mutant, scenario label); refused in one line if it is missing or unreadable."""
    path = specs_dir() / "manifest.json"
    try:
        rows = loads_json(read_capped(path, 1 << 22, str(path)))["models"]
        return {(r["protocol"], r["mutant"], r["scenario"]): r for r in rows}
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file; the specs' directory needs its manifest.json")
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"{path}: not the specs' manifest ({type(e).__name__}: {e})")


# properties TLC checks on transitions ([][A]_vars), the others on states
ACTION_PROPERTIES = ("RollbackScope", "RecoveryBound", "Theorem1", "NoInTransitInGroup", "CausalReplayOrder",
                     "LogEndNoBackwardCrossing", "LogEndNoLateCrossing", "ErasureOrder", "GCBehindCheckpoint")


@dataclass(frozen=True)
class Spec:
    module: str
    constants: dict          # fixed knob values of this protocol
    knobs: dict              # rrcheck knob -> TLA+ constant, or (constant, value map)


SPECIFIED: dict[str, Spec] = {
    "coordinated": Spec("Coordinated", {"Blocking": True, "RecordChannels": True},
                        {"next_wave_commits": "NextWaveCommits",
                         "stale_rollback_is_a_failure": "StaleRollbackIsAFailure"}),
    "chandy-lamport": Spec("Coordinated", {"Blocking": False}, {"record_channels": "RecordChannels",
                                                                "next_wave_commits": "NextWaveCommits",
                                                                "stale_rollback_is_a_failure": "StaleRollbackIsAFailure"}),
    "correlated-set": Spec("CorrelatedSet", {}, {
        "log_events": "LogEvents", "log_internal_events": "LogInternalEvents",
        "payload_copy_external": "PayloadCopyExternal", "drop_duplicates": "DropDuplicates",
        "rollback_scope": ("RollbackToAll", lambda v: v == "all"), "silence": "Silence",
        "commit_after_the_set": "CommitAfterTheSet", "newer_epoch_rolls_back": "NewerEpochRollsBack", "stale_rollback_is_a_failure": "StaleRollbackIsAFailure"}),
    "send-deterministic": Spec("SendDeterministic", {}, {
        "phases": "Phases", "restart_buffer": "RestartBuffer", "gc_inclusive": "GcInclusive",
        "group_rollback": "GroupRollback", "ack_checkpointed": "AckCheckpointed",
        "flush_empties_buffer": "FlushEmptiesBuffer", "newer_mark_restarts": "NewerMarkRestarts",
        "next_wave_commits": "NextWaveCommits", "concurrent_restarts": "ConcurrentRestarts",
        "resend_lost": "ResendLost", "hold_external_until_commit": "HoldExternalUntilCommit",
        "told_again_names_group": "ToldAgainNamesGroup"}),
    "app-level": Spec("AppLevel", {}, {
        "log_late": "LogLate", "suppress_early": "SuppressEarly", "log_nondet": "LogNondet",
        "ready_after_late": "ReadyAfterLate", "stop_on_stopped_sender": "StopOnStoppedSender",
        "late_from_every_sender": "LateFromEverySender", "replay_by_message_id": "ReplayByMessageId",
        "checkpoint_suppressions": "CheckpointSuppressions", "stale_rollback_is_a_failure": "StaleRollbackIsAFailure"}),
}

# Meyer's pessimistic logging (specs/PessimisticLogging.tla): one engine, the three
# protocols differ by knobs; SBML's logs are held by the senders, and its sender TB
# (the Message Log) is the knob payload_copy_external
_LOGGING_KNOBS = {
    "block_sends_until_logged": "BlockSends", "block_on_wildcard": "BlockOnWildcard",
    "log_choices": "LogChoices", "release_at": "ReleaseAt", "logger_drops_unacked": "LoggerDropsUnacked",
    "drop_duplicates": "DropDuplicates", "logger_placement": "Placement", "tb_query": "TbQuery",
    "competing_erasure": "CompetingErasure", "flush_before_checkpoint": "FlushBeforeCheckpoint",
    "gc_after_durable": "GcAfterDurable", "replay_order": "ReplayOrder",
    "sender_erases_on_next_send": "SenderErasesOnNextSend", "forward_at_reception": "ForwardAtReception",
    "checkpoint_tb": "CheckpointTB", "retry_fetch": "RetryFetch", "fill_rsn_gaps": "FillRsnGaps"}
SPECIFIED.update({
    "sbml": Spec("PessimisticLogging", {"LogAtSender": True}, {
        **_LOGGING_KNOBS, "payload_copy_external": "SenderTB", "log_events": "LogEvents"}),
    "rbml": Spec("PessimisticLogging", {"LogAtSender": False, "LogEvents": True}, {
        **_LOGGING_KNOBS, "sender_tb": "SenderTB"}),
    "hmpl": Spec("PessimisticLogging", {"LogAtSender": False, "LogEvents": True}, {
        **_LOGGING_KNOBS, "sender_tb": "SenderTB"}),
})


def spec_of(protocol: str) -> Spec:
    if protocol not in SPECIFIED:
        raise UsageError(f"unknown protocol {protocol!r}; choose one of {', '.join(SPECIFIED)}")
    return SPECIFIED[protocol]


def tla_value(x) -> str:
    """A Python value as a TLA+ constant expression."""
    if isinstance(x, bool):
        return "TRUE" if x else "FALSE"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, str):
        return '"' + x.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(x, (tuple, list)):
        return "<<" + ", ".join(tla_value(v) for v in x) + ">>"
    if isinstance(x, (set, frozenset)):
        return "{" + ", ".join(sorted(tla_value(v) for v in x)) + "}"
    raise TypeError(f"no TLA+ value for {x!r}")


def fn0(xs) -> str:
    """A function on 0..n-1 (TLA+ sequences start at 1)."""
    return "(" + " @@ ".join(f"{i} :> {tla_value(v)}" for i, v in enumerate(xs)) + ")"


SUPPORTED_OPS = {"send", "reply", "recv", "site", "nondet", "coll"}


def check_workload(system) -> None:
    for p, prog in enumerate(system.progs):
        for op in prog:
            if op[0] not in SUPPORTED_OPS or (op[0] == "recv" and op[3] not in ("seq", "sum")):
                raise UsageError(f"the TLA+ system model has no {op[0]!r} operation yet "
                                 f"({system.workload.name}, P{p}: {op}); check this workload with `rrcheck check`")


def checked_by_spec(protocol: str, properties) -> list[str]:
    """The properties asked for that the model's configuration names: a protocol's
    own reading of a general property stands for it, as in the Python judge
    (correlated sets: Theorem1 for NoInTransitInGroup)."""
    mine = applicable(protocol)
    refined = {OWN[p].refines for p in properties if p in OWN and OWN[p].refines}
    return [p for p in properties if p in mine and p not in refined]


def model_files(system, protocol: str, properties: tuple[str, ...]) -> tuple[str, str]:
    """MC.tla and MC.cfg for one scenario (``system``) of ``protocol``."""
    spec = spec_of(protocol)
    check_workload(system)
    b = system.bounds
    knobs = dict(spec.constants)
    for k, v in system.protocol.knobs.items():
        if k in spec.knobs:
            const, conv = spec.knobs[k] if isinstance(spec.knobs[k], tuple) else (spec.knobs[k], None)
            knobs[const] = conv(v) if conv else v
    progs = [[list(op) for op in prog] for prog in system.progs]
    mc = "\n".join([
        "---- MODULE MC ----",
        f"EXTENDS {spec.module}, TLC",
        f"MC_Prog == {fn0(progs)}",
        f"MC_NodeOf == {fn0(system.ctx.node_of)}",
        f"MC_GroupOf == {fn0(system.ctx.group_of)}",
        f"MC_CrashKinds == {tla_value(set(b.crash_kinds))}",
        "====", ""])
    consts = {"N": system.n, "Fifo": system.ctx.fifo, "MaxFailures": b.failures,
              "MaxCheckpoints": b.checkpoints,
              "AtSites": bool(b.checkpoint_at_sites or system.protocol.at_sites),
              "NoFailureDuringRecovery": b.no_failure_during_recovery, **knobs}
    lines = ["CONSTANTS"]
    lines += [f"  {k} = {tla_value(v)}" for k, v in consts.items()]
    lines += ["  Prog <- MC_Prog", "  NodeOf <- MC_NodeOf", "  GroupOf <- MC_GroupOf",
              "  CrashKinds <- MC_CrashKinds", "INIT Init", "NEXT Next"]
    properties = checked_by_spec(system.protocol.name, properties)
    inv = [p for p in properties if p not in ACTION_PROPERTIES]
    act = [p for p in properties if p in ACTION_PROPERTIES]
    if inv:
        lines += ["INVARIANT"] + [f"  {p}" for p in inv]
    if act:
        lines += ["PROPERTY"] + [f"  {p}" for p in act]
    return mc, "\n".join(lines) + "\n"
