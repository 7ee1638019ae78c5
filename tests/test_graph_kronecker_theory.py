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
