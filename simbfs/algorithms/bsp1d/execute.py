"""Level-synchronous 1D-partitioned BFS, top-down or direction-optimising.

What it implements
    The bulk-synchronous distributed BFS that every later variant improves
    on: the 1D decomposition of Checconi & Petrini (seed 000, II-D: "each
    edge generating a message from the owner of the source vertex to the
    owner of the destination") run level by level with an all-to-all
    exchange, like their MPI variant (IV-B) and the Graph500 reference code;
    with direction optimisation (Beamer, Asanovic & Patterson, SC12) as
    their Algorithm 2 switches it.

Partitioning
    Vertex v belongs to node ``v * N // n``: contiguous blocks whose sizes
    differ by at most one, so every node owns vertices whenever N <= n.
    Each node holds the adjacency lists of its own vertices (both directions
    of every undirected edge).

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
    The level's work is computed for all nodes in one vectorised pass over
    the real graph (the nodes' partitions are disjoint and a BSP level only
    reads the state of the previous one, so this is the same computation as
    N separate passes); each node's simpy process is then charged its own
    counters: its edges scanned, edges packed, edges received, vertices
    claimed. Real vertex ids travel in the exchange and are claimed by their
    owner, and the resulting parent array is validated.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ...bfs.partition import block_owner, block_starts
from ...bfs.adjacency import neighbour_slots
from ...bfs.parallel import balanced_chunks, in_parallel, worker_threads
from ...bfs.direction import BOTTOM_UP, TOP_DOWN, choose_direction
from ...engine import NULL_RECORDER, Simulation, run_node_programs
from ...graph import Graph
from ..base import Algorithm
from ...records import LevelRecord, RootRun


def gather_adjacency(graph: Graph, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(source, target) for every adjacency entry of ``vertices``, in order."""
    slots, lengths, _ = neighbour_slots(graph.indptr, vertices)
    return np.repeat(vertices, lengths), graph.indices[slots].astype(np.int64, copy=False)


def first_frontier_neighbour(graph: Graph, vertices: np.ndarray, in_frontier: np.ndarray):
    """For each vertex, its first neighbour (adjacency order) in the
    frontier, or -1; and how many adjacency entries were examined to find
    it (all of them when there is none).

    Probes in rounds: the next ``width`` neighbours of every vertex still
    searching, ``width`` doubling each round. Most vertices stop at their
    first probe; a vertex that never finds one costs log2(degree) rounds, and
    the numpy work stays within twice the entries actually examined.

    Each vertex's answer is its own, so the vertices are cut into runs
    searched on the host's threads (numpy releases the GIL in its gathers)
    and the runs' answers joined in order: the same on any number of
    threads.
    """
    runs = balanced_chunks(np.ones(len(vertices)), worker_threads()) if len(vertices) >= 1 << 16 else [slice(None)]
    if len(runs) == 1:
        return _first_frontier_neighbour(graph, vertices, in_frontier)
    parts = in_parallel([partial(_first_frontier_neighbour, graph, vertices[run], in_frontier) for run in runs])
    return tuple(np.concatenate(pieces) for pieces in zip(*parts))


def _first_frontier_neighbour(graph: Graph, vertices: np.ndarray, in_frontier: np.ndarray):
    """first_frontier_neighbour of one run of vertices."""
    starts = graph.indptr[vertices].copy()
    ends = graph.indptr[vertices + 1]
    found = np.full(len(vertices), -1, dtype=np.int64)
    examined = np.zeros(len(vertices), dtype=np.int64)
    active = np.flatnonzero(starts < ends)
    if len(active):  # the first probe of every list: one entry each, no segments to build
        neighbours = graph.indices[starts[active]]
        hit = in_frontier[neighbours]
        found[active[hit]] = neighbours[hit]
        examined[active] = 1
        starts[active] += 1
        active = active[~hit & (starts[active] < ends[active])]
    width = 2
    while len(active):
        take = np.minimum(ends[active] - starts[active], width)
        segment_starts = np.cumsum(take) - take
        positions = np.repeat(starts[active] - segment_starts, take)
        positions += np.arange(len(positions), dtype=np.int64)
        neighbours = graph.indices[positions]
        hits = np.flatnonzero(in_frontier[neighbours])
        first = np.searchsorted(hits, segment_starts)
        has_hit = first < len(hits)
        has_hit[has_hit] = hits[first[has_hit]] < (segment_starts + take)[has_hit]
        hit_at = hits[first[has_hit]]
        winners = active[has_hit]
        found[winners] = neighbours[hit_at]
        examined[active] += take
        examined[winners] -= take[has_hit] - (hit_at - segment_starts[has_hit] + 1)
        starts[active] += take
        active = active[~has_hit & (starts[active] < ends[active])]
        width *= 2
    return found, examined


# ------------------------------------------------------------------ pricing
# A level's cycles as pure functions of counts: the executed run calls them
# with every node's counts, the projection (simbfs/projection.py) with every
# profile vertex's, which it then grows to the target's nodes.


def top_down_send_cycles(costs, scanned, packed):
    """Before the exchange: scan each frontier edge, pack each remote one."""
    return scanned * costs.edge_scan_cycles + packed * costs.message_pack_cycles


def top_down_receive_cycles(costs, received, claimed):
    """After the exchange: check each received edge, claim each new vertex."""
    return received * costs.message_unpack_cycles + claimed * costs.vertex_visit_cycles


def bottom_up_cycles(costs, probes, claimed):
    """Probe adjacency entries against the frontier bitmap, claim each new vertex."""
    return probes * costs.bitmap_probe_cycles + claimed * costs.vertex_visit_cycles


@dataclass
class _LevelWork:
    """Per-node counters of one level, and what it found."""

    direction: str
    send_cycles: np.ndarray  # before the exchange
    recv_cycles: np.ndarray  # after it
    edges_examined: int
    next_frontier: np.ndarray | None = None
    payload: np.ndarray | None = None  # N x N bytes
    send_s: list[float] | None = None  # the cycles as seconds, one float per node
    recv_s: list[float] | None = None


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

    # ------------------------------------------------------------------ run
    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return _Run(self, sim, graph, root, recorder).execute()


class _Run:
    """The BFS of one root on one simulated machine."""

    def __init__(self, algorithm: BSP1D, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        self.algorithm = algorithm
        self.sim = sim
        self.graph = graph
        self.machine = sim.machine
        self.N = sim.nodes
        self.n = graph.num_vertices
        # first vertex of every node (and n at the end): node i owns
        # [starts[i], starts[i + 1])
        self.starts = block_starts(self.n, self.N)
        self.local_vertices = np.diff(self.starts)
        self._bitmap_bytes = (self.local_vertices / 8).tolist()  # each node's slice of the frontier bitmap
        self.ctx = sim.context(recorder)
        self.parent = np.full(self.n, -1, dtype=np.int64)
        self.parent[root] = root
        self.root = root
        self.frontier = np.array([root], dtype=np.int64)
        self.degree = graph.degree
        self.unexplored_edges = int(self.degree.sum()) - int(self.degree[root])
        self.direction = TOP_DOWN
        self.prev_frontier_vertices = 0
        self.records: list[LevelRecord] = []
        self._work: _LevelWork | None = None
        self._node_compute = np.zeros(self.N)
        self._level_comm = np.zeros(2)  # allgather, alltoallv of this level
        self._exchange = None
        self._counts = None
        self._collective_bytes = 0.0
        self._level_start = 0.0
        self._level = 0
        self._done = False

    def owner(self, vertices: np.ndarray) -> np.ndarray:
        return block_owner(vertices, self.n, self.N)

    def per_node(self, vertices: np.ndarray, weights=None) -> np.ndarray:
        return np.bincount(self.owner(vertices), weights=weights, minlength=self.N).astype(np.float64)

    # ------------------------------------------------------------ the steps
    def top_down_work(self) -> _LevelWork:
        costs = self.machine.node.compute
        sources, targets = gather_adjacency(self.graph, self.frontier)
        src_node = self.owner(sources)
        dst_node = self.owner(targets)
        remote = src_node != dst_node
        scanned = self.per_node(self.frontier, self.degree[self.frontier])
        packed = np.bincount(src_node[remote], minlength=self.N).astype(np.float64)
        pair_counts = np.bincount(src_node[remote] * self.N + dst_node[remote], minlength=self.N * self.N)
        payload = pair_counts.reshape(self.N, self.N) * self.machine.messaging.edge_bytes
        work = _LevelWork(
            direction=TOP_DOWN,
            send_cycles=top_down_send_cycles(costs, scanned, packed),
            recv_cycles=np.zeros(self.N),
            edges_examined=len(targets),
            payload=payload,
        )
        self._pending_edges = (sources, targets, dst_node)
        return work

    def top_down_receive(self) -> None:
        """Owners claim unvisited targets; in receive-buffer order (by source
        node, then scan order) the first edge to a vertex sets its parent.
        ``np.minimum.at`` finds that first edge with defined semantics
        (a fancy assignment with repeated indices would leave the winner to
        numpy's iteration order)."""
        costs = self.machine.node.compute
        sources, targets, dst_node = self._pending_edges
        self._pending_edges = None
        received = np.bincount(dst_node, minlength=self.N).astype(np.float64)
        fresh = self.parent[targets] < 0
        candidates, candidate_parents = targets[fresh], sources[fresh]
        first_edge = np.full(self.n, len(candidates), dtype=np.int64)
        np.minimum.at(first_edge, candidates, np.arange(len(candidates), dtype=np.int64))
        new = np.flatnonzero(first_edge < len(candidates))
        self.parent[new] = candidate_parents[first_edge[new]]
        work = self._work
        work.recv_cycles = top_down_receive_cycles(costs, received, self.per_node(new))
        work.next_frontier = new

    def bottom_up_work(self) -> _LevelWork:
        costs = self.machine.node.compute
        in_frontier = np.zeros(self.n, dtype=bool)
        in_frontier[self.frontier] = True
        unvisited = np.flatnonzero(self.parent < 0)
        found, examined = first_frontier_neighbour(self.graph, unvisited, in_frontier)
        claimed = found >= 0
        new = unvisited[claimed]
        self.parent[new] = found[claimed]
        probes = self.per_node(unvisited, examined)
        return _LevelWork(
            direction=BOTTOM_UP,
            send_cycles=bottom_up_cycles(costs, probes, self.per_node(new)),
            recv_cycles=np.zeros(self.N),
            edges_examined=int(examined.sum()),
            next_frontier=new,
        )

    # --------------------------------------------------- the node processes
    def level_work(self) -> _LevelWork:
        """This level's work for all nodes, computed once when the first node
        asks for it (see the module docstring)."""
        if self._work is None:
            if self.direction == TOP_DOWN:
                self._work = self.top_down_work()
            else:
                self._work = self.bottom_up_work()
        return self._work

    def node_program(self, rank: int):
        """One node: per level, its compute and the level's collectives.

        Compute is passed to the next collective as ``after`` (the node
        arrives when it has finished computing) instead of being a timeout
        of its own: same timeline, half the events. The collectives report
        the compute (named by direction), the waits and themselves to the
        recorder."""
        coll = self.ctx.collectives
        node = self.machine.node
        while not self._done:
            level = self._level
            if self.direction == BOTTOM_UP:
                result = yield coll.allgather(rank, self._bitmap_bytes[rank], level=level)
                self._level_comm[0] = result.cost_s
                # every node receives the other nodes' slices of the bitmap
                self._collective_bytes = (self.N - 1) * self.n / 8
            work = self.level_work()
            if work.send_s is None:
                work.send_s = node.seconds(work.send_cycles).tolist()
            busy = work.send_s[rank]
            compute = busy
            if work.direction == TOP_DOWN:
                result = yield coll.alltoallv(rank, self._deliver, after=busy, work=TOP_DOWN, level=level)
                self._level_comm[1] = result.cost_s
                self._exchange = result.exchange
                if work.recv_s is None:
                    work.recv_s = node.seconds(work.recv_cycles).tolist()
                busy = work.recv_s[rank]
                compute += busy
            self._node_compute[rank] = compute
            yield coll.allreduce(rank, self._local_counts(rank), np.add, on_complete=self._finish_level,
                                 after=busy, work="claim" if work.direction == TOP_DOWN else BOTTOM_UP,
                                 level=level)

    def _deliver(self):
        self.top_down_receive()
        return self._work.payload, None, None

    def _local_counts(self, rank: int) -> np.ndarray:
        """(next frontier vertices, their edges) owned by ``rank``: its
        contribution to the closing allreduce. Computed for all ranks at
        once, the first time any rank asks in this level."""
        if self._counts is None:
            nf = self._work.next_frontier
            bounds = np.searchsorted(nf, self.starts)
            edges = np.concatenate([[0], np.cumsum(self.degree[nf])])
            self._counts = np.stack([np.diff(bounds), np.diff(edges[bounds])], axis=1)
        return self._counts[rank]

    def _finish_level(self, closing) -> None:
        """Runs once per level, when the closing allreduce completes and
        before any node resumes: record the level, choose what is next."""
        env = self.ctx.env
        work = self._work
        next_vertices, next_edges = int(closing.value[0]), int(closing.value[1])
        time_s = env.now - self._level_start
        comm = float(self._level_comm.sum()) + closing.cost_s
        compute_mean = float(self._node_compute.mean())
        exchange = self._exchange
        self.records.append(LevelRecord.with_rest_as_synchronisation(
            root=self.root,
            level=self._level,
            direction=work.direction,
            frontier_vertices=int(len(self.frontier)),
            edges_examined=int(work.edges_examined),
            messages=exchange.packets if exchange else 0,
            bytes=exchange.payload_bytes if exchange else 0.0,
            time_s=time_s,
            compute_s=compute_mean,
            communication_s=comm,
            compute_max_s=float(self._node_compute.max()),
            bottleneck=exchange.bottleneck if exchange else "none",
            collective_bytes=self._collective_bytes,
        ))
        self.ctx.recorder.level_done(self.records[-1])
        self.unexplored_edges -= next_edges
        if self.algorithm.direction_optimising:
            self.direction = choose_direction(
                self.direction,
                frontier_edges=next_edges,
                unexplored_edges=self.unexplored_edges,
                frontier_vertices=next_vertices,
                prev_frontier_vertices=len(self.frontier),
                num_vertices=self.n,
                alpha=self.algorithm.alpha,
                beta=self.algorithm.beta,
            )
        self.frontier = work.next_frontier
        self._work = None
        self._counts = None
        self._exchange = None
        self._collective_bytes = 0.0
        self._level_comm[:] = 0.0
        self._level += 1
        self._level_start = env.now
        self._done = next_vertices == 0

    def execute(self) -> RootRun:
        time_s = run_node_programs(self.ctx, self.node_program, self.N)
        return RootRun(root=self.root, parent=self.parent, time_s=time_s, levels=self.records)
