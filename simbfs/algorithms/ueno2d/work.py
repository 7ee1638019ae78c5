"""The work of Ueno & Suzumura's 2D BFS, level by level, on the real graph.

What it implements
    Seed 004 (Ueno & Suzumura, HiPC 2013), Algorithms II, III and V with
    sections IV-V: a level-synchronised top-down BFS on an R x C grid of
    processes (one per GPU), whose expand sends the frontier as bitmaps or
    as SIMD-VLQ-coded delta lists, whose fold sends (u, v) edges filtered
    against the shared-visited bitmap SV. What each process reads, sends and
    claims is computed here for all processes at once with numpy; what it
    costs is pricing.py's, and when it runs is execute.py's.

Grid and blocks (004, IV-B, Fig. 2, Table 1)
    P = R x C processes with R = 2^floor(log2(P) / 2) and C = P / R: the
    paper's 8x8, 8x16, 16x16, 16x32, 32x32, 32x64 for 64..2048 processes,
    extended by the same rule (4,096: 64x64). P must be a power of two
    ("The number of MPI processes should be a power of two", VI-C). The
    vertices are cut into P contiguous blocks; process (i, j) (0-based)
    owns block k = j R + i, so rank k = j R + i and the processor-column j
    owns the contiguous range of blocks jR..jR+R-1 (n/C vertices), the
    processor-row i the blocks i, R + i, 2R + i, ... (n/R vertices).
    Process (i, j) stores the adjacency entries (u, v) with u in column j's
    range and v in row i's set: a column of the adjacency matrix (u's edge
    list) is split over the R processes of u's column.

One level (Algorithm II with III and V)
    1. |NQ| is summed over all processes (allreduce).
    2. Expand: if it exceeds alpha x n each process sends its NQ bitmap
       (n/P bits), else its NQ as a delta list in SIMD-VLQ (vlq.py), to the
       other processes of its processor-column (CQ, n/C bits) and of its
       processor-row (SV sharing, V-F-2: SV, n/R bits, gets every newly
       visited vertex of the row). The lists are really encoded here and
       the CQ is built from the decoded values.
    3. Generating the CQ list: the non-empty 32-bit words of CQ.
    4. Gathering: every stored entry (u, v) with u in CQ.
    5. Filtering against SV: an edge passes when v is not in SV, and v is
       then marked. Because every visited vertex of the row reached SV
       through step 2, SV holds exactly the visited vertices of the row plus
       the targets this process sent in this level; so one edge per
       (process, unvisited target) passes. The real method (C) may let a
       duplicate through when two threads update one word at once; this
       model does not (its sends are those of (A) and (B)).
    6. Fold: passed edges go to Owner(v), a process of the same
       processor-row; an edge to the process itself stays home.
    7. Receiving (task 8): Owner(v) tests VISITED and claims v. Among
       several candidate parents the real code keeps the first to be
       processed; here, deterministically, the smallest u (any candidate is
       a valid BFS parent).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...bfs.adjacency import neighbour_lists
from ...bfs.partition import block_owner, block_starts
from ...errors import UserError
from ..options import choice
from ...graph import Graph
from . import vlq

EXPAND_BITMAP = "bitmap"
EXPAND_LIST = "list"
WORD_BITS = 32


def grid_shape(processes: int) -> tuple[int, int]:
    """(R, C) of the process grid, 004 Table 1: R = 2^floor(log2 P / 2),
    C = P / R; P must be a power of two."""
    if processes < 1 or processes & (processes - 1):
        low = 1 << max(0, processes.bit_length() - 1)
        raise UserError(f"ueno2d arranges the processes (GPUs) in an R x C grid (004, Table 1), so --nodes must be "
                        f"a power of two; {processes} is not one (use {low} or {low * 2})")
    k = processes.bit_length() - 1
    rows = 1 << (k // 2)
    return rows, processes // rows


@dataclass(frozen=True)
class Ueno2DOptions:
    """The variants of the paper's Figs. 9 and 13; OPTIONS declares them."""

    expand: str = "auto"
    sv: str = "ttas"
    device: str = "gpu"


OPTIONS = (
    choice("expand", ("auto", "bitmap"), "auto",
           "auto: a bitmap above alpha n frontier vertices, else SIMD-VLQ lists (V-B); bitmap: always (Fig. 9)"),
    choice("sv", ("atomic", "ttas", "tas"), "ttas",
           "claiming a vertex: atomic test-and-set, test and test-and-set, or test and set (V-F-3)"),
    choice("device", ("gpu", "cpu"), "gpu", "run the kernels on the GPUs or on the host CPUs (VI-F, Fig. 13)"),
)


class Layout:
    """The grid and the blocks of one graph on P processes."""

    def __init__(self, graph: Graph, processes: int):
        self.graph = graph
        self.n = graph.num_vertices
        self.P = processes
        self.R, self.C = grid_shape(processes)
        self.starts = block_starts(self.n, processes)
        self.block_vertices = np.diff(self.starts)
        ranks = np.arange(processes)
        self.row_of = ranks % self.R
        self.col_of = ranks // self.R
        # first vertex of each processor-column's contiguous range
        self.col_starts = self.starts[np.arange(self.C) * self.R]
        self.col_vertices = np.diff(np.append(self.col_starts, self.n))
        self.degree = graph.degree
        # the processor-row of each vertex's owner, looked up per adjacency
        # entry (cheaper than the owner's division on every entry)
        self.row_of_vertex = (self.owner(np.arange(self.n)) % self.R).astype(np.min_scalar_type(self.R - 1))

    def owner(self, vertices: np.ndarray) -> np.ndarray:
        return block_owner(vertices, self.n, self.P)

    def holder(self, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """The process storing entry (u, v): row of Owner(v), column of Owner(u)."""
        return (self.owner(sources) // self.R) * self.R + self.owner(targets) % self.R

    def per_column(self, values: np.ndarray) -> np.ndarray:
        """Per process, the sum of ``values`` over its processor-column."""
        return np.bincount(self.col_of, weights=values, minlength=self.C)[self.col_of]

    def per_row(self, values: np.ndarray) -> np.ndarray:
        """Per process, the sum of ``values`` over its processor-row."""
        return np.bincount(self.row_of, weights=values, minlength=self.R)[self.row_of]


@dataclass
class Expand:
    """What the expand of one level sends: per process, the bytes of its
    own NQ (bitmap or list) and the bytes it receives from its column and
    its row, the values it decodes, and the CQ the receivers rebuilt."""

    mode: str
    own_bytes: np.ndarray
    column_bytes: np.ndarray  # received from the other processes of its column
    row_bytes: np.ndarray  # received from the other processes of its row
    own_vertices: np.ndarray
    column_vertices: np.ndarray  # the column's frontier, |CQ| (own included)
    row_vertices: np.ndarray
    frontier: np.ndarray  # the decoded frontier (equal to the sent one: checked)


def expand(layout: Layout, frontier: np.ndarray, alpha: float, width: int, mode: str = "auto") -> Expand:
    """Algorithm III on the real frontier. In list mode every process's NQ
    is encoded (local ids, delta list, SIMD-VLQ) and decoded again, and the
    frontier that the next steps use is the decoded one."""
    P = layout.P
    owner = layout.owner(frontier)
    own = np.bincount(owner, minlength=P).astype(np.float64)
    if mode == "bitmap" or len(frontier) > alpha * layout.n:
        chosen = EXPAND_BITMAP
        own_bytes = np.ceil(layout.block_vertices / 8.0)
        decoded = frontier
    else:
        chosen = EXPAND_LIST
        # every process's NQ as local ids, coded as its own list; the
        # processes' lists in one batch, in rank order
        nq = np.sort(frontier)
        counts = np.bincount(owner, minlength=P)
        block_start = np.repeat(layout.starts[:-1], counts)
        stream, own_bytes = vlq.simd_vlq_encode_lists(vlq.delta_lists(nq - block_start, counts), counts, width)
        own_bytes = own_bytes.astype(np.float64)
        back = vlq.undelta_lists(vlq.simd_vlq_decode_lists(stream, counts, width), counts).astype(np.int64)
        decoded = np.sort(back + block_start)
        if not np.array_equal(decoded, nq):  # pragma: no cover - codec self-check
            raise AssertionError("SIMD-VLQ round trip changed the frontier")
    return Expand(mode=chosen, own_bytes=own_bytes, column_bytes=layout.per_column(own_bytes) - own_bytes,
                  row_bytes=layout.per_row(own_bytes) - own_bytes, own_vertices=own,
                  column_vertices=layout.per_column(own), row_vertices=layout.per_row(own), frontier=decoded)


@dataclass
class LevelWork:
    """One level's counts per process (arrays of length P) and its result."""

    expand: Expand
    cq_words: np.ndarray  # words of the CQ bitmap scanned
    nonempty_words: np.ndarray  # non-empty CQ words listed
    entries: np.ndarray  # adjacency entries gathered
    passed: np.ndarray  # edges passing the SV filter (sent or kept)
    fold_keys: np.ndarray  # sender * P + receiver of the fold's pairs that have edges, ascending
    fold_edges: np.ndarray  # their edges sent (a process's own: kept at home)
    received: np.ndarray  # edges a process's task 8 handles (own kept ones included)
    claimed: np.ndarray  # vertices it claims
    new_vertices: np.ndarray
    new_parents: np.ndarray

    @property
    def edges_examined(self) -> int:
        return int(self.entries.sum())


def level(layout: Layout, frontier: np.ndarray, visited: np.ndarray, alpha: float, width: int,
          mode: str = "auto") -> LevelWork:
    """Steps 2-7 of one level (module docstring) on the real graph.

    Processor-column by processor-column: column j's processes hold the
    entries of its sources, a contiguous range of vertices, so a column's
    entries are gathered and counted on their own, in pieces that stay in
    the caches, and nothing is sorted."""
    P, R, C, n = layout.P, layout.R, layout.C, layout.n
    ex = expand(layout, frontier, alpha, width, mode)
    cq = np.sort(ex.frontier)
    # 3. CQ list: non-empty 32-bit words of each column's CQ bitmap
    col = layout.owner(cq) // R
    word = (cq - layout.col_starts[col]) // WORD_BITS
    nonempty = np.bincount(np.unique(col * (n // WORD_BITS + 1) + word) // (n // WORD_BITS + 1),
                           minlength=C).astype(np.float64) if len(cq) else np.zeros(C)
    cq_words = np.ceil(layout.col_vertices / WORD_BITS)[layout.col_of]
    graph = layout.graph
    unvisited = ~visited
    column_sources = np.searchsorted(cq, np.append(layout.col_starts, n))
    entries = np.zeros((C, R))  # 4. entries gathered by process (i, j)
    sent = np.zeros((C, P))  # 5.-6. edges column j's processes send to process o
    parent = np.full(n, n, dtype=np.int64)  # 7. each target's smallest source (n: none yet)
    scratch = np.zeros(n, dtype=bool)
    for j in range(C):
        sources = cq[column_sources[j]:column_sources[j + 1]]
        if len(sources) == 0:
            continue
        # 4. gather: (i, j) holds the entries of column j's sources whose
        # target is in row i
        targets, lengths = neighbour_lists(graph.indptr, graph.indices, sources, layout.degree)
        entries[j] = np.bincount(layout.row_of_vertex[targets], minlength=R)
        # 5. filter: one edge per (holder, unvisited target), i.e. per
        # unvisited target of the column; 6. fold: to Owner(v), a process
        # of the holder's row
        fresh_at = np.flatnonzero(unvisited[targets])
        fresh = targets[fresh_at]
        sent[j] = np.bincount(layout.owner(_distinct(fresh, scratch)), minlength=P)
        # 7. owners claim each unvisited target, from its smallest source
        np.minimum.at(parent, fresh, np.repeat(sources, lengths)[fresh_at])
    new = np.flatnonzero(parent < n)
    new_parents = parent[new]
    # the fold's pairs: column j's process in the receiver's row sends to it
    column, receiver = np.nonzero(sent)
    senders = column * R + layout.row_of[receiver]
    order = np.argsort(senders * P + receiver, kind="stable")
    fold_keys, fold_edges = (senders * P + receiver)[order], sent[column, receiver][order]
    claimed = np.bincount(layout.owner(new), minlength=P).astype(np.float64)
    return LevelWork(expand=ex, cq_words=cq_words, nonempty_words=nonempty[layout.col_of],
                     entries=entries.reshape(-1), passed=np.bincount(fold_keys // P, weights=fold_edges, minlength=P),
                     fold_keys=fold_keys, fold_edges=fold_edges,
                     received=np.bincount(fold_keys % P, weights=fold_edges, minlength=P), claimed=claimed,
                     new_vertices=new, new_parents=new_parents)


SORT_BELOW = 1 / 16  # fewer values than this share of the range are deduplicated by sorting, not in a bitmap


def _distinct(values: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """The distinct ``values`` (each below len(scratch)), ascending: marked
    in ``scratch`` (all False, and so again on return) and listed, or, when
    they are few, sorted."""
    if len(values) <= SORT_BELOW * len(scratch):
        return np.unique(values)
    scratch[values] = True
    distinct = np.flatnonzero(scratch)
    scratch[distinct] = False
    return distinct
