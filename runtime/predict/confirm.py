"""Confirmation of a witness on the model and its counterexample file
(rrcheck.runtime.predict, step 4)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from rrcheck.errors import UsageError
from rrcheck.runtime.predict.clocks import Trace
from rrcheck.runtime.predict.hazards import Candidate

CONFIRM_SECONDS = 10.0      # steered walks per witness, CPU-bounded by wall clock
MAX_CONFIRMATIONS = 8        # witnesses tried on the model before reporting the rest unconfirmed


@dataclass
class Confirmation:
    confirmed: bool
    reason: str = ""
    events: list = field(default_factory=list)
    violation: object = None
    checkpoints: int = 0           # the bound the counterexample needs


def remember_internal(proto) -> None:
    """The protocol's internal steps of a process whose state did not change
    are those of the last step: asked once (a handler is a pure function;
    with 64 ranks, asking a logger again is most of a replay's cost)."""
    ask, last = proto.internal, {}

    def internal(ctx, p, vol, stab, may_checkpoint):
        hit = last.get(p)
        if hit is not None and hit[0] is vol and hit[1] is stab and hit[2] == may_checkpoint:
            return hit[3]
        got = ask(ctx, p, vol, stab, may_checkpoint)
        last[p] = (vol, stab, may_checkpoint, got)
        return got
    proto.internal = internal


def confirm(trace: Trace, cfg, cand: Candidate, properties=None) -> Confirmation:
    """Replay the cut on the model, inject the failure, search the recovery."""
    from rrcheck.checker.invariants import Judge, applicable
    from rrcheck.checker.model.system import Bounds, System
    from rrcheck.runtime import apps
    from rrcheck.runtime.check import failure_free_finals
    from rrcheck.runtime.files import protocol_of
    proto = protocol_of(cfg)
    remember_internal(proto)
    workload = apps.twin(cfg.workload, cfg.n, cfg.nodes, cfg.iters)
    holes = set(cand.holes)
    prefix = [trace.events[p][i] for p, i in trace.order
              if i < cand.frontier[p] and (p, i + 1) not in holes]
    bounds = Bounds(failures=1, checkpoints=10 ** 9, crash_kinds=("process", "node"))
    system = System(proto, workload, bounds, tuple(cfg.group_of))
    judge = Judge(system, properties or applicable(proto.name), failure_free_finals(system))
    s = system.initial()
    actions = []
    for e in prefix:
        a = e.a
        if a[0] == "recv":
            a = next((("recv", e.p, i) for i, m in enumerate(s.procs[e.p].mailbox) if m.msg.gid == e.got), None)
        elif a[0] == "deliver":
            a = ("deliver", a[1], a[2], 0)
        if a is None or a not in system.actions(s):
            return Confirmation(False, f"the cut does not replay on the model at rank {e.p}'s event {e.i} "
                                f"{list(e.a)}")
        s2, obs = system.step(s, a)
        v = judge.transition(s, a, s2, obs) or judge.state(s2)
        if v:
            return Confirmation(True, "violated before the failure", actions + [a], v,
                                max(pr.ckpts for pr in s2.procs))
        actions.append(a)
        s = s2
    # no checkpoint beyond those of the run: the recovery is searched, not new checkpoint waves
    system.bounds = bounds = Bounds(failures=1, checkpoints=max(pr.ckpts for pr in s.procs),
                                    crash_kinds=("process", "node"))
    crash = (cand.kind, cand.target)
    if crash not in system.actions(s):
        return Confirmation(False, f"the model does not enable {list(crash)} at that cut")
    s2, obs = system.step(s, crash)
    actions.append(crash)
    v = judge.transition(s, crash, s2, obs) or judge.state(s2)
    if v:
        return Confirmation(True, "", actions, v, bounds.checkpoints)
    found = _steer(system, judge, s2, cand)
    if found is None:
        return Confirmation(False, f"no recovery found that breaks an invariant ({WALKS} steered walks)")
    return Confirmation(True, "", actions + found[0], found[1], bounds.checkpoints)


WALKS = 60


def _steer(system, judge, start, cand: Candidate):
    """Random walks of the recovery, steered to the witness's alternative
    match: the re-executed reception takes the alternative message as soon
    as it is there, and not the original one before. Returns (actions,
    violation) or None."""
    import random
    from rrcheck.checker.model.system import CRASHES
    w = cand.r[0]
    x, dst, k = cand.message
    t0 = time.perf_counter()
    for seed in range(WALKS):
        rng = random.Random(seed)
        s, trace, took_alt, rolled = start, [], False, False
        for _ in range(system.bounds.depth):
            if rolled and len(s.procs[x].ghost.sent[dst]) > k:
                break  # the message was sent again, equal (NoOrphan is judged at the send)
            acts = [a for a in system.actions(s) if a[0] not in CRASHES]
            if not acts:
                v = judge.terminal(s)
                if v:
                    return trace, v
                break
            pick = None
            if not took_alt and cand.alternative[0] == "choice":
                if ("choose", w, cand.alternative[1]) in acts:
                    pick, took_alt = ("choose", w, cand.alternative[1]), True
                else:
                    acts = [a for a in acts if a != ("choose", w, cand.original[1])] or acts
            elif not took_alt:
                mail = s.procs[w].mailbox
                for a in acts:
                    if a[0] == "recv" and a[1] == w and mail[a[2]].msg.gid == cand.alternative:
                        pick, took_alt = a, True
                        break
                if pick is None:
                    rest = [a for a in acts if not (a[0] == "recv" and a[1] == w
                                                    and mail[a[2]].msg.gid == cand.original)]
                    acts = rest or acts
            a = pick or rng.choice(acts)
            s2, obs = system.step(s, a)
            trace.append(a)
            rolled = rolled or any(o[0] == "restore" and o[1] == x for o in obs)
            v = judge.transition(s, a, s2, obs) or judge.state(s2)
            if v:
                return trace, v
            s = s2
        if time.perf_counter() - t0 > CONFIRM_SECONDS:
            break
    return None


def counterexample(cfg, conf: Confirmation, properties):
    """The confirmed witness as a checker/traces/counterexample.py counterexample, when the
    format can name the run's workload (its size arguments are procs and
    nodes only); None otherwise."""
    from rrcheck.checker.traces import counterexample as T
    from rrcheck.checker.model import workloads as W
    from rrcheck.checker.invariants import applicable
    from rrcheck.runtime import apps
    from rrcheck.runtime.files import protocol_of
    twin = apps.twin(cfg.workload, cfg.n, cfg.nodes, cfg.iters)
    try:
        named = W.make(twin.name, cfg.n, cfg.nodes)
    except UsageError:
        return None
    if named.programs != twin.programs or named.node_of != twin.node_of:
        return None
    proto = protocol_of(cfg)
    v = conf.violation
    return T.Counterexample(
        schema_version=T.SCHEMA_VERSION, tool=T.tool_version(), protocol=proto.name, mutant=cfg.mutant,
        knobs=proto.knobs, workload=twin.name, procs=cfg.n, nodes=cfg.nodes, placement=list(twin.node_of),
        grouping=list(cfg.group_of),
        bounds=T.BoundsModel(failures=1, checkpoints=conf.checkpoints, depth=10_000, crash_kinds=["process", "node"],
                             no_failure_during_recovery=False),
        properties=list(properties or applicable(proto.name)), events=T.to_json_events(conf.events),
        violation=T.ViolationModel(property=v.property, message=v.message, values=_plain(v.values)))


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, set, frozenset)):
        return [_plain(v) for v in x]
    return x if isinstance(x, (int, float, str, bool)) or x is None else str(x)
