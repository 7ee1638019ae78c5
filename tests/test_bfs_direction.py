"""The Beamer SC12 direction switch."""

import pytest

from simbfs.bfs import BOTTOM_UP, TOP_DOWN, choose_direction


def decide(current, **counts):
    base = dict(frontier_edges=0, unexplored_edges=1000, frontier_vertices=10,
                prev_frontier_vertices=5, num_vertices=1800, alpha=15.0, beta=18.0)
    base.update(counts)
    return choose_direction(current, **base)


def test_switch_to_bottom_up_needs_heavy_growing_frontier():
    assert decide(TOP_DOWN, frontier_edges=67) == BOTTOM_UP          # 67 > 1000/15
    assert decide(TOP_DOWN, frontier_edges=66) == TOP_DOWN           # 66 < 66.7
    assert decide(TOP_DOWN, frontier_edges=67, prev_frontier_vertices=10) == TOP_DOWN


def test_switch_back_needs_small_shrinking_frontier():
    assert decide(BOTTOM_UP, frontier_vertices=99, prev_frontier_vertices=500) == TOP_DOWN
    assert decide(BOTTOM_UP, frontier_vertices=100, prev_frontier_vertices=500) == BOTTOM_UP
    assert decide(BOTTOM_UP, frontier_vertices=50, prev_frontier_vertices=40) == BOTTOM_UP


def test_unknown_direction():
    with pytest.raises(ValueError):
        decide("sideways")
