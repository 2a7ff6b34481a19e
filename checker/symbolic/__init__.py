"""rrcheck's symbolic engine: the protocols' safety lemmas proved inductively
with Z3 for any number of processes and messages (checker/symbolic/core.py),
each beside its Python twin over model states (checker/symbolic/reach.py ties
the two together). One module per lemma family.

May import: the model, the invariants, ``rrcheck.protocols`` and the leaves.
Must never import another engine, the runtime or the CLI.
"""
from __future__ import annotations

from rrcheck.errors import UsageError
from rrcheck.checker.model.scenarios import MUTANT_SCENARIOS
from rrcheck.checker.symbolic import chandy_lamport, core, hmpl, log_end, pessimism, phases, project, reach, replay, theorem1
from rrcheck.protocols.mutants import MUTANTS

LEMMAS = {m.NAME: m for m in (theorem1, replay, phases, pessimism, hmpl, log_end, chandy_lamport)}


def module(name: str):
    if name not in LEMMAS:
        raise UsageError(f"unknown lemma {name!r}; choose among {', '.join(LEMMAS)}")
    return LEMMAS[name]


def lemmas_of(mutant: str) -> list[str]:
    """The lemmas whose transition relation a mutant's knobs change."""
    if mutant not in MUTANTS:
        raise UsageError(f"unknown mutant {mutant!r}; `rrcheck list` shows them all")
    return [n for n, m in LEMMAS.items() if mutant in m.MUTANTS]


def build(name: str, mutant: str | None = None) -> core.Lemma:
    """The lemma's transition relation under the knobs of ``mutant`` (the same
    knob names, and values, as the Python protocol's)."""
    mod = module(name)
    if mutant is None:
        return mod.build()
    if mutant not in mod.MUTANTS:
        raise UsageError(f"mutant {mutant!r} does not change lemma {name!r}; its mutants: "
                         f"{', '.join(mod.MUTANTS)}")
    m = MUTANTS[mutant]
    assert m.protocol == mod.PROTOCOL or m.protocol in getattr(mod, "PROTOCOLS", ()), (mutant, name)
    knobs = {k: v for k, v in m.knobs.items() if k in mod.KNOBS}
    if m.extra.get("assumption") in mod.KNOBS:  # an entry that drops an assumption the relation states
        knobs[m.extra["assumption"]] = True
    if len(getattr(mod, "PROTOCOLS", ())) > 1:  # a relation of several protocols: the mutant's own
        knobs["protocol"] = m.protocol
    return mod.build(**knobs)


def scenario_for(name: str, mutant: str | None):
    mod = module(name)
    if mutant:
        protocol = MUTANTS[mutant].protocol
        return protocol, getattr(mod, "MUTANT_SCENARIOS", {}).get(mutant, MUTANT_SCENARIOS[mutant])
    return mod.PROTOCOL, mod.SCENARIOS[0]


def prove(name: str, mutant: str | None = None, explore: bool = True, cpu_limit: float = 60.0,
          lemma: core.Lemma | None = None) -> core.Outcome:
    """Check the lemma (or ``lemma``, a relation edited by hand, against the
    Python protocol as it is); on a CTI, search Z3 for a short execution from
    Init that violates a safety conjunct, and ask the explicit explorer whether
    the lemma's Python twin fails on a reachable state of a matching scenario."""
    lemma = lemma or build(name, mutant)
    out = core.check(lemma, mutant)
    if out.cti is not None:
        start = {s: len(es) for s, es in out.cti.universe.items()}
        out.cti.execution = core.bmc(lemma, start=start, **getattr(module(name), "BMC", {}))
    if out.cti is not None and explore:
        mod = module(name)
        protocol, sc = scenario_for(name, mutant)
        if hasattr(mod, "project") and getattr(mod, "covers", lambda cti: True)(out.cti):
            # is the CTI's pre-state itself reachable?
            pr = project.search(protocol, lemma, mod, out.cti, mutant, cpu_limit=cpu_limit)
            out.cti.projection = pr.as_dict()
            if pr.reached:
                out.cti.verdict = "real bug" if pr.breaks is not None else DISAGREE
                return out
        # the lemma's twin on the protocol, through states the projection does not read
        r = reach.search(protocol, sc, mod.twin, mutant, cpu_limit=cpu_limit)
        out.cti.explorer = r.as_dict()
        if out.cti.projection:
            out.cti.verdict = _unreached(out.cti, r, out.cti.projection["complete"])
        else:
            out.cti.verdict = "real bug" if r.violated else _unreached(out.cti, r, r.complete)
    return out


# the verdict when the lemma's relation and the Python protocol are not the same system
DISAGREE = "relation and protocol disagree"


def _unreached(cti: core.CTI, twin: reach.Reach, complete: bool) -> str:
    """The verdict of a CTI whose pre-state the protocol never reaches. If the
    relation itself breaks a safety conjunct from Init (``cti.execution``), no
    strengthening can help: a real bug when the protocol breaks the lemma too
    (its twin, through states the projection does not read), else the relation
    has behaviour the protocol lacks."""
    if cti.execution is not None:
        return "real bug" if twin.violated else DISAGREE if twin.complete else "unknown"
    return "missing strengthening" if complete else "unknown"
