"""When a bottom-up level's remote claims become visible
(simbfs/algorithms/cp1d/claim_timing.py): the executed ClaimDelay's pair
tables give the delays it is asked for, a probe waits in its prober's queue
only, and the claim timing is brought to agree with the level it prices."""

import numpy as np
import pytest

from simbfs.algorithms.cp1d.claim_timing import ClaimDelay, ClaimTiming, self_consistent_claim_timing
from simbfs.algorithms.cp1d.layout import Layout
from simbfs.algorithms.cp1d.work import CP1DOptions, bottom_up
from simbfs.engine import Simulation
from simbfs.graph import GraphSpec, generate_graph
from simbfs.machine import load_machine
from tests.cp1d_support import bgq


def test_claim_delays_from_pair_tables_equal_the_delays_asked_for():
    """A ClaimDelay offers its per-pair parts as tables when the remote hits
    outnumber the node pairs, and the compiled loops evaluate
    claim_delay_s per hit: the level is the same, array for array, as when
    the delays are asked for one array at a time."""
    graph = generate_graph(GraphSpec("kronecker", 9, seed=6))
    rng = np.random.default_rng(6)
    nodes = 4
    layout = Layout(graph, nodes, 4, heavy_count=4, index_stride=64)
    visited = rng.random(graph.num_vertices) < 0.3
    frontier = np.flatnonzero(visited & (rng.random(graph.num_vertices) < 0.5))
    sim = Simulation(load_machine("bluegene_q", ["network.shape=[2,2]"]), nodes)
    sweep = 1e-6 * (1 + rng.random(nodes))  # sweeps as long as a trip (about 1 us): the timing decides
    rates = [rng.random((nodes, nodes)) * 1e9 for _ in range(2)]
    every_pair = np.arange(nodes * nodes)  # rates on pairs sender * N + receiver
    delay = ClaimDelay(sim, every_pair, sweep, *(rate.reshape(-1) for rate in rates), per_packet=20.0)

    class AskedFor:  # the same timing without its tables
        sweep_time = sweep

        def __call__(self, prober, owner, t):
            return delay(prober, owner, t)
    level = bottom_up(layout, frontier, visited, CP1DOptions())
    remote = len(level.remote_segments()[0])
    assert remote > nodes * nodes and delay.pair_tables(remote) is not None
    tabled, asked = level(delay), level(AskedFor())
    for name in tabled.ops:
        assert np.array_equal(tabled.ops[name], asked.ops[name]), name
    for a, b in zip(tabled.streams, asked.streams):
        assert np.array_equal(a.sender, b.sender) and np.array_equal(a.sweep_vertex, b.sweep_vertex)
    assert np.array_equal(tabled.new_parents, asked.new_parents)
    assert (tabled.probes_sent, tabled.responses) == (asked.probes_sent, asked.responses)


def test_a_round_trip_waits_in_the_probers_queue_only():
    """ClaimDelay with per-node injection-queue waits q: each (prober,
    owner) delay is the one without them plus q[prober]. The answer does
    not wait behind the owner's probes: "separate FIFOs for probes and
    responses" (000, II-C)."""
    sim = Simulation(bgq(4), 4)
    sweep = np.full(4, 1e-3)
    queue = np.array([1e-6, 2e-6, 4e-6, 8e-6])
    prober, owner = np.array([0, 1, 2, 3, 0]), np.array([1, 2, 3, 0, 3])
    t = np.zeros(5)
    no_pairs = np.zeros(0, dtype=np.int64)
    plain = ClaimDelay(sim, no_pairs, sweep)(prober, owner, t)
    queued = ClaimDelay(sim, no_pairs, sweep, queue_s=queue)(prober, owner, t)
    assert queued - plain == pytest.approx(queue[prober])


def _claim_timing_passes(gives, first_sweep=1.259, **kwargs):
    """self_consistent_claim_timing on a closed-form level whose sweep is
    gives(assumed sweep); returns the sweeps assumed, in order, and the
    result (the sweep the last pass gave)."""
    assumed = []

    def evaluate(timing):
        assumed.append(timing.mean_sweep_s)
        given = gives(timing.mean_sweep_s)
        return given, ClaimTiming(given, 1.0, 1.0, 10.0)

    result = self_consistent_claim_timing(evaluate, ClaimTiming(first_sweep, 1.0, 1.0, 10.0), **kwargs)
    return assumed, result


def test_the_claim_timing_is_brought_to_agree_with_the_level_it_prices():
    """self_consistent_claim_timing on closed-form levels. The real
    levels' given sweep hardly moves with the assumed one, and rises as
    it falls (0.21-0.25 s while the assumption falls from 1.12 to 0.27 s
    at 4,096 nodes): gives(T) = 0.25 - 0.03 T has its fixed point at
    0.25 / 1.03 = 0.2427 s. From the first pass's 1.259 s, regula falsi
    between the first timing and what it gives lands within the 3%
    tolerance in at most 3 evaluations (taking midpoints needs 7-8). A
    single pass would stop after the first, at 0.212 s."""
    assumed, result = _claim_timing_passes(lambda t: 0.25 - 0.03 * t)
    assert len(assumed) <= 3
    assert result == pytest.approx(0.25 / 1.03, rel=0.03)
    assert abs(result - assumed[-1]) <= 0.03 * result  # the last pass gave what it assumed
    # a steeper level (c^2 / T, c = 0.53 s, whose plain iteration swings
    # 1.259 -> 0.223 -> 1.259 for ever) also converges
    assumed, result = _claim_timing_passes(lambda t: 0.53 ** 2 / t)
    assert result == pytest.approx(0.53, rel=0.03) and len(assumed) <= 6


def test_the_claim_timing_stops_when_the_first_pass_agrees_or_the_passes_run_out():
    """One evaluation when the first timing already gives itself (within
    3%); at most ``passes`` evaluations, the last one's result returned,
    when the gap closes slowly; and the later pass's result when the gap
    does not change sign (no bracket)."""
    assumed, result = _claim_timing_passes(lambda t: 0.99 * t)
    assert len(assumed) == 1 and result == pytest.approx(0.99 * 1.259)
    assumed, result = _claim_timing_passes(lambda t: 0.53 ** 2 / t, passes=3)
    assert len(assumed) == 3 and result == pytest.approx(0.53 ** 2 / assumed[-1])
    assumed, result = _claim_timing_passes(lambda t: 0.5 * t)  # shorter whatever it assumes
    assert len(assumed) == 2 and result == pytest.approx(0.5 * assumed[-1])


def test_the_claim_timing_agrees_only_when_the_queue_wait_agrees_too():
    """A first pass whose sweep gives itself back but whose probes' queue
    wait does not (assumed 0.1 s, given 0.3 s, against a 3% tolerance of
    a 1 s sweep) is not taken: a second pass is evaluated, which assumes
    the wait the first gave and gets it back."""
    assumed = []

    def evaluate(timing):
        assumed.append(timing.mean_queue_s)
        return timing.mean_queue_s, ClaimTiming(1.0, 1.0, 1.0, 10.0, 0.3)

    result = self_consistent_claim_timing(evaluate, ClaimTiming(1.0, 1.0, 1.0, 10.0, 0.1))
    assert assumed == pytest.approx([0.1, 0.3]) and result == pytest.approx(0.3)
