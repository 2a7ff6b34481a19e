"""The cost model: Jitsumoto et al. equations (1)–(3) and Guermouche and Ropars §4's metrics (Table 1).

  (1) Cost = α·L + β·R                    L: ratio of logged data, R: share restarted
  (2) process_fault_cost = α·B/D + β·Σ_k |P_k|² / |P|²
  (3) node_fault_cost    = α·B/D + β·Σ_n Σ_{k∈A_n} |P_k| / (|P|·N)
with α = 23 % (message logging's impact on performance) and β = 12.4 % (checkpoint/restart
impact on the MTBF) by default (Jitsumoto et al. §V.C, from its ref. [2]). B is the volume of
messages between processes of different groups (the logged volume, also the "edge-cut"
of §V.B), D the volume of all messages between distinct processes, N the number of
physical nodes and A_n the set of groups of the processes running on node n.

Guermouche and Ropars 2011 §4, Table 1 reports per application: number of groups, min and max group size,
"% Retour" (average % of processes rolled back per failure: a failure hits a uniformly
chosen process, whose whole group rolls back, i.e. 100·Σ|P_k|²/|P|²) and "% enregistré"
(% of the message volume logged, 100·B/D).
"""

from __future__ import annotations

import numpy as np

from rrcheck.errors import UsageError
from rrcheck.grouping.graph import validate

ALPHA = 0.23
BETA = 0.124


def cost_eq1(L: float, R: float, alpha: float = ALPHA, beta: float = BETA) -> float:
    """Jitsumoto et al. eq. (1): Cost = α × L + β × R."""
    return alpha * L + beta * R


def restart_ratio(group_of) -> float:
    """Σ_k |P_k|² / |P|², the expected share of processes restarted by a process fault (eq. 2)."""
    sizes = np.bincount(np.asarray(group_of))
    return float(np.sum(sizes.astype(np.float64) ** 2) / float(sizes.sum()) ** 2)


def node_restart_ratio(group_of, node_of) -> float:
    """Σ_n Σ_{k∈A_n} |P_k| / (|P|·N), the expected share restarted by a node fault (eq. 3).

    N counts the nodes that run at least one process (a node with no process has A_n = ∅
    and would only dilute the ratio).
    """
    g = np.asarray(group_of, dtype=np.int64)
    nodes = np.asarray(node_of, dtype=np.int64)
    sizes = np.bincount(g)
    pairs = np.unique(nodes * (sizes.size) + g)                   # distinct (n, k) with k ∈ A_n
    rolled = float(sizes[pairs % sizes.size].sum())
    n_nodes = np.unique(nodes).size
    return rolled / (g.size * n_nodes)


def evaluate(graph, group_of, node_of=None, alpha: float = ALPHA, beta: float = BETA) -> dict:
    """All cost figures of a grouping: Jitsumoto et al. eqs. (1)–(3) and Guermouche and Ropars Table 1's metrics.

    ``node_of`` defaults to the graph's placement; without one each process is its own
    node, and the node fault cost equals the process fault cost.
    """

    g = np.asarray(validate(group_of, graph.n), dtype=np.int64)
    if node_of is None:
        node_of = graph.node_of if graph.node_of is not None else np.arange(graph.n)
    node_of = np.asarray(node_of)
    if node_of.shape != (graph.n,) or node_of.dtype.kind not in "iu" or node_of.min() < 0:
        raise UsageError(f"node_of must give a non-negative integer node for each of the {graph.n} processes")
    sizes = np.bincount(g)
    B = graph.cut_volume(g)
    D = graph.total_volume
    L = B / D if D else 0.0
    R = restart_ratio(g)
    R_node = node_restart_ratio(g, node_of)
    return {
        "processes": int(graph.n),
        "nodes": int(np.unique(node_of).size),
        "groups": int(sizes.size),
        "min_group_size": int(sizes.min()),
        "max_group_size": int(sizes.max()),
        "alpha": alpha,
        "beta": beta,
        "B": B,
        "D": D,
        "edge_cut": B,
        "L": L,
        "R_process": R,
        "R_node": R_node,
        "process_fault_cost": cost_eq1(L, R, alpha, beta),
        "node_fault_cost": cost_eq1(L, R_node, alpha, beta),
        "pct_rolled_back": 100.0 * R,
        "pct_rolled_back_node_fault": 100.0 * R_node,
        "pct_logged": 100.0 * L,
    }
