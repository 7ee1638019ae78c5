"""Villa et al.'s SPE BFS on the Cell BE (seed 001): ``cell-bsp`` and
``cell-overlap``. work.py: the graph as stored for the SPEs and a level's
plan, counted per round and SPE; pricing.py: each step's SPU time
(``price_level``); execute.py: the local-store check and the executed run.
It has no projection. machine_section.py registers the machine file's
``spe:`` section.
"""

from . import machine_section  # noqa: F401  (registers spe:)
from .execute import CellSPE

ALGORITHMS = {
    "cell-bsp": CellSPE("cell-bsp", overlapped=False),
    "cell-overlap": CellSPE("cell-overlap", overlapped=True),
}
