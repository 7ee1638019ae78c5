"""Graph500 TEPS summary statistics.

Graph500 ranks by the harmonic mean of the per-search TEPS (the right mean
for rates over equal amounts of work: it equals total edges over total
time when every search has the same edge count) and also reports min,
quartiles, max and the harmonic standard deviation (Norris 1940).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


def _reference_quartile(data: np.ndarray, position: float, low_weight: float) -> float:
    """One quartile exactly as `statistics()` in graph500/graph500 output_results.c.

    That code computes t = (n+1)/4 (or /2, or 3/4) and k = (int)t, then takes
    data[k] if t is integral, else low_weight*data[k] + (1-low_weight)*data[k+1],
    indexing the 0-based sorted array with the 1-based position formula (so
    e.g. the "median" of 64 values is the mean of the 33rd and 34th). We keep
    that convention so our numbers compare with published Graph500 output.
    For tiny n that C code reads past the end of the array; we clamp the
    index to the last element instead.
    """
    last = data.size - 1
    k = int(position)
    if position == k:
        return float(data[min(k, last)])
    return float(low_weight * data[min(k, last)] + (1.0 - low_weight) * data[min(k + 1, last)])


def teps_statistics(teps: Sequence[float]) -> dict:
    """harmonic_mean, min, q1, median, q3, max (and harmonic_stddev) of per-search TEPS."""
    data = np.sort(np.asarray(teps, dtype=np.float64))
    n = data.size
    if n == 0:
        raise ValueError("teps_statistics needs at least one TEPS value")
    if np.isnan(data).any():
        raise ValueError("TEPS values must not be NaN")
    # As in the reference, a zero rate contributes nothing to the sum of inverses.
    inverses = np.divide(1.0, data, out=np.zeros_like(data), where=data != 0)
    inverse_sum = float(inverses.sum())
    harmonic_mean = n / inverse_sum if inverse_sum else math.inf
    if n > 1 and inverse_sum:
        deviation = inverses - inverse_sum / n
        harmonic_stddev = math.sqrt(float((deviation**2).sum())) / (n - 1) * harmonic_mean**2
    else:
        harmonic_stddev = 0.0
    return {
        "harmonic_mean": harmonic_mean,
        "min": float(data[0]),
        "q1": _reference_quartile(data, (n + 1) / 4.0, 0.75),
        "median": _reference_quartile(data, (n + 1) / 2.0, 0.5),
        "q3": _reference_quartile(data, 3 * ((n + 1) / 4.0), 0.25),
        "max": float(data[-1]),
        "harmonic_stddev": harmonic_stddev,
    }
