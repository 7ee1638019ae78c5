"""The work of one cp2d level, counted per node on the real graph.

Processor grid and layout (our choice of the standard 2D layout)
    N = R x C nodes, R = C when N is a square power of two, R = 2C when N
    is twice one; other node counts are refused. Vertex v belongs to node
    ``b(v) = v * N // n`` (contiguous blocks, as in the 1D codes). Node b
    sits at grid row ``b % R`` and grid column ``b // R`` (column-major),
    so grid column c owns the contiguous vertex range of blocks
    ``c R .. c R + R - 1`` (n/C vertices), and grid row r owns the n/R
    vertices of blocks r, R + r, 2R + r, ... Node (r, c) stores the
    adjacency entry (u, v) when u is in column c's range and v in row r's
    set: every entry is stored exactly once, and a long adjacency list is
    split over the R nodes of its column (the balance II-B-2 mentions).

The level's work is computed for all nodes in one compiled pass over the
frontier's lists (kernels.py; runs of whole grid columns on the host's
threads), and counted per node as the operations pricing.py charges. No
time appears here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ...bfs.parallel import balanced_chunks, in_parallel, worker_threads
from ...bfs.partition import block_owner, block_starts, floor_shift
from ...engine.traffic import PairTraffic
from ...errors import UserError
from ...graph import Graph

# Bytes of one frontier vertex in an expand list: a 32-bit id local to its
# block (our assumption; the SC12 format is not in ../shared).
FRONTIER_ID_BYTES = 4
WORD_BYTES = 8


def grid_shape(nodes: int) -> tuple[int, int]:
    """(R, C) of the processor grid: R = C for a square power of two,
    R = 2C for twice one; any other node count cannot form the grid."""
    if nodes < 1 or nodes & (nodes - 1):
        raise UserError(f"cp2d arranges the nodes in an R x C processor grid with R = C or R = 2C, so it needs "
                        f"a power of two of nodes; {nodes} is not one (use e.g. "
                        f"{1 << max(0, nodes.bit_length() - 1)} or {1 << nodes.bit_length()})")
    k = nodes.bit_length() - 1
    cols = 1 << (k // 2)
    return nodes // cols, cols


@dataclass(frozen=True)
class Counts:
    """One level's operations, for every node (arrays) or one (scalars):
    what pricing.price_level charges."""

    frontier_ids: object  # own frontier ids packed for the expand (0 when the block's bitmap is sent)
    unpacked_ids: object  # received frontier ids, each setting an In bit
    index_words: object  # words of received frontier bitmaps, each tested
    frontier_headers: object  # the column's frontier vertices, each looked up in the local index
    entries: object  # stored entries read, each tested against Vis and Out
    pairs_packed: object  # (target, parent) pairs packed for another node of the grid row
    pairs_received: object  # pairs received in the fold
    claimed: object  # vertices claimed


@dataclass(frozen=True)
class LevelWork:
    """One level's counts per node, its traffic and its claims."""

    counts: Counts
    expand: PairTraffic  # the expand's payload bytes, to each node's grid-column peers
    fold_keys: np.ndarray  # holder * N + owner of the fold's pairs of nodes that have pairs, ascending
    fold_pairs: np.ndarray  # their pairs of the fold
    new_vertices: np.ndarray  # ascending
    new_parents: np.ndarray
    edges_examined: int
    edges_sent: int


class Scanner:
    """A root's search on the grid: the nodes' Vis bitmaps and the levels'
    scans. Holds what the compiled scan reads and writes between levels."""

    def __init__(self, graph: Graph, nodes: int, root: int):
        self.graph = graph
        self.n = n = graph.num_vertices
        self.N = nodes
        self.R, self.C = grid_shape(nodes)
        self.local_vertices = np.diff(block_starts(n, nodes))
        ranks = np.arange(nodes)
        self.col_of = ranks // self.R
        # each node's grid-column peers (the expand's receivers), as pair
        # keys sender * N + receiver: N (R - 1) of them, never N x N
        peers = (self.col_of * self.R)[:, None] + np.arange(self.R)[None, :]
        others = peers != ranks[:, None]
        self.expand_keys = (ranks[:, None] * nodes + peers)[others]
        # Vis of every node over its row's set, as bits of key c * stride + v
        # (node (row(v), c)): set for the vertices it sent or claimed. Column
        # first, because the scan reads the frontier in ascending order, so
        # its grid column never decreases and the bits it tests at any time
        # are one column's n, a slice that stays in the host's cache.
        self.stride = -(-n // 8) * 8  # a column's bits in whole bytes: threads write their own
        self.vis = np.zeros(self.stride * self.C // 8, dtype=np.uint8)
        # the search's visited vertices as bits, the form the scan reads
        self.visited_bits = np.zeros(-(-n // 8), dtype=np.uint8)
        self.visited_bits[root >> 3] |= np.uint8(1 << (root & 7))
        self._best = np.full(n, -1, dtype=np.int64)  # the claims' scratch
        self._owner_shift = floor_shift(nodes, n)

    def owner(self, vertices: np.ndarray) -> np.ndarray:
        return block_owner(vertices, self.n, self.N)

    def column_runs(self, frontier: np.ndarray) -> list[slice]:
        """The ascending frontier in runs of whole grid columns, about equal
        in entries, one per host thread: a column's Vis bits are written by
        its run only, and the runs' counts and claim candidates are put
        together in order, so the level is the same however many runs."""
        if len(frontier) == 0:
            return [slice(0, 0)]
        first = np.flatnonzero(np.diff(self.owner(frontier) // self.R, prepend=-1))  # where a column starts
        bounds = np.append(first, len(frontier))
        entries = np.add.reduceat(self.graph.degree[frontier], first)
        return [slice(int(bounds[run.start]), int(bounds[run.stop]))
                for run in balanced_chunks(entries, worker_threads())]

    def top_down(self, frontier: np.ndarray) -> LevelWork:
        """One level from the ascending ``frontier``: marks the claims in Vis
        and in the visited bits."""
        N, R, C = self.N, self.R, self.C
        # 1. expand: each node's frontier to its column peers
        fc = np.bincount(self.owner(frontier), minlength=N).astype(np.float64)
        list_bytes = FRONTIER_ID_BYTES * fc
        bitmap_bytes = np.ceil(self.local_vertices / 8.0)
        as_list = list_bytes <= bitmap_bytes
        contrib = np.where(fc > 0, np.minimum(list_bytes, bitmap_bytes), 0.0)

        def per_col(x):  # every node of a grid column gets the column's total
            return np.bincount(self.col_of, weights=x, minlength=C)[self.col_of]

        # 2-4. scan, fold and claims (kernels.top_down_scan): node
        # (row(v), col(u)) holds entry (u, v), packs one pair per target its
        # Vis does not hold, with the smallest parent, for Owner(v) in its
        # grid row; the owner claims the unvisited ones, smallest parent first
        from . import kernels  # here: numba loads only for the runs that use it
        graph = self.graph
        entries, packed = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
        pair_counts = np.zeros(C * N, dtype=np.int64)  # one for all runs: each adds to its columns' rows
        parts = in_parallel([partial(kernels.top_down_scan, graph.indptr, graph.indices, frontier[run], self.vis,
                                     self.stride, self.visited_bits, self.n, N, R, self._owner_shift, entries,
                                     packed, pair_counts)
                             for run in self.column_runs(frontier)])
        unpacked = np.sum([part[0] for part in parts], axis=0) if len(parts) > 1 else parts[0][0]
        claimed = kernels.claim_targets(np.concatenate([part[1] for part in parts]),
                                        np.concatenate([part[2] for part in parts]), self._best, self.vis,
                                        self.stride, self.visited_bits, self.n, N, R, self._owner_shift)
        new = np.sort(claimed)
        new_parents = self._best[new]
        self._best[new] = -1
        counts = Counts(
            frontier_ids=np.where(as_list, fc, 0.0),
            unpacked_ids=per_col(np.where(as_list, fc, 0.0)),  # set In bits from received ids
            index_words=per_col(np.where(as_list | (fc == 0), 0.0, np.ceil(bitmap_bytes / WORD_BYTES))),
            frontier_headers=per_col(fc),
            entries=entries.astype(np.float64),
            pairs_packed=packed.astype(np.float64),
            pairs_received=unpacked.astype(np.float64),
            claimed=np.bincount(self.owner(new), minlength=N).astype(np.float64),
        )
        column, owner = np.divmod(np.flatnonzero(pair_counts), N)
        fold_keys = (column * R + owner % R) * N + owner
        order = np.argsort(fold_keys, kind="stable")
        expand = PairTraffic.from_keys(N, self.expand_keys, contrib[self.expand_keys // N])
        return LevelWork(counts=counts, expand=expand, fold_keys=fold_keys[order],
                         fold_pairs=pair_counts[column * N + owner][order].astype(np.float64), new_vertices=new,
                         new_parents=new_parents, edges_examined=int(entries.sum()), edges_sent=int(packed.sum()))
