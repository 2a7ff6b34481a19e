"""Is a counterexample to induction's pre-state reachable in the protocol
rrcheck runs?  A lemma module that defines ``project(sysm, s)`` maps a model
state of the Python protocol to a structure over the lemma's vocabulary (its
sorts' elements and a table per symbol, the CTI's own format); the explicit
explorer searches a small scenario the size of the CTI's universe
(``cti_scenario``) for a state whose projection *is* the CTI's pre-state, up to
a renaming of elements.  Elements of an open sort (``OPEN``: messages, say) that
take part in no state relation — a message not yet sent — are left out on both
sides, so a CTI over three messages matches a run of a workload with more.

Reached, and within a few Python steps from it a state breaks the CTI's
conjunct: the CTI is a **real bug** (the pre-state occurs, and the protocol does
from it what the lemma's action does). Reached, and no such state: **the
relation and the protocol disagree** (the relation allows a step the protocol
does not have).  Never reached in a complete search: a
**missing strengthening** (for that scenario's size), as mypyvy reads an
unreachable CTI.  A projection returns None for states outside the lemma's
vocabulary (a crash, a second wave), which are never a match.

Some symbols are not functions of the model state but of the run that led
to it: the header a message carried when it was sent, the first run a
replay re-creates. A lemma module that needs them keeps them as a *path
ghost* — ``ghost_init(sysm)`` and ``ghost_step(sysm, g, s, a, s2, obs)`` — and
the search walks (state, ghost) pairs; ``project(sysm, s, g)`` reads both.
A module may also build the scenario's system from the CTI itself
(``cti_system``: a workload with exactly the CTI's messages).
"""
from __future__ import annotations

import itertools
import time
from collections import Counter, deque
from dataclasses import dataclass

from rrcheck.checker.model.scenarios import Scenario, make_system
from rrcheck.checker.symbolic.reach import trace_to


@dataclass(frozen=True)
class Structure:
    """Elements per sort and, per symbol, its rows: (arguments, value); a
    relation keeps only its true rows."""

    universe: dict[str, tuple]
    rows: dict[str, frozenset]


def of_cti(lemma, cti_universe: dict, rigid: dict, pre: dict) -> Structure:
    """The CTI's rigid symbols and pre-state as a :class:`Structure` (the tables
    of :mod:`rrcheck.checker.symbolic.core`: ``"a,b"`` or ``"a,b->v"`` rows)."""
    rows = {}
    for sym in lemma.rigid + lemma.state:
        table = (rigid if sym in lemma.rigid else pre)[sym.name]
        if not sym.args:
            rows[sym.name] = frozenset({((), table)}) if sym.range != "bool" or table is True else frozenset()
            continue
        got = set()
        for r in table:
            key, _, value = r.partition("->")
            got.add((tuple(key.split(",")), value if sym.range != "bool" else True))
        rows[sym.name] = frozenset(got)
    return Structure({s: tuple(es) for s, es in cti_universe.items()}, rows)


def _active(lemma, st: Structure, open_sorts) -> Structure:
    """``st`` without the elements of open sorts that no state row names."""
    named = set()
    for sym in lemma.state:
        for args, value in st.rows[sym.name]:
            named.update(args)
            named.add(value)
    keep = {s: tuple(e for e in es if s not in open_sorts or e in named) for s, es in st.universe.items()}
    dropped = {e for s, es in st.universe.items() for e in es} - {e for es in keep.values() for e in es}
    rows = {n: frozenset(r for r in rs if not (set(r[0]) | {r[1]}) & dropped) for n, rs in st.rows.items()}
    return Structure(keep, rows)


def isomorphic(lemma, cti: Structure, concrete: Structure, open_sorts) -> bool:
    a, b = _active(lemma, cti, open_sorts), _active(lemma, concrete, open_sorts)
    if any(len(a.universe[s]) != len(b.universe.get(s, ())) for s in a.universe):
        return False
    if any(len(a.rows[n]) != len(b.rows[n]) for n in a.rows):
        return False
    # candidates: elements of one sort with the same signature, up to names
    choices = []
    for s, es in a.universe.items():
        sig_b: dict = {}
        for e in b.universe[s]:
            sig_b.setdefault(_shape(b, e), []).append(e)
        groups: dict = {}
        for e in es:
            groups.setdefault(_shape(a, e), []).append(e)
        for shape, mine in groups.items():
            theirs = sig_b.get(shape, [])
            if len(theirs) != len(mine):
                return False
            choices.append([dict(zip(mine, p)) for p in itertools.permutations(theirs)])
    for parts in itertools.product(*choices):
        f = {k: v for part in parts for k, v in part.items()}
        if all(frozenset((tuple(f[x] for x in args), f.get(v, v) if isinstance(v, str) else v)
                         for args, v in a.rows[n]) == b.rows[n] for n in a.rows):
            return True
    return False


def _shape(st: Structure, e) -> tuple:
    """The signature with element values blurred (they differ by renaming)."""
    c: Counter = Counter()
    for n, rs in st.rows.items():
        for args, value in rs:
            for i, x in enumerate(args):
                if x == e:
                    c[(n, i, _blur(st, value))] += 1
            if value == e:
                c[(n, "value")] += 1
    return tuple(sorted(c.items(), key=repr))


def _blur(st: Structure, value):
    return "·" if any(value in es for es in st.universe.values()) else value


@dataclass
class Reached:
    protocol: str
    mutant: str | None
    scenario: str
    reached: bool
    complete: bool
    states: int
    cpu_seconds: float
    trace: tuple = ()
    breaks: tuple | None = None  # from the reached pre-state, Python steps to a state breaking the CTI's conjunct

    def as_dict(self) -> dict:
        return {"protocol": self.protocol, "mutant": self.mutant, "scenario": self.scenario,
                "pre_state_reached": self.reached, "complete": self.complete, "states": self.states,
                "cpu_seconds": round(self.cpu_seconds, 3), "trace": [list(a) for a in self.trace],
                "breaks_conjunct_after": [list(a) for a in self.breaks] if self.breaks is not None else None}


def groups(cti) -> list[int]:
    """The group (one per node) of each of the CTI's processes, in name order,
    from its rigid ``same`` relation."""
    same = {tuple(r.split(",")) for r in cti.rigid["same"]}
    group: dict = {}
    for p in sorted(cti.universe["proc"]):
        group[p] = next((group[q] for q in group if (p, q) in same), len(set(group.values())))
    return list(group.values())


def program_order(p: str, rigid: dict, sent, received, dep) -> list | None:
    """Process p's program for a CTI: its receptions and sends, a reception
    before a send exactly when the send depends on it (``dep``); None if no
    order does (a causal cycle)."""
    mine = [("recv", m) for m in sorted(received) if rigid["dst"][m] == p]
    mine += [("send", m) for m in sorted(sent) if rigid["src"][m] == p]
    before = {e: {f for f in mine if f[0] == "recv" and (f[1], e[1]) in dep} if e[0] == "send"
              else {f for f in mine if f[0] == "send" and (e[1], f[1]) not in dep} for e in mine}
    out, left = [], list(mine)
    while left:
        ready = [e for e in left if not (before[e] & set(left))]
        if not ready:
            return None
        out.append(ready[0])
        left.remove(ready[0])
    return out


def system_of(protocol: str, mutant: str | None, name: str, progs, node_of, what: str, fifo: bool = True,
              **bounds):
    """The system of a workload a lemma module built from a CTI (its programs and
    placement), under the failure and checkpoint ``bounds`` of a Scenario."""
    from rrcheck.checker.model.system import System
    from rrcheck.checker.model.workloads import Workload
    from rrcheck.protocols.mutants import MUTANTS, build
    w = Workload(name, tuple(progs), "deterministic", tuple(node_of), what, fifo=fifo)
    return System(build(protocol, mutant), w, Scenario(name, **bounds).bounds(), None,
                  MUTANTS[mutant].model if mutant else None)


def cti_system(mod, cti, protocol: str, mutant: str | None):
    """The system the CTI's pre-state is searched in, and its label."""
    if hasattr(mod, "cti_system"):
        return mod.cti_system(cti, protocol, mutant)
    scenario = mod.cti_scenario(cti)
    return make_system(protocol, scenario, mutant)[0], scenario.label()


def transitions(mod, sysm):
    """Breadth-first over the (state, path ghost) pairs of ``sysm``: yields
    (node, action, next node, the BFS tree's parent links) for every transition,
    after (None, None, the initial node, links) — a dict the caller may read."""
    ghost = hasattr(mod, "ghost_step")
    init = (sysm.initial(), mod.ghost_init(sysm) if ghost else None)
    parent = {init: None}
    frontier = deque([init])
    yield None, None, init, parent
    while frontier:
        node = frontier.popleft()
        s, g = node
        for a in sysm.actions(s):
            s2, obs = sysm.step(s, a)
            nxt = (s2, mod.ghost_step(sysm, g, s, a, s2, obs) if ghost else None)
            if nxt not in parent:
                parent[nxt] = (node, a)
                frontier.append(nxt)
            yield node, a, nxt, parent


def walk(mod, sysm):
    """Each node of :func:`transitions` once, as it is found, with its projection."""
    ghost = hasattr(mod, "ghost_step")
    for node, a, nxt, parent in transitions(mod, sysm):
        if parent[nxt] == (None if node is None else (node, a)):  # the transition that found it
            s, g = nxt
            yield nxt, (mod.project(sysm, s, g) if ghost else mod.project(sysm, s)), parent


def search(protocol: str, lemma, mod, cti, mutant: str | None = None,
           max_states: int = 300_000, cpu_limit: float = 60.0) -> Reached:
    """Breadth-first search of the CTI's scenario (no reduction: every state
    is projected) for a state whose projection is the CTI's pre-state."""
    target = of_cti(lemma, cti.universe, cti.rigid, cti.pre)
    open_sorts = getattr(mod, "OPEN", ("msg",))
    sysm, label = cti_system(mod, cti, protocol, mutant)
    t0 = time.process_time()
    parent: dict = {}

    def done(reached: bool, complete: bool, node=None) -> Reached:
        return Reached(protocol, mutant, label, reached, complete, len(parent), time.process_time() - t0,
                       trace_to(parent, node) if node is not None else ())

    for k, (node, proj, parent) in enumerate(walk(mod, sysm)):
        if proj is not None and isomorphic(lemma, target, proj, open_sorts):
            out = done(True, False, node)
            out.breaks = _breaks_from(mod, sysm, node, lemma, cti.conjunct)
            return out
        # the CPU clock is a system call: read it every 256 states
        if len(parent) > max_states or k % 256 == 0 and time.process_time() - t0 > cpu_limit:
            return done(False, False)
    return done(False, True)


def _breaks_from(mod, sysm, node, lemma, conjunct: str, depth: int = 3) -> tuple | None:
    """The shortest run of at most ``depth`` Python steps from ``node`` to a state
    whose projection breaks ``conjunct`` (the protocol doing what the CTI's action
    does: one handler may be two of the relation's steps, or half of one), or None."""
    frontier, seen = [(node, ())], {node}
    for _ in range(depth):
        nxt = []
        for (s, g), path in frontier:
            for a in sysm.actions(s):
                s2, obs = sysm.step(s, a)
                n2 = (s2, mod.ghost_step(sysm, g, s, a, s2, obs) if hasattr(mod, "ghost_step") else None)
                if n2 in seen:
                    continue
                seen.add(n2)
                proj = mod.project(sysm, s2, n2[1]) if hasattr(mod, "ghost_step") else mod.project(sysm, s2)
                if proj is not None and conjunct in failing_conjuncts(lemma, proj):
                    return path + (a,)
                nxt.append((n2, path + (a,)))
        frontier = nxt
    return None


class ClosedWorld:
    """Finite structures read by Z3 as the whole interpretation: each element a
    distinct constant and every element of its sort one of them; a relation true
    exactly on its rows, a function equal to its rows' values where it has rows.
    An empty sort gets one element no row names (Z3's sorts are never empty): a
    message not yet sent."""

    def __init__(self, lemma, universe: dict):
        import z3
        S = self.sorts = lemma.sorts
        self.universe = {s: tuple(es) or (("unused", s),) for s, es in universe.items()}
        # named by the element, so that a table built for one query is the same formula in the next
        self.el = {s: {e: z3.Const(f"{s}!{e}", S[s]) for e in es} for s, es in self.universe.items()}
        self.facts = []
        for m in self.el.values():
            sort = next(iter(m.values())).sort()
            if len(m) > 1:
                self.facts.append(z3.Distinct(*m.values()))
            x = z3.FreshConst(sort, "x")
            self.facts.append(z3.ForAll([x], z3.Or([x == c for c in m.values()])))

    def value(self, sym, v):
        import z3
        if sym.range == "bool":
            return z3.BoolVal(v is True)
        if sym.range in self.el:
            return self.el[sym.range][v]
        return self.sorts.enum_values[sym.range][v]

    _tables: dict = {}

    def table(self, vocab, sym, rows) -> list:
        """The formulas that fix ``sym`` of ``vocab`` to ``rows`` (memoised: a
        step check reads each projected state as the pre-state of one query and
        the post-state of another)."""
        f = getattr(vocab, sym.name)
        key = (str(f), sym, rows, tuple(self.universe[a] for a in sym.args))
        hit = self._tables.get(key)
        if hit is None:
            if len(self._tables) > 100_000:
                self._tables.clear()
            hit = self._tables[key] = self._table(f, sym, rows)
        return hit

    def _table(self, f, sym, rows) -> list:
        import z3
        got, out = dict(rows), []
        if not sym.args:
            return [f == self.value(sym, got.get((), False))]
        for args in itertools.product(*[self.universe[a] for a in sym.args]):
            app = f(*[self.el[a][x] for a, x in zip(sym.args, args)])
            if sym.range == "bool":
                out.append(app == z3.BoolVal(args in got))
            elif args in got:
                out.append(app == self.value(sym, got[args]))
        return out


def failing_conjuncts(lemma, st: Structure) -> list[str]:
    """The conjuncts of the lemma's invariant that the finite structure ``st``
    (a projected model state) violates, with the axioms: each is asked of Z3 with
    the structure's tables as the whole interpretation (closed world). A
    structure that breaks the axioms themselves gives ``["axioms"]``."""
    import z3

    from rrcheck.checker.symbolic.core import Vocab, solved
    world = ClosedWorld(lemma, st.universe)
    rigid, state = Vocab(lemma.sorts, lemma.rigid, ""), Vocab(lemma.sorts, lemma.state, "")
    facts = list(world.facts)
    for sym in lemma.rigid + lemma.state:
        facts += world.table(rigid if sym in lemma.rigid else state, sym, st.rows[sym.name])
    base = facts + list(lemma.axioms(rigid))
    sv = z3.Solver()
    sv.add(*base)
    if solved(sv) == z3.unsat:  # the structure breaks an axiom: every conjunct would hold vacuously
        return ["axioms"]
    out = []
    for name, conj in lemma.conjuncts:  # the structure's facts are asserted once, each negated conjunct on top
        sv.push()
        sv.add(z3.Not(conj(rigid, state)))
        if solved(sv) != z3.unsat:
            out.append(name)
        sv.pop()
    return out
