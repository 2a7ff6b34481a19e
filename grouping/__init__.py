"""Forming the groups of processes (correlated sets, clusters): Jitsumoto et al. and Guermouche and Ropars §4.

``make_grouping(graph, method, k)`` returns ``group_of[p]`` for every process p, by node
(hardware), METIS, RCB or RPCS (Jitsumoto et al. §III.C); ``rrcheck.grouping.cost.evaluate`` gives its
cost figures (Jitsumoto et al. eqs. (1)–(3), Guermouche and Ropars Table 1). Graphs come from
``CommGraph.from_edges`` (the first-iteration capture), ``rrcheck.grouping.patterns`` and
``rrcheck.grouping.nas`` (synthetic patterns) or a JSON file (``rrcheck.grouping.io``).

May import: only its own modules and the leaves (``rrcheck.errors``, ``rrcheck.files``);
it stands beside the protocols, below the checker and the runtime.
"""

from rrcheck.grouping.graph import CommGraph, validate
from rrcheck.grouping.groups import METHODS, from_groups, make_grouping

__all__ = ["CommGraph", "METHODS", "from_groups", "make_grouping", "validate"]
