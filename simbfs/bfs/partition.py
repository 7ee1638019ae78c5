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
    return vertices * nodes // num_vertices
