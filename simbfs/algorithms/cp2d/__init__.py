"""Checconi & Petrini's previous-generation 2D BFS (seed 000, ``cp2d``).

execute.py: the level work, its pricing and the executed run; project.py: the
projection, priced with the same functions (attached here because it builds
on execute.py).
"""

from ..base import Projection
from . import project
from .execute import CP2D

CP2D.projection = Projection(project.project, profile_vertex_per_node=project.PROFILE_VERTEX_PER_NODE)

ALGORITHMS = {
    "cp2d": CP2D("cp2d"),
}
