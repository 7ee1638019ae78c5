"""The graph the simulator runs on: :class:`Graph`, and :func:`build_csr`.

Graph500 kernel 1 turns the input tuples into any structure the BFS likes,
but TEPS and validation still refer to the tuples. So a Graph keeps both:

* a CSR of the *simple undirected* graph (self-loops and duplicate tuples
  dropped, every edge stored in both directions, neighbours sorted), which
  is what traversal costs depend on;
* the original tuples plus `endpoint_count`, the number of tuple endpoints
  at each vertex (a self-loop counts twice). Every tuple lies inside one
  connected component, so the tuples inside a traversed component number
  sum(endpoint_count[component]) / 2, an O(n) computation per search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simbfs.graph.edgelist import EdgeList
from simbfs.graph.spec import GraphSpec

# Keys are processed in slices of this many tuples to bound temporaries.
_KEY_BATCH = 1 << 24


@dataclass(frozen=True, eq=False)
class Graph:
    spec: GraphSpec
    num_vertices: int
    num_input_edges: int
    indptr: np.ndarray
    indices: np.ndarray
    edges: EdgeList
    endpoint_count: np.ndarray

    def __post_init__(self) -> None:
        # A graph is input: nothing may write into it. Cached graphs are
        # mapped read-only (loading.py); generated ones are made so too, so
        # that code writing into a graph fails on either, and compiled
        # kernels see one kind of array.
        for array in (self.indptr, self.indices, self.edges.src, self.edges.dst, self.endpoint_count):
            array.setflags(write=False)

    @property
    def directed(self) -> bool:
        return bool(self.spec.directed)

    @property
    def degree(self) -> np.ndarray:
        """Degree in the simple undirected graph (self-loops/duplicates
        excluded); for a directed graph, the out-degree (every tuple kept)."""
        return np.diff(self.indptr)

    @property
    def num_undirected_edges(self) -> int:
        """Distinct non-loop edges {u, v}; the CSR stores each twice."""
        return int(self.indices.size // 2)

    def input_edges_in_component(self, visited: np.ndarray) -> int:
        """Input tuples with both endpoints visited (the Graph500 TEPS numerator).

        Valid when `visited` is a union of connected components, as a finished
        BFS's reached set is: then no tuple has exactly one visited endpoint.
        For a directed graph, the tuples leaving a visited vertex (all of
        them end at a visited vertex when `visited` is closed under out-edges,
        as a finished search's reached set is): the edges the search explored.
        """
        if self.directed:
            return int(self.degree[np.asarray(visited, dtype=bool)].sum())
        return int(self.endpoint_count[np.asarray(visited, dtype=bool)].sum() // 2)

    def nbytes(self) -> int:
        return int(
            self.indptr.nbytes + self.indices.nbytes + self.edges.nbytes
            + self.endpoint_count.nbytes
        )


def endpoint_counts(edges: EdgeList) -> np.ndarray:
    counts = np.bincount(edges.src, minlength=edges.num_vertices)
    counts += np.bincount(edges.dst, minlength=edges.num_vertices)
    return counts


def _unique_canonical_keys(edges: EdgeList) -> np.ndarray:
    """Sorted distinct min(u,v) * n + max(u,v) over non-loop tuples."""
    n = np.int64(edges.num_vertices)
    pieces = []
    for start in range(0, len(edges), _KEY_BATCH):
        src = edges.src[start:start + _KEY_BATCH]
        dst = edges.dst[start:start + _KEY_BATCH]
        not_loop = src != dst
        low = np.minimum(src[not_loop], dst[not_loop]).astype(np.int64)
        high = np.maximum(src[not_loop], dst[not_loop]).astype(np.int64)
        low *= n
        low += high
        pieces.append(low)
    keys = np.concatenate(pieces) if pieces else np.empty(0, np.int64)
    del pieces
    keys.sort()
    if keys.size:
        distinct = np.empty(keys.size, dtype=bool)
        distinct[0] = True
        np.not_equal(keys[1:], keys[:-1], out=distinct[1:])
        keys = keys[distinct]
    return keys


def build_directed_csr(spec: GraphSpec, edges: EdgeList) -> Graph:
    """Out-adjacency of every tuple (v, w) as the edge v -> w, in generation
    order. Duplicates and self-loops are kept: the Cell paper's lists E_v are
    the generated neighbours, and the BFS simply finds a repeat marked."""
    n = edges.num_vertices
    order = np.argsort(edges.src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(edges.src, minlength=n), out=indptr[1:])
    indices = edges.dst[order].astype(np.int32 if n < 2**31 else np.int64)
    return Graph(spec=spec, num_vertices=n, num_input_edges=len(edges), indptr=indptr, indices=indices,
                 edges=edges, endpoint_count=endpoint_counts(edges))


def build_csr(spec: GraphSpec, edges: EdgeList) -> Graph:
    if spec.directed:
        return build_directed_csr(spec, edges)
    n = edges.num_vertices
    keys = _unique_canonical_keys(edges)
    low, high = np.divmod(keys, np.int64(n))
    high *= n
    high += low
    del low
    # Forward keys are low*n+high, reverse ones high*n+low; one sort of both
    # groups rows together with each row's neighbours ascending.
    directed = np.concatenate([keys, high])
    del keys, high
    directed.sort()
    # Row r's entries are the keys in [r*n, (r+1)*n): binary search gives the
    # row pointers without materialising a row array.
    indptr = np.searchsorted(directed, np.arange(n + 1, dtype=np.int64) * n).astype(np.int64)
    np.remainder(directed, np.int64(n), out=directed)
    indices = directed.astype(np.int32 if n < 2**31 else np.int64)
    del directed
    return Graph(
        spec=spec,
        num_vertices=n,
        num_input_edges=len(edges),
        indptr=indptr,
        indices=indices,
        edges=edges,
        endpoint_count=endpoint_counts(edges),
    )
