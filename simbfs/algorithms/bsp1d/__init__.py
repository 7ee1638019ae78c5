"""The level-synchronous 1D BFS that runs on every machine (``bsp1d-do``,
``bsp1d-topdown``).

work.py: a level's work counted per node on the real graph; pricing.py:
what it costs, as pure functions of counts (``price_level``); execute.py:
the algorithm and the executed run; project.py: the projection, which
prices its profile with the same ``price_level``.
"""

from ..base import Projection
from . import project
from .execute import BSP1D

BSP1D.projection = Projection(project.project, profile_vertex_per_node=project.PROFILE_VERTEX_PER_NODE,
                              work_parameters=project.WORK_PARAMETERS)

ALGORITHMS = {
    "bsp1d-do": BSP1D("bsp1d-do", direction_optimising=True),
    "bsp1d-topdown": BSP1D("bsp1d-topdown", direction_optimising=False),
}
