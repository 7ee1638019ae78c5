"""The compiled loops of a Cell level plan (``work.plan_level``).

In numpy the plan of a level took more time than the simpy processes
that replay it: the greedy bG fill searched every SPE's cumulative Qout
bytes once per chunk (a Python loop over the chunks, with N + 1
searchsorted each), and the frontier was put in bitmap order with a sort,
expanded to one entry per edge (repeat, gather, a "first discovery per
vertex" table) and summed per (round, SPE) with one bincount per SPE.
These two loops read the queues, the layout's rows and the frontier's
lists once per level (a few short passes per chunk), with no per-edge
array: at scale 20 on 8 SPEs the plan of a root fell from about 2.8 s to
0.4 s.

They compute exactly what the numpy version did (the regression documents
and cmp of cell-bsp and cell-overlap runs, traces included, are
byte-identical):

* :func:`chunk_starts` builds the same cumulative sums (sequential, as
  np.cumsum) and, from each chunk start, moves the end forward while every
  bound holds: the sums never decrease, so where the first bound fails is
  the smallest of the per-bound searchsorted positions;
* :func:`plan_rounds` visits the frontier in the order the bitmap steps
  see it (round, then sender, then queue order), so the first edge to reach
  an unvisited vertex is the one the numpy version kept; its per-round
  counts are whole numbers, and its per-round Qout bytes are added in
  queue order from zero, as np.bincount added them.
"""

from __future__ import annotations

import numpy as np

from ...bfs.compiled import compiled


@compiled(nogil=True)
def chunk_starts(queue, list_bytes, entry_bytes, bg_bytes, q_cap, max_lists):
    """The starts of the greedy chunks of one queue (Algorithm 3, lines
    16-19): from each start, as many consecutive lists as keep their bytes
    within ``bg_bytes``, each SPE's Qout entries within ``q_cap`` and the
    count within ``max_lists`` (at least one list per chunk).

    ``list_bytes`` (n,) and ``entry_bytes`` (n, N) are every vertex's
    stored list and Qout entries (the layout's), read for the vertices of
    ``queue`` in queue order. Also returns the largest list and the largest
    entry of the queue (0 for an empty queue), which the caller checks
    against the buffers."""
    count = len(queue)
    N = entry_bytes.shape[1]
    cum_list = np.zeros(count + 1)
    cum_entry = np.zeros((count + 1, N))
    largest_list = 0.0
    largest_entry = 0.0
    for i in range(count):
        v = queue[i]
        cum_list[i + 1] = cum_list[i] + list_bytes[v]
        largest_list = max(largest_list, list_bytes[v])
        for p in range(N):
            cum_entry[i + 1, p] = cum_entry[i, p] + entry_bytes[v, p]
            largest_entry = max(largest_entry, entry_bytes[v, p])
    starts = np.zeros(count + 1, dtype=np.int64)
    chunks = 1
    s = 0
    while True:
        limit = min(s + max_lists, count)
        list_end = cum_list[s] + bg_bytes
        e = s
        while e < limit:
            following = e + 1
            fits = cum_list[following] <= list_end
            p = 0
            while fits and p < N:
                fits = cum_entry[following, p] <= cum_entry[s, p] + q_cap
                p += 1
            if not fits:
                break
            e = following
        end = max(e, s + 1)
        if end >= count:
            break
        starts[chunks] = end
        chunks += 1
        s = end
    return starts[:chunks], largest_list, largest_entry


@compiled(inline="always")
def _claim(w, v, t, block, visited, parent, new, claims, new_in):
    """Edge v -> w in round t: claim w if it is unvisited; returns the claims so far."""
    if visited[w]:
        return claims
    visited[w] = True
    parent[w] = v
    new[claims] = w
    new_in[t, w // block] += 1
    return claims + 1


@compiled(nogil=True)
def plan_rounds(indptr, indices, queue, chunk_lo, chunk_hi, block, portion_edges, portion_quadwords,
                entry_bytes, visited, parent):
    """One level's work and counts, round by round.

    Chunk (t, r), round t of SPE r, is ``queue[chunk_lo[t, r]:chunk_hi[t, r]]``
    (empty where the SPE has fewer rounds). The frontier is read in
    bitmap order, round, then sender, then queue order; each unvisited
    target is claimed by the first edge that reaches it: ``visited`` and
    ``parent`` are updated in place.

    A chunk is read in three short passes rather than one: its lists'
    lengths and first and last targets (a list's first and last cache
    lines), then its per-SPE portions, then its edges, in order, for the
    claims. The lists and the layout's rows of a chunk lie anywhere in
    memory; in a pass that does little else, their loads do not wait for
    one another and the cache misses overlap (about half the time of one
    pass doing everything, per level).

    Returns, per (round, SPE) as float64 (K, N): lists, edges, portions
    and quadwords sent; put_bytes (K, N, N), the Qout bytes of sender r
    for SPE p; edges, portions and quadwords received; the vertices
    claimed per owner; then the claimed vertices in discovery order and
    the edges examined.
    """
    K, N = chunk_lo.shape
    lists = np.zeros((K, N), dtype=np.int64)
    edges_out = np.zeros((K, N), dtype=np.int64)
    portions_out = np.zeros((K, N), dtype=np.int64)
    quadwords_out = np.zeros((K, N), dtype=np.int64)
    put_bytes = np.zeros((K, N, N))
    edges_in = np.zeros((K, N), dtype=np.int64)
    portions_in = np.zeros((K, N), dtype=np.int64)
    quadwords_in = np.zeros((K, N), dtype=np.int64)
    new_in = np.zeros((K, N), dtype=np.int64)
    new = np.empty(len(visited), dtype=np.int64)
    heads = np.empty(len(queue), dtype=np.int64)  # each list's first target
    tails = np.empty(len(queue), dtype=np.int64)  # and its last
    claims = 0
    examined = 0
    for t in range(K):
        for r in range(N):
            lo, hi = chunk_lo[t, r], chunk_hi[t, r]
            for i in range(lo, hi):
                v = queue[i]
                first, last = indptr[v], indptr[v + 1]
                edges_out[t, r] += last - first
                examined += last - first
                if last > first:
                    lists[t, r] += 1
                    heads[i] = indices[first]
                    tails[i] = indices[last - 1]
            sent_portions = 0
            sent_quadwords = 0
            for i in range(lo, hi):
                v = queue[i]
                for p in range(N):
                    portion = portion_edges[v, p]
                    quadwords = portion_quadwords[v, p]
                    if portion > 0:
                        sent_portions += 1
                        portions_in[t, p] += 1
                    edges_in[t, p] += portion
                    sent_quadwords += quadwords
                    quadwords_in[t, p] += quadwords
                    put_bytes[t, r, p] += entry_bytes[v, p]
            portions_out[t, r] = sent_portions
            quadwords_out[t, r] = sent_quadwords
            for i in range(lo, hi):
                v = queue[i]
                first, last = indptr[v], indptr[v + 1]
                if last > first:
                    claims = _claim(heads[i], v, t, block, visited, parent, new, claims, new_in)
                for slot in range(first + 1, last - 1):
                    claims = _claim(np.int64(indices[slot]), v, t, block, visited, parent, new, claims, new_in)
                if last - first > 1:
                    claims = _claim(tails[i], v, t, block, visited, parent, new, claims, new_in)
    as_float = np.float64
    return (lists.astype(as_float), edges_out.astype(as_float), portions_out.astype(as_float),
            quadwords_out.astype(as_float), put_bytes, edges_in.astype(as_float), portions_in.astype(as_float),
            quadwords_in.astype(as_float), new_in.astype(as_float), new[:claims].copy(), examined)
