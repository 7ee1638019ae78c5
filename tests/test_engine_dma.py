"""DMA engine timelines. Tiny machine: latency 100 ns; 0.5 B/ns for 64 B
blocks, 2 B/ns for 1 KiB blocks (log-linear between); 2 outstanding; shared
memory 3 B/ns."""

from dataclasses import replace

import pytest
import simpy

from simbfs.engine.devices.dma import DMAEngine, SharedMemoryPort
from tests.conftest import tiny_machine

DMA = tiny_machine().section("dma")


def run_transfers(engines_and_sizes):
    env = simpy.Environment()
    memory = SharedMemoryPort(DMA.shared_bandwidth_Bps)
    engines = {}
    log = []

    def one(name, engine_id, nbytes, block):
        engine = engines.setdefault(engine_id, DMAEngine(env, DMA, memory))
        yield env.process(engine.transfer(nbytes, block))
        log.append((name, round(env.now * 1e9, 6)))

    for name, engine_id, nbytes, block in engines_and_sizes:
        env.process(one(name, engine_id, nbytes, block))
    env.run()
    return log


def test_bandwidth_curve_is_log_linear_between_points():
    assert DMA.bandwidth(64) == pytest.approx(0.5e9)
    assert DMA.bandwidth(1024) == pytest.approx(2e9)
    assert DMA.bandwidth(256) == pytest.approx(0.5e9 + 1.5e9 * 2 / 4)  # halfway in log2
    assert DMA.bandwidth(1 << 20) == pytest.approx(2e9)  # flat past the last point


def test_one_transfer_costs_latency_plus_size_over_curve_bandwidth():
    assert run_transfers([("a", 0, 1024, 1024)]) == [("a", 100 + 512)]


def test_small_blocks_are_slower():
    assert run_transfers([("a", 0, 1024, 64)]) == [("a", 100 + 2048)]


def test_outstanding_requests_share_the_engine_and_overlap_their_latency():
    log = run_transfers([("a", 0, 1024, 1024), ("b", 0, 1024, 1024), ("c", 0, 1024, 1024)])
    # The curve is one engine's bandwidth (2 B/ns at 1 KiB): a and b take the
    # engine's 2 slots at t=0, both latencies run from 0 to 100, then the
    # engine streams a (100..612) and b (612..1124). The shared 3 B/ns memory
    # is not the bottleneck. c gets a's slot at 612, its latency ends at 712,
    # but the engine is busy with b until 1124: c streams 1124..1636.
    assert log == [("a", 612), ("b", 1124), ("c", 1636)]


def test_a_stream_of_requests_reaches_the_curve_bandwidth():
    # 20 back-to-back 1 KiB requests: latency is paid once, then 2 B/ns.
    log = run_transfers([(f"r{i}", 0, 1024, 1024) for i in range(20)])
    assert max(t for _, t in log) == pytest.approx(100 + 20 * 512)


def test_engines_contend_for_shared_memory():
    solo = run_transfers([("a", 0, 30000, 30000)])[0][1]
    pair = dict(run_transfers([("a", 0, 30000, 30000), ("b", 1, 30000, 30000)]))
    assert solo == pytest.approx(100 + 15000)
    # together they need 60000 B at 3 B/ns: the second finishes at 100 + 20000
    assert max(pair.values()) == pytest.approx(100 + 20000)


def test_dma_list_is_priced_at_its_mean_block_and_charged_aligned_memory():
    env = simpy.Environment()
    memory = SharedMemoryPort(DMA.shared_bandwidth_Bps)
    engine = DMAEngine(env, replace(DMA, alignment_bytes=128), memory)
    sizes = [64, 64, 64, 64]  # mean block 64 B -> 0.5 B/ns on the engine
    env.process(engine.transfer_list(sizes))
    env.run()
    assert env.now * 1e9 == pytest.approx(100 + 256 / 0.5)
    # memory saw four 128-byte lines: 512 B at 3 B/ns from t=100
    assert memory.free_at * 1e9 == pytest.approx(100 + 512 / 3)


def test_put_list_guards_follow_their_payload_and_the_recorder_sees_every_command():
    from simbfs.engine import Network, TimelineRecorder, make_topology

    machine = tiny_machine()
    env = simpy.Environment()
    network = Network(env, make_topology(machine.network, 3), machine.network, machine.messaging)
    recorder = TimelineRecorder()
    engine = DMAEngine(env, DMA, owner=0, recorder=recorder)
    result = {}

    def sender():
        result["arrivals"] = yield env.process(engine.put_list(network, [1, 2], [976, 976], guard_bytes=8))

    env.process(sender())
    env.run()
    # Tiny network: 1 B/ns ports, 100 ns per hop (crossbar: 1 hop), 24 B
    # header per packet. Payload to 1: 1000 wire bytes, injection 0..1000,
    # arrives 1100. Guard to 1: 32 B, injection 1000..1032, arrives 1132.
    # Payload to 2: injection 1032..2032; guard to 2: 2032..2064, arrives 2164.
    assert [round(t * 1e9, 6) for t in result["arrivals"]] == [1132, 2164]
    assert [(s.node, s.resource, s.what, round(s.start_s * 1e9), round(s.end_s * 1e9)) for s in recorder.spans] == [
        (0, "dma", "put-list", 0, 2164)]


def test_contiguous_transfers_are_charged_aligned_blocks_in_closed_form():
    import simpy

    from simbfs.engine.devices.dma import DMAEngine

    engine = DMAEngine(simpy.Environment(), replace(DMA, alignment_bytes=16))
    # 200 B in 128 B blocks: a 128 B block and a 72 B one (80 B aligned)
    assert engine.aligned_contiguous(200, 128) == 128 + 80
    # a gibibyte in 16 B blocks costs no per-block work
    assert engine.aligned_contiguous(2**30, 16) == 2**30
    assert engine.aligned_contiguous(0, 16) == 0


def test_a_measured_curve_is_log_linear_between_its_points_and_flat_beyond():
    """The one reader of the machine files' curves (engine/curves.py), worked
    by hand: halfway in log2 between 64 B (1 GB/s) and 1,024 B (3 GB/s) is
    256 B, where the rate is 2 GB/s; outside, the end points' rates."""
    import numpy as np

    from simbfs.engine.curves import log_linear

    sizes, rates = (64.0, 1024.0), (1e9, 3e9)
    assert log_linear(sizes, rates, 256.0) == 2e9
    assert log_linear(sizes, rates, 8.0) == 1e9 and log_linear(sizes, rates, 1 << 20) == 3e9
    assert list(log_linear(sizes, rates, np.array([64.0, 128.0, 512.0]))) == [1e9, 1.5e9, 2.5e9]
