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

import numpy as np

from ...bfs.partition import block_owner, block_starts, scaled_floor
from ...bfs.adjacency import concatenated_ranges, neighbour_slots
from ...engine.costs import link_seconds, route_latency
from ...errors import UserError
from ...graph import Graph
from ...machine.model import Machine
from .machine_section import CP1DModel
from .pricing import Residents, cp1d_residents, op_cycles
from .pricing import memory_seconds as pricing_memory_seconds

REPRESENTATIONS = ("coarse-index", "skip-list", "edge-list")
HEAVY_SHARE_LIMIT = 1024  # at most one heavy vertex per this many vertices


@dataclass(frozen=True)
class CP1DOptions:
    """Which of the paper's optimisations are on (Fig. 9 switches them)."""

    direction_optimising: bool = True
    compression: bool = True
    load_balancing: bool = True
    representation: str = "coarse-index"
    threads: int | None = None  # None: the machine's cp1d.threads

    def __post_init__(self):
        if self.representation not in REPRESENTATIONS:
            raise UserError(f"unknown graph representation {self.representation!r}; "
                            f"choose one of {', '.join(REPRESENTATIONS)}")


_SWITCHES = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}


def parse_options(base: CP1DOptions, settings: dict) -> CP1DOptions:
    """Options from ``key=value`` strings (``--algorithm cp1d-spi:compression=off``)."""
    from dataclasses import fields, replace

    known = {f.name: f for f in fields(CP1DOptions)}
    values = {}
    for key, text in settings.items():
        name = key.replace("-", "_")
        if name not in known:
            raise UserError(f"unknown option {key!r}; the options are "
                            f"{', '.join(k.replace('_', '-') for k in known)}")
        if name == "representation":
            values[name] = text
        elif name == "threads":
            if not text.isdigit() or int(text) < 1:
                raise UserError(f"threads must be a positive integer, got {text!r}")
            values[name] = int(text)
        else:
            if text.lower() not in _SWITCHES:
                raise UserError(f"{key} must be on or off, got {text!r}")
            values[name] = _SWITCHES[text.lower()]
    return replace(base, **values)


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
        slices = graph.indices.astype(np.int64) * threads // n
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
        if members is None:
            base, span, index = self.starts[:-1], self.local_vertices, vertices
        else:
            bounds = np.searchsorted(members, self.starts)
            base, span, index = bounds[:-1], np.maximum(np.diff(bounds), 1), member_index
        # Per (node, thread) cell: where the thread's sweep starts, and the
        # node's span; then every vertex's offset from its thread's start.
        T = self.T
        cell_span = np.repeat(span, T)
        cell_start = np.repeat(base, T) + np.tile(np.arange(T), len(span)) * cell_span // T
        cell = ranks * T + thread
        position = index - cell_start[cell]
        span = cell_span[cell]
        # (index - offset) mod span, without a division: both lie in [0, span)
        position += span * (position < 0)
        return position / span


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


def claim_delay_s(remaining_s, probe_fill_s, answer_fill_s, answer_cap_s, trip_s):
    """Time from a remote probe being issued to its claim being visible to
    the prober: the probe waits in its open packet until it fills or the
    prober's sweep ends (``remaining_s``), crosses the network, is answered
    into an open packet of the reverse stream, which waits until it fills
    or at most ``answer_cap_s``, and crosses back."""
    return np.minimum(probe_fill_s, remaining_s) + np.minimum(answer_fill_s, answer_cap_s) + 2 * trip_s


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


def _mod(values: np.ndarray, modulus: int) -> np.ndarray:
    """``values % modulus`` for non-negative integers, as a mask when the
    modulus is a power of two (thread counts usually are): no division."""
    return values & (modulus - 1) if modulus & (modulus - 1) == 0 else values % modulus


def _first_in_segment(mask: np.ndarray, entry_seg: np.ndarray, segments: int):
    """Per segment, whether any of its entries is in ``mask``, and the
    first such entry's index (0 where none): from the marked entries alone
    (they are in index order, so a segment's first one starts its run)."""
    marked = np.flatnonzero(mask)
    seg = entry_seg[marked]
    first = np.concatenate([[True], seg[1:] != seg[:-1]]) if len(seg) else np.zeros(0, dtype=bool)
    found = np.zeros(segments, dtype=bool)
    found[seg[first]] = True
    index = np.zeros(segments, dtype=np.int64)
    index[seg[first]] = marked[first]
    return found, index


def _first_per_sorted_target(targets: np.ndarray, keys: np.ndarray, parents: np.ndarray):
    """``_first_per_target`` for candidates already grouped by target in
    ascending order, with each target's parents ascending (a bottom-up
    level's entries, in CSR order): the smallest (key, parent) of a group is
    its first entry with the group's smallest key. No sort needed."""
    if len(targets) == 0:
        return targets, parents
    starts = np.flatnonzero(np.concatenate([[True], targets[1:] != targets[:-1]]))
    sizes = np.diff(np.append(starts, len(targets)))
    smallest = np.minimum.reduceat(keys, starts)
    at_smallest = np.flatnonzero(keys == np.repeat(smallest, sizes))
    group = np.repeat(np.arange(len(starts)), sizes)[at_smallest]
    first = at_smallest[np.concatenate([[True], group[1:] != group[:-1]])]
    return targets[starts], parents[first]


class BottomUpLevel:
    """BackwardStep of Algorithms 3 and 4, as a function of claim timing.

    Built once per level, it gathers the graph side of the level (what
    does not depend on timing: the light unvisited vertices' entries, their
    thread segments, where each segment's sweep stops at a local hit);
    calling it with ``claim_delay`` evaluates the timing-dependent part and
    returns the LevelWork, as often as the caller needs.
    ``claim_delay(prober_node, owner_node, probe_time)`` gives, per remote
    hit, the time from its probe until the claim is visible to the prober's
    threads (np.inf: not within this level); ``claim_delay.sweep_time`` is a
    per-node array: how long a thread's sweep over the unvisited vertices
    takes.
    """

    def __init__(self, layout: Layout, frontier: np.ndarray, visited: np.ndarray, options: CP1DOptions):
        self.layout, self.options = layout, options
        graph = layout.graph
        T = layout.T
        self.base_ops = new_ops(layout)
        unvisited = np.flatnonzero(~visited & (layout.degree > 0))
        scan_ops(layout, unvisited, options, self.base_ops)
        heavy = layout.heavy if options.load_balancing else np.zeros(layout.n, dtype=bool)
        self.in_frontier = in_frontier = np.zeros(layout.n, dtype=bool)
        in_frontier[frontier] = True
        light_u = unvisited[~heavy[unvisited]]
        self.heavy_u = unvisited[heavy[unvisited]]
        # One entry per (light unvisited prober, neighbour), in CSR order.
        self.probers, self.nbrs, _, _ = probers, nbrs, _, _ = _gather(graph, light_u)
        self.node = node = layout.owner(probers)
        self.nbr_node = nbr_node = layout.owner(nbrs)
        self.thread = thread = layout.slice_of(nbrs)
        self.remote = remote = (nbr_node != node) & ~heavy[nbrs]
        self.hit = hit = in_frontier[nbrs]
        local_hit = hit & ~remote
        # Segments: (prober, thread slice); entries are sorted by neighbour id,
        # so a vertex's slices are consecutive runs.
        seg_start, seg_end = _segments(probers * T + thread)
        self.seg_start = seg_start
        self.seg_vertex = probers[seg_start]
        self.seg_node = node[seg_start]
        self.seg_thread = thread[seg_start]
        member_of = np.zeros(layout.n, dtype=np.int64)  # a light unvisited vertex's index in light_u
        member_of[light_u] = np.arange(len(light_u))
        self.seg_pos = layout.sweep_position(self.seg_vertex, self.seg_thread, self.seg_node, members=light_u,
                                             member_index=member_of[self.seg_vertex])
        index = np.int32 if len(seg_start) < 2**31 else np.int64  # 32 bits where they suffice: half the bytes
        self.entry_seg = entry_seg = np.repeat(np.arange(len(seg_start), dtype=index), seg_end - seg_start)
        # first local hit in each segment: the thread stops there
        self.has_local, next_local = _first_in_segment(local_hit, entry_seg, len(seg_start))
        has_local = self.has_local
        self.stop = stop = np.where(has_local, next_local + 1, seg_end)
        # first remote hit before the stop
        has_remote, next_remote = _first_in_segment(hit & remote, entry_seg, len(seg_start))
        has_remote &= next_remote < stop
        self.has_remote = has_remote
        self.first_remote = np.where(has_remote, next_remote, 0)
        self.seg_length = stop - seg_start  # entries a probed segment reads
        # The (node, thread) cells each entry's work is charged to, computed
        # once for every evaluation: the prober's sweeping thread; Owner(u)'s
        # receive thread for the prober's node; the prober's receive thread
        # for Owner(u).
        # (32-bit: N T cells always fit, and half the bytes to pass over.)
        cell = np.int32 if layout.N * T < 2**31 else np.int64
        self.seg_cell = (self.seg_node * T + self.seg_thread).astype(cell)
        self.sweep_cell = (node * T + thread).astype(cell)
        self.owner_cell = (nbr_node * T + _mod(node, T)).astype(cell)
        self.prober_cell = (node * T + _mod(nbr_node, T)).astype(cell)
        # Kept for the messages, also in 32 bits (Streams gets 64-bit copies
        # of its entries, so every count downstream is computed as before).
        self.node, self.nbr_node, self.thread = node.astype(cell), nbr_node.astype(cell), thread.astype(cell)
        # The entries a thread reads if it probes its segment: all but those
        # after the segment's local hit.
        self.before_stop = np.ones(len(probers), dtype=bool)
        after, _ = concatenated_ranges(stop[has_local], seg_end[has_local] - stop[has_local])
        self.before_stop[after] = False

    def __call__(self, claim_delay) -> LevelWork:
        layout, options = self.layout, self.options
        T = layout.T
        node, nbr_node, thread, remote, hit = self.node, self.nbr_node, self.thread, self.remote, self.hit
        seg_node, has_local, has_remote = self.seg_node, self.has_local, self.has_remote
        # The sweep's tables, shared; a table this evaluation adds to is
        # replaced by the sum (the base is evaluated again with another timing).
        ops = dict(self.base_ops)

        def add(name, cells, weights=None):
            ops[name] = ops[name] + np.bincount(cells, weights=weights, minlength=ops[name].size).reshape(
                ops[name].shape)

        def add_at(name, ranks, threads, weights=None):
            add(name, ranks * T + threads, weights)
        sweep_time = claim_delay.sweep_time  # per node, seconds
        seg_t = self.seg_pos * sweep_time[seg_node]
        cand = np.full(len(self.seg_start), np.inf)
        cand[has_local] = seg_t[has_local]
        if has_remote.any():
            delay = claim_delay(seg_node[has_remote], nbr_node[self.first_remote[has_remote]], seg_t[has_remote])
            cand[has_remote] = np.minimum(cand[has_remote], seg_t[has_remote] + delay)
        probed = _probed_segments(self.seg_vertex, seg_t, cand)

        # Entries read and probes sent, from the probed segments only.
        seg_len = np.where(probed, self.seg_length, 0)
        entry_in_probed = probed[self.entry_seg] & self.before_stop
        if options.representation != "edge-list":
            add("edge_entry", self.seg_cell, seg_len)
        local_checks = entry_in_probed & ~remote
        add("bitmap_test", self.sweep_cell[local_checks])
        probes = entry_in_probed & remote
        add("pack", self.sweep_cell[probes])
        add("unpack", self.owner_cell[probes])  # Owner(u) tests u in In
        answered = probes & hit
        # Owner(u) answers on the forward channel; Owner(v) decodes the answer
        add("pack", self.owner_cell[answered])
        add("unpack", self.prober_cell[answered])
        wide = np.int64
        streams = [
            Streams(node[probes].astype(wide), thread[probes].astype(wide), nbr_node[probes].astype(wide),
                    self.probers[probes], "backward"),
            Streams(nbr_node[answered].astype(wide), (node[answered] % T).astype(wide),
                    node[answered].astype(wide), self.probers[answered], "forward"),
        ]
        # Claims: local hits at their segment time, answers when they arrive.
        claim_entries = entry_in_probed & hit
        ce_seg = self.entry_seg[claim_entries]
        entry_time = np.where(remote[claim_entries], cand[ce_seg], seg_t[ce_seg])
        new, new_parents = _first_per_sorted_target(self.probers[claim_entries], entry_time,
                                                    self.nbrs[claim_entries])

        # Heavy unvisited vertices (Algorithm 4, lines 20-30): their entries sit
        # at the owners of their neighbours, all checks are local; each node
        # stops at its own first hit. Claims are combined by the allreduce.
        heavy_u = self.heavy_u
        examined = int(seg_len.sum())
        if len(heavy_u):
            h_v, h_u, _, _ = _gather(layout.graph, heavy_u)
            h_node = layout.owner(h_u)
            order = np.lexsort((h_u, h_node, h_v))
            h_v, h_u, h_node = h_v[order], h_u[order], h_node[order]
            s_start, s_end = _segments(h_v * layout.N + h_node)
            h_hit = np.flatnonzero(self.in_frontier[h_u])
            k = np.searchsorted(h_hit, s_start)
            found = k < len(h_hit)
            found[found] = h_hit[k[found]] < s_end[found]
            read = s_end - s_start
            read[found] = h_hit[k[found]] - s_start[found] + 1
            # One thread scans a (v, node) segment, in neighbour order, to its
            # first hit; segments go to threads by v's slice, so each thread
            # takes its share of the heavy vertices. (Not by the segment's
            # first neighbour: the smallest local id sits at the start of the
            # node's range, and every segment would land on thread 0.)
            h_thread = layout.slice_of(h_v[s_start])
            add_at("edge_entry", h_node[s_start], h_thread, read)
            add_at("bitmap_test", h_node[s_start], h_thread, read)
            examined += int(read.sum())
            if found.any():
                hv, hp = _first_per_target(h_v[s_start][found], np.zeros(int(found.sum())), h_u[h_hit[k[found]]])
                new = np.concatenate([new, hv])
                new_parents = np.concatenate([new_parents, hp])
                order = np.argsort(new, kind="stable")
                new, new_parents = new[order], new_parents[order]
        claimer = layout.owner(new)
        add_at("claim", claimer, layout.local_thread(new, claimer))
        return LevelWork("bottom-up", ops, streams, new, new_parents, edges_examined=examined,
                         probes_sent=int(probes.sum()), responses=int(answered.sum()))


def bottom_up(layout: Layout, frontier: np.ndarray, visited: np.ndarray, options: CP1DOptions) -> BottomUpLevel:
    """BackwardStep of Algorithms 3 and 4: a :class:`BottomUpLevel`, to be
    called with the level's claim timing."""
    return BottomUpLevel(layout, frontier, visited, options)


def _probed_segments(seg_vertex: np.ndarray, seg_t: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """A thread reads its slice of v unless v's claim was visible before it
    arrived: in time order, slice k is read iff t_k is before the earliest
    claim time among the slices read before it. Since a slice's claim time
    is never before its own read time, that is the same as t_k <= the
    earliest claim time over all of v's slices (an unread slice's claim
    time is after a claim already visible, so it cannot be the minimum),
    which needs no sort: one minimum per vertex."""
    if len(seg_t) == 0:
        return np.zeros(0, dtype=bool)
    first = np.flatnonzero(np.concatenate([[True], seg_vertex[1:] != seg_vertex[:-1]]))
    earliest = np.minimum.reduceat(cand, first)
    groups = np.diff(np.append(first, len(seg_vertex)))
    return seg_t <= np.repeat(earliest, groups)


# -------------------------------------------------------------- messages
@dataclass
class Traffic:
    """A level's messages between every pair of nodes."""

    payload: np.ndarray  # N x N bytes
    packets: np.ndarray  # N x N
    edges: np.ndarray  # N x N edges sent
    backward_packets: int


def encode(layout: Layout, streams: list, cp: CP1DModel, payload_bytes: float, compression: bool) -> Traffic:
    """Bytes and packets of every (sender, thread, receiver) stream."""
    N = layout.N
    payload = np.zeros(N * N)
    packets = np.zeros(N * N)
    edges = np.zeros(N * N)
    backward = 0
    per_packet_plain = float(np.floor(payload_bytes / cp.uncompressed_entry_bytes))
    room = payload_bytes - cp.compressed_header_bytes
    for s in streams:
        if len(s.sender) == 0:
            continue
        stream = (s.sender * layout.T + s.thread) * N + s.receiver
        pair = s.sender * N + s.receiver
        if compression:
            span = layout.n + 1
            keys = np.sort(stream * span + s.sweep_vertex)
            st = keys // span
            vx = keys % span
            delta = np.diff(vx)
            same = st[1:] == st[:-1]
            short = np.ones(len(keys), dtype=bool)
            short[1:] = ~same | ((delta >= 0) & (delta <= cp.delta_max))
            size = np.where(short, cp.compressed_short_bytes, cp.compressed_long_bytes)
            uniq, inverse = np.unique(st, return_inverse=True)
            stream_bytes = np.bincount(inverse, weights=size)
            stream_packets = np.ceil(stream_bytes / room)
            stream_payload = stream_bytes + stream_packets * cp.compressed_header_bytes
            stream_pair = (uniq // (layout.T * N)) * N + uniq % N
        else:
            uniq, counts = np.unique(stream, return_counts=True)
            stream_packets = np.ceil(counts / per_packet_plain)
            stream_payload = counts * cp.uncompressed_entry_bytes
            stream_pair = (uniq // (layout.T * N)) * N + uniq % N
        payload += np.bincount(stream_pair, weights=stream_payload, minlength=N * N)
        packets += np.bincount(stream_pair, weights=stream_packets, minlength=N * N)
        edges += np.bincount(pair, minlength=N * N)
        if s.channel == "backward":
            backward += int(stream_packets.sum())
    return Traffic(payload.reshape(N, N), packets.reshape(N, N), edges.reshape(N, N), backward)


# ------------------------------------------------------------- compute
# A level's per-node prices: pricing.py's functions with the layout's sizes
# and each node's counts.


def layout_residents(machine: Machine, layout: Layout) -> Residents:
    """The largest node's randomly accessed structures."""
    return cp1d_residents(machine, float(layout.local_vertices.max()), layout.heavy_count, layout.N, layout.T)


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
