"""Counterexamples in the Informal Trace Format (ITF) of Apalache and Quint.

One ITF state per step of the run, with the variables of the TLA+ system model
(specs/RollbackRecovery.tla: ``procs``, ``wire``, ``failures``, ``failed``)
and ``event``, the scheduler event that led to the state (``["init"]`` for the
first). Sequences are JSON lists, tuples ``#tup``, sets ``#set``, functions
``#map``, integers ``#bigint``, records JSON objects (ITF, apalache-mc.org
"ITF format"). Digests of the Python model (acc, payloads) are integers here;
a TLC trace keeps the spec's value terms as tuples. ``procs`` and ``wire``
are functions (of a process, of a pair) in both.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from itf_py import trace_from_json

from rrcheck.checker.traces import counterexample as T


def value(x, field: str = ""):
    """A Python-model value (or a value TLC printed, see checker/tla/values.py) as ITF JSON."""
    from rrcheck.checker.tla.values import Fn, Rec
    if x is None:
        return [] if field == "msg" else {"crashed": True}
    if isinstance(x, bool) or isinstance(x, str):
        return x
    if isinstance(x, int):
        return {"#bigint": str(x)}
    if isinstance(x, Rec):
        return {k: value(v) for k, v in x}
    if isinstance(x, Fn):
        return {"#map": [[value(k), value(v)] for k, v in x]}
    if dataclasses.is_dataclass(x):
        out = {f.name: value(getattr(x, f.name), f.name) for f in dataclasses.fields(x)
               if not f.name.startswith("_")}
        if type(x).__name__ == "Packet" and x.msg is not None:
            out["msg"] = [out["msg"]]
        return out
    if isinstance(x, (tuple, list)):
        return [value(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return {"#set": sorted((value(v) for v in x), key=json.dumps)}
    raise TypeError(f"no ITF value for {x!r}")


def _state(index: int, event, procs, wire, failures, failed) -> dict:
    return {"#meta": {"index": index}, "event": [value(e) for e in event], "procs": procs, "wire": wire,
            "failures": value(failures), "failed": value(frozenset(failed))}


def of_python_run(system, events: list, source: str) -> dict:
    """The states the Python model goes through on ``events``."""
    n = system.n
    s = system.initial()

    def wire(s):
        return {"#map": [[{"#tup": [value(c // n), value(c % n)]}, value(ch)] for c, ch in enumerate(s.wire)]}

    def procs(s):
        return {"#map": [[value(p), value(pr)] for p, pr in enumerate(s.procs)]}

    states = [_state(0, ["init"], procs(s), wire(s), s.failures, s.failed)]
    for i, a in enumerate(events, start=1):
        s, _ = system.step(s, tuple(a))
        states.append(_state(i, a, procs(s), wire(s), s.failures, s.failed))
    return _trace(states, source)


def of_tlc_trace(trace: list[dict], events: list, source: str) -> dict:
    """A TLC trace (parsed by checker/tla/values.py), its events named by the
    Python model's (checker/tla/follow.py)."""
    states = []
    for i, st in enumerate(trace):
        ev = ["init"] if i == 0 else list(events[i - 1])
        states.append(_state(i, ev, value(st["procs"]), value(st["wire"]), st["failures"], st["failed"]))
    return _trace(states, source)


def _trace(states: list, source: str) -> dict:
    t = {"#meta": {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
                   "source": source, "description": "rrcheck run: one state per scheduler event"},
         "vars": ["event", "procs", "wire", "failures", "failed"], "states": states}
    trace_from_json(t)  # the itf-py reader accepts it
    return t


def write(path: Path, trace: dict) -> Path:
    T.write_atomic(Path(path), json.dumps(trace, indent=1) + "\n")
    return Path(path)


def write_replay_itf(cx, path: Path) -> Path:
    """``rrcheck replay FILE --itf OUT``: the counterexample's run as ITF."""
    from rrcheck.checker.model.scenarios import system_for
    system, _ = system_for(cx)
    return write(path, of_python_run(system, cx.events, f"{cx.mutant or cx.protocol} on {cx.workload}"))
