"""The projected BlueGene/Q figure scripts (Figs. 10 and 12) at their quick
sizes: every projected number says so, and the trends the paper fixes hold."""

import csv

from experiments import bgq_fig10, bgq_fig12


def _rows(path):
    with open(path) as stream:
        return list(csv.DictReader(stream))


def test_fig10_weak_scaling_is_projected_and_grows_with_racks(tmp_path):
    rows, per_root = bgq_fig10.main(["--quick", "--out", str(tmp_path)])
    assert all(r["mode"] == "projected" for r in rows + per_root)
    assert all(r["mode"] == "projected" for r in _rows(tmp_path / "fig10_weak_scaling.csv"))
    # weak scaling (bgq.weak_scaling): 4x the racks and 4x the graph give more TEPS
    assert rows[1]["harmonic_mean_gteps"] > rows[0]["harmonic_mean_gteps"]
    # the harmonic mean never exceeds the arithmetic mean of the roots it summarises
    for row in rows:
        values = [p["gteps"] for p in per_root if p["racks"] == row["racks"]]
        assert row["harmonic_mean_gteps"] <= sum(values) / len(values) + 1e-9
    assert (tmp_path / "fig10_weak_scaling.png").stat().st_size > 0


def test_fig12_labels_projected_and_executed_points(tmp_path):
    rows = bgq_fig12.main(["--quick", "--out", str(tmp_path)])
    modes = {(r["algorithm"], r["mode"]) for r in rows}
    assert ("cp1d-spi", "projected") in modes and ("cp2d", "executed") in modes
    assert ("cp2d", "projected") in modes
    assert all(r["mode"] == "projected" for r in _rows(tmp_path / "fig12_1d_vs_2d.csv") if r["nodes"] == "4096")
    # the 1D code beats the 2D code on the same projected 4,096-node graph (bgq.1d_over_2d.4096)
    one, two = (next(r["harmonic_mean_gteps"] for r in rows if r["algorithm"] == a and r["nodes"] == 4096)
                for a in ("cp1d-spi", "cp2d"))
    assert one > two
    assert (tmp_path / "fig12_1d_vs_2d.png").stat().st_size > 0
