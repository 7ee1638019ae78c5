"""The level-synchronous 1D BFS that runs on every machine (``bsp1d-do``,
``bsp1d-topdown``).

execute.py: the level work, its pricing (pure functions of counts) and the
executed run; project.py: the projection, which prices its profile with the
same functions. The projection is attached here because project.py builds on
execute.py.
"""

from ..base import Projection
from . import project
from .execute import BSP1D

BSP1D.projection = Projection(project.project, profile_vertex_per_node=project.PROFILE_VERTEX_PER_NODE)

ALGORITHMS = {
    "bsp1d-do": BSP1D("bsp1d-do", direction_optimising=True),
    "bsp1d-topdown": BSP1D("bsp1d-topdown", direction_optimising=False),
}
