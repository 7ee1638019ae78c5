"""Villa et al.'s SPE BFS on the Cell BE (seed 001): ``cell-bsp`` and
``cell-overlap``. execute.py holds the level plan, its DMA and local-store
pricing and the executed run; it has no projection. machine_section.py
registers the machine file's ``spe:`` section.
"""

from . import machine_section  # noqa: F401  (registers spe:)
from .execute import CellSPE

ALGORITHMS = {
    "cell-bsp": CellSPE("cell-bsp", overlapped=False),
    "cell-overlap": CellSPE("cell-overlap", overlapped=True),
}
