"""Uniform-arity random graphs, as used by Villa et al. (IPDPS 2007, Cell BE).

Their section 5: "The arities of the vertices are independent, identically
distributed random variables, taken from a uniform distribution in the range
[0 ... 2a]" and each vertex's adjacency list E_v is filled with random
vertices; the graph size |V| was set by the memory available. Their BFS
explores the lists E_v as given (a directed adjacency structure).

simbfs instead treats every generated (v, w) as an undirected Graph500 input
tuple, so the same CSR, search-key, validator and TEPS machinery applies to
both graph kinds. Consequences worth knowing: the simple undirected graph has
mean degree close to 2a (each tuple is stored in both directions) rather
than a, and self-loops or repeated neighbours (rare: probability ~a/N per
draw) are kept in the tuple list and dropped from the CSR, as for Kronecker.
"""

from __future__ import annotations

import numpy as np

from simbfs.graph.counter_rng import (
    STREAM_UNIFORM_ARITY,
    STREAM_UNIFORM_NEIGHBOURS,
    stream_generator,
)
from simbfs.graph.edgelist import EdgeList, vertex_dtype
from simbfs.graph.spec import GraphSpec, UNIFORM


def uniform_arities(scale: int, arity: float, seed: int = 1) -> np.ndarray:
    """k_v for every vertex: integers uniform in [0, 2*arity] (inclusive)."""
    GraphSpec(UNIFORM, scale, arity=arity, seed=seed)  # validates arity and scale
    max_arity = int(2 * arity)
    generator = stream_generator(seed, STREAM_UNIFORM_ARITY)
    return generator.integers(0, max_arity, size=1 << scale, endpoint=True, dtype=np.int64)


def uniform_edges(scale: int, arity: float, seed: int = 1) -> EdgeList:
    """Tuples (v, w): k_v of them per vertex v, each w uniform over all vertices."""
    num_vertices = 1 << scale
    dtype = vertex_dtype(num_vertices)
    arities = uniform_arities(scale, arity, seed)
    src = np.repeat(np.arange(num_vertices, dtype=dtype), arities)
    generator = stream_generator(seed, STREAM_UNIFORM_NEIGHBOURS)
    dst = generator.integers(0, num_vertices, size=src.size, dtype=np.int64).astype(dtype)
    return EdgeList(src=src, dst=dst, num_vertices=num_vertices)
