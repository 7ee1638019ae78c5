"""What the Cell BE scripts (seed 001) share beyond experiments/lib.py: the
paper's graphs and a search on them, through simbfs.runner as `simbfs run
cell_be --graph uniform --arity A --nodes SPES` runs it.

The paper's graphs (001, 5): each vertex's arity uniform in [0, 2a],
directed adjacency lists (the cell-* algorithms ask for directed uniform
graphs). Every script writes PNG + CSV to results/cell_be/ and prints a
comparison with ../shared/reference/claims.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field

from experiments import lib
from simbfs.engine import NULL_RECORDER, TimelineRecorder
from simbfs.machine import load_machine

MACHINE = "cell_be"
RESULTS = lib.results_dir(MACHINE)
SPES = 8


def parse_args(doc: str, argv=None):
    return lib.parse_args(doc, MACHINE, argv)


def machine(overrides: tuple[str, ...] = ()):
    return load_machine(MACHINE, list(overrides))


def clock_hz() -> float:
    """The SPEs' clock, from simbfs/machines/cell_be.yaml (node.clock)."""
    return machine().node.clock_hz


@dataclass
class CellRun:
    """A runner document, with the recorder that watched it (``trace``)."""

    doc: dict
    recorder: TimelineRecorder | None = None
    busy: dict = field(default_factory=dict)  # seconds per span kind, summed over SPEs and roots

    @property
    def teps(self) -> float:
        """Harmonic mean over the roots (edges/s), as Graph500 ranks."""
        return lib.harmonic_mean(self.doc)

    @property
    def edges(self) -> int:
        return sum(r["edges"] for r in self.doc["roots"])

    @property
    def vertices(self) -> int:
        return self.doc["graph"]["vertices"]

    @property
    def levels(self) -> list[dict]:
        return self.doc["levels"]


def run(arity: float, scale: int, spes: int = SPES, algorithm: str = "cell-overlap", roots: int = 1,
        overrides=(), trace: bool = False, seed: int = 1) -> CellRun:
    """``roots`` searches of the paper's graph (2^scale vertices, arity
    ``arity``) on ``spes`` SPEs; with ``trace``, a TimelineRecorder keeps
    every span and ``busy`` sums them per kind."""
    recorder = TimelineRecorder() if trace else None
    doc = lib.simulate(machine=MACHINE, nodes=spes, graph="uniform", scale=scale, arity=arity, roots=roots,
                       seed=seed, algorithm=algorithm, overrides=list(overrides),
                       recorder=recorder or NULL_RECORDER)
    busy: dict[str, float] = {}
    for span in recorder.spans if recorder else ():
        busy[span.what] = busy.get(span.what, 0.0) + span.duration_s
    return CellRun(doc, recorder, busy)
