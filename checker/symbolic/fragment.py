"""Which decidable fragment a lemma's verification conditions fall in, computed
from the very formulas Z3 is asked, not written by hand (Ivy's check: Padon,
McMillan, Panda, Sagiv, Shoham, "Ivy: safety verification by interactive
generalization", PLDI 2016, §5; the stratified extension: Padon, Losa, Sagiv,
Shoham, "Paxos made EPR", OOPSLA 2017, §3).

After Skolemization, every function symbol — a declared one (``src: msg →
proc``) or the Skolem function of an existential under universals (``∀p ∃m``
gives ``proc → msg``) — is an edge from each argument sort to its range. With
no edge at all the query is **EPR** (effectively propositional: ∃*∀* over
relations and constants); with edges and no cycle among the sorts it is
**stratified**, still decidable (finitely many ground terms per sort); a cycle
puts it **outside**: Z3 may still answer, but nothing guarantees it will.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import z3

EPR, STRATIFIED, OUTSIDE = "EPR", "stratified", "outside"


@dataclass
class Fragment:
    edges: dict = field(default_factory=dict)   # (from sort, to sort) -> the symbols that make it
    cycle: tuple = ()

    @property
    def name(self) -> str:
        return OUTSIDE if self.cycle else STRATIFIED if self.edges else EPR

    def line(self) -> str:
        """One line: the fragment and why."""
        if self.cycle:
            path = " → ".join(self.cycle)
            why = "; ".join(f"{a}→{b}: {', '.join(sorted(self.edges[(a, b)]))}"
                            for a, b in zip(self.cycle, self.cycle[1:]))
            return f"outside the decidable fragment: the sort cycle {path} ({why})"
        if self.edges:
            return "stratified: " + ", ".join(f"{a}→{b}" for a, b in sorted(self.edges)) + ", no cycle"
        return "EPR"

    def as_dict(self) -> dict:
        return {"fragment": self.name, "edges": {f"{a}->{b}": sorted(v) for (a, b), v in sorted(self.edges.items())},
                "cycle": list(self.cycle)}


def of(formulas) -> Fragment:
    """The fragment of the conjunction of ``formulas`` (each asserted as is)."""
    out = Fragment()
    seen: set = set()
    for f in formulas:
        _walk(f, 1, (), out.edges, seen)
    out.cycle = _cycle(out.edges)
    return out


def _add(edges: dict, a: str, b: str, why: str) -> None:
    edges.setdefault((a, b), set()).add(why)


def _walk(e, pol: int, univ: tuple, edges: dict, seen: set) -> None:
    """``pol``: +1 asserted, -1 negated, 0 both (under an iff); ``univ``: the
    sorts of the universals in scope after Skolemization."""
    key = (e.get_id(), pol, univ)
    if key in seen:
        return
    seen.add(key)
    if z3.is_quantifier(e):
        sorts = tuple(str(e.var_sort(i)) for i in range(e.num_vars()))
        universal = {1: e.is_forall(), -1: not e.is_forall(), 0: None}[pol]
        if universal is not True:  # existential here (or both): a Skolem function of the universals in scope
            for y in sorts:
                for x in univ:
                    _add(edges, x, y, f"Skolem ∃{y} under ∀{x}")
        inner = univ + sorts if universal is not False else univ
        _walk(e.body(), pol, tuple(sorted(set(inner))), edges, seen)
        return
    if not z3.is_app(e):
        return
    d = e.decl()
    k = d.kind()
    if k == z3.Z3_OP_UNINTERPRETED and d.arity() and not z3.is_bool(e):
        for i in range(d.arity()):
            _add(edges, str(d.domain(i)), str(d.range()), d.name())
    kids = e.children()
    if k == z3.Z3_OP_NOT:
        _walk(kids[0], -pol, univ, edges, seen)
    elif k == z3.Z3_OP_IMPLIES:
        _walk(kids[0], -pol, univ, edges, seen)
        _walk(kids[1], pol, univ, edges, seen)
    elif k in (z3.Z3_OP_AND, z3.Z3_OP_OR):
        for c in kids:
            _walk(c, pol, univ, edges, seen)
    elif k == z3.Z3_OP_ITE:
        _walk(kids[0], 0, univ, edges, seen)
        _walk(kids[1], pol, univ, edges, seen)
        _walk(kids[2], pol, univ, edges, seen)
    else:  # an iff, an equation, an atom: its boolean parts both ways
        for c in kids:
            _walk(c, 0, univ, edges, seen)


def _cycle(edges: dict) -> tuple:
    """A cycle of the sort graph, as a path that returns to its start, or ()."""
    succ: dict = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
    state: dict = {}

    def visit(v, path):
        state[v] = 1
        for w in sorted(succ.get(v, ())):
            if state.get(w) == 1:
                return tuple(path[path.index(w):]) + (w,)
            if w not in state:
                found = visit(w, path + [w])
                if found:
                    return found
        state[v] = 2
        return ()

    for v in sorted(succ):
        if v not in state:
            found = visit(v, [v])
            if found:
                return found
    return ()
