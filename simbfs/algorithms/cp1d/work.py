"""The work of Checconi & Petrini's 1D BFS, level by level, on the real graph.

What it implements
    Seed 000 (Checconi & Petrini, IPDPS 2014), the parts shared by its SPI
    code (Algorithms 2-4, III-A to III-C) and its bulk-synchronous MPI code
    (IV-B): the data layout, what each node and thread scans, which edges
    become messages on which channel, which vertices are claimed and by
    whom, and how many bytes the messages take. The timing of the two codes
    differs and lives in cp1d_spi.py (asynchronous, overlapped) and
    cp1d_mpi.py (two-phase all-to-all).

Layout (II-B, II-D, II-E, III-A)
    Vertex v belongs to node ``v * N // n``. Each node's adjacency is split
    among its T threads by the neighbour's id: thread j holds the entries
    whose neighbour lies in ``[j n / T, (j + 1) n / T)`` (the blocks A_ij of
    the paper's Fig. 2a), so different threads talk to different nodes. The
    LB highest-degree vertices H (Algorithm 4) do not follow the 1D
    distribution: the entry (u, v) of a heavy u is stored at the owner of v,
    and an edge to a heavy neighbour is checked against the replicated
    In^H/Vis^H bitmaps, so no heavy edge ever becomes a message.

Top-down level (ForwardStep)
    Every scanned entry (u, w) of a light frontier vertex u is checked
    locally when w is local or heavy, and otherwise sent to Owner(w) on the
    forward channel; Owner(w) claims w if it is unvisited. Among several
    candidate parents the earliest in its sender's sweep wins (threads sweep
    their vertices from staggered starts); ties go to the smaller id.

Bottom-up level (BackwardStep)
    Every thread sweeps the unvisited local vertices from its staggered
    start. For vertex v, thread j reads v's entries in its slice: a local or
    heavy neighbour in the frontier claims v at once (the thread stops); a
    remote neighbour u gets a probe to Owner(u) on the backward channel, and
    Owner(u) answers on the forward channel if u is in the frontier. A
    thread skips v when v's claim is already visible when it arrives. Claim
    visibility is timed (``claim_delay``): at once for a local hit, one
    round trip after the probe for a remote hit (the SPI code), or never
    within the level (the MPI code, which exchanges probes in bulk). So the
    number of probes depends on thread stagger, round-trip time and packet
    buffering: the mechanism the paper describes in II-C.

Messages (III-B)
    Per (sender, thread, destination) stream, in sweep order. Uncompressed,
    an edge takes 6 B and a packet holds as many as fit. Compressed, a packet
    has an 8 B header and an edge takes 4 B when its delta to the previous
    edge of the packet is 0..127, else 8 B. The paper says the delta is taken
    on "the destination vertex"; we take it on the vertex the sending thread
    sweeps in order (the source of a forward edge, the prober of a probe),
    because neighbour ids of a permuted Kronecker graph are random: a delta on
    them fits 7 bits almost never, and the paper's measured 4-5 B per edge in
    the central levels would be impossible (docs/background/cp1d.md).

Representations (II-D, IV-E)
    ``coarse-index``: one index word per 64 local vertices lets a sweep skip
    64 vertices whose bits are all clear; ``skip-list``: the sweep visits
    every source-vertex header; ``edge-list``: every stored (u, v) pair is
    read every level.

Everything is computed for all nodes at once with numpy; the per-node and
per-thread counters then price each node's simulated time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np

from ...bfs.parallel import balanced_chunks, in_parallel, worker_threads
from ...bfs.partition import block_owner, block_starts, floor_shift, scaled_floor
from ...bfs.adjacency import neighbour_slots
from ...engine.costs import link_seconds, route_latency
from ...errors import UserError
from ..options import choice, count, switch
from ...graph import Graph
from ...machine.model import Machine
from .machine_section import CP1DModel
from .memory import header_traffic
from .pricing import Residents, cp1d_residents, op_cycles
from .pricing import memory_seconds as pricing_memory_seconds

REPRESENTATIONS = ("coarse-index", "skip-list", "edge-list")
HEAVY_SHARE_LIMIT = 1024  # at most one heavy vertex per this many vertices


@dataclass(frozen=True)
class CP1DOptions:
    """Which of the paper's optimisations are on (Fig. 9 switches them);
    OPTIONS declares them."""

    direction_optimising: bool = True
    compression: bool = True
    load_balancing: bool = True
    representation: str = "coarse-index"
    threads: int | None = None  # None: the machine's cp1d.threads


OPTIONS = (
    switch("direction-optimising", True, "switch between top-down and bottom-up levels (II-C, Algorithm 2)"),
    switch("compression", True, "compress the exchanged vertex ids (II-F)"),
    switch("load-balancing", True, "handle heavy vertices' lists globally (II-E)"),
    choice("representation", REPRESENTATIONS, "coarse-index", "the local graph's representation (II-D, Fig. 9)"),
    count("threads", None, "threads per node (default: the machine's cp1d.threads)"),
)


def require_cp1d(machine: Machine) -> CP1DModel:
    if machine.section("cp1d") is None or machine.node.memory_hierarchy is None:
        raise UserError(f"{machine.name} has no `cp1d:` section (and node.memory_hierarchy) describing "
                        f"Checconi & Petrini's data formats and costs; run it on bluegene_q, or add "
                        f"those sections (docs/reference/machine-files.md)")
    return machine.section("cp1d")


# ----------------------------------------------------------------- layout
class Layout:
    """What does not change between roots: owners, thread slices, heavy set,
    per-node structure sizes."""

    def __init__(self, graph: Graph, nodes: int, threads: int, heavy_count: int, index_stride: int,
                 share_limit: int | None = HEAVY_SHARE_LIMIT):
        n = graph.num_vertices
        self.graph = graph
        self.n = n
        self.N = nodes
        self.T = threads
        self.starts = block_starts(n, nodes)
        self.local_vertices = np.diff(self.starts)
        self.degree = graph.degree.astype(np.int64, copy=False)
        # LB is sized for the paper's graphs (2^34 and more vertices); on the
        # small graphs executed here it is capped at n / 1024 so that the
        # 1D distribution still holds almost every vertex. (A projection
        # sets its own heavy count, matched to the target: share_limit None.)
        if share_limit:
            heavy_count = min(heavy_count, n // share_limit)
        heavy_count = min(heavy_count, int(np.count_nonzero(self.degree)))
        self.heavy = np.zeros(n, dtype=bool)
        if heavy_count:
            order = np.lexsort((np.arange(n), -self.degree))
            self.heavy[order[:heavy_count]] = True
        self.heavy_count = heavy_count
        self.index_stride = index_stride
        # Headers: one per (vertex, thread block it has entries in).
        slices = scaled_floor(graph.indices, threads, n)
        change = np.ones(len(slices), dtype=bool)
        change[1:] = slices[1:] != slices[:-1]
        row_starts = graph.indptr[:-1][self.degree > 0]
        change[row_starts] = True
        self.blocks_of = np.zeros(n, dtype=np.int64)
        self.blocks_of[self.degree > 0] = np.add.reduceat(change, row_starts) if len(row_starts) else 0
        light = ~self.heavy
        self.light_entries_per_node = self.per_node(np.flatnonzero(light), self.degree[light])
        self.headers_per_node = self.per_node(np.flatnonzero(light), self.blocks_of[light])
        # headers of light vertices before vertex v: a coarse-index sweep's
        # headers in any vertex range, by difference
        self.headers_before = np.concatenate([[0], np.cumsum(np.where(self.heavy, 0, self.blocks_of))])

    def owner(self, vertices: np.ndarray) -> np.ndarray:
        return block_owner(vertices, self.n, self.N)

    def slice_of(self, vertices: np.ndarray) -> np.ndarray:
        return scaled_floor(vertices, self.T, self.n)

    def local_thread(self, vertices: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """The thread of node ``ranks`` whose share of the node's own vertex
        range holds each vertex (for work on local vertices: claims, heavy
        edges stored at the owner of the other end)."""
        return (vertices - self.starts[ranks]) * self.T // np.maximum(self.local_vertices[ranks], 1)

    def per_node(self, vertices: np.ndarray, weights=None) -> np.ndarray:
        return np.bincount(self.owner(vertices), weights=weights, minlength=self.N).astype(np.float64)

    def sweep_position(self, vertices: np.ndarray, thread: np.ndarray, ranks: np.ndarray,
                       members: np.ndarray | None = None, member_index: np.ndarray | None = None) -> np.ndarray:
        """Where in [0, 1) of its sweep thread ``thread`` of node ``ranks``
        reaches each vertex. Thread j starts at the j/T point of the node's
        vertex range and wraps around (the paper's staggered starts). With
        ``members`` (a sorted vertex set) and each vertex's index in it, the
        sweep walks only those."""
        from . import kernels  # here: numba loads only for the runs that use it
        if members is None:
            base, span, index = self.starts[:-1], self.local_vertices, vertices
        else:
            bounds = np.searchsorted(members, self.starts)
            base, span, index = bounds[:-1], np.maximum(np.diff(bounds), 1), member_index
        return kernels.sweep_positions(np.asarray(index, dtype=np.int64), np.asarray(ranks, dtype=np.int64),
                                       np.asarray(thread, dtype=np.int64), base, span, self.T)


# ------------------------------------------------------------ level work
@dataclass
class Streams:
    """Edges one level puts on the network, per (sender, thread, receiver)."""

    sender: np.ndarray
    thread: np.ndarray
    receiver: np.ndarray
    sweep_vertex: np.ndarray  # the vertex whose order the sending thread follows
    channel: str  # "forward" or "backward"


@dataclass
class LevelWork:
    """Counters of one level, per (node, thread) where threads matter."""

    direction: str
    ops: dict  # op name -> (N, T) counts
    streams: list  # list[Streams]
    new_vertices: np.ndarray
    new_parents: np.ndarray
    edges_examined: int
    probes_sent: int = 0
    responses: int = 0
    extra: dict = field(default_factory=dict)


def _zeros(layout: Layout) -> np.ndarray:
    return np.zeros((layout.N, layout.T))


def _add(table: np.ndarray, ranks: np.ndarray, threads: np.ndarray, weights=None) -> None:
    table += np.bincount(ranks * table.shape[1] + threads, weights=weights,
                         minlength=table.size).reshape(table.shape)


def _gather(graph: Graph, vertices: np.ndarray):
    slots, lengths, offsets = neighbour_slots(graph.indptr, vertices)
    return np.repeat(vertices, lengths), graph.indices[slots].astype(np.int64, copy=False), lengths, offsets


def _first_per_target(targets: np.ndarray, keys: np.ndarray, parents: np.ndarray):
    """For every distinct target, the parent with the smallest (key, parent)."""
    if len(targets) == 0:
        return targets, parents
    order = np.lexsort((parents, keys, targets))
    t = targets[order]
    first = np.ones(len(t), dtype=bool)
    first[1:] = t[1:] != t[:-1]
    return t[first], parents[order][first]


def scan_ops(layout: Layout, active: np.ndarray, options: CP1DOptions, ops: dict) -> None:
    """Charge the sweep over the local structure: index words, headers, and
    for the edge list every stored pair. ``active`` is the sorted set of
    vertices whose bits the sweep tests (In for top-down, not-Vis for
    bottom-up); their entries are charged by the caller."""
    T = layout.T
    light = active[~layout.heavy[active]]
    if options.representation == "coarse-index":
        words = -(-layout.local_vertices // layout.index_stride)
        # Every thread's block A_ij spans all the node's source vertices, so
        # every thread tests every index word of the node's range.
        ops["index_word"] += words[:, None].astype(np.float64)
        # headers: every light vertex with entries, in words that have an active bit
        word_of = (light - layout.starts[layout.owner(light)]) // layout.index_stride
        key = layout.owner(light) * (int(words.max()) + 1) + word_of
        nonempty = np.unique(key)
        ranks = nonempty // (int(words.max()) + 1)
        first = layout.starts[ranks] + (nonempty % (int(words.max()) + 1)) * layout.index_stride
        last = np.minimum(first + layout.index_stride, layout.starts[ranks + 1])
        headers = np.bincount(ranks, weights=layout.headers_before[last] - layout.headers_before[first],
                              minlength=layout.N)
        ops["vertex_header"] += (headers / T)[:, None]
    elif options.representation == "skip-list":
        ops["vertex_header"] += (layout.headers_per_node / T)[:, None]
    else:  # edge-list: every stored pair is read and its source tested
        ops["edge_entry"] += (layout.light_entries_per_node / T)[:, None]
        ops["bitmap_test"] += (layout.light_entries_per_node / T)[:, None]


OP_NAMES = ("index_word", "vertex_header", "edge_entry", "pack", "compress", "unpack", "bitmap_test", "claim")
# What a thread does for incoming messages (the rest is its sweep: "scan")
RECEIVE_OPS = ("unpack", "claim")


def closing_words(heavy_count: int) -> int:
    """64-bit words of a level's closing allreduce: two counts for
    CalcDirection, plus Vis^H and Out^H as bitmaps (Algorithm 4, lines 14-15)."""
    return 2 + 2 * (-(-heavy_count // 64))


def packet_flight_s(network) -> float:
    """One full packet's time on a link."""
    return link_seconds(network.packet_payload_bytes + network.packet_header_bytes, network)


# ------------------------------------------------------------------ pricing
# The cp1d-spi level's timing as pure functions of counts: the executed run
# (cp1d_spi.py) calls them with every node's values, the projection
# (projection_cp1d.py) with its mean and busiest node's.


def spi_level_busy_s(cpu_s, inject_s, eject_s, link_s, memory_s, latency_s, network, direction: str, sends: bool):
    """A node's busy time in one cp1d-spi level (docs/background/cp1d.md):
    communication overlaps computation, so the level lasts as long as its
    slowest resource, plus the drain of its last packet (the longest
    route and one packet's flight; twice in a bottom-up level, a probe and
    then its answer; nothing when no packet is sent)::

        busy = max(cpu, inject, eject, busiest link, memory) + drain

    Scalars or per-node arrays alike."""
    drain = 0.0
    if sends:
        drain = (latency_s + packet_flight_s(network)) * (2 if direction == "bottom-up" else 1)
    return np.maximum(np.maximum(np.maximum(np.maximum(cpu_s, inject_s), eject_s), link_s), memory_s) + drain


def packet_trip_s(hops, network, layer) -> "np.ndarray | float":
    """A packet's trip from the sender's software to the receiver's: its
    route's latency, one full packet's flight on a link, and the messaging
    layer's posting and receiving of it."""
    return route_latency(hops, network) + (packet_flight_s(network) + layer.send_s(1.0) + layer.receive_s(1.0))


def fill_wait_s(per_packet: float, rate):
    """Expected wait of an edge in its open packet until the packet fills:
    half a packet's edges at the stream's ``rate`` (edges per second;
    infinite where nothing flows)."""
    rate = np.asarray(rate, dtype=np.float64)
    return np.divide(per_packet / 2, rate, out=np.full(rate.shape, np.inf), where=rate > 0)


def backlog_cap_bytes(nodes: int, in_flight: int, network) -> float:
    """The most wire bytes a node can have handed to its messaging unit and
    not yet sent: ``in_flight`` full packets to each other node (III-A: a
    thread that finds all of a destination's buffers still in use waits)."""
    return float(max(nodes - 1, 0) * in_flight * (network.packet_payload_bytes + network.packet_header_bytes))


def injection_queue_wait_s(produce_s, drain_s, wire_bytes, cap_bytes):
    """Mean time a packet waits in its sender's injection queue in a level
    where the sender's own work (threads, memory) would produce its
    ``wire_bytes`` in ``produce_s`` and the network takes ``drain_s`` to
    carry them (its port or the busiest link on its routes).

    A fluid FIFO: while production outpaces the drain the queue grows, so
    the packet made at fraction x of the level's output leaves x * D late,
    D = drain_s - produce_s, until the queue reaches the buffers' cap; then
    the threads wait for buffers (production is throttled to the drain) and
    every later packet waits the cap's worth, w = cap_bytes * drain_s /
    wire_bytes. The mean over packets of min(x D, w)::

        D / 2              if w >= D
        w - w**2 / (2 D)   otherwise

    Zero where the network keeps up (D <= 0) or nothing is sent. Scalars
    or per-node arrays alike."""
    produce_s, drain_s, wire_bytes = (np.asarray(x, dtype=np.float64) for x in (produce_s, drain_s, wire_bytes))
    lag = np.maximum(drain_s - produce_s, 0.0)
    cap_s = np.divide(cap_bytes * drain_s, wire_bytes, out=np.zeros(np.broadcast(drain_s, wire_bytes).shape),
                      where=wire_bytes > 0)
    capped = cap_s - np.divide(cap_s * cap_s, 2 * lag, out=np.zeros_like(cap_s), where=lag > 0)
    return np.where(cap_s >= lag, lag / 2, capped) * (wire_bytes > 0)


def level_queue_wait_s(cpu_s, memory_s, inject_s, link_s, nodes: int, in_flight: int, network):
    """A node's probes' mean wait in its injection queue in one level
    (injection_queue_wait_s): its threads and memory produce its packets,
    its port and the busiest link carry them, and its buffers cap the
    backlog (backlog_cap_bytes). The executed run calls it with every
    node's times, the projection with a typical node's."""
    return injection_queue_wait_s(np.maximum(cpu_s, memory_s), np.maximum(inject_s, link_s),
                                  np.asarray(inject_s) * network.injection_bandwidth_Bps,
                                  backlog_cap_bytes(nodes, in_flight, network))


def claim_delay_s(remaining_s, probe_fill_s, answer_fill_s, answer_cap_s, trip_s):
    """Time from a remote probe being issued to its claim being visible to
    the prober: the probe waits in its open packet until it fills or the
    prober's sweep ends (``remaining_s``), crosses the network, is answered
    into an open packet of the reverse stream, which waits until it fills
    or at most ``answer_cap_s``, and crosses back."""
    return np.minimum(probe_fill_s, remaining_s) + np.minimum(answer_fill_s, answer_cap_s) + 2 * trip_s


def probe_claim_delay_s(prober_sweep_s, owner_sweep_s, probe_time_s, probe_fill_s, answer_fill_s, trip_s):
    """:func:`claim_delay_s` of a probe issued ``probe_time_s`` into its
    prober's sweep of ``prober_sweep_s``: it waits at most the rest of that
    sweep, its answer at most half the owner's sweep (``owner_sweep_s``).
    Called with arrays by the claim timings and per probe by the compiled
    bottom-up walk."""
    return claim_delay_s(np.maximum(prober_sweep_s - probe_time_s, 0.0), probe_fill_s, answer_fill_s,
                         owner_sweep_s / 2, trip_s)


# A bottom-up level's claim timing assumes the level's sweep times and
# stream rates; the level it prices must give them back, within this share.
CLAIM_TIMING_TOLERANCE = 0.03
CLAIM_TIMING_PASSES = 6  # evaluations at most, after the first pass (which sees no claim)


@dataclass(frozen=True)
class ClaimTiming:
    """What a bottom-up level's claim timing assumes (scalars, or per-node
    and per-pair arrays): the sweep times, the probe and answer streams'
    edges per second, the edges per packet, and how long a probe waits in
    its prober's injection queue (injection_queue_wait_s, per node)."""

    sweep_s: object
    probe_rate: object
    answer_rate: object
    per_packet: float
    queue_s: object = 0.0  # per node: a probe's wait in its sender's injection queue

    def toward(self, other: "ClaimTiming", share: float) -> "ClaimTiming":
        """``share`` of the way from this timing to ``other``, term by term."""
        def mix(a, b):
            return np.asarray(a) + share * (np.asarray(b) - np.asarray(a))
        return ClaimTiming(mix(self.sweep_s, other.sweep_s), mix(self.probe_rate, other.probe_rate),
                           mix(self.answer_rate, other.answer_rate),
                           float(mix(self.per_packet, other.per_packet)), mix(self.queue_s, other.queue_s))

    @property
    def mean_sweep_s(self) -> float:
        return float(np.mean(self.sweep_s))

    @property
    def mean_queue_s(self) -> float:
        return float(np.mean(self.queue_s))


def probe_queue_share(queue_s):
    """What a probe's injection-queue wait adds to each of the two trips
    a claim delay counts (claim_delay_s): half of it. Only the probe
    queues: the paper uses "separate FIFOs for probes and responses" (000,
    II-C), so an answer does not wait behind its owner's probes, and the
    answers, one per hit, are too few to build a backlog of their own."""
    return np.asarray(queue_s, dtype=np.float64) / 2


def _timings_agree(assumed: "ClaimTiming", given: "ClaimTiming", tolerance: float) -> bool:
    """Whether a priced level gives back the timing it assumed: its sweep,
    and its probes' queue wait, each within ``tolerance`` of the sweep."""
    scale = tolerance * max(given.mean_sweep_s, 1e-300)
    return (abs(given.mean_sweep_s - assumed.mean_sweep_s) <= scale
            and abs(given.mean_queue_s - assumed.mean_queue_s) <= scale)


def self_consistent_claim_timing(evaluate, first: ClaimTiming, tolerance: float = CLAIM_TIMING_TOLERANCE,
                                 passes: int = CLAIM_TIMING_PASSES):
    """The evaluation of a bottom-up level whose claim timing agrees with
    the level it prices.

    ``first`` is the timing of a first pass that sees no remote claim: the
    most probes, the longest sweeps. ``evaluate(timing)`` evaluates and
    prices the level under ``timing`` and returns (result, the timing the
    priced level gives). Shorter sweeps and faster streams make claims
    visible later in a sweep, so more probes go out and the level is
    slower: the sweep a timing gives falls as the sweep it assumes grows.
    So the first timing A gives a shorter one B, and the consistent timing
    lies between them. On the timings from B (share 0) to A (share 1), the
    gap g = (sweep given) - (sweep assumed) is >= 0 at B and < 0 at A;
    regula falsi with the Illinois halving finds where it vanishes, to
    within ``tolerance`` of the sweep, in at most ``passes`` evaluations in
    all (the given sweep hardly moves with the assumed one, which a plain
    iteration or midpoints reach only slowly). A timing agrees when the
    sweep and the probes' queue wait it gives are both within ``tolerance``
    of the sweep of the ones it assumed. Returns the last result. The
    first pass's timing alone is 2.4-4.6 times the consistent sweep at the
    paper's sizes: claims would look visible too early and too few probes
    be counted."""
    result_a, b = evaluate(first)
    gap_a = b.mean_sweep_s - first.mean_sweep_s
    if _timings_agree(first, b, tolerance) or passes <= 1:
        return result_a
    result, c = evaluate(b)
    gap_b = c.mean_sweep_s - b.mean_sweep_s
    if _timings_agree(b, c, tolerance) or gap_a >= 0 or gap_b <= 0:
        return result  # agreed, or the gap does not change sign between them (no bracket): the later pass
    low, high = (0.0, gap_b), (1.0, gap_a)  # (share toward A, gap)
    side = 0
    for _ in range(passes - 2):
        share = low[0] - low[1] * (high[0] - low[0]) / (high[1] - low[1])
        assumed = b.toward(first, share)
        result, given = evaluate(assumed)
        gap = given.mean_sweep_s - assumed.mean_sweep_s
        if _timings_agree(assumed, given, tolerance):
            break
        if gap > 0:
            low = (share, gap)
            if side == 1:
                high = (high[0], high[1] / 2)
            side = 1
        else:
            high = (share, gap)
            if side == -1:
                low = (low[0], low[1] / 2)
            side = -1
    return result


def new_ops(layout: Layout) -> dict:
    return {name: _zeros(layout) for name in OP_NAMES}


def top_down(layout: Layout, frontier: np.ndarray, visited: np.ndarray, options: CP1DOptions) -> LevelWork:
    """ForwardStep of Algorithms 3 and 4."""
    graph = layout.graph
    ops = new_ops(layout)
    scan_ops(layout, frontier, options, ops)
    heavy = layout.heavy if options.load_balancing else np.zeros(layout.n, dtype=bool)
    light_f = frontier[~heavy[frontier]]
    heavy_f = frontier[heavy[frontier]]
    sources, targets, _, _ = _gather(graph, light_f)
    src_node = layout.owner(sources)
    dst_node = layout.owner(targets)
    thread = layout.slice_of(targets)
    if options.representation != "edge-list":
        _add(ops["edge_entry"], src_node, thread)
    key = layout.sweep_position(sources, thread, src_node)
    remote = (dst_node != src_node) & ~heavy[targets]
    local = ~remote
    _add(ops["bitmap_test"], src_node[local], thread[local])
    _add(ops["pack"], src_node[remote], thread[remote])
    # At the receiver, each incoming edge is decoded and tested; receive
    # threads take sources round-robin.
    _add(ops["unpack"], dst_node[remote], src_node[remote] % layout.T)
    streams = [Streams(src_node[remote], thread[remote], dst_node[remote], sources[remote], "forward")]
    cand_t, cand_p, cand_k = [targets], [sources], [key]
    # Heavy frontier vertices: every node scans its share (entries whose
    # other end it owns) and claims locally (Algorithm 4, lines 4-13).
    if len(heavy_f):
        h_src, h_tgt, _, _ = _gather(graph, heavy_f)
        h_node = layout.owner(h_tgt)
        h_thread = layout.local_thread(h_tgt, h_node)
        _add(ops["edge_entry"], h_node, h_thread)
        _add(ops["bitmap_test"], h_node, h_thread)
        cand_t.append(h_tgt)
        cand_p.append(h_src)
        cand_k.append(np.zeros(len(h_tgt)))
    targets = np.concatenate(cand_t)
    parents = np.concatenate(cand_p)
    keys = np.concatenate(cand_k)
    fresh = ~visited[targets]
    new, new_parents = _first_per_target(targets[fresh], keys[fresh], parents[fresh])
    claimer = layout.owner(new)
    _add(ops["claim"], claimer, layout.local_thread(new, claimer))
    return LevelWork("top-down", ops, streams, new, new_parents, edges_examined=int(len(targets)))


def _segments(seg_key: np.ndarray):
    """Start index of each run of equal keys in a sorted key array."""
    if len(seg_key) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    starts = np.flatnonzero(np.concatenate([[True], seg_key[1:] != seg_key[:-1]]))
    return starts, np.append(starts[1:], len(seg_key))


@dataclass(frozen=True)
class _HeavyClaims:
    """BottomUpLevel.heavy_claims: per (node, thread) cell the entries read
    (each also a local check), their total, and the heavy vertices claimed
    (ascending) with their parents."""

    read: np.ndarray | None  # None: no heavy unvisited vertex
    examined: int
    claimed: np.ndarray
    parents: np.ndarray


class BottomUpLevel:
    """BackwardStep of Algorithms 3 and 4, as a function of claim timing.

    Built once per level, it holds the graph side of the level (what does
    not depend on timing): the light unvisited vertices (the probers) and
    the sets their lists are tested against. Calling it with
    ``claim_delay`` evaluates the timing-dependent part (which thread
    segments are read before a claim is visible, what they send, which
    claim wins) and returns the LevelWork, as often as the caller needs.
    The compiled loops (kernels.py) split each prober's list into its
    thread segments again at each evaluation and scan them, in the order
    their threads reach them, only until a claim is visible; they keep
    nothing per adjacency entry or per segment. Only when a timing asks
    about the segments with a remote hit before their stop, one per value
    in CSR order, are those found (once, by a walk that scans every
    segment) and kept.
    ``claim_delay(prober_node, owner_node, probe_time)`` gives, per remote
    hit, the time from its probe until the claim is visible to the prober's
    threads (np.inf: not within this level); ``claim_delay.sweep_time`` is a
    per-node array: how long a thread's sweep over the unvisited vertices
    takes. A claim timing that is :func:`claim_delay_s` of per-pair parts
    may offer them instead, as ``claim_delay.pair_tables(count)`` for a
    level of ``count`` entries, an upper bound of the remote hits it
    would be asked about: (trip, probe fill, answer fill), N * N tables
    indexed prober * N + owner, or None where calling it is cheaper; the
    compiled loops then evaluate the formula per hit. Both give the same
    delays.
    """

    def __init__(self, layout: Layout, frontier: np.ndarray, visited: np.ndarray, options: CP1DOptions):
        self.layout, self.options = layout, options
        T = layout.T
        self.base_ops = new_ops(layout)
        unvisited = np.flatnonzero(~visited & (layout.degree > 0))
        scan_ops(layout, unvisited, options, self.base_ops)
        heavy = layout.heavy if options.load_balancing else np.zeros(layout.n, dtype=bool)
        self.in_frontier = in_frontier = np.zeros(layout.n, dtype=bool)
        in_frontier[frontier] = True
        light_u = unvisited[~heavy[unvisited]]
        self.heavy_u = unvisited[heavy[unvisited]]
        # Segments: (prober, thread slice) runs of a light unvisited
        # vertex's entries (sorted by neighbour id, so a vertex's slices are
        # consecutive runs), each read up to its first local hit; the
        # compiled loops (kernels.py) find them again at every evaluation
        # instead of keeping them. A prober's sweep position needs its index
        # among the probers, and its node's first index and count.
        self.probers = light_u
        bounds = np.searchsorted(light_u, layout.starts)
        self.member_base, self.member_span = bounds[:-1], np.maximum(np.diff(bounds), 1)
        self.shifts = floor_shift(layout.N, layout.n), floor_shift(T, layout.n)
        self.bits = np.packbits(heavy, bitorder="little"), np.packbits(in_frontier, bitorder="little")
        # The probers in runs of about equal entries, one per thread: the
        # loops are independent per prober, and their results are put
        # together in the probers' order, so they are the same however many.
        degrees = layout.degree[light_u]
        self.chunks = balanced_chunks(degrees, worker_threads())
        self.entries = int(degrees.sum())
        self._remote = None  # found when a timing first needs them

    @cached_property
    def heavy_claims(self) -> _HeavyClaims:
        """The heavy unvisited vertices' side of the level (Algorithm 4,
        lines 20-30), which no claim timing changes: their entries sit at
        the owners of their neighbours, all checks are local, and each node
        stops at its own first hit; the claims are combined by the
        allreduce. Computed once per level, at the first evaluation
        (a cached property).

        A (v, node) segment is one node's run of v's entries: the entries
        come in CSR order, by v (the unvisited vertices ascending) and then
        by neighbour (a row's neighbours ascending, build_csr), so also by
        the neighbour's owner, and the segments are runs already. One
        thread scans a segment, in neighbour order, to its first hit;
        segments go to threads by v's slice, so each thread takes its share
        of the heavy vertices. (Not by the segment's first neighbour: the
        smallest local id sits at the start of the node's range, and every
        segment would land on thread 0.)"""
        layout, heavy_u = self.layout, self.heavy_u
        empty = np.zeros(0, dtype=np.int64)
        if not len(heavy_u):
            return _HeavyClaims(None, 0, empty, empty)
        h_v, h_u, _, _ = _gather(layout.graph, heavy_u)
        h_node = layout.owner(h_u)
        s_start, s_end = _segments(h_v * layout.N + h_node)
        h_hit = np.flatnonzero(self.in_frontier[h_u])
        k = np.searchsorted(h_hit, s_start)
        found = k < len(h_hit)
        found[found] = h_hit[k[found]] < s_end[found]
        read = s_end - s_start
        read[found] = h_hit[k[found]] - s_start[found] + 1
        h_thread = layout.slice_of(h_v[s_start])
        cells = h_node[s_start] * layout.T + h_thread
        read_per_cell = np.bincount(cells, weights=read, minlength=layout.N * layout.T)
        claimed, parents = empty, empty
        if found.any():
            claimed, parents = _first_per_target(h_v[s_start][found], np.zeros(int(found.sum())),
                                                 h_u[h_hit[k[found]]])
        return _HeavyClaims(read_per_cell, int(read.sum()), claimed, parents)

    def remote_segments(self):
        """The segments with a remote hit before their stop: the prober's
        node, the first such hit's owner and the segment's position, in CSR
        order (the claim timing is asked about these only), and where each
        run of probers starts among them."""
        if self._remote is None:  # a walk with no claim visible finds them
            parts = self._walk(np.ones(self.layout.N), never_visible=True, record_remote=True)
            remote = [part[5:] for part in parts]
            bounds = np.cumsum([0] + [len(part[0]) for part in remote])
            self._remote = (*(np.concatenate(pieces) for pieces in zip(*remote)), bounds)
        return self._remote

    def _walk(self, sweep_time, never_visible=False, delay=np.zeros(0), delay_bounds=None, tables=None,
              record_remote=False) -> list:
        """kernels.bottom_up_walk over the runs of probers on threads, each
        run given its slice of the per-segment ``delay`` (``delay_bounds``);
        the runs' results in order."""
        from . import kernels  # here, not at the top: numba loads only for the runs that use it
        graph, layout = self.layout.graph, self.layout
        bounds = np.zeros(len(self.chunks) + 1, dtype=np.int64) if delay_bounds is None else delay_bounds
        tables = (np.zeros(0),) * 3 if tables is None else tables
        return in_parallel([partial(kernels.bottom_up_walk, graph.indptr, graph.indices, self.probers[run],
                                    run.start, *self.bits, layout.n, layout.N, layout.T, *self.shifts,
                                    self.member_base, self.member_span, sweep_time, never_visible,
                                    delay[bounds[k]:bounds[k + 1]], *tables, record_remote)
                            for k, run in enumerate(self.chunks)])

    def __call__(self, claim_delay) -> LevelWork:
        layout, options = self.layout, self.options
        T = layout.T
        # The sweep's tables, shared; a table this evaluation adds to is
        # replaced by the sum (the base is evaluated again with another timing).
        ops = dict(self.base_ops)

        def add(name, cells, weights=None):
            ops[name] = ops[name] + np.bincount(cells, weights=weights, minlength=ops[name].size).reshape(
                ops[name].shape)

        def add_at(name, ranks, threads, weights=None):
            add(name, ranks * T + threads, weights)

        def add_counts(name, counts):
            ops[name] = ops[name] + counts.reshape(ops[name].shape)
        sweep_time = claim_delay.sweep_time  # per node, seconds
        if not np.all(np.isfinite(sweep_time) & (sweep_time >= 0)):
            # the walk visits segments in time order and stops early: a time must be a time
            raise ValueError("a claim timing's sweep times must be finite and non-negative")
        # The delays of the segments with a remote hit: none when no remote
        # claim is visible within the level; else as (prober, owner) tables
        # that the loops read, where the timing offers them for a level of
        # this many entries (at most one segment each); else one value per
        # segment, in order, which a walk that scans every segment finds
        # first.
        never = getattr(claim_delay, "never_visible", False)
        delay, tables, bounds = np.zeros(0), None, None
        if not never:
            offered = getattr(claim_delay, "pair_tables", None)
            tables = offered(self.entries) if offered is not None else None
            if tables is None:
                node, owner, position, bounds = self.remote_segments()
                if len(node):
                    delay = claim_delay(node, owner, position * sweep_time[node])
        # Which segments are probed, and the entries they read (kernels.py).
        parts = self._walk(sweep_time, never, delay, bounds, tables)
        counts = parts[0][0]
        for part in parts[1:]:
            counts = counts + part[0]
        probe_stream, answer_stream, new, new_parents = (np.concatenate(pieces, axis=-1)
                                                         for pieces in list(zip(*parts))[1:5])
        if options.representation != "edge-list":
            add_counts("edge_entry", counts[0])
        add_counts("bitmap_test", counts[1])  # local checks
        add_counts("pack", counts[2])  # probes, at the sweeping thread
        add_counts("unpack", counts[3])  # Owner(u) tests u in In
        # Owner(u) answers on the forward channel; Owner(v) decodes the answer
        add_counts("pack", counts[4])
        add_counts("unpack", counts[5])
        streams = [Streams(*probe_stream, "backward"), Streams(*answer_stream, "forward")]

        # Heavy unvisited vertices (Algorithm 4, lines 20-30): see heavy_claims
        heavy = self.heavy_claims
        examined = int(counts[0].sum()) + heavy.examined
        if heavy.read is not None:  # (a level without heavy vertices adds nothing, not even zeros)
            add_counts("edge_entry", heavy.read)
            add_counts("bitmap_test", heavy.read)
        if len(heavy.claimed):
            new = np.concatenate([new, heavy.claimed])
            new_parents = np.concatenate([new_parents, heavy.parents])
            order = np.argsort(new, kind="stable")
            new, new_parents = new[order], new_parents[order]
        claimer = layout.owner(new)
        add_at("claim", claimer, layout.local_thread(new, claimer))
        return LevelWork("bottom-up", ops, streams, new, new_parents, edges_examined=examined,
                         probes_sent=probe_stream.shape[1], responses=answer_stream.shape[1])


def bottom_up(layout: Layout, frontier: np.ndarray, visited: np.ndarray, options: CP1DOptions) -> BottomUpLevel:
    """BackwardStep of Algorithms 3 and 4: a :class:`BottomUpLevel`, to be
    called with the level's claim timing."""
    return BottomUpLevel(layout, frontier, visited, options)


# -------------------------------------------------------------- messages
@dataclass
class Traffic:
    """A level's messages between every pair of nodes."""

    payload: np.ndarray  # N x N bytes
    packets: np.ndarray  # N x N
    edges: np.ndarray  # N x N edges sent
    backward_packets: int
    stream_edges: list | None = None  # per stream given, N x N edges sent (encode(per_stream=True))


def encode(layout: Layout, streams: list, cp: CP1DModel, payload_bytes: float, compression: bool,
           per_stream: bool = False) -> Traffic:
    """Bytes and packets of every (sender, thread, receiver) stream (and,
    with ``per_stream``, each stream's edges per pair: N x N each).

    A stream is sent in its sweep order. Compressed, its first edge and
    every edge whose vertex is at most ``delta_max`` after the previous
    one take the short format, the rest the long one, and each packet
    carries ``room`` bytes of them behind its header; uncompressed, a
    packet carries as many whole 6 B edges as fit (kernels.stream_bytes)."""
    from . import kernels
    N, T = layout.N, layout.T
    payload = np.zeros(N * N)
    packets = np.zeros(N * N)
    edges = np.zeros(N * N)
    backward = 0
    per_packet_plain = float(np.floor(payload_bytes / cp.uncompressed_entry_bytes))
    room = payload_bytes - cp.compressed_header_bytes
    whole_bytes = all(float(size).is_integer() for size in (
        cp.compressed_short_bytes, cp.compressed_long_bytes, cp.compressed_header_bytes, cp.uncompressed_entry_bytes))

    def encoded(s: Streams):
        sender, thread, receiver, vertex = s.sender, s.thread, s.receiver, s.sweep_vertex

        def channel(by_receiver):
            return kernels.stream_bytes(sender, thread, receiver, vertex, N, T, by_receiver, compression,
                                        cp.compressed_short_bytes, cp.compressed_long_bytes, cp.delta_max, room,
                                        cp.compressed_header_bytes, per_packet_plain, cp.uncompressed_entry_bytes,
                                        whole_bytes)
        # The levels give their streams grouped by sender (top-down probes
        # and bottom-up probes) or by receiver (bottom-up answers), each
        # stream in sweep order; anything else is put in that order first.
        result = channel(False)
        if not result[0]:
            result = channel(True)
        if not result[0]:
            order = np.lexsort((vertex, receiver, thread, sender))
            sender, thread, receiver, vertex = sender[order], thread[order], receiver[order], vertex[order]
            result = channel(False)
        return result

    # the channels on threads (kernels.stream_bytes releases the GIL), added up in order
    sent = [s for s in streams if len(s.sender)]
    stream_edges = {}
    for s, (_, stream_payload, stream_packets, sent_edges, packets_sent) in zip(
            sent, in_parallel([partial(encoded, s) for s in sent])):
        payload += stream_payload
        packets += stream_packets
        edges += sent_edges
        if per_stream:
            stream_edges[id(s)] = sent_edges.reshape(N, N)
        if s.channel == "backward":
            backward += int(packets_sent)
    return Traffic(payload.reshape(N, N), packets.reshape(N, N), edges.reshape(N, N), backward,
                   [stream_edges.get(id(s), np.zeros((N, N))) for s in streams] if per_stream else None)


# ------------------------------------------------------------- compute
# A level's per-node prices: pricing.py's functions with the layout's sizes
# and each node's counts.


def layout_residents(machine: Machine, layout: Layout) -> Residents:
    """The largest node's randomly accessed structures, and what a header
    read pulls from memory in this layout (memory.header_traffic)."""
    graph, spec = layout.graph, layout.graph.spec
    # a Kronecker graph's closed form takes its generated tuples; any other
    # graph its stored entries
    edges = (2.0 * spec.edgefactor * graph.num_vertices if spec.kind == "kronecker"
             else float(len(graph.indices)))
    return cp1d_residents(machine, float(layout.local_vertices.max()), layout.heavy_count, layout.N, layout.T,
                          header_traffic(machine, graph.num_vertices, edges, layout.T, spec.kind))


def node_counts(ops: dict) -> dict:
    """Each node's operation counts: the sum over its threads."""
    return {name: counts.sum(axis=1) for name, counts in ops.items()}


def level_costs(machine: Machine, layout: Layout, ops: dict, compression: bool) -> dict:
    """Per node, the cycles one of its threads spends per operation in a
    level whose work is ``ops`` (the level's whole mix sets the L2's hit
    rates, whichever part of it is then charged)."""
    return op_cycles(machine, layout.T, layout_residents(machine, layout), node_counts(ops), compression)


def thread_cycles(ops: dict, costs: dict) -> np.ndarray:
    """(N, T) cycles each thread is busy with ``ops`` at per-node ``costs``."""
    total = None
    for name, counts in ops.items():
        part = counts * np.asarray(costs[name])[..., None]
        total = part if total is None else total + part
    return total


def memory_seconds(machine: Machine, layout: Layout, ops: dict) -> np.ndarray:
    """Per node, the time main memory needs for the level's traffic."""
    return pricing_memory_seconds(machine, layout_residents(machine, layout), node_counts(ops))
