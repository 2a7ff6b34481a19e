"""The model's memo of local steps, enabled actions and process states is a cache:
starting it over changes nothing a search reports (docs/design.md §2)."""
import pytest

from rrcheck.checker.model import system as model
from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.scenarios import DEFAULTS


@pytest.mark.parametrize("protocol,k", [("send-deterministic", 1), ("app-level", 2), ("hmpl", 3)])
def test_a_memo_that_starts_over_changes_no_count(monkeypatch, protocol, k):
    sc = DEFAULTS[protocol][k]
    full = run_check(protocol, sc, reduce=False, progress=False).result
    monkeypatch.setattr(model, "_MEMO_LIMIT", 50)
    small = run_check(protocol, sc, reduce=False, progress=False).result
    assert (small.verdict, small.states, small.transitions, small.witnesses) == \
        (full.verdict, full.states, full.transitions, full.witnesses)
    assert full.verdict == "pass" and full.witnesses["crashes"] > 0
