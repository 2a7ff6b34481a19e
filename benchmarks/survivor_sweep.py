"""Which protocol rules does no scenario reach? Each `if` of a protocol's
handlers that guards a logging, suppression or release rule becomes, in turn, a temporary mutant twice — its test forced to True,
then to False — and twice more with ``--occurrence``: the rule applied only on its first
occurrence in each process, then never on its first (an occurrence is a step of the process
in which the test holds; the count lives in the process's stable state, so a crash does not
reset it). The correct protocol's scenarios (its defaults and the
scenarios of its registered mutants; in the second pass its slow sweeps too) are searched for a violation, or a pass
that is vacuous (no checkpoint under a checkpoint bound, say). A rule
whose mutants survive every scenario is either unreached (a scenario is
missing) or equivalent (no execution can tell): each survivor must have a
reason in benchmarks/survivor_reasons.json, or the sweep exits 1.

    python benchmarks/survivor_sweep.py [--max-states N] [--seconds S] [--workers N] [--occurrence]
                                        [--survivors [--unexplained] | --explain] [MODULE ...]

Writes benchmarks/results/survivor_sweep.json (rules tried, killed, survivors
with reasons). A first pass with a small budget per scenario, then
``--survivors`` with a large one: a survivor of the first pass may only have
run out of budget. The mutants live only in a forked worker's memory: the source
files are never written.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import multiprocessing as mp
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import record  # noqa: E402  (benchmarks/record.py)
from rrcheck.checker.explicit.check import run_check  # noqa: E402
from rrcheck.checker.model.scenarios import DEFAULTS, MUTANT_SCENARIOS, SLOW  # noqa: E402
from rrcheck.protocols.base import Protocol  # noqa: E402
from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS  # noqa: E402

MODULES = ("coordinated", "correlated_set", "logging", "rbml", "send_deterministic", "app_level")
SKIP_METHODS = {"describe", "holdings", "__init__", "initial", "_fresh"}  # drawing, views, set-up
# the rules the sweep is about: logging, suppression, release (and their buffers and acknowledgements)
RULE = re.compile(r"log|late|early|suppress|dup|release|erase|\btb\b|tssn|rsn|replay|Enregistres|PasEnvoyes|"
                  r"RamasseMiette|record|(?<![a-z])ack|\bgc|drop|buffer|stale|fetch", re.I)
REASONS = Path(__file__).resolve().parent / "survivor_reasons.json"


def sites(module: str):
    """Every `if` inside a method of a protocol class of ``module``:
    (class, method, line, source of the test)."""
    mod = importlib.import_module(f"rrcheck.protocols.{module}")
    src = inspect.getsource(mod)
    tree = ast.parse(src)
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        obj = getattr(mod, cls.name, None)
        if not (isinstance(obj, type) and issubclass(obj, Protocol)):
            continue
        for fn in cls.body:
            if not isinstance(fn, ast.FunctionDef) or fn.name in SKIP_METHODS:
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.If) and not _raises(node) and RULE.search(_guarded(src, node)):
                    yield cls.name, fn.name, node.lineno, ast.get_source_segment(src, node.test)


def _guarded(src: str, node: ast.If) -> str:
    """The test and the first statement of each branch: what the `if` decides."""
    parts = [node.test, node.body[0]] + node.orelse[:1]
    return " ".join(ast.get_source_segment(src, x) or "" for x in parts)


def knob_value(test: str, protocol: str):
    """The test's value in the correct ``protocol`` when it reads only the
    protocol's knobs (``self.x`` set at construction, or a property of them), else None."""
    expr = ast.parse("(" + test.split(" (#")[0] + ")", mode="eval")
    proto = PROTOCOLS[protocol]()
    for node in ast.walk(expr):
        if isinstance(node, ast.Call):
            return None
        if isinstance(node, ast.Name) and node.id != "self":
            return None
        if isinstance(node, ast.Attribute) and not (isinstance(node.value, ast.Name) and (
                node.attr in vars(proto) or isinstance(getattr(type(proto), node.attr, None), property))):
            return None
    return bool(eval(compile(expr, "<test>", "eval"), {}, {"self": proto}))  # noqa: S307  own source


def _raises(node: ast.If) -> bool:
    """An `if` whose body only raises guards against misuse, not a protocol rule."""
    return len(node.body) == 1 and isinstance(node.body[0], ast.Raise)


class _Force(ast.NodeTransformer):
    def __init__(self, line: int, value: bool, cls: str):
        self.line, self.value, self.cls = line, value, cls

    def visit_If(self, node):
        self.generic_visit(node)
        if node.lineno == self.line:
            node.test = ast.copy_location(ast.Constant(self.value), node.test)
        return node

    def visit_Call(self, node):  # super() needs its class cell, which a lone function has not
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            node.args = [ast.Name(self.cls, ast.Load()), ast.Name("self", ast.Load())]
        return node


class _Gate(_Force):
    """The `if` at ``line`` asks :func:`_rr_gate` whether this occurrence of its rule applies."""

    def visit_If(self, node):
        ast.NodeTransformer.generic_visit(self, node)
        if node.lineno == self.line:
            node.test = ast.copy_location(ast.Call(ast.Name("_rr_gate", ast.Load()), [node.test], []), node.test)
        return node


OCCURRENCE = ("first only", "never first")
# the handlers the system model calls for one step of a process (protocols/base.py)
STEP_HANDLERS = ("on_send", "on_receive", "on_choose", "on_site", "on_collective", "on_packet", "on_internal",
                 "on_restart")


class GATE:
    """The occurrence operator's state in a forked worker: the mode, and while one
    process's step runs, whether its rule occurred before (``fired``, from its stable
    state) and whether it occurs now (``hit``)."""
    mode = None
    active = False
    fired = hit = 0
    occurrences = seconds = outside = 0  # all, those after a first, and tests that held outside any step


def _rr_gate(test) -> bool:
    if not test:
        return False
    if not GATE.active:  # an enabledness guard, evaluated in every state: no occurrence to count
        GATE.outside += 1
        return True
    GATE.hit = 1
    GATE.occurrences += 1
    GATE.seconds += GATE.fired
    if GATE.mode is None:  # counting only: the rule applies at every occurrence, as written
        return True
    return (GATE.fired == 0) == (GATE.mode == "first only")


def _counted(stab_cls):
    """``stab_cls`` with one more field, the rule's occurrences so far (0 or 1)."""
    from rrcheck.protocols.base import value
    ns = {"__annotations__": {"fired": "int"}, "fired": 0, "__module__": stab_cls.__module__,
          "__qualname__": stab_cls.__qualname__, "__doc__": stab_cls.__doc__}
    return value(type(stab_cls.__name__, (stab_cls,), ns))


def _step_handler(name: str, handler):
    from rrcheck.protocols.base import Step, replace

    def counted(self, ctx, p, *args):
        if GATE.active:  # a handler called from another: one step, one count
            return handler(self, ctx, p, *args)
        stab = args[0] if name == "on_restart" else args[1]
        GATE.active, GATE.hit, GATE.fired = True, 0, stab.fired
        try:
            st = handler(self, ctx, p, *args)
        finally:
            GATE.active = False
        fired = max(GATE.fired, GATE.hit)
        return st if st.stab.fired == fired else Step(st.vol, replace(st.stab, fired=fired), st.effects)
    return counted


def gate_occurrences(mode: str | None, classes) -> None:
    """In a forked worker: every protocol module's stable state counts the rule's
    occurrences, and every step handler of ``classes`` keeps the count."""
    GATE.mode = mode
    for m in MODULES:
        mod = importlib.import_module(f"rrcheck.protocols.{m}")
        if "Stab" in vars(mod) and mod.__name__ == mod.Stab.__module__:
            new = _counted(mod.Stab)
            for other in MODULES:  # the modules that import it construct it too
                o = importlib.import_module(f"rrcheck.protocols.{other}")
                if getattr(o, "Stab", None) is mod.Stab and o is not mod:
                    o.Stab = new
            mod.Stab = new
    for klass in classes:
        for name in STEP_HANDLERS:
            setattr(klass, name, _step_handler(name, getattr(klass, name)))


def patch(module: str, cls: str, method: str, line: int, value) -> None:
    """Replace ``cls.method`` by its copy with the `if` at ``line`` forced to
    ``value``, or gated by its occurrence (``value`` in OCCURRENCE, or None to count only)."""
    mod = importlib.import_module(f"rrcheck.protocols.{module}")
    tree = ast.parse(inspect.getsource(mod))
    klass = next(c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == cls)
    fn = next(f for f in klass.body if isinstance(f, ast.FunctionDef) and f.name == method)
    if value is None or value in OCCURRENCE:  # None: counted, not gated
        mod._rr_gate = _rr_gate
        fn = _Gate(line, value, cls).visit(fn)
    else:
        fn = _Force(line, value, cls).visit(fn)
    code = compile(ast.fix_missing_locations(ast.Module([fn], [])), mod.__file__, "exec")
    space: dict = {}
    exec(code, mod.__dict__, space)  # noqa: S102  the project's own source, one `if` changed
    setattr(getattr(mod, cls), method, space[method])


def affected(module: str, cls: str) -> list[str]:
    klass = getattr(importlib.import_module(f"rrcheck.protocols.{module}"), cls)
    return [name for name, p in PROTOCOLS.items() if issubclass(p, klass)]


BASELINE: dict = {}  # (protocol, scenario label) -> (why the correct protocol's failure rules it out, its vacuity)
WITH_SLOW = []  # set by --survivors: the second pass also searches the slow sweeps' scenarios


def catalogue(protocol: str) -> dict:
    """The protocol's scenarios by label: its defaults, its mutants' scenarios
    and, in the second pass, its slow sweeps (pytest -m slow)."""
    scs = (*DEFAULTS[protocol], *(MUTANT_SCENARIOS[n] for n, m in MUTANTS.items()
                                  if m.protocol == protocol and not m.model),
           *(SLOW.get(protocol, ()) if WITH_SLOW else ()))
    return {sc.label(): sc for sc in scs}


def scenarios(protocol: str):
    """The protocol's defaults and its mutants' scenarios, less those where the
    correct protocol itself fails (HMPL with a failure during recovery, a workload
    that is not send-deterministic): a mutant that fails there proves nothing. A
    scenario the correct protocol passes vacuously (no failure allowed) stays: a
    violation there is still a kill (a failure-free deadlock, say), a vacuous pass is not."""
    return [sc for label, sc in catalogue(protocol).items() if not BASELINE.get((protocol, label), (None, None))[0]]


def baseline(protocols, max_states: int, seconds: float) -> dict:
    out = {}
    for protocol in protocols:
        for sc in catalogue(protocol).values():
            c = run_check(protocol, sc, max_states=max_states, time_limit=seconds, anyway=True, progress=False)
            fails = f"the correct protocol fails it ({c.result.violation.property})" if c.result.violation else None
            out[(protocol, sc.label())] = (fails, c.vacuous)
    return out


def trial(job) -> dict:
    """In a forked worker: force or gate one `if`, search every scenario of every protocol it affects."""
    module, cls, method, line, test, value, max_states, seconds = job
    patch(module, cls, method, line, value)
    if value in OCCURRENCE:
        gate_occurrences(value, [PROTOCOLS[p] for p in affected(module, cls)])
    tried = []
    for protocol in affected(module, cls):
        for sc in scenarios(protocol):
            GATE.occurrences = GATE.seconds = GATE.outside = 0
            try:
                c = run_check(protocol, sc, max_states=max_states, time_limit=seconds, anyway=True,
                              progress=False)
            except Exception as e:  # the forced rule breaks the protocol's own assumptions
                return {"killed_by": {"protocol": protocol, "scenario": sc.label(),
                                      "crash": f"{type(e).__name__}: {e}"[:200]}}
            r = c.result
            if r.verdict == "violation":
                return {"killed_by": {"protocol": protocol, "scenario": sc.label(),
                                      "property": r.violation.property}}
            if c.vacuous and not BASELINE[(protocol, sc.label())][1]:  # check --all reports it: noticed
                return {"killed_by": {"protocol": protocol, "scenario": sc.label(), "vacuous": c.vacuous}}
            tried.append({"protocol": protocol, "scenario": sc.label(), "verdict": r.verdict,
                          "states": r.states}
                         | ({"occurrences": GATE.occurrences, "second_occurrences": GATE.seconds,
                             "outside_a_step": GATE.outside}
                            if value in OCCURRENCE else {}))
    return {"survived": tried}  # finish() tells an enabledness guard (no occurrence) apart


GUARD_ONLY = ("held only where no step runs (an enabledness guard, asked in every state): it has no occurrences "
              "to count; forcing it is the other operator's trial")


def key(job) -> str:
    m, c, f, _, test, v, *_ = job
    return f"{m}.{c}.{f}: if {test} -> {v}"


def operator(rule: str) -> str:
    """The operator of a row's rule key: True, False, or one of OCCURRENCE."""
    return rule.rsplit(" -> ", 1)[1]


def all_jobs(modules, max_states: int, seconds: float, operators=(True, False)) -> list:
    jobs, seen = [], {}
    for m in modules:
        for c, f, line, test in sites(m):
            n = seen[(m, c, f, test)] = seen.get((m, c, f, test), 0) + 1
            test = test if n == 1 else f"{test} (#{n})"  # the same test twice in one method
            jobs += [(m, c, f, line, test, v, max_states, seconds) for v in operators]
    return jobs


def unchanged(job) -> str | None:
    """Why the mutant of ``job`` is the correct protocol, when its test reads only
    knobs: forced to the value it has, or gated where it never holds."""
    m, c, f, _, test, v, *_ = job
    expr = ast.parse("(" + test.split(" (#")[0] + ")", mode="eval").body
    # a conjunct that reads only knobs and is False: the test never holds (gated, or forced False);
    # a disjunct that reads only knobs and is True: it always holds (forced True)
    op, settled = (ast.Or, True) if v is True else (ast.And, False)
    parts = expr.values if isinstance(expr, ast.BoolOp) and isinstance(expr.op, op) else [expr]
    for x in parts:
        if all(knob_value(ast.unparse(x), p) is settled for p in affected(m, c)):
            return f"{ast.unparse(x)} reads only knobs, {settled} in {', '.join(affected(m, c))}"
    return None


def run(jobs: list, workers: int) -> list:
    rows = []
    with mp.get_context("fork").Pool(workers, maxtasksperchild=1) as pool:
        for job, res in zip(jobs, pool.imap(trial, jobs)):
            rows.append({"rule": key(job), "module": f"protocols/{job[0]}.py", "line": job[3],
                         "budget": {"max_states": job[6], "cpu_seconds": job[7]}, **res})
            print(("KILLED  " if "killed_by" in res else "SURVIVED") + f" {key(job)}", flush=True)
    return rows


def inherited(rule: str, rules: list, reasons: dict) -> str | None:
    """An occurrence mutant only withholds its rule at some occurrences (a test that
    holds may be made False, never the reverse): where withholding it at every
    occurrence, the rule forced False, survives for a reason, that reason is its own."""
    if operator(rule) not in OCCURRENCE:
        return None
    forced = rule.rsplit(" -> ", 1)[0] + " -> False"
    if any(r["rule"] == forced and "survived" in r for r in rules) and reasons.get(forced):
        return f"as forced False (it withholds the rule at some occurrences only): {reasons[forced]}"
    return None


def finish(doc: dict) -> int:
    """Counts, the reasons as they are now, and the result file."""
    reasons = json.loads(REASONS.read_text()) if REASONS.exists() else {}
    rules = doc["rules"]
    for r in rules:
        if "survived" in r and operator(r["rule"]) in OCCURRENCE and not any(x["occurrences"] for x in r["survived"]) \
                and any(x["outside_a_step"] for x in r["survived"]):
            r.pop("survived"), r.pop("reason", None)
            r["unchanged"] = GUARD_ONLY
        if "survived" in r:
            r["reason"] = reasons.get(r["rule"]) or inherited(r["rule"], rules, reasons)
    unchanged = sum("unchanged" in r for r in rules)
    doc["tried"] = len(rules) - unchanged
    doc["unchanged_by_construction"] = unchanged
    doc["survivors"] = sum("survived" in r for r in rules)
    doc["killed"] = doc["tried"] - doc["survivors"]
    doc["unexplained"] = [r["rule"] for r in rules if "survived" in r and not r["reason"]]
    doc["by_operator"] = {op: {"tried": sum(operator(r["rule"]) == op and "unchanged" not in r for r in rules),
                               "killed": sum(operator(r["rule"]) == op and "killed_by" in r for r in rules),
                               "survivors": sum(operator(r["rule"]) == op and "survived" in r for r in rules)}
                          for op in ("True", "False", *OCCURRENCE)}
    doc["stale_reasons"] = sorted(set(reasons) - {r["rule"] for r in rules if "survived" in r})
    record.write("survivor_sweep", {k: v for k, v in doc.items() if k not in ("command", "date", "machine")})
    for u in doc["unexplained"]:
        print(f"unexplained survivor: {u}")
    return 1 if doc["unexplained"] else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="*", default=list(MODULES))
    ap.add_argument("--max-states", type=int, default=60_000)
    ap.add_argument("--seconds", type=float, default=6.0, help="CPU budget per scenario")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--occurrence", action="store_true",
                    help="the occurrence operator (first only, never first) instead of forcing each test")
    ap.add_argument("--survivors", action="store_true",
                    help="search again only the last result's survivors, with this budget")
    ap.add_argument("--unexplained", action="store_true",
                    help="with --survivors: only the survivors with no reason (survivor_reasons.json, or inherited)")
    ap.add_argument("--explain", action="store_true",
                    help="only re-read survivor_reasons.json into the last result file (no search)")
    a = ap.parse_args()
    last = record.RESULTS / "survivor_sweep.json"
    jobs = all_jobs(a.modules, a.max_states, a.seconds, OCCURRENCE if a.occurrence else (True, False))
    if a.survivors:
        WITH_SLOW.append(True)
    if not a.explain:  # forked workers inherit it
        BASELINE.update(baseline(sorted({p for j in jobs for p in affected(j[0], j[1])}), a.max_states, a.seconds))
    excluded = {f"{p}: {sc}": why for (p, sc), (why, _) in BASELINE.items() if why}
    # forcing a test that reads only knobs to the value it has in every protocol that runs it changes nothing
    same = {key(j): why for j in jobs if (why := unchanged(j))}
    if a.explain or a.survivors:
        doc = json.loads(last.read_text())
        for r in doc["rules"]:
            if "survived" in r and r["rule"] in same:
                r.pop("survived"), r.pop("reason", None)
                r["unchanged"] = same[r["rule"]]
        if a.survivors:
            # a rule no scenario completed under is an unbounded graph: a larger budget will not help;
            # a kill on a scenario the correct protocol does not pass proves nothing
            again = {r["rule"] for r in doc["rules"]
                     if ("survived" in r and any(x["verdict"] == "pass" for x in r["survived"]))
                     or ("killed_by" in r and BASELINE.get((r["killed_by"]["protocol"], r["killed_by"]["scenario"]),
                                                               (None,))[0])}
            if a.unexplained:  # a reason of its own, or one inherited from the rule forced False
                explained = {r["rule"] for r in doc["rules"] if r.get("reason")}
                again = {r for r in again if r not in explained}
            doc["excluded_scenarios"] = excluded
            new = {r["rule"]: r for r in run([j for j in jobs if key(j) in again], a.workers)}
            doc["rules"] = [new.get(r["rule"], r) for r in doc["rules"]]
            doc["second_pass"] = {"max_states_per_scenario": a.max_states, "seconds_per_scenario": a.seconds}
        return finish(doc)
    t0 = time.time()
    rows = [{"rule": key(j), "module": f"protocols/{j[0]}.py", "line": j[3], "unchanged": same[key(j)]}
            for j in jobs if key(j) in same]
    rows += run([j for j in jobs if key(j) not in same], a.workers)
    if last.exists():  # the other modules' rows, and the other operator's, stay as they were
        mine = {f"protocols/{m}.py" for m in a.modules}
        ops = {str(j[5]) for j in jobs}
        old = json.loads(last.read_text())
        rows += [r for r in old["rules"] if r["module"] not in mine or operator(r["rule"]) not in ops]
        mine_p = {p for p, _ in BASELINE}
        excluded = {**{k: v for k, v in old.get("excluded_scenarios", {}).items()
                       if k.split(": ")[0] not in mine_p}, **excluded}
    budget = {"max_states_per_scenario": a.max_states, "seconds_per_scenario": a.seconds,
              "seconds": round(time.time() - t0, 1)}
    if a.occurrence:
        doc = {k: v for k, v in old.items() if k not in ("rules", "occurrence")} if last.exists() else budget
        return finish(doc | {"occurrence": budget, "excluded_scenarios": excluded, "rules": rows})
    return finish(budget | {"occurrence": old.get("occurrence") if last.exists() else None,
                            "excluded_scenarios": excluded, "rules": rows})


if __name__ == "__main__":
    sys.exit(main())
