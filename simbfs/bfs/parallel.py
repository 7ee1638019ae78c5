"""Independent parts of a compiled loop on the host's cores.

The compiled loops (numba, ``nogil=True``) release the GIL, so threads run
them at once. A loop over independent items (a level's probers, say) is
cut into contiguous runs, one per thread, and the runs' results are put
together in the items' order: integer counts added, lists concatenated.
The result is then the same, bit for bit, whatever the number of threads.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def worker_threads() -> int:
    """Threads a compiled loop over independent parts may use: the cores
    this process may run on, at most 4 (as the validator's gathers)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # (no affinity on this platform)
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def balanced_chunks(weights: np.ndarray, chunks: int) -> list[slice]:
    """Contiguous slices of ``weights``' items, about equal in total weight,
    at most ``chunks`` of them (fewer when there are fewer items)."""
    if chunks <= 1 or len(weights) < 2:
        return [slice(0, len(weights))]
    total = np.cumsum(weights, dtype=np.float64)
    cuts = np.searchsorted(total, total[-1] * np.arange(1, chunks) / chunks)
    bounds = np.unique(np.concatenate([[0], cuts, [len(weights)]]))
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]


def map_in_order(function, items, workers: int | None = None) -> list:
    """``function(item)`` for every item, on up to ``workers`` threads
    (default worker_threads()), the results in the items' order.

    Interrupted (Ctrl-C reaches the waiting main thread), it gives up at
    once: items not started are cancelled, and those running are left to
    end in the background, where the command line does not wait for them
    (cli.main exits at once). A pool's ``with`` block would wait for them,
    which took a projection 11-40 s to stop."""
    items = list(items)
    workers = min(len(items), workers or worker_threads())
    if workers <= 1:
        return [function(item) for item in items]
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        results = list(pool.map(function, items))
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results


def in_parallel(calls: list) -> list:
    """Run the calls (compiled loops with nogil=True, so they run at once)
    on up to worker_threads() threads and return their results in the
    calls' order, whatever the number of threads."""
    return map_in_order(lambda call: call(), calls)
