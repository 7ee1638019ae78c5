"""Closed-form degrees of the simple Kronecker graph against generated graphs."""

import numpy as np
import pytest

from simbfs.graph import GraphSpec, generate_graph
from simbfs.graph.kronecker_theory import degree_moments, expected_simple_degrees


@pytest.mark.parametrize("scale", [12, 14])
def test_closed_form_moments_match_a_generated_graph(scale):
    graph = generate_graph(GraphSpec("kronecker", scale, seed=4))
    degree = graph.degree.astype(np.float64)
    expected = degree_moments(scale)
    assert expected.mean == pytest.approx(degree.mean(), rel=0.01)
    assert expected.second == pytest.approx(np.mean(degree**2), rel=0.03)
    assert expected.largest == pytest.approx(degree.max(), rel=0.05)


def test_the_vertex_with_no_one_bits_is_the_heaviest_and_degrees_fall_with_one_bits():
    degrees = expected_simple_degrees(20)
    assert np.all(np.diff(degrees) < 0)


def test_without_duplicates_the_multigraph_growth_is_the_limit():
    # Far from saturation, per-scale growth of the heaviest degree tends to
    # the multigraph's 2 (A + B) = 1.52 from above.
    ratios = [degree_moments(s + 1).largest / degree_moments(s).largest for s in (20, 30, 38)]
    assert ratios[0] > ratios[1] > ratios[2] > 1.52


@pytest.mark.parametrize("scale", [14, 16])
def test_share_of_vertices_with_an_edge_matches_a_generated_graph(scale):
    from simbfs.graph.kronecker_theory import nonisolated_share

    graph = generate_graph(GraphSpec("kronecker", scale, seed=1))
    generated = np.count_nonzero(graph.degree) / graph.num_vertices
    assert nonisolated_share(scale) == pytest.approx(generated, rel=0.005)


def test_fewer_than_three_in_ten_vertices_have_an_edge_at_scale_40():
    """The share falls with scale (71% at 16, 28% at 40): a projection that
    carries the profile's share of reached vertices to scale 40 counts
    more than twice the vertices there are to reach."""
    from simbfs.graph.kronecker_theory import nonisolated_share

    shares = [nonisolated_share(s) for s in (16, 20, 30, 40)]
    assert all(a > b for a, b in zip(shares, shares[1:]))
    assert shares[-1] == pytest.approx(0.278, abs=0.001)


@pytest.mark.parametrize("scale,threads", [(14, 16), (14, 64), (16, 64)])
def test_thread_blocks_per_vertex_match_a_generated_graph(scale, threads):
    """cp1d's blocks: the id ranges [t n / T, (t + 1) n / T) that a vertex's
    neighbours fall in, counted on the real adjacency."""
    from simbfs.graph.kronecker_theory import mean_thread_blocks

    graph = generate_graph(GraphSpec("kronecker", scale, seed=1))
    n = graph.num_vertices
    sources = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.indptr))
    pairs = np.unique(sources * threads + graph.indices.astype(np.int64) * threads // n)
    blocks = np.bincount(pairs // threads, minlength=n)
    assert mean_thread_blocks(scale, threads) == pytest.approx(blocks[graph.degree > 0].mean(), rel=0.025)
