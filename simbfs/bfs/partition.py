"""The 1D block partition every distributed code here uses: vertex v
belongs to node ``v * N // n``, so node i owns the contiguous block
[starts[i], starts[i + 1])."""

from __future__ import annotations

import numpy as np


def block_starts(num_vertices: int, nodes: int) -> np.ndarray:
    """First vertex of each node's block, and n at the end (N + 1 values):
    the smallest v with v * N // n == i is ceil(i n / N)."""
    return (np.arange(nodes + 1, dtype=np.int64) * num_vertices + nodes - 1) // nodes


def block_owner(vertices, num_vertices: int, nodes: int):
    """The node that owns each vertex."""
    return scaled_floor(vertices, nodes, num_vertices)


class BlockLayout:
    """A graph's vertices in contiguous blocks over ``nodes`` nodes (node
    ``v * N // n`` owns v): what the 1D codes' layouts share. ``starts``:
    the first vertex of each node's block (and n); ``local_vertices``: each
    block's size; ``degree``: every vertex's degree, as int64."""

    def __init__(self, graph, nodes: int):
        self.graph = graph
        self.n = graph.num_vertices
        self.N = nodes
        self.starts = block_starts(self.n, nodes)
        self.local_vertices = np.diff(self.starts)
        self.degree = graph.degree.astype(np.int64, copy=False)


def floor_shift(numerator: int, denominator: int) -> int:
    """k when denominator / numerator is 2^k (v * numerator // denominator
    is then v >> k), else -1. Also passed to compiled loops, which apply
    the same rule per value."""
    if denominator % numerator:
        return -1
    ratio = denominator // numerator
    return ratio.bit_length() - 1 if ratio & (ratio - 1) == 0 else -1


def scaled_floor(values, numerator: int, denominator: int):
    """``values * numerator // denominator`` for non-negative integers: by a
    shift when it is one (a Graph500 graph's 2^scale vertices over a power
    of two of nodes or threads), which numpy does many times faster than a
    64-bit division, with the same result."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        shift = floor_shift(numerator, denominator)
        if shift >= 0:
            return values >> shift
        if values.dtype.itemsize < 8:  # the product in 64 bits: 32-bit ids times a thread count can overflow
            values = values.astype(np.int64)
    return values * numerator // denominator
