"""Reductions of values grouped by integer keys, without sorting where a
table over the keys is affordable: the BFS codes' "for every target, the
smallest parent" and "each vertex's first discovery"."""

from __future__ import annotations

import numpy as np

# smallest_per_key uses a table over the key range when it is at most this
# many slots per entry (plus a floor for small inputs); else it sorts
DENSE_KEYS_PER_ENTRY = 8
DENSE_KEYS_MIN = 1 << 16


def smallest_per_key(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys, ascending, each with its smallest value."""
    span = int(keys.max()) + 1 if len(keys) else 0
    if len(keys) and span <= DENSE_KEYS_PER_ENTRY * len(keys) + DENSE_KEYS_MIN:
        # a table over the key range: one unbuffered minimum per entry and a
        # scan, instead of a sort (the keys are vertex ids, or ids times the
        # grid's columns, so the table is a few times the entries at most)
        empty = np.iinfo(np.int64).max
        smallest = np.full(span, empty, dtype=np.int64)
        np.minimum.at(smallest, keys, values)
        distinct = np.flatnonzero(smallest != empty)
        return distinct, smallest[distinct]
    order = np.lexsort((values, keys))
    keys, values = keys[order], values[order]
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    return keys[first], values[first]


def sum_per_key(keys: np.ndarray, values: np.ndarray, length: int) -> np.ndarray:
    """The sums of ``values`` by key 0 .. length - 1, as float64 (zeros
    where a key has none, also when there are no values at all)."""
    return np.bincount(keys, weights=values, minlength=length).astype(np.float64, copy=False)
