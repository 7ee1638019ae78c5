"""Sunway TaihuLight's ratio claim, sunway.cpe_over_mpe (003, 6.1, Fig.
11: modules on the CPE clusters instead of the MPEs, about 10x, +-30%),
projected as docs/validation.md runs it: Relay_CPE over Relay_MPE at 80
nodes (scale 30) and 4,096 nodes (scale 36), scale-20 profiles, 16 roots.
A known miss is a strict expected failure with the measured value and the
reason. Slow (5-20 s each): run with ``--runslow``."""

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
def _harmonic_gteps(algorithm: str, nodes: int, scale: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run.json"
        assert main(["run", "sunway_taihulight", "--nodes", str(nodes), "--scale", str(scale), "--algorithm",
                     algorithm, "--mode", "project", "--roots", "16", "--profile-scale", "20", "--quiet",
                     "--json", str(out)]) == 0
        return json.loads(out.read_text())["teps"]["harmonic_mean"] / 1e9


def _cpe_over_mpe(nodes: int, scale: int) -> float:
    return _harmonic_gteps("lin1d", nodes, scale) / _harmonic_gteps("lin1d:modules=mpe", nodes, scale)


def test_cpe_clusters_are_about_10x_the_mpes_at_80_nodes():
    """Measured 47.94 / 3.91 = 12.3x (50x before the CPEs' random accesses
    were priced as blocking DMAs at swCandle's rate)."""
    c = claim("sunway.cpe_over_mpe")
    assert _cpe_over_mpe(80, 30) == pytest.approx(c["value"], rel=c["tolerance"])


@pytest.mark.xfail(strict=True, reason=(
    "known miss (sunway.cpe_over_mpe, about 10x +-30%): 2,054 / 123.9 = 16.6x at 4,096 nodes, scale 36 (59x "
    "before the measured small-DMA rates). The MPE versions pay a memory latency per random access (the "
    "paper's 'around one hundred cycles'), not measured on an MPE under load; the CPE versions swCandle's "
    "blocking 8 B DMA (docs/validation.md, Sunway)"))
def test_cpe_clusters_are_about_10x_the_mpes_at_4096_nodes():
    c = claim("sunway.cpe_over_mpe")
    assert _cpe_over_mpe(4096, 36) == pytest.approx(c["value"], rel=c["tolerance"])
