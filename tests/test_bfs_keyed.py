"""simbfs/bfs/keyed.py: grouped reductions by a table or by a sort, the same answers."""

import numpy as np

from simbfs.bfs.keyed import smallest_per_key


def test_smallest_per_key_by_table_equals_the_sort():
    """The table path of smallest_per_key (a minimum per slot) gives the
    distinct keys and smallest values the lexsort gives, dense or sparse."""
    rng = np.random.default_rng(5)
    for span in (50, 10**9):  # the first takes the table, the second the sort
        keys = rng.integers(0, span, 3000)
        values = rng.integers(0, 10**6, 3000)
        order = np.lexsort((values, keys))
        k, v = keys[order], values[order]
        first = np.concatenate([[True], k[1:] != k[:-1]])
        got = smallest_per_key(keys, values)
        assert np.array_equal(got[0], k[first]) and np.array_equal(got[1], v[first])
