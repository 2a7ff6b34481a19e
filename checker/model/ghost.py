"""Ghost bookkeeping (docs/design.md §4): what each process has sent and delivered in
its *current* history, kept apart from protocol state.

A history is reset to its checkpointed value when its process rolls back, so
"the current history" is exactly the execution a recovery must be consistent
with. The model checker and the MPI trace checker update histories through
these functions only.
"""
from __future__ import annotations

from rrcheck.checker.model.program import mix
from rrcheck.protocols.base import value


@value
class History:
    sent: tuple[tuple[int, ...], ...]                   # per destination: payloads, in send order
    delivered: tuple[tuple[tuple[int, int], ...], ...]  # per source: (k, payload), in delivery order
    order: int                                          # digest of the reception and choice sequence
    # per process, its sends in the causal past of this history's deliveries: a vector
    # clock over send events (Lamport's happened-before); the checker's alone, not in specs/
    _clock: tuple[int, ...]

    def delivered_ids(self, src: int) -> set[int]:
        return {k for k, _ in self.delivered[src]}


def empty(n: int) -> History:
    return History(tuple(() for _ in range(n)), tuple(() for _ in range(n)), 0, (0,) * n)


def record_send(h: History, dst: int, payload: int) -> History:
    sent = h.sent[:dst] + (h.sent[dst] + (payload,),) + h.sent[dst + 1:]
    return History(sent, h.delivered, h.order, h._clock)


def causal_past(h: History, p: int) -> tuple[int, ...]:
    """The causal past of the message p has just sent, in sends per process: what
    its history delivered, and its own sends up to this one."""
    return h._clock[:p] + (sum(map(len, h.sent)),) + h._clock[p + 1:]


def record_delivery(h: History, src: int, k: int, payload: int, past: tuple[int, ...]) -> History:
    d = h.delivered[:src] + (h.delivered[src] + ((k, payload),),) + h.delivered[src + 1:]
    return History(h.sent, d, mix(h.order, src, k), tuple(map(max, h._clock, past)))


def record_choice(h: History, choice: int) -> History:
    return History(h.sent, h.delivered, mix(h.order, 0x6E64, choice), h._clock)
