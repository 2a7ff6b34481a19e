"""Restart vectors: the epoch of a recovery line as the restarts it recovers from.

One count per process, raised at that process's restart, compared as vector
clocks compare events (docs/findings.md §4). A packet whose epoch its receiver
:func:`covers` is stale; one whose epoch covers the receiver's is a rollback the
receiver has not made yet; two epochs neither covers (two victims of one node
crash, each restarted alone) give way to their :func:`join`, whichever order
the rollbacks arrive in. So every rollback of a survivor takes in a restart it
had not heard of, and no failure rolls a process back more than once per
victim (RecoveryBound, :meth:`rrcheck.protocols.base.Protocol.restarts_heard`).
"""
from __future__ import annotations


def none(n: int) -> tuple[int, ...]:
    """The epoch of the initial line: no restart yet."""
    return (0,) * n


def restarted(epoch: tuple, p: int) -> tuple:
    """The epoch of p's restart from a line of ``epoch``."""
    return epoch[:p] + (epoch[p] + 1,) + epoch[p + 1:]


def covers(a: tuple, b: tuple) -> bool:
    """Has a line of epoch ``a`` recovered from every restart ``b`` names?"""
    return all(x >= y for x, y in zip(a, b))


def join(a: tuple, b: tuple) -> tuple:
    """The epoch of a line that recovers from the restarts of both."""
    return tuple(max(x, y) for x, y in zip(a, b))


def heard(epoch: tuple) -> int:
    """How many restarts a line of ``epoch`` recovers from."""
    return sum(epoch)
