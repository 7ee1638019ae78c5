"""The work of one Cell level, counted per SPE and round on the real graph.

Data layout (machine file ``spe:``)
    Graph: the paper's directed graph, E_v as generated (see GraphSpec
    ``directed``). In memory every adjacency list is stored split per SPE:
    a header of one ``header_entry`` per SPE, padded to a quadword, then the
    portion bound for each SPE padded to ``padding`` (section 3, Dispatch);
    lists start at a ``dma.alignment`` boundary. A Qout entry is the parent
    vertex code padded to a quadword followed by its portion. Each SPE owns
    a contiguous block of vertices (V_i); its queue Q_i holds its frontier
    vertices.

The plan
    The BFS is real: the frontier queues hold real vertex ids, the lists the
    gathers move are the real lists, and the owners claim vertices in the
    order their bitmap step sees them (round, then sender, then queue
    order). Each level is computed in one compiled pass over the level's
    frontier (kernels.py; edges never loop in Python): per round and SPE,
    the lists, edges, portions and quadwords it sends and receives, its
    DMA blocks and the vertices it claims. No time appears here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import UserError
from ...graph import Graph
from ...units import format_quantity


@dataclass
class Layout:
    """The graph as stored for N SPEs: per vertex, its per-SPE portions."""

    N: int
    block: int  # vertices per SPE (the last SPE may own fewer)
    portion_edges: np.ndarray  # (n, N) edges of v's list owned by each SPE
    list_bytes: np.ndarray  # (n,) bytes of v's stored list (0 if v has no edge)
    entry_bytes: np.ndarray  # (n, N) bytes of v's Qout entry for each SPE (0 if empty)
    portion_quadwords: np.ndarray  # (n, N) padded quadwords of each portion


def build_layout(graph: Graph, N: int, spe) -> Layout:
    n = graph.num_vertices
    block = -(-n // N)
    degree = graph.degree
    sources = np.repeat(np.arange(n, dtype=np.int64), degree)
    owners = graph.indices.astype(np.int64) // block
    portion = np.bincount(sources * N + owners, minlength=n * N).reshape(n, N).astype(np.int32)
    del sources, owners
    words_per_qw = spe.padding_bytes / spe.vertex_code_bytes
    quadwords = np.ceil(portion / words_per_qw).astype(np.int32)
    header = np.ceil(N * spe.header_entry_bytes / spe.padding_bytes) * spe.padding_bytes
    list_bytes = np.where(degree > 0, header + quadwords.sum(axis=1) * spe.padding_bytes, 0.0)
    entry_header = np.ceil(spe.vertex_code_bytes / spe.padding_bytes) * spe.padding_bytes
    entry_bytes = np.where(portion > 0, entry_header + quadwords * spe.padding_bytes, 0.0)
    return Layout(N=N, block=block, portion_edges=portion, list_bytes=list_bytes,
                  entry_bytes=entry_bytes, portion_quadwords=quadwords)


@dataclass
class LevelPlan:
    """What every SPE does in every iteration of one level (K iterations)."""

    K: int
    fetch_blocks: list[np.ndarray]  # per SPE: bQ block sizes (bytes)
    chunk_fetch: np.ndarray  # (K, N) bQ blocks that must have arrived before gather t (cumulative)
    gather_lists: list[np.ndarray]  # per SPE: the sizes of its non-empty lists, in queue order
    # (K + 1, N): round t's DMA list of SPE r is gather_lists[r][bounds[t, r]:bounds[t + 1, r]]
    gather_bounds: np.ndarray
    lists: np.ndarray  # (K, N)
    edges_out: np.ndarray  # (K, N)
    portions_out: np.ndarray  # (K, N)
    quadwords_out: np.ndarray  # (K, N)
    put_bytes: np.ndarray  # (K, N, N) entry bytes i -> p
    edges_in: np.ndarray  # (K, N)
    portions_in: np.ndarray  # (K, N)
    quadwords_in: np.ndarray  # (K, N)
    new_in: np.ndarray  # (K, N) vertices newly visited by p in round t
    claimed: np.ndarray  # (N,) vertices each SPE claimed in the level
    new_vertices: np.ndarray  # in the order the bitmap steps claimed them
    new_parents: np.ndarray
    edges_examined: int

    def gather_sizes(self, rank: int, t: int) -> np.ndarray:
        """The block sizes of SPE ``rank``'s DMA list in round ``t`` (a view)."""
        bounds = self.gather_bounds
        return self.gather_lists[rank][bounds[t, rank]:bounds[t + 1, rank]]


def chunk_bounds(queue: np.ndarray, layout: Layout, spe) -> np.ndarray:
    """Greedy bG fill (Algorithm 3, lines 16-19) of the lists of ``queue``:
    consecutive lists while bG, every Qout_p and the DMA list length allow.
    Returns chunk starts. The fill is a loop over the queue, compiled
    (kernels.chunk_starts)."""
    from .kernels import chunk_starts

    q_cap = spe.qout_bytes / layout.N
    starts, largest_list, largest_entry = chunk_starts(
        np.asarray(queue, dtype=np.int64), layout.list_bytes, layout.entry_bytes,
        float(spe.bg_buffer_bytes), float(q_cap), int(spe.dma_list_max))
    if largest_list > spe.bg_buffer_bytes or largest_entry > q_cap:
        raise UserError(f"an adjacency list does not fit the SPE buffers (largest list "
                        f"{format_quantity(largest_list, 'size')}, bG {format_quantity(spe.bg_buffer_bytes, 'size')}; "
                        f"largest queue entry {format_quantity(largest_entry, 'size')}, Qout per SPE "
                        f"{format_quantity(q_cap, 'size')}); the paper splits such heavy lists at graph creation "
                        f"(001, 2), which simbfs does not: use a smaller arity or raise spe.bg_buffer / spe.qout")
    return starts


def spe_queues(frontier: np.ndarray, layout: Layout) -> list[np.ndarray]:
    """The frontier as the SPEs' queues Q_i: each SPE's own vertices, in
    frontier order (a level's claims come in commit order, so each queue
    is its SPE's Qnext of the level before)."""
    owner = frontier // layout.block
    return [frontier[owner == p] for p in range(layout.N)]


def plan_level(graph: Graph, layout: Layout, frontier: np.ndarray, visited: np.ndarray, spe) -> LevelPlan:
    """The real work of one level for all SPEs: the chunks of every queue,
    then one compiled pass over the frontier in bitmap order
    (kernels.plan_rounds), which finds the level's claims (``visited``,
    the search's, is read, not written)."""
    from .kernels import plan_rounds

    N = layout.N
    queues = spe_queues(frontier, layout)
    codes_per_bq = int(spe.bq_buffer_bytes // spe.vertex_code_bytes)
    offsets = np.concatenate([[0], np.cumsum([len(q) for q in queues])]).astype(np.int64)
    starts_per_rank = [chunk_bounds(q, layout, spe) for q in queues]
    rounds = [len(s) if len(q) else 0 for s, q in zip(starts_per_rank, queues)]
    K = max(rounds)

    # chunk (t, r) is queue[bounds[t, r]:bounds[t + 1, r]] of the concatenated queues; rounds
    # past an SPE's last are empty
    bounds = np.repeat(offsets[1:][None, :], K + 1, axis=0)
    chunk_fetch = np.zeros((K, N), dtype=np.int64)
    gather_lists = []
    gather_bounds = np.zeros((K + 1, N), dtype=np.int64)
    fetch_blocks = []
    for rank, (q, starts, k) in enumerate(zip(queues, starts_per_rank, rounds)):
        ends = np.append(starts[1:], len(q))
        if k:
            bounds[:k, rank] = offsets[rank] + starts
            chunk_fetch[:, rank] = -(-ends[-1] // codes_per_bq)
            chunk_fetch[:k, rank] = -(-ends // codes_per_bq)
        # the DMA list of a chunk: its lists that have a byte to move
        sizes = layout.list_bytes[q]
        moved = sizes > 0
        gather_lists.append(sizes[moved])
        before = np.concatenate([[0], np.cumsum(moved)])
        gather_bounds[:, rank] = before[-1]
        gather_bounds[:k, rank] = before[starts[:k]]
        full, rest = divmod(len(q) * spe.vertex_code_bytes, spe.bq_buffer_bytes)
        fetch_blocks.append(np.array([spe.bq_buffer_bytes] * int(full) + ([rest] if rest else [])))

    queue = np.concatenate(queues).astype(np.int64, copy=False)
    # the claims' parents: the pass writes only the vertices it claims
    parent = np.empty(len(visited), dtype=np.int64)
    (lists, edges_out, portions_out, quadwords_out, put_bytes, edges_in, portions_in, quadwords_in, new_in,
     new, examined) = plan_rounds(graph.indptr, graph.indices, queue, bounds[:-1], bounds[1:], layout.block,
                                  layout.portion_edges, layout.portion_quadwords, layout.entry_bytes,
                                  visited.copy(), parent)
    return LevelPlan(K=K, fetch_blocks=fetch_blocks, chunk_fetch=chunk_fetch, gather_lists=gather_lists,
                     gather_bounds=gather_bounds, lists=lists, edges_out=edges_out, portions_out=portions_out,
                     quadwords_out=quadwords_out, put_bytes=put_bytes, edges_in=edges_in,
                     portions_in=portions_in, quadwords_in=quadwords_in, new_in=new_in,
                     claimed=np.bincount(new // layout.block, minlength=N), new_vertices=new,
                     new_parents=parent[new], edges_examined=int(examined))
