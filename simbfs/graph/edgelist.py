"""The generators' output: :class:`EdgeList`, the raw Graph500 input tuples.

Duplicates and self-loops are kept on purpose: Graph500 counts them in the
TEPS numerator and the validator checks every input tuple, so the simulator
needs the list exactly as generated, not the cleaned-up graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def vertex_dtype(num_vertices: int) -> np.dtype:
    """The narrowest signed integer type that holds every vertex label."""
    return np.dtype(np.int32) if num_vertices <= 2**31 else np.dtype(np.int64)


@dataclass(frozen=True, eq=False)
class EdgeList:
    """Input tuples (src[i], dst[i]); undirected, duplicates and self-loops kept."""

    src: np.ndarray
    dst: np.ndarray
    num_vertices: int

    def __post_init__(self) -> None:
        if self.src.shape != self.dst.shape or self.src.ndim != 1:
            raise ValueError("EdgeList src and dst must be 1-D arrays of equal length")

    def __len__(self) -> int:
        return int(self.src.shape[0])

    @property
    def nbytes(self) -> int:
        return int(self.src.nbytes + self.dst.nbytes)
