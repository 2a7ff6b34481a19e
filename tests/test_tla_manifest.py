"""specs/manifest.json and the table of specs/README.md: every default
scenario and mutant of each specified protocol, with the counts both engines
find. The small rows are checked against the explorer here, in the guard; the
agreement test (tests/test_invariants_tla.py) holds TLC and the explorer to
every row."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.scenarios import DEFAULTS, MUTANT_SCENARIOS
from rrcheck.checker.tla import SPECIFIED
from rrcheck.protocols.mutants import MUTANTS

SPECS = Path(__file__).resolve().parents[1] / "specs"
MANIFEST = json.loads((SPECS / "manifest.json").read_text())["models"]


def test_manifest_covers_every_specified_model():
    want = {(p, None, sc.label()) for p in SPECIFIED for sc in DEFAULTS[p]}
    want |= {(m.protocol, n, MUTANT_SCENARIOS[n].label()) for n, m in MUTANTS.items() if m.protocol in SPECIFIED and not m.model}
    assert {(r["protocol"], r["mutant"], r["scenario"]) for r in MANIFEST} == want
    for r in MANIFEST:
        assert (SPECS / f"{r['module']}.tla").is_file()


# A bigger row is held to both engines by the catalogue run (tests/test_invariants_tla.py).
# (a storm's graph is infinite: no count, and its violation comes within a few hundred states)
QUICK = [r for r in MANIFEST if r["rrcheck_no_reduce"] is None or r["rrcheck_no_reduce"]["states"] <= 5_000]


@pytest.mark.parametrize("row", QUICK, ids=[r["mutant"] or f"{r['protocol']}-{r['scenario']}" for r in QUICK])
def test_invariants_manifest_counts_are_the_explorers(row):
    scenario = (MUTANT_SCENARIOS[row["mutant"]] if row["mutant"]
                else next(s for s in DEFAULTS[row["protocol"]] if s.label() == row["scenario"]))
    r = run_check(row["protocol"], scenario, row["mutant"], reduce=False).result
    assert r.verdict == row["result"]
    assert (r.violation.property if r.violation else None) == row["property"]
    if row["result"] == "pass":
        assert (row["distinct_states"], row["states_generated"]) == (r.states, r.transitions + 1)


def test_readme_table_is_the_manifest():
    rows = re.findall(r"^\| (\S+) \| (.+?) \| (\S+) \| ([\d,–]+) \| ([\d,–]+) \| ([\d.]+|–) \|$",
                      (SPECS / "README.md").read_text(), re.M)
    table = {(who, sc): (exp, ds, gen) for who, sc, exp, ds, gen, _ in rows}
    assert len(table) == len(MANIFEST)
    for r in MANIFEST:
        exp = r["property"] or r["result"]
        fmt = (lambda x: "–" if x is None else f"{x:,}")
        assert table[(r["mutant"] or r["protocol"], r["scenario"])] == (exp, fmt(r["distinct_states"]),
                                                                       fmt(r["states_generated"]))
