"""TLC's trace taken step by step by the Python model, and where the two part.

:func:`follow` finds, for each step of a TLC trace, the scheduler event that
takes the Python model to the same state (checker/tla/values.py's views). At
the first step no event reaches, it returns a :class:`Parting`: what TLC's
step changed, and how the state after the nearest Python event differs from
TLC's (nearest: it changes most of the processes and channels TLC's step
changes, then leaves the fewest differences).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from rrcheck.checker.tla.values import Fn, Rec, py_view, tla_view

SHOWN = 8        # differences listed, at most
WIDTH = 100      # characters of one value, at most


@dataclass(frozen=True)
class Parting:
    """The first step of TLC's trace (1-based; 0: the initial state) the Python
    model cannot take, after ``followed``, the events of the steps before it."""
    step: int
    steps: int                             # the steps of TLC's trace (its states less one)
    followed: tuple
    tlc_changes: tuple = ()                # (where, before, after): TLC's step
    nearest: tuple | None = None           # the Python event whose state is nearest TLC's
    differences: tuple = ()                # (where, TLC's value, Python's value) after it
    enabled: int = 0                       # the Python model's events enabled before the step

    def summary(self) -> str:
        if self.step == 0:
            return "TLC's initial state is not the Python model's"
        return (f"the Python model follows {self.step - 1} of the {self.steps} steps of TLC's trace; "
                f"step {self.step} it cannot take")

    def lines(self) -> list[str]:
        """The parting, for a reader: the step, TLC's change, and the nearest Python step."""
        out = [self.summary()]
        if self.step == 0:
            out.append("the initial states differ in:")
            out += _table(self.differences, "TLC", "Python")
            return out
        out.append(f"step {self.step}, in TLC's trace, changes:")
        out += _table(self.tlc_changes, "before", "after") or ["  nothing (a stuttering step)"]
        if self.nearest is None:
            out.append("the Python model has no event enabled there")
        else:
            out.append(f"the Python model's nearest event (of {self.enabled} enabled), "
                       f"{json.dumps(list(self.nearest))}, ends where TLC's state differs in:")
            out += _table(self.differences, "TLC", "Python")
        return out

    def as_dict(self) -> dict:
        return {"step": self.step, "steps": self.steps, "followed": [list(e) for e in self.followed],
                "tlc_changes": [list(d) for d in self.tlc_changes],
                "nearest": list(self.nearest) if self.nearest is not None else None,
                "enabled": self.enabled, "differences": [list(d) for d in self.differences]}


def follow(system, states: list[dict]) -> tuple[list[tuple], Parting | None]:
    """The events that take the Python model through TLC's ``states``, as far
    as it follows them, and where it stops (None: all the way)."""
    n = system.n
    s = system.initial()
    first = tla_view(states[0])
    if py_view(s) != first:
        return [], Parting(0, len(states) - 1, (), differences=tuple(diff(first, py_view(s), n)))
    events: list[tuple] = []
    before = first
    for t, target in enumerate(states[1:], start=1):
        want = tla_view(target)
        tried = []
        for a in system.actions(s):
            s2, _ = system.step(s, a)
            got = py_view(s2)
            if got == want:
                events.append(a)
                s, before = s2, want
                break
            tried.append((a, got))
        else:
            changes = diff(before, want, n)
            touched = {_place(w) for w, _, _ in changes}
            best, nearest, differences = None, None, []
            for a, got in tried:
                d = diff(want, got, n)
                score = (-len(touched & {_place(w) for w, _, _ in diff(before, got, n)}), len(d))
                if best is None or score < best:
                    best, nearest, differences = score, a, d
            return events, Parting(t, len(states) - 1, tuple(events), tuple(changes), nearest,
                                   tuple(differences), len(tried))
    return events, None


def _place(where: str) -> str:
    """The process or channel a difference is in (``P2``, ``wire 1->2``), or the variable."""
    return where.split(".")[0].split("[")[0]


def diff(a, b, n: int) -> list[tuple[str, str, str]]:
    """Where two views differ: (where, a's value, b's value), named as the
    Python model names them (P1.vol.wave, wire 0->2, failures)."""
    out: list[tuple[str, str, str]] = []
    for i, name in enumerate(("procs", "wire", "failures", "failed")):
        if name == "procs":
            for p, (x, y) in enumerate(zip(a[0], b[0])):
                _diff(x, y, f"P{p}", out)
        elif name == "wire":
            for c, (x, y) in enumerate(zip(a[1], b[1])):
                _diff(x, y, f"wire {c // n}->{c % n}", out)
        else:
            _diff(a[i], b[i], name, out)
    return out


def _diff(x, y, where: str, out: list) -> None:
    if x == y:
        return
    if isinstance(x, Rec) and isinstance(y, Rec) and [k for k, _ in x] == [k for k, _ in y]:
        for (k, u), (_, v) in zip(x, y):
            _diff(u, v, f"{where}.{k}", out)
    elif (type(x) is tuple and type(y) is tuple and len(x) == len(y) and len(x) > 0
          and any(isinstance(u, (Rec, tuple)) for u in x)):
        for i, (u, v) in enumerate(zip(x, y)):
            _diff(u, v, f"{where}[{i}]", out)
    else:
        out.append((where, show(x), show(y)))


def show(v) -> str:
    """A view's value, short: records as [field: value], sequences as <<…>>."""
    text = _show(v)
    return text if len(text) <= WIDTH else text[:WIDTH - 1] + "…"


def _show(v) -> str:
    if isinstance(v, (Rec, Fn)):
        return "[" + ", ".join(f"{k}: {_show(x)}" for k, x in v) + "]"
    if isinstance(v, tuple):
        return "<<" + ", ".join(_show(x) for x in v) + ">>"
    if isinstance(v, frozenset):
        return "{" + ", ".join(sorted(_show(x) for x in v)) + "}"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def _table(rows, left: str, right: str) -> list[str]:
    shown = [f"  {where}: {left} {x}; {right} {y}" for where, x, y in rows[:SHOWN]]
    if len(rows) > SHOWN:
        shown.append(f"  and {len(rows) - SHOWN} more")
    return shown
