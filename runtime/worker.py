"""The program ``mpiexec`` starts on every rank: ``python -m runtime.worker RUN_DIR``.

Its loop takes, in this order, packets that have arrived, a protocol-internal
step, an application step; between them it injects the failures of the run
configuration and answers the runtime's control messages: the node-crash
barrier (every rank of a node dies before any restarts) and termination
detection (rank 0 probes twice; the run stops when two rounds find every rank
idle, every channel drained and nothing changed in between).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from runtime.files import RunConfig, load_config
from runtime.rank import Rank
from runtime.transport import Transport, mpi

PROBE_EVERY = 0.005


class Loop:
    def __init__(self, rank: Rank):
        self.r = rank
        self.net = rank.net
        self.stopped = False
        self.round = 0
        self.replies: dict = {}
        self.last_round = None
        self.last_probe = 0.0
        self.idle = False

    # -- failure injection -----------------------------------------------------------
    def due_crash(self):
        r, cfg = self.r, self.r.cfg
        for c in cfg.crashes:
            if c.index != r.K + 1 or r.events < c.at:
                continue
            trigger = c.rank if c.rank is not None else min(q for q in range(r.n) if cfg.node_of[q] == c.node)
            if trigger == r.p:
                return c
        return None

    def crash(self, c) -> None:
        r = self.r
        mates = [] if c.rank is not None else [
            q for q in range(r.n) if r.cfg.node_of[q] == c.node and q != r.p]
        victims = sorted([r.p] + mates)
        # a node of one rank crashes as that rank does (model.System.actions)
        action = ["crash_node", c.node] if len(victims) > 1 else ["crash", r.p]
        for q in mates:
            self.net.ctl_send(q, ("die", c.index, action, victims))
        base = r.F
        r.end_incarnation()
        for _, msg in self.wait_ctl("ack", len(mates)):
            base = max(base, msg[1])
        for q in mates:
            self.net.ctl_send(q, ("go", base))
        r.restart(action, c.index, victims, base)

    def wait_ctl(self, kind: str, count: int) -> list:
        """While dead: answer only the control messages, until ``count`` of ``kind`` came."""
        got = []
        while len(got) < count:
            m = self.net.ctl_poll()
            if m is None:
                time.sleep(0.0005)
                continue
            if m[1][0] == kind:
                got.append(m)
            else:
                self.on_ctl(*m, dead=True)
        return got

    # -- control messages ------------------------------------------------------------------
    def on_ctl(self, src: int, msg: tuple, dead: bool = False) -> None:
        r = self.r
        kind = msg[0]
        if kind == "probe":
            self.net.ctl_send(src, ("report", msg[1], self.report(idle=self.idle and not dead)))
        elif kind == "report":
            if msg[1] == self.round:
                self.replies[src] = msg[2]
        elif kind == "stop":
            self.stopped = True
        elif kind == "die":
            _, f, action, victims = msg
            known = r.F
            r.end_incarnation()
            self.net.ctl_send(src, ("ack", known))
            (_, go), = self.wait_ctl("go", 1)
            r.restart(action, f, victims, go[1])
        else:
            raise ValueError(f"unexpected control message {msg!r}")

    def report(self, idle: bool) -> tuple:
        r = self.r
        return (idle and r.finished(), r.events, tuple(r.seq_out), tuple(r.seq_in))

    def coordinate(self) -> None:
        """Rank 0: termination detection by two identical quiet rounds."""
        now = time.monotonic()
        if self.replies is not None and len(self.replies) == self.r.n - 1 and self.round:
            reports = dict(self.replies)
            reports[0] = self.mine
            snapshot = tuple(reports[q] for q in range(self.r.n))
            quiet = all(x[0] for x in snapshot) and all(
                snapshot[a][2][b] == snapshot[b][3][a] for a in range(self.r.n) for b in range(self.r.n))
            if quiet and snapshot == self.last_round:
                for q in range(1, self.r.n):
                    self.net.ctl_send(q, ("stop",))
                self.stopped = True
                return
            self.last_round = snapshot if quiet else None
            self.replies = None
        if self.replies is None or not self.round:
            if now - self.last_probe < PROBE_EVERY:
                return
            self.round += 1
            self.replies = {}
            self.last_probe = now
            self.mine = self.report(idle=True)
            for q in range(1, self.r.n):
                self.net.ctl_send(q, ("probe", self.round))

    # -- the loop ------------------------------------------------------------------------------
    def run(self) -> None:
        r, net = self.r, self.net
        spins = 0
        while not self.stopped:
            c = self.due_crash()
            if c is not None:
                self.crash(c)
                continue
            m = net.ctl_poll()
            if m is not None:
                self.on_ctl(*m)
                continue
            busy = False
            got = net.poll()
            if got is not None:
                r.on_wire(*got)
                busy = True
            elif r.internal_step() or r.app_step():
                busy = True
            net.progress()
            self.idle = not busy
            if busy:
                spins = 0
                continue
            if r.p == 0 and r.finished():
                self.coordinate()
            spins += 1
            if spins > 100:
                time.sleep(0.0002)
        net.flush()


def main(argv: list[str]) -> int:
    run_dir = Path(argv[0])
    cfg = load_config(run_dir)
    MPI = mpi()
    comm = MPI.COMM_WORLD.Dup()
    net = Transport(comm)
    rank = Rank(cfg, run_dir, net)
    t0 = time.perf_counter()
    try:
        rank.start()
        Loop(rank).run()
    except Exception:
        import traceback
        traceback.print_exc()
        comm.Abort(1)  # a bug in one rank must not leave the others waiting
    seconds = time.perf_counter() - t0
    rank.journal.close()
    (run_dir / f"result-{rank.p}.json").write_text(rank.result(seconds).model_dump_json())
    comm.Barrier()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
