"""Level-synchronous 1D-partitioned BFS, top-down or direction-optimising.

What it implements
    The bulk-synchronous distributed BFS that every later variant improves
    on: the 1D decomposition of Checconi & Petrini (seed 000, II-D: "each
    edge generating a message from the owner of the source vertex to the
    owner of the destination") run level by level with an all-to-all
    exchange, like their MPI variant (IV-B) and the Graph500 reference code;
    with direction optimisation (Beamer, Asanovic & Patterson, SC12) as
    their Algorithm 2 switches it.

Frontier
    Top-down levels: the sorted ids of the frontier vertices (a queue).
    Bottom-up levels: a bitmap of the frontier, replicated on every node by
    an allgather of n/8 bytes.

Messages
    Top-down: one (target, parent) edge of ``messaging.edge_bytes`` per
    scanned edge whose target lives on another node, packed per destination
    into packets of the network's payload size; one alltoallv per level.
    Bottom-up: no point-to-point messages (the bitmap allgather replaces
    them); a node scans its own unvisited vertices and stops at the first
    neighbour in the frontier.

Per level, every node ends with an allreduce of (next frontier vertices,
their edges, edges of newly visited vertices) that decides the next
direction (:func:`simbfs.bfs.direction.choose_direction`) and termination.

Execution
    work.py counts each level's work per node on the real graph, in one
    vectorised pass for all nodes, and finds its claims; pricing.py turns
    the counts into each node's compute; :class:`BSP1DSearch` runs one simpy
    process per node, which charges its own compute before the collective
    that follows it. Real vertex ids travel in the exchange and are claimed
    by their owner, and the resulting parent array is validated.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...bfs.direction import BOTTOM_UP, TOP_DOWN, choose_direction
from ...bfs.partition import block_owner, block_starts
from ...engine import NULL_RECORDER, Simulation
from ...graph import Graph
from ...records import LevelRecord, RootRun
from ..base import Algorithm
from ..search import RootSearch
from .work import LevelWork, bottom_up, top_down
from .pricing import LevelPrice, price_level


class BSP1D(Algorithm):
    """Level-synchronous 1D BFS; ``direction_optimising`` switches bottom-up on."""

    # Bottom-up levels search a vertex's own adjacency for a parent: the
    # adjacency must be symmetric.
    directed_graphs = False

    def __init__(self, name: str, direction_optimising: bool, alpha: float = 15.0, beta: float = 18.0):
        self.name = name
        self.direction_optimising = direction_optimising
        self.alpha = alpha
        self.beta = beta

    @property
    def summary(self) -> str:
        kind = "direction-optimising (Beamer SC12 switch)" if self.direction_optimising else "top-down only"
        return f"level-synchronous 1D BFS, alltoallv per level, {kind}"

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int, machine=None,
                          graph_kind: str = "kronecker") -> float:
        """Bytes one node needs: its CSR slice, parents, the send buffers of
        its largest level (all its edges, in the worst case, plus as many
        incoming) and, for bottom-up levels, the replicated frontier bitmap
        (n/8 bytes on every node: what limits this variant at scale)."""
        local_vertices = -(-num_vertices // nodes)
        local_edges = num_directed_edges / nodes
        bitmap = num_vertices / 8 if self.direction_optimising else 0.0
        return 8 * local_vertices + 4 * local_edges + 8 * local_vertices + bitmap + 2 * 8 * local_edges

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return BSP1DSearch(self, sim, graph, root, recorder).execute()


class BSP1DSearch(RootSearch):
    """The BFS of one root on one simulated machine."""

    def __init__(self, algorithm: BSP1D, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(sim, graph, root, recorder)
        self.algorithm = algorithm
        self.graph = graph
        # first vertex of every node (and n at the end): node i owns
        # [starts[i], starts[i + 1])
        self.starts = block_starts(self.n, self.N)
        self.local_vertices = np.diff(self.starts)
        self._bitmap_bytes = (self.local_vertices / 8).tolist()  # each node's slice of the frontier bitmap
        self.degree = graph.degree
        self.unexplored_edges = int(self.degree.sum()) - int(self.degree[root])
        # this level's work and price, computed when the first node asks
        self._work: LevelWork | None = None
        self._price: LevelPrice | None = None
        self._before_s: list[float] = []  # the price as Python floats, one per node
        self._after_s: list[float] = []
        self._level_comm = np.zeros(2)  # allgather, alltoallv of this level
        self._exchange = None
        self._counts = None
        self._collective_bytes = 0.0

    def owner(self, vertices: np.ndarray) -> np.ndarray:
        return block_owner(vertices, self.n, self.N)

    def level_work(self) -> LevelWork:
        """This level's work and price for all nodes, computed once when the
        first node asks for it."""
        if self._work is None:
            count = top_down if self.direction == TOP_DOWN else bottom_up
            work = count(self.graph, self.frontier, self.visited, self.N)
            price = price_level(self.machine.node, work.direction, scanned=work.scanned, packed=work.packed,
                                received=work.received, probes=work.probes, claimed=work.claimed)
            self._work, self._price = work, price
            self._before_s, self._after_s = price.before_s.tolist(), price.after_s.tolist()
        return self._work

    def node_program(self, rank: int):
        """One node: per level, its compute and the level's collectives.

        Compute is passed to the next collective as ``after`` (the node
        arrives when it has finished computing) instead of being a timeout
        of its own: same timeline, half the events. The collectives report
        the compute (named by direction), the waits and themselves to the
        recorder."""
        coll = self.ctx.collectives
        while not self.done:
            level = self.level
            if self.direction == BOTTOM_UP:
                result = yield coll.allgather(rank, self._bitmap_bytes[rank], level=level)
                self._level_comm[0] = result.cost_s
                # every node receives the other nodes' slices of the bitmap
                self._collective_bytes = (self.N - 1) * self.n / 8
            work = self.level_work()
            busy = self._before_s[rank]
            if work.direction == TOP_DOWN:
                result = yield coll.alltoallv(rank, self._deliver, after=busy, work=TOP_DOWN, level=level)
                self._level_comm[1] = result.cost_s
                self._exchange = result.exchange
                busy = self._after_s[rank]
            yield coll.allreduce(rank, self._local_counts(rank), np.add, on_complete=self._finish_level,
                                 after=busy, work="claim" if work.direction == TOP_DOWN else BOTTOM_UP,
                                 level=level)

    def _deliver(self):
        edges = self._work.pairs
        return replace(edges, payload=edges.payload * self.machine.messaging.edge_bytes), None, None

    def _local_counts(self, rank: int) -> np.ndarray:
        """(next frontier vertices, their edges) owned by ``rank``: its
        contribution to the closing allreduce. Computed for all ranks at
        once, the first time any rank asks in this level."""
        if self._counts is None:
            nf = self._work.new_vertices
            bounds = np.searchsorted(nf, self.starts)
            edges = np.concatenate([[0], np.cumsum(self.degree[nf])])
            self._counts = np.stack([np.diff(bounds), np.diff(edges[bounds])], axis=1)
        return self._counts[rank]

    def _finish_level(self, closing) -> None:
        """Runs once per level, when the closing allreduce completes and
        before any node resumes: record the level, choose what is next."""
        work, busy = self._work, self._price.busy_s
        next_vertices, next_edges = int(closing.value[0]), int(closing.value[1])
        exchange = self._exchange
        record = LevelRecord.with_rest_as_synchronisation(
            root=self.root,
            level=self.level,
            direction=work.direction,
            frontier_vertices=int(len(self.frontier)),
            edges_examined=int(work.edges_examined),
            messages=exchange.packets if exchange else 0,
            bytes=exchange.payload_bytes if exchange else 0.0,
            time_s=self.ctx.env.now - self.level_start,
            compute_s=float(busy.mean()),
            communication_s=float(self._level_comm.sum()) + closing.cost_s,
            compute_max_s=float(busy.max()),
            bottleneck=exchange.bottleneck if exchange else "none",
            collective_bytes=self._collective_bytes,
        )
        self.unexplored_edges -= next_edges
        direction = self.direction
        if self.algorithm.direction_optimising:
            direction = choose_direction(
                self.direction,
                frontier_edges=next_edges,
                unexplored_edges=self.unexplored_edges,
                frontier_vertices=next_vertices,
                prev_frontier_vertices=len(self.frontier),
                num_vertices=self.n,
                alpha=self.algorithm.alpha,
                beta=self.algorithm.beta,
            )
        self.close_level(record, work.new_vertices, work.new_parents, direction)
        self._work = self._price = None
        self._counts = None
        self._exchange = None
        self._collective_bytes = 0.0
        self._level_comm[:] = 0.0
