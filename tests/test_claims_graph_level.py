"""Claims of the papers that concern the BFS itself, not a machine.

bgq.do_edge_reduction: direction optimisation examines roughly 20 times
fewer edges than a plain top-down BFS (tolerance 35%), close to the minimum
of one edge per tree vertex.
"""

import numpy as np
import pytest

from simbfs.bfs import bfs_reference
from simbfs.claims import within_tolerance
from simbfs.graph import GraphSpec, generate_graph, search_keys


@pytest.fixture(scope="module")
def graph():
    return generate_graph(GraphSpec("kronecker", 16, seed=1))


def test_direction_optimisation_edge_reduction_matches_the_claim(graph):
    ratios, per_tree_vertex = [], []
    for root in search_keys(graph, 8, seed=1):
        optimised = bfs_reference(graph, int(root))
        top_down = bfs_reference(graph, int(root), direction_optimising=False)
        examined = sum(lv.edges_examined for lv in optimised.levels)
        ratios.append(sum(lv.edges_examined for lv in top_down.levels) / examined)
        per_tree_vertex.append(examined / (np.count_nonzero(optimised.parent >= 0) - 1))
    assert within_tolerance(float(np.mean(ratios)), "bgq.do_edge_reduction")
    # "close to the minimum of one edge per tree vertex": within a small factor of it
    assert 1.0 <= float(np.mean(per_tree_vertex)) < 3.0
