"""Checconi & Petrini's previous-generation 2D BFS (seed 000, ``cp2d``).

work.py: the grid and a level's operations counted per node on the real
graph (kernels.py: its compiled scan); pricing.py: what they cost, as pure
functions of counts (``price_level``); execute.py: the algorithm and the
executed run; project.py: the projection, priced with the same
``price_level``.
"""

from ..base import Projection
from . import project
from .execute import CP2D

CP2D.projection = Projection(project.project, profile_vertex_per_node=project.PROFILE_VERTEX_PER_NODE,
                             work_parameters=project.WORK_PARAMETERS)

ALGORITHMS = {
    "cp2d": CP2D("cp2d"),
}
