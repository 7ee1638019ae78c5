"""lin1d projected: Lin et al.'s BFS at sizes too large to execute here
(the paper's 40,768 nodes at scale 40), from real BFS runs at a smaller
scale. Every output says "projected" (docs/background/projection.md).

The steps are those of the Checconi & Petrini projection
(simbfs/algorithms/cp1d/project_spi.py), with lin1d's own work and prices:

1. **Profile.** The executed level functions (work.py) run on the profile
   graph laid out on V virtual nodes (V = the target's nodes when each still
   gets enough vertices, fewer otherwise), with as many hubs as hold the
   share of the entries that the target's hubs hold
   (``heavy_vertices_at_profile``). They give every virtual node's module
   counters, level by level, and the real frontiers and claims.
2. **Scale.** A virtual node's counters become a target node's: vertex
   counts by the ratio of reached vertices per node (``Growth.vertices``),
   entry and pair counts also by the growth of a reached vertex's degree;
   the first levels around the root (seed levels) keep their vertices. The
   busiest target node follows the virtual nodes' spread (``Spread``: the
   Gaussian extreme of more, larger nodes, and the hub part).
3. **Traffic, in closed form.** A node's remote pairs go to uniformly
   random nodes (scrambled labels). Directly: to N - 1 peers. With relay
   through groups of M (G groups): every remote pair leaves its source
   once, and the share (1 - 1/G)(1 - 1/M) that needs a relay leaves the
   relay again, to the M - 1 members of its group. MPI messages per peer
   are E[ceil] of Poisson pair counts (``poisson_ceil_mean``); the share of
   pairs arriving in messages under ``lin1d.small_input`` is the
   size-biased Poisson tail (``small_share``).
4. **Machine.** The executed level's price (pricing.price_level) on the
   mean and the busiest node, walked root by root as the executed run
   walks them (``walk_root``, the direction chosen by
   ``TargetDirection``); the busiest node's port at the wire bytes of its
   own payload; the busiest link from the topology alone
   (``Topology.group_max_link_load``: the mean node's bytes per peer
   within its group, phases 0 and 2, and to the relay at its position in
   every other group, phase 1; directly, one group of all N nodes), and
   at least the busiest node's own link (its wire bytes times
   ``hot_link_shares``), priced by ``link_seconds``; the pipeline latency,
   and the closing collectives of the hub bitmaps
   (pricing.closing_seconds).
"""

from __future__ import annotations

from ..base import root_done

import math
from dataclasses import dataclass, replace

import numpy as np

from ...bfs.direction import TOP_DOWN, choose_direction
from ...bfs.parallel import map_in_order
from ...engine.costs import link_seconds, port_seconds, route_latency
from ...errors import UserError
from ...graph import Graph
from ...machine.model import Machine
from ...projection import Growth, grown_degrees, poisson_ceil_mean
from ...projection.profile_cache import WorkLog
from ...records import LevelRecord
from ...projection.virtual import Spread, heavy_vertices_at_profile, virtual_nodes
from ..search import LevelStep, Walk, walk_root
from . import pricing
from . import work as lin

PROFILE_VERTEX_PER_NODE = False
# The machine parameters that change the work (the level functions on the
# virtual layout, whose hubs stand for the target's): the hub counts. Every
# other parameter only prices the work (tests/test_repricing.py).
WORK_PARAMETERS = ("lin1d.hubs_top_down", "lin1d.hubs_bottom_up")
# counters that count entries or pairs (they grow with a reached vertex's degree)
EDGE_COUNTS = ("entries_read", "hub_bits", "hub_entries", "pairs_generated", "backward_in", "answers",
               "forward_in", "relayed_forward", "relayed_backward")


def small_share(pairs_per_peer: float, small_pairs: float) -> float:
    """Share of a node's incoming pairs that arrive in messages of fewer
    than ``small_pairs`` pairs, when each peer sends Poisson(pairs_per_peer):
    a pair sits in a message of X pairs with probability X P(X) / E[X],
    so the share is P(Y < small_pairs - 1) for Y ~ Poisson(pairs_per_peer)."""
    if pairs_per_peer <= 0:
        return 0.0
    top = int(math.ceil(small_pairs)) - 2
    if top < 0:
        return 0.0
    if pairs_per_peer > top + 40 * math.sqrt(pairs_per_peer) + 40:
        return 0.0
    x = np.arange(top + 1, dtype=np.float64)
    log_pmf = x * math.log(pairs_per_peer) - pairs_per_peer - np.array([math.lgamma(v + 1) for v in x])
    return float(min(1.0, np.exp(log_pmf).sum()))


class Target:
    """The target machine and the quantities every level needs."""

    def __init__(self, machine: Machine, topology, vertices: int, options: lin.Lin1DOptions):
        self.machine = machine
        self.topology = topology
        self.nodes = topology.nodes
        self.vertices = vertices
        self.options = options
        self.section = machine.section("lin1d")
        N = self.nodes
        self.group = max(1, min(self.section.group_size, N))
        self.groups = -(-N // self.group)
        hops = topology.hop_distribution()
        self.route_s = route_latency(len(hops) - 1, machine.network)
        self.hot_link_shares = topology.hot_link_shares()

    def busiest_link_bytes(self, group: int, within_pair_bytes: float, across_pair_bytes: float) -> float:
        """The topology's busiest link for the relay pattern (a UserError
        where the topology has no answer at this size)."""
        try:
            return self.topology.group_max_link_load(group, within_pair_bytes, across_pair_bytes)
        except NotImplementedError as error:
            raise UserError(f"lin1d cannot project the links of this network: {error}; "
                            f"choose lin1d.group_size as a product of the torus's last extents, "
                            f"or --algorithm lin1d:relay=off") from None


def phases(target: Target, remote_pairs: float) -> list:
    """(pairs a node sends, peers it spreads them over, share crossing
    groups) of each part of the network phases, for ``remote_pairs`` pairs a
    node sends on one channel. Directly: to N - 1 peers. With relay: the
    pairs for its own group straight to its M - 1 members; those for the
    other groups to the G - 1 relays at its column; and, as a relay, the
    pairs it shuffles on to the M - 1 members of its group."""
    N, M, G = target.nodes, target.group, target.groups
    if remote_pairs <= 0 or N < 2:
        return []
    if not target.options.relay or G == 1:
        return [(remote_pairs, N - 1, 1 - (M - 1) / max(N - 1, 1))]
    own = remote_pairs * (M - 1) / (N - 1)
    cross = remote_pairs - own
    relayed = cross * (1 - 1 / M)  # a pair whose relay is its destination goes once
    return [(own, M - 1, 0.0), (cross, G - 1, 1.0), (relayed, M - 1, 0.0)]


@dataclass(frozen=True)
class TargetLevel:
    """One level's price at the target: the mean and the busiest node's
    (pricing.price_level on their counts, with the level's closed-form
    traffic), the closing collectives, and the level's totals."""

    mean: pricing.LevelPrice
    busiest: pricing.LevelPrice
    closing_s: float
    collective_bytes: float  # what the closing collectives carry
    messages: float
    payload_bytes: float
    pairs: float

    @property
    def compute_s(self) -> float:
        return float(np.max(self.mean.compute_s))

    @property
    def compute_max_s(self) -> float:
        return float(np.max(self.busiest.compute_s))

    @property
    def time_s(self) -> float:
        """The busiest node's level: the pipeline, then the closing collectives."""
        return float(self.busiest.units_s) + self.busiest.latency_s + self.closing_s

    @property
    def communication_s(self) -> float:
        return float(self.busiest.units_s) - self.compute_max_s + self.busiest.latency_s + self.closing_s


def price(target: Target, counts_mean: dict, counts_max: dict, direction: str, channels: dict,
          hub_nodes: float, hubs_per_node: int, loads: tuple) -> TargetLevel:
    """A level at the target. ``channels``: per channel ("forward",
    "backward"), the remote pairs the mean node sends; ``loads``: the
    busiest sender's and the busiest receiver's pairs over the mean
    node's."""
    machine, lin_section = target.machine, target.section
    P = lin_section.pair_bytes
    N = target.nodes
    # (pairs, peers, cross-group share, whether a relay sends them)
    every_phase = [(*phase, i == 2) for pairs in channels.values() for i, phase in enumerate(phases(target, pairs))]
    out_pairs = sum(pairs for pairs, _, _, _ in every_phase)
    message_pairs = lin_section.message_bytes / P

    def messages_at(load: float) -> float:
        """MPI messages of a node that sends (or receives) ``load`` times the
        mean node's pairs, E[ceil] per peer; its work as a relay is a mean
        node's (a relay's pairs come from a whole column of sources)."""
        return sum(peers * poisson_ceil_mean(pairs * (1.0 if relaying else load) / peers, message_pairs)
                   for pairs, peers, _, relaying in every_phase)

    messages = messages_at(1.0)
    small = (sum(pairs * small_share(pairs / peers, lin_section.small_input_bytes / P)
                 for pairs, peers, _, _ in every_phase) / out_pairs) if out_pairs else 0.0
    mean_counts = dict(counts_mean)
    busiest_counts = dict(counts_max)
    for channel in ("forward", "backward"):  # the relays' shuffles, in closed form (as phases)
        parts = phases(target, channels.get(channel, 0.0))
        relayed = parts[2][0] if len(parts) == 3 else 0.0
        mean_counts[f"relayed_{channel}"] = busiest_counts[f"relayed_{channel}"] = relayed
    load, load_in = loads
    network = machine.network
    if out_pairs:
        # the busiest sender's (receiver's) own wire bytes: its payload cut into packets, not the
        # mean node's packets times the load (that would multiply one packet's header by the load)
        out_wire, in_wire = (float(network.wire_bytes(out_pairs * P * x)) for x in (load, load_in))
        inject = port_seconds(max(out_wire, in_wire), network)
        wire = float(network.wire_bytes(out_pairs * P, network.packets(out_pairs * P)))
        ratio = wire / (out_pairs * P)  # the mean node's wire bytes per payload byte
        relay = any(len(phases(target, pairs)) == 3 for pairs in channels.values())
        within = across = 0.0  # bytes per peer, the mean node's
        for pairs in channels.values():
            for i, (sent, peers, _) in enumerate(phases(target, pairs)):
                if relay and i == 1:
                    across += sent * P * ratio / peers
                else:
                    within += sent * P * ratio / peers
        out_share, in_share = target.hot_link_shares
        link = link_seconds(max(target.busiest_link_bytes(target.group if relay else N, within, across),
                                out_wire * out_share, in_wire * in_share), network)
    else:
        inject = link = 0.0
    stages = sum(2 if len(phases(target, pairs)) == 3 else 1 for pairs in channels.values() if pairs > 0)

    def node(counts: dict, messages_out: float, messages_in: float) -> pricing.LevelPrice:
        # the port is priced once, at the larger of the busiest node's
        # sending and receiving, and reported as injection
        return pricing.price_level(machine, counts, direction, target.options.modules, target.vertices / N, small,
                                   messages_out, messages_in, injection_s=inject, ejection_s=0.0, link_s=link,
                                   phases=stages if out_pairs else 0, route_latency_s=target.route_s)

    closing, gather = pricing.closing_seconds(machine, N, direction, hub_nodes, hubs_per_node)
    return TargetLevel(mean=node(mean_counts, messages, messages),
                       busiest=node(busiest_counts, messages_at(load), messages_at(load_in)),
                       closing_s=closing, collective_bytes=gather, messages=messages * N,
                       payload_bytes=out_pairs * P * N, pairs=out_pairs * N)


class TargetDirection:
    """Beamer's policy (simbfs.bfs.direction) in target units: edges scale
    together, the frontier's vertices with the share of vertices that have
    an edge. It keeps the profile's unexplored edges as the walk claims
    vertices."""

    def __init__(self, degree: np.ndarray, growth: Growth, num_vertices: int, optimising: bool, root: int):
        self.degree = degree
        self.growth = growth
        self.n = num_vertices
        self.optimising = optimising
        self.unexplored = float(degree.sum() - degree[root])

    def after(self, step: LevelStep, new: np.ndarray) -> str:
        """The direction of the level after ``step``, which claims ``new``."""
        if not (self.optimising and len(new)):
            return step.direction if len(new) else TOP_DOWN
        edges = float(self.degree[new].sum())
        return choose_direction(step.direction, frontier_edges=edges, unexplored_edges=self.unexplored - edges,
                                frontier_vertices=int(round(len(new) * self.growth.vertices)),
                                prev_frontier_vertices=int(round(len(step.frontier) * self.growth.vertices)),
                                num_vertices=self.n)

    def next_direction(self, step: LevelStep, new: np.ndarray) -> str:
        """walk_root's choice after ``step``; its claims' edges are explored."""
        direction = self.after(step, new)
        self.unexplored -= float(self.degree[new].sum())
        return direction


class Projector:
    def __init__(self, graph: Graph, machine: Machine, topology, options: lin.Lin1DOptions, profile_scale: int,
                 target_scale: int, edgefactor: int, work=None):
        self.graph = graph
        self.work = work if work is not None else WorkLog()  # the level functions' results
        self.target = Target(machine, topology, 2 ** target_scale, options)
        section = self.target.section
        N = self.target.nodes
        self.growth = Growth.between(profile_scale, target_scale, edgefactor)
        self.V = virtual_nodes(N, graph.num_vertices)
        local_t = self.target.vertices / N
        # the executed rule at the target: at most one hub per HUB_SHARE_LIMIT local vertices
        self.hubs_t = {d: min(h, int(local_t) // lin.HUB_SHARE_LIMIT)
                       for d, h in (("top-down", section.hubs_top_down), ("bottom-up", section.hubs_bottom_up))}
        per_virtual = {}
        for d, hubs in self.hubs_t.items():
            total = heavy_vertices_at_profile(graph.degree, self.growth, profile_scale, target_scale, edgefactor,
                                              hubs * N) if hubs else 0
            per_virtual[d] = -(-total // self.V) if total else 0
        self.layout = lin.Layout(graph, self.V, self.V, per_virtual["top-down"], per_virtual["bottom-up"],
                                 share_limit=None)
        self.local_t = local_t
        self.per_node_bulk = local_t / (graph.num_vertices / self.V) * self.growth.vertices
        self.widening = math.sqrt(self.growth.second * self.growth.vertices) / self.growth.mean
        degree = self.layout.degree
        self.hub_growth = self.growth.of_vertex(float(degree.max()) if degree.size else 1.0) / self.growth.reached_mean
        self.per_virtual_hubs = per_virtual

    def edge_growth(self, step: LevelStep) -> float:
        """How a level's entries and pairs grow to the target: a seed level's
        by its own frontier's degrees, any other by a reached vertex's."""
        growth, degree = self.growth, self.layout.degree
        if not step.seed:
            return growth.reached_mean
        weight = float(degree[step.frontier].sum())
        return float(grown_degrees(growth, degree[step.frontier]).sum()) / weight if weight else growth.mean

    def level(self, step: LevelStep, policy: TargetDirection) -> tuple[lin.LevelWork, LevelRecord, TargetLevel]:
        """One level at the target; ``policy.after`` chooses the next
        direction (the closing gather depends on it)."""
        target, layout = self.target, self.layout
        N = target.nodes
        direction, frontier, seed = step.direction, step.frontier, step.seed
        edge_growth = self.edge_growth(step)
        options = lin.Lin1DOptions(relay=False, modules=target.options.modules,
                                   direction_optimising=target.options.direction_optimising)

        def level_work():  # price-independent: what a work profile keeps (its pairs are not priced here)
            work = (lin.top_down if direction == TOP_DOWN else lin.bottom_up)(layout, frontier, step.visited,
                                                                              options)
            return replace(work, phases=[], new_parents=np.zeros(0, dtype=np.int64))

        work = self.work.get((step.root, step.level, direction), level_work)
        kappa = self.V / N if seed else self.per_node_bulk
        spread = Spread(kappa, self.widening, 1.0 if seed else self.hub_growth, N)
        # The busiest target node is the virtual node whose modules take
        # longest, all its counters (not each counter's own maximum, which
        # different nodes hold), scaled to the Spread's busiest time, and
        # never below the mean node in any module.
        grown = {name: values * (edge_growth if name in EDGE_COUNTS else 1.0)
                 for name, values in work.counts.items() if not name.startswith("relayed_")}
        module_s = pricing.node_times(target.machine, {**grown, "relayed_forward": 0.0, "relayed_backward": 0.0},
                                      direction, {}, 0.0, 0.0, target.options.modules, self.local_t).compute
        module_s = np.broadcast_to(np.asarray(module_s, dtype=np.float64), (self.V,))
        busiest_node = int(np.argmax(module_s))
        _, busiest_s, _ = spread.mean_and_busiest(module_s)
        scale_busiest = busiest_s / float(module_s[busiest_node]) if module_s[busiest_node] > 0 else kappa
        counts_mean = {name: float(values.mean()) * kappa for name, values in grown.items()}
        counts_max = {name: max(float(values[busiest_node]) * scale_busiest, counts_mean[name])
                      for name, values in grown.items()}
        # the busiest sender and receiver of pairs, each its own node's
        loads = []
        for keys in (("pairs_generated", "answers"), ("backward_in", "forward_in")):
            traffic = sum(grown[name] for name in keys)
            mean, busiest, _ = spread.mean_and_busiest(traffic)
            loads.append(busiest / mean if mean > 0 else 1.0)
        remote = (N - 1) / N
        if direction == TOP_DOWN:
            channels = {"forward": counts_mean["pairs_generated"] * remote}
        else:
            channels = {"backward": counts_mean["pairs_generated"] * remote,
                        "forward": counts_mean["answers"] * remote}
        vertex_scale = 1.0 if seed else target.vertices / layout.n * self.growth.vertices
        # the closing gather announces the next frontier's hubs (of the next
        # direction's set), as executed; the profile's hubs stand for the
        # target's in the ratio of the two sets
        new = work.new_vertices
        nxt = policy.after(step, new)
        gathered = lin.gathered_hubs(direction, nxt)
        hubs_profile = int(layout.hubs(gathered)[new].sum())
        per_virtual = self.per_virtual_hubs[gathered]
        if seed and len(new) <= math.sqrt(layout.n) and nxt == TOP_DOWN:
            hub_frontier_t = float(hubs_profile)  # a seed frontier: the same few vertices at the target
        else:
            hub_frontier_t = hubs_profile * self.hubs_t[gathered] * N / (per_virtual * self.V) if per_virtual else 0.0
        hub_nodes = N * -math.expm1(-hub_frontier_t / N) if hub_frontier_t else 0.0
        priced = price(target, counts_mean, counts_max, direction, channels, hub_nodes, self.hubs_t[gathered], loads)
        record = LevelRecord.with_rest_as_synchronisation(
            root=step.root, level=step.level, direction=direction,
            frontier_vertices=int(round(len(frontier) * vertex_scale)),
            edges_examined=int(round(work.edges_examined * vertex_scale * edge_growth)),
            messages=int(round(priced.messages)), bytes=float(round(priced.payload_bytes)), time_s=priced.time_s,
            compute_s=priced.compute_s, communication_s=priced.communication_s,
            compute_max_s=priced.compute_max_s, bottleneck=priced.busiest.bottleneck,
            collective_bytes=float(priced.collective_bytes * max(N - 1, 0) / max(N, 1)),
            edges_sent=int(round(priced.pairs)))
        return work, record, priced

    def root(self, root: int, on_level=None) -> Walk:
        """The root's walk at the target (walk_root, choosing each next
        direction by TargetDirection; ``on_level`` sees every level's record
        and its TargetLevel)."""
        policy = TargetDirection(self.layout.degree, self.growth, self.graph.num_vertices,
                                 self.target.options.direction_optimising, root)

        def level(step: LevelStep):
            work, record, priced = self.level(step, policy)
            return work.new_vertices, record, priced

        return walk_root(self.graph, root, level, next_direction=policy.next_direction, on_level=on_level)


def project(graph: Graph, keys, machine: Machine, topology, algorithm, profile_scale: int, target_scale: int,
            edgefactor: int, progress=lambda message: None, work=None) -> list:
    """Steps 1-4 for every search key: [(root, edges, time, records)]; the
    level functions' results are asked of ``work`` (a WorkLog)."""
    projector = Projector(graph, machine, topology, algorithm.options, profile_scale, target_scale, edgefactor,
                          work)
    progress(f"{len(keys)} roots on {projector.V} virtual nodes; hubs per virtual node "
             f"{projector.per_virtual_hubs['top-down']} (top-down) and {projector.per_virtual_hubs['bottom-up']} "
             f"(bottom-up) standing for the target's {projector.hubs_t['top-down']} and "
             f"{projector.hubs_t['bottom-up']} per node")

    def one(root):
        walk = projector.root(int(root))
        progress(root_done(root))
        return int(root), walk.target_edges(graph, edgefactor, projector.target.vertices), walk.time_s, walk.records

    return map_in_order(one, keys)
