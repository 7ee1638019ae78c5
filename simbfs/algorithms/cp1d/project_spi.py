"""Projection of Checconi & Petrini's asynchronous 1D BFS (cp1d-spi) to runs
too large to execute (mode "projected").

The executed cp1d-spi prices a level per node as

    busy = max(cpu, inject, eject, busiest link, memory) + drain

plus the closing allreduce (execute_spi.py, pricing.price_level). A
projection prices the same
terms for the target (N nodes, scale S) without its graph, in four steps
(docs/background/projection.md, "cp1d-spi"):

1. **Profile on real data.** The paper's own level functions
   (work.top_down, work.bottom_up) run on a Graph500 graph at the profile
   scale s, laid out on V *virtual nodes* (V = N when the profile graph
   gives every node at least 256 vertices, else fewer) with the target's
   threads. The heavy vertices are the profile vertices whose degree, grown
   to the target scale, reaches the degree above which the target has LB
   vertices (closed form of kronecker_theory), so that the vertices left
   light are the target's light ones; and at least as many of the heaviest
   as hold the share of adjacency entries the target's LB heaviest hold.
   The roots are walked level by level (search.walk_root); each level's
   direction is CalcDirection evaluated with the target's counts.

2. **Per-cell work.** The level functions give operation counts per
   (virtual node, thread), edges per stream and per sweep vertex. Each
   count is priced with the target's per-operation cycles (its bitmaps'
   and parents' sizes set the latency) and grown per item: a reached
   vertex's degree growth (Growth.reached_mean) for work per adjacency
   entry, the closed-form growth of its thread blocks for headers (at most
   one per thread: sub-linear in the degree), none for work per vertex.

3. **Target nodes.** A target cell holds kappa = (n / N) / (s-vertices per
   virtual node) x Growth.vertices times as many items as a virtual one
   (bulk levels: the share of vertices with an edge falls with scale), so its
   mean is kappa times the virtual mean. The busiest one adds two parts: a
   Gaussian extreme (the virtual cells' robust spread, grown by sqrt(kappa)
   and the degree distribution's widening, times the typical extreme of the
   target's cells), and a hub part (what the heaviest virtual cell holds
   beyond its own Gaussian extreme: one heavy light vertex, grown with that
   vertex's degree), so that at kappa = 1 the busiest cell is the heaviest
   virtual one. Top-down seed levels (the root's first few, small
   frontiers) keep their vertices instead: kappa = V / N.

4. **Messages and machine.** Bytes and packets per stream come from a
   closed form of the paper's compression (4 B when the delta to the
   previous edge's sweep vertex is 0..127, else 8 B, 8 B per packet): a
   sweep vertex u with c edges in the level puts Poisson(c / streams) of
   them into each stream; duplicates are short, and consecutive distinct
   ones are short with probability 1 - (1 - 127 / L)^D for D distinct
   sweep vertices among the node's L. The busiest sender's (receiver's)
   streams are longer than the mean's, so its packets are E[ceil] of its
   own streams: fuller than the mean's. Injection, ejection, the busiest
   torus link and the longest route use the same closed forms as the
   level-synchronous projection (simbfs/projection/). The busiest and a
   typical node are priced by the executed run's pricing.price_level.
   Bottom-up claim visibility uses the executed model's delays (packet
   fill at the target's per-pair rates, two flights) in the level
   functions' own sweep-time rule, after a first pass with no remote claim
   visible (claim_timing.py).

**Re-pricing** (projection/profile_cache.py). The work that prices do not
change is asked of a WorkLog, so that a calibration or a sweep computes it
once: a top-down level's LevelWork (as :func:`level_work`: its streams as
the loads the pricing reads), and a bottom-up level's first pass, which
sees no remote claim whatever the prices. The claim timing of the passes
after it comes from the prices (the typical node's sweep, its probes'
queue wait, the streams' rates), so those passes are evaluated again at
every pricing, as a fresh projection evaluates them; but from the level's
segment table (work.BottomUpLevel.segment_table, kept in the log too):
what no timing changes, and the few segments per prober that a timing
decides (kernels.py, "the level's segment table"), which gives the walk's
counts bit for bit at a fraction of its time. What a bottom-up level
claims does not depend on its timing (only which probe finds the parent
does), so the levels after it are the cached ones; a re-pricing that
finds other claims marks the log ``diverged`` and the runner computes the
profile afresh. The machine parameters that change the work are
WORK_PARAMETERS.

Every output of a projection says "projected".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ...bfs.direction import BOTTOM_UP, TOP_DOWN
from ...bfs.parallel import map_in_order
from ...engine.costs import allreduce_time, port_seconds, route_latency
from ...engine.messaging import DirectPackets
from ...engine.topology import Topology
from ...graph import Graph
from ...machine.model import Machine
from ...projection import Growth, busiest_link_seconds, grown_degrees, longest_route_hops, poisson_ceil_mean
from ...projection.profile_cache import WorkLog
from ...projection.virtual import Spread, heavy_vertices_at_profile, virtual_nodes
from ...records import LevelRecord
from ..base import root_done
from ..search import LevelStep, Walk, walk_root
from .claim_timing import ClaimTiming, NeverVisible, TargetClaimDelay, self_consistent_claim_timing
from .layout import HEAVY_SHARE_LIMIT, Layout
from .memory import header_traffic
from .pricing import (LevelPrice, closing_words, cp1d_residents, edges_per_packet, fill_wait_s, hit_rates,
                      memory_seconds, op_cycles, packet_trip_s, price_level, probe_queue_share, stream_rates,
                      compressed_ops)
from .work import (OP_NAMES, RECEIVE_OPS, CP1DOptions, LevelWork, StreamTotals, bottom_up, calc_direction,
                   top_down)

# The profile is laid out on virtual nodes (at most one per 256 profile vertices).
PROFILE_VERTEX_PER_NODE = False
# The machine parameters that change the work (the level functions on the
# virtual layout): the threads (cells, streams; the threads option overrides
# cp1d.threads), the heavy vertices and the coarse index's stride (the
# layout). Every other parameter only prices the work, except through the
# bottom-up claim timing, which the projection evaluates again at every
# pricing (module docstring, "Re-pricing"). Shared by cp1d-mpi.
WORK_PARAMETERS = ("cp1d.threads", "cp1d.heavy_vertices", "cp1d.index_stride")

# Work per adjacency entry grows with a reached vertex's degree; per vertex it
# does not (headers: see LevelPricer.header_growth).
EDGE_OPS = ("vertex_header", "edge_entry", "pack", "compress", "unpack", "bitmap_test")
PACKET_GROUPS = 16  # per side: 16 x 16 (sender, receiver) load pairs


def target_heavy_count(lb: int, target_vertices: int) -> int:
    """The executed rule (layout.Layout): LB, at most one per HEAVY_SHARE_LIMIT vertices."""
    return min(lb, target_vertices // HEAVY_SHARE_LIMIT)


# ------------------------------------------------------------- messages
@dataclass
class StreamTraffic:
    """One channel's traffic over the whole target machine, and how one
    node's own packets fill with its load (``node``)."""

    edges: float
    payload: float
    packets: float
    nodes: int = 1
    streams: float = 0.0  # per node, in each direction
    unit: float = 0.0  # edges per full packet
    entry_bytes: float = 0.0
    header_bytes: float = 0.0
    sender_groups: list | None = None  # (relative load, weight); None: packets follow the edges
    receiver_groups: list | None = None

    def node(self, relative_load: float, sending: bool) -> tuple[float, float]:
        """(payload, packets) a node sends (``sending``) or receives when it
        carries ``relative_load`` times the channel's mean edges per node.
        Its streams are that much longer, so its packets are fuller than
        the mean's: the count follows E[ceil] of the longer streams, paired
        with the other ends' loads."""
        if self.edges <= 0:
            return 0.0, 0.0
        if self.sender_groups is None:  # seed levels: packets follow the edges
            return self.payload / self.nodes * relative_load, self.packets / self.nodes * relative_load
        edges = self.edges / self.nodes * relative_load
        per_stream = edges / self.streams
        others = self.receiver_groups if sending else self.sender_groups
        packets = self.streams * sum(w * poisson_ceil_mean(per_stream * r, self.unit) for r, w in others)
        return edges * self.entry_bytes + packets * self.header_bytes, packets


def stream_traffic(sweep_counts: np.ndarray, growth: float, per_node: float, nodes: int, streams: float,
                   local_vertices: float, cp, payload_bytes: float, compression: bool,
                   seed: bool = False, senders: float | None = None, spread: float | None = None,
                   sender_load: np.ndarray | None = None, kappa: float = 1.0,
                   receiver_load: np.ndarray | None = None) -> StreamTraffic:
    """A channel's traffic, from the profile's edges per sweep vertex
    (``sweep_counts``, each grown by ``growth``): ``per_node`` target-node
    vertices per profile vertex; each of ``senders`` nodes (default all)
    has ``streams`` (thread, receiver) streams, and a sweep vertex's edges
    spread over ``spread`` of them (default ``streams``). In a seed level
    each sweep vertex is alone on its node (a handful of vertices among N
    nodes), so its streams are its own. ``sender_load``: the channel's
    edges per virtual sender; a target sender holds ``kappa`` times as many
    sweep vertices, so its relative load varies sqrt(kappa) times less. A
    stream's packet count is E[ceil] of a Poisson count given its sender's
    load (hubs make the streams of a few senders long)."""
    active_only = senders is not None  # the senders are a subset: price the active ones only
    spread = streams if spread is None else spread
    senders = nodes if senders is None else senders
    lam = sweep_counts * growth / spread  # edges of one sweep vertex in one stream
    if lam.size == 0 or lam.sum() <= 0:
        return StreamTraffic(0.0, 0.0, 0.0)
    if seed:  # one sweep vertex per stream: every delta is 0, every entry short
        unit_bytes = cp.compressed_short_bytes if compression else cp.uncompressed_entry_bytes
        room = payload_bytes - (cp.compressed_header_bytes if compression else 0.0)
        unit = room / unit_bytes if compression else math.floor(payload_bytes / unit_bytes)
        edges = float(lam.sum()) * spread
        packets = spread * sum(poisson_ceil_mean(x, unit) for x in lam)
        header = cp.compressed_header_bytes if compression else 0.0
        return StreamTraffic(edges, edges * unit_bytes + packets * header, packets, nodes=nodes)
    all_streams = senders * streams
    edges = nodes * per_node * float(lam.sum()) * spread / all_streams  # per stream
    if compression:
        distinct = nodes * per_node * float((-np.expm1(-lam)).sum()) * spread / all_streams
        nonempty = -math.expm1(-edges)
        # D sweep vertices spread over the L local ids: a gap exceeds the
        # largest short delta with probability (1 - delta / L)^D
        near = 1.0 - max(1.0 - cp.delta_max / max(local_vertices, 1.0), 0.0) ** distinct
        short = (edges - distinct) + nonempty + max(distinct - nonempty, 0.0) * near
        entry_bytes = (short * cp.compressed_short_bytes + (edges - short) * cp.compressed_long_bytes) / edges
        header = cp.compressed_header_bytes
        unit = (payload_bytes - header) / entry_bytes
    else:
        entry_bytes, header = cp.uncompressed_entry_bytes, 0.0
        unit = math.floor(payload_bytes / entry_bytes)
    senders_by_load = receivers_by_load = [(1.0, 1.0)]
    if sender_load is not None and len(sender_load) > 1:
        senders_by_load = _load_groups(sender_load[sender_load > 0] if active_only else sender_load, kappa)
        if receiver_load is not None and len(receiver_load) > 1:
            receivers_by_load = _load_groups(receiver_load, kappa)
    # a stream of Poisson(edges x its sender's relative load x its
    # receiver's) edges: hubs make the streams of a few senders, and
    # (bottom-up probes go to the owners of the probed neighbours) to a few
    # receivers, long, and the rest short
    packets = float(sum(ws * wr * poisson_ceil_mean(edges * rs * rr, unit)
                        for rs, ws in senders_by_load for rr, wr in receivers_by_load))
    payload = edges * entry_bytes + packets * header
    return StreamTraffic(edges * all_streams, payload * all_streams, packets * all_streams, nodes=nodes,
                         streams=all_streams / nodes, unit=unit, entry_bytes=entry_bytes, header_bytes=header,
                         sender_groups=senders_by_load, receiver_groups=receivers_by_load)


def _load_groups(load: np.ndarray, kappa: float) -> list:
    """(relative load, weight) of equal-count groups of nodes by load. A
    target node holds kappa times the items of a virtual one, so its relative
    load varies sqrt(kappa) times less; E[ceil] is smooth in the rate, so
    PACKET_GROUPS groups stand for all the nodes and pricing stays cheap."""
    relative = load / load.mean()
    relative = np.maximum(1.0 + (relative - 1.0) / math.sqrt(max(kappa, 1.0)), 0.0)
    groups = np.array_split(np.sort(relative), min(PACKET_GROUPS, len(relative)))
    return [(float(g.mean()), len(g) / len(relative)) for g in groups]


# ------------------------------------------------------------ the work
@dataclass(frozen=True)
class StreamLoad:
    """What the pricing reads of a level's Streams: the edges of each sweep
    vertex that has any (in vertex order), and the edges each virtual node
    sends and receives. It does not depend on prices, so a work profile
    keeps it (profile_cache.py) instead of the edges themselves."""

    sweep_counts: np.ndarray
    sent: np.ndarray
    received: np.ndarray
    channel: str


def level_work(work: LevelWork, virtual: int) -> LevelWork:
    """``work`` as the pricing reads it: its streams as StreamLoads, without
    the parents (a projection does not build a tree)."""
    def load(s) -> StreamLoad:
        if isinstance(s, StreamTotals):  # (BottomUpLevel.counted: summed already)
            return StreamLoad(s.edges.astype(np.float64), s.sent.astype(np.float64),
                              s.received.astype(np.float64), s.channel)
        counts = np.bincount(s.sweep_vertex).astype(np.float64)
        return StreamLoad(counts[counts > 0], np.bincount(s.sender, minlength=virtual).astype(np.float64),
                          np.bincount(s.receiver, minlength=virtual).astype(np.float64), s.channel)

    return replace(work, streams=[load(s) for s in work.streams], new_parents=np.zeros(0, dtype=np.int64),
                   extra={})


# ---------------------------------------------------------------- levels
@dataclass
class Target:
    machine: Machine
    topology: Topology
    nodes: int
    vertices: int
    threads: int
    heavy: int
    options: CP1DOptions


@dataclass(frozen=True)
class ProjectedLevel:
    """A level's price at the target: the busiest node's and a typical
    node's LevelPrice (the typical node's sweep and probes' queue wait set
    the claim timing), the typical node's busiest thread's sweep and
    receive time, the whole machine's messages, and the claim timing the
    level gives."""

    busiest: LevelPrice
    typical: LevelPrice
    scan_s: float
    receive_s: float
    edges_sent: float
    payload: float
    packets: float
    backward_packets: float
    timing: ClaimTiming


@dataclass
class _Messages:
    """A level's messages at the target: per node on average, and how much
    more the busiest sender sends and the busiest receiver receives."""

    edges: float
    payload: float
    packets: float
    backward_packets: float
    channel_edges: list  # whole machine, per channel (top-down: forward; bottom-up: probes, answers)
    sent_cells: np.ndarray  # edges sent per virtual node
    received_cells: np.ndarray
    out_ratio: float  # busiest sender's edges / the mean's
    in_ratio: float
    out_busiest: tuple  # (payload, packets) the busiest sender sends, in fuller packets than the mean's
    in_busiest: tuple


class LevelPricer:
    """Steps 2-4 for one level's work on the virtual layout."""

    def __init__(self, target: Target, layout: Layout, growth: Growth, profile_vertices: int, work=None):
        self.target = target
        self.layout = layout
        self.work = work if work is not None else WorkLog()  # the level functions' results (level_work)
        self.V = layout.N
        self.local_t = target.vertices / target.nodes  # vertices per target node
        # the target node's randomly accessed structures (pricing.py)
        self.residents = cp1d_residents(target.machine, math.ceil(self.local_t), target.heavy, target.nodes,
                                        target.threads,
                                        header_traffic(target.machine, target.vertices,
                                                       float(target.vertices) * 2 * growth.edgefactor,
                                                       target.threads, layout.graph.spec.kind))
        self.growth = growth
        # Items are reached vertices: fewer at the target (growth.vertices),
        # each with more edges (growth.reached_mean). Their standard
        # deviation grows as sqrt(E[d^2 | reached]) = sqrt(second / vertices),
        # beyond the reached mean's growth by:
        self.widening = math.sqrt(growth.second * growth.vertices) / growth.mean
        # reached target-node vertices per profile vertex
        self.per_node_bulk = self.local_t / profile_vertices * growth.vertices
        # each reached vertex's headers: one per thread block it has entries in
        self.header_growth = growth.thread_blocks(target.threads)
        light = ~layout.heavy
        light_max = float(layout.degree[light].max()) if light.any() else 1.0
        self.hub_growth = growth.of_vertex(light_max) / growth.reached_mean
        hops = target.topology.hop_distribution()
        self.mean_hops = float(np.dot(np.arange(len(hops)), hops))
        collectives = target.machine.collectives
        # each level's closing allreduce, and P^H after the last one (Algorithm 4)
        heavy = target.heavy if target.options.load_balancing else 0
        self.closing_words = closing_words(heavy)
        self.closing_s = allreduce_time(collectives, target.nodes, 8 * self.closing_words)
        self.final_s = allreduce_time(collectives, target.nodes, 8 * heavy) if heavy else 0.0

    def cell_scaling(self, seed: bool) -> tuple[float, float, Spread, Spread]:
        """(kappa, reached target-node vertices per profile vertex, the
        thread cells' Spread, the node cells' Spread) of a level."""
        N, T = self.target.nodes, self.target.threads
        if seed:  # the same few vertices, spread over more nodes
            kappa, per_node = self.V / N, 1.0 / N
        else:
            kappa, per_node = self.local_t / (self.layout.n / self.V) * self.growth.vertices, self.per_node_bulk
        # the heaviest cell's excess is one light vertex's, grown with its
        # own degree (in a seed level the values are already grown so)
        hub_growth = 1.0 if seed else self.hub_growth
        return kappa, per_node, Spread(kappa, self.widening, hub_growth, N * T), Spread(kappa, self.widening,
                                                                                      hub_growth, N)

    @staticmethod
    def grown_node_counts(ops: dict, item_growth: dict) -> dict:
        """Each virtual node's operations, grown to the target's per item
        (index words apart: the projection charges them in closed form)."""
        return {k: ops[k].sum(axis=1) * item_growth[k] for k in OP_NAMES if k != "index_word"}

    def item_growth(self, edge_growth: float) -> dict:
        """How each operation's count per item grows to the target."""
        growth = {name: (edge_growth if name in EDGE_OPS else 1.0) for name in OP_NAMES}
        # headers are swept for the typical vertices of the active index
        # words, even in a seed level; their count saturates at the threads
        growth["vertex_header"] = self.header_growth
        return growth

    def edge_growth(self, step: LevelStep) -> float:
        """How a level's work per adjacency entry grows to the target: with
        a seed frontier's own degrees, else as a reached vertex's of the
        bulk."""
        if not step.seed:
            return self.growth.reached_mean
        degree = self.layout.degree[step.frontier]
        weight = float(degree.sum())
        return float(grown_degrees(self.growth, degree).sum()) / weight if weight else self.growth.mean

    def thread_costs(self, counts: dict, hits: dict | None = None) -> tuple[dict, float]:
        """Each virtual node's cycles per operation under its level's whole
        mix of grown ``counts`` (as executed), and what the coarse index
        costs a thread: every thread tests every index word of its node,
        whatever the frontier."""
        target = self.target
        costs = op_cycles(target.machine, target.threads, self.residents, counts, target.options.compression, hits)
        index = 0.0
        if target.options.representation == "coarse-index":
            index = math.ceil(self.local_t / self.layout.index_stride) * float(np.max(costs["index_word"]))
        return costs, index

    @staticmethod
    def cells(ops: dict, costs: dict, item_growth: dict):
        """Cycles per (virtual node, thread) of ``ops`` at the target (index
        words apart: thread_costs prices them)."""
        return sum(counts * costs[name][:, None] * item_growth[name] for name, counts in ops.items()
                   if name != "index_word")

    def price(self, work: LevelWork, seed: bool, edge_growth: float, frontier_vertices: int) -> ProjectedLevel:
        target = self.target
        machine = target.machine
        net, T, N = machine.network, target.threads, target.nodes
        kappa, per_node, threads, nodes = self.cell_scaling(seed)
        ops = compressed_ops(work.ops, target.options.compression)
        item_growth = self.item_growth(edge_growth)
        messages = self._messages(work, seed, edge_growth, frontier_vertices, per_node, kappa, nodes)

        # network: the executed loads' closed forms
        pair = max(N - 1, 1)
        wire = float(net.wire_bytes(messages.payload / pair, messages.packets / pair)) * pair \
            if messages.packets else 0.0
        # the busiest sender's and receiver's own wire bytes: their streams
        # are longer than the mean's, so their packets are fuller
        out_wire = float(net.wire_bytes(*messages.out_busiest)) if messages.packets else 0.0
        in_wire = float(net.wire_bytes(*messages.in_busiest)) if messages.packets else 0.0
        link = busiest_link_seconds(target.topology, net, wire * N, out_wire, in_wire, messages.packets * N)
        latency = 0.0
        if wire:
            talking = N * (N - 1) * -math.expm1(-messages.edges / pair)  # pairs that talk: the longest route
            latency = route_latency(longest_route_hops(target.topology, talking), net)

        # threads: sweep, receive and per-packet overheads, at each virtual
        # node's costs under its own mix of operations (as executed)
        clock = machine.node.clock_hz
        counts = self.grown_node_counts(ops, item_growth)
        hits = hit_rates(machine, self.residents, counts)  # (once: the costs and the memory read them)
        costs, index = self.thread_costs(counts, hits)

        def cycles(names):
            return self.cells({k: ops[k] for k in names}, costs, item_growth)

        scan_names = [k for k in OP_NAMES if k not in RECEIVE_OPS]
        # per thread: (mean, busiest anywhere, busiest of a typical node)
        _, _, scan_typical = threads.mean_and_busiest(cycles(scan_names), T)
        _, _, receive_typical = threads.mean_and_busiest(cycles(RECEIVE_OPS), T)
        cells = cycles(OP_NAMES) + self._overhead_cycles(messages, kappa)[:, None]
        _, busiest, typical = threads.mean_and_busiest(cells, T)
        memory_mean, memory, _ = nodes.mean_and_busiest(memory_seconds(machine, self.residents, counts, hits))

        def node(cpu_s, memory_s, inject_s, eject_s) -> LevelPrice:
            return price_level(machine, work.direction, N, cpu_s=cpu_s, memory_s=memory_s, inject_s=inject_s,
                               eject_s=eject_s, link_s=link, latency_s=latency, sends=bool(wire))

        busiest_node = node((index + busiest) / clock, memory, port_seconds(out_wire, net),
                            port_seconds(in_wire, net))
        # a typical node, whose sweep and probes' queue wait (its threads
        # outpacing its port or the busiest link, as executed) set the
        # claim timing
        typical_node = node((index + typical) / clock, memory_mean, port_seconds(wire, net), port_seconds(wire, net))
        per_packet = edges_per_packet(messages.edges, messages.packets, net.packet_payload_bytes,
                                      machine.section("cp1d"))
        rates = stream_rates([edges / (N * pair) for edges in messages.channel_edges], typical_node.busy_s)
        probe_rate, answer_rate = (rates + [0.0, 0.0])[:2]  # a top-down level has one channel
        timing = ClaimTiming(float(typical_node.busy_s), float(probe_rate), float(answer_rate), per_packet,
                             float(typical_node.queue_s))
        return ProjectedLevel(
            busiest=busiest_node, typical=typical_node, scan_s=(index + scan_typical) / clock,
            receive_s=receive_typical / clock, edges_sent=messages.edges * N, payload=messages.payload * N,
            packets=messages.packets * N, backward_packets=messages.backward_packets * N, timing=timing)

    def level(self, step: LevelStep) -> tuple[np.ndarray, LevelRecord, ProjectedLevel]:
        """One level of the walk at the target (walk_root's ``price``): the
        level functions on the virtual layout, priced (a bottom-up level
        more than once: its claim timing needs the rates of a first pass
        with no remote claim visible, and then the sweep time it itself
        gives, claim_timing.self_consistent_claim_timing)."""
        layout, options = self.layout, self.target.options
        frontier, seed = step.frontier, step.seed
        edge_growth = self.edge_growth(step)
        V = layout.N
        if step.direction == TOP_DOWN:
            work = self.work.get((step.root, step.level, "top-down"),
                                 lambda: level_work(top_down(layout, frontier, step.visited, options), V))
            priced = self.price(work, seed, edge_growth, len(frontier))
        else:
            # Claim timing: the first pass sees no remote claim, whatever the
            # prices (a work profile keeps it); the passes after it depend
            # on the timing the prices give, and are evaluated every time.
            # Each pass reads the level's segment table (a work profile
            # keeps it too): what no timing changes, and the few segments
            # that the timing decides (work.BottomUpLevel.counted).
            level = bottom_up(layout, frontier, step.visited, options)  # evaluated per claim timing
            table = self.work.get((step.root, step.level, "bottom-up segment table"), level.segment_table)

            def evaluated(claim_delay) -> LevelWork:
                counted = level.counted(claim_delay, table)
                return level_work(counted if counted is not None else level(claim_delay), V)

            never = self.work.get((step.root, step.level, "bottom-up, no claim visible"),
                                  lambda: evaluated(NeverVisible(V)))

            def evaluate(timing: ClaimTiming):
                work = evaluated(self.claim_delay(timing))
                priced = self.price(work, seed, edge_growth, len(frontier))
                return (work, priced), priced.timing

            first = self.price(never, seed, edge_growth, len(frontier)).timing
            work, priced = self_consistent_claim_timing(evaluate, first)
            if not np.array_equal(work.new_vertices, never.new_vertices):
                # the levels after this one were worked from the first
                # pass's claims; a timing that claimed others makes the
                # cached work inapplicable (the runner computes it afresh)
                self.work.diverged = True
        busiest, typical = priced.busiest, priced.typical
        flush = float(busiest.flush_s)
        record = self._record(
            step, work, edge_growth,
            messages=int(round(priced.packets)), bytes=float(round(priced.payload)),
            time_s=float(busiest.busy_s) + self.closing_s, compute_s=float(typical.cpu_s),
            communication_s=flush + self.closing_s,
            synchronisation_s=max(float(busiest.cpu_s - typical.cpu_s), 0.0),
            compute_max_s=float(busiest.cpu_s), bottleneck=busiest.bottleneck,
            edges_sent=int(round(priced.edges_sent)), backward_messages=int(round(priced.backward_packets)),
            scan_s=float(priced.scan_s), receive_s=float(priced.receive_s), flush_s=flush)
        return work.new_vertices, record, priced

    def next_direction(self, step: LevelStep, new: np.ndarray) -> str:
        """CalcDirection on the target's counts, after ``step`` claimed
        ``new`` (walk_root's ``next_direction``; top-down throughout
        without direction optimisation). The unvisited at the target: all
        vertices but the reached ones, whose share shrinks as the share of
        vertices with an edge does (counted in profile vertices)."""
        if not self.target.options.direction_optimising or not len(new):
            return TOP_DOWN
        n, degree, growth = self.layout.n, self.layout.degree, self.growth
        reached = int(np.count_nonzero(step.visited))
        unvisited_at_target = n - growth.vertices * reached
        if step.seed and len(new) <= math.sqrt(n):
            # still a seed frontier: its edges grow with its own degrees
            frontier_edges = float(grown_degrees(growth, degree[new]).sum())
            return calc_direction(frontier_edges, unvisited_at_target * self.target.vertices / n)
        # the bulk: its edges keep their share (both sides in profile vertices)
        return calc_direction(float(degree[new].sum()) * growth.mean, unvisited_at_target)

    def walk(self, root: int, on_level=None) -> Walk:
        """The root's walk at the target (walk_root), with P^H's allreduce
        after its last level."""
        walk = walk_root(self.layout.graph, root, self.level, next_direction=self.next_direction,
                         on_level=on_level)
        if not self.final_s:
            return walk
        last = walk.records[-1]
        last.time_s += self.final_s
        last.communication_s += self.final_s
        return replace(walk, time_s=walk.time_s + self.final_s)

    def _record(self, step: LevelStep, work: LevelWork, edge_growth: float, **priced) -> LevelRecord:
        """The level's record: the work's counts at the target, and ``priced``."""
        vertex_scale = 1.0 if step.seed else self.target.vertices / self.layout.n * self.growth.vertices
        return LevelRecord(
            root=step.root, level=step.level, direction=work.direction,
            frontier_vertices=int(round(len(step.frontier) * vertex_scale)),
            edges_examined=int(round(work.edges_examined * vertex_scale * edge_growth)),
            collective_bytes=float(8 * self.closing_words * max(self.target.nodes - 1, 0)), **priced)

    def _messages(self, work: LevelWork, seed: bool, edge_growth: float, frontier_vertices: int, per_node: float,
                  kappa: float, nodes: Spread) -> _Messages:
        target, V = self.target, self.V
        N, T, cp = target.nodes, target.threads, target.machine.section("cp1d")
        # A sender's streams: one per receiver and per thread of its own
        # that talks to that receiver (T / N of them when N < T).
        streams = (N - 1) * max(1.0, T / N)
        channels = []
        sent_cells, received_cells = np.zeros(V), np.zeros(V)
        for s in work.streams:  # StreamLoads (level_work)
            counts, sent, received = s.sweep_counts, s.sent, s.received
            sent_cells += sent
            received_cells += received
            senders = spread = None
            stream_count = streams
            if work.direction == BOTTOM_UP and s.channel == "forward":
                # answers: only the owners of frontier vertices send, one
                # stream to each prober's node
                answering = frontier_vertices * (1.0 if seed else self.per_node_bulk * N)
                senders = spread = max(N * -math.expm1(-answering / N), 1.0)
                stream_count = N - 1
            channels.append(stream_traffic(
                counts, edge_growth, per_node, N, stream_count, self.local_t, cp,
                target.machine.network.packet_payload_bytes, target.options.compression,
                seed=seed and work.direction == TOP_DOWN, senders=senders, spread=spread,
                sender_load=sent, kappa=kappa, receiver_load=received))
        out_mean, out_max, _ = nodes.mean_and_busiest(sent_cells * edge_growth)
        in_mean, in_max, _ = nodes.mean_and_busiest(received_cells * edge_growth)
        out_ratio = out_max / out_mean if out_mean else 1.0
        in_ratio = in_max / in_mean if in_mean else 1.0

        def busiest(ratio, sending):
            ends = [c.node(ratio, sending) for c in channels]
            return sum(e[0] for e in ends), sum(e[1] for e in ends)

        return _Messages(
            edges=sum(c.edges for c in channels) / N, payload=sum(c.payload for c in channels) / N,
            packets=sum(c.packets for c in channels) / N,
            backward_packets=sum(c.packets for c, s in zip(channels, work.streams) if s.channel == "backward") / N,
            channel_edges=[c.edges for c in channels], sent_cells=sent_cells,
            received_cells=received_cells, out_ratio=out_ratio, in_ratio=in_ratio,
            out_busiest=busiest(out_ratio, True), in_busiest=busiest(in_ratio, False))

    def _overhead_cycles(self, messages: _Messages, kappa: float) -> np.ndarray:
        """Per virtual node, the per-packet SPI overheads each of its threads
        carries: 1/T of the node's total (as executed), so that the busiest
        thread and its node's overhead are the same node's. A virtual node's
        packets follow its edges."""
        layer, V = DirectPackets(self.target.machine.messaging), self.V
        sent, received = messages.sent_cells, messages.received_cells
        relative_out = sent / sent.mean() if sent.any() else np.ones(V)
        relative_in = received / received.mean() if received.any() else np.ones(V)
        return (messages.packets / kappa * layer.overhead_s(relative_out, relative_in)
                / self.target.threads * self.target.machine.node.clock_hz)

    def claim_delay(self, timing: ClaimTiming) -> TargetClaimDelay:
        """The executed ClaimDelay's terms at the target's mean rates; as
        executed, each node's own sweep is a typical one's."""
        target = self.target
        # the probe waits in its prober's injection queue (pricing.probe_queue_share)
        trip = (packet_trip_s(self.mean_hops, target.machine.network, DirectPackets(target.machine.messaging))
                + float(probe_queue_share(timing.queue_s)))
        return TargetClaimDelay(self.V, float(timing.sweep_s), trip, fill_wait_s(timing.per_packet, timing.probe_rate),
                                fill_wait_s(timing.per_packet, timing.answer_rate))


def project(graph: Graph, keys, machine: Machine, topology: Topology, algorithm, profile_scale: int,
            target_scale: int, edgefactor: int, progress=lambda message: None, work=None) -> list:
    """Steps 1-4 for every search key: [(root, edges, time, records)]; the
    level functions' results are asked of ``work`` (a WorkLog)."""
    return project_with(LevelPricer, graph, keys, machine, topology, algorithm, profile_scale, target_scale,
                        edgefactor, progress, work)


def project_with(pricer_class, graph: Graph, keys, machine: Machine, topology: Topology, algorithm,
                 profile_scale: int, target_scale: int, edgefactor: int, progress=lambda message: None,
                 work=None) -> list:
    """``project`` with the levels priced by ``pricer_class`` (a LevelPricer)."""
    work = work if work is not None else WorkLog()
    options = algorithm.options
    cp = machine.section("cp1d")
    threads = options.threads or cp.threads
    n_target = 2 ** target_scale
    growth = Growth.between(profile_scale, target_scale, edgefactor)
    heavy_t = target_heavy_count(cp.heavy_vertices, n_target) if options.load_balancing else 0
    heavy_p = 0
    if heavy_t:
        heavy_p = heavy_vertices_at_profile(graph.degree, growth, profile_scale, target_scale, edgefactor, heavy_t)
    virtual = virtual_nodes(topology.nodes, graph.num_vertices)
    # (price-independent, so a work log keeps it for as long as it keeps the graph)
    layout = work.transient_get((id(graph), virtual, threads, heavy_p, cp.index_stride),
                                lambda: (graph, Layout(graph, virtual, threads, heavy_p, cp.index_stride,
                                                       share_limit=None)))[1]
    target = Target(machine, topology, topology.nodes, n_target, threads, heavy_t, options)
    progress(f"{len(keys)} roots on {virtual} virtual nodes, {heavy_p} heavy vertices at the profile scale "
             f"standing for the target's {heavy_t}")

    pricer = pricer_class(target, layout, growth, graph.num_vertices, work)

    def one(root):
        walk = pricer.walk(int(root))
        progress(root_done(root))
        return int(root), walk.target_edges(graph, edgefactor, n_target), walk.time_s, walk.records

    # Roots on a thread pool (numpy releases the GIL in the gathers and
    # sorts that dominate); results come back in root order.
    return map_in_order(one, keys)
