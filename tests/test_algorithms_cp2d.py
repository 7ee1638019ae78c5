"""The previous-generation 2D BFS (cp2d) inside the simulation.

Checked against networkx (BFS levels, frontier sizes, edges examined = the
frontier's degrees), the closed form of MemoryHierarchy.access_cycles (the
L2-thrashing mechanism), the layout's own bound on fold messages, and the
command line.
"""

import json

import networkx as nx
import numpy as np
import pytest

from simbfs.algorithms import ALGORITHMS
from simbfs.algorithms.cp2d import pricing as cp2d_pricing
from simbfs.algorithms.cp2d import work as cp2d
from simbfs.bfs import validate_bfs_tree
from simbfs.cli import main
from simbfs.engine import Simulation
from simbfs.errors import UserError
from simbfs.graph import GraphSpec, generate_graph, search_keys
from simbfs.machine import load_machine
from tests.conftest import tiny_machine
from tests.test_algorithms_bsp1d import levels_from_parent

# BG/Q has no partition of 4, 8 or 16 nodes: give the torus a shape.
SHAPES = {4: "[2,2]", 8: "[2,2,2]", 16: "[2,2,2,2,1]"}


def bgq(nodes, *overrides):
    return load_machine("bluegene_q", [f"network.shape={SHAPES[nodes]}", *overrides])


@pytest.fixture(scope="module")
def graph():
    return generate_graph(GraphSpec("kronecker", 10, seed=4))


@pytest.fixture(scope="module")
def nx_graph(graph):
    g = nx.Graph()
    g.add_nodes_from(range(graph.num_vertices))
    g.add_edges_from(zip(graph.edges.src.tolist(), graph.edges.dst.tolist()))
    g.remove_edges_from(nx.selfloop_edges(g))
    return g


@pytest.mark.parametrize("nodes", [4, 8, 16])
def test_levels_are_networkx_shortest_paths(graph, nx_graph, nodes):
    sim = Simulation(bgq(nodes), nodes)
    for root in search_keys(graph, 2, seed=7):
        root = int(root)
        run = ALGORITHMS["cp2d"].run(sim, graph, root)
        assert validate_bfs_tree(graph, root, run.parent).ok
        distance = nx.single_source_shortest_path_length(nx_graph, root)
        expected = np.full(graph.num_vertices, -1)
        expected[list(distance)] = list(distance.values())
        assert np.array_equal(levels_from_parent(run.parent, root), expected)
        assert [lv.frontier_vertices for lv in run.levels] == np.bincount(expected[expected >= 0]).tolist()
        for lv in run.levels:
            frontier = [v for v, d in distance.items() if d == lv.level]
            assert lv.edges_examined == sum(nx_graph.degree(v) for v in frontier)
            assert lv.direction == "top-down"
            split = lv.compute_s + lv.communication_s + lv.synchronisation_s
            assert split == pytest.approx(lv.time_s)
        assert run.time_s > 0


def test_fold_sends_each_vertex_at_most_once_per_node_of_its_row(graph):
    """Out and Vis de-duplication: over the whole search, a vertex reaches
    its owner from at most the C nodes of its grid row (C = 4 on 16 nodes),
    however many frontier edges point at it."""
    sim = Simulation(bgq(16), 16)
    root = int(search_keys(graph, 1, seed=3)[0])
    run = ALGORITHMS["cp2d"].run(sim, graph, root)
    reached = int((run.parent >= 0).sum())
    sent = sum(lv.edges_sent for lv in run.levels)
    assert 0 < sent <= 4 * reached
    assert sent < sum(lv.edges_examined for lv in run.levels)


def test_grid_shapes_and_bad_node_counts():
    assert cp2d.grid_shape(1) == (1, 1)
    assert cp2d.grid_shape(16) == (4, 4)
    assert cp2d.grid_shape(32) == (8, 4)
    assert cp2d.grid_shape(4096) == (64, 64)
    machine = load_machine("bluegene_q")
    algorithm = ALGORITHMS["cp2d"]
    algorithm.check(machine, 1 << 20, 512)
    for nodes in (12, 49152):
        with pytest.raises(UserError, match="power of two"):
            algorithm.check(machine, 1 << 20, nodes)
    with pytest.raises(UserError, match="cp1d"):
        algorithm.check(tiny_machine(), 1 << 10, 4)


def test_bitmap_working_set_beyond_the_cache_raises_the_access_cost():
    """Closed form, on the fixture machine (tests/conftest.py: a 1 MiB
    cache, 10 cycles a hit, 100 a miss; a bitmap test issues 1 cycle, an
    edge entry 3) with 4 threads on one core: bitmaps of S bytes, touched
    alone, miss with probability m = 1 - cache / S (0 when they fit; Che's
    approximation of one structure), an access waits (1 - m) x 10 + m x 100
    cycles, and a bitmap test costs max(1 + latency, 4 threads x 1) cycles."""
    from simbfs.algorithms.cp1d import pricing

    machine = tiny_machine("node.memory_hierarchy", "cp1d",
                           **{"node.threads_per_core": {"value": 4, "source": "test"}})
    cache = 2**20

    def costs(bitmap_bytes, ops):
        residents = pricing.Residents(bitmaps=bitmap_bytes, parents=0.0, buffers=0.0)
        return pricing.op_cycles(machine, 4, residents, ops, compression=False)

    fits = costs(cache / 2, {"bitmap_test": 1.0})
    assert fits["bitmap_test"] == pytest.approx(1 + 10)
    thrashing = costs(4 * cache, {"bitmap_test": 1.0})
    assert thrashing["bitmap_test"] == pytest.approx(1 + 0.25 * 10 + 0.75 * 100)  # 78.5
    assert thrashing["edge_entry"] == fits["edge_entry"] == 4 * 3  # streamed, no latency
    # The node's bitmaps: In over n/C vertices, Out and Vis over n/R.
    assert cp2d_pricing.bitmap_working_set_bytes(2**32, 64, 64) == (2**26 + 2 * 2**26) / 8


def test_a_smaller_cache_slows_the_scan(graph):
    """On the fixture machine (misses 10x the latency of hits), a 16 B cache
    more than doubles the compute of a search that fits a 1 MiB one."""
    root = int(search_keys(graph, 1, seed=3)[0])
    fits = tiny_machine("node.memory_hierarchy", "cp1d")
    tiny_cache = tiny_machine("node.memory_hierarchy", "cp1d",
                              **{"node.memory_hierarchy.cache_size": {"value": "16 B", "source": "test"}})
    big = ALGORITHMS["cp2d"].run(Simulation(fits, 4), graph, root)
    small = ALGORITHMS["cp2d"].run(Simulation(tiny_cache, 4), graph, root)
    assert np.array_equal(big.parent, small.parent)
    assert sum(lv.compute_s for lv in small.levels) > 2 * sum(lv.compute_s for lv in big.levels)


def test_cli_run_on_bluegene_q(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBFS_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "r.json"
    args = ["run", "bluegene_q", "--algorithm", "cp2d", "--nodes", "16", "--scale", "14", "--roots", "2",
            "--set", f"network.shape={SHAPES[16]}", "--quiet", "--json", str(path)]
    assert main(args) == 0
    doc = json.loads(path.read_text())
    assert doc["algorithm"] == "cp2d" and doc["all_valid"] is True and len(doc["roots"]) == 2
    assert all(lv["direction"] == "top-down" for lv in doc["levels"])


def test_cli_refuses_a_node_count_without_a_grid(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SIMBFS_CACHE", str(tmp_path / "cache"))
    code = main(["run", "bluegene_q", "--algorithm", "cp2d", "--nodes", "12", "--set", "network.shape=[2,2,3]",
                 "--scale", "10", "--quiet"])
    assert code != 0
    assert "power of two" in capsys.readouterr().err



def reference_scan(graph, frontier, vis, visited, N, R):
    """One level's scan and claims as the module docstring defines them,
    stated over sets: node (row(v), col(u)) holds entry (u, v); per
    (grid column, target) not in Vis it packs one pair with the smallest
    parent; the owner claims each unvisited target with its smallest
    parent."""
    n = graph.num_vertices
    entries, packed, unpacked = [0] * N, [0] * N, [0] * N
    pairs = {}
    smallest = {}
    for u in frontier:
        column = u * N // n // R
        for v in graph.indices[graph.indptr[u]:graph.indptr[u + 1]].tolist():
            entries[column * R + v * N // n % R] += 1
            if (column, v) not in vis:
                smallest[column, v] = min(u, smallest.get((column, v), u))
    claims = {}
    for (column, v), u in smallest.items():
        owner = v * N // n
        holder = column * R + owner % R
        if holder != owner:
            packed[holder] += 1
            unpacked[owner] += 1
            pairs[holder, owner] = pairs.get((holder, owner), 0) + 1
        if v not in visited:
            claims[v] = min(u, claims.get(v, u))
    vis_after = set(vis) | set(smallest) | {(v * N // n // R, v) for v in claims}
    return entries, packed, unpacked, pairs, claims, vis_after


@pytest.mark.parametrize("nodes,divide,odd", [(8, False, False), (16, False, False), (16, True, False),
                                              (16, False, True)])
def test_scan_equals_its_entry_by_entry_definition(graph, nodes, divide, odd):
    """The compiled scan (cp2d/kernels.py) against the set-based definition,
    on random frontiers, Vis and visited sets; ``divide`` forces the owner's
    division path instead of the shift; ``odd`` is a graph of 1,003
    vertices (neither a power of two nor a multiple of 8, so each grid
    column's Vis bits are padded to whole bytes)."""
    from simbfs.algorithms.cp2d.kernels import claim_targets, top_down_scan
    from simbfs.bfs.partition import floor_shift
    from simbfs.graph import EdgeList, build_csr
    if odd:
        rng = np.random.default_rng(11)
        src, dst = (rng.integers(0, 1003, 8000).astype(np.int32) for _ in range(2))
        graph = build_csr(GraphSpec("kronecker", 10), EdgeList(src, dst, 1003))
    n = graph.num_vertices
    R, C = cp2d.grid_shape(nodes)
    stride = -(-n // 8) * 8
    rng = np.random.default_rng(nodes)
    for _ in range(3):
        frontier = np.sort(rng.choice(n, size=rng.integers(1, n // 4), replace=False)).astype(np.int64)
        visited = set(rng.choice(n, size=n // 3, replace=False).tolist()) | set(frontier.tolist())
        vis = {(int(c), int(v)) for c, v in zip(rng.integers(0, C, n), rng.integers(0, n, n))}
        vis_bits = np.zeros(stride * C // 8, dtype=np.uint8)
        for c, v in vis:
            vis_bits[(c * stride + v) >> 3] |= np.uint8(1 << ((c * stride + v) & 7))
        visited_bits = np.zeros(-(-n // 8), dtype=np.uint8)
        for v in visited:
            visited_bits[v >> 3] |= np.uint8(1 << (v & 7))
        best = np.full(n, -1, dtype=np.int64)
        shift = -1 if divide else floor_shift(nodes, n)
        entries, packed = np.zeros(nodes, dtype=np.int64), np.zeros(nodes, dtype=np.int64)
        pairs = np.zeros(C * nodes, dtype=np.int64)  # holder's grid column * N + owner
        unpacked, targets, parents = top_down_scan(graph.indptr, graph.indices, frontier, vis_bits, stride,
                                                   visited_bits, n, nodes, R, shift, entries, packed, pairs)
        claimed = claim_targets(targets, parents, best, vis_bits, stride, visited_bits, n, nodes, R, shift)
        e, p, u, pr, claims, vis_after = reference_scan(graph, frontier.tolist(), vis, visited, nodes, R)
        assert entries.tolist() == e and packed.tolist() == p and unpacked.tolist() == u
        holder_of = {int(k): (int(k) // nodes) * R + (int(k) % nodes) % R for k in np.flatnonzero(pairs)}
        assert {(holder_of[k], k % nodes): int(pairs[k]) for k in holder_of} == pr
        assert {int(v): int(best[v]) for v in claimed} == claims and len(claimed) == len(claims)
        assert {(c, v) for c in range(C) for v in range(n)
                if vis_bits[(c * stride + v) >> 3] >> ((c * stride + v) & 7) & 1} == vis_after
        assert {v for v in range(n) if visited_bits[v >> 3] >> (v & 7) & 1} == visited | set(claims)


@pytest.mark.parametrize("threads", [2, 3])
def test_a_search_is_the_same_on_any_number_of_host_threads(graph, monkeypatch, threads):
    """The scan runs on whole grid columns per host thread; the search
    (parents, and every level's record) is the same as on one thread."""
    sim = Simulation(bgq(16), 16)
    root = int(search_keys(graph, 1, seed=5)[0])

    runs = []
    column_runs = cp2d.Scanner.column_runs
    monkeypatch.setattr(cp2d.Scanner, "column_runs", lambda self, f: runs.append(column_runs(self, f)) or runs[-1])

    def search(workers):
        monkeypatch.setattr(cp2d, "worker_threads", lambda: workers)
        return ALGORITHMS["cp2d"].run(sim, graph, root)
    one, many = search(1), search(threads)
    assert max(len(r) for r in runs) == threads
    assert np.array_equal(one.parent, many.parent)
    assert one.time_s == many.time_s and one.levels == many.levels


def test_price_level_prices_every_node_as_it_prices_one():
    """The executed run prices all nodes' counts at once, the projection
    one node's: the same numbers, node by node."""
    machine = bgq(16)
    residents = cp2d_pricing.residents(machine, 2**20, 4, 4, 2**16)
    arrays = cp2d.Counts(frontier_ids=np.array([3.0, 0.0]), unpacked_ids=np.array([12.0, 0.0]),
                         index_words=np.array([0.0, 64.0]), frontier_headers=np.array([12.0, 40.0]),
                         entries=np.array([500.0, 2000.0]), pairs_packed=np.array([300.0, 900.0]),
                         pairs_received=np.array([280.0, 1000.0]), claimed=np.array([90.0, 400.0]))
    every = cp2d_pricing.price_level(machine, residents, 64, arrays)
    for i in range(2):
        one = cp2d_pricing.price_level(machine, residents, 64, cp2d.Counts(
            **{field: float(getattr(arrays, field)[i]) for field in arrays.__dataclass_fields__}))
        assert float(one.busy_s) == float(every.busy_s[i]) > 0
        assert (float(one.scan_s), float(one.receive_s)) == (float(every.scan_s[i]), float(every.receive_s[i]))
    # the largest term names the level: the busiest node's compute, or an exchange's own bottleneck
    busiest = float(every.busy_s.max())
    assert every.bottleneck((busiest / 2, "link"), (busiest / 3, "injection")) == "compute"
    assert every.bottleneck((busiest / 2, "link"), (busiest * 3, "injection")) == "injection"
