"""Every step of the Python protocol is a step of the lemma's relation: the
link between a proof and the code it is about, checked step by step, not
state by state (a refinement mapping, Abadi and Lamport, "The existence of
refinement mappings", 1991; here the mapping is the lemma's ``project``).

For each transition s -a-> s' the explorer takes in a scenario, both ends
projected into the lemma's vocabulary, Z3 is asked whether some action of the
lemma (with some arguments) leads from the projection of s to that of s',
the two read as finite structures under the closed-world reading of
:func:`rrcheck.checker.symbolic.project.failing_conjuncts` (rigid symbols from
either end; they must agree). A step that changes nothing the lemma reads is
a stutter. A step that is neither is the disagreement the proof cannot see:
the Python protocol does something the proved relation does not allow.

Projections are partial (``project`` returns None outside the lemma's
vocabulary: a crash, a second wave, say); the steps with an end outside are
counted as ``unprojected``, so a report says how much of the graph it saw.
"""
from __future__ import annotations

import itertools
import time
from collections import Counter
from dataclasses import dataclass, field

import z3

from rrcheck.checker.model.scenarios import Scenario, make_system
from rrcheck.checker.symbolic.core import TIMEOUT_MS, Lemma, Vocab, frame, solved
from rrcheck.checker.symbolic.project import ClosedWorld, Structure, transitions
from rrcheck.checker.symbolic.reach import trace_to


# Per lemma, the scenarios (and protocols) whose steps are held to its relation. Four
# projections read failure-free states (a crash is outside the vocabulary of theorem1,
# chandy-lamport, log-end and hmpl); pessimism's read the failure, of a process or a node,
# and the survivors' steps after it, up to the first restart; replay's the rollback and the
# re-execution that re-receives in the logged order; phases' the whole restart of a group.
STEPS: dict[str, tuple[tuple[str, Scenario], ...]] = {
    "theorem1": (("correlated-set", Scenario("pingpong", 2, 1, failures=0)),
                 ("correlated-set", Scenario("pairs", failures=0))),
    "replay": (("correlated-set", Scenario("any_source_race", 3, 2, checkpoints=0, crash_kinds=("process",))),),
    "phases": (("send-deterministic", Scenario("sd_phases", checkpoints=0, crash_kinds=("process",))),),
    "pessimism": (("rbml", Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",))),
                  ("sbml", Scenario("pingpong", 2, 2, checkpoints=0, crash_kinds=("process",))),
                  ("rbml", Scenario("node_handoff", at_sites=True, crash_kinds=("node",))),
                  ("sbml", Scenario("any_source_race", 3, 2, checkpoints=0, crash_kinds=("process",)))),
    "hmpl": (("hmpl", Scenario("ring", 2, 2, checkpoints=0, failures=0)),
             ("hmpl", Scenario("pingpong", 2, 2, checkpoints=0, failures=0))),
    "log-end": (("app-level", Scenario("c3_collectives", at_sites=True, crash_kinds=("process",), failures=0)),
                ("app-level", Scenario("c3_epochs", at_sites=True, failures=0))),
    "chandy-lamport": (("chandy-lamport", Scenario("ring", 2, 2, failures=0)),
                       ("chandy-lamport", Scenario("pingpong", 2, 2, failures=0)),
                       ("chandy-lamport", Scenario("any_source_race", 3, 2, failures=0, checkpoints=1))),
}


@dataclass
class Refinement:
    lemma: str
    protocol: str
    mutant: str | None
    scenario: str
    complete: bool = False
    states: int = 0
    steps: int = 0                  # transitions with both ends projected
    unprojected: int = 0            # transitions with an end outside the lemma's vocabulary
    recovery: int = 0               # of ``steps``, those taken after a failure
    stutters: int = 0
    actions: Counter = field(default_factory=Counter)  # lemma action -> Python steps it matched
    queries: int = 0                # distinct (pre, post) pairs asked of Z3
    cpu_seconds: float = 0.0
    unmatched: dict | None = None   # the first step no action allows: trace, action, what changed

    @property
    def refines(self) -> bool:
        return self.unmatched is None

    @property
    def vacuous(self) -> bool:
        """No step that changed what the lemma reads: nothing was held to an action."""
        return self.steps == self.stutters

    def line(self) -> str:
        what = (f"UNMATCHED at {self.unmatched['action']} after {len(self.unmatched['trace']) - 1} steps, "
                f"changing {', '.join(self.unmatched['changes'])}" if self.unmatched else
                "vacuous: every step a stutter" if self.vacuous else
                "every step is an action of the relation" + ("" if self.complete else " (search cut short)"))
        acts = ", ".join(f"{a} {k:,}" for a, k in sorted(self.actions.items()))
        return (f"  steps of {self.protocol}{' with ' + self.mutant if self.mutant else ''} on {self.scenario}: "
                f"{self.steps:,} checked ({self.recovery:,} after a failure), {self.unprojected:,} outside the vocabulary"
                f"{' (' + acts + ')' if acts else ''}: {what}")

    def as_dict(self) -> dict:
        return {"lemma": self.lemma, "protocol": self.protocol, "mutant": self.mutant, "scenario": self.scenario,
                "refines": self.refines, "vacuous": self.vacuous, "complete": self.complete, "states": self.states, "steps": self.steps,
                "recovery": self.recovery, "unprojected": self.unprojected, "stutters": self.stutters, "actions": dict(self.actions),
                "queries": self.queries, "cpu_seconds": round(self.cpu_seconds, 3), "unmatched": self.unmatched}


def _key(st: Structure) -> tuple:
    return (tuple(sorted((s, tuple(es)) for s, es in st.universe.items())),
            tuple(sorted((n, tuple(sorted(rs, key=repr))) for n, rs in st.rows.items())))


def _changes(lemma: Lemma, pre: Structure, post: Structure) -> dict:
    """What the step changed, per state symbol: rows added and removed."""
    out = {}
    for sym in lemma.state:
        a, b = pre.rows[sym.name], post.rows[sym.name]
        if a != b:
            out[sym.name] = {"added": sorted(map(repr, b - a)), "removed": sorted(map(repr, a - b))}
    return out


def match(lemma: Lemma, pre: Structure, post: Structure) -> str | None:
    """The first action of ``lemma`` that leads from ``pre`` to ``post``, or the
    first two or three in a row ("a+b"), "stutter" if no state symbol changed, or None if
    none does. Elements new in ``post`` (a message just sent) exist in ``pre``
    too, named by no state row."""
    if all(pre.rows[s.name] == post.rows[s.name] for s in lemma.state):
        return "stutter"
    S = lemma.sorts
    world = ClosedWorld(lemma, {s: tuple(dict.fromkeys(pre.universe.get(s, ()) + post.universe.get(s, ())))
                                for s in set(pre.universe) | set(post.universe)})
    # the vocabularies and the actions' formulas do not depend on the step: built once per lemma
    memo = lemma.__dict__.setdefault("_match_formulas", {})
    if not memo:
        memo["vocabs"] = Vocab(S, lemma.rigid, ""), lemma.vocab(""), lemma.vocab("'")
        memo["axioms"] = list(lemma.axioms(memo["vocabs"][0]))
    rigid, before, after = memo["vocabs"]
    facts = list(world.facts)
    for sym in lemma.rigid:
        rows = pre.rows[sym.name] | post.rows[sym.name]
        if len({args for args, _ in rows}) != len(rows) and sym.range != "bool":
            return None  # a rigid function changed its value: no action can do that
        facts += world.table(rigid, sym, rows)
    for sym in lemma.state:
        facts += world.table(before, sym, pre.rows[sym.name]) + world.table(after, sym, post.rows[sym.name])
    sv = z3.Solver()
    sv.set("timeout", TIMEOUT_MS)
    sv.add(*facts, *memo["axioms"])

    def step(a, pre_v, post_v, tag):
        key = (a.name, pre_v.suffix, post_v.suffix, tag)
        if key not in memo:
            args = [z3.Const(f"{a.name}.{pn}{tag}", S[ps]) for pn, ps in a.params]
            memo[key] = [*a.formula(rigid, pre_v, post_v, *args), *frame(lemma, pre_v, post_v, a.modifies)]
        return memo[key]

    changed = {sym.name for sym in lemma.state if pre.rows[sym.name] != post.rows[sym.name]}
    for a in lemma.actions:
        if not changed <= set(a.modifies):  # the frame keeps what an action does not modify
            continue
        sv.push()
        sv.add(*step(a, before, after, ""))
        if solved(sv) == z3.sat:
            return a.name
        sv.pop()
    # one Python handler may do two or three of the lemma's steps at once (a token that
    # completes the barrier): states of the lemma between them, over the same elements
    for k in (2, 3):
        mids = memo.setdefault(("mids", k), [lemma.vocab("~" * i) for i in range(1, k)])
        for acts in itertools.product(lemma.actions, repeat=k):
            if not changed <= {x for a in acts for x in a.modifies}:
                continue
            states = [before, *mids, after]
            sv.push()
            for i, a in enumerate(acts):
                sv.add(*step(a, states[i], states[i + 1], str(i)))
            if solved(sv) == z3.sat:
                return "+".join(a.name for a in acts)
            sv.pop()
    return None


def check_steps(name: str, scenario: Scenario, mutant: str | None = None, protocol: str | None = None,
                lemma: Lemma | None = None, max_states: int = 50_000, cpu_limit: float = 60.0) -> Refinement:
    """Every transition of ``scenario`` (the Python protocol, with ``mutant``'s
    knobs if given) against the proved relation of lemma ``name`` (or ``lemma``).
    Breadth-first, no reduction; stops at the first step no action allows."""
    from rrcheck.checker import symbolic
    mod = symbolic.module(name)
    lemma = lemma or symbolic.build(name)
    if protocol is None:
        protocol = symbolic.MUTANTS[mutant].protocol if mutant else getattr(mod, "PROTOCOLS", (mod.PROTOCOL,))[0]
    sysm, _ = make_system(protocol, scenario, mutant)
    out = Refinement(name, protocol, mutant, scenario.label())
    t0 = time.process_time()
    ghost = hasattr(mod, "ghost_step")
    proj: dict = {}

    def projection(node):
        if node not in proj:
            s, g = node
            proj[node] = mod.project(sysm, s, g) if ghost else mod.project(sysm, s)
        return proj[node]

    seen: dict = {}
    parent: dict = {}
    for k, (node, a, nxt, parent) in enumerate(transitions(mod, sysm)):
        # the CPU clock is a system call: read it every 256 transitions
        if len(parent) > max_states or k % 256 == 0 and time.process_time() - t0 > cpu_limit:
            return _done(out, parent, t0)
        if node is None:
            continue
        pre, post = projection(node), projection(nxt)
        if pre is None or post is None:
            out.unprojected += 1
            continue
        out.steps += 1
        out.recovery += node[0].failures > 0
        key = (_key(pre), _key(post))
        if key not in seen:
            out.queries += 1
            seen[key] = match(lemma, pre, post)
        got = seen[key]
        if got is None:
            out.unmatched = {"trace": [list(x) for x in trace_to(parent, node) + (a,)], "action": list(a),
                             "changes": _changes(lemma, pre, post)}
            return _done(out, parent, t0)
        if got == "stutter":
            out.stutters += 1
        else:
            out.actions[got] += 1
    out.complete = True
    return _done(out, parent, t0)


def _done(out: Refinement, parent: dict, t0: float) -> Refinement:
    out.states = len(parent)
    out.cpu_seconds = time.process_time() - t0
    return out
