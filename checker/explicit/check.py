"""One check: a protocol (or mutant) on a scenario, searched exhaustively,
its counterexample written as a file. Shared by the CLI and the tests."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rrcheck.checker.traces import counterexample as T
from rrcheck.checker.model.classify import failure_free
from rrcheck.errors import UsageError
from rrcheck.checker.explicit.explore import Result, explore
from rrcheck.checker.invariants import Judge, applicable
from rrcheck.checker.model.scenarios import DEFAULTS, FIGURES, Scenario, make_system, scenario_for_mutant
from rrcheck.checker.model.workloads import SEND_DETERMINISTIC
from rrcheck.protocols.mutants import MUTANTS


@dataclass
class Check:
    protocol: str
    mutant: str | None
    scenario: Scenario
    result: Result
    counterexample: Path | None = None
    sets_of_one: bool = False  # every correlated set a single process: Theorem1 has nothing to check

    @property
    def expected(self) -> bool:
        """A correct protocol passes; a mutant is caught by its primary property."""
        if self.mutant is None:
            return self.result.verdict == "pass"
        v = self.result.violation
        return v is not None and v.property == MUTANTS[self.mutant].primary

    @property
    def surprise(self) -> str | None:
        """A mutant caught, but by another property than its primary one: the
        bug is found, yet the checker behaves differently than recorded (a
        property weakened or switched off, a search order changed)."""
        v = self.result.violation
        if self.mutant is None or v is None or self.expected:
            return None
        m = MUTANTS[self.mutant]
        how = "one of its other catchers" if v.property in m.catches else "not among its catchers"
        return f"caught by {v.property} ({how}), not by its primary {m.primary}"

    @property
    def vacuous(self) -> str | None:
        """Why a pass exercised nothing, or None."""
        return vacuity(self.protocol, self.scenario, self.result, self.sets_of_one)

    def as_dict(self) -> dict:
        d = {"protocol": self.protocol, "mutant": self.mutant, "scenario": self.scenario.label(),
             **self.result.as_dict(),
             "counterexample": str(self.counterexample) if self.counterexample else None}
        if self.result.verdict == "pass":
            d["vacuous"] = self.vacuous is not None
            d["vacuous_reason"] = self.vacuous
        if self.mutant:
            d["caught"] = self.expected
            d["primary"] = MUTANTS[self.mutant].primary
            d["surprise"] = self.surprise
        return d


def vacuity(protocol: str, scenario: Scenario, result: Result, sets_of_one: bool = False) -> str | None:
    """A pass proves something only if recovery was exercised: say what was not.
    Theorem1 is about intra-set messages: with sets of one process (sender-based
    logging, Bouteiller et al. Fig. 1) it does not apply, which is no vacuity."""
    if result.verdict != "pass":
        return None
    w = result.witnesses
    why = []
    if scenario.failures == 0:
        why.append("no failure allowed (--failures 0): recovery never exercised")
    elif w.get("crashes", 0) + w.get("node_crashes", 0) == 0:
        why.append("no crash happened")
    elif w.get("rollbacks", 0) == 0:
        why.append("no process rolled back")
    elif w.get("terminal_states_after_failure", 0) == 0:
        why.append("no run with a failure reached its end (FailureFreeEquivalence never applied)")
    if scenario.checkpoints > 0 and w.get("checkpoints", 0) == 0:
        why.append(f"a bound of {scenario.checkpoints} checkpoint(s) but no checkpoint taken")
    elif scenario.checkpoints > 0 and w.get("rollbacks", 0) and w.get("rollbacks_to_a_checkpoint", 0) == 0:
        why.append("checkpoints taken, but every rollback went back to the start (no checkpoint was ever restored)")
    if protocol == "correlated-set" and scenario.failures and not sets_of_one \
            and w.get("theorem1_lines_checked", 0) == 0:
        why.append("Theorem1 never checked a recovery line (no rollback of a set with an internal message)")
    return "; ".join(why) or None


def run_check(protocol: str, scenario: Scenario, mutant: str | None = None, properties=None,
              out: Path | None = None, strategy: str = "bfs", max_states: int | None = None,
              time_limit: float | None = None, seed: int = 0, reduce: bool = True,
              grouping: tuple[int, ...] | None = None, progress: bool | None = None,
              anyway: bool = False, workers: int = 1, checkpoint: Path | None = None,
              recover: Path | None = None, checkpoint_every: float = 60.0, fingerprints: bool = False,
              mpi: bool = False, hostfile: str | None = None) -> Check:
    system, workload = make_system(protocol, scenario, mutant, grouping)
    anyway = anyway or (mutant is not None and MUTANTS[mutant].extra.get("anyway", False))
    if getattr(system.protocol, "requires_send_determinism", False) and not anyway:
        ff = failure_free(workload)
        if not ff.satisfies(SEND_DETERMINISTIC):
            raise UsageError(f"{protocol} assumes a send-deterministic application and {workload.name} is "
                             f"{ff.observed} ({ff.distinct_send_sequences} send sequences); "
                             f"add --anyway to check it all the same")
    props = properties_for(system, protocol, properties)
    judge = Judge(system, props, failure_free(workload).finals)
    mpi = mpi or hostfile is not None
    search_options(strategy, workers, fingerprints, mpi, bool(checkpoint or recover))
    snapshots = None
    if checkpoint or recover:
        from rrcheck.checker.explicit.resume import Snapshots
        snapshots = Snapshots(search_identity(system, workload, mutant, props, reduce), checkpoint, recover,
                              checkpoint_every)
    if mpi:
        from rrcheck.checker.explicit import distributed
        job = distributed.job_of(protocol, scenario, mutant, props, reduce, max_states, time_limit, grouping)
        result = distributed.run(job, workers, hostfile, time_limit)
    else:
        result = explore(system, judge, strategy, max_states, time_limit, seed, progress=progress, reduce=reduce,
                         workers=workers, snapshots=snapshots, fingerprints=fingerprints)
    path = save_counterexample(out, protocol, mutant, scenario, system, workload, props, result)
    return Check(protocol, mutant, scenario, result, path,
                 sets_of_one=len(set(system.ctx.group_of)) == system.n)


def search_options(strategy: str, workers: int = 1, fingerprints: bool = False, mpi: bool = False,
                   saved: bool = False) -> None:
    """Refuse, before any work, the options of a search that do not go together."""
    if (workers > 1 or fingerprints or mpi) and strategy != "bfs":
        raise UsageError(f"--workers, --fingerprints and --mpi run a breadth-first search; drop --strategy {strategy}")
    if saved and (strategy != "bfs" or workers > 1 or fingerprints or mpi):
        raise UsageError("--checkpoint and --recover save a breadth-first search on one worker; "
                         "drop --strategy, --workers, --fingerprints and --mpi")


def search_identity(system, workload, mutant, props, reduce: bool) -> dict:
    """What a saved search must match to be continued."""
    return {"protocol": system.protocol.name, "mutant": mutant, "knobs": dict(system.protocol.knobs),
            "workload": workload.name, "workload_spec": workload.spec, "placement": list(workload.node_of),
            "grouping": list(system.ctx.group_of), "bounds": system.bounds.as_dict(),
            "properties": sorted(props), "reduce": reduce}


def properties_for(system, protocol: str, properties) -> tuple[str, ...]:
    """The properties asked for, or all that apply to the protocol."""
    mine = applicable(system.protocol.name)
    props = tuple(properties or mine)
    for p in props:
        if p not in mine:
            raise UsageError(f"unknown property {p!r} for {protocol}; choose among {', '.join(mine)}")
    return props


def save_counterexample(out, protocol, mutant, scenario, system, workload, props, result,
                        suffix: str = ".json") -> Path | None:
    """Write ``result``'s violating run as a counterexample file under ``out``."""
    if result.violation is None or out is None:
        return None
    cx = T.Counterexample(
        schema_version=T.SCHEMA_VERSION, tool=T.tool_version(), protocol=protocol, mutant=mutant,
        knobs=system.protocol.knobs, workload=workload.name, procs=scenario.procs, nodes=scenario.nodes,
        workload_spec=workload.spec,
        placement=list(workload.node_of), grouping=list(system.ctx.group_of),
        bounds=system.bounds.as_dict(), properties=list(props), events=T.to_json_events(result.trace),
        violation=result.violation.as_dict())
    name = (mutant or f"{protocol}/{workload.name}").replace("/", "__") + suffix
    return T.save(Path(out) / name, cx)


def default_plan() -> list[tuple[str, str | None, Scenario]]:
    """The main job, (protocol, mutant, scenario) each: every protocol on its
    default scenarios and the larger scenarios of FIGURES, every mutant on its own."""
    return ([(p, None, sc) for p, scs in DEFAULTS.items() for sc in scs]
            + [(p, None, sc) for p, scs in FIGURES.items() for sc in scs]
            + [(m.protocol, name, scenario_for_mutant(name)) for name, m in MUTANTS.items()])


def default_checks(out: Path | None = None, **kw) -> list[Check]:
    return [run_check(p, sc, m, out=out, **kw) for p, m, sc in default_plan()]
