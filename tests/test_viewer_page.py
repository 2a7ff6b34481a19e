"""``rrcheck replay FILE --html OUT``: one self-contained page, stepped through
in headless Chromium (Debian's ``chromium``) by the ``#step=N`` address."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CURATED = Path(__file__).resolve().parents[1] / "counterexamples"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(*args, tmp):
    """Headless Chromium with its own profile directory and a time limit."""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           f"--user-data-dir={tmp / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp)


@pytest.fixture(scope="module")
def theorem2_page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("viewer")
    out = tmp / "theorem2.html"
    r = subprocess.run([sys.executable, "-m", "rrcheck", "replay",
                        str(CURATED / "correlated-set__no-internal-event-logging.json"), "--html", str(out)],
                       capture_output=True, text=True, timeout=120)
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
