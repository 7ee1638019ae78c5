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

from dataclasses import dataclass, field

import numpy as np

from simbfs.bfs.parallel import map_in_order, worker_threads
from simbfs.bfs.result import UNREACHED
from simbfs.graph.mapped import release_pages

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


# A tuple check returns (rule 3, rule 4, rule 5 marks) for a batch of
# tuples: rule 3 as (count, u, v, level u, level v) and rule 4 as
# (count, u, v), each for the batch's first offending tuple, or None; the
# marks are the vertices v of tuples (parent[v], v) (rule 5 as Graph500's
# validator checks it: a vertex's tree edge must be one of the input
# tuples, in either orientation when the graph is undirected).

def _first(mask, src, dst, src_level=None, dst_level=None):
    if not mask.any():
        return None
    index, count = _example(mask)
    if src_level is None:
        return count, int(src[index]), int(dst[index])
    return count, int(src[index]), int(dst[index]), int(src_level[index]), int(dst_level[index])


_UNREACHED_DEPTH = 127  # at least 2 from every depth a key holds (0 to 125)


def _depth_keys(depth: np.ndarray, parent: np.ndarray) -> np.ndarray | None:
    """One int16 per vertex: its depth in the high byte (127 if unreached)
    and its parent's low byte in the low one; None if a depth exceeds 125.

    One 2-byte gather per endpoint then serves every rule: depths 0 to 125
    and the unreached 127 make "differ by more than one" cover rule 3 and
    rule 4 at once, and the parent's low byte leaves for rule 5's exact
    parent lookup, the costliest gather of the pass (4 bytes a vertex, out
    of cache), only the tree edges and the other tuples going one level
    down whose ends share a low byte (about 1 in 256 of them)."""
    if int(depth.max(initial=0)) > _UNREACHED_DEPTH - 2:
        return None
    high = np.where(depth == UNREACHED, _UNREACHED_DEPTH, depth).astype(np.int16) << 8
    return high | (parent & 0xFF).astype(np.int16)


class _KeyedTuples:
    """Rules 3 to 5 from depth keys (:func:`_depth_keys`): the levels are
    the tree's depths and reached means having one."""

    def __init__(self, keys, parent, directed):
        self.keys = keys
        self.parent = parent.astype(np.int32) if parent.size < 2**31 else parent
        self.directed = directed

    def __call__(self, src, dst):
        # (take, not [], which converts 32-bit indices first; an id
        # beyond the vertices raises IndexError, as it always did)
        src_key = self.keys.take(src)
        dst_key = self.keys.take(dst)
        step = (dst_key >> 8) - (src_key >> 8)
        # directed: a tuple may go back any number of levels, and one from
        # an unreached vertex (127) never has a step above 1
        far = step > 1 if self.directed else np.abs(step) > 1
        rule3 = rule4 = None
        if far.any():
            where = np.flatnonzero(far)
            src_level, dst_level = src_key[where] >> 8, dst_key[where] >> 8
            one_reached = (src_level == _UNREACHED_DEPTH) != (dst_level == _UNREACHED_DEPTH)
            src_at, dst_at = src[where], dst[where]
            rule3 = _first(~one_reached, src_at, dst_at, src_level, dst_level)
            rule4 = _first(one_reached, src_at, dst_at)
        marks = self.tree_edge_ends(src, dst, step == 1, dst_key)
        if not self.directed:
            marks = np.concatenate([marks, self.tree_edge_ends(dst, src, step == -1, src_key)])
        return rule3, rule4, marks

    def tree_edge_ends(self, src, dst, one_deeper, dst_key):
        """The dst of tuples (src, dst) with parent[dst] == src: such a tuple
        joins depths d and d + 1, and dst's key holds src's low byte."""
        candidates = np.flatnonzero(one_deeper & (dst_key.astype(np.int8) == src.astype(np.int8)))
        ends = dst[candidates]
        return ends[self.parent.take(ends) == src[candidates]]


class _LevelTuples:
    """Rules 3 to 5 from any levels: supplied by the search, beside a tree
    with a cycle, or deeper than depth keys hold."""

    def __init__(self, levels, parent, reached, directed):
        # Narrow levels shrink the random gathers per tuple (differences are
        # taken in 64 bits). Only levels from UNREACHED up are narrowed: a
        # supplied level below it would wrap and could hide a failure.
        deepest = int(levels.max(initial=0))
        narrow = np.int8 if deepest < 127 else np.int16 if deepest < 2**15 - 1 else np.int32
        in_range = int(levels.min(initial=0)) >= UNREACHED and deepest < 2**31 - 1
        self.levels = levels.astype(narrow) if in_range else levels
        self.parent = parent
        self.reached = reached
        self.directed = directed

    def __call__(self, src, dst):
        # the gathers index with intp: numpy converts 32-bit indices at
        # every gather, 2-3x slower at scale 20; so once a batch
        src_at, dst_at = src.astype(np.intp), dst.astype(np.intp)
        src_level = self.levels[src_at]
        dst_level = self.levels[dst_at]
        src_reached, dst_reached = self.reached[src_at], self.reached[dst_at]
        if self.directed:
            too_far = src_reached & dst_reached & (dst_level.astype(np.int64) - src_level > 1)
            rule3 = _first(too_far, src, dst, src_level, dst_level)
            rule4 = _first(src_reached & ~dst_reached, src, dst)
            return rule3, rule4, self.tree_edge_ends(src, dst_at)
        # rule 3 reads the levels themselves: a supplied level array may
        # disagree with the tree about who is reached (a rule 2 failure)
        too_far = ((src_level != UNREACHED) & (dst_level != UNREACHED)
                   & (np.abs(dst_level.astype(np.int64) - src_level) > 1))
        rule3 = _first(too_far, src, dst, src_level, dst_level)
        rule4 = _first(src_reached != dst_reached, src, dst)
        return rule3, rule4, np.concatenate([self.tree_edge_ends(src, dst_at), self.tree_edge_ends(dst, src_at)])

    def tree_edge_ends(self, src, dst_at):
        return dst_at[self.parent[dst_at] == src]


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
    directed = bool(getattr(graph, "directed", False))
    # With no cycle the levels are the tree's depths (every reached vertex
    # one more than its parent), and "reached" is exactly "has a depth".
    levels_are_depths = level is None and not cyclic.any()
    keys = _depth_keys(levels, parent) if levels_are_depths else None
    if keys is not None:
        check_tuples = _KeyedTuples(keys, parent, directed)
    else:
        check_tuples = _LevelTuples(levels, parent, reached, directed)

    # numpy releases the GIL in these gathers, so batches run on threads;
    # results are merged in batch order, so the report is deterministic.
    # A cached graph is mapped from its files (graph/mapped.py): the pass
    # reads no CSR, so the search's CSR pages leave the resident set first,
    # and each batch's tuple pages once it is checked, so that the graph is
    # never resident at once (the page cache keeps it; values never change).
    for array in (getattr(graph, "indptr", None), getattr(graph, "indices", None)):
        release_pages(array)
    m = len(graph.edges)
    workers = worker_threads()
    batch = min(_TUPLE_BATCH, max(1 << 20, -(-m // workers)))
    bounds = [(start, min(start + batch, m)) for start in range(0, m, batch)]

    def check_batch(span):
        src, dst = graph.edges.src[span[0]:span[1]], graph.edges.dst[span[0]:span[1]]
        try:
            return check_tuples(src, dst)
        finally:
            release_pages(src)
            release_pages(dst)

    results = map_in_order(check_batch, bounds, workers)
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
