"""The papers' claims (../shared/reference/claims.yaml), looked up by id.

Tests and experiment scripts compare simbfs's predictions with these; the
model itself never reads them (a published number must be predicted, not
contained).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import yaml

from .errors import UserError


def claims_path() -> Path:
    env = os.environ.get("SIMBFS_CLAIMS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared" / "reference" / "claims.yaml"


@lru_cache(maxsize=None)
def _load(path: str) -> dict[str, dict]:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError:
        raise UserError(f"cannot read the papers' claims at {path}; set SIMBFS_CLAIMS to claims.yaml") from None
    return {claim["id"]: claim for claim in data["claims"]}


def claim(claim_id: str) -> dict:
    claims = _load(str(claims_path()))
    if claim_id not in claims:
        raise KeyError(f"no claim {claim_id!r} in {claims_path()}")
    return claims[claim_id]


def within_tolerance(predicted: float, claim_id: str) -> bool:
    c = claim(claim_id)
    return abs(predicted - c["value"]) <= c["tolerance"] * abs(c["value"])
