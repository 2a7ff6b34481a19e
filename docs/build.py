"""Regenerate every picture the walkthroughs show, from the curated
counterexamples, with the tool itself:

    python docs/build.py

writes docs/img/<counterexample>.svg (rrcheck replay --svg), the example
viewer page docs/viewer/theorem2.html (rrcheck replay --html) and, when
Debian's ``chromium`` is installed, its screenshot docs/viewer.png."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
CURATED = DOCS.parent / "counterexamples"
SHOWN = [  # the counterexamples the pages show, by page
    "correlated-set__no-internal-event-logging", "correlated-set__no-internal-silence",
    "correlated-set__line-before-the-set-checkpoints",
    "correlated-set__no-external-payload-copy", "correlated-set__global-rollback",
    "send-deterministic__no-phases", "send-deterministic__not-send-deterministic",
    "send-deterministic__no-restart-buffer", "send-deterministic__gc-off-by-one",
    "send-deterministic__restart-failed-only", "send-deterministic__ack-at-next-message",
    "hmpl__no-wildcard-block__fig46", "hmpl__no-wildcard-block", "hmpl__tb-before-log", "hmpl__no-tb-query",
    "hmpl__release-before-logger-ack", "hmpl__no-ssn-check", "hmpl__logger-on-same-node",
    "app-level__no-late-logging", "app-level__no-early-suppression", "app-level__no-nondet-logging",
    "app-level__early-ready-to-stop", "app-level__no-stop-on-logged-sender",
    "chandy-lamport__no-channel-recording", "sbml__no-event-logging", "uncoordinated__no-logging",
    "sbml__node-crash-takes-sender-and-receiver", "send-deterministic__checkpoint-holds-a-message-past-its-cause",
]


def rrcheck(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "rrcheck", *args], check=True, timeout=300,
                   stdout=subprocess.DEVNULL)


def main() -> int:
    (DOCS / "img").mkdir(exist_ok=True)
    (DOCS / "viewer").mkdir(exist_ok=True)
    for name in SHOWN:
        rrcheck("replay", str(CURATED / f"{name}.json"), "--svg", str(DOCS / "img" / f"{name}.svg"))
    page = DOCS / "viewer" / "theorem2.html"
    rrcheck("replay", str(CURATED / "correlated-set__no-internal-event-logging.json"), "--html", str(page))
    browser = shutil.which("chromium")
    if browser:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            f"--user-data-dir={tmp}", "--window-size=1400,1300", "--virtual-time-budget=2000",
                            f"--screenshot={DOCS / 'viewer.png'}", page.as_uri() + "#step=38"],
                           check=True, timeout=120, capture_output=True, cwd=tmp)
    else:
        print("build.py: chromium not installed, docs/viewer.png not refreshed", file=sys.stderr)
    print(f"{len(SHOWN)} diagrams in {DOCS / 'img'}, the viewer page in {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
