"""The survivor sweep's occurrence operator (benchmarks/survivor_sweep.py,
``--occurrence``): a rule applied only on its first occurrence in each process,
or never on its first. Each check runs in a forked child, where the sweep patches
the protocol classes; the test's own process keeps the correct protocol."""
from __future__ import annotations

import multiprocessing as mp
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import survivor_sweep as S  # noqa: E402

from rrcheck.checker.model.scenarios import Scenario  # noqa: E402

COMMIT = next((c, f, line, test) for c, f, line, test in S.sites("coordinated")
              if c == "GlobalCheckpoint" and test == 'kind == "commit"')
TWO_WAVES = Scenario("ring", 3, 1, failures=0, checkpoints=2)  # each process commits twice
ONE_WAVE = Scenario("ring", 2, 2, checkpoints=1)


def _gated(mode, scenario):
    from rrcheck.checker.explicit.check import run_check
    cls, method, line, _ = COMMIT
    S.patch("coordinated", cls, method, line, mode)
    S.gate_occurrences(mode, [S.PROTOCOLS["coordinated"]])
    S.GATE.occurrences = S.GATE.seconds = 0
    r = run_check("coordinated", scenario, max_states=200_000, progress=False).result
    return r.verdict, r.states, S.GATE.occurrences, S.GATE.seconds


def _restart_keeps_the_count():
    from rrcheck.checker.model.scenarios import make_system
    from rrcheck.protocols.base import replace
    S.gate_occurrences("first only", [S.PROTOCOLS["coordinated"]])
    system, _ = make_system("coordinated", ONE_WAVE)
    proto, ctx = system.protocol, system.ctx
    _, stab = proto.initial(ctx, 0)
    return proto.on_restart(ctx, 0, replace(stab, fired=1)).stab.fired


def _in_child(fn, *args):
    with mp.get_context("fork").Pool(1) as pool:
        return pool.apply(fn, args)


def test_counting_alone_changes_nothing_but_the_count():
    """Counted, not gated: the verdict of the protocol as written (the count may
    split a state in two, never make one unreachable), and the two waves give a
    process its second commit."""
    from rrcheck.checker.explicit.check import run_check
    plain = run_check("coordinated", TWO_WAVES, progress=False).result
    verdict, states, occurrences, seconds = _in_child(_gated, None, TWO_WAVES)
    assert verdict == plain.verdict == "pass" and occurrences > 0 and seconds > 0
    assert states >= plain.states


def _trial(mode):
    cls, method, line, test = COMMIT
    S.BASELINE.update(S.baseline(["coordinated", "chandy-lamport"], 60_000, 20.0))
    return S.trial(("coordinated", cls, method, line, test, mode, 60_000, 20.0))


def test_the_sweep_kills_a_commit_applied_once_only_where_a_process_commits_twice():
    """The sweep's own trial: the first-only mutant passes every scenario with one
    wave and is killed on one with several, failure-free (the second commit left
    unhandled); the never-first mutant is killed at once."""
    once, late = _in_child(_trial, "first only"), _in_child(_trial, "never first")
    assert re.search(r" f=0 c=[23]$", once["killed_by"]["scenario"]), once
    assert late["killed_by"]["scenario"] == ONE_WAVE.label()


def test_one_wave_cannot_tell_a_commit_applied_once():
    """The operator's point: with one wave no process commits twice, so the
    first-only mutant passes there; only a scenario with a second occurrence kills it."""
    verdict, _, occurrences, seconds = _in_child(_gated, "first only", ONE_WAVE)
    assert verdict == "pass" and occurrences > 0 and seconds == 0


def test_the_count_survives_a_restart():
    """The count lives in stable state: a crash does not give the rule a new first time."""
    assert _in_child(_restart_keeps_the_count) == 1


SITE_OK = next((c, f, line, test) for c, f, line, test in S.sites("app_level")
               if f == "on_site" and test == "p != INITIATOR and vol.ok == vol.epoch + 1")
TWO_LINES = Scenario("c3_two_epochs", checkpoints=2, at_sites=True, crash_kinds=("process",))


def _site_ok_first_only():
    from rrcheck.checker.explicit.check import run_check
    cls, method, line, _ = SITE_OK
    S.patch("app_level", cls, method, line, "first only")
    S.gate_occurrences("first only", [S.PROTOCOLS["app-level"]])
    c = run_check("app-level", TWO_LINES, progress=False)
    return c.result.verdict, c.vacuous


def test_a_second_line_never_built_is_a_vacuous_pass():
    """A non-initiator that takes its checkpoint at Chkpt_Ok the first time only: every
    line ever restored is built as in C3, so no property fails, but the second line of a
    bound of two is never built. That pass is vacuous (check --all and the sweep count
    it), where the correct protocol's is not."""
    from rrcheck.checker.explicit.check import run_check
    correct = run_check("app-level", TWO_LINES, progress=False)
    assert correct.vacuous is None and correct.result.witnesses["every_process_at_the_checkpoint_bound"] > 0
    verdict, vacuous = _in_child(_site_ok_first_only)
    assert verdict == "pass" and "the last line was never built" in vacuous


def test_the_record_covers_every_rule_of_the_code_under_every_operator():
    """benchmarks/results/survivor_sweep.json: a row for each rule of the protocols as
    they are now (a rule added or rewritten since the sweep ran is missing, one removed
    is extra), forced both ways and gated both ways, and every survivor explained."""
    import json
    doc = json.loads((S.record.RESULTS / "survivor_sweep.json").read_text())
    rows = {r["rule"] for r in doc["rules"]}
    rules = {S.key(j) for j in S.all_jobs(S.MODULES, 0, 0, (True, False, *S.OCCURRENCE))}
    assert not rules - rows, f"not swept: {sorted(rules - rows)}"
    assert not rows - rules, f"swept, no longer in the code: {sorted(rows - rules)}"
    assert not doc["unexplained"]
