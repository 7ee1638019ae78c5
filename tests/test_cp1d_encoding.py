"""The messages' bytes and packets (simbfs/algorithms/cp1d/encoding.py; seed
000, III-B), worked by hand from the paper's formats: 6 B plain edges; 8 B
header and 4 or 8 B compressed edges; 512 B packets."""

import numpy as np
import pytest

from simbfs.algorithms.cp1d.encoding import encode as encode_streams
from simbfs.algorithms.cp1d.layout import Layout
from simbfs.algorithms.cp1d.work import Streams
from simbfs.graph import EdgeList, GraphSpec, build_csr
from simbfs.machine import load_machine
from tests.conftest import dense_traffic as dense


@pytest.fixture(scope="module")
def tiny_layout():
    graph = build_csr(GraphSpec("kronecker", 8), EdgeList(src=np.array([0]), dst=np.array([1]), num_vertices=256))
    return Layout(graph, nodes=2, threads=2, heavy_count=0, index_stride=64)


def encode(layout, streams, compression):
    machine = load_machine("bluegene_q")
    assert machine.network.packet_payload_bytes == 512
    return dense(encode_streams(layout, streams, machine.section("cp1d"), machine.network.packet_payload_bytes,
                                compression))


def one_stream(vertices, thread=0, channel="forward"):
    k = len(vertices)
    return Streams(np.zeros(k, dtype=np.int64), np.full(k, thread, dtype=np.int64), np.ones(k, dtype=np.int64),
                   np.asarray(vertices, dtype=np.int64), channel)


@pytest.mark.parametrize("by_receiver", [False, True])
def test_whole_byte_streams_add_up_the_same_in_the_order_they_were_opened(by_receiver):
    """With whole-byte sizes, a pair's streams are added up in the order
    they were opened instead of by stream id: the same sums (whole numbers
    add exactly in any order), on random streams of 5 nodes x 3 threads."""
    from simbfs.algorithms.cp1d.kernels import stream_bytes
    rng = np.random.default_rng(11)
    k = 4000
    sender, thread, receiver = rng.integers(0, 5, k), rng.integers(0, 3, k), rng.integers(0, 5, k)
    vertex = rng.integers(0, 10**6, k)
    order = np.lexsort((vertex, thread, sender, receiver) if by_receiver else (vertex, receiver, thread, sender))
    columns = [c[order] for c in (sender, thread, receiver, vertex)]
    for compression in (True, False):
        arguments = (*columns, 5, 3, by_receiver, compression, 4.0, 8.0, 127, 504.0, 8.0, 85.0, 6.0)
        opened, by_id = stream_bytes(*arguments, True), stream_bytes(*arguments, False)
        assert opened[0] and by_id[0]
        for a, b in zip(opened[1:], by_id[1:]):
            assert np.array_equal(a, b)


def test_compressed_stream_worked_by_hand(tiny_layout):
    # 4 (base) + 4 (delta 5) + 8 (delta 195 > 127) + 4 (delta 1) = 20 B + 8 B header
    t = encode(tiny_layout, [one_stream([0, 5, 200, 201])], compression=True)
    assert t.payload.tolist() == [[0, 28], [0, 0]]
    assert t.packets.tolist() == [[0, 1], [0, 0]]
    assert t.edges.tolist() == [[0, 4], [0, 0]]
    assert t.backward_packets == 0


def test_a_pairs_streams_add_up_in_stream_order_whatever_sizes_the_formats_have():
    """With byte sizes that are not whole numbers, floating-point sums depend
    on their order: a pair's streams are added in the order of their ids
    (thread by thread here), whichever stream the level met first. Worked
    by hand: short 0.1 B, long 0.7 B, header 0.3 B, deltas up to 3."""
    from dataclasses import replace

    graph = build_csr(GraphSpec("kronecker", 8), EdgeList(src=np.array([0]), dst=np.array([1]), num_vertices=256))
    layout = Layout(graph, nodes=2, threads=3, heavy_count=0, index_stride=64)
    cp = replace(load_machine("bluegene_q").section("cp1d"), compressed_short_bytes=0.1, compressed_long_bytes=0.7,
                 compressed_header_bytes=0.3, delta_max=3)
    stream = Streams(np.zeros(6, dtype=np.int64), np.array([2, 0, 0, 1, 1, 1]), np.ones(6, dtype=np.int64),
                     np.array([0, 1, 9, 2, 3, 15]), "backward")
    traffic = dense(encode_streams(layout, [stream], cp, 512.0, compression=True))
    # thread 0: vertices 1, 9 (short, long); thread 1: 2, 3, 15 (short, short,
    # long); thread 2: 0 (short); one packet each, so one header each
    expected = 0.0
    for sizes in ([0.1, 0.7], [0.1, 0.1, 0.7], [0.1]):
        total = 0.0
        for size in sizes:
            total += size
        expected += total + 0.3
    assert traffic.payload[0, 1] == expected  # exactly: the same additions in the same order
    assert traffic.packets[0, 1] == 3 and traffic.backward_packets == 3


def test_uncompressed_stream_worked_by_hand(tiny_layout):
    t = encode(tiny_layout, [one_stream([0, 5, 200, 201])], compression=False)
    assert t.payload.tolist() == [[0, 24], [0, 0]]
    assert t.packets.tolist() == [[0, 1], [0, 0]]


@pytest.mark.parametrize("edges, packets", [(85, 1), (86, 2), (170, 2), (171, 3)])
def test_uncompressed_packets_hold_floor_512_over_6_edges(tiny_layout, edges, packets):
    t = encode(tiny_layout, [one_stream(np.arange(edges))], compression=False)
    assert t.packets[0, 1] == packets
    assert t.payload[0, 1] == 6 * edges


@pytest.mark.parametrize("edges, packets", [(126, 1), (127, 2)])
def test_compressed_packets_hold_504_bytes_after_the_header(tiny_layout, edges, packets):
    # consecutive vertices: every edge 4 B; 126 x 4 = 504 fits, 127 x 4 = 508 does not
    t = encode(tiny_layout, [one_stream(np.arange(edges))], compression=True)
    assert t.packets[0, 1] == packets
    assert t.payload[0, 1] == 4 * edges + 8 * packets


@pytest.mark.parametrize("second, size", [(127, 4), (128, 8)])
def test_delta_of_127_fits_seven_bits_and_128_does_not(tiny_layout, second, size):
    t = encode(tiny_layout, [one_stream([0, second])], compression=True)
    assert t.payload[0, 1] == 8 + 4 + size


def test_each_thread_fills_its_own_packets_and_probes_count_as_backward(tiny_layout):
    # thread 0: [0, 5] -> 4 + 4; thread 1: [3, 200] -> 4 + 8; two packets, two headers
    s = Streams(np.zeros(4, dtype=np.int64), np.array([0, 0, 1, 1]), np.ones(4, dtype=np.int64),
                np.array([0, 5, 3, 200]), "backward")
    t = encode(tiny_layout, [s], compression=True)
    assert t.payload[0, 1] == 8 + 20 + 8
    assert t.packets[0, 1] == 2
    assert t.backward_packets == 2
    back = Streams(np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
                   np.array([7]), "forward")
    t = encode(tiny_layout, [s, back], compression=False)
    assert t.payload.tolist() == [[0, 24], [6, 0]]
    assert t.packets.tolist() == [[0, 2], [1, 0]]
    assert t.backward_packets == 2
