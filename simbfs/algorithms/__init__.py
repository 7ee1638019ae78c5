"""BFS algorithms that run inside the simulation, by name.

Each variant lives in its own module whose header says what it implements
and from which paper section. Register new ones in ``ALGORITHMS``.
"""

from __future__ import annotations

from ..errors import UserError
from .bsp1d import ALGORITHM_VARIANTS as _BSP1D
from .cell_spe import ALGORITHM_VARIANTS as _CELL
from .cp1d_mpi import ALGORITHM_VARIANTS as _CP1D_MPI
from .cp1d_spi import ALGORITHM_VARIANTS as _CP1D_SPI

ALGORITHMS = {**_BSP1D, **_CELL, **_CP1D_SPI, **_CP1D_MPI}


def get_algorithm(name: str):
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise UserError(f"unknown algorithm {name!r}; choose one of {', '.join(sorted(ALGORITHMS))}") from None


__all__ = ["ALGORITHMS", "get_algorithm"]
