"""Lin et al.'s BFS for Sunway TaihuLight (seed 003): ``lin1d``, a
pipelined, relay-batched, direction-optimising 1D BFS whose modules run on
the SW26010's CPE clusters.

work.py: the layout (owners, hubs, relay groups) and what each module reads,
sends and claims, level by level, on the real graph; pricing.py: what the
modules cost on CPE clusters and MPEs, as pure functions of counts, and
``price_level``, a level's time; execute.py: the executed run (a
RootSearch); project.py: its projection (walk_root); machine_section.py:
the ``lin1d:`` section.
"""

from ..base import Projection
from . import machine_section, project  # noqa: F401  (machine_section registers lin1d:)
from .execute import Lin1D

Lin1D.projection = Projection(project.project, profile_vertex_per_node=project.PROFILE_VERTEX_PER_NODE,
                              work_parameters=project.WORK_PARAMETERS)

ALGORITHMS = {"lin1d": Lin1D("lin1d")}
