"""Hand-worked message timelines on the tiny machine (tests/conftest.py).

Ports and links move 1 byte/ns, a hop takes 100 ns, a packet carries up to
1000 B plus a 24 B header on an 8 B granule.
"""

import numpy as np

from simbfs.engine.traffic import AllToAll, PairTraffic
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


@pytest.mark.parametrize("given_packets", [False, True])
@pytest.mark.parametrize("per_host", [1, 2])
def test_pairs_are_priced_as_the_dense_matrix_of_the_same_traffic(given_packets, per_host):
    """A PairTraffic and the dense matrix it comes from give the same
    loads; and the loads follow the definitions: a node's port carries
    its wire bytes, a message to itself stays home."""
    machine = tiny_machine(**{"network.topology": "torus", "network.shape": [4, 2, 2],
                              "network.processes_per_host": {"value": per_host, "source": "test"}})
    env, net = network(machine, 16)  # the topology joins 16 hosts
    n = 16 * per_host
    rng = np.random.default_rng(3)
    payload = np.floor(rng.random((n, n)) * 3000) * (rng.random((n, n)) < 0.3)
    packets = np.ceil(payload / 1000) + (payload > 0) if given_packets else None
    dense = net.traffic_loads(payload, packets)
    pairs = net.traffic_loads(PairTraffic.from_matrix(payload, packets))
    for name, value in vars(pairs).items():
        assert np.array_equal(getattr(dense, name), value), name
    off = payload * (1 - np.eye(n))
    host = np.arange(n) // per_host
    off = off * (host[:, None] != host[None, :])
    counts = net.model.packets(off) if packets is None else np.where(off > 0, packets, 0.0)
    wire = net.model.wire_bytes(off, counts) * (off > 0)
    host_out = np.bincount(host, weights=wire.sum(axis=1))
    assert np.allclose(pairs.inject_s, host_out[host] / net.model.injection_bandwidth_Bps)
    assert pairs.payload_bytes == pytest.approx(off.sum())


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


@pytest.mark.parametrize("shape, oversubscription", [([4, 2, 2], None), (None, 2.0)])
def test_an_all_to_all_is_priced_as_its_listed_pairs(shape, oversubscription):
    """An AllToAll's closed forms (the topology's uniform link load, its
    diameter) give the loads its N (N - 1) listed pairs give."""
    if shape:
        machine = tiny_machine(**{"network.topology": "torus", "network.shape": shape})
    else:
        machine = tiny_machine(**{"network.topology": "fat_tree",
                                  "network.supernode_size": {"value": 4, "source": "test"},
                                  "network.oversubscription": {"value": oversubscription, "source": "test"}})
    env, net = network(machine, 16)
    every = AllToAll(16, 1500.0)
    closed, listed = net.traffic_loads(every), net.traffic_loads(every.pairs())
    for name, value in vars(listed).items():
        assert np.allclose(getattr(closed, name), value, rtol=1e-12, atol=0), name


@pytest.mark.parametrize("machine, nodes", [("bluegene_q", 65536), ("sunway_taihulight", 40768)])
def test_pricing_an_exchange_at_the_papers_node_counts_holds_no_n_by_n_array(machine, nodes):
    """At 65,536 nodes one float per pair of nodes is 32 GiB: an exchange's
    pricing must follow its pairs (engine/traffic.py). A thousand pairs on
    the papers' machines stay within a few bytes per node of memory."""
    import tracemalloc

    from simbfs.machine import load_machine
    model = load_machine(machine)
    env, net = network(model, nodes)
    rng = np.random.default_rng(1)
    keys = np.unique(rng.integers(0, nodes * nodes, 1000))
    traffic = PairTraffic.from_keys(nodes, keys, np.full(len(keys), 4096.0))
    net.traffic_loads(traffic)  # (the topology's tables, once)
    tracemalloc.start()
    loads = net.traffic_loads(PairTraffic.from_keys(nodes, keys, np.full(len(keys), 4096.0)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert loads.payload_bytes == pytest.approx(4096.0 * np.count_nonzero(keys // nodes != keys % nodes))
    assert peak < 1024 * nodes  # linear; N x N floats would be 8 N bytes per node (512 KiB at 65,536)
