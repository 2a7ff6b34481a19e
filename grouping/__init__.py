"""Forming the groups of processes (correlated sets, clusters): seed 002 and seed 003 §4.

``make_grouping(graph, method, k)`` returns ``group_of[p]`` for every process p, by node
(hardware), METIS, RCB or RPCS (seed 002 §III.C); ``grouping.cost.evaluate`` gives its
cost figures (seed 002 eqs. (1)–(3), seed 003 Table 1). Graphs come from
``CommGraph.from_edges`` (the first-iteration capture), ``grouping.patterns`` and
``grouping.nas`` (synthetic patterns) or a JSON file (``grouping.io``).
"""

from grouping.graph import CommGraph
from grouping.groups import METHODS, from_groups, make_grouping, validate

__all__ = ["CommGraph", "METHODS", "from_groups", "make_grouping", "validate"]
