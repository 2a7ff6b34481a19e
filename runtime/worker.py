"""The program ``mpiexec`` starts on every rank: ``python -m rrcheck.runtime.worker RUN_DIR``.

Its loop takes, in this order, packets that have arrived, a protocol-internal
step, an application step; between them it injects the failures of the run
configuration and answers the runtime's control messages: the node-crash
barrier (every rank of a node dies before any restarts) and termination
detection (rank 0 probes twice; the run stops when two rounds find every rank
idle, every channel drained and nothing changed in between).
"""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from rrcheck.runtime import ulfm
from rrcheck.runtime.files import load_config
from rrcheck.runtime.rank import Rank
from rrcheck.runtime.transport import Idle, Transport, mpi

PROBE_EVERY = 0.005


def never_outlive_the_launch() -> None:
    """A rank exits once its parent (Open MPI's daemon) is gone, whatever it
    is doing: the launcher kills a hung ``mpiexec`` and its daemon, and a
    rank spinning in Python or waiting inside MPI would live on."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(3)
    threading.Thread(target=watch, daemon=True).start()


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
        r.crash_record(action, c.index, victims, base)
        if r.cfg.mode == "kill":
            for q in mates:
                self.net.ctl_send(q, ("now",))
            ulfm.die()
        for q in mates:
            self.net.ctl_send(q, ("go", base))
        r.restart(c.index, victims, base)

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
            if r.cfg.mode == "kill":  # frozen until the trigger's word or the first error
                try:
                    self.wait_ctl("now", 1)
                finally:
                    ulfm.die()
            (_, go), = self.wait_ctl("go", 1)
            r.crash_record(action, f, victims, go[1])
            r.restart(f, victims, go[1])
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
        MPI = self.net.MPI
        while not self.stopped:
            try:
                self._run()
            except MPI.Exception:
                if self.r.cfg.mode != "kill":
                    raise
                self.after_failure()

    def after_failure(self) -> None:
        """Kill mode: a rank died. Repair the communicator, then resynchronise."""
        r = self.r
        comm, dead = ulfm.repair(self.net.comm, self.net.MPI, r.run_dir, r.p)
        self.use(comm)
        self.resync(None)

    def use(self, comm) -> None:
        self.net = self.r.net = Transport(comm)
        self.round, self.replies, self.last_round, self.last_probe = 0, {}, None, 0.0

    def resync(self, born: int | None) -> None:
        """Every rank tells what it sent and received on each channel; what the
        repair lost in flight between live incarnations goes again. ``born``
        is a replacement's generation (None for a survivor)."""
        r, p = self.r, self.r.p
        info = self.net.comm.allgather((tuple(r.seq_out), tuple(r.seq_in), r.F, r.K, born))
        fresh = {q for q, x in enumerate(info) if x[4] is not None}
        if born is None:
            r.F = max([r.F] + [info[q][4] for q in fresh])
            r.K = max(x[3] for x in info)
        else:
            r.seq_in = [info[q][0][p] if q != p else r.seq_in[p] for q in range(r.n)]
        for q in range(r.n):
            if q == p:
                continue
            if q in fresh:  # addressed to a crashed incarnation: lost with it
                r.outbox.after(q, 1 << 62)
                continue
            for _, buf in r.outbox.after(q, info[q][1][p]):
                self.net.send(q, buf)

    def _run(self) -> None:
        r, net = self.r, self.net
        wait = Idle()
        while not self.stopped:
            c = self.due_crash()
            if c is not None:
                self.crash(c)
                wait.busy()
                continue
            m = net.ctl_poll()
            if m is not None:
                self.on_ctl(*m)
                wait.busy()
                continue
            got = net.poll()
            busy = got is not None
            if busy:
                r.on_wire(*got)
            elif wait.since is None:  # only an arrival changes what a rank may do next
                busy = r.internal_step() or r.app_step()
            del got
            sent = net.progress()
            self.idle = not busy
            if busy or sent:
                wait.busy()
            if busy:
                continue
            if r.p == 0 and r.finished():
                self.coordinate()
            wait.wait()
        net.flush()


def main(argv: list[str]) -> int:
    never_outlive_the_launch()
    run_dir = Path(argv[0])
    (run_dir / f"pid-{os.getpid()}").touch()  # the launcher's last resort (runtime/launch.py)
    cfg = load_config(run_dir)
    MPI = mpi()
    t0 = time.perf_counter()
    if len(argv) > 2 and argv[1] == "--replace":  # kill mode: a replacement of a dead rank
        dead = [int(x) for x in argv[2].split(",")]
        comm, me = ulfm.join(MPI, dead)
        net = Transport(comm)
        inc, events, rec = ulfm.predecessor(run_dir, me, dead)
        rank = Rank(cfg, run_dir, net, inc=inc, failures=rec["f"], events=events)
        rank.seq_out = [rank.outbox.last_seq(q) for q in range(cfg.n)]
        loop = Loop(rank)
        base, victims = rec["F"], rec["victims"]
        loop.resync(base + 1 + sorted(victims).index(me))
        rank.restart(rec["f"], victims, base)
    else:
        comm = MPI.COMM_WORLD.Dup()
        if cfg.mode == "kill":
            ulfm.errhandler(comm, MPI)
        net = Transport(comm)
        rank = Rank(cfg, run_dir, net)
        rank.start()
        loop = Loop(rank)
    try:
        loop.run()
    except Exception:
        import traceback
        traceback.print_exc()
        loop.net.comm.Abort(1)  # a bug in one rank must not leave the others waiting
    seconds = time.perf_counter() - t0
    rank.journal.close()
    tmp = run_dir / f".result-{rank.p}.tmp"
    tmp.write_text(rank.result(seconds).model_dump_json())
    os.replace(tmp, run_dir / f"result-{rank.p}.json")
    import faulthandler
    faulthandler.dump_traceback_later(8)  # where MPI's teardown waits, if it does
    loop.net.comm.Barrier()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
