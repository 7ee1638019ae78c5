"""Graph500 input graphs: generators, the CSR Graph, caching and search keys."""

from simbfs.graph.csr import Graph, build_csr
from simbfs.graph.edgelist import EdgeList
from simbfs.graph.kronecker import kronecker_edges
from simbfs.graph.loading import generate_graph, load_graph
from simbfs.graph.memory import available_memory_bytes, estimate_memory_bytes
from simbfs.graph.search_keys import search_keys
from simbfs.graph.spec import GraphSpec
from simbfs.graph.uniform import uniform_edges

__all__ = [
    "EdgeList",
    "Graph",
    "GraphSpec",
    "available_memory_bytes",
    "build_csr",
    "estimate_memory_bytes",
    "generate_graph",
    "kronecker_edges",
    "load_graph",
    "search_keys",
    "uniform_edges",
]
