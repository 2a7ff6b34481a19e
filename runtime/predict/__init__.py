"""Predictive analysis of one recorded MPI run: would another failure point or
delivery order break the invariants? (docs/design.md §5; the user's account is
docs/predict.md.) It reads the runtime's journals, so it stands above the
runtime; it may import the runtime, the checker below it and the leaves, and
only the CLI imports it.

The journals of a run (runtime/files.py) give, per rank, the model's
scheduler events with the packets each put on the wire. From them alone:

1. **Happens-before** by vector clocks (:mod:`.clocks`): an event knows its
   rank's earlier events and, for a delivery, everything the packet's sender
   knew. A set of events closed under happens-before is a consistent cut: a
   global state a failure could meet.
2. **Hazards**, pruned with the clocks outside any solver (:mod:`.hazards`).
   A failure of a process, or of a node (one failure, Meyer 2014 §2.2.1), rolls
   back its rollback set R (the failed processes for pessimistic logging; the
   whole correlated set for Bouteiller et al., CCPE 2013, §3.2). A reception
   r by ``MPI_ANY_SOURCE`` at w in R is a real choice when another message
   could have matched it: per other source its first message not yet matched
   (MPI's non-overtaking rule), with a tag the receive takes, sent without
   knowing of r (the match(r, s) choice of predictive analyses of MPI
   traces). If R then sends, after r, a message that a survivor delivers,
   and the failure strikes before r's determinant is durable, the
   re-execution may match r otherwise and send different content: the
   survivor is an orphan (Meyer 2014 §2.2.3, Fig. 4.6; Bouteiller et al. 2013,
   Theorem 2). Durability follows the protocol's rules
   (:func:`.hazards.durability`); where the protocol lets the receiver go on
   before its logging round trip ends, the cut may leave that round trip for
   after the failure (:func:`.hazards.relaxed_cut`).
3. **SMT over the real choices only** (:func:`.smt.solve`, z3): which
   failure and hazard, the cut's frontier with the durability and checkpoint
   exclusions, and the alternative match; smallest cut first, each model
   blocked in turn.
4. **Confirmation on the model** (:mod:`.confirm`): the cut is replayed on
   :class:`rrcheck.checker.model.system.System` (same protocol, workload, placement
   and grouping), the failure injected, and steered walks of the recovery
   look for a violation of the shared invariants. A violation is a
   counterexample in checker/traces/counterexample.py's format that ``rrcheck replay``
   reproduces; a witness the model does not reproduce is reported as
   unconfirmed, never as a bug.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from rrcheck.errors import UsageError
from rrcheck.runtime.predict.clocks import Ev, Trace, build
from rrcheck.runtime.predict.confirm import MAX_CONFIRMATIONS, confirm, counterexample
from rrcheck.runtime.predict.hazards import Candidate, candidates, durability, family, units_of
from rrcheck.runtime.predict.smt import solve

__all__ = ["Candidate", "Ev", "Prediction", "Trace", "build", "durability", "load_run", "predict"]


@dataclass
class Prediction:
    verdict: str                   # none | confirmed | unconfirmed
    protocol: str
    events: int
    ranks: int
    stats: dict
    witness: dict | None = None
    unconfirmed: list = field(default_factory=list)
    counterexample: str | None = None
    truncated: bool = False
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "protocol": self.protocol, "ranks": self.ranks, "events": self.events,
                "choices": self.stats, "witness": self.witness, "unconfirmed": self.unconfirmed,
                "counterexample": self.counterexample, "analysed_up_to_first_failure": self.truncated,
                "seconds": round(self.seconds, 3), "cpu_seconds": round(self.cpu_seconds, 3)}


def load_run(run_dir: Path, protocol: str | None = None):
    """The run's configuration (with ``protocol`` instead of its own, if
    given) and its journals of generation 0, validated."""
    from rrcheck.runtime.files import journal_path, load_config, load_journal
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir}: not a run directory (rrcheck run --out DIR writes one)")
    try:
        cfg = load_config(run_dir)
    except UnicodeDecodeError:
        raise UsageError(f"{run_dir}/run.json: binary, not a run configuration")
    except ValueError as e:
        raise UsageError(f"{run_dir}/run.json: not a run configuration ({str(e).splitlines()[0]})")
    if protocol:
        from rrcheck.protocols.mutants import MUTANTS, PROTOCOLS
        base = MUTANTS[protocol].protocol if protocol in MUTANTS else protocol
        if base not in PROTOCOLS:
            raise UsageError(f"unknown protocol or mutant {protocol!r} (rrcheck list)")
        if base != cfg.protocol:
            raise UsageError(f"the journals hold {cfg.protocol!r}'s events; --protocol takes {cfg.protocol!r} "
                             f"or one of its mutants, not {protocol!r}")
        mutant = protocol if protocol in MUTANTS else None
        cfg = cfg.model_copy(update={"mutant": mutant, "knobs": {}})
    if cfg.protocol == "none":
        raise UsageError(f"{run_dir}: a run of bare MPI (protocol none) has no recovery to predict; "
                         "give the directory of a run of a protocol")
    journals = []
    for p in range(cfg.n):
        path = journal_path(run_dir, p, 0)
        if not path.exists():
            raise UsageError(f"{run_dir}: no journal of rank {p}; was the run made with --no-trace?")
        try:
            journals.append(load_journal(path))
        except UnicodeDecodeError:
            raise UsageError(f"{path}: binary, not a journal")
    if not any(journals):
        raise UsageError(f"{run_dir}: the journals are empty; nothing ran")
    return cfg, journals


def predict(run_dir, protocol: str | None = None, save: Path | None = None,
            confirmations: int = MAX_CONFIRMATIONS, crash_kinds=("process", "node")) -> Prediction:
    """The verdict on one run: ``none`` (no hazard under the protocol's
    rules), ``confirmed`` (a witness the model reproduces, saved as a
    counterexample where the format can name the workload) or
    ``unconfirmed`` (hazards the model did not reproduce)."""
    t0, c0 = time.perf_counter(), time.process_time()
    from rrcheck.checker.invariants import applicable
    from rrcheck.protocols.base import Context
    from rrcheck.runtime import apps
    from rrcheck.runtime.files import protocol_of
    cfg, journals = load_run(Path(run_dir), protocol)
    proto = protocol_of(cfg)
    family(proto)
    workload = apps.twin(cfg.workload, cfg.n, cfg.nodes, cfg.iters)
    if list(workload.node_of) != list(cfg.node_of):
        raise UsageError("run.json's placement differs from its workload's; the trace cannot be analysed")
    ctx = Context(cfg.n, tuple(cfg.node_of), tuple(cfg.group_of), workload.fifo)
    trace = build(cfg, journals, workload.programs)
    dur = durability(trace, proto, ctx)
    cands, stats = candidates(trace, dur, proto, ctx, units_of(trace, crash_kinds))
    stats["hazards"] = len(cands)
    props = applicable(proto.name)
    verdict, witness, unconfirmed, cx_path = "none", None, [], None
    tried = 0
    for cand in solve(trace, dur, cands, max(confirmations, 1) if cands else 0):
        tried += 1
        conf = confirm(trace, cfg, cand, props)
        if conf.confirmed:
            verdict = "confirmed"
            witness = {**cand.as_dict(), "property": conf.violation.property, "message": conf.violation.message,
                       "model_events": len(conf.events)}
            cx = counterexample(cfg, conf, props)
            if cx is not None:
                from rrcheck.checker.traces import counterexample as T
                rep = T.replay(cx)
                if rep.violation is None or rep.violation.property != conf.violation.property:
                    raise AssertionError("a confirmed witness did not replay: " + str(rep.violation))
                path = Path(save) if save else Path(run_dir) / "predicted-counterexample.json"
                T.save(path, cx)
                cx_path = str(path)
            break
        unconfirmed.append({**cand.as_dict(), "why": conf.reason})
    stats["smt_witnesses_tried"] = tried
    if verdict == "none" and unconfirmed:
        verdict = "unconfirmed"
    return Prediction(verdict, proto.name if not cfg.mutant else cfg.mutant, sum(map(len, trace.events)), cfg.n,
                      stats, witness, unconfirmed, cx_path, trace.truncated,
                      time.perf_counter() - t0, time.process_time() - c0)
