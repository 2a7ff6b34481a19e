"""A counterexample as one self-contained web page (``rrcheck replay FILE
--html OUT.html``): no server, no network, the script and style inline. It
steps forward and back through the run (buttons, arrow keys, or ``#step=N`` in
the address): the space-time diagram with the current step highlighted and
the process labels in a column that stays while the diagram scrolls, every
process's volatile and stable state in words (checker/traces/words.py), the
channels, the protocol's logs and buffers, the messages classified at each
rollback (checker/traces/explain.py), and the property the run violates,
explained at the last step."""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

from rrcheck.checker.traces import render
from rrcheck.checker.traces import words as W
from rrcheck.checker.invariants import DESCRIPTIONS

TEMPLATE = Path(__file__).with_name("viewer.html")


def _packet(system, pk) -> str:
    """A packet on a channel, as a step of ``rrcheck replay`` names it."""
    from rrcheck.checker.traces.counterexample import label
    what = (label(system, pk.msg.gid) + ("" if pk.kind == "app" else f" ({pk.kind})")) if pk.msg \
        else f"'{pk.kind}' packet"
    hdr = system.protocol.describe(pk)
    return what + (f" [{hdr}]" if hdr else "")


def _snapshot(system, s) -> dict:
    from rrcheck.checker.traces.counterexample import label
    n, proto, ctx = system.n, system.protocol, system.ctx
    name = lambda gid: label(system, gid)  # noqa: E731
    procs = []
    for p, pr in enumerate(s.procs):
        prog = system.progs[p]
        procs.append({
            "name": f"P{p}", "alive": pr.alive,
            "at": W.operation(prog[pr.pc] if pr.pc < len(prog) else None),
            "queue": [name(m.msg.gid) for m in pr.mailbox] if pr.alive else [],
            "volatile": W.state(pr.vol, name), "stable": W.state(pr.stab, name),
            "checkpoints": [f"C{c}" for c, _ in pr.images],
            "holds": sorted({name(m.gid) for m in proto.holdings(ctx, p, pr.vol, pr.stab)})
            if pr.alive else [],
        })
    chans = []
    for c, ch in enumerate(s.wire):
        if ch:
            chans.append({"from": c // n, "to": c % n, "packets": [_packet(system, pk) for pk in ch]})
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
    title = f"{cx.mutant or cx.protocol} on {cx.workload}"
    data = {
        "title": title,
        "steps": texts, "states": states,
        "rollbacks": [rb.as_dict() for rb in rbs],
        "violation": None if v is None else {
            "property": v.property, "message": v.message,
            "description": DESCRIPTIONS.get(v.property, ""), "step": rep.steps},
        "x0": render.X0, "dx": render.DX, "dy": render.DY,
        "lanes": [{"text": text, "y": render.lane_y(p), "fill": render.band_fill(system, p)}
                  for p, text in enumerate(render.lanes(system))],
        "step_rows": [render.Y0 - 38, render.lane_y(system.n - 1) + 40],
    }
    heading = title + (f" — violates {v.property}" if v else "")
    html = TEMPLATE.read_text()
    return (html.replace("{{TITLE}}", escape(title))
                .replace("{{HEADING}}", escape(heading))
                .replace("{{SVG}}", render.svg(cx, rep, rbs, frame=False))
                .replace("{{LEGEND}}", render.legend())
                .replace("{{DATA}}", json.dumps(data).replace("</", "<\\/")))
