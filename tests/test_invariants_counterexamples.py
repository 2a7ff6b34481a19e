"""The curated counterexamples replay: each reproduces the violation it
records, and draws."""
from pathlib import Path

import pytest

from rrcheck.checker import trace as T
from rrcheck.checker.render import svg
from rrcheck.protocols.mutants import MUTANTS

CURATED = Path(__file__).resolve().parents[1] / "counterexamples"
FILES = sorted(CURATED.glob("*.json"))


def test_invariants_one_curated_counterexample_per_mutant():
    names = {T.load(f).mutant for f in FILES}
    assert set(MUTANTS) <= names


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_invariants_curated_counterexample_replays(path):
    cx = T.load(path)
    rep = T.replay(cx)
    assert rep.violation is not None
    assert rep.violation.property == cx.violation.property
    assert rep.steps == len(cx.events)
    assert svg(cx, rep).startswith("<svg")
