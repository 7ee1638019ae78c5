"""The data layout of Checconi & Petrini's 1D BFS: what does not change
between roots.

Layout (II-B, II-D, II-E, III-A)
    Vertex v belongs to node ``v * N // n``. Each node's adjacency is split
    among its T threads by the neighbour's id: thread j holds the entries
    whose neighbour lies in ``[j n / T, (j + 1) n / T)`` (the blocks A_ij of
    the paper's Fig. 2a), so different threads talk to different nodes. The
    LB highest-degree vertices H (Algorithm 4) do not follow the 1D
    distribution: the entry (u, v) of a heavy u is stored at the owner of v,
    and an edge to a heavy neighbour is checked against the replicated
    In^H/Vis^H bitmaps, so no heavy edge ever becomes a message.

Representations (II-D, IV-E)
    ``coarse-index``: one index word per 64 local vertices lets a sweep skip
    64 vertices whose bits are all clear; ``skip-list``: the sweep visits
    every source-vertex header; ``edge-list``: every stored (u, v) pair is
    read every level. The layout keeps the sizes each needs (headers per
    node, headers before each vertex, light entries per node); work.scan_ops
    charges the sweep.
"""

from __future__ import annotations

import numpy as np

from ...bfs.partition import BlockLayout, block_owner, scaled_floor
from ...graph import Graph

HEAVY_SHARE_LIMIT = 1024  # at most one heavy vertex per this many vertices


# Adjacency entries whose thread blocks are found at once: bounds the
# temporaries of a large graph (a slice id and a flag per entry) to a few
# tens of MB instead of 5 bytes per entry of the whole graph.
ENTRY_BATCH = 1 << 23


def thread_blocks(graph: Graph, threads: int) -> np.ndarray:
    """Per vertex, the thread blocks its adjacency has entries in (its
    neighbours are sorted, so a block is a run of entries), rows taken in
    batches of about ENTRY_BATCH entries."""
    n, indptr, indices = graph.num_vertices, graph.indptr, graph.indices
    blocks = np.zeros(n, dtype=np.int32 if threads < 2**31 else np.int64)  # at most T per vertex
    bounds = np.unique(np.append(np.searchsorted(indptr, np.arange(0, indptr[-1], ENTRY_BATCH), side="right") - 1, n))
    for first, last in zip(bounds[:-1], bounds[1:]):
        begin, end = int(indptr[first]), int(indptr[last])
        if begin == end:
            continue
        slices = scaled_floor(indices[begin:end], threads, n)
        change = np.ones(end - begin, dtype=bool)
        change[1:] = slices[1:] != slices[:-1]
        rows = np.flatnonzero(np.diff(indptr[first:last + 1]) > 0) + first
        row_starts = indptr[rows] - begin
        change[row_starts] = True
        blocks[rows] = np.add.reduceat(change, row_starts)
    return blocks


class Layout(BlockLayout):
    """What does not change between roots: owners, thread slices, heavy set,
    per-node structure sizes."""

    def __init__(self, graph: Graph, nodes: int, threads: int, heavy_count: int, index_stride: int,
                 share_limit: int | None = HEAVY_SHARE_LIMIT):
        super().__init__(graph, nodes)
        n = self.n
        self.T = threads
        # LB is sized for the paper's graphs (2^34 and more vertices); on the
        # small graphs executed here it is capped at n / 1024 so that the
        # 1D distribution still holds almost every vertex. (A projection
        # sets its own heavy count, matched to the target: share_limit None.)
        if share_limit:
            heavy_count = min(heavy_count, n // share_limit)
        heavy_count = min(heavy_count, int(np.count_nonzero(self.degree)))
        self.heavy = np.zeros(n, dtype=bool)
        if heavy_count:
            order = np.lexsort((np.arange(n), -self.degree))
            self.heavy[order[:heavy_count]] = True
        self.heavy_count = heavy_count
        self.index_stride = index_stride
        # Headers: one per (vertex, thread block it has entries in).
        self.blocks_of = thread_blocks(graph, threads)
        light = ~self.heavy
        self.light_entries_per_node = self.per_node(np.flatnonzero(light), self.degree[light])
        self.headers_per_node = self.per_node(np.flatnonzero(light), self.blocks_of[light])
        # headers of light vertices before vertex v: a coarse-index sweep's
        # headers in any vertex range, by difference
        # (32-bit while the headers fit: one value per vertex, 64 MB at scale 24)
        light_blocks = np.where(self.heavy, 0, self.blocks_of)
        narrow = np.int32 if int(light_blocks.sum(dtype=np.int64)) < 2**31 else np.int64
        self.headers_before = np.zeros(n + 1, dtype=narrow)
        np.cumsum(light_blocks, dtype=narrow, out=self.headers_before[1:])

    def owner(self, vertices: np.ndarray) -> np.ndarray:
        return block_owner(vertices, self.n, self.N)

    def slice_of(self, vertices: np.ndarray) -> np.ndarray:
        return scaled_floor(vertices, self.T, self.n)

    def local_thread(self, vertices: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """The thread of node ``ranks`` whose share of the node's own vertex
        range holds each vertex (for work on local vertices: claims, heavy
        edges stored at the owner of the other end)."""
        return (vertices - self.starts[ranks]) * self.T // np.maximum(self.local_vertices[ranks], 1)

    def per_node(self, vertices: np.ndarray, weights=None) -> np.ndarray:
        return np.bincount(self.owner(vertices), weights=weights, minlength=self.N).astype(np.float64)

    def sweep_position(self, vertices: np.ndarray, thread: np.ndarray, ranks: np.ndarray,
                       members: np.ndarray | None = None, member_index: np.ndarray | None = None) -> np.ndarray:
        """Where in [0, 1) of its sweep thread ``thread`` of node ``ranks``
        reaches each vertex. Thread j starts at the j/T point of the node's
        vertex range and wraps around (the paper's staggered starts). With
        ``members`` (a sorted vertex set) and each vertex's index in it, the
        sweep walks only those."""
        from . import kernels  # here: numba loads only for the runs that use it
        if members is None:
            base, span, index = self.starts[:-1], self.local_vertices, vertices
        else:
            bounds = np.searchsorted(members, self.starts)
            base, span, index = bounds[:-1], np.maximum(np.diff(bounds), 1), member_index
        return kernels.sweep_positions(np.asarray(index, dtype=np.int64), np.asarray(ranks, dtype=np.int64),
                                       np.asarray(thread, dtype=np.int64), base, span, self.T)
