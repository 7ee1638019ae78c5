"""Timeline traces: a run in the Trace Event Format that Perfetto
(https://ui.perfetto.dev) and chrome://tracing open (`simbfs run --trace`).

An executed run is recorded by :class:`TraceRecorder`, the timeline
recorder of engine/recorder.py with three additions: the roots run one
after another on the trace (each root's BFS starts where the previous one
ended, so the trace spans exactly the sum of the roots' times), and only
the chosen nodes and levels are kept. :func:`trace_document` turns its
spans into the format:

* one process per simulated node (``node 3``; on a machine whose nodes are
  MPI processes sharing hosts, ``process 3 (host 1)``), and one thread per
  resource the algorithm reports (cores ``cpu``, ``nic``, ``collective``,
  ``dma``, CPE clusters and MPEs, ``gpu``, ``pcie d2h``/``h2d``,
  ``network``, ...);
* a complete event (``ph: X``) per span, named by what it did, with its
  level and direction in ``args``;
* a process ``run`` with counters per level (the frontier's vertices, the
  bytes sent), a counter of the bytes in flight on the traced nodes (each
  exchange, alltoallv or DMA span that says how many bytes it moves holds
  them from its start to its end; network and DMA as two series), and an
  instant event where each root starts.

A projected run has no spans (nothing ran): its trace has one process, the
*representative (busiest) node, projected*, with each level's compute,
communication and synchronisation one after another, from the level
records, and says so in its name.

Large runs stay usable: by default at most :data:`DEFAULT_NODES` nodes are
kept (the first ones), and :data:`MAX_EVENTS` events in all (about 100 MB
of JSON); ``--trace-nodes`` and ``--trace-levels`` choose others. What was
left out is said in the trace's ``otherData`` and on stderr.
"""

from __future__ import annotations

from .engine.recorder import Span, TimelineRecorder
from .errors import UserError

DEFAULT_NODES = 64
MAX_EVENTS = 500_000  # about 200 B of JSON each: about 100 MB
RUN_PROCESS = "run"


def parse_selection(text: str | None, what: str) -> frozenset[int] | None:
    """``"0-3,8"`` -> {0, 1, 2, 3, 8}; None or "all" -> None (everything)."""
    if text is None or text.strip() == "all":
        return None
    chosen = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        try:
            low = int(first)
            high = int(last) if dash else low
        except ValueError:
            raise UserError(f"--trace-{what} {text!r}: write numbers and ranges such as 0-3,8 (or 'all')") from None
        if low < 0 or high < low:
            raise UserError(f"--trace-{what} {text!r}: {part.strip()!r} is not a range of non-negative numbers "
                            f"(low-high with low <= high)")
        chosen.update(range(low, high + 1))
    return frozenset(chosen)


class TraceRecorder(TimelineRecorder):
    """Records the spans of ``nodes`` (None: the first DEFAULT_NODES) and
    ``levels`` (None: all), each root shifted to start where the previous
    one ended (the runner calls :meth:`begin_root`)."""

    def __init__(self, nodes: frozenset[int] | None = None, levels: frozenset[int] | None = None):
        super().__init__()
        self.nodes = nodes
        self.levels = levels
        self.offset_s = 0.0
        self.root_starts: list[tuple[int, float]] = []

    def begin_root(self, root: int, offset_s: float) -> None:
        self.offset_s = offset_s
        self.root_starts.append((root, offset_s))

    def check_nodes(self, nodes: int) -> None:
        if self.nodes is None:
            return
        outside = [node for node in self.nodes if node >= nodes]
        if outside:
            raise UserError(f"--trace-nodes asks for node {min(outside):,}, but the run has {nodes:,} nodes, "
                            f"numbered 0-{nodes - 1:,}; choose nodes in that range (or 'all')")

    def keeps(self, node: int) -> bool:
        return node < DEFAULT_NODES if self.nodes is None else node in self.nodes

    def record(self, node: int, resource: str, start_s: float, end_s: float, what: str, **detail) -> None:
        if not self.keeps(int(node)):
            return
        if self.levels is not None and detail.get("level") is not None and int(detail["level"]) not in self.levels:
            return
        self.spans.append(Span(int(node), resource, float(start_s) + self.offset_s, float(end_s) + self.offset_s,
                               what, dict(detail)))


def _us(seconds: float) -> float:
    return round(seconds * 1e6, 6)


def _json_value(value):
    return value if isinstance(value, (int, float, str, bool)) or value is None else str(value)


def _level_starts(doc: dict):
    """(root, level record, start time) of every level, the roots one after
    another in the order they ran."""
    by_root: dict = {}
    for level in doc["levels"]:
        by_root.setdefault(level["root"], []).append(level)
    start = 0.0
    for root in doc["roots"]:
        clock = start
        for level in by_root.get(root["root"], []):
            yield root["root"], level, clock
            clock += level["time_s"]
        start += root["time_s"]


def _bytes_in_flight(spans, pid: int) -> list[dict]:
    """A counter of the bytes in flight on the traced nodes: every span that
    moves bytes (an exchange or alltoallv on the network, a DMA) holds its
    bytes from its start to its end; network and DMA are two series."""
    changes: dict[float, dict[str, float]] = {}
    for span in spans:
        moved = span.detail.get("bytes")
        if not moved or span.end_s <= span.start_s:
            continue
        series = "dma" if span.resource == "dma" else "network"
        for time_s, sign in ((span.start_s, 1.0), (span.end_s, -1.0)):
            step = changes.setdefault(time_s, {"network": 0.0, "dma": 0.0})
            step[series] += sign * float(moved)
    events, level = [], {"network": 0.0, "dma": 0.0}
    for time_s in sorted(changes):
        for series, delta in changes[time_s].items():
            level[series] = max(level[series] + delta, 0.0)  # round-off must not show as negative bytes
        events.append({"name": "bytes in flight", "ph": "C", "ts": _us(time_s), "pid": pid,
                       "args": {"network": level["network"], "dma": level["dma"]}})
    return events


def trace_document(doc: dict, recorder: TraceRecorder | None, processes_per_host: int = 1) -> tuple[dict, list[str]]:
    """The Trace Event Format document of a run, and notes on what it left
    out. ``recorder``: the executed run's (None for a projection)."""
    events: list[dict] = []
    notes: list[str] = []
    nodes = doc["nodes"]
    run_pid = nodes  # after every node's pid
    projected = doc["mode"] == "projected"
    spans = [] if recorder is None else recorder.spans
    if not projected and recorder is not None:
        if recorder.nodes is None and nodes > DEFAULT_NODES:
            notes.append(f"nodes 0-{DEFAULT_NODES - 1} of {nodes} traced (the default); choose others with "
                         f"--trace-nodes, e.g. --trace-nodes 0-3,{nodes - 1}")
        if len(spans) > MAX_EVENTS:
            spans = sorted(spans, key=lambda s: (s.node, s.start_s))[:MAX_EVENTS]
            last = spans[-1].node
            spans = [s for s in spans if s.node < last]
            notes.append(f"the trace keeps its first {MAX_EVENTS:,} events (nodes below {last}, about 100 MB); "
                         f"narrow it with --trace-nodes or --trace-levels")
    if projected:
        pid = 0
        events.append({"name": "process_name", "ph": "M", "pid": pid,
                       "args": {"name": "representative (busiest) node, PROJECTED"}})
        for tid, part in enumerate(("compute", "communication", "synchronisation")):
            events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": part}})
        for root, level, start in _level_starts(doc):
            clock = start
            for tid, part in enumerate(("compute", "communication", "synchronisation")):
                seconds = level[f"{part}_s"]
                if seconds > 0:
                    events.append({"name": f"level {level['level']} {level['direction']} {part}", "cat": part,
                                   "ph": "X", "ts": _us(clock), "dur": _us(seconds), "pid": pid, "tid": tid,
                                   "args": {"root": root, "level": level["level"], "direction": level["direction"]}})
                clock += seconds
    else:
        resources = sorted({s.resource for s in spans})
        tids = {resource: i for i, resource in enumerate(resources)}
        for node in sorted({s.node for s in spans}):
            name = (f"process {node} (host {node // processes_per_host})" if processes_per_host > 1
                    else f"node {node}")
            events.append({"name": "process_name", "ph": "M", "pid": node, "args": {"name": name}})
            events.append({"name": "process_sort_index", "ph": "M", "pid": node, "args": {"sort_index": node}})
            for resource in sorted({s.resource for s in spans if s.node == node}):
                events.append({"name": "thread_name", "ph": "M", "pid": node, "tid": tids[resource],
                               "args": {"name": resource}})
        for span in spans:
            events.append({"name": span.what, "cat": span.resource, "ph": "X", "ts": _us(span.start_s),
                           "dur": _us(span.end_s - span.start_s), "pid": span.node, "tid": tids[span.resource],
                           "args": {key: _json_value(value) for key, value in span.detail.items()}})
    events.append({"name": "process_name", "ph": "M", "pid": run_pid, "args": {"name": RUN_PROCESS}})
    events.append({"name": "process_sort_index", "ph": "M", "pid": run_pid, "args": {"sort_index": -1}})
    start = 0.0
    for root in doc["roots"]:
        events.append({"name": f"root {root['root']}", "ph": "i", "s": "g", "ts": _us(start), "pid": run_pid,
                       "tid": 0, "args": {"root": root["root"], "time_s": root["time_s"]}})
        start += root["time_s"]
    for root, level, clock in _level_starts(doc):
        events.append({"name": "frontier", "ph": "C", "ts": _us(clock), "pid": run_pid,
                       "args": {"vertices": level["frontier_vertices"]}})
        events.append({"name": "bytes sent", "ph": "C", "ts": _us(clock), "pid": run_pid,
                       "args": {"bytes": level["bytes"]}})
    events.extend(_bytes_in_flight(spans, run_pid))
    other = {"machine": doc["machine"], "algorithm": doc["algorithm"], "mode": doc["mode"], "nodes": nodes,
             "hosts": doc.get("hosts", nodes), "scale": doc["scale"], "roots": len(doc["roots"]),
             "total_time_s": sum(root["time_s"] for root in doc["roots"]), "simbfs_version": doc["simbfs_version"],
             "notes": notes}
    return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": other}, notes
