"""engine/costs.py and engine/messaging.py: hand-worked prices.

The TINY machine (tests/conftest.py): 1 GB/s ports and links (1 byte per
ns), 100 ns per hop, 1000 B packets with a 24 B header on an 8 B granule,
collectives of 50 ns per stage at 1 GB/s.
"""

import numpy as np
import pytest
import simpy

from simbfs.engine import Network, make_topology
from simbfs.engine.costs import (COLLECTIVE_ALGORITHMS, NO_EXCHANGE, allgather_time, allreduce_time, barrier_time,
                                 collective_stages, exchange_cost, link_seconds, port_seconds, reduce_scatter_time,
                                 route_latency)
from simbfs.engine.messaging import DirectPackets, MPIMessages
from tests.conftest import tiny_machine

NS = 1e-9


def test_three_packets_of_512_bytes_over_two_hops():
    """3 packets of 512 B: 3 x (512 + 24) = 1608 B on the wire, 1608 ns at
    each port; 2 hops, 200 ns; software 3 x 50 ns to send, 3 x 30 ns to
    receive. Total 1608 + 200 + 240 = 2048 ns, injection-bound."""
    m = tiny_machine(**{"messaging.send_overhead": {"value": "50 ns", "source": "test"},
                        "messaging.receive_overhead": {"value": "30 ns", "source": "test"}})
    wire = float(m.network.wire_bytes(3 * 512.0, 3))
    assert wire == 1608
    layer = DirectPackets(m.messaging)
    cost = exchange_cost(inject_s=port_seconds(wire, m.network), eject_s=port_seconds(wire, m.network),
                         link_s=0.0, latency_s=route_latency(2, m.network), overhead_s=layer.overhead_s(3, 3))
    assert cost.time_s == pytest.approx(2048 * NS)
    assert cost.serialisation_s == pytest.approx(1608 * NS)
    assert cost.overhead_s == pytest.approx(240 * NS)
    assert cost.bottleneck == "injection"


def test_the_largest_term_names_the_bottleneck():
    assert exchange_cost(inject_s=1, eject_s=2, link_s=3, latency_s=0, overhead_s=0).bottleneck == "link"
    assert exchange_cost(inject_s=1, eject_s=1, link_s=1, latency_s=0, overhead_s=5).bottleneck == "overhead"
    assert exchange_cost(inject_s=0, eject_s=0, link_s=0, latency_s=1, overhead_s=0).bottleneck == "latency"
    # ties go to the first named: a port before a link
    assert exchange_cost(inject_s=2, eject_s=2, link_s=2, latency_s=0, overhead_s=0).bottleneck == "injection"


def test_the_engine_prices_an_exchange_with_the_same_function():
    """Node 0 sends 1536 B to node 1 in 3 packets on a 2-node crossbar: the
    simpy network's price is exchange_cost of its loads (1 hop)."""
    m = tiny_machine()
    net = Network(simpy.Environment(), make_topology(m.network, 2), m.network, m.messaging)
    payload = np.array([[0.0, 1536.0], [0.0, 0.0]])
    engine = net.exchange_cost(payload, np.array([[0.0, 3.0], [0.0, 0.0]]))
    assert engine.time_s == pytest.approx((1608 + 100) * NS)
    assert engine.packets == 3 and engine.wire_bytes == 1608
    assert net.exchange_cost(np.zeros((2, 2))) == NO_EXCHANGE


def test_mpi_messages_pay_per_message_not_per_packet():
    mpi = MPIMessages(1e-6)
    assert mpi.overhead_s(packets_out=40, packets_in=7, messages_out=3, messages_in=2) == pytest.approx(5e-6)
    direct = DirectPackets(tiny_machine(**{"messaging.send_overhead": {"value": "1 us", "source": "t"}}).messaging)
    assert direct.overhead_s(packets_out=40, packets_in=7, messages_out=3, messages_in=2) == pytest.approx(40e-6)
    # vectorised: one value per node
    assert np.allclose(mpi.overhead_s(0, 0, np.array([1, 2]), np.array([3, 4])), [4e-6, 6e-6])


def test_collectives_stages_latency_and_bandwidth():
    c = tiny_machine().collectives
    assert [collective_stages(n) for n in (1, 2, 3, 4, 5, 1024)] == [0, 1, 2, 2, 3, 10]
    assert barrier_time(c, 5) == pytest.approx(150 * NS)
    assert allreduce_time(c, 5, 8) == pytest.approx((150 + 8) * NS)
    # 4 nodes gather 400 B: each receives the other three's 300 B
    assert allgather_time(c, 4, 400) == pytest.approx((100 + 300) * NS)
    assert allreduce_time(c, 1, 8) == 0 and allgather_time(c, 1, 8) == 0


def test_mpich_algorithms_follow_mpichs_switch_points():
    """MPICH's allgather.c and reduce_scatter.c (Thakur, Rabenseifner and
    Gropp 2005): recursive doubling below 512 KiB on 2^k nodes, Bruck below
    80 KiB on any count, else a ring of N - 1 steps; a commutative
    reduce-scatter halves recursively below 512 KiB (floor(log2 N) + 2 steps
    on other counts), else pairs N - 1 times."""
    mpich = COLLECTIVE_ALGORITHMS["mpich"]
    assert mpich.allgather_stages(64, 64 * 1024) == 6            # 2^6 nodes, 64 KiB: recursive doubling
    assert mpich.allgather_stages(64, 524_288) == 63             # at the long switch point: ring
    assert mpich.allgather_stages(100, 81_919) == 7              # Bruck: ceil(log2 100)
    assert mpich.allgather_stages(100, 81_920) == 99             # not 2^k, not short: ring
    assert mpich.allgather_stages(40_768, 40_768 * 2048) == 40_767  # Sunway's bottom-up hub bitmaps
    assert mpich.reduce_scatter(40_768, 524_287)[0] == 15 + 2  # floor(log2 40,768) + 2, not a power of two
    assert mpich.reduce_scatter(32_768, 524_287)[0] == 15      # 2^15 nodes: recursive halving
    assert mpich.reduce_scatter(40_768, 524_288)[0] == 40_767
    assert mpich.allgather_stages(1, 1e9) == mpich.reduce_scatter(1, 1e9)[0] == 0
    # MVAPICH2 1.x switches on each process's share: 512 B beyond 256 processes
    mvapich2 = COLLECTIVE_ALGORITHMS["mvapich2"]
    assert mvapich2.allgather_stages(40_768, 40_768 * 512) == 16      # Bruck: ceil(log2 40,768)
    assert mvapich2.allgather_stages(40_768, 40_768 * 2048) == 40_767  # ring
    assert mvapich2.allgather_stages(64, 64 * 2048) == 6              # 2 KiB up to 128 processes: recursive doubling
    assert mvapich2.allgather_stages(200, 200 * 1025) == 199          # above 1 KiB at 129-256 processes: ring
    assert mvapich2.reduce_scatter(40_768, 524_288)[0] == 40_767  # MPICH's reduce-scatter rule
    log = COLLECTIVE_ALGORITHMS["log-stages"]
    assert log.allgather_stages(40_768, 1e9) == log.reduce_scatter(40_768, 1e9)[0] == 16


def test_recursive_halving_by_hand():
    """MPICH's and MVAPICH2's recursive halving. On 6 nodes (P = 4, r = 2):
    ranks 0 and 2 send their whole vector to 1 and 3 (1 stage), 4 nodes
    halve (2 stages, 3/4 of the total), 1 and 3 hand 0's and 2's segments
    back (1 stage, 1/6 of the total): 4 stages, 1 + 3/4 + 1/6 of the
    total. On 8 nodes: 3 stages, 7/8 of it."""
    from simbfs.engine.costs import recursive_halving
    assert recursive_halving(6, 600.0) == (4, pytest.approx(600 + 450 + 100))
    assert recursive_halving(8, 800.0) == (3, pytest.approx(700))
    # the Sunway headline's 40,768 nodes: 32,768 + 8,000, so 15 + 2 stages
    assert recursive_halving(40_768, 1.0) == (17, pytest.approx(1 + 32_767 / 32_768 + 1 / 40_768))


def test_mvapich2_22_follows_its_tables():
    """MVAPICH2 2.2's fallback tables, one process per node (the files are
    named in simbfs/engine/costs.py): allgather by a process's bytes,
    reduce-scatter by the total, the last row beyond the table."""
    lib = COLLECTIVE_ALGORITHMS["mvapich2-2.2"]
    n = 40_768
    assert lib.allgather_stages(n, n * 2_064) == 16                 # Bruck
    assert lib.allgather_stages(n, n * 131_071) == 16               # recursive doubling below 128 KiB
    assert lib.allgather_stages(n, n * 131_072) == n - 1            # the ring from 128 KiB
    assert lib.allgather_stages(16, 16 * 131_072) == 4              # the 16-process row rings from 256 KiB
    assert lib.reduce_scatter(n, 84e6)[0] == 17                 # recursive halving
    assert lib.reduce_scatter(n, 84e6)[1] == pytest.approx(84e6 * (1 + 32_767 / 32_768 + 1 / n))
    assert lib.reduce_scatter(64, 262_145)[0] == 63             # pairwise above 256 KiB at 64 processes
    assert lib.reduce_scatter(64, 262_145)[1] == pytest.approx(262_145 * 63 / 64)
    assert lib.reduce_scatter(n, 256)[0] == 32                  # basic: a reduce and a scatter
    assert lib.reduce_scatter(n, 256)[1] == pytest.approx(256 * 16 + 256 * (n - 1) / n)
    # a power of two halves without the fold-in: the bandwidth-optimal bytes
    assert lib.reduce_scatter(4096, 84e6)[1] == pytest.approx(84e6 * 4095 / 4096)


def test_a_ring_allgather_pays_a_stage_per_other_node():
    """The closed form of a ring (Thakur et al. 2005): (N - 1) alpha +
    (N - 1) / N x n beta, against log2 N alpha + the same bandwidth term."""
    ring = tiny_machine(**{"collectives.algorithm": "mpich"}).collectives
    log = tiny_machine().collectives
    nodes, total = 100, 1_000_000  # 1 MB: above both switch points
    bandwidth_ns = total * (nodes - 1) / nodes  # 1 byte per ns
    assert allgather_time(ring, nodes, total) == pytest.approx((99 * 50 + bandwidth_ns) * NS)
    assert allgather_time(log, nodes, total) == pytest.approx((7 * 50 + bandwidth_ns) * NS)
    assert reduce_scatter_time(ring, nodes, total) == pytest.approx((99 * 50 + bandwidth_ns) * NS)
    # small collectives keep their log2 N stages under both
    assert allgather_time(ring, nodes, 800) == pytest.approx(allgather_time(log, nodes, 800))


def test_an_unknown_collective_algorithm_is_refused_with_the_choices():
    from simbfs.errors import UserError
    with pytest.raises(UserError, match="log-stages, mpich, mvapich2"):
        tiny_machine(**{"collectives.algorithm": "binomial"})


def test_link_and_port_times_are_bytes_over_bandwidth():
    net = tiny_machine(**{"network.link_bandwidth": {"value": "2 GB/s", "source": "t"}}).network
    assert port_seconds(1000.0, net) == pytest.approx(1000 * NS)
    assert link_seconds(1000.0, net) == pytest.approx(500 * NS)
    assert np.allclose(route_latency(np.array([0, 3]), net), [0, 300 * NS])
