"""Run directories written by the model instead of MPI: a seeded failure-free
schedule of :class:`rrcheck.checker.model.system.System`, journaled in the runtime's
format (runtime/files.py), for tests and benchmarks of ``rrcheck predict``
that need no ``mpiexec`` or sizes no laptop launches."""
from __future__ import annotations

import json
import random
from pathlib import Path

from rrcheck.checker.model.system import Bounds, System
from rrcheck.runtime.predict.confirm import remember_internal


def synthesize(out: Path, protocol: str, workload: str, n: int, nodes: int, iters: int = 1,
               mutant: str | None = None, seed: int = 0, eager: float = 0.5) -> dict:
    """Write ``out``/run.json and one journal per rank; returns statistics.
    ``eager``: the chance that a step is the oldest enabled one rather than a
    random one (a runtime tends to serve what is waiting)."""
    from rrcheck.runtime import apps
    from rrcheck.runtime.files import RunConfig, protocol_of
    twin = apps.twin(workload, n, nodes, iters)
    cfg = RunConfig(protocol=protocol, mutant=mutant, knobs={}, workload=workload, n=n, nodes=nodes,
                    node_of=list(twin.node_of), group_of=list(twin.node_of), iters=iters, mode="soft",
                    crashes=[], checkpoint_every=0)
    proto = protocol_of(cfg)
    remember_internal(proto)
    system = System(proto, twin, Bounds(failures=0, checkpoints=0), tuple(cfg.group_of))
    rng = random.Random(seed)
    journals: list[list] = [[] for _ in range(n)]
    seqs = [0] * (n * n)
    shadow: list[list] = [[] for _ in range(n * n)]
    s = system.initial()
    messages = 0
    while True:
        acts = system.actions(s)
        if not acts:
            break
        a = acts[0] if rng.random() < eager else rng.choice(acts)
        p = system.actor(a)
        s2, obs = system.step(s, a)
        if a[0] == "deliver":
            c = a[1] * n + a[2]
            ev = ["deliver", a[1], a[2], shadow[c].pop(0)]
        elif a[0] == "recv":
            ev = ["recv", p, list(s.procs[p].mailbox[a[2]].msg.gid)]
        else:
            ev = list(a)
        sent = []
        for q in range(n):
            c = p * n + q
            before = len(s.wire[c]) - (1 if a[0] == "deliver" and a[1] == p and a[2] == q else 0)
            for pk in s2.wire[c][before:]:
                seqs[c] += 1
                shadow[c].append(seqs[c])
                sent.append([q, seqs[c], pk.kind])
        messages += sum(1 for o in obs if o[0] == "sent")
        journals[p].append({"a": ev, "F": 0, "out": sent})
        s = s2
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "run.json").write_text(cfg.model_dump_json(indent=1))
    for p, evs in enumerate(journals):
        (out_dir / f"journal-{p}-0.jsonl").write_text("".join(json.dumps(e, separators=(",", ":")) + "\n"
                                                            for e in evs))
    return {"events": sum(map(len, journals)), "messages": messages, "finished": all(
        system.finished(s, p) for p in range(n))}
