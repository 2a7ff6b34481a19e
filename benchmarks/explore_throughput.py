"""Explicit-state search throughput on the default scenarios (states, seconds,
states/s), with and without the reductions of checker/model/system.py.

    python benchmarks/explore_throughput.py [--full]   # --full: also without reductions (slow)
    python benchmarks/explore_throughput.py --speedup [--rounds R]
    python benchmarks/explore_throughput.py --memory

Writes benchmarks/results/explore_throughput.json with the machine and the command;
``--speedup`` instead times the largest default scenarios (unreduced) on 1 and 2 worker
processes, interleaved over R rounds (default 5), and once the first two million states
or so of a slow scenario, and writes parallel_speedup.json: wall seconds, CPU seconds of
every process, speed-up and parallel efficiency;
``--memory`` writes bytes_per_state.json: per distinct state, the visited set's
bytes and the peak resident memory above the process's size before the search,
of the exact search and of the one over 64-bit fingerprints (with the disk its
trace file takes), each in a fresh process.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record  # noqa: E402  (benchmarks/record.py)

from rrcheck.checker.explicit.check import run_check  # noqa: E402
from rrcheck.checker.model.scenarios import DEFAULTS, MUTANT_SCENARIOS, SLOW  # noqa: E402
from rrcheck.protocols.mutants import MUTANTS  # noqa: E402


SPEEDUP = [("correlated-set", "fig2 n=5/2nodes f=1 c=0 process"), ("send-deterministic", "sd_ack n=3/2nodes f=1 c=1 process"),
           ("hmpl", "ring n=2/2nodes f=1 c=1"), ("sbml", "ring n=2/2nodes f=1 c=1")]
# a slow scenario's first two million states or so, where a generation's fixed costs are small
AT_SCALE = ("sbml", "theorem2 n=4/2nodes f=1 c=0", 2_000_000)


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def speedup(rounds: int) -> int:
    rows = []
    for protocol, label in SPEEDUP:
        sc = next(sc for sc in DEFAULTS[protocol] if sc.label() == label)
        runs: dict = {1: [], 2: []}
        for _ in range(rounds):
            for workers in (1, 2):
                t, c = time.perf_counter(), _cpu()
                r = run_check(protocol, sc, reduce=False, workers=workers).result
                runs[workers].append((time.perf_counter() - t, _cpu() - c, r.states, r.transitions))
        assert len({x[2:] for x in runs[1] + runs[2]}) == 1, "the worker counts disagree"
        best = {w: min(x[0] for x in runs[w]) for w in runs}
        row = {"protocol": protocol, "scenario": label, "reduce": False, "states": runs[1][0][2],
               "transitions": runs[1][0][3],
               "wall_seconds": {w: [round(x[0], 2) for x in runs[w]] for w in runs},
               "cpu_seconds": {w: [round(x[1], 2) for x in runs[w]] for w in runs},
               "speedup_2_workers": round(best[1] / best[2], 2),
               "efficiency_2_workers": round(best[1] / best[2] / 2, 2)}
        rows.append(row)
        print(f"{protocol:<20} {label:<40} {row['states']:>9,} states  1 worker {best[1]:6.1f} s  "
              f"2 workers {best[2]:6.1f} s  speed-up {row['speedup_2_workers']:.2f}", flush=True)
    record.write("parallel_speedup", {"rounds": rounds, "note": "best of the rounds; the same states and "
                 "transitions on every run (asserted)", "results": rows, "at_scale": at_scale()})
    return 0


def at_scale() -> dict:
    """2 workers to the end of the generation that passes AT_SCALE's bound, then one
    process to the same number of states (the same states: both search breadth-first)."""
    protocol, label, bound = AT_SCALE
    sc = next(sc for sc in SLOW[protocol] if sc.label() == label)
    runs = {}
    for workers in (2, 1):
        t, c = time.perf_counter(), _cpu()
        r = run_check(protocol, sc, reduce=False, workers=workers,
                      max_states=bound if workers == 2 else runs[2][2]).result
        runs[workers] = (round(time.perf_counter() - t, 1), round(_cpu() - c, 1), r.states)
    assert runs[1][2] == runs[2][2], "the searches stopped at different counts"
    row = {"protocol": protocol, "scenario": label, "reduce": False, "states": runs[2][2],
           "wall_seconds": {w: x[0] for w, x in runs.items()}, "cpu_seconds": {w: x[1] for w, x in runs.items()},
           "speedup_2_workers": round(runs[1][0] / runs[2][0], 2),
           "efficiency_2_workers": round(runs[1][0] / runs[2][0] / 2, 2)}
    print(f"{protocol:<20} {label:<40} {row['states']:>9,} states  1 worker {runs[1][0]:6.1f} s  "
          f"2 workers {runs[2][0]:6.1f} s  speed-up {row['speedup_2_workers']:.2f}  (at scale)", flush=True)
    return row


_MEASURE = """
import gc, json, os, resource, sys, types
from rrcheck.checker.explicit import explore, parallel
from rrcheck.checker.explicit.check import run_check
from rrcheck.checker.model.scenarios import DEFAULTS
protocol, label, mode, sizes = sys.argv[1:]
sc = next(sc for sc in DEFAULTS[protocol] if sc.label() == label)
run_check(protocol, sc, reduce=False, max_states=1)  # imports and caches: the baseline
rss = lambda: (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)

def deep_bytes(root):
    # every object the exact visited set (state -> parent link) reaches, each once; classes, modules
    # and functions left out (shared by all states, not held per state)
    seen, todo, total = set(), [root], 0
    while todo:
        o = todo.pop()
        if id(o) in seen or isinstance(o, SHARED):
            continue
        seen.add(id(o))
        total += sys.getsizeof(o)
        todo.extend(gc.get_referents(o))
    return total

Result = explore.Result
peak = []
def sized(*args, **kw):  # the exact search's visited set, sized as the search ends (its frontier is empty)
    peak.append(rss())  # before the sizing's own bookkeeping
    parent = sys._getframe(1).f_locals["parent"]
    json.dump({"visited_bytes": deep_bytes(parent), "states": len(parent)}, open(sizes, "w"))
    return Result(*args, **kw)

witnesses = parallel._Worker.witnesses
def worker_sizes(self):  # in the (one) forked worker, as the search ends
    json.dump(self.sizes(), open(sizes, "w"))
    return witnesses(self)

before = rss()
if mode == "exact":
    explore.Result = sized
else:
    parallel._Worker.witnesses = worker_sizes
r = run_check(protocol, sc, reduce=False, fingerprints=mode == "fingerprints").result
after = peak[0] if peak else rss()
# KiB; a fingerprint search keeps its states in a child forked at the parent's size, which its peak counts
grown = (after[0] - before[0]) + max(0, after[1] - before[0])
print(json.dumps({"states": r.states, "kib": grown, "seconds": r.seconds}))
"""


def memory() -> int:
    import json
    import subprocess
    import tempfile
    rows = []
    for protocol, label in SPEEDUP:
        row = {"protocol": protocol, "scenario": label, "reduce": False}
        for mode in ("exact", "fingerprints"):
            with tempfile.NamedTemporaryFile(suffix=".json") as sizes:
                out = subprocess.run([sys.executable, "-c", _MEASURE, protocol, label, mode, sizes.name],
                                     check=True, capture_output=True, text=True).stdout
                size = json.loads(Path(sizes.name).read_text())
            m = json.loads(out)
            assert size["states"] == m["states"], "the visited set was sized before the search ended"
            row["states"] = m["states"]
            row[mode] = {"process_rss_bytes_per_state": round(m["kib"] * 1024 / m["states"]),
                         "states_per_s": round(m["states"] / m["seconds"])}
            if mode == "exact":
                row[mode]["visited_set_bytes_per_state"] = round(size["visited_bytes"] / m["states"], 1)
            else:
                row[mode]["visited_set_bytes_per_state"] = round(size["table_bytes"] / m["states"], 1)
                row[mode]["visited_set_load"] = round(m["states"] / (size["table_bytes"] / 8), 3)
                row[mode]["trace_file_disk_bytes_per_state"] = round(size["trace_file_bytes"] / m["states"], 1)
        rows.append(row)
        e, f = row["exact"], row["fingerprints"]
        print(f"{protocol:<20} {label:<40} {row['states']:>9,} states  exact: visited set "
              f"{e['visited_set_bytes_per_state']:>6,} B/state, process {e['process_rss_bytes_per_state']:>5,} B/state;"
              f"  fingerprints: visited set {f['visited_set_bytes_per_state']:>5} B/state (load "
              f"{f['visited_set_load']}), trace file on disk {f['trace_file_disk_bytes_per_state']} B/state, "
              f"process {f['process_rss_bytes_per_state']:>5,} B/state", flush=True)
    record.write("bytes_per_state", {
        "note": "--no-reduce, one worker, each search in a fresh process. process_rss: the peak resident memory "
                "above the process's size before the search (the worker's, for --fingerprints), over the distinct "
                "states: visited set, frontier, candidates and interpreter together. visited_set: exact, every "
                "object the state -> parent-link dictionary reaches, each once (states, links, actions; classes "
                "and functions left out); fingerprints, the table of 64-bit fingerprints (checker/explicit/"
                "fpset.py; 8 bytes over its load, which growing by half keeps in (0.5, 0.75]), the parent links being "
                "in the trace file on disk (16 bytes a state: fingerprint and discovery key). The frontier is "
                "in memory, in neither visited set.",
        "results": rows})
    return 0


def main() -> int:
    if "--memory" in sys.argv:
        return memory()
    if "--speedup" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 5
        return speedup(rounds)
    full = "--full" in sys.argv
    rows = []
    cases = [(p, sc, None) for p, scs in DEFAULTS.items() for sc in scs]
    cases += [(MUTANTS[m].protocol, sc, m) for m, sc in MUTANT_SCENARIOS.items()]
    for protocol, sc, mutant in cases:
        for reduce in ((True, False) if full else (True,)):
            c = run_check(protocol, sc, mutant, reduce=reduce, max_states=5_000_000)
            r = c.result
            rows.append({"protocol": protocol, "mutant": mutant, "scenario": sc.label(), "reduce": reduce,
                         "verdict": r.verdict, "states": r.states, "transitions": r.transitions,
                         "seconds": round(r.seconds, 2), "states_per_s": round(r.states_per_s)})
            print(f"{mutant or protocol:<44} {sc.label():<28} reduce={reduce!s:<5} {r.verdict:<10} "
                  f"{r.states:>10,} states {r.seconds:>7.1f} s {r.states_per_s:>8,.0f}/s", flush=True)
    record.write("explore_throughput", {"results": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
