"""What one cp2d level costs a node, as pure functions of its counts.

Bitmaps (what thrashes the L2)
    Node (r, c) holds In, the frontier of its column's range (n/C bits),
    and Out and Vis over its row's set (n/R bits each): a working set of
    ``(n/C + 2 n/R) / 8`` bytes, which grows as |V|/sqrt(N) under weak
    scaling. A random bitmap access hits the L2 as often as the bitmaps
    keep their share of it against the parents, the open packets and the
    streamed adjacency (cp1d/pricing.py).

Compute (cp1d's operation costs and thread model)
    Operations are charged ``cp1d.cycles``: index_word per received bitmap
    word, vertex_header per frontier-vertex lookup, edge_entry per stored
    entry read, bitmap_test per entry tested, pack per id or pair packed,
    unpack per id or pair received, claim per vertex claimed. The node's
    ``cp1d.threads`` share its cores; an operation with ``L`` cycles of
    random-access latency costs ``max(issue + L, k x issue)`` cycles of one
    thread, k threads sharing a core: the formula of
    :func:`simbfs.algorithms.cp1d.pricing.op_cycles`, with this code's own
    structures sharing the L2 under each phase's mix. The work is spread
    evenly over the threads, and a phase lasts at least as long as main
    memory needs for its streams and its cache misses
    (:func:`simbfs.algorithms.cp1d.pricing.memory_seconds`).

A level has three phases of compute, each ended by a collective: pack
(before the expand), scan (between the expand and the fold) and receive
(after the fold). The executed run calls :func:`price_level` with every
node's counts; the projection with the typical and the busiest node's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...machine.model import Machine
from ..cp1d.work import require_cp1d
from ..cp1d.pricing import PARENT_BYTES, Residents, memory_seconds, op_cycles, open_packet_bytes
from .work import Counts


def bitmap_working_set_bytes(num_vertices: int, rows: int, cols: int) -> float:
    """Bytes of one node's bitmaps: In over its column's n/C vertices, Out
    and Vis over its row's n/R vertices."""
    return (num_vertices / cols + 2 * num_vertices / rows) / 8


def residents(machine: Machine, num_vertices: int, rows: int, cols: int, local_vertices: float) -> Residents:
    """A node's randomly accessed structures: its bitmaps, its parents, and
    the open packets of the fold to the other nodes of its grid row."""
    cp = require_cp1d(machine)
    return Residents(bitmaps=bitmap_working_set_bytes(num_vertices, rows, cols),
                     parents=PARENT_BYTES * local_vertices,
                     buffers=open_packet_bytes(machine, cols - 1, cp.threads, channels=1) if cols > 1 else 0.0)


def pairs_per_packet(machine: Machine) -> int:
    """Uncompressed (vertex, parent) pairs in one fold packet."""
    return math.floor(machine.network.packet_payload_bytes / machine.section("cp1d").uncompressed_entry_bytes)


def phase_seconds(machine: Machine, residents: Residents, threads: int, ops: dict):
    """A node's time in one phase of a level: its operations (``ops``, name
    -> count, scalars or per-node arrays) at the cycles cp1d's pricing gives
    under this phase's mix, spread over its threads, or its memory traffic
    at the memory bandwidth if that takes longer (no compression in this
    code)."""
    cp = require_cp1d(machine)
    costs = op_cycles(machine, cp.threads, residents, ops, compression=False)
    cycles = sum(counts * costs[name] for name, counts in ops.items())
    cpu = cycles / threads / machine.node.clock_hz
    return np.maximum(cpu, memory_seconds(machine, residents, ops))


def scan_operations(unpacked_ids, index_words, frontier_headers, entries, packed) -> dict:
    """The scan phase's operations: set In bits from the received frontier
    ids (or test the received bitmaps' words), visit each column frontier
    vertex's header, read and test each adjacency entry, pack each Out pair
    that goes to another node."""
    return {"unpack": unpacked_ids, "index_word": index_words, "vertex_header": frontier_headers,
            "edge_entry": entries, "bitmap_test": entries, "pack": packed}


@dataclass(frozen=True)
class LevelPrice:
    """One level's compute, for every node (arrays) or one (scalars). A
    node only computes between its collectives: its busy time is all
    compute."""

    pack_s: object  # before the expand
    scan_s: object  # between expand and fold
    receive_s: object  # after the fold

    @property
    def busy_s(self):
        return self.pack_s + self.scan_s + self.receive_s

    def bottleneck(self, expand: tuple[float, str], fold: tuple[float, str]) -> str:
        """The level's largest term: the busiest node's compute, or one of
        the exchanges, each given as (seconds, its own bottleneck)."""
        terms = {"compute": (float(np.max(self.busy_s)), "compute"), "expand": expand, "fold": fold}
        largest = max(terms.values(), key=lambda t: t[0])
        return largest[1] if largest[0] > 0 else "none"


def price_level(machine: Machine, residents: Residents, threads: int, counts: Counts) -> LevelPrice:
    """The three phases of a level on ``threads`` threads of a node whose
    random accesses go to ``residents``."""
    c = counts
    return LevelPrice(
        pack_s=phase_seconds(machine, residents, threads, {"pack": c.frontier_ids}),
        scan_s=phase_seconds(machine, residents, threads, scan_operations(
            c.unpacked_ids, c.index_words, c.frontier_headers, c.entries, c.pairs_packed)),
        receive_s=phase_seconds(machine, residents, threads, {"unpack": c.pairs_received, "claim": c.claimed}),
    )
