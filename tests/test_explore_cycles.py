"""A search pauses Python's cycle collector (checker/explicit/explore.py, no_cycle_collection):
sound only while a search makes no reference cycles, which these searches hold it to."""
import gc

import pytest

from rrcheck.checker.explicit.check import default_plan
from rrcheck.checker.invariants import properties_for
from rrcheck.checker.model.classify import failure_free
from rrcheck.checker.explicit.explore import explore
from rrcheck.checker.invariants import Judge
from rrcheck.checker.model.scenarios import DEFAULTS, SLOW, make_system, scenario_for_mutant


def _search(protocol, scenario, mutant=None, **kw):
    system, workload = make_system(protocol, scenario, mutant)
    judge = Judge(system, properties_for(system, protocol, None), failure_free(workload).finals)
    gc.collect()
    gc.disable()  # or the collector, back on after the search, may take the garbage first
    try:
        r = explore(system, judge, progress=False, **kw)
        return r, gc.collect()
    finally:
        gc.enable()


@pytest.mark.parametrize("protocol", sorted(DEFAULTS))
def test_a_search_makes_no_reference_cycles(protocol):
    r, garbage = _search(protocol, DEFAULTS[protocol][0], max_states=20_000)
    assert r.states > 1000 and garbage == 0


@pytest.mark.sweep
@pytest.mark.parametrize("protocol,mutant,sc", [pytest.param(p, m, sc, id=i) for i, (p, m, sc) in {
    f"{m or p}:{sc.label()}": (p, m, sc) for p, m, sc in
    [(p, None, sc) for p, scs in SLOW.items() for sc in scs] + default_plan()}.items()])
def test_every_search_of_the_catalogue_makes_no_reference_cycles(protocol, mutant, sc):
    """Every protocol, scenario and mutant of the main job and the slow sweeps, their first 30,000 states."""
    r, garbage = _search(protocol, sc, mutant, max_states=30_000)
    assert r.states > 0 and garbage == 0


@pytest.mark.parametrize("mutant", ["sbml/no-event-logging", "send-deterministic/lost-on-rollback"])
def test_a_search_to_a_counterexample_makes_no_reference_cycles(mutant):
    r, garbage = _search(mutant.split("/")[0], scenario_for_mutant(mutant), mutant)
    assert r.verdict == "violation" and r.trace and garbage == 0


def test_random_walks_make_no_reference_cycles_per_state():
    _search("hmpl", DEFAULTS["hmpl"][0], strategy="random", walks=1)  # the imports it makes
    few, g_few = _search("hmpl", DEFAULTS["hmpl"][0], strategy="random", walks=5)
    many, g_many = _search("hmpl", DEFAULTS["hmpl"][0], strategy="random", walks=400)
    assert many.states > 10 * few.states and g_many == g_few


def test_workers_make_no_reference_cycles_per_state():
    """The coordinator's processes, pipes and queues hold a few cycles, as many for 500 states as for all."""
    small, g_small = _search("hmpl", DEFAULTS["hmpl"][0], workers=2, max_states=500)
    whole, g_whole = _search("hmpl", DEFAULTS["hmpl"][0], workers=2)
    assert whole.verdict == "pass" and whole.states > 10 * small.states and g_whole == g_small


def test_the_collector_is_back_on_after_a_search():
    system, workload = make_system("hmpl", DEFAULTS["hmpl"][0])
    judge = Judge(system, properties_for(system, "hmpl", None), failure_free(workload).finals)
    explore(system, judge, progress=False, max_states=100)
    assert gc.isenabled()
