"""Checconi & Petrini's 1D BFS codes for BlueGene/Q (seed 000): ``cp1d-spi``
(asynchronous, over SPI) and ``cp1d-mpi`` (bulk-synchronous, over MPI).

layout.py: the data layout; work.py: the level work both codes share (what
is scanned, sent and claimed, the options, and the MPI code's passes);
encoding.py: the messages' bytes and packets; pricing.py: every cost
formula, with price_level (cp1d-spi) and price_mpi_level (cp1d-mpi);
claim_timing.py: when a bottom-up level's remote claims become visible;
memory.py: what a node holds; execute_spi.py and execute_mpi.py: the
executed runs (RootSearch); project_spi.py and project_mpi.py: their
projections (walk_root), which price with the same functions. The
projections are attached here because they build on the executed modules.
"""

from ..base import Projection
from . import machine_section, project_mpi, project_spi  # noqa: F401  (machine_section registers cp1d:)
from .execute_mpi import CP1DMPI
from .execute_spi import CP1DSPI

CP1DSPI.projection = Projection(project_spi.project, profile_vertex_per_node=project_spi.PROFILE_VERTEX_PER_NODE,
                                work_parameters=project_spi.WORK_PARAMETERS)
CP1DMPI.projection = Projection(project_mpi.project, profile_vertex_per_node=project_mpi.PROFILE_VERTEX_PER_NODE,
                                work_parameters=project_spi.WORK_PARAMETERS)

ALGORITHMS = {
    "cp1d-spi": CP1DSPI("cp1d-spi"),
    "cp1d-mpi": CP1DMPI("cp1d-mpi"),
}
