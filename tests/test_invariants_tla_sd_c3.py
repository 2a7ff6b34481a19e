"""specs/SendDeterministic.tla and specs/AppLevel.tla beyond the agreement
test (tests/test_invariants_tla.py runs their default scenarios and mutants):
RestartTermination catches a restart that never ends under TLC; every Fig.
5-6 line the Python module cites is marked in the spec; the commutative "sum"
reception (the reduce workload) is digested as rrcheck digests it; C3's
mutants are caught alike on collectives too."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from rrcheck.checker.model.scenarios import Scenario, make_system
from rrcheck.checker.tla.model import SPECS, model_files
from rrcheck.checker.tla.run import TlcMissing, jar, java
from rrcheck.checker.tla.values import _canon_tla, parse
from rrcheck.checker.model.workloads import M32, mix

SD = "send-deterministic"


def test_invariants_tla_sum_term_is_rrchecks_digest():
    """<<"sum", base, bag>>: the base's digest plus each payload's, as
    checker/model/system.py adds a payload under combine "sum"."""
    pay1, pay2 = '<<"pay", <<"init", 1>>, 0>>', '<<"pay", <<"rcv", <<"init", 2>>, 0, 7>>, 1>>'
    term = parse(f'<<"sum", <<"init", 0>>, (<<1, {pay1}>> :> 1 @@ <<2, {pay2}>> :> 2)>>')
    want = (mix(0) + mix(mix(1), 0) + 2 * mix(mix(mix(2), 0, 7), 1)) & M32
    assert _canon_tla(term) == want
    # and folded further like any accumulator
    assert _canon_tla(parse(f'<<"rcv", <<"sum", <<"init", 0>>, (<<1, {pay1}>> :> 1)>>, 1, 5>>')) == \
        mix((mix(0) + mix(mix(1), 0)) & M32, 1, 5)


def test_invariants_tla_restart_termination_can_fail(tmp_path):
    """TLC's RestartTermination flags a run that ends while P0 still counts
    P1's group as restarting (the Python twin:
    tests/test_invariants_send_deterministic.py): the same model from an
    initial state where P0 believes group 1 restarts, by a definition
    override of ProtoInit in the .cfg. Termination holds there: only the
    restart's own property sees it."""
    try:
        exe, tools = java(), jar()
    except TlcMissing as e:  # pragma: no cover
        pytest.skip(str(e))
    system, _ = make_system(SD, Scenario("sd_burst", failures=0, checkpoints=0))
    mc, cfg = model_files(system, SD, ("Termination", "RestartTermination"))
    mc = mc.replace("====", """Stuck0 == [RPP |-> [i \\in 1..N |-> <<0, <<>>>>], Enregistres |-> <<>>, Phase |-> 1, Date |-> 1]
StuckProtoInit(p) ==
    <<[Fresh(Stuck0, "run", 0, FALSE) EXCEPT !.Redemarrage = IF p = 0 THEN {1} ELSE {}],
      [ckpts |-> << <<0, Stuck0>> >>, line |-> 0, waves |-> 0, epoch |-> 0, known |-> [i \\in 1..NG |-> 0]]>>
====""")
    cfg = cfg.replace("CONSTANTS\n", "CONSTANTS\n  ProtoInit <- StuckProtoInit\n")
    for f in SPECS.glob("*.tla"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "MC.tla").write_text(mc)
    (tmp_path / "MC.cfg").write_text(cfg)
    (tmp_path / "tmp").mkdir()
    out = subprocess.run([exe, "-Xmx512m", f"-Djava.io.tmpdir={tmp_path / 'tmp'}", "-cp", str(tools), "tlc2.TLC",
                          "-deadlock", "-workers", "1", "-metadir", str(tmp_path / "meta"), "-config", "MC.cfg",
                          "MC.tla"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 12, out.stdout[-2000:]
    assert re.search(r"Invariant RestartTermination is violated", out.stdout)


def _cited_lines(text: str) -> set[str]:
    """The figure lines a text cites ("line 12", "lines 13–14", "lines 2, 5-6")."""
    out = set()
    for m in re.finditer(r"lines? (\d+(?:\s*[–-]\s*\d+)?(?:(?:,| and)\s*\d+(?:\s*[–-]\s*\d+)?)*)", text):
        for part in re.split(r",| and", m.group(1)):
            out.add(re.sub(r"\s", "", part).replace("–", "-"))
    return out - {""}


def test_spec_cites_every_figure_line_the_module_cites():
    """Each numbered line of Guermouche and Ropars' Figs. 5-6 that
    protocols/send_deterministic.py implements (and cites) is findable in the
    spec by the same number."""
    from rrcheck.protocols import send_deterministic
    module = _cited_lines(open(send_deterministic.__file__, encoding="utf-8").read())
    spec = _cited_lines((SPECS / "SendDeterministic.tla").read_text(encoding="utf-8"))
    assert len(module) > 40
    assert module <= spec, sorted(module - spec)


COLLECTIVES = Scenario("c3_collectives", at_sites=True, crash_kinds=("process",))


@pytest.mark.parametrize("name", ["app-level/no-stop-on-logged-sender", "app-level/no-late-logging"])
def test_invariants_tla_app_level_collective_mutants_caught_alike(name, tmp_path):
    """specs/AppLevel.tla on collectives (its default scenarios catch its
    mutants with point-to-point messages only): a process that goes on logging
    after a collective with a stopped process breaks LogEndNoBackwardCrossing
    at the joint call, and a call not logged as late leaves the recovery
    stuck; the two engines agree, and TLC's trace replays on the Python model."""
    from rrcheck.checker.traces import counterexample as T
    from rrcheck.checker.explicit.check import run_check
    from rrcheck.checker.tla import run_tla
    try:
        java(), jar()
    except TlcMissing as e:  # pragma: no cover
        pytest.skip(str(e))
    py = run_check("app-level", COLLECTIVES, name, reduce=False).result
    tlc = run_tla("app-level", COLLECTIVES, name, out=tmp_path)
    assert tlc.verdict == py.verdict == "violation"
    assert tlc.property == py.violation.property
    assert tlc.reproduced and any(e[0] == "coll_all" for e in tlc.events)
    assert T.replay(T.load(tlc.counterexample)).violation.property == tlc.property
