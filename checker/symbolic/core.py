"""Inductive invariants over uninterpreted sorts, checked with Z3 in the style
of Ivy and mypyvy (Padon et al., "Ivy: safety verification by interactive
generalization", PLDI 2016; Feldman et al., "Inferring inductive invariants
from phase structures", CAV 2019 — mypyvy's ``updr``/``verify``).

A :class:`Lemma` is a transition system over a first-order vocabulary: sorts,
rigid symbols (the same in every state), state symbols (a copy per state),
``init``, named actions (each a formula over a pre-state, a post-state and its
arguments, with an explicit frame: what it does not modify is kept) and an
invariant given as named conjuncts. It is proved when every query

    Axioms ∧ Init ∧ ¬Inv_j                                  (initiation)
    Axioms ∧ Inv ∧ Action(s, s', args) ∧ ¬Inv_j(s')         (consecution)

is UNSAT. A satisfiable query is a counterexample to induction (CTI), searched
again over the smallest universe, growing the bound of one sort at a time as
mypyvy does, so the table shown is small.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Callable

import z3

from rrcheck.checker.symbolic import fragment
from rrcheck.checker.symbolic.fragment import Fragment


# --- the vocabulary -------------------------------------------------------------

_ENUMS: dict = {}

class Sorts:
    """The sorts of one lemma: uninterpreted (``DeclareSort``) unless given."""

    def __init__(self, *names: str, enums: dict[str, tuple[str, ...]] | None = None):
        self.uninterpreted = names
        self.by_name: dict[str, z3.SortRef] = {n: z3.DeclareSort(n) for n in names}
        self.enum_values: dict[str, dict[str, z3.ExprRef]] = {}
        for n, values in (enums or {}).items():
            if (n, values) not in _ENUMS:  # Z3 declares an enumeration once per context
                _ENUMS[(n, values)] = z3.EnumSort(n, list(values))
            s, consts = _ENUMS[(n, values)]
            self.by_name[n] = s
            self.enum_values[n] = dict(zip(values, consts))
        self.by_name["bool"] = z3.BoolSort()

    def __getitem__(self, name: str) -> z3.SortRef:
        return self.by_name[name]


@dataclass(frozen=True)
class Symbol:
    name: str
    args: tuple[str, ...] = ()
    range: str = "bool"


class Vocab:
    """One copy of the symbols: ``v.sent(m)`` is the Z3 application."""

    def __init__(self, sorts: Sorts, symbols: tuple[Symbol, ...], suffix: str):
        self.suffix = suffix
        self._f = {}
        for sym in symbols:
            if sym.args:
                f = z3.Function(sym.name + suffix, *[sorts[a] for a in sym.args], sorts[sym.range])
            else:
                f = z3.Const(sym.name + suffix, sorts[sym.range])
            self._f[sym.name] = f

    def __getattr__(self, name: str):
        try:
            return self.__dict__["_f"][name]
        except KeyError:
            raise AttributeError(name) from None


def consts(sorts: Sorts, sort: str, *names: str) -> list[z3.ExprRef]:
    return [z3.Const(n, sorts[sort]) for n in names]


# --- the transition system ----------------------------------------------------------

@dataclass(frozen=True)
class Action:
    """A named transition: ``params`` are (name, sort); ``formula(pre, post, *args)``
    gives the guard and the update of every symbol in ``modifies``; all other
    state symbols are framed (kept) by the core."""

    name: str
    params: tuple[tuple[str, str], ...]
    modifies: tuple[str, ...]
    formula: Callable


@dataclass
class Lemma:
    name: str
    title: str
    source: str                # authors, title, section
    protocol: str              # the Python protocol it is about (protocols/*.py)
    mutants: tuple[str, ...]   # registered knobs (protocols/mutants.py) that break it
    sorts: Sorts
    rigid: tuple[Symbol, ...]
    state: tuple[Symbol, ...]
    axioms: Callable           # (rigid Vocab) -> list of formulas
    init: Callable             # (rigid, state Vocab) -> list of formulas
    actions: tuple[Action, ...]
    conjuncts: tuple[tuple[str, Callable], ...]  # (name, (rigid, state) -> formula); safety first
    safety: tuple[str, ...]    # the conjuncts that state the property; the rest strengthen it
    knobs: dict = field(default_factory=dict)

    def vocab(self, suffix: str) -> Vocab:
        return Vocab(self.sorts, self.state, suffix)


def forall(sorts: Sorts, sig: tuple[str, ...], body: Callable) -> z3.BoolRef:
    if not sig:
        return body()
    xs = [z3.FreshConst(sorts[s], "x") for s in sig]
    return z3.ForAll(xs, body(*xs))


def frame(lemma: Lemma, pre: Vocab, post: Vocab, modifies: tuple[str, ...]) -> list[z3.BoolRef]:
    out = []
    for sym in lemma.state:
        if sym.name in modifies:
            continue
        f, g = getattr(pre, sym.name), getattr(post, sym.name)
        if sym.args:
            out.append(forall(lemma.sorts, sym.args, lambda *xs, f=f, g=g: g(*xs) == f(*xs)))
        else:
            out.append(g == f)
    return out


def update(sorts: Sorts, sym_args: tuple[str, ...], pre_f, post_f, value: Callable) -> z3.BoolRef:
    """post_f(xs) = value(xs) for all xs (``value`` may read pre_f)."""
    return forall(sorts, sym_args, lambda *xs: post_f(*xs) == value(*xs))


# --- checking ----------------------------------------------------------------------

@dataclass
class CTI:
    """A counterexample to induction (or to initiation when ``action`` is None)."""

    lemma: str
    conjunct: str
    action: str | None
    args: dict
    universe: dict[str, list[str]]
    rigid: dict
    pre: dict
    post: dict
    mutant: str | None = None
    verdict: str = ""          # real bug | missing strengthening | relation and protocol disagree | unknown
    explorer: dict = field(default_factory=dict)   # the lemma's Python twin searched for on the protocol
    projection: dict = field(default_factory=dict)  # the pre-state searched for (checker/symbolic/project.py)
    execution: dict | None = None  # a bounded execution from Init violating a safety conjunct (bmc)

    def as_dict(self) -> dict:
        return {"lemma": self.lemma, "mutant": self.mutant, "conjunct": self.conjunct,
                "action": self.action, "args": self.args, "universe": self.universe,
                "rigid": self.rigid, "pre": self.pre, "post": self.post,
                "verdict": self.verdict, "explorer": self.explorer, "projection": self.projection,
                "execution": self.execution}


@dataclass
class Outcome:
    lemma: str
    mutant: str | None
    proved: bool
    queries: int
    seconds: float             # CPU time of this process (time.process_time)
    fragment: Fragment         # computed from the queries (checker/symbolic/fragment.py)
    cti: CTI | None = None

    def as_dict(self) -> dict:
        return {"lemma": self.lemma, "mutant": self.mutant, "proved": self.proved, "queries": self.queries,
                "cpu_seconds": round(self.seconds, 3), "fragment": self.fragment.as_dict(),
                "cti": self.cti.as_dict() if self.cti else None}


MAX_UNIVERSE = 9   # elements over all uninterpreted sorts when minimising a CTI


def _bound(sorts: Sorts, sizes: dict[str, int]) -> tuple[list[z3.BoolRef], dict[str, list[z3.ExprRef]]]:
    out, elems = [], {}
    for name, k in sizes.items():
        es = [z3.Const(f"{name}{i}", sorts[name]) for i in range(k)]
        elems[name] = es
        x = z3.FreshConst(sorts[name], "b")
        out.append(z3.ForAll([x], z3.Or([x == e for e in es])))
    return out, elems


def _size_vectors(names: tuple[str, ...]):
    """Size vectors in order of total size, then lexicographically (mypyvy
    grows the bound of one sort at a time)."""
    for total in range(len(names), MAX_UNIVERSE + 1):
        for vec in itertools.product(range(1, total + 1), repeat=len(names)):
            if sum(vec) == total:
                yield dict(zip(names, vec))


def _query(lemma: Lemma, rigid: Vocab, action: Action | None, j: int):
    """The formulas of one query and what the CTI reads from its model."""
    s = lemma.sorts
    fs = list(lemma.axioms(rigid))
    pre = lemma.vocab("")
    name, conj = lemma.conjuncts[j]
    if action is None:
        fs += list(lemma.init(rigid, pre))
        fs.append(z3.Not(conj(rigid, pre)))
        return fs, pre, None, []
    post = lemma.vocab("'")
    args = [z3.Const(f"{action.name}.{pn}", s[ps]) for pn, ps in action.params]
    fs += [c(rigid, pre) for _, c in lemma.conjuncts]
    fs += list(action.formula(rigid, pre, post, *args))
    fs += frame(lemma, pre, post, action.modifies)
    fs.append(z3.Not(conj(rigid, post)))
    return fs, pre, post, args


TIMEOUT_MS = 20_000  # per query


def solved(sv: z3.Solver, timeout_ms: int = TIMEOUT_MS) -> z3.CheckSatResult:
    """``sv.check()``; Ctrl-C during it, which Z3 takes as a cancel and answers
    unknown, raised again as KeyboardInterrupt (one line at the command, not a
    verdict). Z3 may call its own timeout a cancel too: one that came only
    when the query's time was up stays unknown, unless Z3 had less than half
    of that time on a CPU (a machine that stood still, rrcheck.clock): then
    the query is asked again, twice at most."""
    budget = timeout_ms / 1000
    for _ in range(3):
        t0, c0 = time.monotonic(), time.thread_time()
        r = sv.check()
        if r != z3.unknown:
            return r
        wall, cpu = time.monotonic() - t0, time.thread_time() - c0
        if sv.reason_unknown() in ("canceled", "interrupted from keyboard") and wall < 0.9 * budget:
            raise KeyboardInterrupt
        if wall < 0.9 * budget or cpu >= 0.5 * budget:
            return r
    return r


def _solver(fs) -> z3.Solver:
    sv = z3.Solver()
    sv.set("timeout", TIMEOUT_MS)
    sv.add(*fs)
    return sv


def check(lemma: Lemma, mutant: str | None = None, minimise: bool = True) -> Outcome:
    import time
    t0 = time.process_time()
    rigid = Vocab(lemma.sorts, lemma.rigid, "")
    n = 0
    for action in (None,) + lemma.actions:
        for j in range(len(lemma.conjuncts)):
            n += 1
            fs, pre, post, args = _query(lemma, rigid, action, j)
            r = solved(_solver(fs))
            if r == z3.unsat:
                continue
            if r == z3.unknown:
                raise RuntimeError(f"Z3 answered unknown for {lemma.name}: {lemma.conjuncts[j][0]} "
                                   f"after {action.name if action else 'init'}")
            cti = _minimal_cti(lemma, rigid, action, j, fs, pre, post, args, minimise)
            cti.mutant = mutant
            return Outcome(lemma.name, mutant, False, n, time.process_time() - t0, fragment_of(lemma), cti)
    vacuous = _vacuous(lemma, rigid)
    if vacuous:
        raise AssertionError(f"{lemma.name}: {vacuous} is unsatisfiable: the proof would be vacuous")
    return Outcome(lemma.name, mutant, True, n, time.process_time() - t0, fragment_of(lemma))


def fragment_of(lemma: Lemma) -> Fragment:
    """The fragment of every query :func:`check` asks (initiation and consecution)."""
    rigid = Vocab(lemma.sorts, lemma.rigid, "")
    return fragment.of([f for action in (None,) + lemma.actions for j in range(len(lemma.conjuncts))
                        for f in _query(lemma, rigid, action, j)[0]])


def _vacuous(lemma: Lemma, rigid: Vocab) -> str | None:
    """Non-vacuity: Init is satisfiable and every action is enabled in some
    state satisfying the invariant (else an UNSAT consecution proves nothing)."""
    pre = lemma.vocab("")
    base = list(lemma.axioms(rigid))
    if solved(_solver(base + list(lemma.init(rigid, pre)))) != z3.sat:
        return "Init"
    inv = [c(rigid, pre) for _, c in lemma.conjuncts]
    for a in lemma.actions:
        post = lemma.vocab("'")
        args = [z3.Const(f"{a.name}.{pn}", lemma.sorts[ps]) for pn, ps in a.params]
        fs = base + inv + list(a.formula(rigid, pre, post, *args)) + frame(lemma, pre, post, a.modifies)
        if solved(_solver(fs)) != z3.sat:
            return f"action {a.name} under the invariant"
    return None


def _minimal_cti(lemma, rigid, action, j, fs, pre, post, args, minimise: bool) -> CTI:
    names = lemma.sorts.uninterpreted
    vectors = _size_vectors(names) if minimise else ()
    for sizes in vectors:
        bound, elems = _bound(lemma.sorts, sizes)
        sv = _solver(fs + bound)
        if solved(sv) == z3.sat:
            _fewest_facts(lemma, sv, pre, elems)
            return _read(lemma, rigid, action, j, sv.model(), pre, post, args, elems)
    sv = _solver(fs)
    solved(sv)
    m = sv.model()
    elems = {n: list(m.get_universe(lemma.sorts[n]) or []) for n in names}
    return _read(lemma, rigid, action, j, m, pre, post, args, elems)


def _fewest_facts(lemma, sv: z3.Solver, pre: Vocab, elems: dict) -> None:
    """Make every pre-state fact false, and every enumerated value its first,
    that can be (greedily, in a fixed order), as mypyvy minimises a CTI: what is
    left is what the counterexample needs, not values Z3 happened to pick, so the
    pre-state reads the same in every run."""
    enums = lemma.sorts.enum_values
    for sym in lemma.state:
        if sym.range != "bool" and sym.range not in enums:
            continue
        f = getattr(pre, sym.name)
        for xs in itertools.product(*[elems[a] for a in sym.args]):
            app = f(*xs) if sym.args else f
            sv.push()  # a fact false, an enumeration at its first value (the initial stage, say)
            sv.add(z3.Not(app) if sym.range == "bool" else app == next(iter(enums[sym.range].values())))
            if solved(sv) == z3.sat:
                sv.add(z3.BoolVal(True))  # keep it: pushed scopes stay until the model is read
                continue
            sv.pop()
    solved(sv)


class _Reader:
    """A model as tables over named elements (``proc0``, ``msg1``, ...)."""

    def __init__(self, lemma: Lemma, m: z3.ModelRef, elems: dict):
        self.lemma, self.m = lemma, m
        self.names: dict[str, str] = {}
        self.elems: dict[str, list] = {}
        self.universe: dict[str, list[str]] = {}
        for sort, es in elems.items():
            seen = []
            for e in es:
                v = m.eval(e, model_completion=True)
                if str(v) not in self.names:
                    self.names[str(v)] = f"{sort}{len(seen)}"
                    seen.append(v)
            self.elems[sort] = seen
            self.universe[sort] = [self.names[str(v)] for v in seen]

    def show(self, v):
        v = self.m.eval(v, model_completion=True)
        if z3.is_true(v):
            return True
        if z3.is_false(v):
            return False
        return self.names.get(str(v), str(v))

    def _domain(self, sort: str) -> list:
        if sort in self.elems:
            return self.elems[sort]
        return list(self.lemma.sorts.enum_values[sort].values())

    def table(self, vocab: Vocab, symbols) -> dict:
        out = {}
        for sym in symbols:
            f = getattr(vocab, sym.name)
            if not sym.args:
                out[sym.name] = self.show(f)
                continue
            rows = []
            for xs in itertools.product(*[self._domain(a) for a in sym.args]):
                v = self.show(f(*xs))
                key = ",".join(str(self.show(x)) for x in xs)
                if sym.range == "bool":
                    if v is True:
                        rows.append(key)
                else:
                    rows.append(f"{key}->{v}")
            out[sym.name] = rows
        return out


def _read(lemma, rigid, action, j, m, pre, post, args, elems) -> CTI:
    rd = _Reader(lemma, m, elems)
    return CTI(lemma.name, lemma.conjuncts[j][0], action.name if action else None,
               {pn: rd.show(a) for (pn, _), a in zip(action.params if action else (), args)},
               rd.universe, rd.table(rigid, lemma.rigid), rd.table(pre, lemma.state),
               rd.table(post, lemma.state) if post is not None else {})


# --- bounded executions from Init ------------------------------------------------

MAX_DEPTH = 8


def bmc(lemma: Lemma, max_depth: int = MAX_DEPTH, max_universe: int = 6,
        start: dict[str, int] | None = None) -> dict | None:
    """The shortest execution from Init, over the smallest universe (at least
    ``start``, e.g. the CTI's), that ends in a state violating a safety
    conjunct (a bug, not a CTI): a dict with the universe, the rigid symbols
    and the steps; None if there is none within the bounds."""
    names = lemma.sorts.uninterpreted
    for sizes in _size_vectors(names):
        if sum(sizes.values()) > max_universe:
            break
        if start and any(sizes[n] < start.get(n, 1) for n in names):
            continue
        found = _bmc(lemma, sizes, max_depth)
        if found:
            return found
    return None


def _bmc(lemma: Lemma, sizes: dict, max_depth: int) -> dict | None:
    s = lemma.sorts
    rigid = Vocab(s, lemma.rigid, "")
    bound, elems = _bound(s, sizes)
    states = [lemma.vocab("@0")]
    sv = z3.Solver()
    sv.set("timeout", TIMEOUT_MS)
    sv.add(*lemma.axioms(rigid), *bound, *lemma.init(rigid, states[0]))
    by_name = dict(lemma.conjuncts)
    safety = [by_name[n] for n in lemma.safety]
    steps = []
    for i in range(max_depth):
        pre, post = states[-1], lemma.vocab(f"@{i + 1}")
        states.append(post)
        pick = []
        for a in lemma.actions:
            args = [z3.Const(f"{a.name}@{i}.{pn}", s[ps]) for pn, ps in a.params]
            b = z3.Bool(f"take@{i}.{a.name}")
            sv.add(z3.Implies(b, z3.And(*a.formula(rigid, pre, post, *args), *frame(lemma, pre, post, a.modifies))))
            pick.append((b, a, args))
        sv.add(z3.Or([b for b, _, _ in pick]))
        steps.append(pick)
        sv.push()
        flags = [z3.Bool(f"violates@{i}.{n}") for n in lemma.safety]
        sv.add(*[f == z3.Not(c(rigid, post)) for f, c in zip(flags, safety)], z3.Or(flags))
        r = solved(sv)
        if r == z3.sat:
            m = sv.model()
            rd = _Reader(lemma, m, elems)
            trace = [{"action": None, "state": rd.table(states[0], lemma.state)}]
            for k, pick in enumerate(steps):
                b, a, args = next((b, a, args) for b, a, args in pick if z3.is_true(m.eval(b, model_completion=True)))
                trace.append({"action": a.name, "args": {pn: rd.show(x) for (pn, _), x in zip(a.params, args)},
                              "state": rd.table(states[k + 1], lemma.state)})
            broken = [n for n, f in zip(lemma.safety, flags) if z3.is_true(m.eval(f, model_completion=True))]
            return {"universe": rd.universe, "rigid": rd.table(rigid, lemma.rigid), "violates": broken,
                    "steps": trace}
        sv.pop()
    return None


def total_order(sorts: Sorts, le, sort: str) -> list[z3.BoolRef]:
    """``le`` is a total order on ``sort`` (the EPR encoding of phases and
    positions, as Ivy's ``totally_ordered`` does)."""
    x, y, z = (z3.FreshConst(sorts[sort], n) for n in "xyz")
    return [z3.ForAll([x], le(x, x)),
            z3.ForAll([x, y], z3.Implies(z3.And(le(x, y), le(y, x)), x == y)),
            z3.ForAll([x, y, z], z3.Implies(z3.And(le(x, y), le(y, z)), le(x, z))),
            z3.ForAll([x, y], z3.Or(le(x, y), le(y, x)))]
