"""Lin et al.'s BFS for Sunway TaihuLight (seed 003): ``lin1d``, a
pipelined, relay-batched, direction-optimising 1D BFS whose modules run on
the SW26010's CPE clusters.

work.py: the layout (owners, hubs, relay groups) and what each module reads,
sends and claims, level by level, on the real graph; pricing.py: what the
modules cost on CPE clusters and MPEs, as pure functions of counts;
execute.py: the executed run; machine_section.py: the ``lin1d:`` section.
"""

from . import machine_section  # noqa: F401  (registers lin1d:)
from .execute import Lin1D

ALGORITHMS = {"lin1d": Lin1D("lin1d")}
