"""The "first iteration" capture of Jitsumoto et al. §III.B and §IV.A.

RPCS hooks point-to-point MPI calls (PMPI) during the first iteration of the annotated
main loop (Fig. 2, ``#pragma RPCS MAIN_LOOP``), logs who sent how much to whom (not
the contents), and builds the communication graph from that log; from the second
iteration on only inter-group messages are logged (by the protocol, not here).

``FirstIterationCapture`` is that recorder for any driver (model checker or MPI
runtime); ``from_sends`` builds a graph from an already recorded event stream.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from rrcheck.errors import UsageError
from rrcheck.grouping.graph import CommGraph


class FirstIterationCapture:
    """Record sends until ``end_iteration()``; later sends are ignored."""

    __slots__ = ("n", "volume", "done")

    def __init__(self, n: int):
        self.n = n
        self.volume: dict[tuple[int, int], float] = defaultdict(float)
        self.done = False

    def send(self, src: int, dst: int, nbytes: float = 1.0) -> None:
        """The PMPI hook of §IV.A: one point-to-point message of ``nbytes``."""
        if not self.done:
            self.volume[(src, dst)] += nbytes

    def end_iteration(self) -> None:
        """The end of the first iteration of the main loop."""
        self.done = True

    def graph(self, coords=None, node_of=None, *, node_coords=None, name="") -> CommGraph:
        edges = [(s, d, v) for (s, d), v in self.volume.items()]
        return CommGraph.from_edges(self.n, edges, coords, node_of, node_coords=node_coords, name=name)


def _field(event, *names, default=None):
    for name in names:
        if isinstance(event, Mapping):
            if name in event:
                return event[name]
        elif hasattr(event, name):
            return getattr(event, name)
    return default


def from_sends(n: int, events: Iterable, *, coords=None, node_of=None, node_coords=None,
               end_kinds=("iteration_end", "loop_end")) -> CommGraph:
    """A graph from recorded events (mappings or objects). Events with a ``kind`` other
    than "send" are skipped; the first event whose kind is in ``end_kinds`` ends the
    first iteration. A send names ``src`` and ``dst`` and optionally its volume as
    ``nbytes``, ``size`` or ``volume`` (1 when absent)."""
    cap = FirstIterationCapture(n)
    for ev in events:
        kind = _field(ev, "kind", default="send")
        if kind in end_kinds:
            break
        if kind != "send":
            continue
        src, dst = _field(ev, "src", "source"), _field(ev, "dst", "dest")
        if src is None or dst is None:
            raise UsageError("a send event must name its src and dst; fix the trace")
        cap.send(int(src), int(dst), float(_field(ev, "nbytes", "size", "volume", default=1.0)))
    cap.end_iteration()
    return cap.graph(coords, node_of, node_coords=node_coords)
