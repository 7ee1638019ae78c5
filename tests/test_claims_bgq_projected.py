"""BlueGene/Q's system claims at the paper's sizes, projected as a user
would (`simbfs run ... --mode project`: a scale-20 profile, 8 roots), each
against its value and tolerance in ../shared/reference/claims.yaml, and the
calibrated model against three other public results (the July 2015 list).

These are the BlueGene/Q model's acceptance tests. A known miss is
an expected failure whose reason gives the measured error and points to
its explanation in docs/validation.md. Slow (15-35 s each): run with
``--runslow``."""

from __future__ import annotations

import json

import pytest

from simbfs.claims import claim
from simbfs.cli import main

pytestmark = pytest.mark.slow


def _harmonic_mean_gteps(tmp_path, machine: str, nodes: int, scale: int, algorithm: str, roots: int = 8) -> float:
    out = tmp_path / f"{machine}-{nodes}-{scale}-{algorithm}.json"
    assert main(["run", machine, "--nodes", str(nodes), "--scale", str(scale), "--algorithm", algorithm,
                 "--mode", "project", "--roots", str(roots), "--quiet", "--json", str(out)]) == 0
    document = json.loads(out.read_text())
    assert document["mode"] == "projected"
    return document["teps"]["harmonic_mean"] / 1e9


def _within_claim(gteps: float, claim_id: str) -> None:
    c = claim(claim_id)
    assert gteps == pytest.approx(c["value"], rel=c["tolerance"]), (claim_id, gteps, c["value"])


# the accuracy bar for the uncalibrated headline (docs/validation.md), wider
# than the claim's own 15%
ISSUE_UNCALIBRATED_BAR = 0.30


@pytest.fixture(scope="module")
def uncalibrated_headline_gteps(tmp_path_factory):
    return _harmonic_mean_gteps(tmp_path_factory.mktemp("headline"), "bluegene_q", 65536, 40, "cp1d-spi")


def test_the_65536_node_headline_is_within_the_accuracy_issues_bar(uncalibrated_headline_gteps):
    """bgq.headline.65536 uncalibrated, against the accuracy bar of 30%
    (measured 19,268 GTEPS, +25.4%; 19,339 before the access kinds of
    2026-11-28)."""
    paper = claim("bgq.headline.65536")["value"]
    assert uncalibrated_headline_gteps == pytest.approx(paper, rel=ISSUE_UNCALIBRATED_BAR)


@pytest.mark.xfail(strict=True, reason=(
    "known miss (bgq.headline.65536, 15,363 GTEPS +-15%): projected 19,268 GTEPS uncalibrated, +25.4% "
    "(19,339 before the access kinds of 2026-11-28). At 64 racks the heavy level is bound by the links and "
    "the queues behind them; at one rack the model is about 3.5x too fast, its per-node costs too cheap, and "
    "pricing the A2's scattered accesses by kind from the manual and the measured latencies does not change "
    "that (docs/background/cp1d.md, 'Per-node costs')"))
def test_the_65536_node_headline_is_within_its_claim(uncalibrated_headline_gteps):
    _within_claim(uncalibrated_headline_gteps, "bgq.headline.65536")


def test_calibrated_on_4096_nodes_the_headline_is_within_its_claim(tmp_path):
    """bgq.headline.65536 on bluegene_q_calibrated, whose header cost was
    fitted to bgq.1d.4096 alone (measured 16,553 GTEPS, +7.7%)."""
    _within_claim(_harmonic_mean_gteps(tmp_path, "bluegene_q_calibrated", 65536, 40, "cp1d-spi"),
                  "bgq.headline.65536")


@pytest.mark.xfail(strict=True, reason=(
    "known miss (bgq.1d.4096, 1,400 GTEPS +-15%): projected 2,256 GTEPS, +61.1% (2,261 before the access "
    "kinds of 2026-11-28). The model's per-node costs are too cheap (one rack is about 3.5x the paper's "
    "rate); the A2's miss parallelism does not bind, the parents' dirty lines cost little, and no estimate "
    "within a factor of two closes the gap (docs/validation.md, 'Sensitivity')"))
def test_the_4096_node_1d_point_is_within_its_claim(tmp_path):
    _within_claim(_harmonic_mean_gteps(tmp_path, "bluegene_q", 4096, 36, "cp1d-spi"), "bgq.1d.4096")


@pytest.mark.xfail(strict=True, reason=(
    "known miss (bgq.2d.4096, 254 GTEPS +-20%): projected 552 GTEPS, +117% (550 before the access kinds "
    "of 2026-11-28). The 2D code shares the 1D code's per-node cost estimates, and its bitmaps (24 MiB) "
    "still fit the L2 where the paper blames L2 thrashing (docs/validation.md, 'Why the 2D projection is "
    "about 2x the paper')"))
def test_the_4096_node_2d_point_is_within_its_claim(tmp_path):
    _within_claim(_harmonic_mean_gteps(tmp_path, "bluegene_q", 4096, 32, "cp2d", roots=16), "bgq.2d.4096")


# Other public BlueGene/Q results, not claims of the paper: the Graph500
# list of July 2015 as copied by linuxpilot.com ("linux-graph500"; nodes,
# scale, GTEPS). The same team's later code; nothing was set from them
# (docs/validation.md, "Other public BlueGene/Q results").
JULY_2015_LIST = {
    "Fermi": (8192, 37, 2567.0),
    "JUQUEEN": (16384, 38, 5848.0),
    "Mira": (49152, 40, 14982.0),
}
# the accuracy bar for the calibrated headline, applied to the other sizes
CALIBRATED_BAR = 0.15


@pytest.mark.parametrize("system", sorted(JULY_2015_LIST))
def test_calibrated_on_4096_nodes_other_public_results_are_within_15_percent(tmp_path, system):
    """The header cost fitted to bgq.1d.4096 alone, carried to three other
    machine sizes (measured: Fermi 2,810 GTEPS +9.4%, JUQUEEN 5,376 -8.1%,
    Mira 13,906 -7.2%; docs/validation.md)."""
    nodes, scale, listed = JULY_2015_LIST[system]
    gteps = _harmonic_mean_gteps(tmp_path, "bluegene_q_calibrated", nodes, scale, "cp1d-spi")
    assert gteps == pytest.approx(listed, rel=CALIBRATED_BAR), (system, gteps, listed)


# --------------------------------------------------------------- the ratios
@pytest.mark.xfail(strict=True, reason=(
    "known miss (bgq.spi_over_mpi, about 5x +-30%): projected 851.3 / 266.2 = 3.20x at 1,024 nodes, scale 33 "
    "(2^23 vertices a node, the MPI code's largest); 2.59x before 2026-11-28, when the MPI code's passes "
    "began to pay their memory traffic as the SPI level does. From fig7.py's scale-18 profiles it is 3.97x "
    "(within; 3.34x before) and 3.69x at 4,096 nodes, so the verdict rests on the profile. The SPI code's "
    "bottom-up levels still wait on "
    "the busiest links and their queues, which the MPI code's bulk exchanges do not build (docs/validation.md, "
    "'The spi_over_mpi ratio depends on size')"))
def test_the_spi_code_is_about_5x_the_mpi_code(tmp_path):
    c = claim("bgq.spi_over_mpi")
    ratio = (_harmonic_mean_gteps(tmp_path, "bluegene_q", 1024, 33, "cp1d-spi")
             / _harmonic_mean_gteps(tmp_path, "bluegene_q", 1024, 33, "cp1d-mpi"))
    assert ratio == pytest.approx(c["value"], rel=c["tolerance"])


@pytest.mark.xfail(strict=True, reason=(
    "known miss (bgq.1d_over_2d.4096, more than 5x): projected 2,256 / 552 = 4.1x (the same before the access "
    "kinds of 2026-11-28). Both points are too fast, the 2D one more (+117% against +61%): its bitmaps still "
    "fit the L2 where the paper blames L2 thrashing (docs/validation.md, 'Why the 2D projection is about 2x "
    "the paper')"))
def test_at_4096_nodes_the_1d_code_is_more_than_5x_the_2d_code(tmp_path):
    ratio = (_harmonic_mean_gteps(tmp_path, "bluegene_q", 4096, 36, "cp1d-spi")
             / _harmonic_mean_gteps(tmp_path, "bluegene_q", 4096, 32, "cp2d", roots=16))
    assert ratio > 5
