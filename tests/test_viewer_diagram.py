"""The space-time diagram reads: every label inside the picture, no two
labels on top of each other, each message drawn in its class's colour, the
recovery line drawn, step numbers for every printed step."""
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from rrcheck.checker.traces import counterexample as T
from rrcheck.checker.traces.render import CLASS_COLOR, steps, svg

CURATED = Path(__file__).resolve().parents[1] / "counterexamples"
NS = "{http://www.w3.org/2000/svg}"


def boxes(root):
    out = []
    for t in root.iter(NS + "text"):
        size = float(t.get("font-size", 11))
        x, y = float(t.get("x")), float(t.get("y"))
        w = 0.6 * size * len(t.text or "")
        if t.get("text-anchor") == "middle":
            x -= w / 2
        out.append((x, y - size, x + w, y, t.text))
    return out


@pytest.mark.parametrize("name", ["correlated-set__no-internal-event-logging", "hmpl__no-wildcard-block__fig46",
                                  "app-level__no-late-logging", "send-deterministic__no-phases"])
def test_viewer_diagram_labels_fit_and_do_not_overlap(name):
    cx = T.load(CURATED / f"{name}.json")
    rep = T.replay(cx)
    root = ET.fromstring(svg(cx, rep))
    width = float(root.get("width"))
    bs = boxes(root)
    assert all(b[2] <= width for b in bs), [b[4] for b in bs if b[2] > width]
    placed = [b for b in bs if b[4] and not b[4].isdigit()]  # every label but the step numbers
    for i, a in enumerate(placed):
        for b in placed[i + 1:]:
            overlap = a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1
            assert not overlap, (a[4], b[4])
    numbers = {b[4] for b in bs}
    assert {str(t) for t in range(1, len(steps(rep)) + 1)} <= numbers


def test_viewer_diagram_draws_message_classes_and_the_line():
    cx = T.load(CURATED / "correlated-set__no-internal-event-logging.json")
    text = svg(cx, T.replay(cx))
    assert "m5 (orphan)" in text and "m1 (in transit)" in text and "m3 (future)" in text
    for cls in ("in transit", "orphan", "future"):
        assert f'stroke="{CLASS_COLOR[cls]}"' in text
    assert "recovery line 1" in text
