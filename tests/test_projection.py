"""The projection's pieces against closed forms and against the executed engine."""

import numpy as np
import pytest
import simpy

from simbfs.engine import Network, make_topology
from simbfs.algorithms.bsp1d.project import exchange_estimate, seed_node_load
from simbfs.projection import Growth, Moments, NodeLoad, node_load
from tests.conftest import tiny_machine

# The fixture machine on a 512-node torus (a BG/Q midplane's shape) with
# 1 us of software per packet sent and received, so that, as on the BG/Q,
# the packets' overhead bounds an exchange.
TORUS = tiny_machine(**{"network.topology": "torus", "network.shape": [4, 4, 4, 4, 2],
                        "messaging.send_overhead": {"value": "1 us", "source": "test"},
                        "messaging.receive_overhead": {"value": "1 us", "source": "test"}})


def test_no_growth_between_equal_scales():
    growth = Growth.between(18, 18, 16)
    assert (growth.second, growth.mean, growth.largest) == pytest.approx((1.0, 1.0, 1.0))
    assert growth.of_vertex(5.0) == 1.0 and growth.of_vertex(1e9) == 1.0


def test_hubs_grow_like_the_heaviest_vertex_and_typical_vertices_like_the_reached_mean():
    growth = Growth.between(16, 20, 16)
    assert growth.of_vertex(growth.profile_max_degree) == pytest.approx(growth.largest)
    assert growth.of_vertex(growth.profile_mean_degree) == pytest.approx(growth.reached_mean)
    assert growth.reached_mean < growth.of_vertex(1000.0) < growth.largest


def test_reached_vertices_and_their_degrees_grow_as_in_generated_graphs():
    """From scale 14 to 16: the share of vertices with an edge, and their
    mean degree, change as generated graphs' do; their product, the edges,
    as the mean degree over all vertices does."""
    from simbfs.graph import GraphSpec, generate_graph

    small, large = (generate_graph(GraphSpec("kronecker", s, seed=1)).degree for s in (14, 16))
    growth = Growth.between(14, 16, 16)
    share = (np.count_nonzero(large) / large.size) / (np.count_nonzero(small) / small.size)
    reached = large[large > 0].mean() / small[small > 0].mean()
    assert growth.vertices == pytest.approx(share, rel=0.005)
    assert growth.reached_mean == pytest.approx(reached, rel=0.01)
    assert growth.vertices * growth.reached_mean == pytest.approx(large.mean() / small.mean(), rel=0.01)


def test_one_vertex_per_node_puts_the_heaviest_vertex_on_the_busiest_node():
    values = np.array([0.0, 3.0, 1.0, 7.0])
    moments = Moments.of(values, degree=np.array([1.0, 2.0, 3.0, 4.0]))
    load = node_load(moments, profile_vertices=4, target_vertices=4, nodes=4, growth=Growth.between(10, 10, 16))
    assert load.mean == pytest.approx(values.mean())
    assert load.busiest == pytest.approx(7.0 + values.mean() * 0)  # k = 1: the heaviest vertex alone


def test_seed_levels_keep_their_vertices():
    moments = Moments.of(np.array([0.0, 10.0, 0.0, 2.0]), degree=np.array([1.0, 1.0, 1.0, 1.0]))
    load = seed_node_load(moments, nodes=8, growth=Growth.between(12, 12, 16))
    assert load.mean == pytest.approx(12.0 / 8)
    assert load.busiest == pytest.approx(10.0 + 2.0 / 8)


def test_uniform_exchange_estimate_agrees_with_the_engine():
    # Every node sends the same number of edges, spread evenly over the others:
    # the estimate's assumptions hold, so it must match the executed cost model.
    nodes, edges_per_pair = 512, 200
    topology = make_topology(TORUS.network, nodes)
    network = Network(simpy.Environment(), topology, TORUS.network, TORUS.messaging)
    payload = np.full((nodes, nodes), edges_per_pair * TORUS.messaging.edge_bytes)
    executed = network.exchange_cost(payload)
    assert executed.bottleneck == "overhead"
    per_node = edges_per_pair * (nodes - 1)
    load = NodeLoad(mean=per_node, busiest=per_node)
    estimate = exchange_estimate(TORUS, topology, load, load, total_edges=per_node * nodes, frontier_vertices=1e9)
    # Poisson edge counts per destination make the estimate's packet count a
    # little higher than exactly 200 edges per pair.
    assert estimate.time_s == pytest.approx(executed.time_s, rel=0.1)
    assert estimate.payload_bytes == pytest.approx(executed.payload_bytes)
