"""What the TSUBAME 2.0 scripts (experiments/tsubame2/: Figs. 5-13 and
Table 2 of seed 004) find at their --quick sizes, checked against what the
paper fixes independently of the model: the weak-scaling sizes (scale 23
per GPU), Table 1's process grids, 1,366 nodes for 4,096 GPUs, VLQ byte
counts, and the directions the paper states (compression shrinks the
expand, (B) and (C) beat (A) and equal each other, the kernel share falls
from 256 to 4,096 GPUs, data per GPU grows, GPUs beat CPUs). Each script
runs once per session (the quick_experiment fixture, shared with
test_experiments.py)."""

import csv
import math

import pytest

from experiments.tsubame2 import fig5, tsubame

# 004, VI-C, Table 1: R x C of 64..2048 MPI processes
TABLE1 = {64: (8, 8), 128: (8, 16), 256: (16, 16), 512: (16, 32), 1024: (32, 32), 2048: (32, 64)}
PROJECTED = ("fig6_fig7", "fig8", "fig9", "fig10", "fig11_fig12", "fig13", "table2")
CSV = {"fig5": "fig5_simd_vlq", "fig6_fig7": "fig6_fig7_expand", "fig8": "fig8_sv_methods",
       "fig9": "fig9_optimisations", "fig10": "fig10_breakdown", "fig11_fig12": "fig11_fig12_data",
       "fig13": "fig13_gpu_cpu", "table2": "table2_headline"}


def _quick(quick_experiment, name):
    return quick_experiment(f"experiments.tsubame2.{name}")


def _rows(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


def _gpus(row):
    return row["gpus"] if "gpus" in row else row["processes"]


def test_weak_scaling_is_scale_23_per_gpu_on_64_to_4096_gpus():
    # 004, VI-C: "the maximum problem size we can solve on GPU memory is Scale 23 per GPU"; Table 2: scale 35
    assert tsubame.GPUS == (64, 128, 256, 512, 1024, 2048, 4096)
    assert [tsubame.scale_for(g) for g in tsubame.GPUS] == [29, 30, 31, 32, 33, 34, 35]


@pytest.mark.parametrize("name", PROJECTED)
def test_every_row_is_projected_at_the_papers_sizes_and_grids(quick_experiment, name):
    tmp_path, rows = _quick(quick_experiment, name)
    assert rows and all(row["mode"] == "projected" for row in rows)
    written = _rows(tmp_path / f"{CSV[name]}.csv")
    assert len(written) == len(rows) and all(row["mode"] == "projected" for row in written)
    for column in ("mode", "R", "C", "scale", "hosts", "roots", "profile_scale"):
        assert column in written[0], column
    for row in rows:
        gpus = _gpus(row)
        assert row["scale"] == 23 + int(math.log2(gpus))
        assert row["R"] * row["C"] == gpus
        if gpus in TABLE1:
            assert (row["R"], row["C"]) == TABLE1[gpus], row
    if name != "table2":  # the weak-scaling figures cover Table 1's process counts
        assert set(TABLE1) <= {_gpus(row) for row in rows}


def test_4096_gpus_are_1366_nodes(quick_experiment):
    # 004, abstract and VI-F: 4,096 GPUs on 1,366 nodes, 3 GPUs per node
    _, rows = _quick(quick_experiment, "table2")
    assert {(row["gpus"], row["scale"], row["hosts"]) for row in rows} == {(4096, 35, 1366)}


def test_fig5_rows_say_what_is_modelled_and_what_is_measured(quick_experiment):
    tmp_path, _ = _quick(quick_experiment, "fig5")
    for row in _rows(tmp_path / "fig5_simd_vlq.csv"):
        assert row["mode"] == ("measured" if row["series"].startswith("host numpy") else "modelled"), row


def test_fig5_bytes_per_value_are_vlqs_of_uniform_values(quick_experiment):
    # 004, V-B: 7 bits per byte, so a value v takes max(1, ceil(bits(v) / 7)) bytes
    _, rows = _quick(quick_experiment, "fig5")
    small = sorted({row["N"] for row in rows if row["N"] <= 2**14})
    assert small
    for n in small:
        expected = sum(max(1, -(-v.bit_length() // 7)) for v in range(n + 1)) / (n + 1)
        for row in (r for r in rows if r["N"] == n):
            assert row["bytes_per_value"] == pytest.approx(expected, rel=1e-12), n


def test_fig5_the_modelled_gpu_is_faster_than_the_modelled_sequential_cpu(quick_experiment):
    # 004, VI-B: SIMD VLQ on the GPU is 11-25x faster than sequential VLQ on the CPU
    _, rows = _quick(quick_experiment, "fig5")
    for n in fig5.QUICK["ns"]:
        gpu, cpu = (next(r for r in rows if r["N"] == n and r["series"].startswith(k)) for k in ("GPU", "sequential"))
        assert gpu["encode_Mvalues_s"] > cpu["encode_Mvalues_s"] and gpu["decode_Mvalues_s"] > cpu["decode_Mvalues_s"]


def test_fig6_fig7_compression_shrinks_the_expand_at_every_size(quick_experiment):
    # 004, VI-D: expand compression reduces both the expand's data and its time
    _, rows = _quick(quick_experiment, "fig6_fig7")
    by = {(row["variant"], row["gpus"]): row for row in rows}
    for gpus in tsubame.QUICK["gpus"]:
        base, compressed = by[("base (bitmap)", gpus)], by[("compressed (auto)", gpus)]
        assert compressed["expand_MB_per_gpu_per_bfs"] <= base["expand_MB_per_gpu_per_bfs"], gpus
        assert compressed["expand_s_per_bfs"] < base["expand_s_per_bfs"], gpus
        assert base["list_levels_per_bfs"] == 0  # 004, VI-D: the base sends every expand as a bitmap


def test_fig8_ttas_and_tas_take_the_same_time(quick_experiment):
    # 004, VI-D, Fig. 8: "no difference between (B) and (C)"
    _, rows = _quick(quick_experiment, "fig8")
    by = {(row["algorithm"], row["gpus"]): row["filter_s_per_bfs"] for row in rows}
    for gpus in tsubame.QUICK["gpus"]:
        assert by[("ueno2d:sv=tas", gpus)] == pytest.approx(by[("ueno2d:sv=ttas", gpus)], rel=0.05), gpus


def test_fig8_ttas_beats_atomics(quick_experiment):
    # 004, VI-D, Fig. 8: (B) and (C) much lower than (A)
    _, rows = _quick(quick_experiment, "fig8")
    by = {(row["algorithm"], row["gpus"]): row["filter_s_per_bfs"] for row in rows}
    for gpus in tsubame.QUICK["gpus"]:
        assert by[("ueno2d:sv=atomic", gpus)] > by[("ueno2d:sv=ttas", gpus)], gpus


def test_fig9_expand_compression_improves_teps_somewhere(quick_experiment):
    # 004, VI-D: compression improves performance "up to 25%"
    _, rows = _quick(quick_experiment, "fig9")
    by = {(row["algorithm"], row["gpus"]): row["median_gteps"] for row in rows}
    gpus = tsubame.QUICK["gpus"]
    assert max(by[("ueno2d:expand=auto,sv=atomic", g)] / by[("ueno2d:expand=bitmap,sv=atomic", g)] for g in gpus) > 1


def test_fig9_the_sv_update_improves_teps_somewhere(quick_experiment):
    # 004, VI-D: the SV update (B) instead of (A) improves performance "up to 58%"
    _, rows = _quick(quick_experiment, "fig9")
    by = {(row["algorithm"], row["gpus"]): row["median_gteps"] for row in rows}
    gpus = tsubame.QUICK["gpus"]
    assert max(by[("ueno2d:expand=auto,sv=ttas", g)] / by[("ueno2d:expand=auto,sv=atomic", g)] for g in gpus) > 1


def test_fig10_kernel_and_wait_add_up_and_the_kernel_share_falls_from_256_to_4096(quick_experiment):
    # 004, VI-E: kernel time is 71% of the total at 256 GPUs and 42% at 4,096; wait time grows with GPUs
    _, rows = _quick(quick_experiment, "fig10")
    by = {row["gpus"]: row for row in rows}
    for row in rows:
        assert row["kernel_s"] + row["wait_s"] == pytest.approx(row["bfs_s"], rel=1e-12)
        assert 0 < row["kernel_share"] < 1
    assert by[4096]["kernel_share"] < by[256]["kernel_share"]
    assert by[4096]["wait_s"] > by[64]["wait_s"]


def test_fig11_fig12_data_per_gpu_grows_and_pcie_carries_at_least_the_network_data(quick_experiment):
    # 004, VI-E: expand data grows with R and C, fold data with C; CPU-GPU volume follows communication
    _, rows = _quick(quick_experiment, "fig11_fig12")
    rows = sorted(rows, key=lambda row: row["gpus"])
    assert rows[-1]["expand_MB_per_gpu"] > rows[0]["expand_MB_per_gpu"]
    for a, b in zip(rows, rows[1:]):
        if b["C"] > a["C"]:
            assert b["fold_MB_per_gpu"] > a["fold_MB_per_gpu"], (a["gpus"], b["gpus"])
    for row in rows:  # every received expand byte and every fold byte sent crosses PCIe
        assert row["cpu_gpu_MB_per_gpu"] >= row["expand_MB_per_gpu"] + row["fold_MB_per_gpu"]


def test_fig13_hosts_and_gpus_beat_cpus_at_4096_processes(quick_experiment):
    # 004, VI-F: 3 or 2 GPUs per node; at 4,096 GPUs on 1,366 nodes the GPU code is faster than the CPU code
    _, rows = _quick(quick_experiment, "fig13")
    for row in rows:
        per_host = 2 if row["variant"] == "2 GPUs/node" else 3
        assert row["hosts"] == -(-row["processes"] // per_host), row
    by = {(row["variant"], row["processes"]): row for row in rows}
    assert by[("3 GPUs/node", 4096)]["hosts"] == by[("CPU", 4096)]["hosts"] == 1366
    assert by[("3 GPUs/node", 4096)]["median_gteps"] > by[("CPU", 4096)]["median_gteps"]


def test_table2_quartiles_are_ordered_and_the_gpu_beats_the_cpu(quick_experiment):
    # 004, Table 2 and VI-F: 317 GTEPS median on GPUs, 211 on CPUs, same problem and nodes
    _, rows = _quick(quick_experiment, "table2")
    for row in rows:
        values = [row[f"{key}_gteps"] for key in ("min", "q1", "median", "q3", "max")]
        assert values == sorted(values) and values[0] > 0
    gpu, cpu = (next(r for r in rows if r["algorithm"] == a) for a in ("ueno2d", "ueno2d:device=cpu"))
    assert gpu["median_gteps"] > cpu["median_gteps"]


@pytest.mark.parametrize("algorithm, overrides", [("ueno2d", ()),
                                                  ("ueno2d:expand=bitmap,sv=atomic", (tsubame.TWO_PER_HOST,)),
                                                  ("ueno2d:device=cpu", ())])
def test_project_levels_is_the_runners_projection(algorithm, overrides):
    """tsubame.project_levels walks the projector's roots keeping each
    level's details (Figs. 6-8, 11, 12); its roots' times and edges are the
    runner's."""
    gpus, roots, profile = 256, 2, tsubame.QUICK["profile_scale"]
    doc = tsubame.project(algorithm, gpus, tsubame.scale_for(gpus), roots, profile, overrides)
    mine = tsubame.project_levels(algorithm, gpus, tsubame.scale_for(gpus), roots, profile, overrides)
    assert [r["root"] for r in mine["roots"]] == [r["root"] for r in doc["roots"]]
    assert [r["time_s"] for r in mine["roots"]] == pytest.approx([r["time_s"] for r in doc["roots"]], rel=1e-12)
    assert [round(r["edges"]) for r in mine["roots"]] == [r["edges"] for r in doc["roots"]]
    assert mine["hosts"] == doc["hosts"]
    records = [level["record"].as_dict() for r in mine["roots"] for level in r["levels"]]
    assert records == doc["levels"]
    assert tsubame.level_sum(doc, "time_s", mine["roots"][0]["root"]) == pytest.approx(mine["roots"][0]["time_s"])
