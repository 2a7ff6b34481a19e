"""Counterexample files and their replay (docs/design.md §6).

A counterexample is JSON, validated by a schema (never pickle or eval): the
protocol and its knobs, the workload and its placement, the grouping, the
bounds, the scheduler events, the violated property with the values that
break it, and the tool version. ``replay`` re-executes the events one by one
on a fresh system, judging each step with the same invariants, and records a
timeline for the space-time diagram (checker/traces/render.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rrcheck.errors import UsageError
from rrcheck.checker.invariants import PROPERTIES, Judge, Violation

SCHEMA_VERSION = 1
ACTION_KINDS = {"step": 2, "recv": 3, "choose": 3, "deliver": 4, "internal": 3,
                "crash": 2, "crash_node": 2, "restart": 2, "coll": 2, "coll_all": 2}


class ViolationModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    property: Literal[PROPERTIES]  # type: ignore[valid-type]
    message: str
    values: dict[str, Any]


class BoundsModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    failures: int = Field(ge=0)
    checkpoints: int = Field(ge=0)
    depth: int = Field(ge=1)
    crash_kinds: list[Literal["process", "node"]]
    no_failure_during_recovery: bool
    checkpoint_at_sites: bool = False


class Counterexample(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal[1]
    tool: str
    protocol: str
    mutant: str | None
    knobs: dict[str, Any]
    workload: str
    workload_spec: dict[str, Any] | None = None   # a workload file's document, so it replays anywhere
    procs: int | None
    nodes: int | None
    placement: list[int]
    grouping: list[int]
    bounds: BoundsModel
    properties: list[Literal[PROPERTIES]]  # type: ignore[valid-type]
    events: list[list[int | str]]
    violation: ViolationModel


def tool_version() -> str:
    try:
        from importlib.metadata import version
        return f"rrcheck {version('rrcheck')}"
    except Exception:
        return "rrcheck (source tree)"


def to_json_events(trace: list[tuple]) -> list[list]:
    return [list(a) for a in trace]


def write_atomic(path: Path, text: str) -> None:
    """Write a file whole or not at all (rrcheck.files: symlinks written
    through, devices in place, the user's umask)."""
    from rrcheck.files import write_text
    write_text(path, text)


def save(path: Path, cx: Counterexample) -> Path:
    write_atomic(path, json.dumps(cx.model_dump(mode="json"), indent=1) + "\n")
    return path


MAX_BYTES = 64 * 2**20     # a counterexample rrcheck writes is far smaller
MAX_EVENTS = 1_000_000


def save_counterexample(out, protocol, mutant, scenario, system, workload, props, result,
                        suffix: str = ".json") -> Path | None:
    """Write ``result``'s violating run as a counterexample file under ``out``."""
    if result.violation is None or out is None:
        return None
    cx = Counterexample(
        schema_version=SCHEMA_VERSION, tool=tool_version(), protocol=protocol, mutant=mutant,
        knobs=system.protocol.knobs, workload=workload.name, procs=scenario.procs, nodes=scenario.nodes,
        workload_spec=workload.spec,
        placement=list(workload.node_of), grouping=list(system.ctx.group_of),
        bounds=system.bounds.as_dict(), properties=list(props), events=to_json_events(result.trace),
        violation=result.violation.as_dict())
    name = (mutant or f"{protocol}/{workload.name}").replace("/", "__") + suffix
    return save(Path(out) / name, cx)


def load(path: str | Path) -> Counterexample:
    """Read a counterexample: JSON, its schema, then every field against the
    others and the registry (:func:`cross_check`)."""
    from rrcheck.files import loads_json, read_capped
    p = Path(path)
    try:
        raw = loads_json(read_capped(p, MAX_BYTES, str(p)))
    except FileNotFoundError:
        raise UsageError(f"{p}: no such counterexample file") from None
    except OSError as e:
        raise UsageError(f"{p}: cannot read it ({e.strerror}); give the path of a counterexample .json file") from None
    except UnicodeDecodeError:
        raise UsageError(f"{p}: binary data, not JSON; a counterexample is the JSON `rrcheck check` writes") from None
    except json.JSONDecodeError as e:
        raise UsageError(f"{p}: not JSON ({e}); a counterexample is the JSON `rrcheck check` writes") from None
    except RecursionError:
        raise UsageError(f"{p}: JSON nested too deep; a counterexample is the JSON `rrcheck check` writes") from None
    except ValueError as e:  # an integer too long for any count, NaN
        raise UsageError(f"{p}: {e}; a counterexample is the JSON `rrcheck check` writes") from None
    if isinstance(raw, dict) and isinstance(raw.get("schema_version"), str):
        raise UsageError(f"{p}: schema_version is the string {raw['schema_version']!r}; it is the number "
                         f"{SCHEMA_VERSION} in a file rrcheck writes")
    if isinstance(raw, dict) and raw.get("schema_version") not in (None, SCHEMA_VERSION):
        raise UsageError(f"{p}: schema version {raw.get('schema_version')!r}; this rrcheck reads version "
                         f"{SCHEMA_VERSION}")
    try:
        cx = Counterexample.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "top level"
        raise UsageError(f"{p}: malformed counterexample at {where}: {err['msg']}") from None
    try:
        cross_check(cx)
    except UsageError as e:
        raise UsageError(f"{p}: {e}") from None
    return cx


def cross_check(cx: Counterexample) -> None:
    """The fields agree: the mutant is the protocol's and its knobs are the
    mutant's (or the protocol's own), the properties apply to it, the
    violation is of one of them, the workload and sizes fit the placement and
    grouping, and every event is a scheduler event over existing processes."""
    from rrcheck.checker.invariants import applicable
    from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS, build
    if cx.protocol not in PROTOCOLS:
        raise UsageError(f"unknown protocol {cx.protocol!r}")
    if cx.mutant is not None:
        if cx.mutant not in MUTANTS:
            raise UsageError(f"unknown mutant {cx.mutant!r}")
        if MUTANTS[cx.mutant].protocol != cx.protocol:
            raise UsageError(f"mutant {cx.mutant!r} is a variant of {MUTANTS[cx.mutant].protocol!r}, "
                             f"not of {cx.protocol!r}")
    expected = build(cx.protocol, cx.mutant).knobs
    for k, v in cx.knobs.items():
        if k not in expected:
            raise UsageError(f"{cx.protocol} has no knob {k!r}")
        if v != expected[k]:
            raise UsageError(f"knob {k}={v!r}, but {cx.mutant or cx.protocol} has {k}={expected[k]!r}")
    defaults = PROTOCOLS[cx.protocol].KNOBS   # a file older than a knob replays with its correct value
    for k in set(expected) - set(cx.knobs):
        if defaults[k] != expected[k]:
            raise UsageError(f"knob {k} missing, and {cx.mutant} sets it to {expected[k]!r}")
    mine = applicable(PROTOCOLS[cx.protocol].name)
    for prop in cx.properties:
        if prop not in mine:
            raise UsageError(f"property {prop} does not apply to {cx.protocol}")
    if cx.violation.property not in cx.properties:
        raise UsageError(f"the violation is of {cx.violation.property}, which the file does not check")
    n = len(cx.placement)
    if not 1 <= n <= 64 or len(cx.grouping) != n or any(not 0 <= g < n for g in cx.grouping) \
            or any(not 0 <= j < n for j in cx.placement):
        raise UsageError(f"placement {cx.placement} and grouping {cx.grouping} do not fit one another")
    if cx.procs is not None and cx.procs != n:
        raise UsageError(f"procs = {cx.procs}, but the placement has {n} processes")
    if cx.nodes is not None and cx.nodes != len(set(cx.placement)):
        raise UsageError(f"nodes = {cx.nodes}, but the placement uses {len(set(cx.placement))}")
    if len(cx.events) > MAX_EVENTS:
        raise UsageError(f"{len(cx.events):,} events, more than {MAX_EVENTS:,}")
    nodes = set(cx.placement)
    for i, ev in enumerate(cx.events, start=1):
        if not ev or ev[0] not in ACTION_KINDS or len(ev) != ACTION_KINDS[ev[0]]:
            raise UsageError(f"event {i} {ev!r} is not a scheduler event (kind and arity: "
                             + ", ".join(f"{k}/{a - 1}" for k, a in ACTION_KINDS.items()) + ")")
        who = ev[1]
        if not isinstance(who, int) or not (who in nodes if ev[0] == "crash_node" else 0 <= who < n):
            raise UsageError(f"event {i} {ev!r} names no {'node' if ev[0] == 'crash_node' else 'process'} "
                             "of the placement")
        if ev[0] == "deliver" and not (isinstance(ev[2], int) and 0 <= ev[2] < n):
            raise UsageError(f"event {i} {ev!r} delivers to no process of the placement")


def differences(recorded: ViolationModel, got: Violation | None) -> str | None:
    """What differs between the recorded violation and the reproduced one."""
    if got is None:
        return f"no violation reproduced (the file records {recorded.property})"
    if got.property != recorded.property:
        return f"reproduced {got.property}, the file records {recorded.property}"
    mine = json.loads(json.dumps(got.values, default=list))
    diff = sorted(k for k in set(mine) | set(recorded.values) if mine.get(k) != recorded.values.get(k))
    if diff:
        return f"{got.property} with other values: " + ", ".join(
            f"{k} {recorded.values.get(k)!r} in the file, {mine.get(k)!r} replayed" for k in diff)
    return None


@dataclass
class Replay:
    violation: Violation | None
    steps: int
    timeline: list = field(default_factory=list)   # for checker/traces/render.py
    system: Any = None


def replay(cx: Counterexample, properties=None) -> Replay:
    """Re-execute a counterexample; return the violation it reproduces."""
    from rrcheck.checker.model.classify import failure_free
    from rrcheck.checker.model.scenarios import system_for
    system, workload = system_for(cx)
    judge = Judge(system, properties or cx.properties, failure_free(workload).finals)
    s = system.initial()
    timeline: list = []
    sent_at: dict[int, list] = {}  # channel -> send times of packets in it, in order
    v = judge.state(s)
    for t, ev in enumerate(cx.events, start=1):
        a = tuple(ev)
        if a not in system.actions(s):
            raise UsageError(f"event {t} {list(a)} is not enabled at that point: its events were edited, or it "
                             f"was written by another version of the protocol (re-run `rrcheck check` to "
                             f"regenerate it)")
        s2, obs = system.step(s, a)
        _record(system, s, a, s2, obs, t, timeline, sent_at)
        v = judge.transition(s, a, s2, obs) or judge.state(s2)
        s = s2
        if v:
            _in_flight(timeline, sent_at, s, system.n, t)
            return Replay(v, t, timeline, system)
    from rrcheck.checker.model.system import CRASHES
    if all(a[0] in CRASHES for a in system.actions(s)):
        v = judge.terminal(s)
    _in_flight(timeline, sent_at, s, system.n, len(cx.events))
    return Replay(v, len(cx.events), timeline, system)


def _in_flight(timeline: list, sent_at: dict, s, n: int, t: int) -> None:
    for c, times in sent_at.items():
        for i, t0 in enumerate(times):
            pk = s.wire[c][i]
            timeline.append(("pending", t0, t, c // n, c % n, pk.kind, pk.msg.gid if pk.msg else None))


def _record(system, s, a, s2, obs, t: int, timeline: list, sent_at: dict) -> None:
    """One step of the timeline: packets sent and received, checkpoints,
    crashes, restores."""
    n = system.n
    kind = a[0]
    timeline.append(("text", t, _text(system, s, a, obs)))
    if kind == "deliver":
        c = a[1] * n + a[2]
        pk = s.wire[c][a[3]]
        t0 = sent_at[c].pop(a[3])
        timeline.append(("arrow", t0, t, a[1], a[2], pk.kind, pk.msg.gid if pk.msg else None))
        hdr = system.protocol.describe(pk)
        if hdr:
            timeline.append(("header", t0, t, a[1], a[2], hdr))
    if kind in ("crash", "crash_node"):
        for o in obs:
            if o[0] == "crash":
                p = o[1]
                for q in range(n):
                    for t0 in sent_at.get(q * n + p, []):
                        timeline.append(("lost", t0, t, q, p))
                    sent_at[q * n + p] = []
                timeline.append(("crash", t, p))
    for c in range(n * n):
        before = len(s.wire[c]) - (1 if kind == "deliver" and a[1] * n + a[2] == c else 0)
        if kind in ("crash", "crash_node") and c % n in {o[1] for o in obs if o[0] == "crash"}:
            before = 0
        for _ in range(len(s2.wire[c]) - before):
            sent_at.setdefault(c, []).append(t)
    for o in obs:
        if o[0] == "checkpoint":
            timeline.append(("checkpoint", t, o[1], o[2]))
        elif o[0] == "restore":
            timeline.append(("restore", t, o[1], o[2]))
        elif o[0] == "restart":
            timeline.append(("restart", t, o[1]))
        elif o[0] == "delivered":
            timeline.append(("match", t, o[1], o[2], o[3]))


def label(system, gid) -> str:
    """m1, m2… as the paper's figure names them, else m<src><dst>.<k>."""
    return system.workload.labels.get(tuple(gid), f"m{gid[0]}{gid[1]}.{gid[2]}")


def _text(system, s, a, obs) -> str:
    kind, p = a[0], a[1]
    if kind == "step" or kind == "recv":
        sent = [o for o in obs if o[0] == "sent"]
        got = [o for o in obs if o[0] == "delivered"]
        if sent:
            o = sent[0]
            text = f"P{p} sends {label(system, (p, o[2], o[3]))} to P{o[2]}"
        elif got:
            o = got[0]
            text = f"P{p} receives {label(system, (o[2], p, o[3]))} from P{o[2]}"
        else:
            text = f"P{p} passes a checkpoint site"
    elif kind == "choose":
        text = f"P{p} makes non-deterministic choice {a[2]}"
    elif kind == "coll":
        text = f"P{p} completes its {system.progs[p][s.procs[p].pc][1]} from its log"
    elif kind == "coll_all":
        op = system.progs[0][s.procs[0].pc]
        text = f"every process calls {op[1]}" + (f" (root P{op[2]})" if op[1] in ("reduce", "bcast") else "")
    elif kind == "deliver":
        pk = s.wire[a[1] * system.n + a[2]][a[3]]
        what = f"{label(system, pk.msg.gid)} ({pk.kind})" if pk.msg else f"'{pk.kind}' packet"
        hdr = system.protocol.describe(pk)
        if hdr:
            what += f" [{hdr}]"
        text = f"{what} P{a[1]} -> P{a[2]} arrives"
    elif kind == "internal":
        text = f"P{p}: protocol step '{a[2]}'"
    elif kind == "crash":
        text = f"P{p} CRASHES"
    elif kind == "crash_node":
        text = f"node {p} CRASHES (" + ", ".join(f"P{q}" for q in range(system.n) if system.ctx.node_of[q] == p) + ")"
    else:
        text = f"P{p} restarts from stable storage"
    for o in obs:
        if o[0] == "checkpoint":
            text += f"; P{o[1]} checkpoints C{o[2]}"
        elif o[0] == "restore":
            text += f"; P{o[1]} rolls back to C{o[2]}"
    return text
