"""Workloads declare their determinism class; failure-free exploration verifies it."""
import pytest

from rrcheck.checker.model import workloads as W
from rrcheck.checker.model.classify import failure_free
from rrcheck.cli import main


@pytest.mark.parametrize("name", sorted(W.WORKLOADS))
def test_declared_class_holds(name):
    w = W.make(name)
    ff = failure_free(w)
    assert ff.deadlocks == 0
    assert ff.observed == w.determinism, (name, ff)


def test_classes_are_told_apart():
    assert failure_free(W.make("ring")).observed == W.DETERMINISTIC
    reduce = failure_free(W.make("reduce"))
    assert reduce.observed == W.SEND_DETERMINISTIC and reduce.distinct_reception_orders > 1
    race = failure_free(W.make("any_source_race"))
    assert race.observed == W.NON_DETERMINISTIC and race.distinct_send_sequences == 2


def test_check_workload_command(capsys):
    assert main(["check-workload", "reduce"]) == 0
    assert "observed send-deterministic" in capsys.readouterr().out


def test_paper_figures_name_their_messages():
    assert set(W.make("fig2").labels.values()) == {"m1", "m2", "m3", "m4", "m5"}
    assert set(W.make("fig1").labels.values()) == {"m1", "m2", "m3", "m4", "m5"}
