"""Timeline recorders: observe what each simulated unit does, never change it.

The engine and the algorithms report spans - (start time, unit, kind,
duration, details) - to a recorder. ``NULL_RECORDER`` (the default) drops
them; :class:`TimelineRecorder` keeps them as flat records for a table or a
timeline plot (docs/background/cell-timeline.md). Recording is a plain
method call made after the span's timing is fixed, so a run with a recorder
has exactly the timing of a run without one.

Kinds used by the Cell algorithms: ``fetch``, ``gather``, ``alltoall``,
``commit`` (DMA commands, from issue to completion), ``dispatch``,
``bitmap`` (SPU computation), ``wait`` (the SPU idle, waiting for a DMA,
a guard or a barrier) and ``sync`` (a barrier or allreduce).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Span:
    time_s: float
    unit: int
    kind: str
    duration_s: float
    detail: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        out = asdict(self)
        detail = out.pop("detail")
        out.update(detail)
        return out


class NullRecorder:
    """Records nothing."""

    enabled = False

    def record(self, time_s: float, unit: int, kind: str, duration_s: float, **detail) -> None:
        pass


class TimelineRecorder:
    """Keeps every span; ``window`` limits recording to a time interval."""

    enabled = True

    def __init__(self, window: tuple[float, float] | None = None):
        self.window = window
        self.spans: list[Span] = []

    def record(self, time_s: float, unit: int, kind: str, duration_s: float, **detail) -> None:
        if self.window is not None and not (self.window[0] <= time_s < self.window[1]):
            return
        self.spans.append(Span(float(time_s), int(unit), kind, float(duration_s), dict(detail)))

    def records(self) -> list[dict]:
        return [span.as_dict() for span in self.spans]

    def busy(self, unit: int, kind: str) -> float:
        """Total duration of ``kind`` spans of ``unit``."""
        return sum(s.duration_s for s in self.spans if s.unit == unit and s.kind == kind)


NULL_RECORDER = NullRecorder()
