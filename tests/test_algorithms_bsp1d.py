"""The level-synchronous 1D BFS inside the simulation.

Checked against networkx (BFS levels), closed forms (edges a top-down level
examines = the frontier's degrees) and one timeline worked out by hand.
"""

import networkx as nx
import numpy as np
import pytest

from simbfs.algorithms import ALGORITHMS
from simbfs.bfs import validate_bfs_tree
from simbfs.engine import Simulation
from simbfs.graph import EdgeList, GraphSpec, build_csr, generate_graph, search_keys
from tests.conftest import tiny_machine

GRAPHS = {
    "kronecker-9": GraphSpec("kronecker", 9, seed=3),
    "kronecker-11": GraphSpec("kronecker", 11, seed=5),
    "uniform-9": GraphSpec("uniform", 9, arity=3, seed=2),
}
MACHINES = {
    "crossbar-1": (tiny_machine(), 1),
    "crossbar-5": (tiny_machine(), 5),
    "torus-2x2x2": (tiny_machine(**{"network.topology": "torus", "network.shape": [2, 2, 2]}), 8),
}


@pytest.fixture(scope="module")
def graphs():
    return {name: generate_graph(spec) for name, spec in GRAPHS.items()}


def levels_from_parent(parent, root):
    level = np.full(len(parent), -1)
    level[root] = 0
    frontier = [root]
    children = {}
    for v, p in enumerate(parent):
        if p >= 0 and v != root:
            children.setdefault(int(p), []).append(v)
    depth = 0
    while frontier:
        depth += 1
        frontier = [c for v in frontier for c in children.get(v, [])]
        level[frontier] = depth
    return level


# cell-*: test_algorithms_cell_spe.py
@pytest.mark.parametrize("algorithm", sorted(a for a in ALGORITHMS if a.startswith("bsp1d")))
@pytest.mark.parametrize("machine_name", sorted(MACHINES))
@pytest.mark.parametrize("graph_name", sorted(GRAPHS))
def test_tree_is_valid_and_levels_are_shortest_paths(graphs, graph_name, machine_name, algorithm):
    graph = graphs[graph_name]
    machine, nodes = MACHINES[machine_name]
    sim = Simulation(machine, nodes)
    nxg = nx.Graph()
    nxg.add_nodes_from(range(graph.num_vertices))
    nxg.add_edges_from(zip(graph.edges.src.tolist(), graph.edges.dst.tolist()))
    for root in search_keys(graph, 3, seed=11):
        run = ALGORITHMS[algorithm].run(sim, graph, int(root))
        assert validate_bfs_tree(graph, int(root), run.parent).ok
        distance = nx.single_source_shortest_path_length(nxg, int(root))
        expected = np.full(graph.num_vertices, -1)
        expected[list(distance)] = list(distance.values())
        assert np.array_equal(levels_from_parent(run.parent, int(root)), expected)
        sizes = np.bincount(expected[expected >= 0])
        assert [lv.frontier_vertices for lv in run.levels] == sizes.tolist()
        assert run.time_s > 0


def test_top_down_levels_examine_every_edge_of_the_frontier(graphs):
    graph = graphs["kronecker-11"]
    sim = Simulation(tiny_machine(), 4)
    root = int(search_keys(graph, 1)[0])
    run = ALGORITHMS["bsp1d-topdown"].run(sim, graph, root)
    nxg = nx.Graph(list(zip(graph.edges.src.tolist(), graph.edges.dst.tolist())))
    nxg.remove_edges_from(nx.selfloop_edges(nxg))
    distance = nx.single_source_shortest_path_length(nxg, root)
    for lv in run.levels:
        frontier = [v for v, d in distance.items() if d == lv.level]
        assert lv.edges_examined == sum(nxg.degree(v) for v in frontier)


def test_direction_optimising_examines_fewer_edges(graphs):
    graph = graphs["kronecker-11"]
    sim = Simulation(tiny_machine(), 4)
    root = int(search_keys(graph, 1)[0])
    top_down = ALGORITHMS["bsp1d-topdown"].run(sim, graph, root)
    optimised = ALGORITHMS["bsp1d-do"].run(sim, graph, root)
    assert "bottom-up" in {lv.direction for lv in optimised.levels}
    assert sum(lv.edges_examined for lv in optimised.levels) < sum(lv.edges_examined for lv in top_down.levels)


def test_hand_worked_timeline_of_one_edge_on_two_nodes():
    """Vertices 0 and 1 joined by one edge; node 0 owns 0, node 1 owns 1.

    Level 0: node 0 scans 1 edge (10 cycles) and packs it (3): 13 ns. The
    exchange starts at 13: 8 B -> 32 B on the wire (24 B header), 32 ns at
    1 B/ns + one 100 ns hop = 132 ns, done at 145. Node 1 unpacks (7) and
    claims vertex 1 (20): 172. Allreduce of 16 B: 1 stage x 50 + 16 = 66 ns,
    level ends at 238.
    Level 1: node 1 scans and packs its edge back: 251; exchange to 383;
    node 0 unpacks (7, vertex 0 already visited): 390; allreduce: 456.
    """
    spec = GraphSpec("kronecker", 1)
    graph = build_csr(spec, EdgeList(src=np.array([0]), dst=np.array([1]), num_vertices=2))
    run = ALGORITHMS["bsp1d-topdown"].run(Simulation(tiny_machine(), 2), graph, 0)
    assert run.parent.tolist() == [0, 0]
    assert run.time_s == pytest.approx(456e-9)
    first, second = run.levels
    assert first.time_s == pytest.approx(238e-9)
    assert first.compute_s == pytest.approx((13 + 27) / 2 * 1e-9)
    assert first.communication_s == pytest.approx((132 + 66) * 1e-9)
    assert first.synchronisation_s == pytest.approx((238 - 20 - 198) * 1e-9)
    assert (first.messages, first.bytes) == (1, 8.0)
    assert second.time_s == pytest.approx(218e-9)


def test_faster_links_never_slow_a_communication_bound_run(graphs):
    graph = graphs["kronecker-11"]
    root = int(search_keys(graph, 1)[0])
    slow = tiny_machine(**{"network.injection_bandwidth": {"value": "0.1 GB/s", "source": "t"}})
    fast = tiny_machine(**{"network.injection_bandwidth": {"value": "0.2 GB/s", "source": "t"}})
    t_slow = ALGORITHMS["bsp1d-topdown"].run(Simulation(slow, 4), graph, root).time_s
    t_fast = ALGORITHMS["bsp1d-topdown"].run(Simulation(fast, 4), graph, root).time_s
    assert t_fast < t_slow


def test_every_node_owns_a_balanced_share_of_vertices():
    # 32 vertices on 20 nodes: ceil(32/20) = 2-vertex blocks would leave 4
    # nodes empty; balanced blocks give every node 1 or 2.
    from simbfs.algorithms.bsp1d.execute import BSP1DSearch

    graph = generate_graph(GraphSpec("kronecker", 5, seed=2))
    run = BSP1DSearch(ALGORITHMS["bsp1d-do"], Simulation(tiny_machine(), 20), graph, 0)
    assert run.local_vertices.sum() == 32
    assert set(run.local_vertices.tolist()) == {1, 2}
    owners = run.owner(np.arange(32))
    assert np.array_equal(np.bincount(owners, minlength=20), run.local_vertices)


@pytest.mark.parametrize("threads", [2, 3])
def test_first_frontier_neighbour_is_the_same_on_any_number_of_host_threads(monkeypatch, threads):
    """The bottom-up probe cuts its vertices into runs on the host's
    threads and joins their answers in order; each answer checked against
    a plain scan of the list."""
    from simbfs.algorithms.bsp1d import work
    graph = generate_graph(GraphSpec("kronecker", 17, seed=3))
    rng = np.random.default_rng(3)
    in_frontier = rng.random(graph.num_vertices) < 0.05
    vertices = np.flatnonzero(rng.random(graph.num_vertices) < 0.7)
    assert len(vertices) >= 1 << 16  # enough to be cut into runs
    monkeypatch.setattr(work, "worker_threads", lambda: 1)
    one = work.first_frontier_neighbour(graph, vertices, in_frontier)
    monkeypatch.setattr(work, "worker_threads", lambda: threads)
    many = work.first_frontier_neighbour(graph, vertices, in_frontier)
    assert all(np.array_equal(a, b) for a, b in zip(one, many))
    for i in rng.choice(len(vertices), 200, replace=False):
        row = graph.indices[graph.indptr[vertices[i]]:graph.indptr[vertices[i] + 1]]
        hits = np.flatnonzero(in_frontier[row])
        expected = (int(row[hits[0]]), int(hits[0]) + 1) if len(hits) else (-1, len(row))
        assert (int(many[0][i]), int(many[1][i])) == expected


def test_price_level_of_hand_counted_nodes():
    """Two nodes' counts priced at once (tiny machine: 1 GHz, one core):
    top-down, node 0 scans 2 edges (10 cycles each) and packs 1 (3) before
    the exchange, checks 1 (7) and claims 1 (20) after it; bottom-up, node 1
    probes 4 entries (5 each) and claims 2 (20 each), all before it."""
    from simbfs.algorithms.bsp1d.pricing import price_level

    node = tiny_machine().node
    top = price_level(node, "top-down", scanned=np.array([2.0, 0.0]), packed=np.array([1.0, 0.0]),
                      received=np.array([1.0, 0.0]), claimed=np.array([1.0, 0.0]))
    assert top.before_s.tolist() == pytest.approx([23e-9, 0.0])
    assert top.after_s.tolist() == pytest.approx([27e-9, 0.0])
    assert top.busy_s.tolist() == pytest.approx([50e-9, 0.0])
    bottom = price_level(node, "bottom-up", probes=np.array([0.0, 4.0]), claimed=np.array([0.0, 2.0]))
    assert bottom.busy_s.tolist() == pytest.approx([0.0, 60e-9])
    assert bottom.after_s.tolist() == [0.0, 0.0]
