"""A protocol model that raises is reported in one line, with the events that lead
to it, never as a traceback (the checker's bug or a mutant's, not the user's)."""
import pytest

from rrcheck.checker.model.classify import failure_free
from rrcheck.errors import ModelError
from rrcheck.checker.explicit.explore import explore
from rrcheck.checker.invariants import Judge
from rrcheck.checker.model.scenarios import DEFAULTS, make_system
from rrcheck.cli import main


def _raising_at_restart():
    system, workload = make_system("coordinated", DEFAULTS["coordinated"][0])

    def on_restart(ctx, p, stab):
        raise AssertionError(f"P{p} restarts")

    system.protocol.on_restart = on_restart
    return system, Judge(system, None, failure_free(workload).finals)


def test_a_model_that_raises_is_reported_with_the_events_to_it():
    system, judge = _raising_at_restart()
    with pytest.raises(ModelError, match="the model raised AssertionError: P[01] restarts") as e:
        explore(system, judge, progress=False)
    *before, last = e.value.events
    assert last[0] == "restart" and any(a[0] in ("crash", "crash_node") for a in before)
    s = system.initial()
    for a in before:
        s = system.step(s, a)[0]
    with pytest.raises(AssertionError):
        system.step(s, last)


def test_a_model_that_raises_on_a_worker_is_reported_without_a_path():
    system, judge = _raising_at_restart()
    with pytest.raises(ModelError, match="P[01] restarts") as e:
        explore(system, judge, workers=2, progress=False)
    assert e.value.events == []


def test_the_cli_says_it_in_one_line(monkeypatch, capsys):
    def run_check(*a, **k):
        raise ModelError("the model raised AssertionError: P1 restarts", [("crash", 1), ("restart", 1)])

    monkeypatch.setattr("rrcheck.checker.explicit.check.run_check", run_check)
    assert main(["check", "coordinated", "--scenario", "1", "--no-progress"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and 'after the events [["crash", 1], ["restart", 1]]' in err[0] and "Traceback" not in err[0]
