"""Timeline recorders: observe what each simulated node does, never change it.

Every algorithm and device reports its activity as spans: on ``node``, the
``resource`` (``cpu`` for a node's cores, ``nic`` for its network port,
``dma``, ``spu`` for a Cell SPE's processor) was busy from ``start_s`` to
``end_s`` doing ``what`` (a short name such as ``top-down`` or
``alltoall``), with optional details (level, bytes, ...). Times are
simulated seconds from the start of the root's BFS. ``NULL_RECORDER`` (the
default) drops them; :class:`TimelineRecorder` keeps them for a table, a
timeline plot (docs/background/cell-timeline.md) or an export.

Recording is a plain method call made after the span's timing is fixed, so
a run with a recorder has exactly the timing of a run without one (tested
for every algorithm).

What each algorithm reports:

* bsp1d-*: per level, each node's ``cpu`` compute (``top-down`` or
  ``bottom-up``), its ``nic`` exchange (``exchange``), and ``sync`` (the
  level's allreduce) on ``cpu``.
* cp1d-spi, cp1d-mpi: per level, each node's ``cpu`` busy time (the
  direction), its ``nic`` traffic (``exchange``), and ``sync``.
* cp2d: per level, each node's ``cpu`` phases (``expand``, ``fold``) and
  ``nic`` phases (``expand-exchange``, ``fold-exchange``), and ``sync``.
* cell-*: SPU steps ``dispatch``, ``bitmap``, ``*-issue`` (DMA set-up) and
  ``wait`` on ``spu``; DMA commands ``fetch``, ``gather``, ``alltoall``,
  ``commit`` on ``dma``; ``sync`` (a barrier or allreduce) on ``spu``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Span:
    """``resource`` of ``node`` was busy doing ``what`` from ``start_s`` to ``end_s``."""

    node: int
    resource: str
    start_s: float
    end_s: float
    what: str
    detail: dict = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s

    def as_dict(self) -> dict:
        return {"node": self.node, "resource": self.resource, "start_s": self.start_s, "end_s": self.end_s,
                "what": self.what, **self.detail}


class NullRecorder:
    """Records nothing. Algorithms may test ``enabled`` to skip building
    spans nobody keeps."""

    enabled = False

    def record(self, node: int, resource: str, start_s: float, end_s: float, what: str, **detail) -> None:
        pass


class TimelineRecorder:
    """Keeps every span; ``window`` limits recording to spans that start
    in a time interval."""

    enabled = True

    def __init__(self, window: tuple[float, float] | None = None):
        self.window = window
        self.spans: list[Span] = []

    def record(self, node: int, resource: str, start_s: float, end_s: float, what: str, **detail) -> None:
        if self.window is not None and not (self.window[0] <= start_s < self.window[1]):
            return
        self.spans.append(Span(int(node), resource, float(start_s), float(end_s), what, dict(detail)))

    def records(self) -> list[dict]:
        return [span.as_dict() for span in self.spans]

    def busy(self, node: int, what: str) -> float:
        """Total duration of ``what`` spans of ``node``."""
        return sum(s.duration_s for s in self.spans if s.node == node and s.what == what)


NULL_RECORDER = NullRecorder()
