"""Space-time diagrams of replayed traces (SVG): one line per process, time to
the right, application messages as solid arrows (labelled m1, m2… where the
workload names them), protocol packets as thin grey arrows, checkpoints as
boxes, crashes as red crosses, lost packets ending in a cross, and the
recovery line joining the checkpoints a rollback returns to."""
from __future__ import annotations

from html import escape

DX, DY, X0, Y0 = 34, 56, 110, 50
GROUP_FILL = ("#eef4ff", "#fff3e6", "#eefbee", "#f7eefc", "#fdf6d8", "#e8f7f7")


def _label(system, gid) -> str:
    from rrcheck.checker.trace import label
    return "" if gid is None else label(system, gid)


def steps(rep) -> list[str]:
    """One line per replayed step, from the timeline."""
    return [e[2] for e in rep.timeline if e[0] == "text"]


def svg(cx, rep) -> str:
    system, tl = rep.system, rep.timeline
    n, T = system.n, max(rep.steps, 1)
    width, height = X0 + DX * (T + 2) + 40, Y0 + DY * n + 90
    x = lambda t: X0 + DX * t  # noqa: E731
    y = lambda p: Y0 + DY * p  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="11">',
           '<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1f3b8c"/></marker>'
           '<marker id="c" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="5" markerHeight="5" '
           'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#999"/></marker></defs>',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    title = f"{cx.mutant or cx.protocol} on {cx.workload} — {cx.violation.property}"
    out.append(f'<text x="10" y="20" font-size="14" font-weight="bold">{escape(title)}</text>')
    for p in range(n):  # correlated sets / groups as bands, one line per process
        g = system.ctx.group_of[p]
        out.append(f'<rect x="0" y="{y(p) - DY / 2}" width="{width}" height="{DY}" '
                   f'fill="{GROUP_FILL[g % len(GROUP_FILL)]}"/>')
    for p in range(n):
        out.append(f'<line x1="{X0 - 10}" y1="{y(p)}" x2="{width - 20}" y2="{y(p)}" stroke="#333"/>')
        out.append(f'<text x="8" y="{y(p) + 4}">P{p} (node {system.ctx.node_of[p]}, '
                   f'set {system.ctx.group_of[p]})</text>')
    ckpt_at: dict[tuple[int, int], int] = {}
    for e in tl:
        if e[0] == "checkpoint":
            ckpt_at[(e[2], e[3])] = e[1]
    lines: dict[int, list] = {}
    for e in tl:
        kind = e[0]
        if kind == "arrow":
            _, t0, t1, s, d, pk_kind, gid = e
            if gid is not None and (pk_kind == "app" or pk_kind in system.protocol.MESSAGE_KINDS):
                out.append(f'<line x1="{x(t0)}" y1="{y(s)}" x2="{x(t1)}" y2="{y(d)}" stroke="#1f3b8c" '
                           f'stroke-width="1.8" marker-end="url(#a)"/>')
                mx, my = (x(t0) + x(t1)) / 2, (y(s) + y(d)) / 2
                out.append(f'<text x="{mx + 3}" y="{my - 3}" fill="#1f3b8c" font-weight="bold">'
                           f'{escape(_label(system, gid))}</text>')
            else:
                out.append(f'<line x1="{x(t0)}" y1="{y(s)}" x2="{x(t1)}" y2="{y(d)}" stroke="#aaa" '
                           f'stroke-dasharray="3,2" marker-end="url(#c)"/>')
                out.append(f'<text x="{(x(t0) + x(t1)) / 2 + 2}" y="{(y(s) + y(d)) / 2 + 10}" fill="#888" '
                           f'font-size="9">{escape(pk_kind)}</text>')
        elif kind == "header":  # what the protocol shows of the header, under the label
            _, t0, t1, s, d, text = e
            out.append(f'<text x="{(x(t0) + x(t1)) / 2 + 3}" y="{(y(s) + y(d)) / 2 + 9}" fill="#7a4b00" '
                       f'font-size="9">{escape(text)}</text>')
        elif kind == "pending":  # still in flight when the trace ends
            _, t0, t1, s, d, pk_kind, gid = e
            xe, ye = x(t1 + 1), y(s) + (y(d) - y(s)) * 0.3
            color = "#1f3b8c" if gid is not None and pk_kind == "app" else "#aaa"
            out.append(f'<line x1="{x(t0)}" y1="{y(s)}" x2="{xe}" y2="{ye}" stroke="{color}" '
                       f'stroke-dasharray="2,3" stroke-width="1.5"/>')
            if gid is not None:
                out.append(f'<text x="{xe + 3}" y="{ye + 4}" fill="{color}">{escape(_label(system, gid))} '
                           f'in flight to P{d}</text>')
        elif kind == "lost":
            _, t0, t1, s, d = e
            xe, ye = x(t1), y(s) + (y(d) - y(s)) * 0.6
            out.append(f'<line x1="{x(t0)}" y1="{y(s)}" x2="{xe}" y2="{ye}" stroke="#c33" stroke-dasharray="4,2"/>')
            out.append(_cross(xe, ye, 4, "#c33"))
        elif kind == "crash":
            out.append(_cross(x(e[1]), y(e[2]), 9, "#d00", 3))
            out.append(f'<text x="{x(e[1]) - 14}" y="{y(e[2]) - 12}" fill="#d00" font-weight="bold">crash</text>')
        elif kind == "restart":
            out.append(f'<circle cx="{x(e[1])}" cy="{y(e[2])}" r="5" fill="#2a2"/>')
        elif kind == "checkpoint":
            out.append(f'<rect x="{x(e[1]) - 6}" y="{y(e[2]) - 9}" width="12" height="18" fill="#ffd84d" '
                       f'stroke="#a80"/><text x="{x(e[1]) - 6}" y="{y(e[2]) + 21}" font-size="9">C{e[3]}</text>')
        elif kind == "restore":
            _, t, p, cid = e
            t0 = ckpt_at.get((p, cid), 0)
            lines.setdefault(cid, []).append((t0, p))
            out.append(f'<path d="M{x(t)},{y(p) + 3} C{x(t)},{y(p) + 22} {x(t0)},{y(p) + 22} {x(t0)},{y(p) + 3}" '
                       f'fill="none" stroke="#e67e00" stroke-width="1.5" stroke-dasharray="5,3"/>')
            out.append(f'<text x="{x(t) + 3}" y="{y(p) + 18}" fill="#e67e00" font-size="9">rollback to C{cid}</text>')
        elif kind == "match":
            out.append(f'<circle cx="{x(e[1])}" cy="{y(e[2])}" r="2.5" fill="#1f3b8c"/>')
    for cid, pts in lines.items():  # the recovery line
        pts = sorted(set(pts), key=lambda q: q[1])
        if len(pts) > 1:
            d = " ".join(f"{'M' if i == 0 else 'L'}{x(t)},{y(p)}" for i, (t, p) in enumerate(pts))
            out.append(f'<path d="{d}" fill="none" stroke="#e67e00" stroke-width="3" opacity="0.7"/>')
    for t in range(1, T + 1):
        out.append(f'<text x="{x(t) - 4}" y="{Y0 + DY * n - 14}" fill="#999" font-size="8">{t}</text>')
    v = rep.violation
    msg = f"{v.property}: {v.message}" if v else "no violation reproduced"
    out.append(f'<text x="10" y="{height - 40}" fill="#b00" font-weight="bold">{escape(msg[:160])}</text>')
    out.append(f'<text x="10" y="{height - 20}" fill="#555">blue: application messages; grey: protocol '
               f'packets; yellow: checkpoints; orange: rollbacks and the recovery line; red: crashes and lost '
               f'packets</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _cross(cx: float, cy: float, r: float, color: str, w: float = 2) -> str:
    return (f'<path d="M{cx - r},{cy - r} L{cx + r},{cy + r} M{cx - r},{cy + r} L{cx + r},{cy - r}" '
            f'stroke="{color}" stroke-width="{w}"/>')
