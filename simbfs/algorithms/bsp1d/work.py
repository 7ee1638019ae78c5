"""The work of one bsp1d level, counted per node on the real graph.

Vertex v belongs to node ``v * N // n`` (contiguous blocks whose sizes
differ by at most one, so every node owns vertices whenever N <= n); each
node holds the adjacency lists of its own vertices (both directions of
every undirected edge).

Top-down: a node scans the lists of its frontier vertices and packs every
edge whose target lives on another node for that node; after the
exchange, each node checks the edges it receives and claims its unvisited
targets. Bottom-up: a node scans its own unvisited vertices and stops at
the first neighbour in the frontier (the frontier's bitmap is replicated
on every node), and claims the vertex it found a parent for.

The level's work is computed for all nodes in one vectorised pass over the
real graph: the nodes' partitions are disjoint and a BSP level only reads
the state of the previous one, so this is the same computation as N
separate passes. No time appears here (pricing.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ...bfs.adjacency import neighbour_slots
from ...bfs.direction import BOTTOM_UP, TOP_DOWN
from ...bfs.parallel import balanced_chunks, in_parallel, worker_threads
from ...bfs.partition import block_owner
from ...engine.traffic import PairTraffic
from ...graph import Graph


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


@dataclass(frozen=True)
class LevelWork:
    """One level's work per node (arrays of N floats) and its claims.

    A count a direction does not have is zero: top-down levels scan, pack,
    receive and claim; bottom-up levels probe and claim."""

    direction: str
    scanned: np.ndarray  # adjacency entries of the node's frontier vertices
    packed: np.ndarray  # of those, the edges to other nodes
    received: np.ndarray  # edges whose target the node owns, checked after the exchange
    probes: np.ndarray  # adjacency entries a bottom-up level examines
    claimed: np.ndarray  # vertices the node claims
    pairs: PairTraffic | None  # edges (as payload) node i sends node j, on the pairs that talk (top-down)
    edges_examined: int
    new_vertices: np.ndarray  # ascending
    new_parents: np.ndarray


def per_node(vertices: np.ndarray, n: int, nodes: int, weights=None) -> np.ndarray:
    """How many of ``vertices`` (or their ``weights``) each node owns."""
    return np.bincount(block_owner(vertices, n, nodes), weights=weights, minlength=nodes).astype(np.float64)


def top_down(graph: Graph, frontier: np.ndarray, visited: np.ndarray, nodes: int) -> LevelWork:
    """A top-down level: the frontier's edges are scanned and sent to their
    targets' owners, which claim the unvisited targets. In receive-buffer
    order (by source node, then scan order) the first edge to a vertex sets
    its parent; ``np.minimum.at`` finds that first edge with defined
    semantics (a fancy assignment with repeated indices would leave the
    winner to numpy's iteration order)."""
    n, N = graph.num_vertices, nodes
    zero = np.zeros(N)
    sources, targets = gather_adjacency(graph, frontier)
    src_node = block_owner(sources, n, N)
    dst_node = block_owner(targets, n, N)
    remote = src_node != dst_node
    fresh = ~visited[targets]
    candidates, candidate_parents = targets[fresh], sources[fresh]
    first_edge = np.full(n, len(candidates), dtype=np.int64)
    np.minimum.at(first_edge, candidates, np.arange(len(candidates), dtype=np.int64))
    new = np.flatnonzero(first_edge < len(candidates))
    keys, edges = np.unique(src_node[remote] * N + dst_node[remote], return_counts=True)
    pairs = PairTraffic.from_keys(N, keys, edges)
    return LevelWork(
        direction=TOP_DOWN,
        scanned=per_node(frontier, n, N, graph.degree[frontier]),
        packed=np.bincount(src_node[remote], minlength=N).astype(np.float64),
        received=np.bincount(dst_node, minlength=N).astype(np.float64),
        probes=zero,
        claimed=per_node(new, n, N),
        pairs=pairs,
        edges_examined=len(targets),
        new_vertices=new,
        new_parents=candidate_parents[first_edge[new]],
    )


def bottom_up(graph: Graph, frontier: np.ndarray, visited: np.ndarray, nodes: int) -> LevelWork:
    """A bottom-up level: every unvisited vertex looks for its first
    neighbour in the frontier, which becomes its parent."""
    n, N = graph.num_vertices, nodes
    zero = np.zeros(N)
    in_frontier = np.zeros(n, dtype=bool)
    in_frontier[frontier] = True
    unvisited = np.flatnonzero(~visited)
    found, examined = first_frontier_neighbour(graph, unvisited, in_frontier)
    claimed = found >= 0
    new = unvisited[claimed]
    return LevelWork(
        direction=BOTTOM_UP,
        scanned=zero,
        packed=zero,
        received=zero,
        probes=per_node(unvisited, n, N, examined),
        claimed=per_node(new, n, N),
        pairs=None,
        edges_examined=int(examined.sum()),
        new_vertices=new,
        new_parents=found[claimed],
    )
