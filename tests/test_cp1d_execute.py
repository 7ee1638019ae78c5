"""The executed cp1d-spi (simbfs/algorithms/cp1d/execute_spi.py; seed 000,
II-C to III-C): whole runs give valid BFS trees with networkx's levels and
CalcDirection's choices under every option, put the paper's formats on the
wire, follow the machine they run on, and repeat.

Every expected value comes from outside the code under test: networkx
(BFS levels, neighbourhoods, degrees), the paper's formats worked by hand
(III-B: 6 B plain edges; 8 B header, 4 or 8 B compressed edges; 512 B
packets), or its CalcDirection rule (III-A).
"""

import math

import networkx as nx
import numpy as np
import pytest

from simbfs.algorithms import ALGORITHMS
from simbfs.algorithms.cp1d.execute_spi import CP1DSPI
from simbfs.algorithms.cp1d.work import REPRESENTATIONS, CP1DOptions
from simbfs.bfs import BOTTOM_UP, TOP_DOWN, validate_bfs_tree
from simbfs.engine import Simulation
from simbfs.graph import EdgeList, GraphSpec, build_csr, search_keys
from tests.cp1d_support import bgq, heavy_count, kronecker_graphs


@pytest.fixture(scope="module")
def graphs():
    return kronecker_graphs()


def levels_from_parent(parent, root):
    """Depth of every vertex in the parent tree (-1: unreached)."""
    level = np.full(len(parent), -1)
    level[root] = 0
    children = {}
    for v, p in enumerate(parent.tolist()):
        if p >= 0 and v != root:
            children.setdefault(p, []).append(v)
    frontier, depth = [root], 0
    while frontier:
        depth += 1
        frontier = [c for v in frontier for c in children.get(v, [])]
        level[frontier] = depth
    return level


def check_run(graph, nxg, run, root, options):
    """The run is a valid BFS tree with networkx's levels, and its level
    records agree with networkx's level sizes, degrees and CalcDirection."""
    assert validate_bfs_tree(graph, root, run.parent).ok
    distance = nx.single_source_shortest_path_length(nxg, root)
    expected = np.full(graph.num_vertices, -1)
    expected[list(distance)] = list(distance.values())
    assert np.array_equal(levels_from_parent(run.parent, root), expected)
    sizes = np.bincount(expected[expected >= 0])
    assert [lv.frontier_vertices for lv in run.levels] == sizes.tolist()
    n = graph.num_vertices
    reached = np.cumsum(sizes)
    for lv in run.levels:
        frontier = [v for v, d in distance.items() if d == lv.level]
        frontier_edges = sum(nxg.degree(v) for v in frontier)
        if lv.level == 0 or not options.direction_optimising:
            assert lv.direction == TOP_DOWN
        else:  # III-A: bottom-up iff the frontier's edges outnumber the unvisited vertices
            want = BOTTOM_UP if frontier_edges > n - reached[lv.level] else TOP_DOWN
            assert lv.direction == want
        if lv.direction == TOP_DOWN:  # a top-down level reads every entry of the frontier
            assert lv.edges_examined == frontier_edges
    assert run.time_s > 0


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("scale", [10, 12])
def test_cp1d_spi_tree_is_valid_and_levels_are_shortest_paths(graphs, scale, nodes):
    graph, nxg = graphs[scale]
    sim = Simulation(bgq(nodes), nodes)
    algorithm = ALGORITHMS["cp1d-spi"]
    for root in search_keys(graph, 2, seed=11):
        run = algorithm.run(sim, graph, int(root))
        check_run(graph, nxg, run, int(root), algorithm.options)
        if nodes == 1:  # one node owns every vertex: nothing goes on the network
            assert sum(lv.edges_sent for lv in run.levels) == 0
            assert sum(lv.messages for lv in run.levels) == 0
    assert algorithm.layout(graph, sim).heavy_count == heavy_count(graph) >= 1  # load balancing is exercised


VARIANTS = {
    "no-direction-optimisation": CP1DOptions(direction_optimising=False),
    "no-compression": CP1DOptions(compression=False),
    "no-load-balancing": CP1DOptions(load_balancing=False),
    **{f"representation-{r}": CP1DOptions(representation=r) for r in REPRESENTATIONS},
}


@pytest.mark.parametrize("nodes", [1, 4, 16])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_option_variants_give_valid_shortest_path_trees(graphs, variant, nodes):
    graph, nxg = graphs[11]
    options = VARIANTS[variant]
    algorithm = CP1DSPI("x", options)
    root = int(search_keys(graph, 1, seed=3)[0])
    run = algorithm.run(Simulation(bgq(nodes), nodes), graph, root)
    check_run(graph, nxg, run, root, options)
    directions = {lv.direction for lv in run.levels}
    if options.direction_optimising:
        assert BOTTOM_UP in directions  # a Kronecker graph's central levels go bottom-up
    else:
        assert directions == {TOP_DOWN}


def test_plain_edges_take_six_bytes_each_without_compression(graphs):
    """III-B: uncompressed, every edge on the wire is 6 B."""
    graph, _ = graphs[11]
    root = int(search_keys(graph, 1, seed=3)[0])
    run = CP1DSPI("x", CP1DOptions(compression=False)).run(Simulation(bgq(16), 16), graph, root)
    assert sum(lv.edges_sent for lv in run.levels) > 0
    for lv in run.levels:
        assert lv.bytes == 6 * lv.edges_sent
        assert lv.messages >= math.ceil(lv.edges_sent / 85)


def test_compressed_edges_take_four_to_eight_bytes_plus_headers(graphs):
    """III-B, IV-B: compressed edges take 4 or 8 B, each packet an 8 B header."""
    graph, _ = graphs[11]
    root = int(search_keys(graph, 1, seed=3)[0])
    run = CP1DSPI("x").run(Simulation(bgq(16), 16), graph, root)
    assert sum(lv.edges_sent for lv in run.levels) > 0
    for lv in run.levels:
        body = lv.bytes - 8 * lv.messages
        assert 4 * lv.edges_sent <= body <= 8 * lv.edges_sent


def star(leaves):
    """Vertex 0 joined to 1..leaves: no isolated vertex."""
    n = leaves + 1
    return build_csr(GraphSpec("kronecker", max(1, math.ceil(math.log2(n)))),
                     EdgeList(src=np.zeros(leaves, dtype=np.int64), dst=np.arange(1, n, dtype=np.int64),
                              num_vertices=n))


@pytest.mark.parametrize("load_balancing", [False, True])
def test_bottom_up_level_with_nothing_left_to_visit_ends_the_search(load_balancing):
    """Star 0-{1..7}: after level 1, frontier edges 7 > 0 unvisited vertices,
    so CalcDirection picks bottom-up with no light unvisited vertex left:
    the level has no segment to read (an empty key array has no run)."""
    graph = star(7)
    run = CP1DSPI("x", CP1DOptions(load_balancing=load_balancing)).run(Simulation(bgq(4), 4), graph, 0)
    assert run.parent.tolist() == [0] * 8
    assert [(lv.frontier_vertices, lv.direction) for lv in run.levels] == [(1, TOP_DOWN), (7, BOTTOM_UP)]


@pytest.mark.parametrize("first, second", [("cp1d.heavy_vertices=4", "cp1d.heavy_vertices=1"),
                                           ("cp1d.index_stride=64", "cp1d.index_stride=8")])
def test_layout_follows_the_machine_it_runs_on(graphs, first, second):
    """A shared instance (ALGORITHMS['cp1d-spi']) run on one machine and then
    on another with a different LB or index stride gives the second run the
    second machine's layout: the same records as a fresh instance (the
    layout cache is keyed by LB and the index stride too, not by the graph,
    nodes and threads only)."""
    graph, _ = graphs[12]
    root = int(search_keys(graph, 1, seed=11)[0])
    shared = CP1DSPI("x")
    shared.run(Simulation(bgq(4, first), 4), graph, root)
    reused = shared.run(Simulation(bgq(4, second), 4), graph, root)
    fresh = CP1DSPI("y").run(Simulation(bgq(4, second), 4), graph, root)
    layout = shared.layout(graph, Simulation(bgq(4, second), 4))
    machine = bgq(4, second)
    assert (layout.heavy_count, layout.index_stride) == (heavy_count(graph, machine.section("cp1d").heavy_vertices),
                                                         machine.section("cp1d").index_stride)
    assert reused.levels == fresh.levels


def test_same_run_twice_gives_identical_parents_and_records(graphs):
    graph, _ = graphs[12]
    root = int(search_keys(graph, 1, seed=11)[0])
    machine = bgq(16)
    algorithm = CP1DSPI("x")
    a = algorithm.run(Simulation(machine, 16), graph, root)
    b = algorithm.run(Simulation(machine, 16), graph, root)
    c = CP1DSPI("y").run(Simulation(bgq(16), 16), graph, root)
    assert BOTTOM_UP in {lv.direction for lv in a.levels}
    for other in (b, c):
        assert np.array_equal(a.parent, other.parent)
        assert a.levels == other.levels
        assert a.time_s == other.time_s
