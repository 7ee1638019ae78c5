"""What the Sunway TaihuLight system-level scripts (experiments/sunway_taihulight/
fig11.py and fig12.py) find at their --quick sizes, checked against what the
paper (seed 003) fixes independently of the model: the four variants of
Fig. 11, the direction of CPE over MPE modules, the scratch-pad arithmetic
behind Direct_CPE's failure, supernodes of 256, and Fig. 12's sizes. Each
script runs once per session (the quick_experiment fixture, shared with
test_experiments.py)."""

import csv
import math

import pytest

from experiments.sunway_taihulight import fig11, fig12, sunway


def _quick(quick_experiment, name):
    return quick_experiment(f"experiments.sunway_taihulight.{name}")


def _rows(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


# 003, 4.3: a consumer CPE's scratch pad is 64 KB, 16 of a cluster's 64 CPEs
# consume, they write batches of 256 B; the model keeps 4 batches per
# destination (the paper's "up to 1,024 destinations in practice")
SPM_DESTINATIONS = 16 * 64 * 1024 // (256 * 4)
SUPERNODE = 256  # 003, 3.3 and 4.4: relay groups are supernodes of 256 nodes


def test_fig11_sizes_are_16m_vertices_per_node():
    # Fig. 11's caption: 16 million vertices per node on average
    assert [sunway.scale_for(n, fig11.PER_NODE) for n in (80, 4096, 40768)] == [30, 36, 39]


def test_fig11_has_all_four_variants_at_every_size_and_every_row_is_projected(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "fig11")
    names = {"Relay_CPE", "Relay_MPE", "Direct_CPE", "Direct_MPE"}
    nodes = sorted({row["nodes"] for row in rows})
    assert nodes == sorted(fig11.QUICK["nodes"])
    for n in nodes:
        assert {row["variant"] for row in rows if row["nodes"] == n} == names
    assert all(row["mode"] == "projected" for row in rows)
    written = _rows(tmp_path / "fig11_techniques.csv")
    assert len(written) == len(rows) and all(row["mode"] == "projected" for row in written)


def test_fig11_cpe_modules_beat_mpe_modules_as_the_paper_finds(quick_experiment):
    _, rows = _quick(quick_experiment, "fig11")
    by = {(row["variant"], row["nodes"]): row for row in rows}
    for n in fig11.QUICK["nodes"]:
        # 003, 6.1: properly used CPE clusters improve performance (by about 10x)
        assert by[("Relay_CPE", n)]["harmonic_mean_gteps"] > by[("Relay_MPE", n)]["harmonic_mean_gteps"], n


def test_fig11_direct_cpe_is_refused_beyond_the_scratch_pads_and_no_other_variant_is(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "fig11")
    assert SPM_DESTINATIONS == 1024
    assert any(n > SPM_DESTINATIONS + 1 for n in fig11.QUICK["nodes"])  # the quick run shows a refusal
    for row in rows:
        refused = row["variant"] == "Direct_CPE" and row["nodes"] > SPM_DESTINATIONS + 1
        if refused:
            assert row["harmonic_mean_gteps"] == "" and row["refused"], row
            assert "scratch pad" in row["refused"] and f"{SPM_DESTINATIONS:,}" in row["refused"], row["refused"]
        else:
            assert row["refused"] == "" and row["harmonic_mean_gteps"] > 0, row
    written = {(r["variant"], int(r["nodes"])): r for r in _rows(tmp_path / "fig11_techniques.csv")}
    biggest = max(fig11.QUICK["nodes"])
    assert written[("Direct_CPE", biggest)]["harmonic_mean_gteps"] == ""
    assert "scratch pad" in written[("Direct_CPE", biggest)]["refused"]


def test_fig11_relay_changes_nothing_within_one_supernode(quick_experiment):
    # up to 256 nodes every destination is in the source's own group: no relay hop
    _, rows = _quick(quick_experiment, "fig11")
    by = {(row["variant"], row["nodes"]): row for row in rows}
    small = [n for n in fig11.QUICK["nodes"] if n <= SUPERNODE]
    assert small
    for n in small:
        for modules in ("CPE", "MPE"):
            relay, direct = by[(f"Relay_{modules}", n)], by[(f"Direct_{modules}", n)]
            assert relay["harmonic_mean_gteps"] == pytest.approx(direct["harmonic_mean_gteps"], rel=1e-9), n


def test_fig12_sizes_are_the_papers_scales_36_38_40_at_40768_nodes():
    # 003, 6.2: 1.6M, 6.5M and 26.2M vertices per node are 2^36, 2^38, 2^40 on 40,768 nodes
    assert [sunway.scale_for(40768, per_node) for _, per_node in fig12.SIZES] == [36, 38, 40]
    assert fig12.NODES[0] == 80 and fig12.NODES[-1] == 40768


def test_fig12_rows_are_projected_at_their_weak_scaling_sizes(quick_experiment):
    tmp_path, rows = _quick(quick_experiment, "fig12")
    assert len(rows) == len(fig12.QUICK["sizes"]) * len(fig12.QUICK["nodes"])
    per_node = dict(fig12.QUICK["sizes"])
    for row in rows:
        assert row["mode"] == "projected"
        assert row["scale"] == round(math.log2(row["nodes"] * per_node[row["size"]]))
    assert all(row["mode"] == "projected" for row in _rows(tmp_path / "fig12_weak_scaling.csv"))


def test_fig12_more_vertices_per_node_give_more_teps_at_the_same_node_count(quick_experiment):
    _, rows = _quick(quick_experiment, "fig12")
    labels = [label for label, _ in sorted(fig12.QUICK["sizes"], key=lambda size: size[1])]
    by = {(row["size"], row["nodes"]): row["harmonic_mean_gteps"] for row in rows}
    nodes = sorted(fig12.QUICK["nodes"])
    for n in nodes:  # 003, Fig. 12: the larger per-node size lies above at every node count
        teps = [by[(label, n)] for label in labels]
        assert all(b > a for a, b in zip(teps, teps[1:])), (n, teps)


def test_projection_check_compares_the_projection_with_an_executed_run_and_marks_the_misses(quick_experiment):
    """experiments/sunway_taihulight/projection_check.py --quick: every case
    is the same (nodes, scale) executed and projected; a case is within the
    issue's bar when the projection is within 10% of the executed harmonic
    mean, and the script writes every case, the misses too."""
    tmp_path, rows = _quick(quick_experiment, "projection_check")
    assert [(r["algorithm"], r["nodes"], r["scale"], r["profile_scale"]) for r in rows] == [
        ("lin1d", 64, 14, 13), ("lin1d", 64, 14, 12)]
    for row in rows:
        assert row["projected_gteps"] / row["executed_gteps"] - 1 == pytest.approx(row["error"])
        assert row["within_bar"] == (abs(row["error"]) <= 0.10)
    assert rows[0]["executed_gteps"] == rows[1]["executed_gteps"]  # one executed run, two profiles
    assert (tmp_path / "projection_check.csv").exists()
