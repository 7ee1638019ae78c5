"""What the compiled loops share: numba's njit with a cache
stamped with the whole package's sources, the partition arithmetic of
bfs.partition for one value at a time, and array growth.

numba is imported only by the modules that define compiled loops, and
those are imported inside the functions that call them, so that a run
which uses none of them does not pay numba's import.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numpy as np
from numba import njit as _njit
from numba.core import caching as _caching

PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def source_fingerprint(root: Path = PACKAGE_ROOT) -> str:
    """A hash of every Python source file under ``root``, names and bytes."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_package_fingerprint = functools.lru_cache(maxsize=1)(source_fingerprint)


def _stamped(locator):
    """numba's cache ``locator``, whose stamp of a simbfs function's source
    also holds the fingerprint of the whole package. numba invalidates a
    cached loop only when the file that defines it changes; ours compile
    functions of other files into them (bfs.compiled's helpers, the pricing
    formula claim_delay_s of cp1d/pricing.py), and an edit there would
    otherwise leave the cached machine code computing the old formula."""
    class Stamped(locator):
        def get_source_stamp(self):
            stamp = super().get_source_stamp()
            if Path(self._py_file).resolve().is_relative_to(PACKAGE_ROOT):
                return stamp, _package_fingerprint()
            return stamp
    Stamped.__name__ = Stamped.__qualname__ = f"Package{locator.__name__}"
    return Stamped


# (numba has no public hook for this; its locators are tried in this order)
_caching.CacheImpl._locator_classes = [
    _stamped(locator) if issubclass(locator, _caching._SourceFileBackedLocatorMixin) else locator
    for locator in (locator.__bases__[0] if locator.__name__.startswith("Package") else locator  # (a reload)
                    for locator in _caching.CacheImpl._locator_classes)]


def cache_stamp(kernel):
    """The stamp numba keeps beside ``kernel``'s cached machine code: for a
    simbfs kernel, (its file's stamp, the package fingerprint). numba has
    no public name for it: this is the one place that reaches in."""
    return kernel._cache._impl.locator.get_source_stamp()


def compiled(**options):
    """numba's njit, its machine code cached beside the source (or in
    ~/.cache, or NUMBA_CACHE_DIR) so that only the first run after an
    install or an edit of the package compiles it (the cache is stamped
    with all of its sources: _stamped); where no cache location is
    writable, compiled in each process instead of failing."""
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
