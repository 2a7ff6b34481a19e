import functools
import importlib.util
import json
from pathlib import Path

import pytest

# Beyond the guard (`pytest -k invariants`: every protocol on its default scenarios, every
# mutant caught, the lemmas' twins and step links): the other engines and real MPI, each under
# its own marker.
# README's test command (`-m 'not slow'`) runs them all; pyproject's addopts leave them out.
ENGINES = {"test_invariants_stateful.py": "fuzz", "test_invariants_tla.py": "tla",
           "test_invariants_tla_sd_c3.py": "tla", "test_tla_each_property_alone.py": "tla",
           "test_runtime_invariants_mpi.py": "mpi",
           "test_runtime_invariants_apps.py": "mpi", "test_runtime_invariants_predict.py": "mpi",
           "test_parallel_mpi.py": "mpi", "test_predict_invariants_synthetic.py": "sweep"}
# sweeps, the engine's and the checker's soundness rather than a protocol's: every mutant again without
# the reductions, and the default scenarios' terminal states with and without them; every lemma's CTI
# looked for among reachable states (and a relation edited by hand, told from a bug; the step links still
# open); the Z3 encoding's own checks (projected states against the whole invariant, now that every step
# is held to the relation; bounded search of the correct relation; the guards a proof needs; the fragment
# of every lemma's queries) and the
# prove command's output; every property switched off in turn; random walks (an engine's strategy) on
# Guermouche and Ropars' Fig. 2; and the figure beyond the default scenarios that the main job
# (rrcheck check --all) checks as well
SWEEPS = ("test_invariants_reductions_keep_the_verdict", "test_invariants_reductions_keep_terminal_states",
          "test_invariants_mutant_cti_is_classified_by_its_pre_state",
          "test_invariants_correlated_set_two_sets_checkpoint_per_set_node_crash",
          "test_invariants_cti_of_a_relation_the_protocol_lacks_says_they_disagree",
          "test_invariants_guard_notices_a_property_switched_off",
          "test_invariants_every_python_step_of_the_wider_scenarios",
          "test_invariants_projected_states_satisfy_the_inductive_invariant",
          "test_invariants_symbolic_correct_has_no_short_violation", "test_invariants_symbolic_proofs_need_their_guards",
          "test_invariants_fragment_of_every_lemma",
          "test_cli_prove_refine", "test_cli_prove_mutant_saves_cti",
          "test_invariants_send_deterministic_fig2_random_walks",
          # SBML's node-crash finding through the pessimism lemma's twin, an unreduced search of 45 steps; the
          # guard catches the same execution as the entry's own check, and its CTI as a real bug (the steps test)
          "test_invariants_symbolic_twin_fails_for_mutant[pessimism-sbml/node-crash-takes-sender-and-receiver]")

# The longest tests outside the guard (over 12 s each from a fresh clone on 2 cores,
# 2026-11-29; 780 s of 3,225) run with the catalogue, which CI runs after README's test
# command, so that the command stays under 20 minutes. TLC's agreement on each protocol's
# cheapest default and README's commands from elsewhere stay in it.
LONG = ("test_runtime_invariants_rollback_storm_breaks_recovery_bound_on_a_real_run",
        "test_runtime_invariants_large_messages_replayed_from_the_sender_log_kill",
        "test_cli_prove_refine", "test_theorem2_under_node_crashes", "test_tla_protocol_checks_each_default_scenario",
        "test_ctrl_c_saves_and_recover_finishes", "test_ctrl_c_saves_a_parallel_search_and_recover_finishes",
        "test_invariants_stateful_mutant_agrees_with_explicit_search[hmpl/failure-during-recovery]",
        "test_invariants_stateful_catches_mutant_at_twice_the_size[send-deterministic/told-again-names-only-the-teller]",
        "test_invariants_stateful_catches_mutant_at_twice_the_size[send-deterministic/lost-on-rollback]",
        "test_invariants_mutant_cti_is_classified_by_its_pre_state[pessimism-rbml/send-before-logged]",
        "test_invariants_mutant_cti_is_classified_by_its_pre_state[pessimism-sbml/send-before-rsn-ack]",
        "test_invariants_mutant_cti_is_classified_by_its_pre_state[phases-send-deterministic/no-phases]",
        "test_invariants_projected_states_satisfy_the_inductive_invariant[phases-send-deterministic]",
        "test_invariants_every_python_step_of_the_wider_scenarios[chandy-lamport-any_source_race",
        "test_invariants_symbolic_twin_fails_for_mutant[pessimism-sbml/node-crash-takes-sender-and-receiver]",
        "test_invariants_reductions_keep_the_verdict[sbml/node-crash-takes-sender-and-receiver]",
        "test_tla_coordinated_refines_the_papers_spec[coordinated-ring", "test_tla_coordinated_refines_the_papers_spec[chandy-lamport-ring",
        "test_tla_sbml_refines_the_thesis_spec[burst", "test_tla_correlated_set_refines_the_papers_spec[pingpong",
        "test_tla_sbml_misreadings_are_no_steps_of_the_thesis[sbml/replay-out-of-rsn-order-recv]")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """One line, not a traceback, in a Python without the project; and the guard on
    two processes when pytest-xdist is there (unless -n is given; not on its workers)."""
    missing = [m for m in ("rrcheck.checker.explicit.check", "z3", "hypothesis") if not _importable(m)]
    if missing:
        raise pytest.UsageError(f"{', '.join(missing)} cannot be imported in this Python: install the "
                                "project first, python -m pip install -e '.[test]'")
    if (getattr(config.option, "numprocesses", False) is None and not hasattr(config, "workerinput")
            and not config.option.collectonly):
        config.option.numprocesses, config.option.dist = 2, "loadgroup"


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # a parent package is missing
        return False


# Tests that explore the same scenarios share a worker, so that the session's memo
# (`checked`) explores each scenario once for all of them: a group, and the names
# (or name prefixes) of its tests. A mutant's group is the one its own tests have.
_DEFAULT = "test_invariants_protocol_passes_default_scenario["
SHARED = {
    "mutant:hmpl/no-wildcard-block": (_DEFAULT + "hmpl-", "test_invariants_first_default_reaches_every_failure_moment[hmpl]",
                                      "test_invariants_receiver_logging_moments_on_every_default[hmpl]",
                                      "test_invariants_hmpl_wildcard_rule"),
    "defaults:rbml": (_DEFAULT + "rbml-", "test_invariants_first_default_reaches_every_failure_moment[rbml]",
                      "test_invariants_receiver_logging_moments_on_every_default[rbml]"),
    "defaults:sbml": (_DEFAULT + "sbml-", "test_invariants_first_default_reaches_every_failure_moment[sbml]",
                      "test_invariants_sbml_thesis_flow"),
    "mutant:send-deterministic/ack-at-next-message": (_DEFAULT + "send-deterministic-sd_ack ",
                                                      "test_invariants_send_deterministic_ack_names_the_committed"),
    "mutant:send-deterministic/checkpoint-holds-a-message-past-its-cause": (
        _DEFAULT + "send-deterministic-sd_path_back ", _DEFAULT + "send-deterministic-sd_orphan_path ",
        "test_invariants_send_deterministic_group_line_past_its_cause"),
    "send-deterministic:two-failures": (_DEFAULT + "send-deterministic-ring n=2/2nodes f=2 ",
                                        "test_invariants_send_deterministic_two_failures_with_a_group_checkpoint"),
    "mutant:app-level/replay-in-arrival-order": ("test_invariants_app_level_replay_matches_logged_message_ids",),
    "app-level:c3_two_epochs": (_DEFAULT + "app-level-c3_two_epochs ", "test_invariants_app_level_two_epochs_failure_in_each"),
    "mutant:correlated-set/no-internal-event-logging": (_DEFAULT + "correlated-set-fig2 ",
                                                        "test_invariants_theorem2_on_the_papers_figure_2"),
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        mark = ENGINES.get(item.path.name) or ("sweep" if item.name.startswith(SWEEPS) else None)
        if mark:
            item.add_marker(getattr(pytest.mark, mark))
        if item.name.startswith(LONG):
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.catalogue)
        for group, names in SHARED.items():
            if item.name.startswith(names):
                item.add_marker(pytest.mark.xdist_group(group))
    # the longest TLC agreements first, so that no worker is left with one at the end
    # (xdist hands out tests in this order; the same on every worker)
    items.sort(key=lambda item: -_tlc_seconds(item))
    if hasattr(config, "workerinput") and getattr(config.option, "loadgroup", False):
        _name_groups(items)


def _tlc_seconds(item) -> float:
    """TLC's wall time on the model of an agreement test (specs/manifest.json), else 0."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    if item.path.name != "test_invariants_tla.py" or not params:
        return 0.0
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    from rrcheck.protocols.mutants import MUTANTS
    if "protocol" in params and hasattr(params.get("scenario"), "label"):
        key = (params["protocol"], None, params["scenario"].label())
    elif params.get("name") in MUTANTS:
        key = (MUTANTS[params["name"]].protocol, params["name"], MUTANT_SCENARIOS[params["name"]].label())
    else:
        return 0.0
    return _tlc_wall().get(key, 0.0)


@functools.cache
def _tlc_wall() -> dict:
    rows = json.loads((Path(__file__).resolve().parents[1] / "specs" / "manifest.json").read_text())["models"]
    return {(r["protocol"], r["mutant"], r["scenario"]): r.get("tlc_seconds_wall") or 0.0 for r in rows}


def _name_groups(items) -> None:
    """What pytest-xdist's loadgroup does on a worker, for pytest 9: the scheduler
    groups tests by an "@group" suffix of their node id, which xdist 3.8 writes to
    ``item._nodeid`` while pytest 9 reads the id from ``item._id`` — so without
    this no two tests of a group shared a worker."""
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9: xdist renames the item itself
        return
    for item in items:
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                         for m in item.iter_markers("xdist_group")})
        if groups and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")


@pytest.fixture(scope="session")
def checked(tmp_path_factory):
    """Memoised checks: a scenario explored once per session, its counterexample (if
    any) written once to a directory of the session's, whether or not ``out`` is asked."""
    from rrcheck.checker.explicit.check import run_check
    cache, out_dir = {}, tmp_path_factory.mktemp("checked")

    def get(protocol, scenario, mutant=None, properties=None, out=None, reduce=True):
        key = (protocol, scenario, mutant, tuple(properties or ()), reduce)
        if key not in cache:
            cache[key] = run_check(protocol, scenario, mutant, properties, out_dir / str(len(cache)), reduce=reduce)
        return cache[key]
    return get


# "A marker of the next wave overtaking this wave's commit implies it" (Coordinated.tla,
# the rule coordinated/next-wave-marker-dropped drops): a copy of specs/ without it, where
# such a marker is always dropped, and the scenario where it decides (TLC finds Termination
# violated there, 13 steps of its trace the Python model follows)
NEXT_WAVE_RULE = "(w < vol.wave \\/ ~NextWaveCommits)"


@pytest.fixture
def specs_without_next_wave_commit(tmp_path):
    import shutil
    from rrcheck.checker.tla.model import SPECS
    weak = tmp_path / "specs"
    shutil.copytree(SPECS, weak)
    text = (weak / "Coordinated.tla").read_text()
    assert text.count(NEXT_WAVE_RULE) == 1, "Coordinated.tla's next-wave rule is written otherwise now"
    (weak / "Coordinated.tla").write_text(text.replace(NEXT_WAVE_RULE, "TRUE"))
    return weak
