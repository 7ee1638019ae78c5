"""Reference BFS levels agree with networkx shortest-path lengths."""

import networkx as nx
import numpy as np
import pytest

from simbfs.bfs import BOTTOM_UP, TOP_DOWN, bfs_reference, validate_bfs_tree
from simbfs.graph import GraphSpec, generate_graph, search_keys


def networkx_graph(graph):
    reference = nx.Graph()
    reference.add_nodes_from(range(graph.num_vertices))
    reference.add_edges_from(zip(graph.edges.src.tolist(), graph.edges.dst.tolist()))
    return reference


def expected_levels(reference, root, n):
    levels = np.full(n, -1)
    for vertex, distance in nx.single_source_shortest_path_length(reference, int(root)).items():
        levels[vertex] = distance
    return levels


SPECS = [
    GraphSpec("kronecker", 8, seed=1),
    GraphSpec("kronecker", 11, seed=2),
    GraphSpec("kronecker", 10, edgefactor=4, seed=3),
    GraphSpec("uniform", 10, arity=3.0, seed=4),
    GraphSpec("uniform", 9, arity=1.0, seed=5),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.cache_key())
@pytest.mark.parametrize("direction_optimising", [True, False])
def test_levels_match_networkx(spec, direction_optimising):
    graph = generate_graph(spec)
    reference = networkx_graph(graph)
    for root in search_keys(graph, 4, seed=spec.seed):
        result = bfs_reference(graph, root, direction_optimising=direction_optimising)
        assert np.array_equal(result.level, expected_levels(reference, root, graph.num_vertices))
        assert np.array_equal(result.parent != -1, result.level != -1)
        assert validate_bfs_tree(graph, root, result.parent, result.level).ok
        directions = {stats.direction for stats in result.levels}
        if not direction_optimising:
            assert directions == {TOP_DOWN}


def test_direction_optimising_uses_bottom_up_on_kronecker():
    graph = generate_graph(GraphSpec("kronecker", 11))
    root = search_keys(graph, 1)[0]
    result = bfs_reference(graph, root)
    assert BOTTOM_UP in {stats.direction for stats in result.levels}
    top_down = bfs_reference(graph, root, direction_optimising=False)
    assert result.edges_examined < top_down.edges_examined
    # Top-down examines each reached vertex's whole list exactly once.
    assert top_down.edges_examined == graph.degree[top_down.level >= 0].sum()
    assert [s.frontier_vertices for s in result.levels] == \
        list(np.bincount(result.level[result.level >= 0]))


def test_root_in_tiny_component():
    graph = generate_graph(GraphSpec("uniform", 9, arity=0.5, seed=6))
    reference = networkx_graph(graph)
    small = [c for c in nx.connected_components(reference) if 2 <= len(c) <= 4]
    assert small, "test graph should have small components"
    component = sorted(small[0])
    root = component[0]
    for direction_optimising in (True, False):
        result = bfs_reference(graph, root, direction_optimising=direction_optimising)
        assert sorted(np.flatnonzero(result.level >= 0).tolist()) == component
        assert np.array_equal(result.level, expected_levels(reference, root, graph.num_vertices))
        assert graph.input_edges_in_component(result.level >= 0) == sum(
            1 for u, v in zip(graph.edges.src, graph.edges.dst) if u in small[0] and v in small[0])


def test_bottom_up_counts_edges_up_to_first_frontier_neighbour():
    # Star 0-{1,2,3} plus 4 adjacent to 1,2,3. The root's level is always
    # top-down (as in bsp1d); a huge alpha forces bottom-up from the next
    # level on and a huge beta keeps it there.
    from simbfs.graph import EdgeList, build_csr
    src = np.array([0, 0, 0, 4, 4, 4], dtype=np.int32)
    dst = np.array([1, 2, 3, 1, 2, 3], dtype=np.int32)
    graph = build_csr(GraphSpec("kronecker", 3), EdgeList(src, dst, 8))
    result = bfs_reference(graph, 0, alpha=1e9, beta=1e9)
    assert [s.direction for s in result.levels] == [TOP_DOWN, BOTTOM_UP, BOTTOM_UP]
    # Level 0 (top-down): the root's 3 edges. Level 1 (bottom-up): 4 stops
    # at its first entry, 1, which is in the frontier: 1 edge. Level 2 has
    # nothing left to scan.
    assert [s.edges_examined for s in result.levels] == [3, 1, 0]
    assert result.parent[4] == 1 and result.level[4] == 2
