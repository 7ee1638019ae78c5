"""CSR construction: simple undirected graph, tuple counting for TEPS."""

import networkx as nx
import numpy as np
import scipy.sparse

from simbfs.graph import EdgeList, GraphSpec, build_csr, generate_graph

TUPLES = [(0, 1), (1, 0), (0, 1), (2, 2), (2, 3), (3, 2), (4, 4), (5, 6), (6, 7), (1, 2)]


def tiny_graph():
    src, dst = (np.array(column, dtype=np.int32) for column in zip(*TUPLES))
    return build_csr(GraphSpec("kronecker", 3), EdgeList(src, dst, 8))


def csr_matrix(graph):
    data = np.ones(graph.indices.size)
    return scipy.sparse.csr_matrix((data, graph.indices, graph.indptr),
                                   shape=(graph.num_vertices,) * 2)


def test_tiny_graph_matches_networkx_simple_graph():
    graph = tiny_graph()
    reference = nx.Graph()
    reference.add_nodes_from(range(8))
    reference.add_edges_from((u, v) for u, v in TUPLES if u != v)
    for vertex in range(8):
        row = graph.indices[graph.indptr[vertex]:graph.indptr[vertex + 1]]
        assert list(row) == sorted(reference.neighbors(vertex))
    assert graph.num_input_edges == len(TUPLES)
    assert graph.num_undirected_edges == reference.number_of_edges()


def test_generated_csr_is_simple_symmetric_sorted():
    graph = generate_graph(GraphSpec("kronecker", 10))
    matrix = csr_matrix(graph)
    rows = np.repeat(np.arange(graph.num_vertices), graph.degree)
    assert not np.any(rows == graph.indices), "self-loop kept"
    assert matrix.max() == 1, "duplicate kept"
    assert (matrix != matrix.T).nnz == 0, "not symmetric"
    keys = rows.astype(np.int64) * graph.num_vertices + graph.indices
    assert np.all(np.diff(keys) > 0), "rows not sorted ascending"
    assert graph.indices.dtype == np.int32 and graph.indptr.dtype == np.int64
    # Every distinct non-loop input tuple appears, and nothing else.
    src, dst = graph.edges.src, graph.edges.dst
    keep = src != dst
    expected = {(min(u, v), max(u, v)) for u, v in zip(src[keep].tolist(), dst[keep].tolist())}
    assert graph.num_undirected_edges == len(expected)


def test_input_edges_in_component_brute_force():
    graph = tiny_graph()
    reference = nx.Graph()
    reference.add_nodes_from(range(8))
    reference.add_edges_from(TUPLES)
    for component in nx.connected_components(reference):
        visited = np.zeros(8, dtype=bool)
        visited[list(component)] = True
        brute = sum(1 for u, v in TUPLES if visited[u] and visited[v])
        assert graph.input_edges_in_component(visited) == brute
    # Component {0,1,2,3}: (0,1)x3, (2,2), (2,3), (3,2), (1,2) = 7 tuples.
    visited = np.isin(np.arange(8), [0, 1, 2, 3])
    assert graph.input_edges_in_component(visited) == 7


def test_endpoint_count_counts_self_loops_twice():
    graph = tiny_graph()
    assert graph.endpoint_count[4] == 2 and graph.degree[4] == 0
    assert graph.endpoint_count.sum() == 2 * len(TUPLES)
