"""TSUBAME 2.0's ratio claims, projected at the paper's sizes as
experiments/tsubame2/fig9.py and fig13.py run them (scale 23 per GPU;
scale-18 profiles), each against the paper's value.

The claims give no tolerance of their own for these ratios; they are held to
30%, the tolerance claims.yaml gives the other machines' ratio claims
(bgq.spi_over_mpi, sunway.cpe_over_mpe). Known misses are strict expected
failures with the measured value and the reason. Slow (15-40 s each): run
with ``--runslow``."""

from __future__ import annotations

import json
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

from simbfs.cli import main

pytestmark = pytest.mark.slow

RATIO_TOLERANCE = 0.30


@lru_cache(maxsize=None)
def _median_gteps(algorithm: str, gpus: int, scale: int, roots: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.json"
        assert main(["run", "tsubame2", "--nodes", str(gpus), "--scale", str(scale), "--algorithm", algorithm,
                     "--mode", "project", "--roots", str(roots), "--profile-scale", "18", "--quiet",
                     "--json", str(out)]) == 0
        return json.loads(out.read_text())["teps"]["median"] / 1e9


def _gain(algorithm: str, over: str, gpus: int) -> float:
    """Median TEPS of ``algorithm`` over ``over`` less one, at the paper's
    weak-scaling size (scale 23 per GPU) with fig9.py's 4 roots."""
    scale = 23 + gpus.bit_length() - 1
    return _median_gteps(algorithm, gpus, scale, 4) / _median_gteps(over, gpus, scale, 4) - 1


@pytest.mark.xfail(strict=True, reason=(
    "known miss (tsubame.cpu: the GPU version about 1.5x the CPU one): 1,136 / 192 = 5.9x at 4,096 GPUs. "
    "The CPU version lands within 10% of its 211 GTEPS; the GPU version is 3.6x too fast, for the "
    "headline's reason (docs/validation.md, 'Why the GPU headline is 3.6x too fast')"))
def test_the_gpu_version_is_about_1_5x_the_cpu_version():
    ratio = _median_gteps("ueno2d", 4096, 35, 16) / _median_gteps("ueno2d:device=cpu", 4096, 35, 16)
    assert ratio == pytest.approx(1.5, rel=RATIO_TOLERANCE)


# tsubame.optimisations (004, VI-D, Fig. 9): each optimisation's largest gain
# over the GPU counts, at the count where the model's gain is largest
OPTIMISATIONS = [
    pytest.param("ueno2d:expand=auto,sv=atomic", "ueno2d:expand=bitmap,sv=atomic", 4096, 0.25,
                 id="expand-compression-up-to-25-percent", marks=pytest.mark.xfail(strict=True, reason=(
                     "known miss (tsubame.optimisations: expand compression up to +25%): +56% at 4,096 GPUs, "
                     "the largest gain (fig9.py, 4 roots). The bitmap expands the compression saves take the "
                     "model 0.3 s of a search that is too short by the headline's reason, so the same saving "
                     "is a larger share (docs/validation.md, 'Why expand compression gains too much')"))),
    pytest.param("ueno2d:expand=auto,sv=ttas", "ueno2d:expand=auto,sv=atomic", 64, 0.58,
                 id="sv-update-b-up-to-58-percent-over-atomics", marks=pytest.mark.xfail(strict=True, reason=(
                     "known miss (tsubame.optimisations: SV update (B) up to +58% over (A)): +93% at 64 GPUs, "
                     "the largest gain (fig9.py, 4 roots; +43% at 4,096). (A) stores to every gathered edge's "
                     "SV sector at SHOC's measured 1.0 G uncoalesced stores a second; that this rate holds for "
                     "an atomic, whose sector the L2 has just fetched, is a judgement: priced at the streaming "
                     "bandwidth instead the gain is +16-39% (docs/validation.md, TSUBAME)"))),
]


@pytest.mark.parametrize("algorithm, over, gpus, paper", OPTIMISATIONS)
def test_an_optimisation_gains_what_the_paper_says(algorithm, over, gpus, paper):
    assert _gain(algorithm, over, gpus) == pytest.approx(paper, rel=RATIO_TOLERANCE)
