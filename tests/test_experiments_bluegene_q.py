"""What the BlueGene/Q experiment scripts (experiments/bluegene_q/) find, at
their --quick sizes: the claims of seed 000 (claims.yaml) they can check,
the trends the paper states, and what the model's own definitions fix.
Each script runs once per session (the quick_experiment fixture, shared
with test_experiments.py, which checks that every script writes its PNG
and CSV)."""

import csv

import numpy as np
import pytest

from experiments.bluegene_q import fig4, fig5, fig6, fig7, fig8, fig9, fig12, fig13, fig14, projection_check
from simbfs.algorithms.cp1d.execute_mpi import mpi_memory_bytes
from simbfs.algorithms.cp1d.execute_spi import spi_memory_bytes
from simbfs.bfs import bfs_reference
from simbfs.graph import GraphSpec, load_graph
from simbfs.machine import load_machine

TOL = 1e-12  # seconds: float round-off in sums of simulated times


def _rows(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


def _quick(quick_experiment, name):
    return quick_experiment(f"experiments.bluegene_q.{name}")

def test_projected_teps_within_ten_percent_of_executed(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "projection_check")
    assert {row["algorithm"] for row in rows} == {"bsp1d-do", "bsp1d-topdown", "cp1d-spi", "cp1d-mpi", "cp2d"}
    for row in rows:
        assert abs(row["error"]) <= projection_check.BAR, row
    assert (tmp_path / "projection_check.csv").exists()


def test_fig4_bandwidth_rises_with_packet_size_and_stays_below_the_port_and_bisection_bound(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "fig4")
    assert (tmp_path / "fig4_bandwidth.png").stat().st_size > 0
    assert (tmp_path / "fig4_bandwidth.csv").read_text().count("\n") == len(rows) + 1
    machine = load_machine("bluegene_q")
    net, msg = machine.network, machine.messaging
    header = net.packet_header_bytes
    assert {row["nodes"] for row in rows} == set(fig4.QUICK_PARTITIONS)
    for nodes in fig4.QUICK_PARTITIONS:
        mine = sorted((row for row in rows if row["nodes"] == nodes), key=lambda row: row["packet_payload_B"])
        assert [row["packet_payload_B"] for row in mine] == list(fig4.QUICK_PACKET_SIZES)
        rates = [row["bandwidth_GBps"] for row in mine]
        assert all(b >= a for a, b in zip(rates, rates[1:])), (nodes, rates)
        longest_ring = max(int(x) for x in mine[0]["shape"].split("x"))
        for row in mine:
            p = row["packet_payload_B"]
            # Written out here rather than taken from the script: a node's port
            # carries p + header wire bytes per p payload bytes; the cut across
            # the longest ring (2 N / ring links per direction) carries the
            # (N/2)^2 crossing pair buffers; every packet costs one node its
            # send and another its receive overhead (uniform: equal counts).
            port = net.injection_bandwidth_Bps * p / (p + header)
            bisection = 8 * net.link_bandwidth_Bps / longest_ring * p / (p + header)
            software = p / (msg.send_overhead_s + msg.receive_overhead_s)
            assert row["bandwidth_GBps"] * 1e9 <= min(port, bisection, software) * (1 + 1e-12), row


def test_fig5_direction_optimising_examines_fewer_edges_and_top_down_scans_the_component_twice(quick_experiment):
    tmp_path, summary = _quick(quick_experiment, "fig5")
    for name in ("fig5_levels.png", "fig5_levels.csv", "fig5_roots.csv"):
        assert (tmp_path / name).stat().st_size > 0
    assert set(summary["scales"]) == set(fig5.QUICK_SCALES)
    roots = summary["roots"]
    assert len(roots) == len(fig5.QUICK_SCALES) * fig5.QUICK_ROOTS
    for scale in fig5.QUICK_SCALES:
        mine = [row for row in roots if row["scale"] == scale]
        assert sum(r["edges_direction_optimising"] for r in mine) < sum(r["edges_top_down"] for r in mine), scale
        graph = load_graph(GraphSpec("kronecker", scale, seed=fig5.SEED))
        for row in mine:
            result = bfs_reference(graph, row["root"], direction_optimising=False)
            reached = result.parent >= 0
            assert int(reached.sum()) == row["reached"]
            # Closed form, from the input tuples and not the CSR: top-down
            # expands every vertex of the root's component once and scans its
            # whole list, so every distinct non-loop edge {u, v} of the
            # component is scanned from both ends exactly once.
            src, dst = graph.edges.src.astype(np.int64), graph.edges.dst.astype(np.int64)
            inside = reached[src] & (src != dst)
            keys = np.unique(np.minimum(src, dst)[inside] * graph.num_vertices + np.maximum(src, dst)[inside])
            assert row["edges_top_down"] == 2 * keys.size == row["component_csr_entries"]
            assert row["do_edges_per_tree_vertex"] >= 1.0
    levels = summary["levels"]
    assert [row["level"] for row in levels] == list(range(len(levels)))
    assert levels[0]["frontier_vertices"] == 1


def _rows(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


def test_fig6_direction_optimisation_sends_fewer_packets_than_neither(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "fig6")
    total = {label: sum(r["messages"] for r in rows if r["variant"] == label) for label in fig6.VARIANTS}
    assert total["DO + compression"] < total["no DO, no compression"]
    # probes exist only with direction optimisation
    assert sum(r["backward_messages"] for r in rows if r["variant"] == "no DO, no compression") == 0
    assert (tmp_path / "fig6_messages.png").stat().st_size > 0


def test_fig8_uncompressed_edges_take_six_bytes(quick_experiment):
    _, rows = _quick(quick_experiment, "fig8")
    plain = [r for r in rows if r["variant"] == "uncompressed" and r["edges_sent"] > 0]
    assert plain and all(r["bytes_per_edge"] == pytest.approx(fig8.UNCOMPRESSED, abs=1e-9) for r in plain)  # III-B


def test_fig8_compression_takes_four_to_five_bytes_in_heavy_levels_and_over_six_in_light_ones(quick_experiment):
    """bgq.compression_bytes_per_edge, executed at 32 nodes, scale 14: the
    levels carrying at least 10% of the edges average 4-5 B per edge
    (measured 4.25 and 4.82), those below 1% are header-dominated, above the
    6 B of no compression (measured 8.3-12 B)."""
    _, rows = _quick(quick_experiment, "fig8")
    heavy, light = fig8.heavy_and_light(rows, "executed")
    assert heavy and light
    low, high = fig8.PAPER_HEAVY
    assert all(low <= r["bytes_per_edge"] <= high for r in heavy), [(r["level"], r["bytes_per_edge"]) for r in heavy]
    assert all(r["bytes_per_edge"] > fig8.UNCOMPRESSED
               for r in light), [(r["level"], r["bytes_per_edge"]) for r in light]


@pytest.mark.xfail(strict=True, reason="known miss (bgq.compression_bytes_per_edge at the paper's size): projected at "
                   "1,024 nodes, scale 34 (scale-14 profile), the heavy bottom-up level 2 (96% of the edges) takes "
                   "7.85 B per edge against the paper's 4-5: in the projection's closed form of compression a 4 B "
                   "entry needs the stream's previous source within 127 vertices, and 2^24 vertices per node spread "
                   "over (threads x 1,024 destinations) streams leave them farther apart, so most entries are 8 B")
def test_fig8_projected_heavy_levels_take_four_to_five_bytes_at_the_papers_size(quick_experiment):
    _, rows = _quick(quick_experiment, "fig8")
    heavy, _ = fig8.heavy_and_light(rows, "projected")
    low, high = fig8.PAPER_HEAVY
    assert heavy and all(low <= r["bytes_per_edge"] <= high for r in heavy), [r["bytes_per_edge"] for r in heavy]


def test_fig7_spi_beats_mpi_and_memory_gives_the_papers_scales_per_node(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "fig7")
    assert rows[0]["harmonic_mean_gteps"] > rows[1]["harmonic_mean_gteps"]
    projected = [r for r in rows if r.get("mode") == "projected"]
    spi, mpi = (next(r["harmonic_mean_gteps"] for r in projected if r["algorithm"] == a)
                for a in ("cp1d-spi", "cp1d-mpi"))
    assert spi > mpi  # projected too, and labelled so
    assert (tmp_path / "fig7_spi_vs_mpi_projected.png").stat().st_size > 0


def test_the_memory_model_fits_scale_24_per_node_with_spi_and_no_more():
    """bgq.mpi_max_scale_per_node (exact), SPI part: 2^24 vertices per node
    fit 16 GiB (8.7 GiB: structure 4.7, generated tuples 4.0), 2^25 do not
    (17.4 GiB), from the layout's own structures (algorithms/cp1d/memory.py)."""
    machine = load_machine("bluegene_q")
    assert fig7.largest_scale_per_node(spi_memory_bytes, machine) == 24


@pytest.mark.xfail(strict=True, reason=(
    "known miss (bgq.mpi_max_scale_per_node, MPI part: 23): the layout's structures put 2^24 vertices per "
    "node at 12.6 GiB with MPI (structure 4.7 GiB, the two all-to-all buffers 7.8 GiB at 8 B per stored "
    "entry each way), so the model fits 24. For 24 not to fit, each buffer would need more than 10.7 B "
    "per entry, more than any edge format the paper describes (6 B plain, 4 or 8 B compressed): the "
    "paper's MPI code holds something the paper does not list (MPI's own staging copies of the "
    "all-to-all, or 64-bit pairs). Charging a vertex header per adjacency entry (16.1 GiB) would give 23, "
    "but the layout does not allocate one."))
def test_the_memory_model_fits_scale_23_per_node_with_mpi_and_no_more():
    machine = load_machine("bluegene_q")
    assert fig7.largest_scale_per_node(mpi_memory_bytes, machine) == 23


@pytest.mark.parametrize("nodes,scale", [(98304, 41), (49152, 40)], ids=["Sequoia", "Mira"])
def test_the_real_machines_graph500_configurations_fit(nodes, scale):
    """Sequoia (98,304 nodes, scale 41) and Mira (49,152 nodes, scale 40)
    ran the Graph500 with this code's successors; the model must not call
    them impossible (2^24.4 vertices per node: about 11.2 GiB)."""
    machine = load_machine("bluegene_q")
    need = spi_memory_bytes(machine, 2**scale, 32 * 2**scale, nodes)
    assert need <= machine.node.memory_bytes


def test_fig9_direction_optimisation_gives_about_an_order_of_magnitude_more_than_the_others(quick_experiment):
    """bgq.optimisation_impact.1024 (a trend): on 1,024 nodes direction
    optimisation gives by far the largest speedup, "almost an order of
    magnitude more than what other optimizations can do". Checked at the
    paper's size (scale 34), projected: its speedup over no optimisation,
    divided by the larger of compression's and load balancing's, is 10 on a
    log scale (10^0.5 to 10^1.5). Measured 6.5-12x (DO 8.6-15x, compression
    1.3x, load balancing 1.15x) from the quick scale-14 profiles, 6.2x from
    scale 18. At the executed quick size (scale 12, 32 nodes) it is only
    1.7x, and only the ordering is asserted there: the levels are too cheap
    for the edges direction optimisation saves to matter."""
    _, rows = _quick(quick_experiment, "fig9")
    projected = fig9.impact([r for r in rows if r["mode"] == "projected"])
    low, high = fig9.ORDER_OF_MAGNITUDE
    assert low <= projected["do_over_others"] < high, projected
    executed = fig9.impact([r for r in rows if r["mode"] == "executed"])
    assert executed["do_over_others"] > 1, executed


def test_fig11_threads_help_up_to_sixty_four(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "fig11")
    teps = [r["harmonic_mean_gteps"] for r in rows]
    assert teps == sorted(teps) and teps[-1] > teps[-2]  # bgq.thread_scaling
    assert len(_rows(tmp_path / "fig11_threads.csv")) == len(rows)

@pytest.fixture
def fig13_run(quick_experiment):
    return _quick(quick_experiment, "fig13")


@pytest.fixture
def fig14_run(quick_experiment):
    return _quick(quick_experiment, "fig14")


def test_fig13_phases_are_consistent_with_the_level_time(fig13_run):
    out, rows = fig13_run
    assert len(_rows(out / "fig13_level_breakdown.csv")) == len(rows)
    assert (out / "fig13_level_breakdown.png").stat().st_size > 0
    assert {(r["nodes"], r["scale"]) for r in rows} == set(fig13.QUICK[0])
    for r in rows:
        assert r["scan_s"] >= 0 and r["receive_s"] >= 0 and r["flush_s"] >= 0
        # scan and receive are parts of the busiest thread's work, so neither
        # exceeds the node's CPU time; CPU plus flush is the node's busy time,
        # which ends before the level's closing allreduce does
        assert r["scan_s"] <= r["compute_s"] + TOL
        assert r["receive_s"] <= r["compute_s"] + TOL
        assert r["compute_s"] + r["flush_s"] <= r["time_s"] + TOL
    assert {r["direction"] for r in rows} == {"top-down", "bottom-up"}


def test_fig13_flush_shows_where_the_network_bounds_the_level(fig13_run):
    _, rows = fig13_run
    bound = [r for r in rows if r["network_bound_roots"] == r["roots_reaching"] and r["roots_reaching"] > 0]
    assert bound, "the larger quick partition should have communication-bound levels"
    for r in bound:  # bgq.level_breakdown: flush time shows in communication-bound levels
        assert r["flush_s"] > r["scan_s"] and r["flush_s"] > r["receive_s"]


def test_fig13_central_levels_hold_most_edges_and_the_first_two_few_vertices(fig13_run):
    _, rows = fig13_run
    for size in fig13.QUICK[0]:
        mine = [r for r in rows if (r["nodes"], r["scale"]) == size]
        edges = sum(r["edges_examined"] for r in mine)
        central = sum(r["edges_examined"] for r in mine if r["level"] in fig13.CENTRAL)
        assert central > 0.5 * edges  # bgq.central_levels: levels three and four (from 1)
        reached = sum(r["frontier_vertices"] for r in mine)
        assert sum(r["frontier_vertices"] for r in mine if r["level"] < 2) < 0.01 * reached


def test_fig14_representations_run_the_same_bfs(fig14_run):
    out, rows = fig14_run
    assert len(_rows(out / "fig14_representations.csv")) == len(rows)
    assert (out / "fig14_representations.png").stat().st_size > 0
    assert {r["direction"] for r in rows} == {"top-down"}  # direction optimisation off
    by = {v: [(r["level"], r["edges_examined"], r["frontier_vertices"]) for r in rows if r["variant"] == v]
          for v in fig14.VARIANTS}
    assert by["coarse index"] == by["skip list"] == by["edge list"]


def test_fig14_light_level_reads_and_the_edge_list_loses(fig14_run):
    _, rows = fig14_run
    by = {v: {r["level"]: r for r in rows if r["variant"] == v} for v in fig14.VARIANTS}
    root = {v: by[v][0] for v in by}  # level 0: only the root is in the frontier
    # the edge list reads every stored pair, the skip list every header, the
    # coarse index only the headers of words with an active bit
    assert root["edge list"]["scan_s"] > root["skip list"]["scan_s"] > root["coarse index"]["scan_s"]
    # bgq.representation: both beat a plain edge list, in every level
    for k in by["edge list"]:
        assert by["edge list"][k]["time_s"] > max(by["skip list"][k]["time_s"], by["coarse index"][k]["time_s"])
    # ... and the coarse index is cheaper than the skip list in the light levels
    light = [k for k, r in by["coarse index"].items() if r["edges_examined"] < 0.01 * max(
        s["edges_examined"] for s in by["coarse index"].values())]
    assert light
    assert sum(by["coarse index"][k]["time_s"] for k in light) < sum(by["skip list"][k]["time_s"] for k in light)

def _rows(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


def test_fig10_weak_scaling_is_projected_and_grows_with_racks(quick_experiment):
    tmp_path, (rows, per_root) = _quick(quick_experiment, "fig10")
    assert all(r["mode"] == "projected" for r in rows + per_root)
    assert all(r["mode"] == "projected" for r in _rows(tmp_path / "fig10_weak_scaling.csv"))
    # weak scaling (bgq.weak_scaling): 4x the racks and 4x the graph give more TEPS
    assert rows[1]["harmonic_mean_gteps"] > rows[0]["harmonic_mean_gteps"]
    # the harmonic mean never exceeds the arithmetic mean of the roots it summarises
    for row in rows:
        values = [p["gteps"] for p in per_root if p["racks"] == row["racks"]]
        assert row["harmonic_mean_gteps"] <= sum(values) / len(values) + 1e-9
    assert (tmp_path / "fig10_weak_scaling.png").stat().st_size > 0


def test_fig12_labels_projected_and_executed_points(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "fig12")
    modes = {(r["algorithm"], r["mode"]) for r in rows}
    assert ("cp1d-spi", "projected") in modes and ("cp2d", "executed") in modes
    assert ("cp2d", "projected") in modes
    assert all(r["mode"] == "projected" for r in _rows(tmp_path / "fig12_1d_vs_2d.csv") if r["nodes"] == "4096")
    assert (tmp_path / "fig12_1d_vs_2d.png").stat().st_size > 0


def test_fig12_the_1d_code_is_more_than_five_times_faster_than_the_2d_code(quick_experiment):
    """bgq.1d_over_2d.4096 (a trend, no tolerance): on 4,096 nodes the 1D code
    (scale 36) is more than 5x faster than the 2D code (scale 32), each
    projected at the paper's size. Measured 11-15x from scale-14 profiles
    (8.6x from scale 18). The ratio holds although both values miss their
    own claims (bgq.1d.4096 and bgq.2d.4096, both projected several times
    too fast; see the script's output and docs/validation.md)."""
    _, rows = _quick(quick_experiment, "fig12")
    ratio = fig12.projected_ratio(rows)
    assert ratio is not None and ratio > fig12.MORE_THAN, ratio
