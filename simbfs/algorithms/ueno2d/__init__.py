"""Ueno & Suzumura's BFS for TSUBAME 2.0 (seed 004): ``ueno2d``, a 2D
level-synchronised BFS on GPUs with SIMD-VLQ expand compression, a shared
visited bitmap (SV) that filters the fold, and folds overlapped with the
kernels.

vlq.py: VLQ and SIMD-VLQ coding; work.py: the grid, the blocks and what each
process sends, gathers, filters and claims, level by level, on the real
graph; pricing.py: what the kernels, copies and messages cost, as pure
functions of counts, and ``price_level``, a level's time; execute.py: the
executed run (a RootSearch); project.py: its projection (walk_root);
machine_section.py: the ``ueno2d:`` section.
"""

from ..base import Projection
from . import machine_section, project  # noqa: F401  (machine_section registers ueno2d:)
from .execute import Ueno2D

Ueno2D.projection = Projection(project.project, profile_vertex_per_node=project.PROFILE_VERTEX_PER_NODE,
                               shared_hosts=True, work_parameters=project.WORK_PARAMETERS)

ALGORITHMS = {"ueno2d": Ueno2D("ueno2d")}
