"""Projection against execution (issue 3's check), kept true on a small case."""

from experiments import bgq_projection_check


def test_projected_teps_within_ten_percent_of_executed(tmp_path):
    rows = bgq_projection_check.main(["--quick", "--out", str(tmp_path)])
    assert {row["algorithm"] for row in rows} == {"bsp1d-do", "bsp1d-topdown"}
    for row in rows:
        assert abs(row["error"]) <= bgq_projection_check.BAR, row
    assert (tmp_path / "projection_check.csv").exists()
