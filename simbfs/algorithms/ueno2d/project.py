"""ueno2d projected: Ueno & Suzumura's BFS at sizes too large to execute
here (the paper's 4,096 GPUs at scale 35), from real BFS runs at a smaller
scale. Every output says "projected" (docs/background/projection.md).

1. **Profile.** The executed level function (work.py) runs on the profile
   graph laid out on a virtual grid of V processes (V = the target's P when
   each still gets enough vertices, else fewer; ``virtual_nodes``), giving
   every virtual process's counts, and the real frontiers and claims.
2. **Scale.** Totals grow to the target: vertices by the ratio of reached
   vertices (``Growth.vertices`` x 2^(S - s)), entries also by the growth of
   a reached vertex's degree. A target process gets the mean share; the
   busiest process follows the virtual processes' spread (``Spread``). A
   level whose target frontier has fewer vertices than there are processes
   (the root's level) keeps its busiest process: the heaviest frontier
   vertex's list, grown by its own degree growth, over the R processes of
   its column.
3. **Fold, in closed form.** SV passes one edge per (process, unvisited
   target) (work.py, step 5), and the processes holding a target v's
   entries from the frontier are those of v's row in the columns of its
   frontier neighbours. With k frontier neighbours in uniformly random
   columns (scrambled labels) they are C (1 - (1 - 1/C)^k) processes in
   expectation, so the level's fold edges are the sum of that over the
   profile's newly reached vertices, each k grown with the reached degree.
   One in C of them is kept at home (u and v in the same column). Expand
   lists cost the closed-form SIMD-VLQ bytes of a random subset
   (``vlq.expected_bytes_per_value``).
4. **Machine.** The executed level's price (pricing.price_level) on the
   mean and the busiest process, root by root (``walk_root``); a host's
   port carries its k processes' fold (the busiest one and k - 1 typical
   ones: a processor-row's members are never on one host when R >= k);
   the network term is the larger of that port and the topology's busiest
   link (``busiest_link_seconds``: every host's fold spread uniformly,
   plus the busiest host's excess on its own link), as executed runs price
   the links; the level ends with the allreduce of the next frontier's
   size.
"""

from __future__ import annotations

from ..base import root_done

import math
from dataclasses import replace

import numpy as np

from ...bfs.direction import TOP_DOWN
from ...engine.costs import allreduce_time, port_seconds, route_latency
from ...graph import Graph
from ...machine.model import Machine
from ...projection import Growth, busiest_link_seconds
from ...projection.profile_cache import WorkLog
from ...projection.virtual import Spread, virtual_nodes
from ...records import LevelRecord
from ..bsp1d.work import gather_adjacency
from ..search import LevelStep, Walk, walk_root
from . import pricing, vlq
from . import work as ueno
from .pricing import Counts, Shape
from .work import EXPAND_BITMAP, EXPAND_LIST, WORD_BITS

PROFILE_VERTEX_PER_NODE = False
# The machine parameters that change the work (the level function on the
# virtual grid): the expand's switch to a bitmap (alpha) and the SIMD-VLQ
# width. Every other parameter only prices the work (tests/test_repricing.py).
WORK_PARAMETERS = ("ueno2d.alpha", "ueno2d.simd_width")


def distinct_columns(k, columns: int):
    """Expected distinct columns among ``k`` uniformly random picks of
    ``columns``: C (1 - (1 - 1/C)^k)."""
    k = np.asarray(k, dtype=np.float64)
    return columns * -np.expm1(k * math.log1p(-1.0 / columns)) if columns > 1 else np.minimum(k, 1.0)


def list_bytes(vertices: float, block: float) -> float:
    """Expected SIMD-VLQ bytes of a delta list of ``vertices`` random ids
    of a block of ``block``: the first id in full, then the gaps. A
    fractional count is a process's expectation, Poisson(``vertices``):
    the first id is paid with probability 1 - exp(-vertices)."""
    if vertices <= 0:
        return 0.0
    first = float(vlq.vlq_lengths(np.array([max(int(block) - 1, 0)], dtype=np.uint64))[0])
    gap = float(vlq.expected_bytes_per_value(min(1.0, vertices / block)))
    return vertices * gap + (first - gap) * -math.expm1(-vertices)


class Projector:
    def __init__(self, graph: Graph, machine: Machine, topology, options: ueno.Ueno2DOptions, processes: int,
                 profile_scale: int, target_scale: int, edgefactor: int, work=None):
        self.graph = graph
        self.work = work if work is not None else WorkLog()  # the level function's results
        self.topology = topology
        self.machine = machine
        self.options = options
        self.section = machine.section("ueno2d")
        self.P = processes
        self.R, self.C = ueno.grid_shape(processes)
        self.n = float(2 ** target_scale)
        self.growth = Growth.between(profile_scale, target_scale, edgefactor)
        self.V = virtual_nodes(processes, graph.num_vertices)
        self.layout = ueno.Layout(graph, self.V)
        self.vertex_ratio = self.n / graph.num_vertices * self.growth.vertices
        self.edge_ratio = self.n / graph.num_vertices * self.growth.mean
        self.kappa = self.V / self.P * self.vertex_ratio
        self.widening = math.sqrt(self.growth.second * self.growth.vertices) / self.growth.mean
        self.hub_growth = self.growth.of_vertex(float(graph.degree.max())) / self.growth.reached_mean
        hops = topology.hop_distribution()
        self.latency_s = route_latency(len(hops) - 1, machine.network)

    def counts(self, frontier: np.ndarray, visited: np.ndarray, work: ueno.LevelWork) -> tuple[Counts, Counts]:
        """The level's counts of the mean and of the busiest target process."""
        P, R, C, n = self.P, self.R, self.C, self.n
        section = self.section
        frontier_t = len(frontier) * self.vertex_ratio
        mode = EXPAND_BITMAP if (self.options.expand == "bitmap" or frontier_t > section.alpha * n) else EXPAND_LIST
        own = frontier_t / P
        # the busiest process has at least one frontier vertex when there is one
        own_busiest = max(own, min(frontier_t, 1.0))
        if mode == EXPAND_BITMAP:
            own_bytes = own_bytes_busiest = received_least = n / P / 8
        else:
            own_bytes, own_bytes_busiest = list_bytes(own, n / P), list_bytes(own_busiest, n / P)
            received_least = own_bytes_busiest if frontier_t >= 1 else 0.0  # a member of that vertex's column
        words = n / C / WORD_BITS
        density = min(1.0, frontier_t / n)
        nonempty = words * -math.expm1(WORD_BITS * math.log1p(-density)) if density < 1 else words
        # fold edges in closed form (step 3)
        sources, targets = gather_adjacency(self.graph, frontier)
        fresh = targets[~visited[targets]]
        # each unvisited target's count of frontier edges, in ascending target order
        # (the nonzero bins: np.unique's sorted values, without its hashing of every edge)
        if len(fresh):
            bins = np.bincount(fresh)
            k = bins[bins > 0]
        else:
            k = np.zeros(0)
        pairs = float(distinct_columns(k * self.growth.reached_mean, C).sum()) * self.vertex_ratio
        remote = pairs * (1 - 1 / C)
        entries_t = float(work.entries.sum()) * self.edge_ratio
        claimed = len(work.new_vertices) * self.vertex_ratio
        # Not walk_root's seed rule (a frontier of the same few vertices at any
        # scale): a level whose target frontier has fewer vertices than there
        # are processes has its busiest process set by one vertex's list
        # (module docstring, step 2), which no spread over processes gives.
        if frontier_t < P:  # the heaviest frontier vertex's list over the R processes of its column
            heaviest = float(self.graph.degree[frontier].max()) if len(frontier) else 0.0
            busiest_entries = max(entries_t / P, heaviest * self.growth.of_vertex(heaviest) / R)
            spread_ratio = busiest_entries / max(entries_t / P, 1e-300)
        else:
            spread = Spread(self.kappa, self.widening, self.hub_growth, P)
            mean_v, busiest_v, _ = spread.mean_and_busiest(work.entries * self.growth.reached_mean)
            spread_ratio = busiest_v / mean_v if mean_v > 0 else 1.0
        edge = section.edge_bytes
        portions = max(1.0, math.ceil(entries_t / P * spread_ratio * edge / section.gather_buffer_bytes))

        def make(scale: float, busiest: bool) -> Counts:
            sent = remote / P * scale
            peers = C - 1
            per_peer = sent / peers if peers else 0.0
            messages = peers * (min(portions, per_peer) if per_peer >= 1 else -math.expm1(-per_peer))
            mine, mine_bytes = (own_busiest, own_bytes_busiest) if busiest else (own, own_bytes)
            least = received_least if busiest else 0.0
            return Counts(expand_mode=mode, own_vertices=mine, own_bytes=mine_bytes,
                          column_bytes=max((R - 1) * own_bytes, least if R > 1 else 0.0),
                          row_bytes=max((C - 1) * own_bytes, least if C > 1 else 0.0),
                          column_vertices=max(own * R, mine), row_vertices=max(own * C, mine), cq_words=words,
                          nonempty_words=max(nonempty, min(words, frontier_t)) if busiest else nonempty,
                          entries=entries_t / P * scale, passed=pairs / P * scale, sent_bytes=sent * edge,
                          received=pairs / P * scale, received_bytes=sent * edge, claimed=claimed / P * scale,
                          messages_out=messages, messages_in=messages)

        return make(1.0, False), make(spread_ratio, True)

    def ports_seconds(self, mean: Counts, busiest: Counts) -> float:
        """The fold's network term, in closed form: a host's port carries
        the busiest process's fold and k - 1 typical ones, and the
        topology's busiest link carries every host's fold spread uniformly
        plus the busiest host's excess on its own link. (The executed run
        gets the same term per process from the engine's traffic loads of
        the real P x P fold.)"""
        network = self.machine.network
        k = network.processes_per_host

        def wire(c: Counts) -> float:
            if c.sent_bytes <= 0:
                return 0.0
            per_message = c.sent_bytes / max(c.messages_out, 1e-300)
            packets = c.messages_out * math.ceil(per_message / network.packet_payload_bytes)
            return float(network.wire_bytes(c.sent_bytes, packets))

        host = wire(busiest) + (k - 1) * wire(mean)
        return max(port_seconds(host, network),
                   busiest_link_seconds(self.topology, network, self.topology.nodes * k * wire(mean), host, host))

    def level(self, step: LevelStep):
        """One level at the target: (its claims in the profile, its
        LevelRecord, the mean and busiest process's Counts and the busiest
        one's LevelPrice)."""
        frontier = step.frontier

        def level_work():  # price-independent: what a work profile keeps
            work = ueno.level(self.layout, frontier, step.visited, self.section.alpha, self.section.simd_width,
                              "bitmap" if self.options.expand == "bitmap" else "auto")
            return replace(work, new_parents=np.zeros(0, dtype=np.int64))

        work = self.work.get((step.root, step.level), level_work)
        mean, busiest = self.counts(frontier, step.visited, work)
        machine = self.machine
        shape = Shape(n=self.n, R=self.R, C=self.C)
        ports = self.ports_seconds(mean, busiest)
        typical, slowest = (pricing.price_level(machine, self.options.device, self.options.sv, shape, c, ports,
                                                self.latency_s, self.R * c.own_bytes, self.C * c.own_bytes)
                            for c in (mean, busiest))
        closing = allreduce_time(machine.collectives, self.P, 8)
        time_s = float(slowest.expand_s) + float(slowest.fold_s) + closing
        kernels_mean = float(typical.compute_s)
        record = LevelRecord.with_rest_as_synchronisation(
            root=step.root, level=step.level, direction=TOP_DOWN,
            frontier_vertices=int(round(len(frontier) * self.vertex_ratio)) if step.level else 1,
            edges_examined=int(round(mean.entries * self.P)), messages=int(round(mean.messages_out * self.P)),
            bytes=float(mean.sent_bytes * self.P), time_s=time_s, compute_s=kernels_mean,
            communication_s=time_s - kernels_mean, compute_max_s=float(slowest.compute_s),
            bottleneck=slowest.bottleneck, collective_bytes=float((mean.column_bytes + mean.row_bytes) * self.P),
            edges_sent=int(round(mean.sent_bytes * self.P / self.section.edge_bytes)))
        return work.new_vertices, record, {"mean": mean, "busiest": busiest, "price": slowest}

    def root(self, root: int, on_level=None) -> Walk:
        """The root's walk at the target (walk_root; ``on_level`` sees every
        level's record and its details, as Projector.level returns them)."""
        return walk_root(self.graph, root, self.level, on_level=on_level)


def project(graph: Graph, keys, machine: Machine, topology, algorithm, profile_scale: int, target_scale: int,
            edgefactor: int, progress=lambda message: None, *, processes: int, work=None) -> list:
    """Steps 1-4 for every search key: [(root, edges, time, records)] on
    ``processes`` processes (the topology joins their hosts); the level
    function's results are asked of ``work`` (a WorkLog)."""
    projector = Projector(graph, machine, topology, algorithm.options, processes, profile_scale, target_scale,
                          edgefactor, work)
    progress(f"{len(keys)} roots on a virtual {projector.layout.R} x {projector.layout.C} grid standing for the "
             f"target's {projector.R} x {projector.C}")
    out = []
    for root in keys:
        walk = projector.root(int(root))
        out.append((int(root), walk.target_edges(graph, edgefactor, projector.n), walk.time_s, walk.records))
        progress(root_done(root))
    return out
