"""``rrcheck replay FILE --html OUT``: one self-contained page, stepped through
in headless Chromium (Debian's ``chromium``) by the ``#step=N`` address, and
readable at every step: on the 7-process trace of Guermouche and Ropars' Fig. 2
the process labels stay in view while the diagram scrolls, the title and the
violation are whole, no label is under 10 px or on top of another (measured
by the browser), and the state panes are in words."""
import json
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

CURATED = Path(__file__).resolve().parents[1] / "counterexamples"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(*args, tmp):
    """Headless Chromium with its own profile directory and a time limit."""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           f"--user-data-dir={tmp / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=tmp)


@pytest.fixture(scope="module")
def theorem2_page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("viewer")
    out = tmp / "theorem2.html"
    r = subprocess.run([sys.executable, "-m", "rrcheck", "replay",
                        str(CURATED / "correlated-set__no-internal-event-logging.json"), "--html", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"viewer page: {out}" in r.stdout  # the command says where the page went
    return tmp, out


def test_viewer_page_is_self_contained(theorem2_page):
    _, out = theorem2_page
    html = out.read_text()
    assert "<svg" in html and "<script>" in html
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing fetched from a network


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
def test_viewer_page_steps_in_headless_chromium(theorem2_page):
    tmp, out = theorem2_page
    url = out.resolve().as_uri()

    def dom(step):
        r = chromium("--virtual-time-budget=2000", "--dump-dom", f"{url}#step={step}", tmp=tmp)
        assert r.returncode == 0, r.stderr[-500:]
        return r.stdout

    start = dom(0)
    assert "step 0 / 38" in start and "no rollback yet" in start and "every channel is empty" in start
    assert 'id="proc-P2"' in start and 'class="proc dead"' not in start
    crashed = dom(16)
    assert "16. P2 CRASHES" in crashed and 'class="proc dead" id="proc-P2"' in crashed
    assert "lost with the crash" in crashed
    assert "NoOrphan is violated" not in crashed and "rollback 1" not in crashed
    end = dom(38)
    assert "38. P2 sends m5 to P4" in end and "NoOrphan is violated at step 38" in end
    assert "in transit" in end and "orphan" in end and "re-sent DIFFERENTLY" in end
    assert "never contradicted by its sender" in end  # the property explained
    shot = tmp / "viewer.png"
    r = chromium("--hide-scrollbars", "--window-size=1400,1300", "--virtual-time-budget=2000",
                 f"--screenshot={shot}", f"{url}#step=38", tmp=tmp)
    assert r.returncode == 0 and shot.stat().st_size > 10_000


SEVEN = "send-deterministic__no-phases"  # Fig. 2 of Guermouche and Ropars: 7 processes, 56 steps
WINDOW = (1000, 900)  # narrower than the 56-step diagram, so that it must scroll
# what the browser lays out, written into the page by a script added to a copy of it
MEASURE = """<script>
addEventListener("load", () => {
  const r = e => { const b = e.getBoundingClientRect();
                   return {left: b.left, top: b.top, right: b.right, bottom: b.bottom}; };
  const pane = document.getElementById("diagram");
  const out = {
    view: {width: innerWidth, height: innerHeight},
    heading: {...r(document.getElementById("heading")), text: document.getElementById("heading").textContent},
    column: r(document.getElementById("lanes")),
    diagram: r(pane),
    svg: r(pane.querySelector("svg")),
    bar: r(document.getElementById("current-step")),
    lanes: [...document.querySelectorAll("#lanes .lane")].map(e => {
      const b = r(e);
      const on_top = [b.left + 2, (b.left + b.right) / 2, b.right - 2].map(x => {
        const hit = document.elementFromPoint(x, (b.top + b.bottom) / 2);
        return hit ? hit.id : null; });
      return {...b, text: e.textContent, id: e.id, on_top};
    }),
    lines: [...document.querySelectorAll("#diagram svg line.lane")].map(r),
    texts: [...document.querySelectorAll("#diagram svg text")].map(e => (
      {...r(e), text: e.textContent, size: parseFloat(getComputedStyle(e).fontSize)})),
  };
  const v = document.getElementById("violation");
  out.violation = {...r(v), text: v.textContent, scrollWidth: v.scrollWidth, clientWidth: v.clientWidth};
  const pre = document.createElement("pre");
  pre.id = "measured"; pre.style.display = "none"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def png_pixels(path: Path) -> tuple[int, int, list[bytes], int]:
    """Width, height, rows and bytes per pixel of an 8-bit RGB or RGBA PNG
    (what Chromium writes), decoded with the standard library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    bpp = 4 if colour == 6 else 3
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def crop(shot, box) -> list[bytes]:
    """The RGB of the whole pixels inside ``box`` (a measured rectangle), within the window."""
    width, height, rows, bpp = shot
    x0, x1 = max(0, int(box["left"]) + 1), min(width, int(box["right"]) - 1)
    y0, y1 = max(0, int(box["top"]) + 1), min(height, int(box["bottom"]) - 1)
    return [bytes(v for i, v in enumerate(row[x0 * bpp:x1 * bpp]) if i % bpp < 3) for row in rows[y0:y1]]


def ink(pixels: list[bytes]) -> int:
    """How many pixels are dark enough to be text."""
    return sum(1 for row in pixels for i in range(0, len(row), 3) if max(row[i:i + 3]) < 110)


@pytest.fixture(scope="module")
def seven_page(tmp_path_factory):
    """The 7-process page with the measuring script added, at its first and last step:
    the browser's measurements and a screenshot of the window, each from one run."""
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    tmp = tmp_path_factory.mktemp("seven")
    out = tmp / f"{SEVEN}.html"
    r = subprocess.run([sys.executable, "-m", "rrcheck", "replay", str(CURATED / f"{SEVEN}.json"),
                        "--html", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    measured = tmp / "measured.html"
    measured.write_text(out.read_text().replace("</body>", MEASURE + "</body>"))
    steps = len(json.loads((CURATED / f"{SEVEN}.json").read_text())["events"])
    runs = {}
    for step in (0, steps):
        shot = tmp / f"step{step}.png"
        r = chromium("--hide-scrollbars", "--force-device-scale-factor=1", f"--window-size={WINDOW[0]},{WINDOW[1]}",
                     "--virtual-time-budget=2000", "--dump-dom", f"--screenshot={shot}",
                     f"{measured.as_uri()}#step={step}", tmp=tmp)
        assert r.returncode == 0, r.stderr[-500:]
        m = re.search(r'<pre id="measured" style="display: none;">(.*?)</pre>', r.stdout, re.DOTALL)
        assert m, "the measuring script wrote nothing"
        runs[step] = (json.loads(m.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
                                 .replace("&amp;", "&")), png_pixels(shot), r.stdout)
    return steps, runs


def inside(box, outer, slack=0.5) -> bool:
    return (box["left"] >= outer["left"] - slack and box["right"] <= outer["right"] + slack
            and box["top"] >= outer["top"] - slack and box["bottom"] <= outer["bottom"] + slack)


def test_viewer_page_seven_processes_lane_labels_stay_in_view_at_the_last_step(seven_page):
    """Issue 40, item 5: at the last step of the 7-process trace the diagram has
    scrolled far to the right, and each process's label is still inside the
    window, on top (nothing covers it), level with its line, left of the diagram."""
    steps, runs = seven_page
    m = runs[steps][0]
    view = {"left": 0, "top": 0, "right": m["view"]["width"], "bottom": m["view"]["height"]}
    d = m["diagram"]
    assert m["svg"]["left"] < -1000  # the diagram scrolled far to the right
    assert inside(m["bar"], d)  # the current step is in view
    side = [0, 0, 0, 1, 1, 1, 1]  # P0-P2 on node 0 and in group 0, P3-P6 on node 1 and in group 1
    assert [x["text"] for x in m["lanes"]] == [f"P{p} (node {side[p]}, group {side[p]})" for p in range(7)]
    for p, (label, line) in enumerate(zip(m["lanes"], m["lines"])):
        assert inside(label, view), (p, label)
        assert label["on_top"] == [f"lane-P{p}"] * 3, (p, label["on_top"])  # nothing covers it
        assert label["right"] <= d["left"] + 0.5  # beside the diagram, not over it
        assert abs((label["top"] + label["bottom"]) / 2 - (line["top"] + line["bottom"]) / 2) < 1.5
    assert inside(m["heading"], view) and "violates CausalReplayOrder" in m["heading"]["text"]


def test_viewer_page_seven_processes_violation_whole_and_labels_legible(seven_page):
    """The violation under the diagram is inside the window and wrapped, not cut;
    every text of the diagram is at least 10 px and none overlaps another,
    as the browser lays them out."""
    steps, runs = seven_page
    m = runs[steps][0]
    view = {"left": 0, "top": 0, "right": m["view"]["width"], "bottom": m["view"]["height"]}
    v = m["violation"]
    message = json.loads((CURATED / f"{SEVEN}.json").read_text())["violation"]["message"]
    assert inside(v, view) and v["scrollWidth"] <= v["clientWidth"], v
    assert f"CausalReplayOrder is violated at step {steps}" in v["text"] and message in v["text"]
    texts = m["texts"]
    assert len(texts) > 100 and min(t["size"] for t in texts) >= 10, sorted(t["size"] for t in texts)[:3]
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            overlap = (a["left"] < b["right"] - 1 and b["left"] < a["right"] - 1
                       and a["top"] < b["bottom"] - 1 and b["top"] < a["bottom"] - 1)
            assert not overlap, (a["text"], b["text"])


def test_viewer_page_seven_processes_screenshot_column_frozen(seven_page):
    """Screenshots of the first and the last step: the diagram's pixels differ
    (it scrolled 56 steps), the label column's are the same, and each label's
    box holds the ink of its text."""
    steps, runs = seven_page
    (first, shot0, _), (last, shot1, _) = runs[0], runs[steps]
    assert first["column"] == last["column"] and first["lanes"][0]["top"] == last["lanes"][0]["top"]
    assert shot0[:2] == shot1[:2] == WINDOW
    assert crop(shot0, last["column"]) == crop(shot1, last["column"])
    assert crop(shot0, last["diagram"]) != crop(shot1, last["diagram"])
    for label in last["lanes"]:
        assert ink(crop(shot1, label)) > 60, label["text"]  # the label is drawn, not only laid out


def test_viewer_page_seven_processes_state_in_words(seven_page):
    """The panes say what --explain says: no Python reprs; the next operation,
    checkpoints and empty fields in words."""
    steps, runs = seven_page
    dom = runs[steps][2]
    panes = dom[dom.index('<div id="panes">'):dom.index('<h2 style="font-size:15px">Channels')]
    assert "next operation: receive from any source" in panes
    assert "frozenset(" not in panes and "Saved(" not in panes and "None" not in panes and "'" not in panes
    assert "ckpts:\n  C0: RPP = " in panes and "empty: Enregistres, PasEnvoyes" in panes


def test_viewer_state_in_words():
    from rrcheck.checker.traces import words as W
    from rrcheck.protocols.base import ANY, AppMsg
    from rrcheck.protocols.logging import Saved, Stab, Vol
    assert W.operation(("recv", ANY, ANY, "seq")) == "receive from any source"
    assert W.operation(("recv", 3, ANY, "sum")) == "receive from P3, summed in (any order gives the same state)"
    assert W.operation(("send", 2, 0)) == "send to P2" and W.operation(None) == "none: its program has finished"
    stab = Stab(ckpts=((0, Saved((0, 0), (), (0, 0), 0)), (1, Saved((1, 0), (), (0, 1), 1))), epoch=(0, 0))
    text = W.state(stab, lambda gid: "m1")
    assert text.startswith("ckpts:\n  C0: ssn = (0, 0), rcv = (0, 0), rsn = 0\n"
                           "  C1: ssn = (1, 0), rcv = (0, 1), rsn = 1\n"), text
    m = AppMsg((0, 1, 0), 0, 1, 0, 7)
    vol = Vol((1, 0), ((1, 1, m),), (0, 0), 0, epoch=(0, 0))
    text = W.state(vol, lambda gid: {(0, 1, 0): "m1"}[gid])
    assert "log = ((1, 1, m1),)" in text and "frozenset" not in text and "empty: " in text
