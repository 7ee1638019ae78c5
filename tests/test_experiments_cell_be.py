"""What the Cell BE experiment scripts (experiments/cell_be/) find, at their
--quick sizes: the claims of seed 001 (claims.yaml) that an independent
source fixes hold within their tolerances. Each script runs once per
session (the quick_experiment fixture, shared with test_experiments.py)."""

import pytest

from experiments.cell_be.fig2 import dma_stream_rate
from simbfs.claims import claim


def _quick(quick_experiment, name):
    return quick_experiment(f"experiments.cell_be.{name}")


def test_fig2_calibrated_steps_and_th35_closed_form(quick_experiment):
    _, rows = _quick(quick_experiment, "fig2")
    rows = {(r["step"], r["case"]): r for r in rows}
    for case in ("a=16", "a=512"):
        th3 = rows[("dispatch", case)]["simbfs_ME_s"]
        th5 = rows[("bitmap", case)]["simbfs_ME_s"]
        # 001, 4: Dispatch and Bitmap cannot overlap: Th35 = Th3 Th5 / (Th3 + Th5)
        assert rows[("th35", case)]["simbfs_ME_s"] == pytest.approx(th3 * th5 / (th3 + th5), rel=1e-6)
    tol = claim("cell.th35")["tolerance"]
    assert rows[("th35", "a=16")]["simbfs_ME_s"] == pytest.approx(19.21, rel=tol)
    assert rows[("th35", "a=512")]["simbfs_ME_s"] == pytest.approx(101.95, rel=tol)
    assert rows[("fetch", "512 B bQ")]["simbfs_ME_s"] == pytest.approx(claim("cell.step.fetch")["value"],
                                                                      rel=claim("cell.step.fetch")["tolerance"])


def test_fig3_large_block_aggregate():
    c = claim("cell.dma.large_blocks")
    assert 8 * dma_stream_rate(4096, 8) / 1e9 == pytest.approx(c["value"], rel=c["tolerance"])
