"""``rrcheck campaign``: failures injected at randomized points, for every
protocol the runtime drives, single ranks and whole nodes, soft and kill, and
a report of runs, failures injected, outputs equal to failure-free, invariant
violations and hangs.

A point is drawn uniformly among the events its trigger rank executes in the
failure-free run of the same protocol, so every failure lands inside the run.

A kill-mode launch whose repair failed inside Open MPI's ``Spawn``
(``MPI_ERR_PROC_FAILED`` while PRRTE launches the replacements, about one node
crash in 30 to 50 here: the rank that raises it aborts, the root waits in the
spawn) never reached the protocol's recovery; it is launched once more, and
the report keeps the failed attempt beside the run (``spawn_failed``).
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

from rrcheck.runtime import launch as L


WORKLOADS = ("stencil2d", "ring", "master_worker", "cg", "hier_bcast", "hier_reduce", "flat_bcast", "flat_reduce")


def fits(protocol: str, workload: str, n: int, nodes: int) -> bool:
    """The workload is within the protocol's assumptions (a protocol for
    send-deterministic applications does not run master_worker)."""
    from rrcheck.checker.model.workloads import NON_DETERMINISTIC
    from rrcheck.protocols.mutants import PROTOCOLS
    from rrcheck.runtime.apps import twin
    return not (getattr(PROTOCOLS[protocol], "requires_send_determinism", False)
                and twin(workload, n, nodes, 1).determinism == NON_DETERMINISTIC)


def campaign(points: int, protocols, modes, seed: int, n: int, nodes: int, iters: int, timeout: float,
             out: Path, report_path: Path | None = None, workloads=WORKLOADS, progress=print) -> dict:
    """The report of ``points`` runs; written to ``report_path`` at the end,
    or with the runs finished so far (``complete: false``) on an interrupt."""
    rng = random.Random(seed)
    protocols = protocols or L.supported()
    for p in protocols:
        L.make_config(p, workloads[0], n, nodes)  # a usage error at once, not after hours
    plans = []
    for i in range(points):
        protocol = protocols[i % len(protocols)]
        mode = modes[(i // len(protocols)) % len(modes)]
        mine = [w for w in workloads if fits(protocol, w, n, nodes)]
        workload = mine[(i // (len(protocols) * len(modes))) % len(mine)]
        target = "node" if rng.random() < 0.5 else "rank"
        plans.append((protocol, mode, workload, target, rng.random(), rng.randrange(n), rng.randrange(nodes)))
    lengths: dict = {}
    runs = []
    t0 = time.perf_counter()
    complete = False
    try:
        for i, (protocol, mode, workload, target, frac, rank, node) in enumerate(plans):
            key = (protocol, workload)
            if key not in lengths:
                cfg = L.make_config(protocol, workload, n, nodes, iters=iters, checkpoint_every=6, trace=False)
                ff = L.launch(cfg, out / f"ff-{protocol}-{workload}", timeout)
                lengths[key] = [r.events if r else 0 for r in ff.results]
            trigger = rank if target == "rank" else min(q for q in range(n) if L.make_config(
                protocol, workload, n, nodes).node_of[q] == node)
            at = max(1, int(frac * lengths[key][trigger]))
            spec = f"{rank}@{at}" if target == "rank" else f"node:{node}@{at}"
            cfg = L.make_config(protocol, workload, n, nodes, iters=iters, mode=mode, crashes=[spec], checkpoint_every=6)
            rep = L.run(cfg, out / f"run-{i:03d}", timeout)
            failed_spawn = None
            if spawn_failed(rep.as_dict()):
                failed_spawn = {"status": rep.status, "seconds": rep.seconds}
                rep = L.run(cfg, out / f"run-{i:03d}-again", timeout)
            d = rep.as_dict()
            d.pop("run_dir")
            if failed_spawn:
                d["spawn_failed"] = failed_spawn
            if d.get("trace"):
                d["trace"] = {k: d["trace"][k] for k in ("verdict", "events", "property", "message")} | {
                    "rollbacks": d["trace"]["witnesses"].get("rollbacks", 0)}
            runs.append(d)
            if progress:
                progress(f"[{i + 1}/{points}] {protocol} {workload} {mode} {spec}: {rep.status}, "
                         f"{'equal' if rep.equal else 'DIFFERENT' if rep.equal is False else '-'}, "
                         f"trace {(rep.trace or {}).get('verdict')}, {rep.seconds:.1f} s")
        complete = True
    finally:
        rep = {"schema_version": 1, "complete": complete, "seed": seed, "ranks": n, "nodes": nodes,
               "iters": iters, "points": points, "seconds": round(time.perf_counter() - t0, 1),
               "summary": summarize(runs), "runs": runs}
        if report_path:
            _write_report(report_path, json.dumps(rep, indent=1) + "\n")
    return rep


def _write_report(path, text: str) -> None:
    """The report to ``path``; if it cannot be written, on standard output
    instead, so that hours of runs are not lost to a full disk."""
    from rrcheck.errors import UsageError
    from rrcheck.files import OutputError, emit, write_text
    try:
        write_text(path, text)
    except OutputError as e:
        emit(text, "report")
        raise UsageError(f"--report {path}: not written ({e.why}); the report is on standard output") from None


def spawn_failed(run: dict) -> bool:
    """Did the launch end in Open MPI's Spawn failing during the repair?"""
    err = run.get("stderr") or ""
    return run["status"] != "finished" and "Intracomm.Spawn" in err and "MPI_ERR_PROC_FAILED" in err


def summarize(runs: list[dict]) -> dict:
    fin = [r for r in runs if r["status"] == "finished"]
    by: dict = {}
    for r in runs:
        k = f"{r['protocol']}/{r['mode']}"
        b = by.setdefault(k, {"runs": 0, "failures_injected": 0, "equal": 0, "trace_pass": 0})
        b["runs"] += 1
        b["failures_injected"] += r["failures_injected"]
        b["equal"] += bool(r["equal"])
        b["trace_pass"] += (r.get("trace") or {}).get("verdict") == "pass"
    return {
        "runs": len(runs),
        "failures_injected": sum(r["failures_injected"] for r in runs),
        "node_failures": sum(1 for r in runs if r["crashes"] and r["crashes"][0].startswith("node")),
        "outputs_equal_to_failure_free": sum(1 for r in fin if r["equal"]),
        "outputs_different": sum(1 for r in fin if r["equal"] is False),
        "invariant_violations": sum(1 for r in runs if (r.get("trace") or {}).get("verdict") == "violation"),
        "traces_inconsistent": sum(1 for r in runs if (r.get("trace") or {}).get("verdict") == "inconsistent"),
        "hangs": sum(1 for r in runs if r["status"] == "hang"),
        "unexplained_hangs": sum(1 for r in runs if r["status"] == "hang"
                                 and (r.get("trace") or {}).get("verdict") != "violation"),
        "errors": sum(1 for r in runs if r["status"] == "error"),
        "teardown_killed": sum(1 for r in runs if r.get("teardown_killed")),
        "spawn_failed_and_launched_again": sum(1 for r in runs if r.get("spawn_failed")),
        "by_protocol_and_mode": by,
    }


def print_report(rep: dict) -> None:
    s = rep["summary"]
    print(f"campaign: {s['runs']} runs, {s['failures_injected']} failures injected ({s['node_failures']} node "
          f"failures), {rep['seconds']:.0f} s")
    print(f"  outputs equal to failure-free {s['outputs_equal_to_failure_free']}, different {s['outputs_different']}")
    print(f"  invariant violations {s['invariant_violations']}, inconsistent traces {s['traces_inconsistent']}, "
          f"hangs {s['hangs']} ({s['unexplained_hangs']} unexplained by the trace), errors {s['errors']}, "
          f"MPI teardowns killed after the run "
          f"{s.get('teardown_killed', 0)}, launched again after Open MPI's Spawn failed "
          f"{s.get('spawn_failed_and_launched_again', 0)}")
    for k, b in s["by_protocol_and_mode"].items():
        print(f"  {k:<28} runs {b['runs']:>3}  failures {b['failures_injected']:>3}  equal {b['equal']:>3}  "
              f"trace pass {b['trace_pass']:>3}")
