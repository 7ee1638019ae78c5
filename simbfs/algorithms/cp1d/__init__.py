"""Checconi & Petrini's 1D BFS codes for BlueGene/Q (seed 000): ``cp1d-spi``
(asynchronous, over SPI) and ``cp1d-mpi`` (bulk-synchronous, over MPI).

work.py: the data layout, the level work both codes share (what is scanned,
sent and claimed), the message encoding and the pure pricing functions;
spi.py and mpi.py: the executed runs; project_spi.py and project_mpi.py: their
projections, which price with the same functions. The projections are attached
here because they build on the executed modules.
"""

from ..base import Projection
from . import machine_section, project_mpi, project_spi  # noqa: F401  (machine_section registers cp1d:)
from .mpi import CP1DMPI
from .spi import CP1DSPI

CP1DSPI.projection = Projection(project_spi.project, profile_vertex_per_node=project_spi.PROFILE_VERTEX_PER_NODE)
CP1DMPI.projection = Projection(project_mpi.project, profile_vertex_per_node=project_mpi.PROFILE_VERTEX_PER_NODE)

ALGORITHMS = {
    "cp1d-spi": CP1DSPI("cp1d-spi"),
    "cp1d-mpi": CP1DMPI("cp1d-mpi"),
}
