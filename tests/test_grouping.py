"""Forming the groups (Jitsumoto et al., Guermouche and Ropars 2011 §4): coverage, RPCS, cost equations, METIS/RCB, CLI.

No timing assertions here: speed is measured in benchmarks/grouping_scaling.py.
"""

import argparse
import json
import shutil

import numpy as np
import pytest

from rrcheck.errors import UsageError
from rrcheck.grouping import CommGraph, from_groups, make_grouping, validate
from rrcheck.grouping import cli, nas, partition, placement
from rrcheck.grouping.groups import compact
from rrcheck.grouping.capture import FirstIterationCapture, from_sends
from rrcheck.grouping.cost import cost_eq1, evaluate, node_restart_ratio, restart_ratio
from rrcheck.grouping.io import load_graph, load_grouping, save_graph
from rrcheck.grouping.coastline import mercator_latitudes, ocean_points
from rrcheck.grouping.patterns import _block_ocean, cgpop, cgpop_ellipses, geofem, grid2d, grid3d, load_pattern, node_block
from rrcheck.grouping.placement import dual_bisection, grid_cells
from rrcheck.grouping.rpcs import NodeGrid, propagate_group_ids, rpcs_regions
from rrcheck.grouping.spacecurve import curve_distribution, generalized_hilbert


def _stencil_on_nodes(p=(8, 8), nodes=(4, 4)):
    """A small 5-point process grid placed on a node grid (processes ≠ nodes)."""
    cells = grid_cells(p)
    n = len(cells)
    ids = np.arange(n).reshape(p)
    edges = [(int(ids[x, y]), int(ids[x + dx, y + dy]), 1.0)
             for x in range(p[0]) for y in range(p[1]) for dx, dy in ((1, 0), (0, 1))
             if x + dx < p[0] and y + dy < p[1]]
    edges += [(b, a, v) for a, b, v in edges]
    return CommGraph.from_edges(n, edges, coords=cells, node_of=dual_bisection(cells, nodes),
                                node_coords=grid_cells(nodes))


def _covers_once(group_of, n, k):
    assert len(group_of) == n
    assert sorted(set(group_of)) == list(range(k))


# ---------------------------------------------------------------- coverage validation
def test_validate_accepts_a_grouping_covering_every_process_once():
    assert validate([0, 1, 1, 0, 2], 5) == (0, 1, 1, 0, 2)


@pytest.mark.parametrize("group_of, n, words", [
    ([0, 1], 3, "each of the 3 processes"),
    ([0, -1, 1], 3, "0 or more"),
    ([0, 2, 2], 3, "group 1 has no process"),
    ([0, 0.5, 1], 3, "integers"),
    ([[0, 1]], 2, "one group id to each"),
])
def test_validate_rejects_bad_groupings_with_one_sentence(group_of, n, words):
    with pytest.raises(UsageError, match=words):
        validate(group_of, n)


def test_from_groups_exact_cover():
    assert from_groups([[0, 3], [1, 2]], 4) == (0, 1, 1, 0)
    with pytest.raises(UsageError, match="process 1 is in groups 0 and 1"):
        from_groups([[0, 1], [1, 2, 3]], 4)
    with pytest.raises(UsageError, match="process 3 is in no group"):
        from_groups([[0, 1], [2]], 4)
    with pytest.raises(UsageError, match="not a process"):
        from_groups([[0, 1, 7]], 2)


# ---------------------------------------------------------------- graphs and capture
def test_from_edges_sums_both_directions_and_drops_self_messages():
    g = CommGraph.from_edges(3, [(0, 1, 5), (1, 0, 3), (1, 1, 100), (1, 2, 2)])
    assert g.n_edges == 2
    assert g.total_volume == 10.0                   # self-message excluded from D
    assert g.cut_volume([0, 0, 1]) == 2.0
    assert g.cut_volume([0, 1, 1]) == 8.0


@pytest.mark.parametrize("edges, words", [
    ([(0, 5, 1)], "outside 0..2"),
    ([(0, 1, -1)], "non-negative"),
    ([(0, 1)], "triples"),
    ([(0.5, 1, 1)], "integer process ranks"),
])
def test_from_edges_rejects_bad_edges(edges, words):
    with pytest.raises(UsageError, match=words):
        CommGraph.from_edges(3, edges)


def test_node_graph_is_step_1_process_log_to_node_log():
    g = CommGraph.from_edges(4, [(0, 1, 5), (1, 2, 7), (2, 3, 1), (3, 0, 2)], node_of=[0, 0, 1, 1])
    ng = g.node_graph()
    assert ng.n == 2 and list(ng.vweights) == [2, 2]
    assert ng.total_volume == 9.0                   # 7 + 2 cross nodes; 5 and 1 stay inside


def test_first_iteration_capture_ignores_later_iterations():
    cap = FirstIterationCapture(3)
    cap.send(0, 1, 10)
    cap.send(0, 1, 10)
    cap.end_iteration()
    cap.send(1, 2, 99)
    g = cap.graph()
    assert g.total_volume == 20.0 and g.n_edges == 1
    events = [{"kind": "send", "src": 0, "dst": 2, "size": 4}, {"kind": "recv", "src": 0, "dst": 2},
              {"kind": "iteration_end"}, {"kind": "send", "src": 1, "dst": 2, "size": 4}]
    assert from_sends(3, events).total_volume == 4.0


# ---------------------------------------------------------------- RPCS
@pytest.mark.parametrize("shape", [(6, 5), (7, 7), (10, 3), (1, 9)])
def test_rpcs_2d_grid_gives_exactly_k_box_groups_covering_every_node_once(shape):
    grid = NodeGrid(grid_cells(shape))
    for k in range(1, int(np.prod(shape)) + 1):
        regions = rpcs_regions(grid, k, [0, 0])
        assert len(regions) == k
        ids = propagate_group_ids(grid, regions)
        _covers_once(ids.ravel().tolist(), int(np.prod(shape)), k)
        for gid, (lo, hi) in enumerate(regions):     # §IV.C propagation fills each box
            assert np.all(ids[lo[0]:hi[0], lo[1]:hi[1]] == gid)


@pytest.mark.parametrize("shape", [(4, 3, 5), (12, 12, 10), (2, 2, 2)])
def test_rpcs_3d_grid_gives_exactly_k_groups_covering_every_node_once(shape):
    grid = NodeGrid(grid_cells(shape))
    for k in sorted({1, 2, 3, 5, 7, 8, 16, 100, int(np.prod(shape))} & set(range(1, int(np.prod(shape)) + 1))):
        regions = rpcs_regions(grid, k, [0, 0, 0])
        ids = propagate_group_ids(grid, regions)
        _covers_once(ids.ravel().tolist(), int(np.prod(shape)), k)
        sizes = [int(np.prod(np.subtract(hi, lo))) for lo, hi in regions]
        assert sum(sizes) == int(np.prod(shape))


def test_rpcs_steps_3_to_8_cut_across_the_narrower_axis():
    # 36 x 40 nodes (CGPOP's grid): Y is wider, so the first border crosses X at y = 20.
    regions = rpcs_regions(NodeGrid(grid_cells((36, 40))), 2, [0, 0])
    assert regions == [((0, 0), (36, 20)), ((0, 20), (36, 40))]
    regions16 = rpcs_regions(NodeGrid(grid_cells((36, 40))), 16, [0, 0])
    assert {(hi[0] - lo[0], hi[1] - lo[1]) for lo, hi in regions16} == {(9, 10)}


def test_rpcs_on_processes_keeps_each_node_whole_and_covers_every_process():
    g = _stencil_on_nodes()
    for k in (1, 2, 3, 4, 7, 16):
        group_of = make_grouping(g, "rpcs", k)
        _covers_once(group_of, g.n, k)
        for node in range(16):
            assert len({group_of[p] for p in np.flatnonzero(g.node_of == node)}) == 1
        e = evaluate(g, group_of)
        assert e["R_node"] == pytest.approx(e["R_process"])   # whole nodes: eq. (3) = eq. (2)


def test_rpcs_on_3d_process_grid():
    g = geofem(p=6, nodes=(3, 3, 2), s=2)              # 12 processes on each of 18 nodes
    for k in range(1, 19):
        group_of = make_grouping(g, "rpcs", k)
        _covers_once(group_of, 216, k)
        for node in range(18):
            assert len({group_of[p] for p in np.flatnonzero(g.node_of == node)}) == 1
    # 2 groups: the widest axis (X, tie with Y) is cut at its middle vertex: 2 + 1 columns
    assert sorted(np.bincount(make_grouping(g, "rpcs", 2))) == [72, 144]


def test_rpcs_errors_are_usage_errors():
    with pytest.raises(UsageError, match="cannot form 50 groups on 30 nodes"):
        make_grouping(grid2d(6, 5), "rpcs", 50)
    with pytest.raises(UsageError, match="needs node grid coordinates"):
        make_grouping(CommGraph.from_edges(2, [(0, 1, 1)]), "rpcs", 2)


# ---------------------------------------------------------------- cost model
def test_cost_equations_on_a_hand_computed_example():
    # 4 processes, D = 10+10+5+10 = 35, groups {0,1} {2,3}: B = 5 (the 1->2 message).
    g = CommGraph.from_edges(4, [(0, 1, 10), (1, 0, 10), (1, 2, 5), (2, 3, 10)], node_of=[0, 1, 1, 2])
    e = evaluate(g, [0, 0, 1, 1])
    assert e["B"] == 5 and e["D"] == 35 and e["L"] == pytest.approx(1 / 7)
    assert e["R_process"] == pytest.approx((2 ** 2 + 2 ** 2) / 4 ** 2)          # eq. (2): 0.5
    # eq. (3): node 0 -> {g0}: 2, node 1 -> {g0, g1}: 4, node 2 -> {g1}: 2; 8 / (4 * 3)
    assert e["R_node"] == pytest.approx(8 / 12)
    assert e["process_fault_cost"] == pytest.approx(0.23 / 7 + 0.124 * 0.5)
    assert e["node_fault_cost"] == pytest.approx(0.23 / 7 + 0.124 * 2 / 3)
    assert (e["groups"], e["min_group_size"], e["max_group_size"]) == (2, 2, 2)
    assert e["pct_logged"] == pytest.approx(100 / 7) and e["pct_rolled_back"] == pytest.approx(50)


def test_cost_eq1_and_restart_ratios():
    assert cost_eq1(0.5, 0.25) == pytest.approx(0.23 * 0.5 + 0.124 * 0.25)
    assert cost_eq1(1, 1, alpha=1, beta=2) == 3
    assert restart_ratio([0, 0, 0, 1]) == pytest.approx(10 / 16)
    assert node_restart_ratio([0, 1, 2, 3], [0, 0, 1, 1]) == pytest.approx(4 / 8)
    # one group: everything rolls back, nothing is logged
    e = evaluate(grid2d(3, 3), [0] * 9)
    assert (e["L"], e["R_process"], e["node_fault_cost"]) == (0.0, 1.0, pytest.approx(0.124))


def test_evaluate_rejects_a_grouping_that_misses_processes_or_a_bad_placement():
    with pytest.raises(UsageError, match="each of the 4 processes"):
        evaluate(grid2d(2, 2), [0, 1, 1])
    with pytest.raises(UsageError, match="node_of must give"):
        evaluate(grid2d(2, 2), [0, 0, 1, 1], node_of=[0, 1])


# ---------------------------------------------------------------- METIS, RCB, node, bisection
@pytest.mark.parametrize("method", ["metis", "kmetis", "pmetis"])
def test_metis_wrappers_form_k_balanced_groups(method):
    g = grid2d(8, 8)
    group_of = make_grouping(g, method, 4)
    _covers_once(group_of, 64, 4)
    e = evaluate(g, group_of)
    assert e["max_group_size"] <= 17 and e["edge_cut"] <= 2 * 24   # a good 4-way cut of an 8x8 grid


def test_metis_separates_two_cliques_with_no_cut():
    edges = [(a, b, 3) for a in range(4) for b in range(4) if a != b]
    edges += [(a + 4, b + 4, 3) for a, b, _ in edges]
    g = CommGraph.from_edges(8, edges)
    for method in ("kmetis", "pmetis"):
        assert evaluate(g, make_grouping(g, method, 2))["edge_cut"] == 0


def test_metis_node_level_keeps_nodes_whole():
    g = _stencil_on_nodes()
    group_of = make_grouping(g, "pmetis", 4, level="node")
    for node in range(16):
        assert len({group_of[p] for p in np.flatnonzero(g.node_of == node)}) == 1


def test_rcb_bisects_coordinates_at_weighted_quantiles():
    assert list(partition.rcb(np.arange(10.0)[:, None], 2)) == [0] * 5 + [1] * 5
    assert list(partition.rcb(np.arange(4.0)[:, None], 2, weights=[3, 1, 1, 1])) == [0, 1, 1, 1]
    g = grid2d(4, 4)
    group_of = np.array(make_grouping(g, "rcb", 4)).reshape(4, 4)
    assert len({group_of[0, 0], group_of[0, 3], group_of[3, 0], group_of[3, 3]}) == 4
    assert evaluate(g, group_of.ravel())["edge_cut"] == 16      # two straight cuts of 4 edges, both ways
    with pytest.raises(UsageError, match="RCB needs coordinates"):
        make_grouping(CommGraph.from_edges(2, [(0, 1, 1)]), "rcb", 2)


def test_node_method_is_one_group_per_node_or_runs_of_nodes():
    g = CommGraph.from_edges(6, [(0, 5, 1)], node_of=[0, 0, 1, 1, 2, 2])
    assert make_grouping(g, "node", None) == (0, 0, 1, 1, 2, 2)
    assert make_grouping(g, "node", 3) == (0, 0, 1, 1, 2, 2)
    assert make_grouping(g, "node", 1) == (0,) * 6
    with pytest.raises(UsageError, match="1 to 3 groups"):
        make_grouping(g, "node", 4)


def test_bisect_by_cost_reproduces_cg_table1_row():
    g = nas.cg()
    group_of, trail = partition.bisect_by_cost(g)
    e = evaluate(g, group_of)
    assert (e["groups"], e["min_group_size"], e["max_group_size"]) == (32, 32, 32)
    assert e["pct_logged"] == pytest.approx(16.23, abs=0.01)     # Guermouche and Ropars 2011 Table 1, CG
    assert [t["groups"] for t in trail][:5] == [2, 4, 8, 16, 32]
    assert make_grouping(g, "metis", "auto") == tuple(int(x) for x in compact(group_of))


def test_straight_bisections_reproduce_lu_table1_row_and_metis_ones_flip_it():
    """Guermouche and Ropars 2011 Table 1, LU: 16 groups of 64, 9.68 % logged. The rule with straight cuts
    through the 32 × 32 grid gives exactly that; METIS's bisections cut more at 16 groups."""
    g = nas.lu()
    group_of, trail = partition.bisect_by_cost(g, bisector="rcb")
    e = evaluate(g, group_of)
    assert (e["groups"], e["min_group_size"], e["max_group_size"]) == (16, 64, 64)
    assert e["pct_logged"] == pytest.approx(9.68, abs=0.005)
    cost = {t["groups"]: t["cost"] for t in trail}
    assert cost[16] < cost[8] < 1.02 * cost[16]                  # a 1 % margin
    metis_cost = {t["groups"]: t["cost"] for t in partition.bisect_by_cost(g)[1]}
    assert metis_cost[16] > cost[16]
    with pytest.raises(UsageError, match="unknown bisector"):
        partition.bisect_by_cost(g, bisector="scotch")


# ---------------------------------------------------------------- patterns
@pytest.fixture(scope="module")
def coastline():
    return cgpop(), ocean_points()


def test_cgpop_all_ocean_control_has_no_silent_process(coastline):
    g = cgpop(land="none")
    assert np.all(np.diff(g.indptr) > 0)
    assert g.total_volume > coastline[0].total_volume


def test_cgpop_grid_is_pop_tenth_degree_mercator():
    lat = mercator_latitudes(2400)
    assert lat[0] == pytest.approx(-78.5, abs=0.02) and lat[-1] == pytest.approx(72.86, abs=0.05)
    dlat = np.diff(lat)
    assert np.allclose(dlat, 0.1 * np.cos(np.radians((lat[1:] + lat[:-1]) / 2)), rtol=1e-3)  # square cells


def test_cgpop_real_coastline_land_fraction_and_blocks(coastline):
    """Earth's mask from the package's own data (no network): about a third land on the
    grid, the continents where they belong, and blocks of land silent."""
    g, ocean = coastline
    assert ocean.shape == (3600, 2400)
    assert 0.33 < 1 - ocean.mean() < 0.38
    lat, lon = mercator_latitudes(2400), -180 + (np.arange(3600) + 0.5) * 0.1
    at = lambda la, lo: ocean[np.abs(lon - lo).argmin(), np.abs(lat - la).argmin()]  # noqa: E731
    assert not at(0.0, 20.0) and not at(40.0, -100.0) and not at(-25.0, 135.0)   # Africa, N. America, Australia
    assert at(0.0, -30.0) and at(-40.0, 80.0) and at(20.0, -150.0)               # Atlantic, Indian, Pacific
    points, ew, ns = _block_ocean(ocean, 150, 150)
    assert points.shape == (150, 150) and points.sum() == ocean.sum()
    all_land = (points == 0).ravel()
    assert 0.25 < all_land.mean() < 0.35
    degree = np.diff(g.indptr)
    assert (g.n, g.n_nodes) == (22500, 1440)
    assert np.all(degree[all_land] == 0)                       # land blocks do not communicate
    assert np.count_nonzero(degree == 0) - all_land.sum() < 100  # ocean blocks cut off by land on every side
    assert ew.max() <= 16 and ns.max() <= 24
    assert g.weights.max() <= 2 * (2 * 24 * 8) and g.weights.min() >= 2 * (2 * 8)  # both ways, 2 halo rows of 8 B


def test_cgpop_is_periodic_east_west(coastline):
    g, _ = coastline
    py = 150
    src = np.repeat(np.arange(g.n), np.diff(g.indptr))
    x_src, x_dst, y_src, y_dst = src // py, g.indices // py, src % py, g.indices % py
    wrap = (x_src == 0) & (x_dst == 149)
    assert wrap.any() and np.all(y_src[wrap] == y_dst[wrap])      # 180° W meets 180° E, row by row
    assert not ((y_src == 0) & (y_dst == 149)).any()                # no north-south wrap


def test_cgpop_controls():
    land = cgpop_ellipses().ravel()
    g = cgpop(land="ellipses")
    degree = np.diff(g.indptr)
    assert np.all(degree[land] == 0) and np.all(degree[~land] > 0)
    with pytest.raises(UsageError, match="choose coastline"):
        cgpop(land="mars")
    assert load_pattern("cgpop:ellipses").name == "cgpop:ellipses"


def test_generalized_hilbert_visits_every_cell_once_by_unit_steps():
    for w, h in ((150, 150), (36, 40), (5, 3), (1, 4)):
        c = generalized_hilbert(w, h)
        assert len({tuple(p) for p in c.tolist()}) == w * h == len(c)
        assert c.min() == 0 and tuple(c.max(axis=0)) == (w - 1, h - 1)
        assert np.all(np.abs(np.diff(c, axis=0)).sum(axis=1) == 1)         # each step to a neighbour


def test_curve_distribution_gives_each_ocean_block_once_in_runs_along_the_curve():
    """CGPOP's rule: ocean blocks in curve order, land dropped, the first B mod P
    processes one block more, each process a run of consecutive curve positions."""
    rng = np.random.default_rng(0)
    curve = rng.permutation(400)                                           # any curve order
    active = rng.random(400) < 0.7
    for nprocs in (7, 64, 279, 500):
        owner = curve_distribution(curve, active, nprocs)
        assert np.all(owner[~active] == -1) and np.all(owner[active] >= 0)  # every ocean block, once
        along = owner[curve][active[curve]]                                # owners in curve order
        assert np.all(np.diff(along) >= 0)                                 # runs: rank order along the curve
        b = int(active.sum())
        counts = np.bincount(along, minlength=nprocs)
        assert counts.sum() == b and counts.max() - counts.min() <= 1
        assert np.all(counts[: b % nprocs] == b // nprocs + 1) and np.all(counts[b % nprocs:] == b // nprocs)
        if nprocs > b:
            assert np.all(counts[b:] == 0)                                 # the last processes idle


def test_cgpop_curve_distribution_is_the_same_ocean_with_other_ranks(coastline):
    """CGPOP's own distribution: the same halo graph up to renumbering (volume, pairs,
    silent count), ranks along the curve, the idle processes last; not today's graph."""
    g, _ = coastline
    c = cgpop(distribution="curve")
    assert c.name == "cgpop:coastline:distribution=curve"
    assert (c.n, c.total_volume, c.n_edges) == (g.n, g.total_volume, g.n_edges)
    assert np.array_equal(np.sort(np.diff(c.indptr)), np.sort(np.diff(g.indptr)))
    holding = 22500 - 6675                                                 # one ocean block each
    assert np.all(np.diff(c.indptr)[holding:] == 0) and c.coords is None
    assert not np.array_equal(c.indices, g.indices)
    per_node = np.bincount(c.node_of)
    assert per_node.min() >= 15 and per_node.max() <= 16
    assert np.all(np.bincount(c.node_of[:holding], minlength=1440) >= 10)  # the ocean on every node


def test_cgpop_graph_placement_puts_rpcs_borders_on_graph_cuts(coastline):
    """The graph placement bisects the halo graph along the node grid's midlines, the
    lines RPCS cuts, so RPCS's 16 groups cost far less than on the geometric placement."""
    g, _ = coastline
    p = load_pattern("cgpop:placement=graph")
    per_node = np.bincount(p.node_of)
    assert per_node.min() == 15 and per_node.max() == 16
    assert (p.total_volume, p.n_edges) == (g.total_volume, g.n_edges)      # same graph, other nodes
    def cut(h):
        return evaluate(h, make_grouping(h, "rpcs", 16))["edge_cut"]
    assert cut(p) < 0.85 * cut(g)
    with pytest.raises(UsageError, match="options are"):
        load_pattern("cgpop:placement=random")


@pytest.mark.skipif(not (shutil.which("scotch_gmap") or shutil.which("gmap")), reason="SCOTCH's gmap not installed")
def test_scotch_mapping_reads_mesh2d_terminals_x_first():
    """SCOTCH numbers a mesh2D's terminals x + y·X; read the other way round, grid
    neighbours would land nodes apart."""
    g = grid2d(32, 16)
    node_of = placement.scotch_mapping(g, (4, 2))
    assert np.all(np.bincount(node_of, minlength=8) == 64)
    cells = grid_cells((4, 2))
    hops = np.abs(cells[node_of[g.edge_sources()]] - cells[node_of[g.indices]]).sum(axis=1)
    assert hops.mean() < 0.2 and hops.max() <= 2


def test_cgpop_full_halo_sends_whole_edges_between_blocks_with_ocean(coastline):
    g, _ = coastline
    f = cgpop(halo_volume="full")
    assert set(np.unique(f.weights).tolist()) == {2 * 2 * 8.0 * (16 + 4), 2 * 2 * 8.0 * (24 + 4)}  # both ways
    assert f.n_edges > g.n_edges and f.total_volume > g.total_volume


def test_grid_patterns_with_processes_per_node():
    g = load_pattern("grid2d:8x6/4")
    assert (g.n, g.n_nodes) == (48, 12) and np.all(np.bincount(g.node_of) == 4)
    assert node_block((8, 6), 4) == (2, 2) and node_block((4, 4, 4), 8) == (2, 2, 2)
    h = load_pattern("grid3d:4x4x4/8")
    assert (h.n, h.n_nodes) == (64, 8)
    # a node holds a box of neighbours: every process shares its node with a grid neighbour
    src = np.repeat(np.arange(g.n), np.diff(g.indptr))
    same = g.node_of[src] == g.node_of[g.indices]
    assert all(same[src == p].any() for p in range(g.n))
    assert grid2d(4, 4).n_nodes == 16                                  # default: vertices are nodes
    for bad in ("grid2d:8x6/5", "grid2d:8x6/0", "grid2d:8x6/x"):
        with pytest.raises(UsageError):
            load_pattern(bad)


def test_scaling_fit_separates_a_per_call_constant():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from grouping_scaling import fit, fit_with_constant
    ns = np.array([1e4, 4e4, 1.6e5, 6.4e5, 1e6])
    ts = 0.03 + 2e-7 * ns ** 1.0                                   # kmetis-like: constant + linear
    f = fit_with_constant(ns, ts)
    assert f["exponent"] == pytest.approx(1.0, abs=0.01)
    assert f["constant_s"] == pytest.approx(0.03, rel=0.02)
    assert fit(ns, ts)[0] < 0.9                                    # a plain power law reads it as sub-linear


def test_cgpop_like_pattern_has_full_nodes(coastline):
    per_node = np.bincount(coastline[0].node_of)
    assert per_node.min() >= 15 and per_node.max() <= 16          # FX10 nodes have 16 cores


def test_geofem_and_nas_patterns_sizes():
    g = geofem()
    assert (g.n, g.n_nodes) == (28 ** 3, 1440)
    assert np.diff(g.indptr).max() == 26
    for name, build in nas.NAS_PATTERNS.items():
        assert build().n == 1024, name
    assert grid3d(3, 4, 5).n_edges == 2 * 4 * 5 + 3 * 3 * 5 + 3 * 4 * 4


# ---------------------------------------------------------------- CLI and files
def _run_cli(argv, capsys):
    parser = argparse.ArgumentParser(prog="rrcheck")
    cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    rc = cli.run(args)
    return rc, capsys.readouterr().out


def test_cli_group_json_output(capsys):
    rc, out = _run_cli(["group", "grid2d:8x8", "--method", "rpcs", "--groups", "4", "--json"], capsys)
    assert rc == 0
    r = json.loads(out)
    assert (r["groups"], r["min_group_size"], r["max_group_size"]) == (4, 16, 16)
    assert r["synthetic"] is True and r["method"] == "rpcs"
    for key in ("pct_rolled_back", "pct_logged", "process_fault_cost", "node_fault_cost", "edge_cut"):
        assert key in r
    assert r["pct_rolled_back"] == pytest.approx(25.0)
    assert r["edge_cut"] == 32                          # two cuts of 8 edges, both directions


def test_cli_group_table_output_and_save(tmp_path, capsys):
    path = tmp_path / "grouping.json"
    rc, out = _run_cli(["group", "nas-lu", "--method", "kmetis", "--groups", "16", "--save", str(path)], capsys)
    assert rc == 0 and "node fault cost, eq. (3)" in out and "SYNTHETIC" in out
    group_of = load_grouping(path, 1024)
    assert len(set(group_of)) == 16


@pytest.mark.parametrize("argv, words", [
    (["group", "nosuch", "--method", "rpcs", "--groups", "2"], "unknown pattern 'nosuch'"),
    (["group", "grid2d:4x4", "--method", "spectral", "--groups", "2"], "unknown method 'spectral'"),
    (["group", "grid2d:4x4", "--method", "rpcs", "--groups", "two"], "--groups must be a positive integer"),
    (["group", "grid2d:4x4", "--method", "rpcs", "--groups", "0"], "--groups must be a positive integer"),
    (["group", "grid2d:4x4", "--method", "rpcs"], "needs a number of groups"),
    (["group", "grid2d:4x4", "--method", "rcb", "--groups", "auto"], "needs a METIS method"),
    (["group", "grid2d:4", "--method", "rpcs", "--groups", "2"], "needs 2 positive sizes"),
    (["group", "grid2d:4x4", "--method", "metis", "--groups", "99"], "1 to 16 groups"),
])
def test_cli_user_errors_raise_usage_error(argv, words, capsys):
    with pytest.raises(UsageError, match=words):
        _run_cli(argv, capsys)


def test_graph_file_round_trip_and_bad_file(tmp_path, capsys):
    g = _stencil_on_nodes((4, 4), (2, 2))
    path = tmp_path / "graph.json"
    save_graph(g, path)
    h = load_graph(path)
    assert (h.n, h.n_edges, h.total_volume) == (g.n, g.n_edges, g.total_volume)
    rc, out = _run_cli(["group", str(path), "--method", "rpcs", "--groups", "2", "--json"], capsys)
    assert json.loads(out)["synthetic"] is False
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "rrcheck.commgraph", "schema_version": 2, "n": 2, "edges": []}))
    with pytest.raises(UsageError, match="schema_version"):
        load_graph(bad)
    with pytest.raises(UsageError, match="no such file"):
        load_pattern(str(tmp_path / "missing.json"))
