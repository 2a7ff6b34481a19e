"""A counterexample as one self-contained web page (``rrcheck replay FILE
--html OUT.html``): no server, no network, the script and style inline. It
steps forward and back through the run (buttons, arrow keys, or ``#step=N`` in
the address): the space-time diagram with the current step highlighted, every
process's volatile and stable state, the channels, the protocol's logs and
buffers, the messages classified at each rollback (checker/traces/explain.py), and at
the last step the property violated, explained."""
from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from html import escape
from pathlib import Path

from rrcheck.checker.traces import render
from rrcheck.checker.invariants import DESCRIPTIONS

TEMPLATE = Path(__file__).with_name("viewer.html")
MAX_FIELD = 300


def _show(v) -> str:
    """A protocol state, field by field, each shortened to MAX_FIELD characters."""
    if v is None:
        return "(lost with the crash)"
    if is_dataclass(v):
        parts = []
        for f in fields(v):
            x = repr(getattr(v, f.name))
            parts.append(f"{f.name} = {x if len(x) <= MAX_FIELD else x[:MAX_FIELD] + '…'}")
        return "\n".join(parts)
    x = repr(v)
    return x if len(x) <= MAX_FIELD else x[:MAX_FIELD] + "…"


def _snapshot(system, s) -> dict:
    from rrcheck.checker.traces.counterexample import label
    n, proto, ctx = system.n, system.protocol, system.ctx
    procs = []
    for p, pr in enumerate(s.procs):
        prog = system.progs[p]
        procs.append({
            "name": f"P{p}", "alive": pr.alive,
            "at": "finished" if pr.pc >= len(prog) else " ".join(map(str, prog[pr.pc])),
            "queue": [label(system, m.msg.gid) for m in pr.mailbox] if pr.alive else [],
            "volatile": _show(pr.vol), "stable": _show(pr.stab),
            "checkpoints": [f"C{c}" for c, _ in pr.images],
            "holds": sorted({label(system, m.gid) for m in proto.holdings(ctx, p, pr.vol, pr.stab)})
            if pr.alive else [],
        })
    chans = []
    for c, ch in enumerate(s.wire):
        if ch:
            chans.append({"from": c // n, "to": c % n,
                          "packets": [(label(system, pk.msg.gid) + " " if pk.msg else "") + pk.kind for pk in ch]})
    return {"procs": procs, "channels": chans, "failures": s.failures}


def page(cx) -> str:
    """The page for counterexample ``cx``."""
    from rrcheck.checker.traces import explain as X
    from rrcheck.checker.traces import counterexample as T
    from rrcheck.checker.model.scenarios import system_for
    rep = T.replay(cx)
    rbs = X.explain(cx)
    system, _ = system_for(cx)
    s = system.initial()
    states = [_snapshot(system, s)]
    texts = ["the initial state: every process at its first operation, C0 taken"]
    for ev in cx.events[:rep.steps]:
        a = tuple(ev)
        s2, obs = system.step(s, a)
        texts.append(T._text(system, s, a, obs))
        s = s2
        states.append(_snapshot(system, s))
    v = rep.violation
    data = {
        "title": f"{cx.mutant or cx.protocol} on {cx.workload}",
        "steps": texts, "states": states,
        "rollbacks": [rb.as_dict() for rb in rbs],
        "violation": None if v is None else {
            "property": v.property, "message": v.message,
            "description": DESCRIPTIONS.get(v.property, ""), "step": rep.steps},
        "x0": render.X0, "dx": render.DX,
    }
    html = TEMPLATE.read_text()
    return (html.replace("{{TITLE}}", escape(data["title"]))
                .replace("{{SVG}}", render.svg(cx, rep, rbs))
                .replace("{{DATA}}", json.dumps(data).replace("</", "<\\/")))
