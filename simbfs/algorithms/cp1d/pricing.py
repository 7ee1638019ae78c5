"""What one node's threads pay for Checconi & Petrini's operations: cycles
per operation and main-memory time, as pure functions of the node's
operation counts.

Both codes of this package and cp2d price with these functions: an executed
run with every node's counts, a projection with its virtual nodes' counts
grown to the target. The model (docs/background/cp1d.md, "Per-node costs"):

* **Issue.** An operation issues ``cp1d.cycles.<op>`` instructions on the
  core's one fixed-point pipeline, which the core's hardware threads share
  (A2 User's Manual, D.1: one fixed-point instruction per cycle, from any
  thread).
* **Latency.** Its random accesses (:data:`RANDOM_ACCESSES`) wait the
  load-to-use latency of the L2 on a hit and of DDR on a miss. A thread
  stalls on them; the core's other threads issue meanwhile, so an
  operation costs one thread ``max(issue + latency, k x issue)`` cycles,
  k threads sharing a core.
* **Shared L2.** The structures a level touches at random (bitmaps, parents,
  the open packets) and the data it streams (adjacency entries, headers)
  compete for the node's L2. Each structure's hit rate follows from how
  often the level touches it (``MemoryHierarchy.shared_hit_rates``), so a
  level that streams many entries past few bitmap tests evicts its bitmaps.
* **Memory bandwidth.** Streams and misses move lines from DDR; a level
  lasts at least as long as the node's memory bandwidth needs for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...machine.model import Machine

# Random accesses one operation makes, by structure. A streamed read is
# prefetched and stalls nothing (STREAMED); a store does not stall an
# in-order A2 thread (it goes to the store queue), so appending an edge to
# an open packet is charged for reading the packet's fill count only.
RANDOM_ACCESSES = {
    "index_word": {},
    "vertex_header": {},
    "edge_entry": {},
    "pack": {"buffers": 1},
    "compress": {},
    "unpack": {"bitmaps": 1},
    "bitmap_test": {"bitmaps": 1},
    "claim": {"bitmaps": 1, "parents": 1},
}
# Bytes each operation streams from memory, by the cp1d section's size key.
# Index words are not streamed: every thread sweeps the same words, which
# stay in the L2 (docs/background/cp1d.md).
STREAMED = {"vertex_header": "vertex_header_bytes", "edge_entry": "adjacency_entry_bytes"}
# Lines of an open packet that a stream of appends keeps touching: the one
# holding its fill count and the one its tail is being written into.
OPEN_PACKET_LINES = 2
# Channels with open packets: forward (edges, answers) and backward (probes).
CHANNELS = 2
BITMAPS = 3  # In, Out, Vis over the local vertices (and their heavy copies)
PARENT_BYTES = 8


@dataclass(frozen=True)
class Residents:
    """Bytes of the structures a node's operations access at random."""

    bitmaps: float
    parents: float
    buffers: float
    # bytes a header read pulls from memory when the entries after it are
    # not read (memory.header_traffic); None: the header's own bytes
    header_traffic: float | None = None

    def as_dict(self) -> dict:
        return {"bitmaps": self.bitmaps, "parents": self.parents, "buffers": self.buffers}


def open_packet_bytes(machine: Machine, destinations: float, threads: int, channels: int = CHANNELS) -> float:
    """The hot lines of a node's open packets: one per (thread, destination)
    pair that talks (a thread's slice reaches destinations / threads nodes,
    or threads / destinations threads share one) and channel."""
    line = machine.node.memory_hierarchy.cache_line_bytes
    return channels * max(destinations, threads) * OPEN_PACKET_LINES * line


def cp1d_residents(machine: Machine, local_vertices: float, heavy_count: int, nodes: int,
                   threads: int, header_traffic: float | None = None) -> Residents:
    """A 1D node's structures: its bitmaps (and the replicated heavy ones),
    its parents and its open packets to every other node; and what its
    header reads pull from memory."""
    return Residents(bitmaps=BITMAPS * (local_vertices + heavy_count) / 8,
                     parents=PARENT_BYTES * local_vertices,
                     buffers=open_packet_bytes(machine, nodes - 1, threads) if nodes > 1 else 0.0,
                     header_traffic=header_traffic)


def accesses(counts: dict) -> dict:
    """Random accesses per structure of the operation ``counts``."""
    totals = {"bitmaps": 0.0, "parents": 0.0, "buffers": 0.0}
    for name, count in counts.items():
        for structure, times in RANDOM_ACCESSES[name].items():
            totals[structure] = totals[structure] + count * times
    return totals


def streamed_bytes(machine: Machine, counts: dict, header_traffic: float | None = None):
    """Bytes the operations ``counts`` stream from memory: their own (each
    header and entry read), or, where headers are read without the entries
    after them, the lines those headers pull in (``header_traffic`` per
    header), whichever is more."""
    cp = machine.section("cp1d")
    own = sum(counts[name] * getattr(cp, key) for name, key in STREAMED.items() if name in counts)
    if header_traffic is None or "vertex_header" not in counts:
        return own
    return np.maximum(own, counts["vertex_header"] * header_traffic)


def hit_rates(machine: Machine, residents: Residents, counts: dict) -> dict:
    """Each structure's L2 hit rate under the operation mix ``counts``."""
    return machine.node.memory_hierarchy.shared_hit_rates(residents.as_dict(), accesses(counts),
                                                          streamed_bytes(machine, counts, residents.header_traffic))


def core_sharing(machine: Machine, threads: int) -> int:
    """Threads that share one core's issue slots."""
    node = machine.node
    return min(-(-threads // int(node.cores)), int(node.threads_per_core))


def op_cycles(machine: Machine, threads: int, residents: Residents, counts: dict, compression: bool) -> dict:
    """Cycles one thread spends per operation of each kind, in a phase whose
    node-level operation counts are ``counts`` (scalars, or arrays with one
    entry per node: then so are the costs)."""
    cp = machine.section("cp1d")
    memory = machine.node.memory_hierarchy
    latency = {s: memory.latency_cycles(hit) for s, hit in hit_rates(machine, residents, counts).items()}
    sharing = core_sharing(machine, threads)
    shape = np.broadcast_shapes(*(np.shape(c) for c in counts.values()))
    costs = {}
    for name, touched in RANDOM_ACCESSES.items():
        issue = getattr(cp.cycles, f"{name}_cycles")
        wait = sum((times * latency[s] for s, times in touched.items()), 0.0)
        cost = np.maximum(issue + wait, sharing * issue)
        if name == "compress" and not compression:
            cost = 0.0
        cost = np.broadcast_to(np.asarray(cost, dtype=np.float64), shape)
        costs[name] = float(cost) if cost.ndim == 0 else cost.copy()
    return costs


def memory_seconds(machine: Machine, residents: Residents, counts: dict):
    """The time a node's main memory needs for ``counts``: the streamed
    bytes, and one line for every random access that misses the L2."""
    memory = machine.node.memory_hierarchy
    hits = hit_rates(machine, residents, counts)
    touched = accesses(counts)
    lines = sum(touched[s] * (1.0 - hits[s]) for s in touched)
    return ((streamed_bytes(machine, counts, residents.header_traffic) + lines * memory.cache_line_bytes)
            / machine.node.memory_bandwidth_Bps)
