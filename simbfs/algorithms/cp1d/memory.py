"""What one node of Checconi & Petrini's codes holds in memory, structure by
structure, as the layout (layout.Layout) allocates it.

docs/background/cp1d.md ("Memory") explains each term. In short, per node
of N, for a graph of n vertices:

* **adjacency**: one ``adjacency_entry`` per stored neighbour. The graph is
  simple (duplicate tuples and self-loops are dropped when it is built), so
  a Kronecker graph stores n x E[simple degree] entries, not 2 x the
  generated tuples (4% fewer at scale 24);
* **headers**: one ``vertex_header`` per (vertex, thread block it has
  entries in): a vertex's neighbours fall in T (1 - exp(-Lambda/T)) of the
  T threads' id ranges (kronecker_theory.mean_thread_blocks): at scale 24
  with 64 threads, 12.7 per vertex with an edge (53% of the vertices have
  one), so 6.7 per vertex, against 31 entries. On a uniform graph, the
  Poisson form T (1 - exp(-d/T)) of its mean degree d;
* **index**: one 64-bit word per ``index_stride`` local vertices;
* **building**: the generated tuples (``edge_tuple`` each) while the
  structure is built from them;
* **visit**: parents (8 B per local vertex), three bitmaps (In, Out, Vis),
  and the communication buffers: for the SPI code an open packet and
  ``in_flight`` more per destination; for the MPI code the outgoing and the
  incoming all-to-all buffers of a level that sends every local entry, at
  the long compressed format (IV-B: "the final all-to-all [stores] at the
  same time the incoming and the outgoing messages").

Peak = adjacency + headers + index + max(building, visit).

The estimate counts these data structures only. Its closed forms are
within 3% of the layout built here (tests/test_cp1d_memory.py); it
leaves out the compute node kernel, the MPI library and allocator slack,
which on BlueGene/Q take little ("nearly the full 16 GB of physical memory
is dedicated to application usage": IBM Redbook SG24-7948, Blue Gene/Q
Application Development, ch. 3). So it is stated to within
``MEMORY_UNCERTAINTY`` (5%): the runner refuses a run whose estimate exceeds
a node's memory by more, and warns about one within it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...graph.kronecker_theory import degree_moments, header_line_bytes, record_line_bytes, thread_blocks_per_vertex

MEMORY_UNCERTAINTY = 0.05
BITMAPS = 3  # In, Out and Vis: one bit per local vertex each
PARENT_BYTES = 8
INDEX_WORD_BYTES = 8


@dataclass(frozen=True)
class NodeMemory:
    """Bytes one node holds, by structure (module docstring)."""

    adjacency: float
    headers: float
    index: float
    building: float
    parents: float
    bitmaps: float
    buffers: float

    @property
    def structure(self) -> float:
        return self.adjacency + self.headers + self.index

    @property
    def visit(self) -> float:
        return self.parents + self.bitmaps + self.buffers

    @property
    def peak(self) -> float:
        return self.structure + max(self.building, self.visit)


def _kronecker(num_vertices: int, num_directed_edges: float, graph_kind: str) -> tuple[int, int] | None:
    """(scale, edgefactor) of a Kronecker graph, for its closed forms; None otherwise."""
    scale = num_vertices.bit_length() - 1
    if graph_kind != "kronecker" or num_vertices != 1 << scale or scale < 1:
        return None
    return scale, max(1, round(num_directed_edges / (2 * num_vertices)))


def stored_entries(num_vertices: int, num_directed_edges: float, graph_kind: str = "kronecker") -> float:
    """Adjacency entries of the simple graph: for a Kronecker graph its
    closed-form mean simple degree times n; otherwise every directed edge
    (a uniform graph has few duplicates)."""
    kronecker = _kronecker(num_vertices, num_directed_edges, graph_kind)
    if kronecker is None:
        return float(num_directed_edges)
    return num_vertices * degree_moments(*kronecker).mean


def header_count(num_vertices: int, num_directed_edges: float, threads: int, graph_kind: str = "kronecker") -> float:
    """(Vertex, thread block) headers of the whole graph."""
    kronecker = _kronecker(num_vertices, num_directed_edges, graph_kind)
    if kronecker is None:  # Poisson degrees around the mean
        mean = num_directed_edges / max(num_vertices, 1)
        return num_vertices * threads * -math.expm1(-mean / threads)
    scale, edgefactor = kronecker
    return num_vertices * thread_blocks_per_vertex(scale, threads, edgefactor)


def header_traffic(machine, num_vertices: int, num_directed_edges: float, threads: int,
                   graph_kind: str = "kronecker") -> float:
    """Bytes a header read pulls from main memory when the sweep does not go
    on to the entries after it (kronecker_theory.record_line_bytes): the
    layout stores each source's header before its neighbours (000, II-D:
    "each source vertex is stored once, and is followed by its
    neighbors"), so headers share lines with entries. A uniform graph's
    records: Poisson entries around the mean degree over the blocks."""
    cp, line = machine.section("cp1d"), machine.node.memory_hierarchy.cache_line_bytes
    kronecker = _kronecker(num_vertices, num_directed_edges, graph_kind)
    if kronecker is None:
        mean = num_directed_edges / max(num_vertices, 1)
        return record_line_bytes([1.0], [mean / threads], line, cp.vertex_header_bytes, cp.adjacency_entry_bytes)
    scale, edgefactor = kronecker
    return header_line_bytes(scale, threads, line, cp.vertex_header_bytes, cp.adjacency_entry_bytes, edgefactor)


def node_memory(machine, num_vertices: int, num_directed_edges: float, nodes: int, messaging: str,
                graph_kind: str = "kronecker") -> NodeMemory:
    """The mean node's memory for the ``spi`` or ``mpi`` code."""
    cp = machine.section("cp1d")
    local_v = -(-num_vertices // nodes)
    entries = stored_entries(num_vertices, num_directed_edges, graph_kind) / nodes
    if messaging == "spi":
        buffers = nodes * (1 + cp.in_flight) * machine.network.packet_payload_bytes
    else:  # outgoing and incoming all-to-all buffers of a level sending every entry
        buffers = 2 * entries * max(cp.compressed_long_bytes, cp.uncompressed_entry_bytes)
    return NodeMemory(
        adjacency=entries * cp.adjacency_entry_bytes,
        headers=header_count(num_vertices, num_directed_edges, cp.threads, graph_kind) / nodes
        * cp.vertex_header_bytes,
        index=math.ceil(local_v / cp.index_stride) * INDEX_WORD_BYTES,
        building=num_directed_edges / 2 / nodes * cp.edge_tuple_bytes,
        parents=local_v * PARENT_BYTES,
        bitmaps=BITMAPS * local_v / 8,
        buffers=buffers,
    )
