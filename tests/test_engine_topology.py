"""Topologies against closed forms and brute-force per-message routing."""

import numpy as np
import pytest

from simbfs.engine.topology import Crossbar, Torus
from simbfs.engine.topology.base import ENUMERATION_LIMIT, group_traffic
from tests.conftest import enumerated_link_loads, tiny_machine


def torus(shape):
    machine = tiny_machine(**{"network.topology": "torus", "network.shape": list(shape)})
    return Torus(int(np.prod(shape)), machine.network)


def test_ring_hops_take_the_short_way():
    ring = torus([6])
    assert [int(ring.hops(0, d)) for d in range(6)] == [0, 1, 2, 3, 2, 1]


def test_torus_hops_are_the_sum_over_dimensions():
    t = torus([4, 3, 2])
    # node id is row-major: (a, b, c) -> a*6 + b*2 + c
    assert int(t.hops(0, 2 * 6 + 1 * 2 + 1)) == 2 + 1 + 1


def test_route_length_equals_hops():
    t = torus([4, 3, 2])
    for s in range(t.nodes):
        for d in range(t.nodes):
            assert len(t.route(s, d)) == int(t.hop_matrix[s, d])


@pytest.mark.parametrize("shape", [[4, 3, 2], [1, 5], [2, 1, 3, 1], [7]])
def test_hop_matrix_equals_the_hops_of_every_pair(shape):
    t = torus(shape)
    ids = np.arange(t.nodes)
    assert np.array_equal(t.hop_matrix, t.hops(ids[:, None], ids[None, :]))


@pytest.mark.parametrize("n", [3, 5, 7, 9])
def test_uniform_all_to_all_on_an_odd_ring(n):
    # Unit traffic between every pair of an odd ring: every directed link
    # carries sum_{d=1}^{(n-1)/2} d = (n^2 - 1) / 8 units.
    ring = torus([n])
    loads = ring.link_loads(np.ones((n, n)))
    assert np.allclose(loads, (n * n - 1) / 8)


@pytest.mark.parametrize("shape", [(3, 5), (3, 5, 7), (5, 3, 1)])
def test_link_loads_equal_enumerated_link_loads(shape):
    t = torus(shape)
    traffic = np.random.default_rng(7).random((t.nodes, t.nodes))
    expected = np.zeros(t.num_links)
    for s in range(t.nodes):
        for d in range(t.nodes):
            expected[t.route(s, d)] += traffic[s, d]
    assert np.allclose(t.link_loads(traffic), expected)


def test_ties_split_evenly_and_conserve_byte_hops():
    t = torus([4, 2, 4])
    traffic = np.random.default_rng(3).random((t.nodes, t.nodes))
    loads = t.link_loads(traffic)
    # Every byte crosses exactly hops(s, d) links, whichever way it goes.
    assert loads.sum() == pytest.approx((traffic * t.hop_matrix).sum())
    # On an extent-2 dimension both directions carry the same load.
    per_dim = loads.reshape(t.nodes, 3, 2)
    assert np.allclose(per_dim[:, 1, 0], per_dim[:, 1, 1])


def test_crossbar_is_one_hop_without_internal_links():
    x = Crossbar(4)
    assert x.hop_matrix.tolist() == [[0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]]
    assert x.route(0, 3) == []
    assert x.link_loads(np.ones((4, 4))).size == 0


def test_torus_rejects_a_node_count_it_cannot_hold():
    from simbfs.errors import UserError

    machine = tiny_machine(**{"network.topology": "torus", "network.shape": [4, 4]})
    with pytest.raises(UserError, match="holds 16 nodes"):
        Torus(12, machine.network)


@pytest.mark.parametrize("shape", [(5,), (4,), (3, 4, 2), (4, 2, 4, 4, 2)])
def test_closed_forms_match_enumeration(shape):
    t = torus(shape)
    n = t.nodes
    off_diagonal = ~np.eye(n, dtype=bool)
    # hop distribution of distinct pairs
    counted = np.bincount(t.hop_matrix[off_diagonal].astype(int)) / off_diagonal.sum()
    assert np.allclose(t.hop_distribution()[: len(counted)], counted)
    # busiest link under uniform traffic
    assert t.uniform_max_link_load(3.0) == pytest.approx(t.link_loads(3.0 * off_diagonal).max())
    # one node sending to (receiving from) all others: its busiest own link
    out, into = np.zeros((n, n)), np.zeros((n, n))
    out[0, 1:] = 1.0
    into[1:, 0] = 1.0
    shares = t.hot_link_shares()
    assert shares[0] == pytest.approx(t.link_loads(out).max() / (n - 1))
    assert shares[1] == pytest.approx(t.link_loads(into).max() / (n - 1))


# (shape, group_size): sub-tori of the trailing dimensions (the closed
# form), the whole machine, one-node groups, and group sizes that are not
# a sub-torus (the base class's enumeration, with a partial last group).
@pytest.mark.parametrize("shape, group", [((4, 4), 4), ((2, 4, 3), 12), ((3, 4), 4), ((2, 2, 2, 2), 4),
                                          ((4, 3), 12), ((4, 3), 1), ((4, 3), 5), ((3, 5), 20)])
@pytest.mark.parametrize("within, across", [(1.0, 0.0), (0.0, 1.0), (1.0, 0.5)])
def test_group_max_link_load_matches_enumeration(shape, group, within, across):
    t = torus(shape)
    traffic = group_traffic(t.nodes, group, within, across)
    # routes take the + way on ties, link_loads splits them: compare the totals per link only without ties
    expected = t.link_loads(traffic).max() if any(extent % 2 == 0 for extent in shape) else \
        enumerated_link_loads(t, traffic).max()
    assert t.group_max_link_load(group, within, across) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_group_max_link_load_of_a_crossbar_is_zero():
    assert Crossbar(8).group_max_link_load(4, 1.0, 1.0) == 0.0


def test_group_max_link_load_beyond_enumeration_needs_a_closed_form():
    t = torus((8, 8, 8, 9))
    assert t.nodes > ENUMERATION_LIMIT
    assert t.group_max_link_load(t.nodes, 1.0) == t.uniform_max_link_load(1.0)
    with pytest.raises(NotImplementedError, match="too many to enumerate"):
        t.group_max_link_load(2, 1.0, 1.0)
