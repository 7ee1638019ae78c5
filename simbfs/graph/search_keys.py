"""Graph500 search keys: the BFS roots.

The specification draws 64 distinct roots at random among vertices with at
least one edge other than a self-loop (a root with no neighbours would make
a trivial search). Degree in the simple CSR graph is exactly that test.
"""

from __future__ import annotations

import numpy as np

from simbfs.graph.counter_rng import STREAM_SEARCH_KEYS, stream_generator
from simbfs.graph.csr import Graph

GRAPH500_SEARCH_KEYS = 64


def search_keys(graph: Graph, count: int = GRAPH500_SEARCH_KEYS, seed: int = 1) -> np.ndarray:
    """`count` distinct eligible roots in a seeded random order (all of them if fewer)."""
    eligible = np.flatnonzero(graph.degree >= 1).astype(np.int64)
    generator = stream_generator(seed, STREAM_SEARCH_KEYS)
    if eligible.size <= count:
        return generator.permutation(eligible)
    return generator.choice(eligible, size=count, replace=False, shuffle=True)
