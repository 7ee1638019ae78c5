"""What the cp1d tests share: the bluegene_q partitions they run on, the
heavy-vertex rule, the graphs they search and networkx's view of a graph."""

import functools

import networkx as nx
import numpy as np

from simbfs.algorithms.cp1d.layout import HEAVY_SHARE_LIMIT
from simbfs.graph import EdgeList, GraphSpec, build_csr, generate_graph
from simbfs.machine import load_machine


# bluegene_q's torus only lists partitions from 32 nodes up: small runs give
# an explicit shape.
SHAPES = {1: "[1]", 4: "[2,2]", 16: "[2,2,2,2]"}


def heavy_count(graph, lb=4096):
    """LB (bluegene_q: 4096), capped on small graphs at one heavy vertex per
    HEAVY_SHARE_LIMIT vertices."""
    return min(lb, graph.num_vertices // HEAVY_SHARE_LIMIT)


def bgq(nodes, *overrides):
    return load_machine("bluegene_q", [f"network.shape={SHAPES[nodes]}", *overrides])


def to_networkx(graph):
    g = nx.Graph()
    g.add_nodes_from(range(graph.num_vertices))
    g.add_edges_from(zip(graph.edges.src.tolist(), graph.edges.dst.tolist()))
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    return g


@functools.cache
def kronecker_graphs() -> dict:
    """Kronecker graphs of scales 10, 11 and 12, each with its networkx
    graph: {scale: (graph, networkx graph)}, built once."""
    out = {}
    for scale, seed in ((10, 5), (11, 7), (12, 5)):
        graph = generate_graph(GraphSpec("kronecker", scale, seed=seed))
        out[scale] = (graph, to_networkx(graph))
    return out


@functools.cache
def small_kronecker_graph():
    """64 vertices and the edges 0-1 and 1-2."""
    return build_csr(GraphSpec("kronecker", 6), EdgeList(src=np.array([0, 1]), dst=np.array([1, 2]), num_vertices=64))
