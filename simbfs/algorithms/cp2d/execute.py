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

Modules
    work.py: the grid, the layout and a level's operations counted per
    node on the real graph (a compiled scan, kernels.py); pricing.py: the
    bitmaps' share of the L2 and the phases' times (``price_level``);
    this module: the algorithm and the executed run (:class:`CP2DSearch`),
    whose resulting parent array is validated by the runner.
"""

from __future__ import annotations

import numpy as np

from ...bfs.direction import TOP_DOWN
from ...engine import NULL_RECORDER, Simulation
from ...engine.traffic import PairTraffic
from ...graph import Graph
from ...machine.model import Machine
from ...records import LevelRecord, RootRun
from ..base import Algorithm
from ..cp1d.work import require_cp1d
from ..search import RootSearch
from .pricing import LevelPrice, bitmap_working_set_bytes, pairs_per_packet, price_level, residents
from .work import WORD_BYTES, LevelWork, Scanner, grid_shape


def node_memory_bytes(machine: Machine, num_vertices: int, num_directed_edges: int, nodes: int) -> float:
    """Peak bytes per node: the stored entries and the index over the
    column's range (hypersparse: one word per column vertex), plus the
    larger of the generated tuples while building and the visit's bitmaps,
    parents and fold buffers (at most one pair per row vertex each way)."""
    cp = require_cp1d(machine)
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
        require_cp1d(machine)
        grid_shape(nodes)

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int, machine=None,
                          graph_kind: str = "kronecker") -> float:
        return node_memory_bytes(machine, num_vertices, num_directed_edges, nodes)

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return CP2DSearch(self, sim, graph, root, recorder).execute()


class CP2DSearch(RootSearch):
    """The BFS of one root on one simulated machine."""

    def __init__(self, algorithm: CP2D, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(sim, graph, root, recorder)
        self.algorithm = algorithm
        self.cp = require_cp1d(sim.machine)
        self.scanner = Scanner(graph, self.N, root)
        scanner = self.scanner
        self.residents = residents(self.machine, self.n, scanner.R, scanner.C,
                                   float(scanner.local_vertices.max()))
        node = self.machine.node
        self.threads = min(self.cp.threads, int(node.cores * node.threads_per_core))
        self.pairs_per_packet = pairs_per_packet(self.machine)
        # this level's work and price, computed when the first node asks
        self._work: LevelWork | None = None
        self._price: LevelPrice | None = None
        self._phases: tuple[list, list, list] = ([], [], [])  # pack, scan, receive: Python floats per node
        self._expand = None
        self._fold = None

    def level_work(self) -> LevelWork:
        if self._work is None:
            self._work = self.scanner.top_down(self.frontier)
            self._price = price_level(self.machine, self.residents, self.threads, self._work.counts)
            price = self._price
            self._phases = (price.pack_s.tolist(), price.scan_s.tolist(), price.receive_s.tolist())
        return self._work

    # ----------------------------------------------------- node processes
    def node_program(self, rank: int):
        coll = self.ctx.collectives
        while not self.done:
            work = self.level_work()
            pack_s, scan_s, receive_s = self._phases
            level = self.level
            result = yield coll.alltoallv(rank, self._deliver_expand, after=pack_s[rank], work="pack",
                                          level=level)
            if rank == 0:
                self._expand = result
            result = yield coll.alltoallv(rank, self._deliver_fold, after=scan_s[rank], work="scan",
                                          level=level)
            if rank == 0:
                self._fold = result
            yield coll.allreduce(rank, np.array([work.counts.claimed[rank]], dtype=np.int64), np.add,
                                 on_complete=self._finish_level, after=receive_s[rank], work="claim",
                                 level=level)

    def _deliver_expand(self):
        return self._work.expand, None, None

    def _deliver_fold(self):
        work = self._work
        pairs = work.fold_pairs
        return PairTraffic.from_keys(self.N, work.fold_keys, pairs * self.cp.uncompressed_entry_bytes,
                                     np.ceil(pairs / self.pairs_per_packet)), None, None

    def _finish_level(self, closing) -> None:
        work, price = self._work, self._price
        expand, fold = self._expand, self._fold
        busy = price.busy_s
        record = LevelRecord.with_rest_as_synchronisation(
            root=self.root,
            level=self.level,
            direction=TOP_DOWN,
            frontier_vertices=int(len(self.frontier)),
            edges_examined=work.edges_examined,
            messages=int(expand.exchange.packets + fold.exchange.packets),
            bytes=float(expand.exchange.payload_bytes + fold.exchange.payload_bytes),
            time_s=self.ctx.env.now - self.level_start,
            compute_s=float(busy.mean()),
            communication_s=expand.cost_s + fold.cost_s + closing.cost_s,
            compute_max_s=float(busy.max()),
            bottleneck=price.bottleneck((expand.cost_s, expand.exchange.bottleneck),
                                        (fold.cost_s, fold.exchange.bottleneck)),
            collective_bytes=float(8 * max(self.N - 1, 0)),
            edges_sent=work.edges_sent,
            scan_s=float(np.mean(price.scan_s)),
            receive_s=float(np.mean(price.receive_s)),
        )
        self.close_level(record, work.new_vertices, work.new_parents)
        self._work = self._price = None
        self._expand = self._fold = None
