"""A counterexample to induction as a small table: the universe, the rigid
symbols, then each state symbol before and after the action (changes marked)."""
from __future__ import annotations

from rrcheck.checker.symbolic.core import CTI, Outcome


def _cell(v) -> str:
    if isinstance(v, list):
        return "{" + ", ".join(v) + "}"
    return str(v)


def cti_table(c: CTI) -> str:
    lines = []
    where = f"after {c.action}({', '.join(f'{k}={v}' for k, v in c.args.items())})" if c.action else "at Init"
    lines.append(f"  counterexample to induction: conjunct {c.conjunct} fails {where}")
    lines.append("  universe: " + "; ".join(f"{s} = {{{', '.join(es)}}}" for s, es in c.universe.items()))
    for name, v in c.rigid.items():
        lines.append(f"  {name:<22} {_cell(v)}")
    w = max([len(_cell(v)) for v in c.pre.values()] + [10])
    lines.append(f"  {'symbol':<22} {'pre-state':<{w}}  post-state")
    for name, v in c.pre.items():
        after = c.post.get(name, "")
        mark = "" if not c.post or after == v else "   *"
        lines.append(f"  {name:<22} {_cell(v):<{w}}  {_cell(after) if c.post else ''}{mark}")
    if c.execution:
        lines.append(execution_table(c.execution))
    if c.verdict and c.projection:
        e = c.projection
        how = (f"the explorer reaches the pre-state, projected to the lemma's vocabulary, in {len(e['trace'])} "
               f"steps ({e['scenario']}), " + (
                   f"and {len(e['breaks_conjunct_after'])} step(s) from it break {c.conjunct}"
                   if e.get("breaks_conjunct_after") is not None
                   else f"but no run of three steps from it breaks {c.conjunct}")
               if e["pre_state_reached"] else
               f"no state of {e['scenario']} projects to the pre-state ({e['states']:,} states, "
               f"{'complete' if e['complete'] else 'search cut short'})"
               + (", yet the relation breaks the lemma from Init (the execution above)" if c.execution else ""))
        lines.append(f"  verdict: {c.verdict} — {how}")
    elif c.verdict:
        e = c.explorer
        how = (f"the explorer reaches a violating state of the Python protocol in {len(e['trace'])} steps "
               f"({e['scenario']}): {e['message']}" if c.verdict == "real bug" else
               f"no state of {e['scenario']} violates the twin ({e['states']} states, "
               f"{'complete' if e['complete'] else 'search cut short'})")
        lines.append(f"  verdict: {c.verdict} — {how}")
    if c.verdict and c.projection and c.explorer:
        e = c.explorer
        lines.append("  the lemma on the protocol: " + (
            f"violated in {len(e['trace'])} steps ({e['scenario']}): {e['message']}" if e["violated"] else
            f"holds on {e['states']:,} states of {e['scenario']}"
            f"{'' if e['complete'] else ' (search cut short)'}"))
    return "\n".join(lines)


def execution_table(ex: dict) -> str:
    """A bounded execution from Init: each step's action and what it changed."""
    lines = [f"  execution from Init violating {', '.join(ex['violates'])} "
             f"(universe: {'; '.join(f'{s} = {{{chr(44).join(es)}}}' for s, es in ex['universe'].items())}):"]
    lines += [f"    {name} = {_cell(v)}" for name, v in ex["rigid"].items()]
    prev = None
    for i, st in enumerate(ex["steps"]):
        state = st["state"]
        if st["action"] is None:
            shown = ", ".join(f"{k}={_cell(v)}" for k, v in state.items() if v not in ([], False))
            lines.append("    0 Init: " + (shown or "every relation empty"))
        else:
            changed = ", ".join(f"{k}={_cell(v)}" for k, v in state.items() if prev and prev[k] != v)
            args = ", ".join(f"{k}={v}" for k, v in st["args"].items())
            lines.append(f"    {i} {st['action']}({args}): {changed or '(no change)'}")
        prev = state
    return "\n".join(lines)


def outcome_line(o: Outcome) -> str:
    who = o.lemma + (f" [{o.mutant}]" if o.mutant else "")
    if o.proved:
        return f"{who}: proved ({o.queries} queries, {o.seconds:.2f} s CPU; {o.fragment.line()})"
    return f"{who}: NOT proved ({o.queries} queries, {o.seconds:.2f} s CPU)"
