"""Is every rule of a spec pinned? Each IF condition of a protocol's module in
specs/ is weakened in turn in a scratch copy of specs/ (``RRCHECK_SPECS``): the
condition forced TRUE, forced FALSE, and each conjunct or disjunct of it dropped.
TLC then checks the weakened spec on its protocols' default scenarios, smallest
first, until one gives another verdict, property or count than specs/manifest.json
(the weakening is *killed* there) or TLC fails on it (killed: `rrcheck tla` exits
non-zero); one that agrees on all of them is then held to the paper-level spec
where its protocol has one (`rrcheck tla --refine`: killed if a step is none of
the paper's). One that no scenario tells apart *survives*: a scenario is missing, or
the weakened spec is equivalent on every reachable state; each survivor needs a
reason in benchmarks/spec_mutation_reasons.json, or the sweep exits 1. A kill on
a scenario of README's test command (a quick TLC agreement) is marked so.

    python benchmarks/spec_mutation_sweep.py [--module Coordinated] [--timeout S] [--max-states N]
    python benchmarks/spec_mutation_sweep.py --module M --only TEXT
    python benchmarks/spec_mutation_sweep.py --module M --reasons-only

Writes benchmarks/results/spec_mutation_sweep_M.json; with --only, the weakenings
named TEXT are judged again and their rows replaced in it. --reasons-only runs no TLC:
it holds the survivors of that file to the reasons file as it is now (a reason
written after the run), and rewrites the file's reasons and unexplained list.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.model.scenarios import DEFAULTS  # noqa: E402
from rrcheck.checker.tla import run_tla  # noqa: E402
from rrcheck.checker.tla.model import SPECIFIED, SPECS, manifest  # noqa: E402
from rrcheck.checker.tla.refinement import PAPERS, check_refinement  # noqa: E402
from rrcheck.checker.traces.counterexample import write_atomic  # noqa: E402

REASONS = Path(__file__).resolve().parent / "spec_mutation_reasons.json"
QUICK = 5_000        # tests/test_invariants_tla.py: a default this small is in README's test command
# tests/test_tla_refinement.py: the refinement checks outside README's test command
REFINE_SLOW = {("coordinated", "pingpong n=3/2nodes f=1 c=1 node")}
REFINE_CATALOGUE = {("coordinated", "ring n=3/2nodes f=1 c=0 node"), ("coordinated", "pingpong n=3/1nodes f=0 c=3"),
                    ("sbml", "ring n=2/2nodes f=1 c=1"), ("sbml", "node_handoff2 n=3/2nodes f=1 c=1@sites node")}
# a condition: IF ... THEN, over lines too
_IF = re.compile(r"\bIF\s+(.+?)\s+THEN\b", re.S)


def _split(cond: str, op: str) -> list[str]:
    """The top-level operands of ``op`` (/\\ or \\/) in ``cond``, outside parentheses."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(cond):
        c = cond[i]
        if c in "([{<":
            depth += 1 if c != "<" or cond[i:i + 2] == "<<" else 0
        elif c in ")]}>":
            depth -= 1 if c != ">" or cond[i - 1:i + 1] == ">>" else 0
        if depth == 0 and cond.startswith(op, i):
            parts.append(cond[start:i].strip())
            start = i + len(op)
            i += len(op)
            continue
        i += 1
    parts.append(cond[start:].strip())
    return [p for p in parts if p]


def weakenings(text: str, knobs: set[str]):
    """(offset, line, original condition, replacement, what) for each IF of ``text``
    outside comments; a condition, or a conjunct or disjunct, that only reads a
    knob constant is a protocol choice, not a rule, and is left as it is."""
    code = re.sub(r"\\\*[^\n]*|\(\*.*?\*\)", lambda m: " " * len(m.group(0)), text, flags=re.S)
    knob = lambda c: c.strip("~() ") in knobs  # noqa: E731
    for m in _IF.finditer(code):
        cond = m.group(1)
        if knob(cond):
            continue
        at, n = m.start(1), code.count("\n", 0, m.start(1)) + 1
        yield at, n, cond, "TRUE", "forced TRUE"
        yield at, n, cond, "FALSE", "forced FALSE"
        for op, word in (("/\\", "conjunct"), ("\\/", "disjunct")):
            parts = _split(cond, op)
            if len(parts) > 1:
                for k, part in enumerate(parts):
                    if knob(part):
                        continue
                    rest = f" {op} ".join(p for j, p in enumerate(parts) if j != k)
                    yield at, n, cond, rest, f"{word} {' '.join(part.split())!r} dropped"


def scenarios(module: str) -> list[tuple[str, object, dict]]:
    """The default scenarios of the protocols ``module`` specifies, smallest first."""
    rows = manifest()
    out = []
    for protocol, spec in SPECIFIED.items():
        if spec.module != module:
            continue
        for sc in DEFAULTS[protocol]:
            row = rows.get((protocol, None, sc.label()))
            if row and row.get("result") == "pass":
                out.append((protocol, sc, row))
    return sorted(out, key=lambda x: x[2]["distinct_states"])


def judge(module: str, text: str, runs, timeout: float) -> dict:
    """The first scenario on which the weakened module is told apart, or None."""
    specs = Path(tempfile.mkdtemp(prefix="rrcheck-specmut-"))
    try:
        shutil.copytree(SPECS, specs, dirs_exist_ok=True)
        (specs / f"{module}.tla").write_text(text)
        os.environ["RRCHECK_SPECS"] = str(specs)
        for protocol, sc, row in runs:
            c = run_tla(protocol, sc, timeout=timeout, progress=False)
            if c.verdict == "error":  # once more: a loaded machine can fail TLC for want of memory
                c = run_tla(protocol, sc, timeout=timeout, progress=False)
            how = None
            if c.verdict in ("error", "incomplete"):
                how = f"TLC {c.verdict}: {c.message.splitlines()[0][:160] if c.message else ''}"
            elif c.verdict != "pass":
                how = f"{c.property} violated"
            elif (c.states, c.generated) != (row["distinct_states"], row["states_generated"]):
                how = (f"{c.states:,} states and {c.generated:,} generated, against the manifest's "
                       f"{row['distinct_states']:,} and {row['states_generated']:,}")
            if how:
                return {"killed": True, "protocol": protocol, "scenario": sc.label(), "how": how,
                        "in_test_command": row["distinct_states"] <= QUICK}
        for protocol, sc, row in runs:  # the same graph: is every step still one of the paper's?
            if protocol in PAPERS and (protocol, sc.label()) not in REFINE_SLOW:
                r = check_refinement(protocol, sc, timeout=timeout, progress=False)
                if r.verdict == "error":
                    r = check_refinement(protocol, sc, timeout=timeout, progress=False)
                if r.verdict != "refines":
                    return {"killed": True, "protocol": protocol, "scenario": sc.label(),
                            "how": f"does not refine {PAPERS[protocol].paper}: {r.broken or r.verdict}"
                                   + (f" ({r.message.splitlines()[0][:160]})" if r.verdict == "error" and r.message
                                      else ""),
                            "in_test_command": (protocol, sc.label()) not in REFINE_CATALOGUE}
        return {"killed": False}
    finally:
        os.environ.pop("RRCHECK_SPECS", None)
        shutil.rmtree(specs, ignore_errors=True)


def explain(module: str) -> int:
    path = record.RESULTS / f"spec_mutation_sweep_{module}.json"
    if not path.is_file():
        print(f"no {path.name}: run the sweep on {module} first", file=sys.stderr)
        return 2
    doc = json.loads(path.read_text())
    reasons = json.loads(REASONS.read_text()) if REASONS.exists() else {}
    for row in doc["rows"]:
        if not row["killed"]:
            row["reason"] = reasons.get(row["mutant"])
    doc["unexplained"] = [r["mutant"] for r in doc["rows"] if not r["killed"] and not r.get("reason")]
    doc["reasons_checked"] = time.strftime("%Y-%m-%d %H:%M:%S")
    write_atomic(path, json.dumps(doc, indent=1) + "\n")
    print(f"{len(doc['unexplained'])} survivors without a reason in {REASONS.name}; rewritten {path}")
    return 1 if doc["unexplained"] else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", default="Coordinated", help="the spec module to weaken (default Coordinated)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds of TLC per scenario (default 600)")
    ap.add_argument("--max-states", type=int, default=100_000,
                    help="leave out the defaults with more states than this (default 100,000)")
    ap.add_argument("--only", metavar="TEXT",
                    help="judge only the weakenings whose name contains TEXT, and merge them into the results file")
    ap.add_argument("--reasons-only", action="store_true",
                    help="no TLC: hold the recorded survivors to the reasons file as it is now")
    args = ap.parse_args()
    module = args.module
    if args.reasons_only:
        return explain(module)
    text = (SPECS / f"{module}.tla").read_text()
    knobs = {k for s in SPECIFIED.values() if s.module == module
             for k in [*s.constants, *[v if isinstance(v, str) else v[0] for v in s.knobs.values()]]}
    runs = [r for r in scenarios(module) if r[2]["distinct_states"] <= args.max_states]
    reasons = json.loads(REASONS.read_text()) if REASONS.exists() else {}
    rows = []
    for at, n, cond, new, what in weakenings(text, knobs):
        key = f"{module}:{n}: {what}"
        if args.only and args.only not in key:
            continue
        r = judge(module, text[:at] + new + text[at + len(cond):], runs, args.timeout)
        row = {"mutant": key, "line": n, "condition": " ".join(cond.split()), "weakened": " ".join(new.split()), **r}
        if not r["killed"]:
            row["reason"] = reasons.get(key)
        rows.append(row)
        print(("KILLED   " if r["killed"] else "SURVIVES ") + key + (f"  [{r['scenario']}: {r['how']}]"
                                                                   if r["killed"] else ""), flush=True)
    path = record.RESULTS / f"spec_mutation_sweep_{module}.json"
    earlier = {}
    if args.only and path.is_file():  # the rows judged again replace theirs, in place
        old = json.loads(path.read_text())
        earlier = {"judged_again": sorted(r["mutant"] for r in rows),
                   "whole_run": old.get("whole_run") or {k: old[k] for k in ("command", "date", "machine")}}
        again = {r["mutant"]: r for r in rows}
        rows = [again.pop(r["mutant"], r) for r in old["rows"]] + list(again.values())
    survivors = [r for r in rows if not r["killed"]]
    unexplained = [r["mutant"] for r in survivors if not r.get("reason")]
    record.write(f"spec_mutation_sweep_{module}", {
        "what": f"each IF condition of specs/{module}.tla forced TRUE, forced FALSE, and each conjunct or "
                f"disjunct dropped; TLC on the module's default scenarios, smallest first, against "
                f"specs/manifest.json",
        "module": module, "scenarios": [f"{p} {sc.label()}" for p, sc, _ in runs],
        "tried": len(rows), "killed": len(rows) - len(survivors),
        "killed_in_test_command": sum(1 for r in rows if r["killed"] and r["in_test_command"]),
        "survivors": len(survivors), "unexplained": unexplained, **earlier, "rows": rows})
    if unexplained:
        print(f"{len(unexplained)} survivors without a reason in {REASONS.name}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
