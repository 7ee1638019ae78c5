"""Vectorised gathers of CSR adjacency lists for a set of vertices.

The concatenated neighbour lists of vertices v_0..v_k occupy CSR slots
indptr[v_i] + j; building that slot array with np.repeat and a cumulative
sum avoids any per-vertex Python loop. Vertex sets are split into batches of
bounded total degree so a huge frontier never materialises gigabytes of
temporaries at once.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

DEFAULT_EDGE_BUDGET = 1 << 24


def neighbour_slots(indptr: np.ndarray, vertices: np.ndarray):
    """(slots, lengths, row_offsets): CSR positions of the concatenated lists.

    row_offsets[i] is where vertex i's list starts within `slots`.
    """
    starts = indptr[vertices]
    lengths = indptr[vertices + 1] - starts
    slots, row_offsets = concatenated_ranges(starts, lengths)
    return slots, lengths, row_offsets


def concatenated_ranges(starts: np.ndarray, lengths: np.ndarray):
    """(positions, offsets): the ranges [starts[i], starts[i] + lengths[i])
    one after another, and where each range starts among them."""
    ends = np.cumsum(lengths)
    offsets = ends - lengths
    positions = np.arange(int(ends[-1]) if ends.size else 0, dtype=np.int64)
    positions += np.repeat(starts - offsets, lengths)
    return positions, offsets


# Above this share of the entries between the first and the last vertex,
# a set's lists are selected with a mask over that range: one pass over it
# is then faster than building every entry's slot (np.repeat, a cumulative
# sum, a gather)
MASKED_GATHER_SHARE = 1 / 6


def neighbour_lists(indptr: np.ndarray, indices: np.ndarray, vertices: np.ndarray, degree: np.ndarray):
    """(targets, lengths): the concatenated neighbour lists of ``vertices``
    (ascending and distinct), as int64, and each list's length.
    ``degree`` is np.diff(indptr), which the caller keeps."""
    lengths = degree[vertices]
    if len(vertices) == 0:
        return indices[:0].astype(np.int64), lengths
    low, high = int(vertices[0]), int(vertices[-1]) + 1
    if lengths.sum() > MASKED_GATHER_SHARE * (indptr[high] - indptr[low]):
        chosen = np.zeros(high - low, dtype=bool)
        chosen[vertices - low] = True
        # the lists in vertex order: the vertices' order
        targets = indices[indptr[low]:indptr[high]][np.repeat(chosen, degree[low:high])]
    else:
        slots, _, _ = neighbour_slots(indptr, vertices)
        targets = indices[slots]
    return targets.astype(np.int64, copy=False), lengths


def batches_by_degree(indptr: np.ndarray, vertices: np.ndarray,
                      edge_budget: int = DEFAULT_EDGE_BUDGET) -> Iterator[np.ndarray]:
    """Consecutive slices of `vertices` whose total degree is about edge_budget or less."""
    if vertices.size == 0:
        return
    degree_sum = np.cumsum(indptr[vertices + 1] - indptr[vertices])
    if degree_sum[-1] <= edge_budget:
        yield vertices
        return
    # Cut where the running degree crosses each multiple of the budget; a
    # single vertex above the budget still forms its own batch.
    cuts = np.searchsorted(degree_sum, np.arange(edge_budget, degree_sum[-1], edge_budget),
                           side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [vertices.size]]))
    for start, stop in zip(bounds[:-1], bounds[1:]):
        if stop > start:
            yield vertices[start:stop]
