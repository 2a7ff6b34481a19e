"""Application programs the protocols run (docs/design.md §2, "Application").

A program is a tuple of operations, executed in order by one process:

- ``("send", dst, tag)`` — the payload is a function of the local state, so a
  send's content depends on the order of earlier receptions;
- ``("reply", tag)`` — send to the source of the last received message;
- ``("recv", src, tag, combine)`` — ``src`` may be ``ANY`` (MPI_ANY_SOURCE);
  ``combine="sum"`` folds the payload commutatively (a reduction), so the order
  of a run of such receptions does not change the state;
- ``("nondet", k)`` — a local non-deterministic choice among ``k`` outcomes;
- ``("site",)`` — a ``checkpoint_site`` of the application;
- ``("coll", kind, root)`` — one call of a collective (``barrier``, ``reduce``,
  ``bcast``, ``alltoall``) that every process makes, in the same order.

Each workload declares its determinism class; ``rrcheck check-workload``
verifies the claim on every failure-free interleaving (checker/model/classify.py).
The built-in workloads are in checker/model/workloads.py, files are read by
checker/model/workload_file.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rrcheck.protocols.base import ANY, COLLECTIVES

DETERMINISTIC = "deterministic"
SEND_DETERMINISTIC = "send-deterministic"
NON_DETERMINISTIC = "non-deterministic"
CLASSES = (DETERMINISTIC, SEND_DETERMINISTIC, NON_DETERMINISTIC)

M32 = 0xFFFFFFFF


def mix(*xs: int) -> int:
    """A deterministic 32-bit digest (not Python's salted ``hash``)."""
    h = 0x811C9DC5
    for x in xs:
        h = ((h ^ (x & M32)) * 0x01000193) & M32
        h ^= h >> 15
    return h


def send(dst: int, tag: int = 0) -> tuple:
    return ("send", dst, tag)


def reply(tag: int = 0) -> tuple:
    return ("reply", tag)


def recv(src: int = ANY, tag: int = ANY, combine: str = "seq") -> tuple:
    return ("recv", src, tag, combine)


def nondet(k: int) -> tuple:
    return ("nondet", k)


SITE = ("site",)


def coll(kind: str, root: int = 0) -> tuple:
    assert kind in COLLECTIVES, kind
    return ("coll", kind, root)


@dataclass(frozen=True)
class Workload:
    name: str
    programs: tuple[tuple[tuple, ...], ...]
    determinism: str
    node_of: tuple[int, ...]
    description: str
    source: str = ""
    group_of: tuple[int, ...] | None = None  # default: one group per node
    fifo: bool = True
    labels: dict = field(default_factory=dict, compare=False)  # gid -> name (m1, m2, …)
    spec: dict | None = field(default=None, compare=False)  # a workload file's document (workload_file.py)

    @property
    def n(self) -> int:
        return len(self.programs)

    def comm_edges(self) -> list[tuple[int, int, int]]:
        """(src, dst, messages) of the static sends — the "first iteration"
        capture that grouping/ partitions (Jitsumoto et al. §III.B)."""
        count: dict[tuple[int, int], int] = {}
        for p, prog in enumerate(self.programs):
            for op in prog:
                if op[0] == "send":
                    count[(p, op[1])] = count.get((p, op[1]), 0) + 1
        return [(s, d, c) for (s, d), c in sorted(count.items())]

    def nth_send(self, p: int, n: int) -> tuple[int, int] | None:
        """P's ``n``-th send (from 1) as (destination, its index on that channel),
        when p's program sends to fixed destinations in a fixed order (the same in
        every run, as send-determinism has it); None otherwise."""
        seen: dict[int, int] = {}
        for op in self.programs[p]:
            if op[0] in ("coll", "reply"):
                return None
            if op[0] == "send":
                seen[op[1]] = seen.get(op[1], 0) + 1
                n -= 1
                if n == 0:
                    return op[1], seen[op[1]] - 1
        return None

