"""CTI verdicts are honest (issue 37): a rule dropped from a lemma's Z3 relation
alone, the Python protocol keeping it, is reported as the relation and the protocol
disagreeing, for every lemma. Outside the guard (`-k invariants`): it checks the
prover's verdicts, not a protocol."""
import pytest

from rrcheck.checker import symbolic
from test_invariants_symbolic import GUARDS, _without  # noqa: E402  (tests/ is on the path)


@pytest.mark.parametrize("name,action,pick", GUARDS, ids=[g[0] for g in GUARDS])
def test_cti_verdict_of_a_rule_dropped_from_the_relation_alone(name, action, pick):
    """Each lemma's own rule (the proofs_need_their_guards cases) dropped from
    the Z3 relation only: the Python protocol keeps it, so the CTI is neither a
    real bug nor a missing strengthening — the verdict says the two disagree
    (the CTI's pre-state reached and nothing broken from it, or the relation
    breaking the lemma from Init where the protocol never does)."""
    o = symbolic.prove(name, lemma=_without(symbolic.build(name), action, pick), cpu_limit=60)
    assert not o.proved and o.cti.action == action, name
    assert o.cti.verdict == symbolic.DISAGREE, (name, o.cti.verdict, o.cti.projection, o.cti.explorer)
