"""The five Graph500 BFS validation rules, vectorised.

1. The parent array is a tree rooted at `root`: parent[root] == root, every
   reached vertex has a reached parent, and following parents from any
   reached vertex ends at the root (no cycles).
2. Tree edges join vertices whose BFS levels differ by exactly one.
3. Every input tuple joins vertices whose levels differ by at most one, or
   both endpoints are unreached.
4. The tree spans the root's component: no input tuple has exactly one
   reached endpoint.
5. Each reached vertex other than the root shares an input edge with its
   parent.

Levels are the tree depths, found by pointer jumping (each round doubles
how far every vertex's ancestor pointer reaches, so ~log2(n) vectorised
rounds; a pointer that never reaches the root marks a cycle). Graph500's
validator sees only the parent array, and then rule 2 holds by
construction; when the caller also passes the BFS's own `level` array, rule
2 checks that array against the tree and rule 3 uses it, so a search that
reports wrong levels is caught too.

Directed graphs (the Cell paper's uniform graphs, ``graph.directed``): a
search follows tuples (u, v) from u to v only, so rules 3 to 5 read:
3. a tuple leaving a reached vertex u ends at a vertex whose level is at
   most level(u) + 1 (BFS levels are shortest distances from the root);
4. the tree spans what the root reaches: no tuple leads from a reached
   vertex to an unreached one;
5. each reached vertex v other than the root has an input tuple
   (parent[v], v).
Rules 1 and 2 are unchanged. Together they say the levels are the directed
shortest-path distances and the tree uses only input edges.

Rules 3, 4 and 5 share one pass over the input tuples. Rule 5 is checked
the way Graph500's own validator does it: every tuple (u, v) with
parent[v] == u (or parent[u] == v) marks v (or u) as having its tree edge
among the input edges; every reached vertex but the root must be marked.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from simbfs.bfs.result import UNREACHED

_TUPLE_BATCH = 1 << 24


@dataclass
class ValidationReport:
    ok: bool
    failures: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.ok


def _example(mask: np.ndarray) -> tuple[int, int]:
    """(first index where mask holds, how many hold)."""
    where = np.flatnonzero(mask)
    return int(where[0]), int(where.size)


def _tree_depths(parent: np.ndarray, root: int, reached: np.ndarray, usable: np.ndarray):
    """Depth of every reached vertex; -1 where following parents never reaches root."""
    n = parent.size
    ancestor = np.where(usable, parent, np.arange(n))
    ancestor[root] = root
    distance = (reached & (np.arange(n) != root)).astype(np.int64)
    # After r rounds ancestor[v] is v's 2**r-th ancestor (capped at the root).
    for _ in range(max(1, int(n).bit_length() + 1)):
        pending = ancestor != root
        pending &= reached
        if not pending.any():
            break
        distance += distance[ancestor]
        ancestor = ancestor[ancestor]
    depth = np.where(reached & (ancestor == root), distance, UNREACHED)
    return depth


def validate_bfs_tree(graph, root: int, parent: np.ndarray,
                      level: np.ndarray | None = None) -> ValidationReport:
    """Check a BFS parent array (and optionally its levels) against the five rules."""
    n = graph.num_vertices
    failures: list[str] = []
    parent = np.asarray(parent)
    if parent.shape != (n,):
        return ValidationReport(False, [
            f"rule 1 (tree): parent array has shape {parent.shape}, expected ({n},)"])
    if not 0 <= root < n:
        return ValidationReport(False, [f"rule 1 (tree): root {root} is not a vertex"])
    parent = parent.astype(np.int64, copy=False)
    reached = parent != UNREACHED

    # Rule 1 -----------------------------------------------------------------
    if parent[root] != root:
        failures.append(f"rule 1 (tree): parent[root={root}] is {parent[root]}, expected {root}")
    in_range = (parent >= 0) & (parent < n)
    if (reached & ~in_range).any():
        vertex, count = _example(reached & ~in_range)
        failures.append(f"rule 1 (tree): vertex {vertex} has invalid parent {parent[vertex]} "
                        f"({count} such vertices)")
    usable = reached & in_range
    usable[usable] = reached[parent[usable]]
    orphaned = reached & in_range & ~usable
    if orphaned.any():
        vertex, count = _example(orphaned)
        failures.append(f"rule 1 (tree): vertex {vertex}'s parent {parent[vertex]} is unreached "
                        f"({count} such vertices)")
    depth = _tree_depths(parent, root, reached, usable)
    cyclic = reached & (depth == UNREACHED)
    cyclic[root] = False
    if cyclic.any():
        vertex, count = _example(cyclic)
        failures.append(f"rule 1 (tree): following parents from vertex {vertex} never reaches "
                        f"the root (cycle; {count} such vertices)")

    # Rule 2 -----------------------------------------------------------------
    children = usable.copy()
    children[root] = False
    if level is None:
        levels = depth
    else:
        levels = np.asarray(level)
        if levels.shape != (n,):
            failures.append(f"rule 2 (tree levels): level array has shape {levels.shape}, "
                            f"expected ({n},)")
            levels = depth
        else:
            levels = levels.astype(np.int64, copy=False)
            if levels[root] != 0:
                failures.append(f"rule 2 (tree levels): level[root={root}] is {levels[root]}, "
                                "expected 0")
            mismatch = (levels != UNREACHED) != reached
            if mismatch.any():
                vertex, count = _example(mismatch)
                failures.append(f"rule 2 (tree levels): vertex {vertex} has level "
                                f"{levels[vertex]} but parent {parent[vertex]} "
                                f"({count} vertices disagree on being reached)")
    tree_child = np.flatnonzero(children)
    step = levels[tree_child] - levels[parent[tree_child]]
    defined = (levels[tree_child] != UNREACHED) & (levels[parent[tree_child]] != UNREACHED)
    wrong_step = defined & (step != 1)
    if wrong_step.any():
        index, count = _example(wrong_step)
        vertex = int(tree_child[index])
        failures.append(f"rule 2 (tree levels): tree edge {parent[vertex]}->{vertex} joins levels "
                        f"{levels[parent[vertex]]} and {levels[vertex]} ({count} such edges)")

    # Rules 3, 4 and 5: one pass over the input tuples ------------------------
    # Narrow levels shrink the random gathers per tuple: a BFS is rarely
    # deeper than 126 levels, and then 1 byte a vertex keeps the gathered
    # array in cache (differences of two such levels stay within 8 bits).
    # (Only levels from UNREACHED up are narrowed: a supplied level below it
    # would wrap and could hide a failure.)
    deepest = int(levels.max(initial=0))
    narrow = np.int8 if deepest < 127 else np.int16 if deepest < 2**15 - 1 else np.int32
    in_range = int(levels.min(initial=0)) >= UNREACHED and deepest < 2**31 - 1
    compact = levels.astype(narrow) if in_range else levels
    compact_parent = parent.astype(np.int32) if n < 2**31 else parent
    # With no cycle, the levels are the tree's depths (every reached vertex
    # one more than its parent), and "reached" is exactly "has a level",
    # already gathered.
    levels_are_depths = level is None and not cyclic.any()
    step_type = np.int16 if compact.dtype == np.int8 else np.int64  # holds a difference of two levels

    def check_tuples(start: int, stop: int):
        src = graph.edges.src[start:stop]
        dst = graph.edges.dst[start:stop]
        # the gathers index with intp: numpy converts 32-bit indices at
        # every gather, which made them 2-3x slower (scale 20); once a batch
        src_at, dst_at = src.astype(np.intp), dst.astype(np.intp)
        src_level = compact[src_at]
        dst_level = compact[dst_at]
        if directed:
            return check_directed(src, dst, src_level, dst_level, src_at, dst_at)
        too_far = ((src_level != UNREACHED) & (dst_level != UNREACHED)
                   & (np.abs(src_level - dst_level) > 1))
        rule3 = None
        if too_far.any():
            index, count = _example(too_far)
            rule3 = (count, int(src[index]), int(dst[index]), int(src_level[index]), int(dst_level[index]))
        if levels_are_depths:
            straddles = (src_level != UNREACHED) != (dst_level != UNREACHED)
        else:
            straddles = reached[src_at] != reached[dst_at]
        rule4 = None
        if straddles.any():
            index, count = _example(straddles)
            rule4 = (count, int(src[index]), int(dst[index]))
        # Rule 5 as Graph500's validator checks it: a vertex's tree edge must
        # be one of the input tuples, in either orientation.
        return rule3, rule4, np.concatenate([tree_edge_ends(src, dst_at, src_level, dst_level),
                                             tree_edge_ends(dst, src_at, dst_level, src_level)])

    def tree_edge_ends(src, dst_at, src_level, dst_level):
        """Rule 5's marks: the vertices v of tuples (parent[v], v). When the
        levels are the tree's depths, such a tuple joins depths d and d + 1,
        so only the tuples that do are looked up (a fifth of them in a
        Kronecker graph): the parents' gather is the costliest of the pass
        (4 bytes a vertex, out of cache)."""
        if levels_are_depths:
            step = np.flatnonzero(np.subtract(dst_level, src_level, dtype=step_type) == 1)
            src, dst_at = src[step], dst_at[step]
        return dst_at[compact_parent[dst_at] == src]

    directed = bool(getattr(graph, "directed", False))

    def check_directed(src, dst, src_level, dst_level, src_at, dst_at):
        src_reached = src_level != UNREACHED
        dst_reached = dst_level != UNREACHED
        if not levels_are_depths:
            src_reached, dst_reached = reached[src_at], reached[dst_at]
        too_far = src_reached & dst_reached & (dst_level - src_level > 1)
        rule3 = None
        if too_far.any():
            index, count = _example(too_far)
            rule3 = (count, int(src[index]), int(dst[index]), int(src_level[index]), int(dst_level[index]))
        leaves = src_reached & ~dst_reached
        rule4 = None
        if leaves.any():
            index, count = _example(leaves)
            rule4 = (count, int(src[index]), int(dst[index]))
        return rule3, rule4, tree_edge_ends(src, dst_at, src_level, dst_level)

    # numpy releases the GIL in these gathers, so batches run on threads;
    # results are merged in batch order, so the report is deterministic.
    m = len(graph.edges)
    workers = max(1, min(4, os.cpu_count() or 1))
    batch = min(_TUPLE_BATCH, max(1 << 20, -(-m // workers)))
    bounds = [(start, min(start + batch, m)) for start in range(0, m, batch)]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda span: check_tuples(*span), bounds))
    has_tree_edge = np.zeros(n, dtype=bool)
    rule3_count = rule4_count = 0
    rule3_example = rule4_example = None
    for rule3, rule4, with_tree_edge in results:
        if rule3:
            rule3_count += rule3[0]
            rule3_example = rule3_example or rule3[1:]
        if rule4:
            rule4_count += rule4[0]
            rule4_example = rule4_example or rule4[1:]
        has_tree_edge[with_tree_edge] = True
    if rule3_count:
        u, v, lu, lv = rule3_example
        failures.append(f"rule 3 (input edges span at most one level): edge ({u}, {v}) joins "
                        f"levels {lu} and {lv} ({rule3_count} such tuples)")
    if rule4_count:
        u, v = rule4_example
        failures.append(f"rule 4 (tree spans the component): edge ({u}, {v}) has exactly one "
                        f"reached endpoint ({rule4_count} such tuples)")

    # Rule 5 -----------------------------------------------------------------
    orphan = children & ~has_tree_edge
    if orphan.any():
        vertex, count = _example(orphan)
        failures.append(f"rule 5 (parent is a neighbour): vertex {vertex} and its parent "
                        f"{parent[vertex]} share no input edge ({count} such vertices)")

    return ValidationReport(ok=not failures, failures=failures)
