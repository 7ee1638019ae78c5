"""Hand-worked message timelines on the tiny machine (tests/conftest.py).

Ports and links move 1 byte/ns, a hop takes 100 ns, a packet carries up to
1000 B plus a 24 B header on an 8 B granule.
"""

import numpy as np
import pytest
import simpy

from simbfs.engine.network import Network
from simbfs.engine.topology import make_topology
from tests.conftest import tiny_machine


def network(machine, nodes):
    env = simpy.Environment()
    return env, Network(env, make_topology(machine.network, nodes), machine.network, machine.messaging)


def deliver(env, net, log, name, src, dst, nbytes, at=0.0):
    def proc():
        yield env.timeout(at)
        yield net.send(src, dst, nbytes)
        log.append((name, round(env.now * 1e9, 6)))
    env.process(proc())


def test_one_message_costs_latency_plus_size_over_bandwidth():
    env, net = network(tiny_machine(), 2)
    log = []
    deliver(env, net, log, "a", 0, 1, 1000)  # 1000 B -> 1024 B on the wire
    env.run()
    assert log == [("a", 100 + 1024)]


def test_wire_bytes_round_to_granule_and_add_a_header_per_packet():
    m = tiny_machine().network
    assert float(m.wire_bytes(1)) == 8 + 24
    assert float(m.wire_bytes(2500)) == 2504 + 3 * 24  # three packets


def test_two_senders_contend_for_the_receivers_port():
    env, net = network(tiny_machine(), 3)
    log = []
    deliver(env, net, log, "a", 0, 2, 1000)
    deliver(env, net, log, "b", 1, 2, 1000)
    env.run()
    # b's tail leaves the ejection port one serialisation after a's.
    assert log == [("a", 1124), ("b", 2148)]


def test_software_overheads_add_to_both_ends():
    machine = tiny_machine(**{"messaging.send_overhead": {"value": "30 ns", "source": "t"},
                              "messaging.receive_overhead": {"value": "20 ns", "source": "t"}})
    env, net = network(machine, 2)
    log = []
    deliver(env, net, log, "a", 0, 1, 1000)
    env.run()
    assert log == [("a", 30 + 100 + 1024 + 20)]


def test_torus_message_pays_one_hop_latency_per_hop():
    machine = tiny_machine(**{"network.topology": "torus", "network.shape": [5]})
    env, net = network(machine, 5)
    log = []
    deliver(env, net, log, "a", 0, 2, 1000)
    env.run()
    assert log == [("a", 2 * 100 + 1024)]


def test_messages_sharing_a_torus_link_queue_on_it():
    # 0->2 and 1->2 on a 5-ring both cross link 1->2.
    machine = tiny_machine(**{"network.topology": "torus", "network.shape": [5]})
    env, net = network(machine, 5)
    log = []
    deliver(env, net, log, "a", 0, 2, 1000)
    deliver(env, net, log, "b", 1, 2, 1000)
    env.run()
    # a: head crosses 0->1 at 100 ns and 1->2 at 200 ns; tail arrives at
    # 200 + 1024. b's head must wait until a's tail has left link 1->2
    # (1224 ns), then its own 1024 ns follow.
    assert log == [("a", 1224), ("b", 1224 + 1024)]


def test_exchange_cost_of_a_crossbar_all_to_all():
    machine = tiny_machine(**{"messaging.send_overhead": {"value": "10 ns", "source": "t"}})
    env, net = network(machine, 4)
    payload = np.full((4, 4), 1000.0)
    cost = net.exchange_cost(payload)
    # each node injects 3 x 1024 B at 1 B/ns, one hop, 3 packets x 10 ns out
    assert cost.serialisation_s == pytest.approx(3 * 1024e-9)
    assert cost.latency_s == pytest.approx(100e-9)
    assert cost.overhead_s == pytest.approx(30e-9)
    assert cost.time_s == pytest.approx((3 * 1024 + 100 + 30) * 1e-9)
    assert cost.packets == 12


def everyone_to_node_0_on_a_5_ring():
    """On a 5-ring everyone sends 1000 B to node 0: links into node 0 carry
    the traffic of two sources each (1 and 2 on the - side, 4 and 3 on +).
    Returns the network and the payload matrix."""
    machine = tiny_machine(**{"network.topology": "torus", "network.shape": [5],
                              "network.injection_bandwidth": {"value": "100 GB/s", "source": "t"}})
    env, net = network(machine, 5)
    payload = np.zeros((5, 5))
    payload[1:, 0] = 1000.0
    return net, payload


def test_exchange_cost_finds_the_hot_torus_link():
    net, payload = everyone_to_node_0_on_a_5_ring()
    cost = net.exchange_cost(payload)
    assert cost.bottleneck == "link"
    assert cost.serialisation_s == pytest.approx(2 * 1024e-9)
    assert cost.latency_s == pytest.approx(2 * 100e-9)


def test_a_read_only_traffic_matrix_is_priced_once_and_a_writeable_one_every_time():
    net, payload = everyone_to_node_0_on_a_5_ring()  # links into node 0 carry 2 x 1024 B
    fresh = net.traffic_loads(payload)
    payload.setflags(write=False)
    first, again = net.traffic_loads(payload), net.traffic_loads(payload)
    assert again is first and first.link_s == fresh.link_s == pytest.approx(2 * 1024e-9)
    assert np.array_equal(first.inject_s, fresh.inject_s)
    with pytest.raises(ValueError):  # the remembered loads cannot be changed under a later caller
        first.inject_s[0] = 0.0
    changed = payload.copy()
    changed.setflags(write=False)
    assert net.traffic_loads(changed) is not first  # another matrix, even of the same contents
    changed.setflags(write=True)
    changed[2, 0] = 3000.0  # a read-only matrix made writeable and changed: priced again
    changed.setflags(write=False)
    assert net.traffic_loads(changed).link_s == pytest.approx((1024 + 3072) * 1e-9)
    writeable = payload.copy()
    assert net.traffic_loads(writeable) is not net.traffic_loads(writeable)
    writeable[1, 0] = 3000.0  # a writeable matrix may change: priced again (3 packets: 3000 + 3 x 24 B)
    assert net.traffic_loads(writeable).link_s == pytest.approx((3072 + 1024) * 1e-9)


@pytest.mark.parametrize("given_packets", [False, True])
def test_dense_traffic_is_priced_by_rows_and_columns_as_pair_by_pair(given_packets):
    """Whole-matrix sums (most pairs talk) give the loads the pairs give,
    where every sum is exact; with fractional bytes they are not used."""
    machine = tiny_machine(**{"network.topology": "torus", "network.shape": [4, 2, 2]})
    env, net = network(machine, 16)
    rng = np.random.default_rng(3)
    payload = np.floor(rng.random((16, 16)) * 3000) * (rng.random((16, 16)) < 0.8)
    packets = np.ceil(payload / 1000) + (payload > 0) if given_packets else None
    dense = net.dense_traffic_loads(payload, packets)
    pairs = net.pair_traffic_loads(payload.reshape(-1), packets)
    for name, value in vars(pairs).items():
        assert np.array_equal(getattr(dense, name), value), name
    assert net.dense_traffic_loads(payload + 0.5, packets) is None


def test_an_empty_exchange_is_free():
    env, net = network(tiny_machine(), 3)
    assert net.exchange_cost(np.eye(3) * 500).time_s == 0.0


def test_given_packet_counts_pad_every_packet():
    m = tiny_machine().network  # 1000 B payload, 24 B header, 8 B granule
    # 30 B in 3 packets of 10 B: each padded to 16 B, plus three headers
    assert float(m.wire_bytes(30, 3)) == 3 * 16 + 3 * 24
    # the default cut: one packet of 30 B padded to 32 B
    assert float(m.wire_bytes(30)) == 32 + 24
    with pytest.raises(ValueError, match="packet_payload"):
        m.wire_bytes(2500, 2)
