"""A spec written from the paper alone, refined by the detailed spec: TLC checks,
on one scenario, that every step of the protocol's module in specs/ (handler for
handler the Python protocol) is a step of the paper-level spec under a
refinement mapping (Abadi and Lamport, "The existence of refinement mappings",
1991), so that a misreading the Python protocol and its detailed spec share
shows as a step the paper does not allow (issue 44, item 4).

Paper-level specs: coordinated checkpointing, blocking and Chandy-Lamport's
(``CoordinatedPaper.tla``, Bouteiller et al. 2013 §2.1-2.2, mapped by
``CoordinatedRefinement.tla``); SBML (``SBMLPaper.tla``, Meyer 2014 §4.1.1,
mapped by ``SBMLRefinement.tla``); correlated sets (``CorrelatedSetPaper.tla``,
Bouteiller et al. 2013 §2.2, §3.2, §3.3.3, mapped by
``CorrelatedSetRefinement.tla``).
"""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rrcheck.checker.model.scenarios import Scenario, make_system
from rrcheck.checker.tla.follow import follow
from rrcheck.checker.tla.model import model_files, spec_of, specs_dir
from rrcheck.checker.tla.run import _MSG, _counts, _explored, java, jar, run_model, tlc_error
from rrcheck.checker.tla.values import parse_state
from rrcheck.errors import UsageError


@dataclass(frozen=True)
class Paper:
    refinement: str          # the module that maps the detailed spec's states to the paper's
    paper: str               # the paper-level module
    source: str              # where the paper says it
    invariants: tuple        # the paper's own properties, checked through the mapping
    fifo: bool = True        # the paper's spec counts messages per channel


_LINE = ("PaperTypeOK", "PaperNoOrphanAtLine", "PaperNoInTransitAtLine")
PAPERS = {"coordinated": Paper("CoordinatedRefinement", "CoordinatedPaper",
                               "Bouteiller et al. 2013, §2.1-2.2 \"Coordinated checkpoint\", blocking (refs [7, 8])",
                               _LINE),
          "chandy-lamport": Paper("CoordinatedRefinement", "CoordinatedPaper",
                                  "Bouteiller et al. 2013, §2.1-2.2 \"Coordinated checkpoint\", Chandy-Lamport "
                                  "(ref [6], in-transit messages recorded)", _LINE),
          "sbml": Paper("SBMLRefinement", "SBMLPaper",
                        "Meyer 2014, §4.1.1 \"Sender-Based Message Logging\" and Fig. 4.1 (pessimistic SBML, "
                        "after Johnson and Zwaenepoel, its ref. [48])", ("PaperTypeOK", "PaperNoOrphan"), fifo=False),
          "correlated-set": Paper("CorrelatedSetRefinement", "CorrelatedSetPaper",
                                  "Bouteiller et al. 2013, §2.2 \"Message logging\", §3.2 and §3.3.3 (correlated sets: "
                                  "coordinated checkpoints inside a set, message logging between sets)",
                                  ("PaperTypeOK", "PaperNoOrphan", "PaperTheorem1"), fifo=False)}


@dataclass
class RefinementCheck:
    protocol: str
    mutant: str | None
    scenario: Scenario
    verdict: str                  # refines | fails | incomplete | error
    states: int = 0
    generated: int = 0
    depth: int = 0
    seconds: float = 0.0
    broken: str | None = None     # PaperSpec (a step the paper does not allow) or a paper invariant
    message: str = ""
    steps: int = 0                # the steps of TLC's trace to the first that breaks it
    events: list = field(default_factory=list)   # the Python events of TLC's trace, as far as the model follows

    def as_dict(self) -> dict:
        return {"engine": "tlc", "check": "refinement", "protocol": self.protocol, "mutant": self.mutant,
                "scenario": self.scenario.label(), "paper": PAPERS[self.protocol].paper,
                "verdict": self.verdict, "broken": self.broken, "message": self.message or None,
                "states": self.states, "states_generated": self.generated, "depth": self.depth,
                "seconds": round(self.seconds, 3), "trace_steps": self.steps,
                "python_events": [list(e) for e in self.events]}


def paper_of(protocol: str) -> Paper:
    if protocol not in PAPERS:
        raise UsageError(f"no paper-level spec refines {protocol!r} yet; --refine checks "
                         f"{', '.join(PAPERS)}")
    return PAPERS[protocol]


def model(system, protocol: str) -> tuple[str, str]:
    """MC.tla and MC.cfg: the scenario's model, its spec extended by the mapping,
    the paper's spec as the property and the paper's invariants."""
    paper = paper_of(protocol)
    mc, cfg = model_files(system, protocol, ())
    mc = mc.replace(f"EXTENDS {spec_of(protocol).module}, TLC", f"EXTENDS {paper.refinement}, TLC")
    cfg = cfg.replace("INIT Init\nNEXT Next\n", "INIT InitH\nNEXT NextH\n")
    cfg += "INVARIANT\n" + "".join(f"  {p}\n" for p in paper.invariants) + "PROPERTY\n  PaperSpec\n"
    return mc, cfg


def check_refinement(protocol: str, scenario: Scenario, mutant: str | None = None, timeout: float = 600.0,
                     keep: Path | None = None, progress: bool = True) -> RefinementCheck:
    """TLC on the detailed spec with the history variables of the mapping:
    ``refines`` when every reachable step maps to a step of the paper's spec
    (or to none) and the paper's invariants hold on every mapped state."""
    paper = paper_of(protocol)
    specs = specs_dir(paper.refinement)
    java(), jar()
    system, _ = make_system(protocol, scenario, mutant)
    if paper.fifo and not system.ctx.fifo:
        raise UsageError(f"{paper.paper} counts messages per channel, so it needs FIFO channels")
    mc, cfg = model(system, protocol)
    if keep is not None:
        Path(keep).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="rrcheck-refine-", dir=keep))
    try:
        proc, finished, seconds = run_model(specs, mc, cfg, work, timeout=timeout, progress=progress)
        c = RefinementCheck(protocol, mutant, scenario, "refines", seconds=seconds)
        if not finished:
            c.states, c.generated, c.depth = _explored(proc.stdout)
            c.verdict, c.message = "incomplete", f"TLC did not finish within {timeout:g} s"
            return c
        c.states, c.generated, c.depth = _counts(proc.stdout)
        if proc.returncode == 0:
            return c
        msgs = [(int(code), body) for code, body in _MSG.findall(proc.stdout)]
        said = [body.strip() for code, body in msgs if code in (2110, 2107, 2112, 2116)]
        if proc.returncode not in (12, 13):
            c.verdict = "error"
            c.message = tlc_error(proc, msgs) or (said[0][:500] if said else "")
            return c
        c.verdict = "fails"
        c.message = said[0] if said else ""
        c.broken = next((p for p in ("PaperSpec", *paper.invariants) if p in c.message), "PaperSpec")
        trace = [parse_state(body) for code, body in msgs if code == 2217]
        c.steps = max(len(trace) - 1, 0)
        c.events, _ = follow(system, trace)
        return c
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
