"""The record of the next scope (issue 38): benchmarks/results/next_scope.json
covers every protocol, and a violation it holds is either a section of
docs/findings.md or not there at all."""
import json
import re
from pathlib import Path

from rrcheck.protocols.mutants import PROTOCOLS

ROOT = Path(__file__).resolve().parents[1]


def test_next_scope_covers_every_protocol_and_explains_each_violation():
    doc = json.loads((ROOT / "benchmarks" / "results" / "next_scope.json").read_text())
    rows = doc["results"]
    assert {r["protocol"] for r in rows} == set(PROTOCOLS)
    assert doc["violations"] == sum(r["verdict"] == "violation" for r in rows)
    sections = set(re.findall(r"^## (\d+)\. ", (ROOT / "docs" / "findings.md").read_text(), re.M))
    for r in rows:
        assert r["verdict"] in ("pass", "violation", "no violation", "incomplete"), r
        if r["verdict"] == "violation":  # a violation names the finding that settles it
            assert str(r.get("finding")) in sections, r
