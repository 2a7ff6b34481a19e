"""A grouping is ``group_of[p]`` for every process p: the shape ``rrcheck check --grouping``
takes (correlated sets of Bouteiller et al., clusters of Guermouche and Ropars). ``make_grouping`` forms one by
any method; ``validate`` and ``from_groups`` check that every process is in exactly one group.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rrcheck.errors import UsageError
from rrcheck.grouping.graph import validate

METHODS = ("node", "metis", "kmetis", "pmetis", "rcb", "rpcs")
LEVELS = ("process", "node")


def from_groups(groups: Iterable[Iterable[int]], n: int) -> tuple[int, ...]:
    """Turn a list of groups (each a collection of processes) into ``group_of``, checking
    that they cover processes 0..n-1 exactly once."""
    group_of = [-1] * n
    for gid, members in enumerate(groups):
        for p in members:
            if not isinstance(p, (int, np.integer)) or not 0 <= p < n:
                raise UsageError(f"group {gid} names {p!r}, which is not a process 0..{n - 1}")
            if group_of[p] != -1:
                raise UsageError(f"process {p} is in groups {group_of[p]} and {gid}; put it in one group only")
            group_of[p] = gid
    if -1 in group_of:
        raise UsageError(f"process {group_of.index(-1)} is in no group; every process needs one group")
    return validate(group_of, n)


def compact(group_of) -> np.ndarray:
    """Renumber group ids 0..K-1 in order of first appearance (drops empty ids)."""
    g = np.asarray(group_of, dtype=np.int64)
    _, first, inv = np.unique(g, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inv]


def make_grouping(graph, method: str, k, **opts) -> tuple[int, ...]:
    """Form groups of ``graph``'s processes by ``method`` and return ``group_of``.

    method: "node" (hardware), "metis"/"kmetis" (k-way), "pmetis" (recursive bisection),
    "rcb", "rpcs". ``k`` is the number of groups; "auto" with a METIS method runs the
    cost-driven bisection of Jitsumoto et al. §II.A (``partition.bisect_by_cost``); None with
    "node" means one group per node. Options: ``level="process"|"node"`` (METIS and RCB
    partition processes, or nodes weighted by their process counts: the red bars of
    Jitsumoto et al. Figs. 7–8), ``seed``, ``alpha``, ``beta``.
    """
    from rrcheck.grouping import partition
    from rrcheck.grouping.rpcs import rpcs

    if method not in METHODS:
        raise UsageError(f"unknown grouping method {method!r}; use one of {', '.join(METHODS)}")
    level = opts.pop("level", "process")
    if level not in LEVELS:
        raise UsageError(f"unknown level {level!r}; use process or node")
    seed = int(opts.pop("seed", 1))
    alpha, beta = opts.pop("alpha", 0.23), opts.pop("beta", 0.124)
    if opts:
        raise UsageError(f"unknown grouping option {sorted(opts)[0]!r}; use level, seed, alpha or beta")
    if k == "auto":
        if method not in ("metis", "kmetis", "pmetis"):
            raise UsageError("--groups auto (cost-driven bisection) needs a METIS method; use --method metis")
    elif k is None:
        if method != "node":
            raise UsageError(f"--method {method} needs a number of groups; give --groups K")
    elif isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise UsageError(f"the number of groups must be a positive integer, got {k!r}")
    if method == "node":
        g = partition.by_node(graph, k)
    elif method == "rpcs":
        g = np.asarray(rpcs(graph, int(k)))
    else:
        target = graph.node_graph() if level == "node" else graph
        if k == "auto":
            g = partition.bisect_by_cost(target, alpha, beta, seed=seed)[0]
        elif method == "rcb":
            g = partition.rcb(target.coords, int(k), target.vweights)
        else:
            variant = "rb" if method == "pmetis" else "kway"
            g = partition.metis(target, int(k), variant=variant, seed=seed)
        if level == "node":
            node_of = graph.node_of
            g = g[node_of]
    return validate(compact(g), graph.n)
