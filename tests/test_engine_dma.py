"""DMA engine timelines. Tiny machine: latency 100 ns; 0.5 B/ns for 64 B
blocks, 2 B/ns for 1 KiB blocks (log-linear between); 2 outstanding; shared
memory 3 B/ns."""

import pytest
import simpy

from simbfs.engine.dma import DMAEngine, SharedMemoryPort
from tests.conftest import tiny_machine

DMA = tiny_machine().dma


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


def test_outstanding_limit_makes_the_third_request_wait():
    log = run_transfers([("a", 0, 1024, 1024), ("b", 0, 1024, 1024), ("c", 0, 1024, 1024)])
    # a and b share the engine's 2 slots; the shared 3 B/ns memory serialises
    # them (a: 100 + 341.3, b: after a); c starts only when a's slot frees.
    ends = dict(log)
    assert ends["a"] == pytest.approx(100 + 512)
    assert ends["b"] == pytest.approx(100 + 2 * 1024 / 3, abs=1e-3)
    assert ends["c"] > ends["a"]


def test_engines_contend_for_shared_memory():
    solo = run_transfers([("a", 0, 30000, 30000)])[0][1]
    pair = dict(run_transfers([("a", 0, 30000, 30000), ("b", 1, 30000, 30000)]))
    assert solo == pytest.approx(100 + 15000)
    # together they need 60000 B at 3 B/ns: the second finishes at 100 + 20000
    assert max(pair.values()) == pytest.approx(100 + 20000)
