"""Search keys: Graph500 roots among vertices with a non-loop edge."""

import numpy as np

from simbfs.graph import EdgeList, GraphSpec, build_csr, generate_graph, search_keys


def test_distinct_eligible_deterministic():
    graph = generate_graph(GraphSpec("kronecker", 10))
    keys = search_keys(graph, 64, seed=4)
    assert keys.size == 64 and np.unique(keys).size == 64
    assert np.all(graph.degree[keys] >= 1)
    assert np.array_equal(keys, search_keys(graph, 64, seed=4))
    assert not np.array_equal(keys, search_keys(graph, 64, seed=5))


def test_self_loop_only_vertex_is_never_a_root():
    src = np.array([0, 2, 1, 2], dtype=np.int32)
    dst = np.array([1, 2, 3, 2], dtype=np.int32)
    graph = build_csr(GraphSpec("kronecker", 3), EdgeList(src, dst, 8))
    for seed in range(20):
        keys = search_keys(graph, 64, seed=seed)
        assert sorted(keys.tolist()) == [0, 1, 3]
