"""The reference BFS: a vectorised, direction-optimising BFS over the CSR.

It is the ground truth the simulated algorithms are checked against: their
levels must match its levels and their per-level work should be explainable
by its LevelStats. Correctness beats speed here, but it is still numpy
throughout so scale-20 graphs take seconds.

Top-down expands every frontier vertex's full list (edges examined = sum of
frontier degrees); a newly seen vertex takes the first frontier vertex (in
frontier order) that reaches it as parent. Bottom-up scans each unvisited
vertex's sorted list and stops at its first frontier neighbour, which
becomes its parent; edges examined count entries up to and including that
hit, or the whole list if there is none.
"""

from __future__ import annotations

import numpy as np

from simbfs.bfs.adjacency import batches_by_degree, neighbour_slots
from simbfs.bfs.direction import DEFAULT_ALPHA, DEFAULT_BETA, TOP_DOWN, choose_direction
from simbfs.bfs.result import UNREACHED, BFSResult, LevelStats
from simbfs.errors import UserError


def _first_in_each_run(sorted_values: np.ndarray) -> np.ndarray:
    """Mask of the first element of each run of equal values."""
    first = np.ones(sorted_values.size, dtype=bool)
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=first[1:])
    return first


def _top_down_step(graph, frontier, parent) -> tuple[np.ndarray, int]:
    discovered = []
    examined = 0
    for batch in batches_by_degree(graph.indptr, frontier):
        slots, lengths, _ = neighbour_slots(graph.indptr, batch)
        examined += slots.size
        neighbours = graph.indices[slots].astype(np.int64)
        sources = np.repeat(batch, lengths)
        unseen = parent[neighbours] == UNREACHED
        neighbours = neighbours[unseen]
        sources = sources[unseen]
        # The first candidate in frontier order becomes the parent: the
        # smallest position per neighbour (ufunc.at has defined semantics
        # for repeated indices, unlike fancy assignment), with no sort.
        first_position = np.full(graph.num_vertices, neighbours.size, dtype=np.int64)
        np.minimum.at(first_position, neighbours, np.arange(neighbours.size, dtype=np.int64))
        new_vertices = np.flatnonzero(first_position < neighbours.size)
        parent[new_vertices] = sources[first_position[new_vertices]]
        discovered.append(new_vertices)
    next_frontier = np.concatenate(discovered) if discovered else np.empty(0, np.int64)
    next_frontier.sort()
    return next_frontier, examined


def _bottom_up_step(graph, frontier, parent, degree) -> tuple[np.ndarray, int]:
    in_frontier = np.zeros(graph.num_vertices, dtype=bool)
    in_frontier[frontier] = True
    unvisited = np.flatnonzero((parent == UNREACHED) & (degree > 0))
    discovered = []
    examined = 0
    for batch in batches_by_degree(graph.indptr, unvisited):
        slots, lengths, row_offsets = neighbour_slots(graph.indptr, batch)
        neighbours = graph.indices[slots]
        hits = np.flatnonzero(in_frontier[neighbours])
        hit_rows = np.searchsorted(row_offsets, hits, side="right") - 1
        first = _first_in_each_run(hit_rows)
        rows = hit_rows[first]
        hit_positions = hits[first]
        # Rows with a hit stop after it; the rest scan their whole list.
        examined += slots.size - int((lengths[rows] - (hit_positions - row_offsets[rows] + 1)).sum())
        new_vertices = batch[rows]
        parent[new_vertices] = neighbours[hit_positions]
        discovered.append(new_vertices)
    next_frontier = np.concatenate(discovered) if discovered else np.empty(0, np.int64)
    return next_frontier, examined


def bfs_reference(graph, root: int, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA,
                  direction_optimising: bool = True) -> BFSResult:
    """BFS from `root`; top-down only unless direction_optimising."""
    n = graph.num_vertices
    if not 0 <= int(root) < n:
        raise UserError(f"BFS root {root} is not a vertex of this graph (0..{n - 1})")
    root = int(root)
    degree = graph.degree
    parent = np.full(n, UNREACHED, dtype=np.int64)
    level = np.full(n, UNREACHED, dtype=np.int64)
    parent[root] = root
    level[root] = 0

    frontier = np.array([root], dtype=np.int64)
    direction = TOP_DOWN
    previous_frontier_vertices = 0
    unexplored_edges = int(degree.sum()) - int(degree[root])
    stats = []
    depth = 0
    while frontier.size:
        if direction_optimising and depth > 0:  # the root's level is top-down, as in bsp1d
            direction = choose_direction(
                direction,
                frontier_edges=int(degree[frontier].sum()),
                unexplored_edges=unexplored_edges,
                frontier_vertices=int(frontier.size),
                prev_frontier_vertices=previous_frontier_vertices,
                num_vertices=n,
                alpha=alpha,
                beta=beta,
            )
        if direction == TOP_DOWN:
            next_frontier, examined = _top_down_step(graph, frontier, parent)
        else:
            next_frontier, examined = _bottom_up_step(graph, frontier, parent, degree)
        stats.append(LevelStats(depth, direction, int(frontier.size), int(examined)))
        level[next_frontier] = depth + 1
        unexplored_edges -= int(degree[next_frontier].sum())
        previous_frontier_vertices = int(frontier.size)
        frontier = next_frontier
        depth += 1
    return BFSResult(parent=parent, level=level, levels=stats)
