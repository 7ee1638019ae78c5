"""Exact multi-level quadrant sampling from 32-bit random fields.

The Graph500 Kronecker generator picks, for each of `scale` bit levels of an
edge, one of four quadrants with probabilities A, B, C, D. Drawing two floats
per level (as the reference code does) costs ~2*scale random numbers and
~6*scale array passes per edge. Here one uniform 32-bit field decides
`levels` bit levels at once: the 4**levels joint outcomes have probabilities
that are products of A, B, C, D, and the field is mapped to an outcome by
inverse-CDF with the CDF rounded to multiples of 2**-32 (so each joint
probability is exact to within 2**-32).

Doing that inverse-CDF with np.searchsorted for every field would be slow, so
a lookup table indexed by the field's top BUCKET_BITS bits answers it
directly. A bucket is ambiguous only when a CDF boundary falls strictly
inside it (at most 4**levels - 1 of the 2**BUCKET_BITS buckets); those table
entries carry AMBIGUOUS_FLAG and the caller re-resolves the few affected
fields with the exact searchsorted. The result is bit-for-bit the
searchsorted answer, only faster.

Table values are already in the generator's packed layout: row (source) bits
in the low 32 bits, column (destination) bits in the high 32 bits, shifted
to the field's bit-level offset, so a field's contribution is OR-ed in with
no further arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

BUCKET_BITS = 16
FIELD_BITS = 32
AMBIGUOUS_FLAG = np.uint64(1) << np.uint64(63)
# The packed layout puts the column bits at bit 32; with scale <= 31 neither
# half reaches bit 63, which is therefore free for the ambiguity flag.
COLUMN_SHIFT = 32


def joint_outcome_probabilities(levels: int, quadrant_probabilities) -> np.ndarray:
    """P(outcome) for outcome o in [0, 4**levels); level j's quadrant is (o >> 2j) & 3."""
    quadrant = np.asarray(quadrant_probabilities, dtype=np.float64)
    probabilities = np.ones(1)
    for _ in range(levels):
        # Appending a level as the new most significant 2-bit digit.
        probabilities = np.outer(quadrant, probabilities).ravel()
    return probabilities


def outcome_bits(levels: int) -> tuple[np.ndarray, np.ndarray]:
    """Row bits and column bits (one bit per level) of every joint outcome.

    Quadrant q at a level: row bit = q >> 1 (C or D), column bit = q & 1 (B or D),
    matching Graph500's ii_bit = r > A+B, jj_bit chosen within the row.
    """
    outcomes = np.arange(4**levels, dtype=np.uint64)
    rows = np.zeros_like(outcomes)
    cols = np.zeros_like(outcomes)
    for level in range(levels):
        quadrant = (outcomes >> np.uint64(2 * level)) & np.uint64(3)
        rows |= (quadrant >> np.uint64(1)) << np.uint64(level)
        cols |= (quadrant & np.uint64(1)) << np.uint64(level)
    return rows, cols


@dataclass(frozen=True, eq=False)
class QuadrantTable:
    """Maps a 32-bit field to the packed bits of `levels` Kronecker levels."""

    levels: int
    bit_offset: int            # first bit level this field decides
    upper_thresholds: np.ndarray  # uint64, CDF * 2**32 at outcomes 1..4**levels-1
    packed_outcome: np.ndarray    # uint64 per outcome, in packed layout
    bucket_value: np.ndarray      # uint64 per bucket; AMBIGUOUS_FLAG if a boundary is inside

    def exact_outcome(self, fields: np.ndarray) -> np.ndarray:
        """Outcome index of each field by exact inverse-CDF (the definition)."""
        return np.searchsorted(self.upper_thresholds, fields, side="right")

    def exact_packed(self, fields: np.ndarray) -> np.ndarray:
        return self.packed_outcome[self.exact_outcome(fields)]


@lru_cache(maxsize=64)
def quadrant_table(levels: int, bit_offset: int, quadrant_probabilities: tuple) -> QuadrantTable:
    probabilities = joint_outcome_probabilities(levels, quadrant_probabilities)
    cumulative = np.cumsum(probabilities)[:-1]
    # Integer CDF boundaries: outcome o owns [T[o-1], T[o]) of the 2**32 values.
    upper_thresholds = np.minimum(
        np.round(cumulative * 2.0**FIELD_BITS), 2.0**FIELD_BITS
    ).astype(np.uint64)

    rows, cols = outcome_bits(levels)
    packed_outcome = (rows << np.uint64(bit_offset)) | (
        cols << np.uint64(COLUMN_SHIFT + bit_offset)
    )

    bucket_width = 1 << (FIELD_BITS - BUCKET_BITS)
    bucket_start = np.arange(1 << BUCKET_BITS, dtype=np.uint64) * np.uint64(bucket_width)
    bucket_last = bucket_start + np.uint64(bucket_width - 1)
    first = np.searchsorted(upper_thresholds, bucket_start, side="right")
    last = np.searchsorted(upper_thresholds, bucket_last, side="right")
    bucket_value = packed_outcome[first].copy()
    bucket_value[first != last] = AMBIGUOUS_FLAG
    return QuadrantTable(levels, bit_offset, upper_thresholds, packed_outcome, bucket_value)


def field_plan(scale: int, levels_per_field: int) -> list[tuple[int, int]]:
    """(levels, bit_offset) of each 32-bit field needed to cover `scale` levels."""
    plan = []
    offset = 0
    while offset < scale:
        levels = min(levels_per_field, scale - offset)
        plan.append((levels, offset))
        offset += levels
    return plan
