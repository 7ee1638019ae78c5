"""Timeline recorders: observe what each simulated node does, never change it.

Every algorithm and device reports its activity as spans: on ``node``, the
``resource`` was busy from ``start_s`` to ``end_s`` doing ``what`` (a short
name such as ``top-down`` or ``alltoallv``), with details (``level``,
bytes, ...). Times are simulated seconds from the start of the root's BFS.
``NULL_RECORDER`` (the default) drops them; :class:`TimelineRecorder` keeps
them for a table, a timeline plot (docs/background/cell-timeline.md) or an
export.

Resources: ``cpu`` (the node's cores, or a Cell SPE's SPU: work, and
``wait`` when idle), ``nic`` (its network port: an ``alltoallv``, or a
cp1d-spi node's ``exchange``), ``collective`` (``allreduce``,
``allgather``, ``barrier``), ``dma`` (a DMA engine's commands), and
``node`` (cp1d-spi's overlapped ``busy`` time of a level).

Recording is a plain method call made after the span's timing is fixed, so
a run with a recorder has exactly the timing of a run without one (tested
for every algorithm, tests/test_engine_recorder.py).

Every executed algorithm also hands each finished level's record to
``level_done``, which the runner's progress display watches
(:class:`LevelWatcher`): it shows the levels of a long root as they end.

Who reports what:

* the collectives (engine/collectives.py), for every rank: the work done
  before arriving, named by the caller (bsp1d ``top-down``, ``claim``,
  ``bottom-up``; cp1d-mpi ``<direction> count``, ``<direction> pack``,
  ``claim``; cp2d ``pack``, ``scan``, ``claim``), the ``wait`` for the last
  rank, and the operation. In these bulk-synchronous codes a node's spans
  tile its whole run.
* cp1d-spi: per level, the threads' work on ``cpu`` (named by direction),
  the port's ``exchange`` on ``nic`` and the level's ``busy`` on ``node``,
  all from the level's start (they overlap: the level lasts the longest of
  them plus the drain), then the collectives' spans.
* cell-*: SPU steps ``dispatch``, ``bitmap``, ``*-issue`` (DMA set-up) and
  ``wait`` on ``cpu``; DMA commands ``fetch``, ``gather``, ``alltoall``,
  ``commit`` on ``dma``; the collectives' waits and operations.
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

    def begin_root(self, root: int, offset_s: float) -> None:
        """The runner starts a root's BFS; ``offset_s`` is the sum of the
        earlier roots' times (a trace puts the roots one after another)."""

    def level_done(self, record) -> None:
        """A level of the root's BFS has ended; ``record`` is its
        :class:`~simbfs.records.LevelRecord`, as the result will hold it."""

    def check_nodes(self, nodes: int) -> None:
        """The run will simulate ``nodes`` nodes: raise a UserError, before
        any work, if what the recorder was asked to keep cannot exist."""


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

    def begin_root(self, root: int, offset_s: float) -> None:
        """Times stay relative to each root's start (see simbfs/trace.py for
        a recorder that puts the roots one after another)."""

    def level_done(self, record) -> None:
        pass

    def check_nodes(self, nodes: int) -> None:
        pass

    def records(self) -> list[dict]:
        return [span.as_dict() for span in self.spans]

    def busy(self, node: int, what: str) -> float:
        """Total duration of ``what`` spans of ``node``."""
        return sum(s.duration_s for s in self.spans if s.node == node and s.what == what)


NULL_RECORDER = NullRecorder()


class LevelWatcher:
    """Passes everything to ``inner`` (a recorder, which alone decides
    whether spans are built: ``enabled`` is its), and calls ``on_level``
    with each finished level's record: how the runner shows progress
    inside a root without recording anything."""

    def __init__(self, inner, on_level):
        self.inner = inner
        self.on_level = on_level
        self.enabled = inner.enabled

    def record(self, node: int, resource: str, start_s: float, end_s: float, what: str, **detail) -> None:
        self.inner.record(node, resource, start_s, end_s, what, **detail)

    def begin_root(self, root: int, offset_s: float) -> None:
        self.inner.begin_root(root, offset_s)

    def level_done(self, record) -> None:
        self.inner.level_done(record)
        self.on_level(record)
