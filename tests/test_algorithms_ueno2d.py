"""ueno2d, Ueno & Suzumura's 2D BFS on GPUs (seed 004): the exact claims
(Table 1's grids, the expand threshold, scale 23 per GPU), executed runs that
validate and match networkx's levels, SV filtering against a brute force,
the kernel and copy prices against values worked by hand (on the fixture
machine of tests/conftest.py), processes sharing a host's ports, and the
projection against execution."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from simbfs.algorithms import get_algorithm
from simbfs.algorithms.ueno2d import work as ueno
from simbfs.algorithms.ueno2d.pricing import cpu_processor
from simbfs.engine import Simulation
from simbfs.engine.devices import Processor
from simbfs.errors import UserError
from simbfs.graph import GraphSpec, generate_graph
from simbfs.machine import load_machine
from simbfs.runner import RunConfig, run
from tests.conftest import tiny_machine


@pytest.fixture(scope="module")
def graph():
    return generate_graph(GraphSpec("kronecker", 11, seed=3))


@pytest.fixture(scope="module")
def tsubame():
    return load_machine("tsubame2")


# ------------------------------------------------------------- exact claims
def test_process_grid_is_table_1():
    """tsubame.process_grid: 8x8, 8x16, 16x16, 16x32, 32x32, 32x64 for
    64..2,048 processes, and the same rule beyond (4,096: 64x64)."""
    table = {64: (8, 8), 128: (8, 16), 256: (16, 16), 512: (16, 32), 1024: (32, 32), 2048: (32, 64),
             4096: (64, 64)}
    assert {p: ueno.grid_shape(p) for p in table} == table


@pytest.mark.parametrize("processes", [3, 96, 4095])
def test_a_grid_needs_a_power_of_two_of_processes(processes):
    with pytest.raises(UserError, match="power of two"):
        ueno.grid_shape(processes)


def test_expand_sends_bitmaps_only_above_alpha_n(graph):
    """tsubame.expand_threshold: a bitmap when |NQ| > alpha n (alpha = 1/16),
    else the SIMD-VLQ list; the list's bytes are the real encoding's."""
    layout = ueno.Layout(graph, 16)
    n = graph.num_vertices
    at = np.arange(0, n, 16)[: n // 16]  # exactly alpha n vertices
    assert len(at) == n // 16
    listed = ueno.expand(layout, at, 1 / 16, 32)
    assert listed.mode == ueno.EXPAND_LIST
    above = np.append(at, 1)
    assert ueno.expand(layout, above, 1 / 16, 32).mode == ueno.EXPAND_BITMAP
    # each block holds 128 vertices, 8 of them in NQ, every 16th: local ids
    # 0, 16, ..., 112 -> deltas 112, 16 x 7: one VLQ byte each
    assert listed.own_bytes.tolist() == [8.0] * 16
    assert np.array_equal(np.sort(listed.frontier), at)


@pytest.mark.parametrize("processes", [64, 256, 1024, 4096])
def test_the_largest_problem_is_scale_23_per_gpu(tsubame, processes):
    """tsubame.scale_per_gpu: with 2.8 GB per GPU, scale 23 per GPU fits
    and scale 24 does not (004, VI-C)."""
    algorithm = get_algorithm("ueno2d")
    log_p = processes.bit_length() - 1

    def need(scale):
        return algorithm.node_memory_bytes(2**scale, 2 * 16 * 2**scale, processes, tsubame)

    assert need(23 + log_p) > 0
    with pytest.raises(UserError, match="GPU"):
        need(24 + log_p)


def test_a_graph_too_large_for_the_gpus_is_refused_in_one_line(capsys):
    from simbfs.cli import main

    assert main(["run", "tsubame2", "--nodes", "64", "--scale", "31", "--mode", "project", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "gpu.memory" in err and "scale 29" in err


# ---------------------------------------------------------- executed runs
@pytest.mark.parametrize("variant", ["ueno2d", "ueno2d:expand=bitmap,sv=atomic", "ueno2d:sv=tas",
                                     "ueno2d:device=cpu"])
@pytest.mark.parametrize("nodes", [1, 16, 64])
def test_every_variant_builds_valid_bfs_trees(variant, nodes):
    doc = run(RunConfig(machine="tsubame2", algorithm=variant, nodes=nodes, scale=12, roots=3, seed=1))
    assert doc["validated"] and doc["all_valid"]
    assert doc["teps"]["harmonic_mean"] > 0


def test_levels_match_networkx(graph, tsubame):
    """Top-down and level-synchronised: level k claims exactly the vertices
    at distance k from the root (networkx)."""
    sim = Simulation(tsubame, 16)
    root = int(np.argmax(graph.degree))
    result = get_algorithm("ueno2d").run(sim, graph, root)
    g = nx.Graph()
    sources = np.repeat(np.arange(graph.num_vertices), np.diff(graph.indptr))
    g.add_edges_from(zip(sources.tolist(), graph.indices.tolist()))
    distance = nx.single_source_shortest_path_length(g, root)
    by_level = {}
    for vertex, d in distance.items():
        by_level[d] = by_level.get(d, 0) + 1
    # level k starts from the vertices at distance k; the last level finds none
    assert [record.frontier_vertices for record in result.levels] == [by_level[d] for d in sorted(by_level)]
    reached = np.flatnonzero(result.parent >= 0)
    assert set(reached.tolist()) == set(distance)


def test_sv_passes_one_edge_per_process_and_unvisited_target(graph):
    """Brute force with Python sets: after SV sharing every visited vertex
    of a row is in SV, so process p sends target v (unvisited) once per
    level, from the smallest frontier source it holds."""
    layout = ueno.Layout(graph, 16)
    visited = np.zeros(graph.num_vertices, dtype=bool)
    root = int(np.argmax(graph.degree))
    visited[root] = True
    frontier = np.array([root])
    for _ in range(3):
        work = ueno.level(layout, frontier, visited, 1 / 16, 32)
        expected = {}
        for u in frontier.tolist():
            for v in graph.indices[graph.indptr[u]:graph.indptr[u + 1]].tolist():
                if visited[v]:
                    continue
                holder = int(layout.holder(np.array([u]), np.array([v]))[0])
                expected.setdefault(holder, set()).add(v)
        passed = {p: len(targets) for p, targets in expected.items()}
        assert {p: int(c) for p, c in enumerate(work.passed) if c} == passed
        # every pair goes to a process of the holder's processor-row
        senders, receivers = np.divmod(work.fold_keys, layout.P)
        assert np.all(work.fold_edges > 0) and np.all(np.diff(work.fold_keys) > 0)
        assert np.array_equal(layout.row_of[senders], layout.row_of[receivers])
        visited[work.new_vertices] = True
        frontier = work.new_vertices


# ---------------------------------------------------------------- pricing
def test_kernel_price_by_hand():
    """Reads 100 MB at 100 GB/s = 1 ms and writes 20 MB at 50 GB/s = 0.4 ms;
    1e6 scattered loads into 2 MB with a 1 MB cache miss half the time:
    0.5e6 x 128 B = 64 MB more read = 0.64 ms; 1e6 scattered stores: 0.5e6
    x 32 B = 16 MB more written = 0.32 ms; so memory 2.36 ms. The misses as
    requests: 0.5e6 loads at 1 GHz = 0.5 ms and 0.5e6 stores at 0.2 GHz =
    2.5 ms, 3 ms; ops 1e9 / 1e12 = 1 ms, atomics 1e6 / 1e9 = 1 ms: the
    scattered requests bound it, plus 2 launches of 5 us. With infinite
    request rates the memory traffic bounds it, and 3e6 atomics (3 ms) then
    bound it."""
    def processor(load_rate, store_rate):
        return Processor(stream_Bps=100e9, stream_write_Bps=50e9, granule_bytes=128, write_granule_bytes=32,
                         cache_bytes=2**20, load_rate=load_rate, store_rate=store_rate, op_rate=1e12,
                         atomic_rate=1e9, launch_s=5e-6)

    work = dict(streamed_bytes=100e6, written_bytes=20e6, scattered=1e6, scattered_writes=1e6,
                scattered_set_bytes=2 * 2**20, ops=1e9, launches=2)
    assert processor(1e9, 0.2e9).kernel_seconds(**work, atomics=1e6) == pytest.approx(10e-6 + 3.0e-3)
    assert processor(np.inf, np.inf).kernel_seconds(**work, atomics=1e6) == pytest.approx(10e-6 + 2.36e-3)
    assert processor(np.inf, np.inf).kernel_seconds(**work, atomics=3e6) == pytest.approx(10e-6 + 3e-3)
    assert processor(1e9, 0.2e9).kernel_seconds() == 0.0  # nothing to do: no launch


def test_fermi_rates_are_shocs_ecc_on_measurements(tsubame):
    """The M2070's ECC-on rows of SHOC's DeviceMemory (vetter/shoc
    data/results.csv, hardware-sources.md E): 91.93 and 101.06 GB/s
    coalesced, 15.00 and 4.00 GB/s strided, of 4-byte accesses."""
    proc = tsubame.section("gpu").processor
    assert (proc.stream_Bps, proc.stream_write_Bps) == (pytest.approx(91.93e9), pytest.approx(101.06e9))
    assert proc.load_rate == pytest.approx(15.00e9 / 4)
    assert proc.store_rate == pytest.approx(4.00e9 / 4)


def test_shocs_strided_write_comes_back_from_the_model(tsubame):
    """SHOC's strided write, as the model sees it: 4 B stores, each to its
    own sector, in a 64 MB array (the L2 holds 768 KB of it): 4 B a store
    at the measured 1 G stores per second is SHOC's 4.00 GB/s, less the
    1.2% of stores that hit the L2."""
    proc = tsubame.section("gpu").processor
    stores = 1e9
    seconds = proc.kernel_seconds(scattered_writes=stores, scattered_set_bytes=64 * 2**20, launches=0)
    assert 4 * stores / seconds == pytest.approx(4.00e9 / (1 - 768 / (64 * 1024)), rel=1e-9)


@pytest.mark.parametrize("sv, expected_ms", [("ttas", 47.47), ("atomic", 126.67)])
def test_filter_far_beyond_the_l2_by_hand(tsubame, sv, expected_ms):
    """The filter kernel with 1e8 gathered edges of which 1e7 pass, its SV
    bitmap far larger than the 768 KB L2 (every access misses), on the
    bundled M2050 (8 B edges, 32 B sectors, 91.93/101.06 GB/s, 3.75 G
    loads and 1.0 G stores a second, 12 launches of 5 us for 800 MB of
    edges in 64 MiB buffers):

    (B) reads 1e8 x (8 + 32) B = 43.51 ms, writes 1e7 x (8 + 32) B = 3.96 ms:
        47.47 ms of memory against 1e8 loads (26.67 ms) + 1e7 stores (10 ms);
    (A) writes every sector back, 1e7 x 8 + 1e8 x 32 B = 32.46 ms, and
        stores 1e8 times: 26.67 + 100 = 126.67 ms, bound by the stores.
    """
    from simbfs.algorithms.ueno2d import pricing

    zero = np.zeros(1)
    counts = pricing.Counts(
        expand_mode=ueno.EXPAND_BITMAP, own_vertices=zero, own_bytes=zero, column_bytes=zero, row_bytes=zero,
        column_vertices=zero, row_vertices=zero, cq_words=zero, nonempty_words=zero, entries=np.array([1e8]),
        passed=np.array([1e7]), sent_bytes=zero, received=zero, received_bytes=zero, claimed=zero,
        messages_out=zero, messages_in=zero)
    shape = pricing.Shape(n=2.0**50, R=1, C=1)
    filter_s = pricing.kernel_times(tsubame, "gpu", sv, shape, counts)["filter"][0]
    assert filter_s == pytest.approx(expected_ms * 1e-3 + 12 * 5e-6, rel=2e-4)


def test_pcie_copy_price_by_hand():
    """Fixture machine: PCIe at 2 GB/s and 1 us a copy; 4 GB in 3 copies."""
    gpu = tiny_machine("gpu").section("gpu")
    assert gpu.copy_seconds(4e9, 3) == pytest.approx(3 * 1e-6 + 2.0)
    assert gpu.copy_seconds(0.0) == 0.0


def test_cpu_version_shares_the_host():
    """device=cpu, on the fixture machine with 2 processes per host: a
    process gets half of the host's 1 GB/s, 1 MiB cache and one core at
    1 GHz, and 4 threads x 5 misses in flight at 100 cycles (100 ns)."""
    machine = tiny_machine("node.memory_hierarchy", "gpu", "ueno2d",
                           **{"network.processes_per_host": {"value": 2, "source": "test"}})
    proc = cpu_processor(machine)
    assert proc.stream_Bps == pytest.approx(0.5e9)
    assert proc.cache_bytes == 2**19
    assert proc.load_rate == proc.store_rate == pytest.approx(20 / 100e-9)
    assert proc.op_rate == pytest.approx(0.5e9)


@pytest.mark.parametrize("device, sv, mode", [("gpu", "ttas", ueno.EXPAND_LIST), ("gpu", "atomic", ueno.EXPAND_BITMAP),
                                              ("cpu", "tas", ueno.EXPAND_LIST)])
def test_price_level_prices_every_process_as_it_prices_one(tsubame, device, sv, mode):
    """The executed run prices all processes' counts at once, the
    projection one process's: the same numbers, process by process, when
    each is the slowest of its groups; a group's slowest member holds up
    its allgather."""
    from simbfs.algorithms.ueno2d import pricing

    arrays = pricing.Counts(
        expand_mode=mode, own_vertices=np.array([50.0, 3.0]), own_bytes=np.array([120.0, 9.0]),
        column_bytes=np.array([900.0, 700.0]), row_bytes=np.array([1500.0, 1300.0]),
        column_vertices=np.array([400.0, 350.0]), row_vertices=np.array([700.0, 650.0]),
        cq_words=np.array([2048.0, 2048.0]), nonempty_words=np.array([300.0, 280.0]),
        entries=np.array([8e5, 2e4]), passed=np.array([2e5, 5e3]), sent_bytes=np.array([1.6e6, 4e4]),
        received=np.array([1.9e5, 6e3]), received_bytes=np.array([1.5e6, 4.5e4]), claimed=np.array([9e4, 2e3]),
        messages_out=np.array([30.0, 5.0]), messages_in=np.array([28.0, 6.0]))
    shape = pricing.Shape(n=2.0**20, R=8, C=8)
    ports, totals = np.array([3e-4, 1e-5]), (np.array([1e3, 80.0]), np.array([1.6e3, 90.0]))
    every = pricing.price_level(tsubame, device, sv, shape, arrays, ports, 2e-6, *totals)
    fields = list(arrays.__dataclass_fields__)[1:]  # all but expand_mode
    ones = [pricing.price_level(tsubame, device, sv, shape,
                                pricing.Counts(mode, *(float(getattr(arrays, f)[i]) for f in fields)),
                                float(ports[i]), 2e-6, float(totals[0][i]), float(totals[1][i])) for i in range(2)]
    for i, one in enumerate(ones):
        assert float(one.busy_s) == float(every.busy_s[i]) > 0
        assert float(one.compute_s) == float(every.compute_s[i])
        assert (float(one.expand_s), float(one.fold_s)) == (float(every.expand_s[i]), float(every.fold_s[i]))
    assert every.bottleneck == ones[0].bottleneck  # process 0 is the slower in every term
    together = pricing.price_level(tsubame, device, sv, shape, arrays, ports, 2e-6, *totals,
                                   column_max=lambda v: np.broadcast_to(np.max(v), (2,)),
                                   row_max=lambda v: np.broadcast_to(np.max(v), (2,)))
    assert float(together.expand_s[1]) > float(every.expand_s[1])  # it waits for process 0
    assert np.array_equal(together.fold_s, every.fold_s)


def test_processes_of_a_host_share_its_ports():
    """Fixture machine with 3 processes per host (1000 B packets, 24 B
    headers, 1 GB/s ports). 6 processes on 2 hosts: 0 -> 1 stays inside
    host 0; 0 -> 3 and 1 -> 4 leave it, so host 0 injects both, and each of
    its processes reports the host's port time."""
    sim = Simulation(tiny_machine(**{"network.processes_per_host": {"value": 3, "source": "test"}}), 6)
    assert sim.topology.nodes == 2
    network = sim.context().network
    payload = np.zeros((6, 6))
    payload[0, 1] = 1e6
    payload[0, 3] = 1000.0 * 100
    payload[1, 4] = 1000.0 * 100
    loads = network.traffic_loads(payload)
    wire = 2 * 100 * (1000 + 24)  # two messages of 100 full packets: 204,800 B
    assert loads.inject_s.tolist() == pytest.approx([wire / 1e9] * 3 + [0.0] * 3)  # 204.8 us at 1 GB/s
    assert loads.eject_s.tolist() == pytest.approx([0.0] * 3 + [wire / 1e9] * 3)
    assert loads.messages_out.tolist() == [1, 1, 0, 0, 0, 0]


def test_the_report_says_gpus_and_hosts():
    from simbfs.report import format_run

    doc = run(RunConfig(machine="tsubame2", nodes=64, scale=12, roots=1, seed=1))
    assert doc["nodes"] == 64 and doc["hosts"] == 22
    assert "64 nodes (MPI processes, one per GPU) on 22 hosts" in format_run(doc)


def test_generic_projections_are_refused_on_shared_hosts():
    with pytest.raises(UserError, match="processes_per_host"):
        run(RunConfig(machine="tsubame2", nodes=64, scale=14, roots=1, algorithm="bsp1d-do", mode="project",
                      profile_scale=12))


# -------------------------------------------------------------- projection
@pytest.mark.parametrize("nodes,scale,profile", [(64, 16, 16), (64, 16, 14)])
def test_projection_is_within_10_percent_of_execution(nodes, scale, profile):
    executed = run(RunConfig(machine="tsubame2", nodes=nodes, scale=scale, roots=4, seed=1, validate=False))
    projected = run(RunConfig(machine="tsubame2", nodes=nodes, scale=scale, roots=4, seed=1, mode="project",
                              profile_scale=profile))
    assert projected["mode"] == "projected"
    ratio = projected["teps"]["harmonic_mean"] / executed["teps"]["harmonic_mean"]
    assert ratio == pytest.approx(1.0, abs=0.10)

