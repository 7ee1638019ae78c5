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
from .cp2d import ALGORITHM_VARIANTS as _CP2D

ALGORITHMS = {**_BSP1D, **_CELL, **_CP1D_SPI, **_CP1D_MPI, **_CP2D}


def get_algorithm(name: str):
    """The algorithm called ``name``, or ``name:key=value,...`` for a variant
    with options (``cp1d-spi:compression=off,representation=skip-list``)
    when the algorithm takes options."""
    base, colon, options = name.partition(":")
    try:
        algorithm = ALGORITHMS[base]
    except KeyError:
        raise UserError(f"unknown algorithm {base!r}; choose one of {', '.join(sorted(ALGORITHMS))}") from None
    if not colon:
        return algorithm
    if not hasattr(algorithm, "with_options"):
        raise UserError(f"{base} takes no options; use --algorithm {base}")
    if not options:
        raise UserError(f"no options after {base}:; write {base}:key=value,... (e.g. {base}:compression=off) "
                        f"or just {base}")
    settings = {}
    for item in options.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UserError(f"algorithm option {item!r} must be written key=value, e.g. {base}:compression=off")
        if key.strip() in settings:  # which one was meant is not ours to guess
            raise UserError(f"algorithm option {key.strip()!r} is given twice in {name!r}; give it once")
        settings[key.strip()] = value.strip()
    return algorithm.with_options(name, settings)


__all__ = ["ALGORITHMS", "get_algorithm"]
