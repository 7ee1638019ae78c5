"""What the compiled loops share (issue 16): numba's njit with a cache, and
the partition arithmetic of bfs.partition for one value at a time.

numba is imported only by the modules that define compiled loops, and
those are imported inside the functions that call them, so that a run
which uses none of them does not pay numba's import.
"""

from __future__ import annotations

import numpy as np
from numba import njit as _njit


def compiled(**options):
    """numba's njit, its machine code cached beside the source (or in
    ~/.cache, or NUMBA_CACHE_DIR) so that only the first run after an
    install compiles it; where no cache location is writable, compiled
    in each process instead of failing."""
    def decorate(function):
        try:
            return _njit(cache=True, **options)(function)
        except RuntimeError:  # numba: "cannot cache function ...: no locator available"
            return _njit(**options)(function)
    return decorate


@compiled(inline="always")
def scaled(value, numerator, denominator, shift):
    """bfs.partition.scaled_floor of one value: value * numerator //
    denominator, by ``shift`` (bfs.partition.floor_shift) where it is one."""
    if shift >= 0:
        return value >> shift
    return value * numerator // denominator


@compiled(inline="always")
def modulo(value, modulus, mask):
    """value % modulus of a non-negative value; a mask when the modulus is a power of two."""
    if mask >= 0:
        return value & mask
    return value % modulus


@compiled()
def grown(array):
    """A copy of a 1-D ``array`` with twice the room."""
    bigger = np.empty(2 * len(array), dtype=array.dtype)
    bigger[:len(array)] = array
    return bigger


@compiled()
def grown_rows(array):
    """A copy of a 2-D ``array`` with twice the room along its rows."""
    bigger = np.empty((array.shape[0], 2 * array.shape[1]), dtype=array.dtype)
    bigger[:, :array.shape[1]] = array
    return bigger
