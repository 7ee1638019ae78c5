"""What the Cell BE experiment scripts (experiments/cell_be/) find, at their
--quick sizes: the claims of seed 001 (claims.yaml) that an independent
source fixes hold within their tolerances. Each script runs once per
session (the quick_experiment fixture, shared with test_experiments.py)."""

import pytest

from experiments.cell_be.fig2 import dma_stream_rate
from simbfs.claims import claim


def _quick(quick_experiment, name):
    return quick_experiment(f"experiments.cell_be.{name}")


@pytest.fixture
def fig2_rows(quick_experiment):
    _, rows = _quick(quick_experiment, "fig2")
    return {(r["step"], r["case"]): r for r in rows}


def test_fig2_th35_is_met_by_the_simulated_dispatch_and_bitmap_time(fig2_rows):
    """cell.th35 (001, 4): Dispatch and Bitmap cannot overlap, so together
    they bound an SPE at 19.21 ME/s (arity 16) and 101.95 ME/s (arity 512).
    Measured on an executed cell-bsp search of the paper's graphs: an SPE's
    edges over the simulated time its SPU spent in the two steps (the
    timeline recorder's spans), not a formula of the two calibrated rates."""
    tolerance = claim("cell.th35")["tolerance"]
    for case, paper in (("a=16", 19.21), ("a=512", 101.95)):
        row = fig2_rows[("th35", case)]
        # the two steps never run at once on an SPU
        assert row["overlap_s"] == pytest.approx(0.0, abs=1e-12), row
        th35 = row["edges_per_spe"] / row["dispatch_plus_bitmap_s"] / 1e6
        assert th35 == pytest.approx(paper, rel=tolerance), (case, th35)
        # a bound of the whole search: the two steps fit in the searched time,
        # so the executed throughput per SPE stays below Th35
        assert row["dispatch_plus_bitmap_s"] <= row["search_s"]
        assert row["whole_search_ME_s"] <= th35


@pytest.mark.parametrize("step, case, claim_id", [
    ("fetch", "512 B bQ", "cell.step.fetch"),
    ("gather", "64 B blocks", "cell.step.gather"),
    ("gather", "lists > 512 B", "cell.step.gather"),
    ("commit", "> 512 B", "cell.step.commit"),
    ("dispatch", "a=16", "cell.step.dispatch"),
    ("dispatch", "a=512", "cell.step.dispatch"),
    ("bitmap", "a=16", "cell.step.bitmap"),
    ("bitmap", "a=512", "cell.step.bitmap"),
])
def test_fig2_step_rates_within_the_claims_tolerance(fig2_rows, step, case, claim_id):
    row = fig2_rows[(step, case)]
    assert row["simbfs_ME_s"] == pytest.approx(row["paper_ME_s"], rel=claim(claim_id)["tolerance"]), row


@pytest.mark.xfail(strict=True, reason="known miss (cell.step.alltoall, prediction, tolerance 10%): measured 2888 "
                   "and 3060 ME/s per SPE with 75% and 99.2% full queues (+238%, +171%) against the paper's 853.3 and "
                   "1130: the puts are priced at the EIB's spec-sheet port rate (25.6 GB/s per SPE, 50 ns per "
                   "transfer), the paper gives no component figure for SPE-to-SPE puts, and its 853 ME/s implies "
                   "about 4.5 GB/s per SPE; lowering the rate to match would be fitting to a prediction "
                   "(docs/validation.md, 'The all-to-all miss'). No throughput depends on it: a put is about 40 "
                   "times shorter than the Bitmap it overlaps")
def test_fig2_alltoall_rate_within_the_claims_tolerance(fig2_rows):
    tolerance = claim("cell.step.alltoall")["tolerance"]
    for case in ("75% full", "99.2% full"):
        row = fig2_rows[("alltoall", case)]
        assert row["simbfs_ME_s"] == pytest.approx(row["paper_ME_s"], rel=tolerance), row


def test_fig3_large_block_aggregate():
    c = claim("cell.dma.large_blocks")
    assert 8 * dma_stream_rate(4096, 8) / 1e9 == pytest.approx(c["value"], rel=c["tolerance"])
