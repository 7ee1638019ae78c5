"""What a cp1d level costs (simbfs/algorithms/cp1d/pricing.py): operations
on threads that share a core and an L2, the level's busy time and its
drain, the injection queue, a claim's delay, and the whole level:
price_level and price_mpi_level, with one node's counts, give that node's
entry of the executed runs' pricing of every node."""

import dataclasses
import math

import numpy as np
import pytest

from simbfs.algorithms.cp1d import pricing
from simbfs.algorithms.cp1d.claim_timing import NeverVisible
from simbfs.algorithms.cp1d.execute_spi import CP1DSPI, SpiSearch
from simbfs.algorithms.cp1d.layout import Layout
from simbfs.algorithms.cp1d.pricing import (LevelPrice, backlog_cap_bytes, claim_delay_s, compressed_ops, fill_wait_s,
                                           injection_queue_wait_s, layout_residents, level_costs, memory_seconds,
                                           op_cycles, price_level, price_mpi_level, spi_level_busy_s, thread_cycles)
from simbfs.algorithms.cp1d.work import ExchangeRound, MpiPasses, bottom_up, mpi_passes, top_down
from simbfs.bfs import BOTTOM_UP, TOP_DOWN, bfs_reference
from simbfs.engine import Simulation
from simbfs.engine.messaging import DirectPackets
from simbfs.graph import search_keys
from simbfs.machine import load_machine
from tests.conftest import tiny_machine
from tests.cp1d_support import bgq, kronecker_graphs, small_kronecker_graph


@pytest.fixture(scope="module")
def small_graph():
    return small_kronecker_graph()


# bitmap_test: issue e = 10, one random access into bitmaps that fit the
# 32 MiB cache: L = 20 cycles. A core shared by k threads: max(e + L, k e).
@pytest.mark.parametrize("threads, cores, per_op", [
    (16, 16, 30),  # k = 1: latency exposed, 10 + 20
    (32, 16, 30),  # k = 2: max(30, 20)
    (48, 16, 30),  # k = 3: max(30, 30)
    (64, 16, 40),  # k = 4: issue-bound, 4 x 10
    (16, 4, 40),  # k = 4 by fewer cores
])
def test_threads_on_a_core_hide_latency_until_issue_slots_are_full(small_graph, threads, cores, per_op):
    machine = load_machine("bluegene_q", [f"cp1d.threads={threads}", f"node.cores={cores}",
                                          "cp1d.cycles.bitmap_test=10",
                                          "node.memory_hierarchy.cache_latency=20 cycles"])
    layout = Layout(small_graph, 1, machine.section("cp1d").threads, 0, machine.section("cp1d").index_stride)
    counts = np.arange(layout.T, dtype=float)[None, :]
    ops = {"bitmap_test": counts}
    cycles = thread_cycles(ops, level_costs(machine, layout, ops, compression=True))
    assert np.allclose(cycles, counts * per_op)


def sixteen_threads_on_four_cores(**changes) -> dict:
    """Dotted-path changes to the fixture machine: 4 cores of 4 threads."""
    given = {"node.cores": 4, "node.threads_per_core": 4, **changes}
    return {key: {"value": value, "source": "test"} for key, value in given.items()}


@pytest.mark.parametrize("threads, per_op", [(4, 3), (16, 12)])
def test_an_op_without_random_access_costs_k_issue_slots(small_graph, threads, per_op):
    # the fixture's edge_entry: 3 cycles, no random access; 4 cores: k = threads / 4, max(3, k x 3)
    changes = sixteen_threads_on_four_cores(**{"cp1d.threads": threads})
    machine = tiny_machine("node.memory_hierarchy", "cp1d", **changes)
    layout = Layout(small_graph, 1, machine.section("cp1d").threads, 0, machine.section("cp1d").index_stride)
    ops = {"edge_entry": np.ones((1, layout.T))}
    assert np.allclose(thread_cycles(ops, level_costs(machine, layout, ops, True)), per_op)


def test_compress_costs_nothing_without_compression(small_graph):
    # the fixture's compress: 6 cycles; 4 threads on 4 cores: k = 1
    machine = tiny_machine("node.memory_hierarchy", "cp1d", **sixteen_threads_on_four_cores())
    layout = Layout(small_graph, 1, 4, 0, 8)
    ops = {"compress": np.ones((1, 4))}
    assert np.allclose(thread_cycles(ops, level_costs(machine, layout, ops, False)), 0)
    assert np.allclose(thread_cycles(ops, level_costs(machine, layout, ops, True)), 6)


def test_a_level_that_streams_more_evicts_its_bitmaps_and_waits_longer():
    """Hand-worked on the fixture (1 MiB cache, 64 B lines, a hit 10 cycles,
    a miss 100, memory 1 GB/s, bitmap_test 1 cycle): bitmaps of twice the
    cache (2C lines) tested 4 s ln(4/3) times while s lines stream past hit
    1/4 of the time (Che: 2C x 1/4 + s t = C gives t = C / 2s, and
    1 - exp(-4 s ln(4/3) t / 2C) = 1/4). A bitmap test then costs issue 1 +
    (10 / 4 + 100 x 3/4) = 78.5 cycles at k = 1."""
    changes = sixteen_threads_on_four_cores(**{"cp1d.threads": 4, "cp1d.adjacency_entry": "64 B"})
    machine = tiny_machine("node.memory_hierarchy", "cp1d", **changes)
    C = 2**20
    residents = pricing.Residents(bitmaps=2 * C, parents=0.0, buffers=0.0)
    s = 1000.0  # streamed lines: edge entries of one line each
    counts = {"bitmap_test": 4 * s * math.log(4 / 3), "edge_entry": s}
    assert pricing.hit_rates(machine, residents, counts)["bitmaps"] == pytest.approx(0.25, rel=1e-9)
    costs = pricing.op_cycles(machine, 4, residents, counts, compression=True)
    assert costs["bitmap_test"] == pytest.approx(1 + 10 / 4 + 100 * 3 / 4)
    # with no stream, the same bitmaps alone hit C / 2C = 1/2 of the time
    alone = pricing.hit_rates(machine, residents, {"bitmap_test": 1.0})["bitmaps"]
    assert alone == pytest.approx(0.5, rel=1e-9)
    # memory: s streamed lines and the misses, one line each, at 1 GB/s
    seconds = pricing.memory_seconds(machine, residents, counts)
    assert seconds == pytest.approx((s + counts["bitmap_test"] * 0.75) * 64 / 1e9)


def test_a_header_sweep_streams_the_lines_its_headers_pull_or_the_bytes_it_reads():
    """pricing.streamed_bytes: 1e6 headers read at 30 B of lines each and
    2e6 entries of 8 B: max(1e6 x 8 + 2e6 x 8, 1e6 x 30) = 30 MB; with 5e6
    entries read the reads dominate: 48 MB; with no header traffic given,
    the headers' own 8 B."""
    from simbfs.algorithms.cp1d.pricing import streamed_bytes

    machine = tiny_machine("node.memory_hierarchy", "cp1d")  # 8 B headers and entries
    assert streamed_bytes(machine, {"vertex_header": 1e6, "edge_entry": 2e6}, 30.0) == pytest.approx(30e6)
    assert streamed_bytes(machine, {"vertex_header": 1e6, "edge_entry": 5e6}, 30.0) == pytest.approx(48e6)
    assert streamed_bytes(machine, {"vertex_header": 1e6, "edge_entry": 2e6}) == pytest.approx(24e6)


def test_spi_level_busy_is_the_slowest_resource_plus_the_drain():
    """TINY: a full packet (1000 + 24 B) takes 1024 ns on a 1 GB/s link. A
    top-down level drains one packet's route (300 ns) and flight; a
    bottom-up level two (a probe and its answer); a level that sends
    nothing drains nothing. Per-node arrays price node by node."""
    from tests.conftest import tiny_machine

    net = tiny_machine().network
    ns = 1e-9
    busy = spi_level_busy_s(np.array([5e-6, 1e-6]), np.array([2e-6, 7e-6]), 0.0, 3e-6, np.array([0.0, 8e-6]),
                                 300 * ns, net, "top-down", sends=True)
    assert busy == pytest.approx([5e-6 + 1324 * ns, 8e-6 + 1324 * ns])
    assert spi_level_busy_s(1e-6, 0, 0, 0, 0, 300 * ns, net, "bottom-up", sends=True) == pytest.approx(
        1e-6 + 2 * 1324 * ns)
    assert spi_level_busy_s(1e-6, 0, 0, 0, 0, 300 * ns, net, "top-down", sends=False) == pytest.approx(1e-6)


def test_claim_delay_waits_for_fill_or_sweep_end_then_two_trips():
    """A probe waits min(half a packet at the stream's rate, the rest of the
    prober's sweep); its answer min(half a packet at the answer rate, the
    cap); then two trips. 10 edges a packet at 1 edge/us: 5 us to fill."""
    fill = fill_wait_s(10.0, np.array([1e6, 0.0]))
    assert fill == pytest.approx([5e-6, np.inf])
    delay = claim_delay_s(remaining_s=np.array([2e-6, 9e-6]), probe_fill_s=fill, answer_fill_s=fill,
                               answer_cap_s=4e-6, trip_s=1e-6)
    assert delay == pytest.approx([2e-6 + 4e-6 + 2e-6, 9e-6 + 4e-6 + 2e-6])


def test_injection_queue_wait_worked_by_hand():
    """injection_queue_wait_s: 100 B produced in 1 s and drained in 3 s lag
    D = 2 s. With room for 1,000 B (w = 1000 * 3 / 100 = 30 s >= D) the
    packets wait D / 2 = 1 s on average; with room for 10 B (w = 0.3 s)
    0.3 - 0.3**2 / (2 * 2) = 0.2775 s. No wait where the network keeps up
    or nothing is sent."""
    wait = injection_queue_wait_s(np.array([1.0, 1.0, 3.0, 1.0]), np.array([3.0, 3.0, 1.0, 3.0]),
                                       np.array([100.0, 100.0, 100.0, 0.0]), np.array([1000.0, 10.0, 10.0, 10.0]))
    assert wait == pytest.approx([1.0, 0.2775, 0.0, 0.0])


def _fifo_mean_wait(produce_s, drain_s, packets, cap_packets):
    """Packet by packet: a producer makes one packet every produce_s /
    packets unless cap_packets are queued (it then waits for the oldest to
    leave); a server sends one every drain_s / packets, in order. The mean
    of (left - made) - one service, the queueing alone."""
    make, serve = produce_s / packets, drain_s / packets
    made, left = [], []
    for k in range(packets):
        t = k * make if not made else max(made[-1] + make, 0.0)
        if k >= cap_packets:
            t = max(t, left[k - cap_packets])  # a buffer frees when its packet leaves
        made.append(t)
        left.append(max(t, left[-1] if left else 0.0) + serve)
    return sum(gone - m - serve for gone, m in zip(left, made)) / packets


@pytest.mark.parametrize("produce_s,drain_s,cap_packets", [(1.0, 3.0, 100_000), (1.0, 3.0, 500), (2.0, 2.5, 300),
                                                           (3.0, 1.0, 50)])
def test_injection_queue_wait_matches_a_packet_by_packet_fifo(produce_s, drain_s, cap_packets):
    """The fluid formula against a FIFO simulated packet by packet (20,000
    packets of 1 B; the cap in packets): equal within 1%, or both zero."""
    packets = 20_000
    expected = _fifo_mean_wait(produce_s, drain_s, packets, cap_packets)
    wait = float(injection_queue_wait_s(produce_s, drain_s, float(packets), float(cap_packets)))
    assert wait == pytest.approx(expected, rel=0.01, abs=1e-3 * drain_s)


def test_backlog_cap_is_in_flight_full_packets_to_every_other_node():
    """TINY packets are 1000 + 24 B: 3 other nodes x 2 in flight = 6,144 B."""
    from tests.conftest import tiny_machine

    assert backlog_cap_bytes(4, 2, tiny_machine().network) == 6 * 1024


def central_level(direction):
    """A central level of a scale-12 graph on 16 nodes (every option on),
    and the executed cp1d-spi run it belongs to: the level's work and
    every node's price of it (SpiSearch.price). Bottom-up with no remote
    claim visible (a claim timing's first pass)."""
    graph, _ = kronecker_graphs()[12]
    root = int(search_keys(graph, 1, seed=11)[0])
    depth = bfs_reference(graph, root, direction_optimising=False).level
    level = int(np.argmax(np.bincount(depth[depth >= 0])))
    frontier = np.flatnonzero(depth == level)
    visited = (depth >= 0) & (depth <= level)
    search = SpiSearch(CP1DSPI("x"), Simulation(bgq(16), 16), graph, root)
    if direction == TOP_DOWN:
        work = top_down(search.layout, frontier, visited, search.options)
    else:
        work = bottom_up(search.layout, frontier, visited, search.options)(NeverVisible(16))
    return search, work


@pytest.mark.parametrize("direction", [TOP_DOWN, BOTTOM_UP])
def test_price_level_of_one_nodes_counts_is_that_nodes_entry_of_the_executed_pricing(direction):
    """The executed run prices every node at once (arrays). Node by node,
    from that node's own counts alone (scalars: its operation counts, its
    threads' cycles at the costs its own mix gives, its packets' SPI
    overheads, its ports), price_level gives the same busy time, queue
    wait and every other term."""
    search, work = central_level(direction)
    priced = search.price(work)
    machine, layout, loads = search.machine, search.layout, priced.loads
    assert priced.traffic.packet_count > 0 and len(set(priced.price.busy_s.tolist())) > 1
    ops = compressed_ops(work.ops, compression=True)
    residents = layout_residents(machine, layout)
    for node in range(search.N):
        counts = {name: float(table[node].sum()) for name, table in ops.items()}
        costs = op_cycles(machine, layout.T, residents, counts, compression=True)
        threads = sum(table[node] * costs[name] for name, table in ops.items()) / machine.node.clock_hz
        overhead = DirectPackets(machine.messaging).overhead_s(loads.packets_out[node], loads.packets_in[node])
        one = price_level(machine, direction, search.N, cpu_s=float(np.max(threads + overhead / layout.T)),
                          memory_s=memory_seconds(machine, residents, counts), inject_s=float(loads.inject_s[node]),
                          eject_s=float(loads.eject_s[node]), link_s=loads.link_s, latency_s=loads.latency_s,
                          sends=True)
        for field in dataclasses.fields(LevelPrice):
            every = np.broadcast_to(getattr(priced.price, field.name), (search.N,))
            assert getattr(one, field.name) == pytest.approx(every[node], rel=1e-12), (node, field.name)


@pytest.mark.parametrize("direction", [TOP_DOWN, BOTTOM_UP])
def test_price_mpi_level_of_one_nodes_counts_is_that_nodes_entry_of_every_nodes(direction):
    """The executed cp1d-mpi prices every node's passes at once, each pass
    its busiest thread at the costs of the node's whole mix; node by node,
    with that node's counts alone, price_mpi_level gives the same passes."""
    search, work = central_level(direction)
    machine, layout = search.machine, search.layout
    clock = machine.node.clock_hz
    passes = mpi_passes(layout, work)
    costs = level_costs(machine, layout, work.ops, compression=True)
    every = price_mpi_level(passes, lambda ops: (thread_cycles(ops, costs) / clock).max(axis=1))
    residents = layout_residents(machine, layout)
    for node in range(search.N):
        counts = {name: float(table[node].sum()) for name, table in work.ops.items()}
        own = op_cycles(machine, layout.T, residents, counts, compression=True)
        one = price_mpi_level(passes, lambda ops: float(np.max(sum(table[node] * own[name]
                                                                   for name, table in ops.items()))) / clock)
        assert one.compute_s == pytest.approx(every.compute_s[node], rel=1e-12)
        assert one.receive_s == pytest.approx(every.receive_s[node], rel=1e-12)
        for mine, theirs in zip(one.counting_s + one.writing_s, every.counting_s + every.writing_s):
            assert mine == pytest.approx(theirs[node], rel=1e-12)


def test_price_mpi_level_adds_up_the_passes_in_the_order_they_run():
    """Hand-worked: two rounds, the second decoding (1) before counting (2);
    each pass's seconds the sum of its counts. Counting 4 and 1 + 2, writing
    8 and 16, the final pass 32: 63 in all, the final pass the receive part.
    Per node alike (arrays)."""
    passes = MpiPasses(rounds=(ExchangeRound(({"pack": 4.0},), {"pack": 8.0}, []),
                               ExchangeRound(({"unpack": 1.0}, {"pack": 2.0}), {"pack": 16.0}, [])),
                       final={"unpack": 30.0, "claim": 2.0})
    price = price_mpi_level(passes, lambda ops: sum(ops.values()))
    assert (price.counting_s, price.writing_s, price.final_s) == ((4.0, 3.0), (8.0, 16.0), 32.0)
    assert (price.compute_s, price.receive_s) == (63.0, 32.0)
    per_node = price_mpi_level(passes, lambda ops: np.array([1.0, 2.0]) * sum(ops.values()))
    assert per_node.compute_s.tolist() == [63.0, 126.0]


def test_compression_charges_every_packed_edge_once_more_and_leaves_the_level_alone():
    """With compression, a level's compress count is its pack count; the
    level's own counts are not written, and the order of the operations
    (which sums follow) is kept."""
    ops = {"pack": np.array([[1.0, 2.0]]), "compress": np.zeros((1, 2)), "claim": np.ones((1, 2))}
    compressed = compressed_ops(ops, compression=True)
    assert list(compressed) == list(ops) and compressed["compress"].tolist() == [[1.0, 2.0]]
    assert not ops["compress"].any()
    assert not compressed_ops(ops, compression=False)["compress"].any()
