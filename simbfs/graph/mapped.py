"""Letting go of a cached graph's pages once a run is done with them.

A cached graph is mapped read-only from its files (loading.py), so its
pages count in this process's resident set once touched, and stay there:
the search touches the CSR, the validator the input tuples, and together
they are the whole graph (4.2 GB at scale 24). ``release_pages(array)``
tells the kernel (``madvise(MADV_DONTNEED)``) that the process no longer
needs the resident pages of such an array: they leave the resident set,
the page cache keeps them, and the next read maps them again from it
(a minor fault, no disk read). The values never change: the mapping is
read-only and shared with its file. An array that is not such a mapping
(a generated graph, a copy) is left alone: on anonymous memory the same
advice would zero it.
"""

from __future__ import annotations

import mmap

import numpy as np


def _read_only_mapping(array: np.ndarray) -> mmap.mmap | None:
    """The read-only mmap under ``array``'s memory, if there is one."""
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    if not isinstance(base, mmap.mmap) or base.closed:
        return None
    if not memoryview(base).readonly:  # a writable or copy-on-write mapping: never
        return None
    return base


def release_pages(array: np.ndarray) -> bool:
    """Drop the resident pages wholly inside ``array`` (contiguous, on a
    read-only file mapping) from this process; True if advice was given.
    The array stays valid and reads the same values."""
    if not isinstance(array, np.ndarray) or not array.flags.c_contiguous or array.nbytes == 0:
        return False
    mapping = _read_only_mapping(array)
    if mapping is None or not hasattr(mapping, "madvise") or not hasattr(mmap, "MADV_DONTNEED"):
        return False
    start = array.ctypes.data - np.frombuffer(mapping, dtype=np.uint8).ctypes.data
    end = start + array.nbytes
    if start < 0 or end > len(mapping):
        return False
    page = mmap.PAGESIZE
    first, last = -(-start // page) * page, end // page * page  # whole pages only
    if last > first:
        mapping.madvise(mmap.MADV_DONTNEED, first, last - first)
    return True
