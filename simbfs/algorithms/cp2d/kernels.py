"""The compiled scan of a cp2d level.

cp2d is top-down only, so over a search it reads every adjacency entry
of the graph once. In numpy the scan took some fifteen whole-array
passes per level over the frontier's entries, and its "smallest parent
per (target, grid column)" a table over n x C keys: 5-8x scipy's whole
BFS per root. This loop reads the CSR arrays once and keeps no
per-entry array.

It computes exactly what ``work.Scanner.top_down`` states, with the
same counts (the regression documents are byte-identical):

* the frontier is read in ascending order, so the first time node
  (row(v), col(u)) meets a target v that its Vis does not hold, u is the
  smallest such parent: the node sets Vis there and then, and the later
  entries of v at that node are duplicates (the numpy version kept the
  smallest source per key, the same pair);
* a pair is remote when its holder is not v's owner; the owner claims an
  unvisited v with the smallest parent among its pairs.

A grid column's entries touch only that column's Vis bits, so runs of
whole columns are scanned on separate host threads (bfs/parallel.py);
their counts add up and their claim candidates are joined in order, and
the claims are the smallest parents whatever the runs.
"""

from __future__ import annotations

import numpy as np

from ...bfs.compiled import compiled, grown as _grown, scaled


@compiled(nogil=True)
def top_down_scan(indptr, indices, frontier, vis, stride, visited, n, N, R, owner_shift, entries, packed, pairs):
    """One level's scan and fold for the frontier vertices ``frontier`` (a
    run of the ascending frontier; runs on threads must hold whole grid
    columns).

    ``vis`` is the bitmap over keys c * stride + v (node (row(v), c)'s
    Vis; ``stride``, n rounded up to a multiple of 8, gives every grid
    column whole bytes of its own), and gets the pairs sent or claimed in
    place. ``visited`` is the bitmap of the vertices visited before this
    level (read only).

    Adds to ``entries`` and ``packed`` (per node: the entries it holds and
    reads, the pairs it packs for another node) and ``pairs`` (C x N,
    holder's grid column * N + owner: the holder is the node of that
    column in the owner's grid row, so a pair of nodes that can talk has
    one entry, and the table grows as N^1.5, never N x N): the holders are
    the frontier's grid columns' nodes, so runs of whole columns on threads
    add to rows of their own.
    Returns per node the pairs it receives, and the claim candidates: each
    pair whose target is unvisited, as (target, parent), in discovery order
    (claim_targets finds the winners).
    """
    unpacked = np.zeros(N, dtype=np.int64)
    candidate_target = np.empty(max(len(frontier), 16), dtype=np.int64)
    candidate_parent = np.empty(len(candidate_target), dtype=np.int64)
    candidates = 0
    for i in range(len(frontier)):
        u = frontier[i]
        column = scaled(u, N, n, owner_shift) // R
        for slot in range(indptr[u], indptr[u + 1]):
            v = np.int64(indices[slot])
            owner = scaled(v, N, n, owner_shift)
            holder = column * R + owner % R
            entries[holder] += 1
            key = column * stride + v
            bit = np.uint8(1 << (key & 7))
            if vis[key >> 3] & bit:
                continue
            vis[key >> 3] |= bit
            if holder != owner:
                packed[holder] += 1
                unpacked[owner] += 1
                pairs[column * N + owner] += 1
            if not visited[v >> 3] & np.uint8(1 << (v & 7)):
                if candidates == len(candidate_target):
                    candidate_target = _grown(candidate_target)
                    candidate_parent = _grown(candidate_parent)
                candidate_target[candidates] = v
                candidate_parent[candidates] = u
                candidates += 1
    return unpacked, candidate_target[:candidates].copy(), candidate_parent[:candidates].copy()


@compiled(nogil=True)
def claim_targets(target, parent, best, vis, stride, visited, n, N, R, owner_shift):
    """The owners' claims: each candidate target once, with its smallest
    parent. ``best`` (n values, -1 outside a call) is scratch: on return it
    holds the returned targets' parents, and the caller resets it there.
    Each claim is added to ``visited`` and to its owner's Vis."""
    claimed = np.empty(len(target), dtype=np.int64)
    claims = 0
    for i in range(len(target)):
        v = target[i]
        if best[v] < 0:
            claimed[claims] = v
            claims += 1
            best[v] = parent[i]
        elif parent[i] < best[v]:
            best[v] = parent[i]
    for j in range(claims):
        v = claimed[j]
        key = scaled(v, N, n, owner_shift) // R * stride + v
        vis[key >> 3] |= np.uint8(1 << (key & 7))
        visited[v >> 3] |= np.uint8(1 << (v & 7))
    return claimed[:claims].copy()

