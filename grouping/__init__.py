"""Forming the groups of processes (correlated sets, clusters): seed 002 and seed 003 §4.

``make_grouping(graph, method, k)`` returns ``group_of[p]`` for every process p, by node
(hardware), METIS, RCB or RPCS (seed 002 §III.C); ``rrcheck.grouping.cost.evaluate`` gives its
cost figures (seed 002 eqs. (1)–(3), seed 003 Table 1). Graphs come from
``CommGraph.from_edges`` (the first-iteration capture), ``rrcheck.grouping.patterns`` and
``rrcheck.grouping.nas`` (synthetic patterns) or a JSON file (``rrcheck.grouping.io``).
"""

from rrcheck.grouping.graph import CommGraph
from rrcheck.grouping.groups import METHODS, from_groups, make_grouping, validate

__all__ = ["CommGraph", "METHODS", "from_groups", "make_grouping", "validate"]
