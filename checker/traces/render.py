"""Space-time diagrams of replayed traces (SVG): one line per process, time to
the right in numbered steps (the numbers of ``rrcheck replay``'s list),
application messages as solid arrows coloured by their class at the last
rollback (checker/traces/explain.py: past, in transit, orphan, future), protocol
packets as thin grey arrows, checkpoints as boxes, crashes as red crosses,
lost packets ending in a cross, and each rollback's recovery line through the
checkpoints it returns to and the present of the processes that do not roll
back. Labels are placed so that none overlaps another and none is smaller
than 10 px; a protocol packet's label that finds no room near its arrow is
left to the arrow's tooltip, which every arrow has."""
from __future__ import annotations

from html import escape

DX, DY, X0, Y0 = 38, 64, 150, 96
GROUP_FILL = ("#eef4ff", "#fff3e6", "#eefbee", "#f7eefc", "#fdf6d8", "#e8f7f7")
APP = "#1f3b8c"
CLASS_COLOR = {"past": APP, "in transit": "#0a8a3a", "orphan": "#c0008a", "future": "#8a8fa8"}
LINE = "#e67e00"
MIN_FONT = 10  # no text smaller (the 7- and 8-px packet labels could not be read)


def _label(system, gid) -> str:
    from rrcheck.checker.traces.counterexample import label
    return "" if gid is None else label(system, gid)


def steps(rep) -> list[str]:
    """One line per replayed step, from the timeline."""
    return [e[2] for e in rep.timeline if e[0] == "text"]


class _Labels:
    """Places text where it overlaps no label placed before (width estimated
    from the font size), trying offsets further and further from the anchor.
    A label that may not move far (``tries``) and finds no room is left out:
    its words are in the tooltip of what it names."""

    OFFSETS = (0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5, -6, 6)  # in lines of text

    def __init__(self) -> None:
        self.boxes: list[tuple[float, float, float, float]] = []
        self.left, self.top, self.right, self.bottom = float("inf"), float("inf"), 0.0, 0.0

    def place(self, x: float, y: float, text: str, size: float = 11, tries: int = len(OFFSETS), **attrs) -> str:
        w, h = 0.6 * size * len(text) + 2, size + 2
        for dy in self.OFFSETS[:tries]:
            box = (x, y + dy * h - h, x + w, y + dy * h)
            if not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in self.boxes):
                break
        else:
            if tries < len(self.OFFSETS):
                return ""
        self.boxes.append(box)
        self.left, self.top = min(self.left, box[0]), min(self.top, box[1])
        self.right, self.bottom = max(self.right, box[2]), max(self.bottom, box[3])
        extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
        return f'<text x="{x:.1f}" y="{box[3] - 2:.1f}" font-size="{size}"{extra}>{escape(text)}</text>'


def lanes(system) -> list[str]:
    """The label of each process's line."""
    return [f"P{p} (node {system.ctx.node_of[p]}, group {system.ctx.group_of[p]})" for p in range(system.n)]


def lane_y(p: int) -> int:
    return Y0 + DY * p


def band_fill(system, p: int) -> str:
    """The colour of the band of p's group."""
    return GROUP_FILL[system.ctx.group_of[p] % len(GROUP_FILL)]


def svg(cx, rep, rollbacks=None, *, frame: bool = True) -> str:
    """The diagram of a replay; ``rollbacks`` (checker/traces/explain.py) are computed
    when not given. With ``frame`` the picture stands alone: title, process
    labels, legend and the violation under it. Without, it is only the
    diagram, cropped to what is drawn (its viewBox starts where the process
    lines do), for the viewer, which shows the rest around it in HTML."""
    if rollbacks is None:
        from rrcheck.checker.traces.explain import explain
        rollbacks = explain(cx)
    system, tl = rep.system, rep.timeline
    n, T = system.n, max(rep.steps, 1)
    x = lambda t: X0 + DX * t  # noqa: E731
    y = lane_y
    cls_of = {}
    for rb in rollbacks:  # the class at the last rollback that classifies the send
        for m in rb.messages:
            cls_of[(m.src, m.dst, m.k, m.sent_at)] = m.cls
    hdr_of = {(e[1], e[2], e[3], e[4]): e[5] for e in tl if e[0] == "header"}
    labels = _Labels()
    for t in range(0, T + 1):  # what labels must not cover: the step numbers and the glyphs
        half = 0.3 * MIN_FONT * len(str(t)) + 2
        for yy in (Y0 - 38, y(n - 1) + 40):
            labels.boxes.append((x(t) - half, yy - MIN_FONT, x(t) + half, yy + 2))
    for e in tl:
        r = {"crash": 10, "restart": 6, "checkpoint": 9}.get(e[0])
        if r:
            labels.boxes.append((x(e[1]) - r, y(e[2]) - r, x(e[1]) + r, y(e[2]) + r))
    body: list[str] = []
    for t in range(0, T + 1):  # step grid: a dot's step is the number above and below it
        body.append(f'<line x1="{x(t)}" y1="{Y0 - 34}" x2="{x(t)}" y2="{y(n - 1) + 28}" stroke="#e4e4e4"/>')
        for yy in (Y0 - 38, y(n - 1) + 40):
            body.append(f'<text x="{x(t)}" y="{yy}" font-size="{MIN_FONT}" fill="#777" '
                        f'text-anchor="middle">{t}</text>')
    ckpt_at: dict[tuple[int, int], int] = {}
    for e in tl:
        if e[0] == "checkpoint":
            ckpt_at[(e[2], e[3])] = e[1]
    major: list[tuple] = []  # labels placed first, moved as far as it takes
    minor: list[tuple] = []  # then these, near their anchor or not at all (the tooltip has them)
    for e in tl:
        kind = e[0]
        if kind == "arrow":
            _, t0, t1, s, d, pk_kind, gid = e
            x0, y0, x1, y1 = x(t0), y(s), x(t1), y(d)
            hdr = hdr_of.get((t0, t1, s, d))
            when = f"P{s} → P{d}, sent at step {t0}, arrives at step {t1}" + (f" [{hdr}]" if hdr else "")
            if gid is not None and (pk_kind == "app" or pk_kind in system.protocol.MESSAGE_KINDS):
                cls = cls_of.get((gid[0], gid[1], gid[2], t0))
                color = CLASS_COLOR.get(cls, APP)
                dash = ' stroke-dasharray="6,3"' if cls == "future" else ""
                if system.protocol.name == "app-level" and cls in ("in transit", "orphan"):
                    cls = {"in transit": "late", "orphan": "early"}[cls]  # C3's names, as --explain gives them
                text = _label(system, gid) + (f" ({cls})" if cls and cls != "past" else "")
                kind_text = "" if pk_kind == "app" else f" ({pk_kind})"
                body.append(_tip(f"{text}{kind_text} {when}",
                                 f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="{color}" stroke-width="2"'
                                 f'{dash} marker-end="url(#a{_key(color)})"/>', x0, y0, x1, y1))
                major.append((x0 + (x1 - x0) * 0.35 + 3, y0 + (y1 - y0) * 0.35 - 2, text, 11,
                              {"fill": color, "font_weight": "bold"}))
                wanted = major  # a message's header (a phase, a date) is part of the story
            else:
                what = f"'{pk_kind}' packet" + (f" of {_label(system, gid)}" if gid is not None else "")
                body.append(_tip(f"{what} {when}",
                                 f'<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#b5b5b5" '
                                 f'stroke-dasharray="3,2" marker-end="url(#agrey)"/>', x0, y0, x1, y1))
                minor.append((x0 + (x1 - x0) * 0.6 + 2, y0 + (y1 - y0) * 0.6 + 10, pk_kind, MIN_FONT,
                              {"fill": "#888"}))
                wanted = minor
            if hdr:  # what the protocol shows of the header
                wanted.append((x0 + (x1 - x0) * 0.35 + 3, y0 + (y1 - y0) * 0.35 + 11, hdr, MIN_FONT,
                              {"fill": "#7a4b00"}))
        elif kind == "pending":  # still in flight when the trace ends
            _, t0, t1, s, d, pk_kind, gid = e
            xe, ye = x(t1) + DX * 0.7, y(s) + (y(d) - y(s)) * 0.3
            color = APP if gid is not None and pk_kind == "app" else "#b5b5b5"
            what = (_label(system, gid) if pk_kind == "app" else f"'{pk_kind}' of {_label(system, gid)}") \
                if gid is not None else f"'{pk_kind}' packet"
            body.append(_tip(f"{what} P{s} → P{d}, sent at step {t0}, still in flight",
                             f'<line x1="{x(t0)}" y1="{y(s)}" x2="{xe}" y2="{ye}" stroke="{color}" '
                             f'stroke-dasharray="2,3" stroke-width="1.5"/>', x(t0), y(s), xe, ye))
            if gid is not None:
                major.append((xe + 3, ye + 4, f"{what} in flight to P{d}", 10, {"fill": color}))
        elif kind == "lost":
            _, t0, t1, s, d = e
            xe, ye = x(t1), y(s) + (y(d) - y(s)) * 0.6
            body.append(_tip(f"a packet P{s} → P{d} sent at step {t0}, lost at step {t1}",
                             f'<line x1="{x(t0)}" y1="{y(s)}" x2="{xe}" y2="{ye}" stroke="#c33" '
                             f'stroke-dasharray="4,2"/>', x(t0), y(s), xe, ye))
            body.append(_cross(xe, ye, 4, "#c33"))
        elif kind == "crash":
            body.append(_cross(x(e[1]), y(e[2]), 9, "#d00", 3))
            major.append((x(e[1]) - 14, y(e[2]) - 12, "crash", 11, {"fill": "#d00", "font_weight": "bold"}))
        elif kind == "restart":
            body.append(f'<circle cx="{x(e[1])}" cy="{y(e[2])}" r="5" fill="#2a2"/>')
        elif kind == "checkpoint":
            body.append(f'<rect x="{x(e[1]) - 6}" y="{y(e[2]) - 9}" width="12" height="18" fill="#ffd84d" '
                        f'stroke="#a80"/>')
            major.append((x(e[1]) - 6, y(e[2]) + 22, f"C{e[3]}", MIN_FONT, {}))
        elif kind == "restore":
            _, t, p, cid = e
            t0 = ckpt_at.get((p, cid), 0)
            body.append(f'<path d="M{x(t)},{y(p) + 3} C{x(t)},{y(p) + 24} {x(t0)},{y(p) + 24} {x(t0)},{y(p) + 3}" '
                        f'fill="none" stroke="{LINE}" stroke-width="1.5" stroke-dasharray="5,3"/>')
            major.append((x(t) + 3, y(p) + 20, f"rollback to C{cid}", MIN_FONT, {"fill": LINE}))
        elif kind == "match":
            body.append(f'<circle cx="{x(e[1])}" cy="{y(e[2])}" r="2.5" fill="{APP}"/>')
    for i, rb in enumerate(rollbacks, start=1):  # the recovery line
        pts = [(x(t0), y(p)) for p, (_, t0, _) in rb.checkpoints.items()]
        pts += [(x(rb.step) - DX / 2, y(q)) for q in rb.survivors]  # the present of the survivors
        pts.sort(key=lambda q: q[1])
        d = " ".join(f"{'M' if j == 0 else 'L'}{px},{py}" for j, (px, py) in enumerate(pts))
        if len(pts) == 1:
            px, py = pts[0]
            d = f"M{px},{py - DY / 2 + 6} L{px},{py + DY / 2 - 6}"
        body.append(f'<path d="{d}" fill="none" stroke="{LINE}" stroke-width="4" opacity="0.55"/>')
        px, py = pts[0]
        major.append((px + 4, py - DY / 2 + 14, f"recovery line {i}", 10, {"fill": LINE, "font_weight": "bold"}))
    late = [labels.place(lx, ly, text, size, **attrs) for lx, ly, text, size, attrs in major]
    late += [labels.place(lx, ly, text, size, tries=3, **attrs) for lx, ly, text, size, attrs in minor]
    late = [t for t in late if t]
    if frame:
        for p, text in enumerate(lanes(system)):
            late.append(f'<text x="8" y="{y(p) + 4}" font-size="11">{escape(text)}</text>')
    right = max(x(T) + DX, labels.right) + 30
    if frame:
        left, top, width = 0, 0, max(right, 760)
        legend_y = y(n - 1) + 62
        v = rep.violation
        msg = f"{v.property}: {v.message}" if v else "no violation reproduced"
        wrapped = _wrap(msg, max(60, int((right - 20) / 6.6)))
        height = legend_y + 70 + 16 * len(wrapped)
    else:
        left, top = min(X0 - 14, labels.left - 4), min(Y0 - 52, labels.top - 4)
        width, height = right - left, max(y(n - 1) + 48, labels.bottom + 4) - top
    box = f' viewBox="{left:.0f} {top:.0f} {width:.0f} {height:.0f}"' if not frame else ""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}"{box} '
           f'font-family="Helvetica, Arial, sans-serif" font-size="11">', '<defs>']
    for color in list(CLASS_COLOR.values()) + ["#b5b5b5"]:
        out.append(f'<marker id="a{_key(color)}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                   f'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>')
    out.append('</defs>')
    out.append(f'<rect x="{left:.0f}" y="{top:.0f}" width="{width:.0f}" height="{height:.0f}" fill="white"/>')
    for p in range(n):  # groups as bands
        out.append(f'<rect class="band" x="{left:.0f}" y="{y(p) - DY / 2}" width="{width:.0f}" height="{DY}" '
                   f'fill="{band_fill(system, p)}"/>')
    if frame:
        title = f"{cx.mutant or cx.protocol} on {cx.workload} — {cx.violation.property}"
        out.append(f'<text x="10" y="22" font-size="14" font-weight="bold">{escape(title)}</text>')
        out.append(f'<text x="{X0 - 40}" y="{Y0 - 38}" font-size="{MIN_FONT}" fill="#777">step</text>')
    for p in range(n):
        out.append(f'<line class="lane" x1="{X0 - 10}" y1="{y(p)}" x2="{left + width - 20:.0f}" y2="{y(p)}" '
                   f'stroke="#333"/>')
    out += body + late
    if frame:
        out += _legend(legend_y)
        for j, line in enumerate(wrapped):
            out.append(f'<text x="10" y="{legend_y + 56 + 16 * j}" fill="#b00" font-weight="bold">'
                       f'{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def legend() -> str:
    """The legend alone, as a picture of its own (the viewer's, under its diagram)."""
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="760" height="46" '
            'font-family="Helvetica, Arial, sans-serif" font-size="11">' + "".join(_legend(14)) + "</svg>")


def _tip(text: str, line: str, x0: float, y0: float, x1: float, y1: float) -> str:
    """A line with a tooltip, and a wider invisible line over it to point at."""
    return (f'<g><title>{escape(text)}</title>{line}<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" '
            f'stroke="#000" stroke-opacity="0" stroke-width="9"/></g>')


def _legend(y0: float) -> list[str]:
    """Each entry drawn with the glyph the diagram uses."""
    out, x0 = [], 10
    items = [("line", CLASS_COLOR["past"], "", "past message"),
             ("line", CLASS_COLOR["in transit"], "", "in transit"),
             ("line", CLASS_COLOR["orphan"], "", "orphan"),
             ("line", CLASS_COLOR["future"], "6,3", "future (undone)"),
             ("line", "#b5b5b5", "3,2", "protocol packet"),
             ("ckpt", "", "", "checkpoint"),
             ("cross", "#d00", "", "crash"),
             ("line", LINE, "5,3", "rollback"),
             ("thick", LINE, "", "recovery line")]
    x, y = x0, y0
    for kind, color, dash, text in items:
        if kind == "line":
            d = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(f'<line x1="{x}" y1="{y}" x2="{x + 26}" y2="{y}" stroke="{color}" stroke-width="2"{d}/>')
        elif kind == "thick":
            out.append(f'<line x1="{x}" y1="{y}" x2="{x + 26}" y2="{y}" stroke="{color}" stroke-width="4" '
                       f'opacity="0.55"/>')
        elif kind == "ckpt":
            out.append(f'<rect x="{x + 8}" y="{y - 8}" width="10" height="16" fill="#ffd84d" stroke="#a80"/>')
        else:
            out.append(_cross(x + 13, y, 6, color, 3))
        out.append(f'<text x="{x + 32}" y="{y + 4}" font-size="10">{escape(text)}</text>')
        x += 40 + 6 * len(text) + 14
        if x > 700:
            x, y = x0, y + 20
    return out


def _wrap(text: str, width: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    return lines + [cur] if cur else lines


def _key(color: str) -> str:
    return color.lstrip("#")


def _cross(cx: float, cy: float, r: float, color: str, w: float = 2) -> str:
    return (f'<path d="M{cx - r},{cy - r} L{cx + r},{cy + r} M{cx - r},{cy + r} L{cx + r},{cy - r}" '
            f'stroke="{color}" stroke-width="{w}"/>')
