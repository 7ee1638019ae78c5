"""Reference BFS, the direction-optimising switch, the Graph500 validator and TEPS statistics."""

from simbfs.bfs.direction import BOTTOM_UP, TOP_DOWN, choose_direction
from simbfs.bfs.reference import bfs_reference
from simbfs.bfs.result import UNREACHED, BFSResult, LevelStats
from simbfs.bfs.teps import teps_statistics
from simbfs.bfs.validate import ValidationReport, validate_bfs_tree

__all__ = [
    "BOTTOM_UP",
    "BFSResult",
    "LevelStats",
    "TOP_DOWN",
    "UNREACHED",
    "ValidationReport",
    "bfs_reference",
    "choose_direction",
    "teps_statistics",
    "validate_bfs_tree",
]
