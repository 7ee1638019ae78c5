"""Projection: predicting runs too large to execute here (mode "projected").

A run of 65,536 nodes at scale 40 cannot be executed on a 2-core computer:
its graph alone would take 30 TB. A projection predicts it from a real BFS
at a scale that can be executed, in four steps (docs/background/projection.md
says why each is reasonable and where it is not):

1. **Profile.** The reference direction-optimising BFS (the same direction
   switch as ``bsp1d-do``) runs on a Graph500 graph at the *profile scale*,
   from the run's search keys. For every root and level it records, per
   vertex, the work the level's algorithm would charge that vertex's owner
   (its seconds before and after the exchange, priced by the executed
   run's ``price_level`` on the vertex's own counts; edges sent and
   received), and keeps their sum, sum of squares and maximum.

2. **Scale.** A level's share of the graph's edges is taken from the
   profile (the level structure of Kronecker graphs drifts slowly with
   scale; see the validation table); its share of the vertices shrinks as
   the share of vertices that have an edge does (``Growth.vertices``:
   62% of the vertices at scale 20, 28% at 40), and a reached vertex's
   degree grows to keep the edges. Second moments grow as the
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
``bsp1d-topdown``); the shared steps are in simbfs/projection/. Every
output of a projection says "projected".
"""

from __future__ import annotations

from ..base import root_done

import math
from dataclasses import dataclass

import numpy as np

from ...bfs import bfs_reference
from ...bfs.adjacency import neighbour_slots
from ...bfs.direction import BOTTOM_UP, TOP_DOWN
from ...bfs.parallel import map_in_order
from ...engine.costs import (NO_EXCHANGE, ExchangeCost, allgather_time, allreduce_time, exchange_cost,
                             port_seconds, route_latency)
from ...engine.messaging import DirectPackets
from ...engine.topology import Topology
from ...graph import Graph
from ...machine.model import Machine
from ...projection import (Growth, Moments, NodeLoad, busiest_link_seconds, busiest_node_overhead_s, extreme_z,
                           longest_route_hops, node_load, poisson_ceil_mean)
from ...projection.profile_cache import WorkLog
from ...records import LevelRecord
from .pricing import price_level
from .work import first_frontier_neighbour

# The level-synchronous profile is taken on the target's node count.
PROFILE_VERTEX_PER_NODE = True
# The machine parameters that change the work profile (profile_roots): its
# moments are of per-vertex *seconds*, priced with the node's costs before
# the busiest node is taken (a node's price is a weighted sum of its counts,
# and the extreme of the sum is not the sum of the counts' extremes), so
# the node's compute prices are part of the work. Every other parameter
# only prices it (tests/test_repricing.py).
WORK_PARAMETERS = ("node.clock", "node.cores", "node.compute.*")


@dataclass
class LevelProfile:
    level: int
    direction: str
    frontier_fraction: float  # of the vertices
    edges_examined_fraction: float  # of the CSR entries
    before_edge_share: float  # share of `before` seconds proportional to degree (the rest is per vertex)
    after_edge_share: float
    before: Moments  # seconds a vertex's owner spends before the exchange
    after: Moments  # ... after it
    sent: Moments  # edges a vertex's owner sends (to other nodes)
    received: Moments  # edges a vertex's owner receives


@dataclass
class RootProfile:
    root: int
    component_fraction: float  # input tuples in the root's component / all input tuples
    levels: list[LevelProfile]
    adjacency_entries: int  # of the profile graph (CSR entries)


def profile_roots(graph: Graph, roots, machine: Machine, nodes: int, algorithm, work=None) -> list[RootProfile]:
    """Step 1: per-vertex work moments of every level, from real BFS runs,
    asked of ``work`` (a WorkLog). The moments are of per-vertex seconds,
    so the node's prices are part of this work (WORK_PARAMETERS).

    Roots are profiled on a thread pool (numpy releases the GIL in the
    gathers that dominate); the profiles come back in root order."""
    work = work if work is not None else WorkLog()
    return map_in_order(lambda root: work.get((int(root),), lambda: _profile_root(graph, int(root), machine, nodes,
                                                                                   algorithm)), roots)


def _profile_root(graph: Graph, root: int, machine: Machine, nodes: int, algorithm) -> RootProfile:
    node = machine.node
    remote_share = (nodes - 1) / nodes
    degree = graph.degree.astype(np.float64)
    n = graph.num_vertices
    m = len(graph.indices)
    result = bfs_reference(graph, root, alpha=algorithm.alpha, beta=algorithm.beta,
                           direction_optimising=algorithm.direction_optimising)
    level_of = result.level
    levels = []
    # Each vertex's counts are priced with the executed run's price_level
    # here, rather than the mean and busiest node's counts at the end: a
    # node's price is a weighted sum of its counts, and the busiest node
    # (step 3) is the extreme of that sum, which the extremes of the counts
    # taken one by one would overstate.
    for stats in result.levels:
        frontier = np.flatnonzero(level_of == stats.level)
        if stats.direction == TOP_DOWN:
            scanned = np.zeros(n)
            scanned[frontier] = degree[frontier]
            slots, _, _ = neighbour_slots(graph.indptr, frontier)
            incoming = np.bincount(graph.indices[slots], minlength=n).astype(np.float64)
            claimed = (level_of == stats.level + 1).astype(np.float64)
            sent, received = scanned * remote_share, incoming * remote_share
            price = price_level(node, TOP_DOWN, scanned=scanned, packed=sent, received=incoming, claimed=claimed)
            edge_after = price_level(node, TOP_DOWN, received=incoming).after_s
            before, after = price.before_s, price.after_s
            before_share, after_share = 1.0, _share(edge_after, after)
        else:
            unvisited = (level_of < 0) | (level_of > stats.level)
            probes = np.zeros(n)
            probes[unvisited] = _probes(graph, np.flatnonzero(unvisited), level_of == stats.level)
            claimed = (level_of == stats.level + 1).astype(np.float64)
            edge_before = price_level(node, BOTTOM_UP, probes=probes).before_s
            before = price_level(node, BOTTOM_UP, probes=probes, claimed=claimed).before_s
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
        overhead_s=busiest_node_overhead_s(layer.overhead_s, sender_packets, typical_in_packets, out_packets,
                                           in_packets),
        packets=all_packets, payload_bytes=total_edges * edge_bytes, wire_bytes=all_wire)


def project_root(profile: RootProfile, machine: Machine, topology: Topology, profile_scale: int,
                 target_scale: int, edgefactor: int) -> tuple[float, float, list[LevelRecord]]:
    """Projected (edges, BFS time, level records) of one root at the target."""
    nodes = topology.nodes
    n_profile, n_target = 2**profile_scale, 2**target_scale
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
                # work per edge keeps its share of the edges; work per
                # reached vertex (a claim) the share of vertices with an edge
                mean_growth = edge_share * growth.mean + (1.0 - edge_share) * growth.vertices
                return node_load(moments, n_profile, n_target, nodes, growth, mean_growth)

            before, after = load(lv.before, lv.before_edge_share), load(lv.after, lv.after_edge_share)
            sent, received = load(lv.sent, 1.0), load(lv.received, 1.0)
            frontier = frontier_profile * vertex_scale * growth.vertices
            edges = edges_profile * vertex_scale * growth.mean
        if lv.direction == BOTTOM_UP:
            comm += allgather_time(machine.collectives, nodes, n_target / 8)
            collective_bytes = (nodes - 1) * n_target / 8
        else:
            exchange = exchange_estimate(machine, topology, sent, received, sent.mean * nodes, frontier)
            comm += exchange.time_s
        before_s, after_s = before.busiest, after.busiest
        before_mean, after_mean = before.mean, after.mean
        # The executed timeline: the busiest node before the exchange, the
        # exchange, the busiest node after it, the collectives. (Executed,
        # simpy composes it from every node's price; nothing to share.)
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


def project(graph: Graph, keys, machine: Machine, topology: Topology, algorithm, profile_scale: int,
            target_scale: int, edgefactor: int, progress=lambda message: None, work=None) -> list:
    """Steps 1-4 for every search key: [(root, edges, time, records)]."""
    profiles = profile_roots(graph, keys, machine, topology.nodes, algorithm, work)
    results = []
    for profile in profiles:
        edges, time_s, records = project_root(profile, machine, topology, profile_scale, target_scale, edgefactor)
        results.append((profile.root, edges, time_s, records))
        progress(root_done(profile.root))
    return results
