"""The BlueGene/Q Fig. 13 and 14 scripts at their quick sizes: each must run,
write its CSV/PNG, and give numbers that the records' definitions
(simbfs/records.py, cp1d_spi.py: busy = max(cpu, network, memory) + drain),
the representations' definitions (cp1d.py scan_ops, paper II-D and IV-E) or
the paper's trend (claims.yaml) fix."""

import csv

import pytest

from experiments import bgq_fig13, bgq_fig14

TOL = 1e-12  # seconds: float round-off in sums of simulated times


def _rows(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


@pytest.fixture(scope="module")
def fig13(tmp_path_factory):
    out = tmp_path_factory.mktemp("fig13")
    return out, bgq_fig13.main(["--quick", "--out", str(out)])


@pytest.fixture(scope="module")
def fig14(tmp_path_factory):
    out = tmp_path_factory.mktemp("fig14")
    return out, bgq_fig14.main(["--quick", "--out", str(out)])


def test_fig13_phases_are_consistent_with_the_level_time(fig13):
    out, rows = fig13
    assert len(_rows(out / "fig13_level_breakdown.csv")) == len(rows)
    assert (out / "fig13_level_breakdown.png").stat().st_size > 0
    assert {(r["nodes"], r["scale"]) for r in rows} == set(bgq_fig13.QUICK[0])
    for r in rows:
        assert r["scan_s"] >= 0 and r["receive_s"] >= 0 and r["flush_s"] >= 0
        # scan and receive are parts of the busiest thread's work, so neither
        # exceeds the node's CPU time; CPU plus flush is the node's busy time,
        # which ends before the level's closing allreduce does
        assert r["scan_s"] <= r["compute_s"] + TOL
        assert r["receive_s"] <= r["compute_s"] + TOL
        assert r["compute_s"] + r["flush_s"] <= r["time_s"] + TOL
    assert {r["direction"] for r in rows} == {"top-down", "bottom-up"}


def test_fig13_flush_shows_where_the_network_bounds_the_level(fig13):
    _, rows = fig13
    bound = [r for r in rows if r["network_bound_roots"] == r["roots_reaching"] and r["roots_reaching"] > 0]
    assert bound, "the larger quick partition should have communication-bound levels"
    for r in bound:  # bgq.level_breakdown: flush time shows in communication-bound levels
        assert r["flush_s"] > r["scan_s"] and r["flush_s"] > r["receive_s"]


def test_fig13_central_levels_hold_most_edges_and_the_first_two_few_vertices(fig13):
    _, rows = fig13
    for size in bgq_fig13.QUICK[0]:
        mine = [r for r in rows if (r["nodes"], r["scale"]) == size]
        edges = sum(r["edges_examined"] for r in mine)
        central = sum(r["edges_examined"] for r in mine if r["level"] in bgq_fig13.CENTRAL)
        assert central > 0.5 * edges  # bgq.central_levels: levels three and four (from 1)
        reached = sum(r["frontier_vertices"] for r in mine)
        assert sum(r["frontier_vertices"] for r in mine if r["level"] < 2) < 0.01 * reached


def test_fig14_representations_run_the_same_bfs(fig14):
    out, rows = fig14
    assert len(_rows(out / "fig14_representations.csv")) == len(rows)
    assert (out / "fig14_representations.png").stat().st_size > 0
    assert {r["direction"] for r in rows} == {"top-down"}  # direction optimisation off
    by = {v: [(r["level"], r["edges_examined"], r["frontier_vertices"]) for r in rows if r["variant"] == v]
          for v in bgq_fig14.VARIANTS}
    assert by["coarse index"] == by["skip list"] == by["edge list"]


def test_fig14_light_level_reads_and_the_edge_list_loses(fig14):
    _, rows = fig14
    by = {v: {r["level"]: r for r in rows if r["variant"] == v} for v in bgq_fig14.VARIANTS}
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
