"""Flat result records: one per BFS level, one per root.

They serialise to JSON and load into a table without custom code
(``pandas.DataFrame(doc["levels"])``). Times are simulated seconds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass
class LevelRecord:
    """One BFS level of one root, summed over all nodes.

    ``messages`` counts network packets of point-to-point exchanges and
    ``bytes`` their payload; data moved by collectives (the frontier bitmap
    of a bottom-up level, say) is ``collective_bytes``: the bytes all nodes
    receive together. ``bottleneck`` names what bounds the level: for a bulk exchange,
    the largest term of its cost (``injection``, ``ejection``, ``link``,
    ``overhead``, ``latency``; ``none`` without one); for the Cell's DMA
    pipelines, ``compute`` or ``dma`` (the SPEs' stall on transfers).

    ``edges_sent`` counts the edges carried by those packets (``bytes /
    edges_sent`` is the paper's Fig. 8 metric) and ``backward_messages`` the
    packets on the bottom-up probe channel. The cp1d-* algorithms also
    break a level into ``scan_s`` (the busiest thread's sweep and packing,
    mean over nodes), ``receive_s`` (its decoding and claiming) and
    ``flush_s`` (from a node's last computation to its last packet
    delivered), as in the paper's Fig. 13; the three overlap.

    ``time_s = compute_s + communication_s + synchronisation_s``, where
    compute is the mean over nodes of their busy time, communication the
    priced collectives and exchanges, and synchronisation the rest: time
    nodes spent waiting for the slowest one.
    """

    root: int
    level: int
    direction: str
    frontier_vertices: int
    edges_examined: int
    messages: int
    bytes: int  # whole bytes (a projection's expected payload rounded to the nearest byte)
    time_s: float
    compute_s: float
    communication_s: float
    synchronisation_s: float
    compute_max_s: float = 0.0
    bottleneck: str = "none"
    collective_bytes: int = 0
    edges_sent: int = 0
    backward_messages: int = 0
    scan_s: float = 0.0
    receive_s: float = 0.0
    flush_s: float = 0.0

    @classmethod
    def with_rest_as_synchronisation(cls, *, time_s: float, compute_s: float, communication_s: float,
                                     **fields) -> "LevelRecord":
        """The record whose synchronisation is what the level's time leaves
        after compute and communication (round-off below 1e-9 of the level
        is zero), so that the three add up by construction."""
        return cls(time_s=time_s, compute_s=compute_s, communication_s=communication_s,
                   synchronisation_s=without_rounding_noise(time_s - compute_s - communication_s, time_s),
                   **fields)

    def as_dict(self) -> dict:
        """The record as JSON-ready values; byte counts are whole numbers."""
        out = asdict(self)
        for key in ("bytes", "collective_bytes"):
            out[key] = int(round(out[key]))
        return out


def without_rounding_noise(value: float, scale: float) -> float:
    """``value``, or 0.0 when it is float round-off relative to ``scale``
    (a level's synchronisation time computed as a difference)."""
    return 0.0 if value < 1e-9 * scale else value


@dataclass
class RootRun:
    """What an algorithm returns for one root."""

    root: int
    parent: np.ndarray
    time_s: float
    levels: list[LevelRecord] = field(default_factory=list)


@dataclass
class RootRecord:
    root: int
    edges: int
    time_s: float
    teps: float
    valid: bool | None  # None when validation was skipped
    levels: int
    validation_failures: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)
