"""What a BFS produces: the parent tree, levels, and per-level work counts.

The per-level counts (direction, frontier size, edges examined) are what the
simulated algorithms' costs are built from, so the reference BFS records
them in the same terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

UNREACHED = -1


@dataclass(frozen=True)
class LevelStats:
    level: int               # depth of the frontier being expanded
    direction: str           # "top-down" or "bottom-up"
    frontier_vertices: int   # vertices at depth `level`
    edges_examined: int      # adjacency entries read while expanding it


@dataclass
class BFSResult:
    parent: np.ndarray       # int64; UNREACHED (-1) if not reached; parent[root] == root
    level: np.ndarray        # int64; UNREACHED (-1) if not reached
    levels: list[LevelStats] = field(default_factory=list)

    @property
    def reached(self) -> np.ndarray:
        return self.parent != UNREACHED

    @property
    def edges_examined(self) -> int:
        return sum(stats.edges_examined for stats in self.levels)
