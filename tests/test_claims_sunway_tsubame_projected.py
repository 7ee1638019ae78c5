"""Sunway TaihuLight's and TSUBAME 2.0's system claims at the papers' sizes,
projected as a user would (`simbfs run ... --mode project`), each against
its value and tolerance in ../shared/reference/claims.yaml.

These are the Sunway and TSUBAME models' acceptance tests. A known
miss is an expected failure whose reason gives the measured error and
points to its explanation in docs/validation.md. Slow (2-25 s each): run
with ``--runslow``."""

from __future__ import annotations

import json
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

from simbfs.claims import claim
from simbfs.cli import main

pytestmark = pytest.mark.slow


@lru_cache(maxsize=None)
def _projected(machine: str, nodes: int, scale: int, algorithm: str, roots: int, profile_scale: int) -> dict:
    """The result document of one projection (cached: several tests read the same run)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.json"
        assert main(["run", machine, "--nodes", str(nodes), "--scale", str(scale), "--algorithm", algorithm,
                     "--mode", "project", "--roots", str(roots), "--profile-scale", str(profile_scale),
                     "--quiet", "--json", str(out)]) == 0
        document = json.loads(out.read_text())
    assert document["mode"] == "projected"
    return document


def _within_claim(value: float, claim_id: str) -> None:
    c = claim(claim_id)
    assert value == pytest.approx(c["value"], rel=c["tolerance"]), (claim_id, value, c["value"])


# ------------------------------------------------------------------ Sunway

def _sunway_gteps(scale: int) -> float:
    """lin1d at the full 40,768 nodes, as docs/validation.md runs it (scale-20 profile, 16 roots)."""
    return _projected("sunway_taihulight", 40768, scale, "lin1d", 16, 20)["teps"]["harmonic_mean"] / 1e9


@pytest.mark.xfail(strict=True, reason=(
    "known miss (sunway.headline, 23,755.7 GTEPS +-15%): projected 15,971 GTEPS, -32.8%, with the CPEs' random "
    "accesses priced as blocking 8 B DMAs at swCandle's measured 58 M a second per core group (+48% before, "
    "at the 8 B point of a streaming curve). Whether Lin et al.'s modules wait for each small DMA, as "
    "swCandle's loop does, or keep several in flight is not published (docs/validation.md, Sunway, "
    "'Measured small-DMA rates')"))
def test_the_sunway_headline_is_within_its_claim():
    _within_claim(_sunway_gteps(40), "sunway.headline")


# "nearly four times": within 25%, the rule experiments/sunway_taihulight/fig12.py applies
NEARLY_FOUR = (3.0, 5.0)


@pytest.mark.xfail(strict=True, reason=(
    "known miss (sunway.weak_scaling): 6.5M over 1.6M vertices a node is 8,794 / 3,176 = 2.8x at 40,768 "
    "nodes with the measured small-DMA rates (3.6x before): the per-vertex random accesses now outweigh "
    "the fixed cost of a search that made the paper's ratios nearly 4x (docs/validation.md, Sunway)"))
def test_at_40768_nodes_6_5m_vertices_a_node_is_nearly_4x_1_6m():
    """sunway.weak_scaling's second half."""
    ratio = _sunway_gteps(38) / _sunway_gteps(36)
    assert NEARLY_FOUR[0] <= ratio <= NEARLY_FOUR[1], ratio


@pytest.mark.xfail(strict=True, reason=(
    "known miss (sunway.weak_scaling): 26.2M over 6.5M vertices a node is 15,971 / 8,794 = 1.8x at 40,768 "
    "nodes, not nearly 4x (2.9x before the measured small-DMA rates): the paper's search costs about the "
    "same at every size, the model's grows with the random accesses per node (docs/validation.md, Sunway)"))
def test_at_40768_nodes_26_2m_vertices_a_node_is_nearly_4x_6_5m():
    ratio = _sunway_gteps(40) / _sunway_gteps(38)
    assert NEARLY_FOUR[0] <= ratio <= NEARLY_FOUR[1], ratio


# ----------------------------------------------------------------- TSUBAME

def _tsubame(algorithm: str, gpus: int, scale: int) -> dict:
    """ueno2d on TSUBAME 2.0, from scale-18 profiles (the figures' profile
    scale) with 16 roots: the kernel share at 4,096 GPUs moves by several
    points with the roots (54.4% with 4, 46.9% with 8, 49.7% with 16)."""
    return _projected("tsubame2", gpus, scale, algorithm, 16, 18)


def _kernel_share(document: dict) -> float:
    """Kernel time over BFS time, summed over the levels of all roots
    (experiments/tsubame2/fig10.py's measure)."""
    kernel = sum(level["compute_s"] for level in document["levels"])
    total = sum(level["time_s"] for level in document["levels"])
    return kernel / total


@pytest.mark.xfail(strict=True, reason=(
    "known miss (tsubame.headline, median 317 GTEPS +-15%): projected 1,136 GTEPS (1,158 from scale-20 "
    "profiles), +258-265%, with the kernels priced at SHOC's measured ECC-on rates. The model's communication "
    "is about 4.6x faster than the paper's breakdown implies; no source found prices MVAPICH2 1.6 on "
    "TSUBAME's fabric, and every sourced range at once still leaves +102% (docs/validation.md, "
    "'Why the GPU headline is 3.6x too fast')"))
def test_the_tsubame_headline_median_is_within_its_claim():
    _within_claim(_tsubame("ueno2d", 4096, 35)["teps"]["median"] / 1e9, "tsubame.headline")


def test_the_cpu_version_is_within_its_claim():
    """tsubame.cpu (192.3 GTEPS median from these scale-18 profiles, -8.9%;
    198.9 from scale-20 profiles, -5.7%)."""
    _within_claim(_tsubame("ueno2d:device=cpu", 4096, 35)["teps"]["median"] / 1e9, "tsubame.cpu")


def test_kernel_time_is_71_percent_at_256_gpus():
    """tsubame.comm_share's first part (tolerance 20%, relative; measured 75.3%)."""
    assert _kernel_share(_tsubame("ueno2d", 256, 31)) == pytest.approx(
        0.71, rel=claim("tsubame.comm_share")["tolerance"])


@pytest.mark.xfail(strict=True, reason=(
    "known miss (tsubame.comm_share at 4,096 GPUs, 42% +-20%): 55.6%, +32%, since the kernels are priced at "
    "SHOC's measured scattered-store rate (49.7% before). The kernels now take about 0.27 s of a 0.48 s "
    "search; the communication, too fast by the headline's reason, is what is short (docs/validation.md, "
    "'Why the GPU headline is 3.6x too fast')"))
def test_kernel_time_is_42_percent_at_4096_gpus():
    """tsubame.comm_share's second part (tolerance 20%, relative)."""
    assert _kernel_share(_tsubame("ueno2d", 4096, 35)) == pytest.approx(
        0.42, rel=claim("tsubame.comm_share")["tolerance"])
