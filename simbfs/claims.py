"""The papers' claims (../shared/reference/claims.yaml), looked up by id.

Tests and experiment scripts compare simbfs's predictions with these; the
model itself never reads them (a published number must be predicted, not
contained). A finished run whose setup is a claim's (:data:`PAPER_RUNS`)
has the claim's value put beside its prediction, after the fact.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from .errors import UserError


def claims_path() -> Path:
    env = os.environ.get("SIMBFS_CLAIMS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "reference" / "claims.yaml"


def claims_data(path: Path | None = None) -> dict:
    """The claims file (default :func:`claims_path`), read and parsed; a
    user's error if it cannot be read or holds no list of claims."""
    path = claims_path() if path is None else Path(path)
    fix = "set SIMBFS_CLAIMS to the papers' claims.yaml"
    try:
        data = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise UserError(f"cannot read the papers' claims at {path} ({exc.strerror or exc}); {fix}") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise UserError(f"the papers' claims at {path} are not valid YAML{line}; {fix}") from None
    claims = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(claims, list) or not all(isinstance(c, dict) and "id" in c for c in claims):
        raise UserError(f"{path} holds no list of claims (a `claims:` list of entries with an `id`); {fix}")
    return data


@lru_cache(maxsize=None)
def _load(path: str) -> dict[str, dict]:
    return {claim["id"]: claim for claim in claims_data(Path(path))["claims"]}


def claim(claim_id: str) -> dict:
    claims = _load(str(claims_path()))
    if claim_id not in claims:
        raise KeyError(f"no claim {claim_id!r} in {claims_path()}")
    return claims[claim_id]


def within_tolerance(predicted: float, claim_id: str) -> bool:
    c = claim(claim_id)
    return abs(predicted - c["value"]) <= c["tolerance"] * abs(c["value"])


@dataclass(frozen=True)
class PaperRun:
    """The simbfs run that reproduces a system-level claim: a finished run
    with exactly these settings gets the claim's value beside its own.

    claims.yaml's ``setup`` names a paper's code in words ("names are
    illustrative, not an API"), so the simbfs algorithm is given here;
    ``graph`` holds graph fields that must match too, and ``scale`` None
    means any scale (a claim the paper says holds at every size)."""

    claim_id: str
    machine: str
    algorithm: str
    nodes: int
    scale: int | None
    statistic: str  # which of the run's TEPS statistics the paper reports
    teps_per_unit: float  # the claim's unit in TEPS (GTEPS: 1e9)
    graph: dict = field(default_factory=lambda: {"kind": "kronecker", "edgefactor": 16})


PAPER_RUNS = (
    PaperRun("bgq.headline.65536", "bluegene_q", "cp1d-spi", 65536, 40, "harmonic_mean", 1e9),
    PaperRun("bgq.1d.4096", "bluegene_q", "cp1d-spi", 4096, 36, "harmonic_mean", 1e9),
    PaperRun("bgq.2d.4096", "bluegene_q", "cp2d", 4096, 32, "harmonic_mean", 1e9),
    PaperRun("sunway.headline", "sunway_taihulight", "lin1d", 40768, 40, "harmonic_mean", 1e9),
    # 4,096 GPUs, one MPI process (a simbfs node) each, on 1,366 hosts; the paper gives the median
    PaperRun("tsubame.headline", "tsubame2", "ueno2d", 4096, 35, "median", 1e9),
    PaperRun("tsubame.cpu", "tsubame2", "ueno2d:device=cpu", 4096, 35, "median", 1e9),
    # "does not depend on the graph size" (cell.size_insensitive): any scale
    PaperRun("cell.arity10", "cell_be", "cell-overlap", 8, None, "harmonic_mean", 1e6,
             graph={"kind": "uniform", "arity": 10, "directed": True}),
)


def paper_comparisons(doc: dict) -> list[dict]:
    """The claims whose setup ``doc``'s run is (same machine, algorithm,
    nodes, scale and graph), each with the paper's value, simbfs's and
    the relative error. A machine of another name (a calibrated file, your
    own) is not the paper's machine and matches none; nor does anything
    when claims.yaml cannot be found (an installed wheel)."""
    graph = doc["graph"]
    matches = [run for run in PAPER_RUNS
               if (doc["machine"], doc["algorithm"], doc["nodes"]) == (run.machine, run.algorithm, run.nodes)
               and run.scale in (None, doc["scale"])
               and all(graph.get(key) == value for key, value in run.graph.items())]
    if not matches:
        return []
    try:
        claims = _load(str(claims_path()))
    except UserError:
        return []
    out = []
    for run in matches:
        if run.claim_id not in claims:
            continue
        paper = float(claims[run.claim_id]["value"]) * run.teps_per_unit
        simbfs = doc["teps"][run.statistic]
        tolerance = claims[run.claim_id].get("tolerance")
        out.append({"claim": run.claim_id, "statistic": run.statistic, "paper_teps": paper, "simbfs_teps": simbfs,
                    "error": simbfs / paper - 1, "tolerance": tolerance,
                    "within": None if tolerance is None else within_tolerance(simbfs / run.teps_per_unit,
                                                                              run.claim_id),
                    "paper": claims[run.claim_id].get("paper", "")})
    return out
