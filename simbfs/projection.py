"""Projection: predicting runs too large to execute here (mode "projected").

A run of 65,536 nodes at scale 40 cannot be executed on a 2-core computer:
its graph alone would take 30 TB. A projection predicts it from a real BFS
at a scale that can be executed, in four steps (docs/background/projection.md
says why each is reasonable and where it is not):

1. **Profile.** The reference direction-optimising BFS (the same direction
   switch as ``bsp1d-do``) runs on a Graph500 graph at the *profile scale*,
   from the run's search keys. For every root and level it records, per
   vertex, the work the level's algorithm would charge that vertex's owner
   (cycles before and after the exchange, edges sent and received), and
   keeps their sum, sum of squares and maximum.

2. **Scale.** Per-vertex means are kept: a level's share of the graph is
   taken from the profile (the level structure of Kronecker graphs drifts
   slowly with scale; see the validation table). Second moments grow as the
   degree's second moment, and a maximum with the degree of the vertex that
   holds it (the hub's growth for the heaviest vertex, the mean degree's for
   a typical one, log-interpolated between): closed forms of the simple
   Kronecker graph (simbfs.graph.kronecker_theory), within 1% of generated
   graphs at scales 14 to 22. The first levels around the root (*seed*
   levels) keep their vertices rather than their share.

3. **Nodes.** A node owns n/N vertices of scrambled labels: a random
   sample. Its load is a sum of n/N per-vertex values: the mean node gets
   n/N x mean; the busiest one the larger of the Gaussian extreme (mean +
   z_N x standard deviation) and the node holding the heaviest vertex.

4. **Machine.** The level is priced by the engine's own cost models for the
   target machine: the collectives' stages and bandwidth, and the bulk
   exchange's injection, ejection and busiest-link loads (closed forms for
   uniform traffic on the torus), its per-packet overheads (Poisson numbers
   of edges per destination) and the hop count of its longest route (the
   torus hop distribution). Level time = busiest node's compute before the
   exchange + exchange + busiest node's compute after it + collectives, as
   in the executed ``bsp1d`` timeline.

This module projects the level-synchronous 1D algorithms (``bsp1d-do``,
``bsp1d-topdown``); simbfs/projection_cp1d.py projects the paper's own
``cp1d-spi``. Every output of a projection says "projected".
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .algorithms.bsp1d import (BSP1D, bottom_up_cycles, first_frontier_neighbour, top_down_receive_cycles,
                              top_down_send_cycles)
from .bfs import bfs_reference
from .bfs.direction import BOTTOM_UP, TOP_DOWN
from .bfs.adjacency import neighbour_slots
from .engine.costs import (NO_EXCHANGE, ExchangeCost, allgather_time, allreduce_time, exchange_cost,
                           link_seconds, port_seconds, route_latency)
from .engine.messaging import DirectPackets
from .engine.topology import Topology
from .errors import UserError
from .graph import Graph
from .graph.kronecker_theory import degree_moments
from .machine.model import Machine
from .records import LevelRecord

# The level-synchronous profile is taken on the target's node count.
PROFILE_VERTEX_PER_NODE = True


@dataclass(frozen=True)
class Growth:
    """How a Kronecker graph's (simple) degrees change from the profile
    scale to the target scale: closed forms of simbfs.graph.kronecker_theory,
    which match generated graphs within 1% at scales 14 to 22."""

    second: float  # ratio of E[d^2]
    mean: float  # ratio of the mean degree
    largest: float  # ratio of the heaviest vertex's degree
    profile_mean_degree: float
    profile_max_degree: float

    @classmethod
    def between(cls, profile_scale: int, target_scale: int, edgefactor: int) -> "Growth":
        before, after = degree_moments(profile_scale, edgefactor), degree_moments(target_scale, edgefactor)
        return cls(second=after.second / before.second, mean=after.mean / before.mean,
                   largest=after.largest / before.largest, profile_mean_degree=before.mean,
                   profile_max_degree=before.largest)

    def of_vertex(self, degree: float) -> float:
        """Growth of a value held by a vertex of ``degree``: the mean's for a
        vertex of mean degree, the hub's for the heaviest, log-interpolated
        in between."""
        low, high = self.profile_mean_degree, self.profile_max_degree
        if degree <= low or high <= low:
            return self.mean
        position = min(1.0, math.log(degree / low) / math.log(high / low))
        return self.mean * (self.largest / self.mean) ** position


def grown_degrees(growth: Growth, degrees: np.ndarray) -> np.ndarray:
    """Each degree grown to the target scale with its own vertex's growth."""
    values, inverse = np.unique(np.asarray(degrees, dtype=np.float64), return_inverse=True)
    return (values * np.array([growth.of_vertex(float(d)) for d in values]))[inverse.reshape(-1)]


# Per-vertex values are kept individually for levels touching at most this
# many vertices (they may be seed levels).
SEED_ITEMS = 1 << 16


@dataclass
class Moments:
    """Sum, sum of squares and maximum of a per-vertex quantity over n
    vertices, and the degree of the vertex holding the maximum."""

    total: float
    squares: float
    largest: float
    largest_degree: float
    # (value, degree) of every vertex with a nonzero value, when there are
    # few (the seed levels around the root: see project_root)
    items: np.ndarray | None = None

    @classmethod
    def of(cls, values: np.ndarray, degree: np.ndarray) -> "Moments":
        values = np.asarray(values, dtype=np.float64)
        if values.size == 0:
            return cls(0.0, 0.0, 0.0, 0.0)
        top = int(values.argmax())
        nonzero = np.flatnonzero(values)
        items = np.stack([values[nonzero], degree[nonzero]], axis=1) if len(nonzero) <= SEED_ITEMS else None
        return cls(float(values.sum()), float(np.dot(values, values)), float(values[top]), float(degree[top]),
                   items)


@dataclass
class LevelProfile:
    level: int
    direction: str
    frontier_fraction: float  # of the vertices
    edges_examined_fraction: float  # of the CSR entries
    before_edge_share: float  # share of `before` cycles proportional to degree (the rest is per vertex)
    after_edge_share: float
    before: Moments  # cycles a vertex's owner spends before the exchange
    after: Moments  # ... after it
    sent: Moments  # edges a vertex's owner sends (to other nodes)
    received: Moments  # edges a vertex's owner receives


@dataclass
class RootProfile:
    root: int
    component_fraction: float  # input tuples in the root's component / all input tuples
    levels: list[LevelProfile]
    adjacency_entries: int  # of the profile graph (CSR entries)


def profile_roots(graph: Graph, roots, machine: Machine, nodes: int, algorithm: BSP1D) -> list[RootProfile]:
    """Step 1: per-vertex work moments of every level, from real BFS runs.

    Roots are profiled on a thread pool (numpy releases the GIL in the
    gathers that dominate); the profiles come back in root order."""
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda root: _profile_root(graph, int(root), machine, nodes, algorithm), roots))


def _profile_root(graph: Graph, root: int, machine: Machine, nodes: int, algorithm: BSP1D) -> RootProfile:
    costs = machine.node.compute
    remote_share = (nodes - 1) / nodes
    degree = graph.degree.astype(np.float64)
    n = graph.num_vertices
    m = len(graph.indices)
    result = bfs_reference(graph, root, alpha=algorithm.alpha, beta=algorithm.beta,
                           direction_optimising=algorithm.direction_optimising)
    level_of = result.level
    levels = []
    for stats in result.levels:
        frontier = np.flatnonzero(level_of == stats.level)
        if stats.direction == TOP_DOWN:
            scanned = np.zeros(n)
            scanned[frontier] = degree[frontier]
            slots, _, _ = neighbour_slots(graph.indptr, frontier)
            incoming = np.bincount(graph.indices[slots], minlength=n).astype(np.float64)
            claimed = (level_of == stats.level + 1).astype(np.float64)
            sent, received = scanned * remote_share, incoming * remote_share
            before = top_down_send_cycles(costs, scanned, sent)
            edge_after = top_down_receive_cycles(costs, incoming, 0.0)
            after = top_down_receive_cycles(costs, incoming, claimed)
            before_share, after_share = 1.0, _share(edge_after, after)
        else:
            unvisited = (level_of < 0) | (level_of > stats.level)
            probes = np.zeros(n)
            probes[unvisited] = _probes(graph, np.flatnonzero(unvisited), level_of == stats.level)
            claimed = (level_of == stats.level + 1).astype(np.float64)
            edge_before = bottom_up_cycles(costs, probes, 0.0)
            before = bottom_up_cycles(costs, probes, claimed)
            after = sent = received = np.zeros(0)
            before_share, after_share = _share(edge_before, before), 1.0
        levels.append(LevelProfile(
            level=stats.level, direction=stats.direction,
            frontier_fraction=stats.frontier_vertices / n,
            edges_examined_fraction=stats.edges_examined / m,
            before_edge_share=before_share, after_edge_share=after_share,
            before=Moments.of(before, degree), after=Moments.of(after, degree),
            sent=Moments.of(sent, degree), received=Moments.of(received, degree)))
    reached = result.parent >= 0
    return RootProfile(root=root, component_fraction=graph.input_edges_in_component(reached) / graph.num_input_edges,
                       levels=levels, adjacency_entries=m)


def _share(part: np.ndarray, whole: np.ndarray) -> float:
    total = float(whole.sum())
    return float(part.sum()) / total if total > 0 else 1.0


def _probes(graph: Graph, vertices: np.ndarray, in_frontier: np.ndarray) -> np.ndarray:
    """Adjacency entries a bottom-up level examines for each vertex."""
    _, examined = first_frontier_neighbour(graph, vertices, in_frontier)
    return examined


@dataclass
class NodeLoad:
    mean: float
    busiest: float


def seed_node_load(moments: Moments, nodes: int, growth: Growth) -> NodeLoad:
    """Step 3 for a seed level: the same few vertices at any scale, each
    value grown with its own degree; the busiest node holds the largest."""
    if moments.total == 0:
        return NodeLoad(0.0, 0.0)
    values, degrees = moments.items[:, 0], moments.items[:, 1]
    grown = values * np.array([growth.of_vertex(d) for d in degrees])
    total = float(grown.sum())
    return NodeLoad(mean=total / nodes, busiest=float(grown.max()) + (total - float(grown.max())) / nodes)


def spread_load(moments: Moments, scale_values: float, nodes: int) -> NodeLoad:
    """Values of a few thousand vertices (the targets of a seed level), each
    scaled by ``scale_values`` and spread over ``nodes`` at random: the mean
    node, and the busiest (Gaussian extreme, or the heaviest vertex's node)."""
    if moments.total == 0:
        return NodeLoad(0.0, 0.0)
    mean = moments.total * scale_values / nodes
    spread = math.sqrt(moments.squares / nodes) * scale_values
    return NodeLoad(mean=mean, busiest=max(mean + extreme_z(nodes) * spread,
                                           moments.largest * scale_values + mean))


def node_load(moments: Moments, profile_vertices: int, target_vertices: int, nodes: int,
              growth: Growth, mean_growth: float = 1.0) -> NodeLoad:
    """Steps 2 and 3: the mean and busiest node's sum of a per-vertex quantity.
    ``mean_growth``: how the per-vertex mean grows (the mean degree's growth
    for work proportional to degree, none for work per vertex)."""
    if moments.total == 0:
        return NodeLoad(0.0, 0.0)
    mean = moments.total / profile_vertices * mean_growth
    second = moments.squares / profile_vertices * growth.second
    largest = moments.largest * growth.of_vertex(moments.largest_degree)
    variance = max(second - mean * mean, 0.0)
    k = target_vertices / nodes
    gaussian = k * mean + extreme_z(nodes) * math.sqrt(variance * k)
    heaviest = largest + mean * max(k - 1, 0.0)
    return NodeLoad(mean=k * mean, busiest=max(gaussian, heaviest, k * mean))


def extreme_z(count: int) -> float:
    """Typical largest of ``count`` standard normal draws (0 for one)."""
    if count < 2:
        return 0.0
    if count == 2:
        return 1 / math.sqrt(math.pi)  # exact mean of the larger of two
    a = math.sqrt(2 * math.log(count))
    # Gumbel approximation of the maximum: location plus Euler's gamma / a (its mean)
    return a - (math.log(math.log(count)) + math.log(4 * math.pi)) / (2 * a) + 0.5772156649 / a


def poisson_ceil_mean(rate: float, unit: float) -> float:
    """E[ceil(X / unit)] for X ~ Poisson(rate) edges and ``unit`` edges per packet."""
    if rate <= 0:
        return 0.0
    if rate > 5e3:
        return rate / unit + 0.5
    top = int(rate + 12 * math.sqrt(rate) + 12)
    x = np.arange(top + 1, dtype=np.float64)
    log_pmf = x * math.log(rate) - rate - np.array([math.lgamma(v + 1) for v in x])
    return float(np.dot(np.exp(log_pmf), np.ceil(x / unit)))


def busiest_link_seconds(topology: Topology, net, all_wire: float, out_wire: float, in_wire: float) -> float:
    """The busiest link's time for ``all_wire`` bytes spread uniformly over
    all pairs, when the busiest sender sends ``out_wire`` and the busiest
    receiver gets ``in_wire``: uniform background traffic (which already
    holds a typical node's own traffic), plus, on the busiest sender's
    first-hop (or the busiest receiver's last-hop) link, that node's share
    of its traffic beyond a typical node's."""
    nodes = topology.nodes
    if nodes < 2 or all_wire <= 0:
        return 0.0
    background = topology.uniform_max_link_load(all_wire / (nodes * (nodes - 1)))
    typical_wire = all_wire / nodes
    out_share, in_share = topology.hot_link_shares()
    excess = max((out_wire - typical_wire) * out_share, (in_wire - typical_wire) * in_share, 0.0)
    return link_seconds(background + excess, net)


def longest_route_hops(topology: Topology, talking_pairs: float) -> int:
    """The longest route among ``talking_pairs`` random pairs: the typical
    maximum of that many draws from the hop distribution."""
    cdf = np.cumsum(topology.hop_distribution())
    return int(np.searchsorted(cdf ** max(talking_pairs, 1.0), 0.5))


def exchange_estimate(machine: Machine, topology: Topology, sent: NodeLoad, received: NodeLoad,
                      total_edges: float, frontier_vertices: float) -> ExchangeCost:
    """Step 4: the bulk exchange of a top-down level, priced like Network.exchange_cost.

    Only nodes holding frontier vertices send: with f frontier vertices on
    N nodes, S = N (1 - e^(-f/N)) of them, each to all N - 1 others; a node
    receives from the S senders. The busiest node in software overhead is
    either the busiest sender (receiving like a typical node) or the busiest
    receiver (sending like a typical node): within a level the node holding
    a frontier hub sends, and its neighbours, elsewhere, receive."""
    nodes = topology.nodes
    net, messaging = machine.network, machine.messaging
    if total_edges <= 0 or nodes < 2:
        return NO_EXCHANGE
    edge_bytes = messaging.edge_bytes
    # Packets are cut by bytes (ceil(bytes / payload)), as the executed engine does.
    per_packet = net.packet_payload_bytes / edge_bytes
    granule_edges = net.packet_granule_bytes / edge_bytes

    def packets_and_wire(edges: float, peers: float) -> tuple[float, float]:
        """Packets and wire bytes of ``edges`` spread over ``peers`` buffers."""
        rate = edges / peers
        packets = peers * poisson_ceil_mean(rate, per_packet)
        padded = peers * poisson_ceil_mean(rate, granule_edges) * net.packet_granule_bytes
        return packets, padded + packets * net.packet_header_bytes

    senders = nodes * -math.expm1(-max(frontier_vertices, 1.0) / nodes)
    sources = max(min(senders, nodes - 1), 1.0)
    out_packets, out_wire = packets_and_wire(sent.busiest, nodes - 1)
    in_packets, in_wire = packets_and_wire(received.busiest, sources)
    sender_packets, sender_wire = packets_and_wire(total_edges / senders, nodes - 1)
    typical_in_packets, _ = packets_and_wire(total_edges / nodes, sources)
    all_packets, all_wire = senders * sender_packets, senders * sender_wire
    # The busiest link: uniform background traffic (which already holds a
    # typical node's own traffic), plus, on the busiest sender's first-hop
    # (or the busiest receiver's last-hop) link, that node's share of its
    # traffic beyond a typical node's.
    link = busiest_link_seconds(topology, net, all_wire, out_wire, in_wire)
    talking_pairs = nodes * (nodes - 1) * -math.expm1(-total_edges / (nodes * (nodes - 1)))
    layer = DirectPackets(messaging)
    return exchange_cost(
        inject_s=port_seconds(out_wire, net), eject_s=port_seconds(in_wire, net), link_s=link,
        latency_s=route_latency(longest_route_hops(topology, talking_pairs), net),
        overhead_s=max(layer.overhead_s(out_packets, typical_in_packets), layer.overhead_s(sender_packets, in_packets)),
        packets=all_packets, payload_bytes=total_edges * edge_bytes, wire_bytes=all_wire)


def project_root(profile: RootProfile, machine: Machine, topology: Topology, profile_scale: int,
                 target_scale: int, edgefactor: int) -> tuple[float, float, list[LevelRecord]]:
    """Projected (edges, BFS time, level records) of one root at the target."""
    nodes = topology.nodes
    n_profile, n_target = 2**profile_scale, 2**target_scale
    seconds = machine.node.seconds
    growth = Growth.between(profile_scale, target_scale, edgefactor)
    records = []
    total = 0.0
    # Seed levels: the first levels of a search touch the root and its few
    # neighbours, the same number of vertices at any scale; their work does
    # not grow with n (only with the degrees of those vertices). The search
    # becomes bulk at the first level whose frontier is a sizeable sample of
    # the graph (more than sqrt(n) vertices); from then on a level's share of
    # the graph is what carries over.
    seed = True
    vertex_scale = n_target / n_profile
    for lv in profile.levels:
        frontier_profile = lv.frontier_fraction * n_profile
        edges_profile = lv.edges_examined_fraction * profile.adjacency_entries
        seed = (seed and lv.direction == TOP_DOWN and frontier_profile <= math.sqrt(n_profile)
                and lv.before.items is not None and lv.sent.items is not None)
        comm = allreduce_time(machine.collectives, nodes, 16)
        collective_bytes = 0.0
        exchange = NO_EXCHANGE
        if seed:
            # The frontier's own vertices, each grown with its degree; the
            # edges they send land on targets spread over all nodes.
            before, sent = seed_node_load(lv.before, nodes, growth), seed_node_load(lv.sent, nodes, growth)
            edge_scale = sent.mean * nodes / lv.sent.total if lv.sent.total else 1.0
            received = spread_load(lv.received, edge_scale, nodes)
            after = spread_load(lv.after, edge_scale, nodes)
            frontier, edges = frontier_profile, edges_profile * edge_scale
        else:
            def load(moments: Moments, edge_share: float) -> NodeLoad:
                mean_growth = edge_share * growth.mean + (1.0 - edge_share)
                return node_load(moments, n_profile, n_target, nodes, growth, mean_growth)

            before, after = load(lv.before, lv.before_edge_share), load(lv.after, lv.after_edge_share)
            sent, received = load(lv.sent, 1.0), load(lv.received, 1.0)
            frontier, edges = frontier_profile * vertex_scale, edges_profile * vertex_scale * growth.mean
        if lv.direction == BOTTOM_UP:
            comm += allgather_time(machine.collectives, nodes, n_target / 8)
            collective_bytes = (nodes - 1) * n_target / 8
        else:
            exchange = exchange_estimate(machine, topology, sent, received, sent.mean * nodes, frontier)
            comm += exchange.time_s
        before_s, after_s = float(seconds(before.busiest)), float(seconds(after.busiest))
        before_mean, after_mean = float(seconds(before.mean)), float(seconds(after.mean))
        # The executed timeline: the busiest node before the exchange, the
        # exchange, the busiest node after it, the collectives.
        time_s = before_s + after_s + comm
        total += time_s
        records.append(LevelRecord(
            root=profile.root, level=lv.level, direction=lv.direction,
            frontier_vertices=int(round(frontier)), edges_examined=int(round(edges)),
            messages=int(round(exchange.packets)), bytes=float(round(exchange.payload_bytes)),
            time_s=time_s, compute_s=before_mean + after_mean, communication_s=comm,
            synchronisation_s=before_s + after_s - before_mean - after_mean,
            # as executed: the largest per-node sum (one node is rarely the busiest in both)
            compute_max_s=max(before_s + after_mean, before_mean + after_s),
            bottleneck=exchange.bottleneck, collective_bytes=collective_bytes))
    edges = profile.component_fraction * edgefactor * n_target
    return edges, total, records


def project(graph: Graph, keys, machine: Machine, topology: Topology, algorithm: BSP1D, profile_scale: int,
            target_scale: int, edgefactor: int, progress=lambda message: None) -> list:
    """Steps 1-4 for every search key: [(root, edges, time, records)]."""
    profiles = profile_roots(graph, keys, machine, topology.nodes, algorithm)
    results = []
    for profile in profiles:
        edges, time_s, records = project_root(profile, machine, topology, profile_scale, target_scale, edgefactor)
        results.append((profile.root, edges, time_s, records))
    return results


def projection_module(algorithm):
    """The module that projects ``algorithm`` (its class names it in
    ``projection``), or a UserError. A module provides ``project`` and
    says, in ``PROFILE_VERTEX_PER_NODE``, whether its profile graph needs a
    vertex per target node."""
    import importlib

    module = getattr(algorithm, "projection", None)
    if module is None:
        raise UserError(f"--mode project is available for bsp1d-do, bsp1d-topdown, cp1d-spi, cp1d-mpi and cp2d, not for "
                        f"{algorithm.name}; execute it instead (--mode execute) at a size this computer can hold")
    return importlib.import_module(module)
