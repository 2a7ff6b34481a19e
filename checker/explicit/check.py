"""One check: a protocol (or mutant) on a scenario, searched exhaustively (one
worker, several, or over MPI, resumable), its counterexample written as a file;
and the main job's plan. Shared by the CLI, the API and the tests."""
from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from rrcheck.checker.explicit.explore import explore
from rrcheck.checker.invariants import Judge, properties_for
from rrcheck.checker.invariants.verdict import Check
from rrcheck.checker.model.classify import failure_free
from rrcheck.checker.model.program import SEND_DETERMINISTIC
from rrcheck.checker.model.scenarios import DEFAULTS, FIGURES, Scenario, make_system, scenario_for_mutant
from rrcheck.checker.traces.counterexample import save_counterexample
from rrcheck.errors import UsageError
from rrcheck.protocols.mutants import MUTANTS


def run_check(protocol: str, scenario: Scenario, mutant: str | None = None, properties=None,
              out: Path | None = None, strategy: str = "bfs", max_states: int | None = None,
              time_limit: float | None = None, seed: int = 0, reduce: bool = True,
              grouping: tuple[int, ...] | None = None, progress: bool | None = None,
              anyway: bool = False, workers: int = 1, checkpoint: Path | None = None,
              recover: Path | None = None, checkpoint_every: float = 60.0, fingerprints: bool = False,
              mpi: bool = False, hostfile: str | None = None, memory_limit: int | None = None,
              visited: set | None = None) -> Check:
    """``visited``, if given, receives every state a one-worker search stored."""
    system, workload = make_system(protocol, scenario, mutant, grouping)
    anyway = anyway or (mutant is not None and MUTANTS[mutant].extra.get("anyway", False))
    if getattr(system.protocol, "requires_send_determinism", False) and not anyway:
        ff = failure_free(workload, time_limit)
        if not ff.satisfies(SEND_DETERMINISTIC):
            raise UsageError(f"{protocol} assumes a send-deterministic application and {workload.name} is "
                             f"{ff.observed} ({ff.distinct_send_sequences} send sequences); "
                             f"add --anyway to check it all the same")
    props = properties_for(system, protocol, properties)
    judge = Judge(system, props, failure_free(workload, time_limit).finals)
    mpi = mpi or hostfile is not None
    search_options(strategy, workers, fingerprints, mpi, bool(checkpoint or recover))
    snapshots = None
    if checkpoint or recover:
        from rrcheck.checker.explicit.resume import Snapshots
        from rrcheck.checker.explicit.resume_parallel import GenerationSnapshots
        kind = GenerationSnapshots if workers > 1 or fingerprints or mpi else Snapshots
        snapshots = kind(search_identity(system, workload, mutant, props, reduce), checkpoint, recover,
                         checkpoint_every)
    if mpi:
        from rrcheck.checker.explicit import distributed
        job = distributed.job_of(protocol, scenario, mutant, props, reduce, max_states, time_limit, grouping,
                                 snapshots)
        result = distributed.run(job, workers, hostfile, time_limit)
    else:
        result = explore(system, judge, strategy, max_states, time_limit, seed, progress=progress, reduce=reduce,
                         workers=workers, snapshots=snapshots, fingerprints=fingerprints,
                         memory_limit=memory_limit, visited=visited)
    path = save_counterexample(out, protocol, mutant, scenario, system, workload, props, result)
    return Check(protocol, mutant, scenario, result, path,
                 sets_of_one=len(set(system.ctx.group_of)) == system.n)


class EachAlone:
    """One :class:`Judge` per property, consulted side by side over one search
    that never stops (issue 44: every property checked alone). The search's
    order does not depend on its judge, so each property meets the violation it
    would meet checked alone; ``first`` holds it."""

    def __init__(self, system, props, finals):
        self.judges = {p: Judge(system, (p,), finals) for p in props}
        self.first: dict = {}
        self.w: Counter = Counter()

    def _ask(self, name: str, *args) -> None:
        for p, j in self.judges.items():
            if p not in self.first:
                v = getattr(j, name)(*args)
                if v:
                    self.first[p] = v

    def state(self, s):
        self._ask("state", s)

    def terminal(self, s):
        self._ask("terminal", s)

    def transition(self, before, action, after, obs):
        self.w["transitions"] += 1
        self._ask("transition", before, action, after, obs)


def each_alone(protocol: str, scenario: Scenario, mutant: str | None = None, time_limit: float | None = None):
    """Every property that applies, each checked alone, over one unreduced
    breadth-first search of the whole graph: its :class:`Result` (pass, or
    incomplete at ``time_limit``) and the first violation of each property
    violated (a property absent passes)."""
    system, workload = make_system(protocol, scenario, mutant)
    judges = EachAlone(system, properties_for(system, protocol, None), failure_free(workload, time_limit).finals)
    result = explore(system, judges, "bfs", None, time_limit, 0, progress=False, reduce=False)
    return result, judges.first


# more local workers than this only share the same cores (and run out of file descriptors)
MAX_LOCAL_WORKERS = 8 * (os.cpu_count() or 1)


def search_options(strategy: str, workers: int = 1, fingerprints: bool = False, mpi: bool = False,
                   saved: bool = False) -> None:
    """Refuse, before any work, the options of a search that do not go together."""
    if not mpi and workers > MAX_LOCAL_WORKERS:
        raise UsageError(f"--workers {workers}: at most {MAX_LOCAL_WORKERS} on this machine (8 per core); "
                         "--mpi spreads more over hosts")
    if (workers > 1 or fingerprints or mpi) and strategy != "bfs":
        raise UsageError(f"--workers, --fingerprints and --mpi run a breadth-first search; drop --strategy {strategy}")
    if saved and strategy != "bfs":
        raise UsageError(f"--checkpoint and --recover save a breadth-first search; drop --strategy {strategy}")


def search_identity(system, workload, mutant, props, reduce: bool) -> dict:
    """What a saved search must match to be continued."""
    return {"protocol": system.protocol.name, "mutant": mutant, "knobs": dict(system.protocol.knobs),
            "workload": workload.name, "workload_spec": workload.spec, "placement": list(workload.node_of),
            "grouping": list(system.ctx.group_of), "bounds": system.bounds.as_dict(),
            "properties": sorted(props), "reduce": reduce}


def default_plan() -> list[tuple[str, str | None, Scenario]]:
    """The main job, (protocol, mutant, scenario) each: every protocol on its
    default scenarios and the larger scenarios of FIGURES, every mutant on its own."""
    return ([(p, None, sc) for p, scs in DEFAULTS.items() for sc in scs]
            + [(p, None, sc) for p, scs in FIGURES.items() for sc in scs]
            + [(m.protocol, name, scenario_for_mutant(name)) for name, m in MUTANTS.items()])


def default_checks(out: Path | None = None, **kw) -> list[Check]:
    return [run_check(p, sc, m, out=out, **kw) for p, m, sc in default_plan()]
