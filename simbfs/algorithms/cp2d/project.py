"""Projection of the previous-generation 2D BFS (cp2d) to runs too large to
execute (mode "projected").

The executed cp2d (execute.py) prices a level as

    busiest pack + expand exchange + busiest scan + fold exchange
    + busiest receive + allreduce

(every node arrives at an exchange after its own computation, and the
exchange starts when the last one does). A projection prices the same
terms for the target (N = R x C nodes, scale S) without its graph, in
four steps (docs/background/projection.md, "cp2d"):

1. **Profile on real data.** A top-down BFS (cp2d has no bottom-up) walks
   the Graph500 graph at the profile scale s (``walk_root``), pricing each
   level as it goes (steps 2-4). Per level it records the
   frontier, the frontier's degrees and, per target vertex v, k_v: how many
   of its neighbours are in the frontier, and A_v: how many were in earlier
   frontiers.

2. **Growth.** Bulk levels keep their share of the graph's edges. Their
   share of the vertices shrinks as the share of vertices with an edge does
   (n_S / n_s x Growth.vertices target vertices per profile vertex), and
   each reached vertex's neighbour counts grow with a reached vertex's mean
   degree (Growth.reached_mean), both closed forms of
   simbfs.graph.kronecker_theory. Seed levels (the root's first few, while
   the frontier has at most sqrt(n_s) vertices) keep their vertices; their
   edges grow with the frontier's own degrees.

3. **Deduplication, in closed form.** Node (row(v), c) sends v to its owner
   the first time its grid column c holds a frontier neighbour of v, and
   never again (its Out and Vis). Vertex labels are scrambled, so v's
   neighbours fall in random columns: with A' earlier and k' current
   frontier neighbours, the expected number of columns sending v in this
   level is C (q^A' - q^(A'+k')) with q = 1 - 1/C; one in C of them is the owner's
   own column, which claims in place. Seed levels keep the profile's pairs
   per edge.

4. **Nodes and machine.** Per node: the mean, and the busiest as in
   simbfs/projection.py (a Gaussian extreme over the nodes, or the node
   holding the heaviest vertex): the busiest column's frontier degrees
   (split over its R rows) for the scan, the busiest owner's pairs for the
   receive, Poisson extremes for frontier and claim counts. The typical
   and the busiest node's counts are priced by the executed run's
   ``price_level`` (cp1d's per-operation cycles and memory time) at the
   target's bitmap and parent sizes (the L2 thrashing of IV-D). The expand and fold
   exchanges are priced like Network.exchange_cost, with the torus loads of
   their traffic patterns (column peers, row peers) computed once by the
   engine's own routing on the target's N x N pattern.

Every output of a projection says "projected".
"""

from __future__ import annotations

from ..base import root_done

import math
from dataclasses import dataclass

import numpy as np

from ..cp1d.work import require_cp1d
from ..bsp1d.work import gather_adjacency
from ..cp1d.pricing import Residents
from .pricing import pairs_per_packet, price_level, residents
from ..search import LevelStep, Walk, walk_root
from .work import FRONTIER_ID_BYTES, WORD_BYTES, Counts, grid_shape
from ...bfs.direction import TOP_DOWN
from ...bfs.parallel import map_in_order
from ...engine.costs import (NO_EXCHANGE, ExchangeCost, allreduce_time, exchange_cost, link_seconds, port_seconds,
                           route_latency)
from ...engine.messaging import DirectPackets
from ...engine.topology import Topology
from ...errors import UserError
from ...graph import Graph
from ...machine.model import Machine
from ...projection import (Growth, Moments, NodeLoad, busiest_node_overhead_s, extreme_z, grown_degrees, node_load,
                           poisson_ceil_mean)
from ...projection.profile_cache import WorkLog
from ...records import LevelRecord

# No machine parameter changes the work (the profile's levels on the
# target's grid, whose shape follows the node count): every one only prices
# it (tests/test_repricing.py).
WORK_PARAMETERS: tuple[str, ...] = ()
# The profile needs no layout on the target's nodes (columns enter in closed form).
PROFILE_VERTEX_PER_NODE = False

# The traffic patterns' torus loads are computed on the dense N x N matrix
# (the engine's own routing): 8 B x N^2, half a gigabyte at 8,192 nodes.
GRID_NODES_MAX = 8192


@dataclass(frozen=True)
class Pattern:
    """What a traffic pattern of a 2D level (every node to each of its
    ``peers``) asks of the torus: the busiest link's bytes per byte sent
    between every talking pair, the shares of one node's outgoing and
    incoming pattern traffic on its own hottest link, and the longest
    route's hops."""

    peers: int
    link: float
    out_share: float
    in_share: float
    hops: int

    @classmethod
    def of(cls, topology: Topology, same: np.ndarray) -> "Pattern":
        """``same``: the N x N mask of talking pairs (diagonal excluded)."""
        peers = int(same[0].sum())
        if peers == 0:
            return cls(0, 0.0, 0.0, 0.0, 0)
        hops = int(topology.hop_matrix[same].max())
        if not topology.num_links:
            return cls(peers, 0.0, 0.0, 0.0, hops)
        traffic = same.astype(np.float64)
        one_out, one_in = np.zeros_like(traffic), np.zeros_like(traffic)
        one_out[0], one_in[:, 0] = traffic[0], traffic[:, 0]
        return cls(peers, float(topology.link_loads(traffic).max()),
                   float(topology.link_loads(one_out).max()) / peers,
                   float(topology.link_loads(one_in).max()) / peers, hops)


@dataclass(frozen=True)
class GridPatterns:
    expand: Pattern  # every node to its R - 1 grid-column peers
    fold: Pattern  # every node to its C - 1 grid-row peers

    @classmethod
    def of(cls, topology: Topology, rows: int) -> "GridPatterns":
        nodes = topology.nodes
        if nodes > GRID_NODES_MAX:
            raise UserError(f"projecting cp2d prices its exchanges on the {nodes} x {nodes} traffic pattern, "
                            f"which this computer cannot hold beyond {GRID_NODES_MAX} nodes; use --nodes "
                            f"{GRID_NODES_MAX} or fewer")
        ranks = np.arange(nodes)
        col, row = ranks // rows, ranks % rows
        masks = []
        for key in (col, row):
            same = key[:, None] == key[None, :]
            np.fill_diagonal(same, False)
            masks.append(same)
        return cls(expand=Pattern.of(topology, masks[0]), fold=Pattern.of(topology, masks[1]))


@dataclass
class LevelProfile:
    """One top-down level of the profile BFS."""

    frontier: np.ndarray  # profile vertex ids
    edges: int  # adjacency entries of the frontier
    frontier_degree: Moments  # per vertex: its degree if in the frontier, else 0
    pairs_per_edge: float  # the profile's own deduplicated pairs per edge (on the target's columns)
    targets: np.ndarray  # vertices with a frontier neighbour
    current: np.ndarray  # their frontier neighbours (k_v)
    earlier: np.ndarray  # their neighbours in earlier frontiers (A_v)
    claimed: int  # vertices of the next level


def profile_level(graph: Graph, degree: np.ndarray, step: LevelStep, seen: np.ndarray,
                  cols: int) -> tuple[LevelProfile, np.ndarray]:
    """Step 1 for one top-down level of the walk: its profile and its
    claims (the unvisited vertices with a frontier neighbour). ``seen``
    holds every vertex's neighbours in earlier frontiers (A_v) and gets
    this level's."""
    frontier = step.frontier
    _, targets = gather_adjacency(graph, frontier)
    counts = np.bincount(targets, minlength=graph.num_vertices)
    hit = np.flatnonzero(counts)
    new = hit[~step.visited[hit]]
    current, earlier = counts[hit].astype(np.float64), seen[hit].astype(np.float64)
    pairs = float(new_columns(current, earlier, cols).sum())
    in_frontier = np.zeros(graph.num_vertices)
    in_frontier[frontier] = degree[frontier]
    seen += counts
    return LevelProfile(frontier=frontier, edges=int(len(targets)), frontier_degree=Moments.of(in_frontier, degree),
                        pairs_per_edge=pairs / len(targets) if len(targets) else 0.0,
                        targets=hit, current=current, earlier=earlier, claimed=len(new)), new


def new_columns(current: np.ndarray, earlier: np.ndarray, cols: int) -> np.ndarray:
    """Expected grid columns that hold one of ``current`` frontier
    neighbours of a vertex and none of its ``earlier`` ones, each neighbour
    in a column drawn uniformly (scrambled labels): the columns that send
    the vertex in this level. Counts may be fractional (grown)."""
    miss = 1.0 - 1.0 / cols  # a given column misses one neighbour
    return cols * (miss ** earlier - miss ** (earlier + current))


def poisson_busiest(mean: float, nodes: int) -> float:
    """The busiest of ``nodes`` Poisson counts of ``mean`` (at least one
    when any are nonzero)."""
    if mean <= 0:
        return 0.0
    return max(mean + extreme_z(nodes) * math.sqrt(mean), 1.0)


@dataclass(frozen=True)
class Target:
    machine: Machine
    topology: Topology
    nodes: int
    rows: int
    cols: int
    vertices: int
    threads: int
    residents: Residents
    patterns: GridPatterns
    closing_s: float  # the level's closing allreduce
    pairs_per_packet: int  # uncompressed (vertex, parent) pairs

    @classmethod
    def of(cls, machine: Machine, topology: Topology, vertices: int) -> "Target":
        nodes = topology.nodes
        rows, cols = grid_shape(nodes)
        cp = require_cp1d(machine)
        node = machine.node
        return cls(machine, topology, nodes, rows, cols, vertices,
                   threads=min(cp.threads, int(node.cores * node.threads_per_core)),
                   residents=residents(machine, vertices, rows, cols, math.ceil(vertices / nodes)),
                   patterns=GridPatterns.of(topology, rows),
                   closing_s=allreduce_time(machine.collectives, nodes, 8),
                   pairs_per_packet=pairs_per_packet(machine))


def exchange(target: Target, pattern: Pattern, cell_payload: float, cell_packets: float,
             out_busiest: tuple[float, float], in_busiest: tuple[float, float]) -> ExchangeCost:
    """A pattern exchange priced like Network.exchange_cost: the busiest port
    or link, the longest route, the busiest node's software overhead.
    ``cell_*``: a mean talking pair's payload and packets; ``*_busiest``:
    (payload, packets) of the busiest sender's and receiver's traffic."""
    net, messaging = target.machine.network, target.machine.messaging
    peers = pattern.peers
    if cell_payload <= 0 or peers == 0:
        return NO_EXCHANGE
    mean_wire = peers * float(net.wire_bytes(cell_payload, cell_packets))
    out_wire, in_wire = float(net.wire_bytes(*out_busiest)), float(net.wire_bytes(*in_busiest))
    # the uniform pattern, plus the busiest sender's (or receiver's) excess
    # on its own first-hop (last-hop) link, as projection.busiest_link_seconds
    excess = max((out_wire - mean_wire) * pattern.out_share, (in_wire - mean_wire) * pattern.in_share, 0.0)
    # The busiest node in software overhead: its packets out and in are
    # independent sums, so their excesses over the mean add in quadrature.
    mean_packets = peers * cell_packets
    overhead = busiest_node_overhead_s(DirectPackets(messaging).overhead_s, mean_packets, mean_packets,
                                       out_busiest[1], in_busiest[1], independent=True)
    return exchange_cost(inject_s=port_seconds(out_wire, net), eject_s=port_seconds(in_wire, net),
                         link_s=link_seconds(mean_wire / peers * pattern.link + excess, net),
                         latency_s=route_latency(pattern.hops, net), overhead_s=overhead,
                         packets=target.nodes * mean_packets, payload_bytes=target.nodes * peers * cell_payload,
                         wire_bytes=target.nodes * mean_wire)


def project_root(target: Target, graph: Graph, root: int, growth: Growth, work=None) -> Walk:
    """The projected walk of one root: its level records at the target; its
    levels' profiles are asked of ``work`` (a WorkLog)."""
    work = work if work is not None else WorkLog()
    machine, N, R, C = target.machine, target.nodes, target.rows, target.cols
    cp = machine.section("cp1d")
    n_profile = graph.num_vertices
    vertex_scale = target.vertices / n_profile
    # the bulk's reached vertices: a level's share of them shrinks as the
    # share of vertices with an edge does, each with more edges
    reached_scale = vertex_scale * growth.vertices
    degree = graph.degree.astype(np.float64)
    closing_s, per_packet = target.closing_s, target.pairs_per_packet
    seen = np.zeros(n_profile, dtype=np.int64)  # A_v so far
    # values already grown per reached vertex: over all vertices, their mean
    # and second moment shrink with the share of reached vertices
    reached_only = Growth(second=growth.vertices, mean=1.0, largest=1.0,
                          profile_mean_degree=growth.profile_mean_degree,
                          profile_max_degree=growth.profile_max_degree)
    multiplier = 1.0  # a seed level's frontier: profile vertices x multiplier

    def price(step: LevelStep):
        nonlocal multiplier
        # price-independent: what a work profile keeps (``seen`` only serves profile_level)
        lv, new = work.get((step.root, step.level), lambda: profile_level(graph, degree, step, seen, C))
        if step.seed:
            frontier = len(lv.frontier) * multiplier
            edges = multiplier * float(grown_degrees(growth, degree[lv.frontier]).sum())
            pairs = lv.pairs_per_edge * edges
            # the next seed frontier grows as this level's edges did
            next_multiplier = edges / lv.edges if lv.edges else 1.0
            claimed = lv.claimed * next_multiplier
            owner_pairs = NodeLoad(pairs / N, poisson_busiest(pairs / N, N))
            # the busiest column holds the heaviest frontier vertex
            heaviest = float(grown_degrees(growth, np.array([lv.frontier_degree.largest]))[0])
            column_edges = NodeLoad(edges / C, max(heaviest + (edges - heaviest) / C, edges / C))
        else:
            next_multiplier = reached_scale
            frontier = len(lv.frontier) * reached_scale
            # A target vertex's frontier neighbours grow with the mean degree
            # (growing each with its own degree would count a hub's edges
            # once per target vertex a profile vertex stands for).
            current, earlier = lv.current * growth.reached_mean, lv.earlier * growth.reached_mean
            edges = float(current.sum()) * reached_scale
            sent_columns = new_columns(current, earlier, C)
            pairs = float(sent_columns.sum()) * reached_scale
            claimed = lv.claimed * reached_scale
            per_vertex = np.zeros(n_profile)
            per_vertex[lv.targets] = sent_columns * (C - 1) / C
            owner_pairs = node_load(Moments.of(per_vertex, degree), n_profile, target.vertices, N, reached_only,
                                    mean_growth=growth.vertices)
            edge_growth = edges / (lv.edges * vertex_scale) if lv.edges else growth.mean
            column_edges = node_load(lv.frontier_degree, n_profile, target.vertices, C, growth, edge_growth)
        multiplier = next_multiplier
        remote = pairs * (C - 1) / C

        # 1. expand: the frontier's ids (or the block's bitmap) to the column peers
        f_mean, f_busiest = frontier / N, poisson_busiest(frontier / N, N)
        block_bitmap = math.ceil(target.vertices / N / 8)
        as_list = FRONTIER_ID_BYTES * f_mean <= block_bitmap
        # only nodes holding frontier vertices send (Poisson counts)
        sending = -math.expm1(-f_mean)
        cell = min(FRONTIER_ID_BYTES * f_mean / sending, block_bitmap) * sending if f_mean > 0 else 0.0
        cell_busiest = min(FRONTIER_ID_BYTES * f_busiest, block_bitmap)
        packets = float(machine.network.packets(cell / sending)) * sending if f_mean > 0 else 0.0
        packets_busiest = float(machine.network.packets(cell_busiest))
        expand = exchange(target, target.patterns.expand, cell, packets,
                          ((R - 1) * cell_busiest, (R - 1) * packets_busiest), ((R - 1) * cell, (R - 1) * packets))
        column_frontier = NodeLoad(frontier / C, poisson_busiest(frontier / C, C))

        def counts(own_f: float, column_f: float, entries: float, packed: float, received: float,
                   claims: float) -> Counts:
            """One node's counts, as the executed scan counts them."""
            return Counts(frontier_ids=own_f if as_list else 0.0,
                          unpacked_ids=column_f if as_list else 0.0,  # the column's frontier ids, each unpacked
                          index_words=0.0 if as_list else R * math.ceil(block_bitmap / WORD_BYTES),
                          frontier_headers=column_f, entries=entries, pairs_packed=packed,
                          pairs_received=received, claimed=claims)

        holder = remote / N
        # the busiest holder: the busiest column's entries, deduplicated
        sender = max(poisson_busiest(holder, N), column_edges.busiest / R * remote / edges if edges else 0.0)
        typical = counts(f_mean, column_frontier.mean, column_edges.mean / R, holder, owner_pairs.mean, claimed / N)
        busiest_node = counts(f_busiest, column_frontier.busiest, column_edges.busiest / R, sender,
                              owner_pairs.busiest, poisson_busiest(claimed / N, N))

        # 3. fold: the remote pairs to their owners along the grid row
        cell_pairs = holder / (C - 1) if C > 1 else 0.0
        cell_packets = poisson_ceil_mean(cell_pairs, per_packet)
        entry = cp.uncompressed_entry_bytes
        receiver = owner_pairs.busiest
        fold = exchange(target, target.patterns.fold, cell_pairs * entry, cell_packets,
                        (sender * entry, (C - 1) * poisson_ceil_mean(sender / max(C - 1, 1), per_packet)),
                        (receiver * entry, (C - 1) * poisson_ceil_mean(receiver / max(C - 1, 1), per_packet)))

        # The level as executed: each phase of the busiest node, then the
        # exchange it ends in; the same price_level as the executed run.
        mean = price_level(machine, target.residents, target.threads, typical)
        busiest = price_level(machine, target.residents, target.threads, busiest_node)
        mean_s, busiest_s = float(mean.busy_s), float(busiest.busy_s)
        communication = expand.time_s + fold.time_s + closing_s
        time_s = busiest_s + communication
        record = LevelRecord(
            root=root, level=step.level, direction=TOP_DOWN,
            frontier_vertices=int(round(frontier)), edges_examined=int(round(edges)),
            messages=int(round(expand.packets + fold.packets)),
            bytes=float(round(expand.payload_bytes + fold.payload_bytes)),
            time_s=time_s, compute_s=mean_s, communication_s=communication,
            synchronisation_s=busiest_s - mean_s, compute_max_s=busiest_s,
            bottleneck=busiest.bottleneck((expand.time_s, expand.bottleneck), (fold.time_s, fold.bottleneck)),
            collective_bytes=float(8 * max(N - 1, 0)), edges_sent=int(round(remote)),
            scan_s=float(mean.scan_s), receive_s=float(mean.receive_s))
        return new, record, None

    return walk_root(graph, root, price)


def project(graph: Graph, keys, machine: Machine, topology: Topology, algorithm, profile_scale: int,
            target_scale: int, edgefactor: int, progress=lambda message: None, work=None) -> list:
    """Steps 1-4 for every search key: [(root, edges, time, records)]."""
    target = Target.of(machine, topology, 2 ** target_scale)
    growth = Growth.between(profile_scale, target_scale, edgefactor)
    progress(f"{len(keys)} roots, {target.rows} x {target.cols} grid")

    def one(root):
        walk = project_root(target, graph, int(root), growth, work)
        progress(root_done(root))
        return int(root), walk.target_edges(graph, edgefactor, target.vertices), walk.time_s, walk.records

    # Roots on a thread pool (numpy releases the GIL in the gathers that
    # dominate); results come back in root order.
    return map_in_order(one, keys)
