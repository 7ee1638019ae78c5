"""Checconi, Petrini et al.'s previous-generation 2D BFS on BlueGene/Q.

What it implements
    The 2D code that seed 000 compares its 1D code against: reference [4]
    of seed 000 (Checconi, Petrini, Willcock, Lumsdaine, Choudhury and
    Sabharwal, SC12), as seed 000 describes it in II-B-2 ("a 2D block
    decomposition of the adjacency matrix, with each block of the matrix
    being assigned to a different node", Fig. 2b) and IV-D: no direction
    optimisation, no compression, no overlap of communication and
    computation, and "scaling is limited by the cache thrashing caused by
    the bitmaps growing at a rate O(|V|/sqrt(m)), which leads them to
    quickly exceed the L2 cache size". Seed 000 (V) also credits [4] with
    exploiting "the redundant updates to the Out and Vis sets ... to reduce
    the amount of work done for each edge": here, a node never sends a
    vertex twice in a level (Out) nor a vertex it sent in an earlier level
    (its Vis). The SC12 paper itself is not in ../shared; every detail
    below that seed 000 does not state is our choice, and says so.

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

Bitmaps (what thrashes the L2)
    Node (r, c) holds In, the frontier of its column's range (n/C bits),
    and Out and Vis over its row's set (n/R bits each): a working set of
    ``(n/C + 2 n/R) / 8`` bytes, which grows as |V|/sqrt(N) under weak
    scaling. A random bitmap access hits the L2 as often as the bitmaps
    keep their share of it against the parents, the open packets and the
    streamed adjacency (cp1d/pricing.py).

One level (top-down only, bulk-synchronous)
    1. Expand: every node sends its own frontier to the other R - 1 nodes
       of its grid column (a column allgather), as a list of 32-bit local
       ids or as its block's bitmap, whichever is smaller (our choice; no
       compression). Each node sets the received bits in In.
    2. Scan: each node looks up every frontier vertex of its column in its
       local index and reads its stored entries; for each target v it tests
       Vis and Out, and the first time it meets v (frontier read in
       ascending order, so with the smallest parent u) it sets Out and packs
       (v, u) for Owner(v), which is in its own grid row. Local de-duplication
       makes one message per (node, target), not one per edge.
    3. Fold: the packed pairs go along the processor rows to the owners
       (6 B each, ``cp1d.uncompressed_entry``, as many per packet as fit);
       a target owned by the scanning node itself is claimed in place.
    4. Owners test Vis and claim the unvisited targets; among candidate
       parents the smallest id wins (the rule the scan order gives).
    5. An allreduce of the next frontier's size ends the level (and the
       search when it is zero).
    The node processes meet in an alltoallv for each exchange (priced by
    the network's flow-level model on the N x N matrices, nonzero only
    within a grid column for the expand and within a grid row for the
    fold) and in the allreduce; each arrives after its own computation.

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

The level's work is computed for all nodes in one compiled pass over the
frontier's lists (kernels.py; runs of whole grid columns on the host's
threads); the resulting parent array is validated by the runner.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ...bfs.parallel import balanced_chunks, in_parallel, worker_threads
from ...bfs.partition import block_owner, block_starts, floor_shift
from ...bfs.direction import TOP_DOWN
from ...engine import NULL_RECORDER, Simulation, run_node_programs
from ...errors import UserError
from ...graph import Graph
from ...machine.model import Machine
from ..base import Algorithm
from ...records import LevelRecord, RootRun
from ..cp1d import work as cp1d
from ..cp1d.pricing import PARENT_BYTES, Residents, memory_seconds, op_cycles, open_packet_bytes

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


def bitmap_working_set_bytes(num_vertices: int, rows: int, cols: int) -> float:
    """Bytes of one node's bitmaps: In over its column's n/C vertices, Out
    and Vis over its row's n/R vertices."""
    return (num_vertices / cols + 2 * num_vertices / rows) / 8


def residents(machine: Machine, num_vertices: int, rows: int, cols: int, local_vertices: float) -> Residents:
    """A node's randomly accessed structures: its bitmaps, its parents, and
    the open packets of the fold to the other nodes of its grid row."""
    cp = cp1d.require_cp1d(machine)
    return Residents(bitmaps=bitmap_working_set_bytes(num_vertices, rows, cols),
                     parents=PARENT_BYTES * local_vertices,
                     buffers=open_packet_bytes(machine, cols - 1, cp.threads, channels=1) if cols > 1 else 0.0)


def phase_seconds(machine: Machine, residents: Residents, threads: int, ops: dict):
    """A node's time in one phase of a level: its operations (``ops``, name
    -> count, scalars or per-node arrays) at the cycles cp1d's pricing gives
    under this phase's mix, spread over its threads, or its memory traffic
    at the memory bandwidth if that takes longer (no compression in this
    code)."""
    cp = cp1d.require_cp1d(machine)
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


def node_memory_bytes(machine: Machine, num_vertices: int, num_directed_edges: int, nodes: int) -> float:
    """Peak bytes per node: the stored entries and the index over the
    column's range (hypersparse: one word per column vertex), plus the
    larger of the generated tuples while building and the visit's bitmaps,
    parents and fold buffers (at most one pair per row vertex each way)."""
    cp = cp1d.require_cp1d(machine)
    rows, cols = grid_shape(nodes)
    local_e = num_directed_edges / nodes
    structure = local_e * cp.adjacency_entry_bytes + (num_vertices / cols + 1) * WORD_BYTES
    tuples = local_e / 2 * cp.edge_tuple_bytes
    fold = 2 * min(local_e, num_vertices / rows) * cp.uncompressed_entry_bytes
    visit = (bitmap_working_set_bytes(num_vertices, rows, cols) + 8 * -(-num_vertices // nodes) + fold
             + num_vertices / cols / 8)  # received expand bitmaps
    return structure + max(tuples, visit)


class CP2D(Algorithm):
    """The previous-generation 2D BFS of seed 000's reference [4]."""

    paper = "000"  # the previous-generation code seed 000 compares against
    directed_graphs = False
    requires = ("cp1d",)

    def __init__(self, name: str):
        self.name = name

    @property
    def summary(self) -> str:
        return ("Checconi & Petrini previous-generation 2D BFS (SC12): R x C grid, expand along columns, "
                "fold along rows, top-down only, no compression, no overlap")

    def check(self, machine, num_vertices: int, nodes: int) -> None:
        cp1d.require_cp1d(machine)
        grid_shape(nodes)

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int, machine=None,
                          graph_kind: str = "kronecker") -> float:
        return node_memory_bytes(machine, num_vertices, num_directed_edges, nodes)

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return _Run(self, sim, graph, root, recorder).execute()


@dataclass
class _Level:
    """One level's per-node times and traffic."""

    pack_s: list  # before the expand
    scan_s: list  # between expand and fold
    recv_s: list  # after the fold
    compute: np.ndarray  # per node, the sum of the three
    expand_payload: np.ndarray  # N x N
    fold_payload: np.ndarray  # N x N
    fold_packets: np.ndarray  # N x N
    new_vertices: np.ndarray
    new_parents: np.ndarray
    next_counts: np.ndarray  # per node, its vertices in the next frontier
    edges_examined: int
    edges_sent: int


class _Run:
    def __init__(self, algorithm: CP2D, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        self.algorithm = algorithm
        self.sim = sim
        self.machine = sim.machine
        self.cp = cp1d.require_cp1d(sim.machine)
        self.graph = graph
        self.N = sim.nodes
        self.R, self.C = grid_shape(self.N)
        self.n = graph.num_vertices
        self.ctx = sim.context(recorder)
        self.root = root
        self.parent = np.full(self.n, -1, dtype=np.int64)
        self.parent[root] = root
        self.frontier = np.array([root], dtype=np.int64)
        starts = block_starts(self.n, self.N)
        self.local_vertices = np.diff(starts)
        ranks = np.arange(self.N)
        self.col_of = ranks // self.R
        self.row_of = ranks % self.R
        self.same_col = self.col_of[:, None] == self.col_of[None, :]
        np.fill_diagonal(self.same_col, False)
        # Vis of every node over its row's set, as bits of key c * stride + v
        # (node (row(v), c)): set for the vertices it sent or claimed. Column
        # first, because the scan reads the frontier in ascending order, so
        # its grid column never decreases and the bits it tests at any time
        # are one column's n, a slice that stays in the host's cache.
        self._stride = -(-self.n // 8) * 8  # a column's bits in whole bytes: threads write their own
        self.vis = np.zeros(self._stride * self.C // 8, dtype=np.uint8)
        self._visited = np.zeros(-(-self.n // 8), dtype=np.uint8)  # bits: parent >= 0 (cached by the scan)
        self._visited[root >> 3] |= np.uint8(1 << (root & 7))
        self._best = np.full(self.n, -1, dtype=np.int64)  # the claims' scratch
        self._owner_shift = floor_shift(self.N, self.n)
        self.residents = residents(self.machine, self.n, self.R, self.C, float(self.local_vertices.max()))
        node = self.machine.node
        self.threads = min(self.cp.threads, int(node.cores * node.threads_per_core))
        self.records: list[LevelRecord] = []
        self._work: _Level | None = None
        self._expand = None
        self._fold = None
        self._level = 0
        self._level_start = 0.0
        self._done = False

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

    # ------------------------------------------------------------ compute
    def phase_seconds(self, ops: dict) -> np.ndarray:
        """Per node: :func:`phase_seconds` of the node's operation counts."""
        return phase_seconds(self.machine, self.residents, self.threads, ops)

    def level_work(self) -> _Level:
        if self._work is not None:
            return self._work
        N, R, C = self.N, self.R, self.C
        F = self.frontier
        # 1. expand: each node's frontier to its column peers
        fc = np.bincount(self.owner(F), minlength=N).astype(np.float64)
        list_bytes = FRONTIER_ID_BYTES * fc
        bitmap_bytes = np.ceil(self.local_vertices / 8.0)
        as_list = list_bytes <= bitmap_bytes
        contrib = np.where(fc > 0, np.minimum(list_bytes, bitmap_bytes), 0.0)
        expand_payload = self.same_col * contrib[:, None]

        def per_col(x):  # every node of a grid column gets the column's total
            return np.bincount(self.col_of, weights=x, minlength=C)[self.col_of]

        pack_ops = {"pack": np.where(as_list, fc, 0.0)}
        unpacked_ids = per_col(np.where(as_list, fc, 0.0))  # set In bits from received ids
        index_words = per_col(np.where(as_list | (fc == 0), 0.0, np.ceil(bitmap_bytes / WORD_BYTES)))
        col_frontier = per_col(fc)
        # 2-4. scan, fold and claims (kernels.top_down_scan): node
        # (row(v), col(u)) holds entry (u, v), packs one pair per target its
        # Vis does not hold, with the smallest parent, for Owner(v) in its
        # grid row; the owner claims the unvisited ones, smallest parent first
        from . import kernels  # here: numba loads only for the runs that use it
        graph = self.graph
        entries, packed = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
        pair_counts = np.zeros(N * N, dtype=np.int64)  # one for all runs: each adds to its columns' rows
        parts = in_parallel([partial(kernels.top_down_scan, graph.indptr, graph.indices, F[run], self.vis,
                                     self._stride, self._visited, self.n, N, R, self._owner_shift, entries, packed,
                                     pair_counts)
                             for run in self.column_runs(F)])
        unpacked = np.sum([part[0] for part in parts], axis=0) if len(parts) > 1 else parts[0][0]
        claimed = kernels.claim_targets(np.concatenate([part[1] for part in parts]),
                                        np.concatenate([part[2] for part in parts]), self._best, self.vis,
                                        self._stride, self._visited, self.n, N, R, self._owner_shift)
        new = np.sort(claimed)
        new_parents = self._best[new]
        self._best[new] = -1
        claimers = self.owner(new)
        scan_ops = scan_operations(unpacked_ids, index_words, col_frontier, entries.astype(np.float64),
                                   packed.astype(np.float64))
        # 3. fold
        per_packet = float(np.floor(self.machine.network.packet_payload_bytes / self.cp.uncompressed_entry_bytes))
        pair_counts = pair_counts.astype(np.float64)
        fold_payload = (pair_counts * self.cp.uncompressed_entry_bytes).reshape(N, N)
        fold_packets = np.ceil(pair_counts / per_packet).reshape(N, N)
        recv_ops = {
            "unpack": unpacked.astype(np.float64),
            "claim": np.bincount(claimers, minlength=N).astype(np.float64),
        }
        pack_s = self.phase_seconds(pack_ops)
        scan_s = self.phase_seconds(scan_ops)
        recv_s = self.phase_seconds(recv_ops)
        self._work = _Level(
            pack_s=pack_s.tolist(), scan_s=scan_s.tolist(), recv_s=recv_s.tolist(),
            compute=pack_s + scan_s + recv_s,
            expand_payload=expand_payload, fold_payload=fold_payload, fold_packets=fold_packets,
            new_vertices=new, new_parents=new_parents,
            next_counts=np.bincount(claimers, minlength=N),
            edges_examined=int(entries.sum()), edges_sent=int(packed.sum()),
        )
        return self._work

    # ----------------------------------------------------- node processes
    def node_program(self, rank: int):
        coll = self.ctx.collectives
        while not self._done:
            work = self.level_work()
            level = self._level
            result = yield coll.alltoallv(rank, self._deliver_expand, after=work.pack_s[rank], work="pack",
                                          level=level)
            if rank == 0:
                self._expand = result
            result = yield coll.alltoallv(rank, self._deliver_fold, after=work.scan_s[rank], work="scan",
                                          level=level)
            if rank == 0:
                self._fold = result
            yield coll.allreduce(rank, np.array([work.next_counts[rank]], dtype=np.int64), np.add,
                                 on_complete=self._finish_level, after=work.recv_s[rank], work="claim",
                                 level=level)

    def _deliver_expand(self):
        return self._work.expand_payload, None, None

    def _deliver_fold(self):
        work = self._work
        return work.fold_payload, work.fold_packets, None

    def _finish_level(self, closing) -> None:
        env = self.ctx.env
        work = self._work
        self.parent[work.new_vertices] = work.new_parents
        expand, fold = self._expand, self._fold
        time_s = env.now - self._level_start
        comm = expand.cost_s + fold.cost_s + closing.cost_s
        compute_mean = float(work.compute.mean())
        compute_max = float(work.compute.max())
        terms = {"compute": (compute_max, "compute"),
                 "expand": (expand.cost_s, expand.exchange.bottleneck),
                 "fold": (fold.cost_s, fold.exchange.bottleneck)}
        largest = max(terms.values(), key=lambda t: t[0])
        self.records.append(LevelRecord.with_rest_as_synchronisation(
            root=self.root,
            level=self._level,
            direction=TOP_DOWN,
            frontier_vertices=int(len(self.frontier)),
            edges_examined=work.edges_examined,
            messages=int(expand.exchange.packets + fold.exchange.packets),
            bytes=float(expand.exchange.payload_bytes + fold.exchange.payload_bytes),
            time_s=time_s,
            compute_s=compute_mean,
            communication_s=comm,
            compute_max_s=compute_max,
            bottleneck=largest[1] if largest[0] > 0 else "none",
            collective_bytes=float(8 * max(self.N - 1, 0)),
            edges_sent=work.edges_sent,
            scan_s=float(np.mean(work.scan_s)),
            receive_s=float(np.mean(work.recv_s)),
        ))
        self.ctx.recorder.level_done(self.records[-1])
        self.frontier = work.new_vertices
        self._work = None
        self._expand = self._fold = None
        self._level += 1
        self._level_start = env.now
        self._done = int(closing.value[0]) == 0

    def execute(self) -> RootRun:
        time_s = run_node_programs(self.ctx, self.node_program, self.N)
        return RootRun(root=self.root, parent=self.parent, time_s=time_s, levels=self.records)
