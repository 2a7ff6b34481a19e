"""The detailed specs refine the papers' (specs/CoordinatedPaper.tla, written from
Bouteiller et al. 2013 §2.1-2.2 alone, under the mapping of
CoordinatedRefinement.tla; specs/SBMLPaper.tla, from Meyer 2014 §4.1.1, under
SBMLRefinement.tla), checked by TLC step by step on the default scenarios of
coordinated, Chandy-Lamport and SBML; and the check has teeth on both sides: a
detailed spec that takes a checkpoint before the network is silent, the first
reading of a rollback, Chandy-Lamport without its channel recording, SBML sending
before its RSN ACK or replaying out of RSN order (mutants Python and the spec
share) takes a step the paper's spec does not allow, and a paper spec without its
silence rule, pessimism rule or replay rule breaks its own property."""
from __future__ import annotations

import shutil

import pytest

from rrcheck.checker.model.scenarios import DEFAULTS
from rrcheck.checker.tla.model import SPECS, manifest
from rrcheck.checker.tla.refinement import check_refinement
from rrcheck.checker.tla.run import TlcMissing, java, jar
from rrcheck.cli import main

try:
    java(), jar()
except TlcMissing as e:  # pragma: no cover
    pytest.skip(str(e), allow_module_level=True)

# the 643,931 states of pingpong n=3/2 with a node crash take TLC about 10 minutes with the mapping
SLOW = {("coordinated", "pingpong n=3/2nodes f=1 c=1 node")}
BIG = {("coordinated", "ring n=3/2nodes f=1 c=0 node"), ("coordinated", "pingpong n=3/1nodes f=0 c=3")}  # ~30 s
SCENARIOS = [pytest.param(p, sc, id=f"{p}-{sc.label()}",
                          marks=pytest.mark.slow if (p, sc.label()) in SLOW else
                          (pytest.mark.slow, pytest.mark.catalogue) if (p, sc.label()) in BIG else ())
             for p in ("coordinated", "chandy-lamport") for sc in DEFAULTS[p]]
# README's test command refines the smallest scenarios (about 15 s each at most); the
# catalogue the rest up to about a minute; the slow sweeps the correlated-set models of
# 160,000 to 212,000 states (4 to 5 minutes each)
QUICK_REFINE = {("sbml", "pingpong n=2/2nodes f=1 c=0"), ("sbml", "burst n=2/2nodes f=1 c=0"),
                ("correlated-set", "pingpong n=2/1nodes f=1 c=1")}
SLOW_REFINE = {("correlated-set", "pair_and_one n=3/2nodes f=1 c=1@sites node"),
               ("correlated-set", "fig2 n=5/2nodes f=1 c=0 process"),
               ("correlated-set", "pingpong n=3/1nodes f=1 c=0 node")}


def _marks(protocol, sc):
    key = (protocol, sc.label())
    return () if key in QUICK_REFINE else pytest.mark.slow if key in SLOW_REFINE else (pytest.mark.slow,
                                                                                      pytest.mark.catalogue)


SBML_SCENARIOS = [pytest.param(sc, id=sc.label(), marks=_marks("sbml", sc)) for sc in DEFAULTS["sbml"]]
CS_SCENARIOS = [pytest.param(sc, id=sc.label(), marks=_marks("correlated-set", sc)) for sc in DEFAULTS["correlated-set"]]
# SBMLPaper.tla's pessimism (no send while a reception waits for its RSN ACK) and replay rules
PESSIMISM_RULE = "    /\\ p # q /\\ Logged(p)\n"
REPLAY_RULE = ("        /\\ IF named # {} THEN <<s, m[3]>> \\in named\n"
               "           ELSE <<s, m[3]>> \\notin NamedAfter(r, rsn)\n")
# CorrelatedSetPaper.tla's silence before a member saves its state (§3.3.3)
SET_SILENCE = ("       /\\ l.owed < 0 => \\A q \\in SetOf(p) \\ {p} :\n"
               "             /\\ wave[q] = l.wave\n"
               "             /\\ Len(sent[q][p]) = ReachedIn(l, q)\n")
# Coordinated.tla's blocking checkpoint rule: a marker came in on every channel
MARKER_RULE = "IF vol.taken \\/ Cardinality(vol.markers) < N - 1 THEN"
# CoordinatedPaper.tla's: every other process has joined, and all it sent to p arrived
SILENCE_RULE = ("       /\\ IF Blocking THEN \\A q \\in Procs \\ {p} : wave[q] = s.wave /\\ arrived[q][p] = sent[q][p] "
                "ELSE TRUE\n")


@pytest.mark.parametrize("protocol,sc", SCENARIOS)
def test_tla_coordinated_refines_the_papers_spec(protocol, sc, tmp_path):
    """Refines, on exactly the model's graph: the history variables record and
    never prune nor split a state (the manifest's distinct states and states
    generated). Not vacuously: that graph (the explorer's, unreduced, the same
    counts) takes checkpoints, rolls back to a committed line after a failure and,
    in Chandy-Lamport, delivers again messages recorded in transit."""
    from rrcheck.checker.explicit.check import run_check
    c = check_refinement(protocol, sc, progress=False)
    assert c.verdict == "refines", c.as_dict()
    row = manifest()[(protocol, None, sc.label())]
    assert (c.states, c.generated) == (row["distinct_states"], row["states_generated"])
    if sc.label() in {label for _, label in SLOW}:
        return  # 643,931 states: the explorer's witnesses are the catalogue's and check --all's
    r = run_check(protocol, sc, None, None, tmp_path, reduce=False).result
    w = r.witnesses
    assert r.states == c.states and (w.get("checkpoints", 0) > 0) == (sc.checkpoints > 0)
    if sc.failures and sc.checkpoints:
        assert w.get("rollbacks_to_a_checkpoint", 0) > 0, w
        assert protocol == "coordinated" or w.get("in_transit_restored", 0) > 0, w


def _edited(tmp_path, module, old, new):
    specs = tmp_path / "specs"
    if not specs.exists():
        shutil.copytree(SPECS, specs)
    text = (specs / f"{module}.tla").read_text()
    assert text.count(old) == 1, f"{module}.tla's rule is written otherwise now"
    (specs / f"{module}.tla").write_text(text.replace(old, new))
    return specs


def test_tla_a_checkpoint_before_the_network_is_silent_is_no_step_of_the_paper(tmp_path, monkeypatch, capsys):
    """The detailed spec's P0 checkpoints once it joins, its markers unawaited: the
    first such step is none of the paper's, and `rrcheck tla --refine` says so (exit 1)."""
    monkeypatch.setenv("RRCHECK_SPECS", str(_edited(tmp_path, "Coordinated", MARKER_RULE,
                                                     MARKER_RULE.replace("N - 1", "N - 2"))))
    c = check_refinement("coordinated", DEFAULTS["coordinated"][0], progress=False)
    assert c.verdict == "fails" and c.broken == "PaperSpec" and c.steps == 1, c.as_dict()
    assert main(["tla", "coordinated", "--scenario", "1", "--refine", "--no-progress"]) == 1
    assert "does NOT refine CoordinatedPaper: a step the paper's spec does not allow" in capsys.readouterr().out


def test_tla_the_first_reading_of_a_stale_rollback_is_no_step_of_the_paper():
    """coordinated/stale-rollback-is-a-failure, the first reading the Python model and
    the spec share (docs/findings.md §4): a survivor rolls back on a rollback it has
    recovered from, with no failure, which the paper's spec never does. The Python
    model follows TLC's whole trace, the last step a rollback's delivery."""
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    name = "coordinated/stale-rollback-is-a-failure"
    c = check_refinement("coordinated", MUTANT_SCENARIOS[name], name, progress=False)
    assert c.verdict == "fails" and c.broken == "PaperSpec", c.as_dict()
    assert len(c.events) == c.steps and c.events[-1][0] == "deliver"


def test_tla_a_paper_spec_without_its_silence_rule_keeps_a_message_in_transit(tmp_path, monkeypatch):
    """The paper's own property is not vacuous: with its silence rule dropped, and the
    detailed spec checkpointing as early, a committed line holds a message in transit."""
    _edited(tmp_path, "Coordinated", MARKER_RULE, MARKER_RULE.replace("N - 1", "N - 2"))
    monkeypatch.setenv("RRCHECK_SPECS", str(_edited(tmp_path, "CoordinatedPaper", SILENCE_RULE, "")))
    c = check_refinement("coordinated", DEFAULTS["coordinated"][0], progress=False)
    assert c.verdict == "fails" and c.broken == "PaperNoInTransitAtLine", c.as_dict()


def test_tla_chandy_lamport_without_channel_recording_is_no_step_of_the_paper():
    """chandy-lamport/no-channel-recording: a message in transit at the line reaches
    its receiver after its checkpoint and is not recorded, which the paper's
    Chandy-Lamport never does; the Python model follows TLC's whole trace."""
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    name = "chandy-lamport/no-channel-recording"
    c = check_refinement("chandy-lamport", MUTANT_SCENARIOS[name], name, progress=False)
    assert c.verdict == "fails" and c.broken == "PaperSpec", c.as_dict()
    assert len(c.events) == c.steps and c.events[-1][0] == "deliver"


@pytest.mark.parametrize("sc", SBML_SCENARIOS)
def test_tla_sbml_refines_the_thesis_spec(sc, tmp_path):
    """Every default of SBML, the node crashes beyond the thesis's fault model
    included, refines the thesis's SBML. On the whole of the model's graph: the
    history variables never prune a state, though they split some (ckLog[p] is the
    Message Log at p's checkpoint, which the model does not keep: two paths to one
    model state may have checkpointed different logs), so TLC counts at least the
    manifest's states. Not vacuously: the explorer's graph of the scenario (the same
    model) crashes, restarts, replays logged receptions and, with checkpoints, rolls
    back to one."""
    from rrcheck.checker.explicit.check import run_check
    c = check_refinement("sbml", sc, progress=False)
    assert c.verdict == "refines", c.as_dict()
    row = manifest()[("sbml", None, sc.label())]
    assert c.states >= row["distinct_states"] and c.generated >= row["states_generated"]
    w = run_check("sbml", sc, None, None, tmp_path, reduce=False).result.witnesses
    assert sc.checkpoints == 0 or w.get("checkpoints", 0) > 0, w
    if sc.failures:
        assert w.get("rollbacks", 0) > 0 and w.get("replays", 0) > 0, w
        assert sc.checkpoints == 0 or w.get("rollbacks_to_a_checkpoint", 0) > 0, w


@pytest.mark.parametrize("name,last", [
    ("sbml/send-before-rsn-ack", "step"),          # the send, its reception's RSN unacknowledged
    ("sbml/replay-out-of-rsn-order", "recv"),      # a replayed reception the log does not name
    ("sbml/no-event-logging", "recv"),             # a reception acknowledged with no RSN sent
    ("sbml/no-duplicate-suppression", "recv"),     # a duplicate delivered again
])
def test_tla_sbml_misreadings_are_no_steps_of_the_thesis(name, last):
    """Each of SBML's safety mutants, shared by the Python model and the spec, takes a
    step the thesis's SBML does not allow, at the event it is about; the Python model
    follows TLC's whole trace."""
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    c = check_refinement("sbml", MUTANT_SCENARIOS[name], name, progress=False)
    assert c.verdict == "fails" and c.broken == "PaperSpec", c.as_dict()
    assert len(c.events) == c.steps and c.events[-1][0] == last, c.events


@pytest.mark.slow
def test_tla_sbml_node_crash_breaks_the_thesis_specs_own_no_orphan():
    """docs/findings.md §1 in the thesis's own terms: with SBML's node-crash
    assumption dropped (sbml/node-crash-takes-sender-and-receiver, no knob changed),
    every step of the model is one of the thesis's SBML, and the thesis's SBML itself
    makes an orphan: a node crash takes the sender that held an RSN with its receiver,
    whose replay then sends another message than the one a survivor holds. About 2
    minutes of TLC (156,260 states): with the slow sweeps, as the mutant's own agreement."""
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    name = "sbml/node-crash-takes-sender-and-receiver"
    c = check_refinement("sbml", MUTANT_SCENARIOS[name], name, progress=False)
    assert c.verdict == "fails" and c.broken == "PaperNoOrphan", c.as_dict()
    assert len(c.events) == c.steps and c.events[-1][0] == "step" and "crash_node" in [e[0] for e in c.events]


@pytest.mark.slow
@pytest.mark.catalogue  # 35-45 s each: the mutants refine the weakened spec deep into their scenarios
@pytest.mark.parametrize("rule,name", [(PESSIMISM_RULE, "sbml/send-before-rsn-ack"),
                                       (REPLAY_RULE, "sbml/replay-out-of-rsn-order")], ids=["pessimism", "replay"])
def test_tla_the_thesis_spec_without_its_rule_makes_an_orphan(rule, name, tmp_path, monkeypatch):
    """The thesis spec's NoOrphan is not vacuous: with its pessimism rule (or its
    replay rule) dropped, the mutant that breaks that rule refines it, and the
    orphan it makes breaks the thesis spec's own NoOrphan."""
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    new = "    /\\ p # q\n" if rule == PESSIMISM_RULE else ""
    monkeypatch.setenv("RRCHECK_SPECS", str(_edited(tmp_path, "SBMLPaper", rule, new)))
    c = check_refinement("sbml", MUTANT_SCENARIOS[name], name, progress=False)
    assert c.verdict == "fails" and c.broken == "PaperNoOrphan", c.as_dict()


@pytest.mark.parametrize("sc", CS_SCENARIOS)
def test_tla_correlated_set_refines_the_papers_spec(sc, tmp_path):
    """Every default of correlated-set refines the paper's correlated sets (Bouteiller
    et al. 2013 §2.2, §3.2, §3.3.3), with the paper's NoOrphan and Theorem 1 on every
    mapped state, on exactly the model's graph (the history variables record and
    never prune nor split a state: the manifest's counts). Not vacuously: the
    explorer's graph of the scenario crashes, rolls a set back, replays logged
    receptions and, with checkpoints, rolls back to one."""
    from rrcheck.checker.explicit.check import run_check
    c = check_refinement("correlated-set", sc, timeout=1800, progress=False)
    assert c.verdict == "refines", c.as_dict()
    row = manifest()[("correlated-set", None, sc.label())]
    assert (c.states, c.generated) == (row["distinct_states"], row["states_generated"])
    if ("correlated-set", sc.label()) in SLOW_REFINE:
        return  # the explorer's witnesses of these are check --all's and the catalogue's
    w = run_check("correlated-set", sc, None, None, tmp_path, reduce=False).result.witnesses
    assert sc.checkpoints == 0 or w.get("checkpoints", 0) > 0, w
    assert w.get("rollbacks", 0) > 0 and (w.get("replays", 0) > 0 or sc.workload == "idle"), w  # idle sends nothing
    assert sc.checkpoints == 0 or w.get("rollbacks_to_a_checkpoint", 0) > 0, w


@pytest.mark.parametrize("name,last", [
    ("correlated-set/no-internal-silence", "internal"),          # a checkpoint before the set is silent
    ("correlated-set/line-before-the-set-checkpoints", "deliver"),  # a line before every member saved
    ("correlated-set/global-rollback", "deliver"),               # a process of another set rolls back
    ("correlated-set/stale-rollback-is-a-failure", "deliver"),   # a rollback no failure asks for
    # Theorem 2: a send after an internal reception the event log does not hold (fig2, about 3 minutes)
    pytest.param("correlated-set/no-internal-event-logging", "step", marks=pytest.mark.slow),
])
def test_tla_correlated_set_misreadings_are_no_steps_of_the_paper(name, last):
    """Each of correlated-set's safety mutants, shared by the Python model and the
    spec, takes a step the paper's spec does not allow, at the event it is about;
    the Python model follows TLC's whole trace."""
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    c = check_refinement("correlated-set", MUTANT_SCENARIOS[name], name, progress=False)
    assert c.verdict == "fails" and c.broken == "PaperSpec", c.as_dict()
    assert len(c.events) == c.steps and c.events[-1][0] == last, c.events


def test_tla_the_papers_correlated_sets_without_silence_break_theorem_1(tmp_path, monkeypatch):
    """The paper spec's Theorem 1 is not vacuous: with the silence of §3.3.3 dropped
    from it, the mutant that checkpoints before the set is silent refines it, and a
    line then has an internal message crossing it."""
    from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
    name = "correlated-set/no-internal-silence"
    monkeypatch.setenv("RRCHECK_SPECS", str(_edited(tmp_path, "CorrelatedSetPaper", SET_SILENCE, "")))
    c = check_refinement("correlated-set", MUTANT_SCENARIOS[name], name, progress=False)
    assert c.verdict == "fails" and c.broken == "PaperTheorem1", c.as_dict()


@pytest.mark.parametrize("argv,needle", [
    (["tla", "rbml", "--refine"], "no paper-level spec refines 'rbml'"),
    (["tla", "coordinated", "--refine", "--property", "NoOrphan"], "drop --property"),
    (["tla", "--all", "--refine"], "drop the protocol, --mutant and --refine"),
])
def test_tla_refine_usage_errors_are_one_line(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_tla_a_spec_sany_rejects_is_said_in_one_line(tmp_path, monkeypatch, capsys):
    """A paper-level spec that does not parse (here without the TLC module that gives
    it :>): the error names SANY's first complaint and where, not an empty message."""
    monkeypatch.setenv("RRCHECK_SPECS", str(_edited(tmp_path, "CorrelatedSetPaper",
                                                     "EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC\n",
                                                     "EXTENDS Naturals, Integers, Sequences, FiniteSets\n")))
    c = check_refinement("correlated-set", DEFAULTS["correlated-set"][4], progress=False)
    assert c.verdict == "error" and "Could not find declaration or definition of symbol ':>'" in c.message, c.message
    assert "module CorrelatedSetPaper" in c.message
