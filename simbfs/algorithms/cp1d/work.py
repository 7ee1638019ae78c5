"""The work of Checconi & Petrini's 1D BFS, level by level, on the real graph.

What it implements
    Seed 000 (Checconi & Petrini, IPDPS 2014), the parts shared by its SPI
    code (Algorithms 2-4, III-A to III-C) and its bulk-synchronous MPI code
    (IV-B): what each node and thread scans, which edges become messages on
    which channel, which vertices are claimed and by whom, and how the MPI
    code cuts a level into exchanges. The data layout is layout.py's, the
    messages' bytes encoding.py's; the prices of the counts are
    pricing.py's, and the timing of the two codes differs: execute_spi.py
    (asynchronous, overlapped) and execute_mpi.py (two-phase all-to-all).

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

Everything is counted for all nodes at once with numpy (and the compiled
loops of kernels.py): per-node and per-thread operation counts, the
streams of edges each level sends, and its claims. No time appears here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np

from ...bfs.adjacency import neighbour_slots
from ...bfs.direction import BOTTOM_UP, TOP_DOWN
from ...bfs.parallel import balanced_chunks, in_parallel, worker_threads
from ...bfs.partition import floor_shift
from ...errors import UserError
from ...graph import Graph
from ...machine.model import Machine
from ..options import choice, count, switch
from .layout import Layout
from .machine_section import CP1DModel

REPRESENTATIONS = ("coarse-index", "skip-list", "edge-list")


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


# ------------------------------------------------------------ level work
@dataclass
class Streams:
    """Edges one level puts on the network, per (sender, thread, receiver)."""

    sender: np.ndarray
    thread: np.ndarray
    receiver: np.ndarray
    sweep_vertex: np.ndarray  # the vertex whose order the sending thread follows
    channel: str  # "forward" or "backward"

    def __post_init__(self):
        # Ids of nodes, threads and vertices below 2^31 (every graph this
        # computer holds) as 32-bit: a level's streams are its largest
        # arrays, one entry per edge it sends.
        for name in ("sender", "thread", "receiver", "sweep_vertex"):
            values = getattr(self, name)
            if values.dtype.itemsize > 4 and (not len(values) or int(values.max()) < 2**31):
                setattr(self, name, values.astype(np.int32))


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
        sweep_time = self._sweep_time(claim_delay)
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
        streams = [Streams(*probe_stream, "backward"), Streams(*answer_stream, "forward")]
        return self._level_work(counts, streams, new, new_parents, probe_stream.shape[1], answer_stream.shape[1])

    @staticmethod
    def _sweep_time(claim_delay) -> np.ndarray:
        sweep_time = claim_delay.sweep_time  # per node, seconds
        if not np.all(np.isfinite(sweep_time) & (sweep_time >= 0)):
            # the walk visits segments in time order and stops early: a time must be a time
            raise ValueError("a claim timing's sweep times must be finite and non-negative")
        return sweep_time

    def _level_work(self, counts, streams, new, new_parents, probes_sent: int, responses: int) -> LevelWork:
        """The LevelWork of the light probers' ``counts`` (bottom_up_walk's
        six rows), streams and claims (and their parents; None: not
        known), with the heavy vertices' side added."""
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
        if options.representation != "edge-list":
            add_counts("edge_entry", counts[0])
        add_counts("bitmap_test", counts[1])  # local checks
        add_counts("pack", counts[2])  # probes, at the sweeping thread
        add_counts("unpack", counts[3])  # Owner(u) tests u in In
        # Owner(u) answers on the forward channel; Owner(v) decodes the answer
        add_counts("pack", counts[4])
        add_counts("unpack", counts[5])

        # Heavy unvisited vertices (Algorithm 4, lines 20-30): see heavy_claims
        heavy = self.heavy_claims
        examined = int(counts[0].sum()) + heavy.examined
        if heavy.read is not None:  # (a level without heavy vertices adds nothing, not even zeros)
            add_counts("edge_entry", heavy.read)
            add_counts("bitmap_test", heavy.read)
        if len(heavy.claimed):
            new = np.concatenate([new, heavy.claimed])
            order = np.argsort(new, kind="stable")
            new = new[order]
            if new_parents is not None:
                new_parents = np.concatenate([new_parents, heavy.parents])[order]
        claimer = layout.owner(new)
        add_at("claim", claimer, layout.local_thread(new, claimer))
        return LevelWork("bottom-up", ops, streams, new,
                         np.zeros(0, dtype=np.int64) if new_parents is None else new_parents,
                         edges_examined=examined, probes_sent=probes_sent, responses=responses)

    # ------------------------------------------ the projection's fast path
    def segment_table(self) -> "SegmentTable":
        """The level's timing-free part for :meth:`counted`
        (kernels.segment_table: the fixed segments' counts, and the open
        segments and claim candidates of the probers whose first hit in
        time is remote). Price-independent: a work profile keeps it."""
        from . import kernels  # here, not at the top: numba loads only for the runs that use it
        graph, layout = self.layout.graph, self.layout
        parts = in_parallel([partial(kernels.segment_table, graph.indptr, graph.indices, self.probers[run],
                                     run.start, *self.bits, layout.n, layout.N, layout.T, *self.shifts,
                                     self.member_base, self.member_span) for run in self.chunks])
        counts = parts[0][0]
        for part in parts[1:]:
            counts = counts + part[0]
        lists = [np.concatenate(pieces) for pieces in list(zip(*parts))[1:]]
        # In fixed narrow types (a segment table's memory; the compiled
        # loops take one signature), where the values fit
        kinds = (np.int32, np.int32, np.bool_, np.int32, np.int16, np.int16, np.int16, np.int16, np.int32, np.int16,
                 np.int32, np.int32)
        return SegmentTable(_narrowed(counts, np.int32), *(_narrowed(values, kind)
                                                           for values, kind in zip(lists, kinds)))

    def counted(self, claim_delay, table: "SegmentTable") -> "LevelWork | None":
        """What a projection reads of ``self(claim_delay)``, from the
        level's :meth:`segment_table`: the same operation counts and
        claims, its streams as :class:`StreamTotals` (edges per sweep
        vertex, sender and receiver), no parents. For a claim timing that
        sees no remote claim (``never_visible``) or whose claim-delay parts
        are the same for every pair (``uniform_parts()``: trip, probe fill,
        answer fill), with sweep times of at least TABLE_SWEEP_MIN; else
        None (call the level)."""
        sweep_time = self._sweep_time(claim_delay)
        never = getattr(claim_delay, "never_visible", False)
        uniform = getattr(claim_delay, "uniform_parts", None)
        if not np.all(sweep_time >= TABLE_SWEEP_MIN) or not (never or uniform is not None):
            return None
        parts = (0.0, 0.0, 0.0) if never else uniform()
        from . import kernels  # here, not at the top: numba loads only for the runs that use it
        layout = self.layout
        N, T = layout.N, layout.T
        counts = table.counts.astype(np.int64)
        probes, answers = table.probes.astype(np.int64), table.answers.astype(np.int64)
        opened = len(table.open_index)
        if opened:
            candidates, segments = table.open_candidates.astype(np.int64), table.open_segments.astype(np.int64)
            candidates_begin, segments_begin = np.cumsum(candidates) - candidates, np.cumsum(segments) - segments
            runs = balanced_chunks(candidates + segments + 1, worker_threads())
            results = in_parallel([partial(
                kernels.table_walk, layout.graph.indices, self.probers, *self.bits, layout.n, N, T, self.shifts[0],
                self.member_base, self.member_span, table.open_index[run], table.open_local[run],
                candidates_begin[run], table.open_candidates[run], segments_begin[run], table.open_segments[run],
                table.candidate_thread, table.candidate_owner, table.segment_thread, table.segment_start,
                table.segment_read, sweep_time, never, *(np.full(1, float(x)) for x in parts)) for run in runs])
            for run, (run_counts, run_probes, run_answers) in zip(runs, results):
                counts += run_counts
                probes[table.open_index[run]] += run_probes
                answers[table.open_index[run]] += run_answers

        def totals(edges, senders, receivers, channel):
            having = edges > 0
            return StreamTotals(self.probers[having], edges[having], senders.reshape(N, T).sum(axis=1),
                                receivers.reshape(N, T).sum(axis=1), channel)
        streams = [totals(probes, counts[2], counts[3], "backward"), totals(answers, counts[4], counts[5], "forward")]
        new = self.probers[table.claimed].astype(np.int64, copy=False)
        return self._level_work(counts, streams, new, None, int(probes.sum()), int(answers.sum()))


# The least sweep time (seconds) BottomUpLevel.counted takes: a segment after
# a prober's first local one in time (a larger sweep position) then
# starts strictly after it (kernels.py, "the level's segment table").
TABLE_SWEEP_MIN = 2.0 ** -900


def _narrowed(values: np.ndarray, kind) -> np.ndarray:
    """``values`` as ``kind`` when they are whole numbers that it holds,
    else as they are."""
    if values.dtype.kind not in "iu" or np.dtype(kind).kind != "i":
        return values
    low, high = (int(values.min()), int(values.max())) if values.size else (0, 0)
    if np.iinfo(kind).min <= low and high <= np.iinfo(kind).max:
        return values.astype(kind)
    return values


@dataclass(frozen=True)
class StreamTotals:
    """A level's stream of one channel, summed: the edges of each sweep
    vertex that has any (``sweep_vertex`` ascending, ``edges``), and the
    edges each node sends and receives; what the projection reads of a
    :class:`Streams`."""

    sweep_vertex: np.ndarray
    edges: np.ndarray
    sent: np.ndarray  # per node
    received: np.ndarray
    channel: str


@dataclass(frozen=True)
class SegmentTable:
    """A bottom-up level's timing-free part (BottomUpLevel.segment_table,
    kernels.segment_table), in narrow integers: the fixed segments' counts
    (bottom_up_walk's six rows of (node, thread) cells), each prober's
    fixed probes and answers and whether it is claimed; per open prober
    its index among the probers, the thread of its first local hit in
    time (-1: none) and its numbers of candidates and open segments; each
    candidate's thread and first remote hit's owner; each open segment's
    thread, first CSR slot and entries read. Lists in CSR order."""

    counts: np.ndarray
    probes: np.ndarray
    answers: np.ndarray
    claimed: np.ndarray  # bool, per prober
    open_index: np.ndarray
    open_local: np.ndarray
    open_candidates: np.ndarray
    open_segments: np.ndarray
    candidate_thread: np.ndarray
    candidate_owner: np.ndarray
    segment_thread: np.ndarray
    segment_start: np.ndarray
    segment_read: np.ndarray

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in dataclasses.fields(self))


def bottom_up(layout: Layout, frontier: np.ndarray, visited: np.ndarray, options: CP1DOptions) -> BottomUpLevel:
    """BackwardStep of Algorithms 3 and 4: a :class:`BottomUpLevel`, to be
    called with the level's claim timing."""
    return BottomUpLevel(layout, frontier, visited, options)


def calc_direction(frontier_edges: int, unvisited_vertices: int) -> str:
    """CalcDirection of Algorithm 2 (III-A): it "counts how many vertices
    have not been visited yet, and how many edges are reachable from the
    frontier; if the edges reachable from the frontier outnumber the ones to
    be visited we switch to a bottom-up visit". We read "the ones to be
    visited" as those vertices (a bottom-up level costs at least one check
    per unvisited vertex, a top-down level one message per frontier edge)."""
    return BOTTOM_UP if frontier_edges > unvisited_vertices else TOP_DOWN


# ------------------------------------------------- the MPI code's passes
# What a thread of the MPI code reads in each of its passes over its input
# (IV-B, steps 1 and 3), besides what it packs.
SCAN_OPS = ("index_word", "vertex_header", "edge_entry", "bitmap_test")


@dataclass(frozen=True)
class ExchangeRound:
    """One two-phase all-to-all of a cp1d-mpi level (IV-B): the passes
    before its exchange of counts, one after the other (decoding what the
    previous round brought, if anything, then counting the messages per
    destination), the pass that writes the edges before their exchange,
    and the streams it sends. Each pass is operation counts per (node,
    thread)."""

    counting: tuple
    writing: dict
    streams: list


@dataclass(frozen=True)
class MpiPasses:
    """A cp1d-mpi level's passes: its exchange rounds, and the final pass
    after the last exchange, which decodes and claims."""

    rounds: tuple
    final: dict


def mpi_passes(layout: Layout, work: LevelWork) -> MpiPasses:
    """The passes of a level's work in the MPI code. Top-down: one round.
    Bottom-up: the probes, then the answers, which the owners count and
    write after decoding the probes."""
    if work.direction == TOP_DOWN:
        rounds = [({}, work.ops, work.streams)]
        final = {name: work.ops[name] for name in RECEIVE_OPS}
    else:
        probes, answers = work.streams
        shape = (layout.N, layout.T)
        answer_pack, answer_unpack = np.zeros(shape), np.zeros(shape)
        _add(answer_pack, answers.sender, answers.thread)
        _add(answer_unpack, answers.receiver, answers.sender % layout.T)
        probe_ops = dict(work.ops)
        probe_ops["pack"] = work.ops["pack"] - answer_pack
        probe_ops["unpack"] = work.ops["unpack"] - answer_unpack
        answer_ops = {name: np.zeros(shape) for name in work.ops}
        answer_ops["pack"] = answer_pack
        rounds = [({}, probe_ops, [probes]), ({"unpack": probe_ops["unpack"]}, answer_ops, [answers])]
        final = {"unpack": answer_unpack, "claim": work.ops["claim"]}

    def exchange(before: dict, ops: dict, streams: list) -> ExchangeRound:
        scan = {name: ops[name] for name in SCAN_OPS}
        counting = {**scan, "pack": ops["pack"]}
        # the writing pass compresses what it packs (compress costs nothing with compression off)
        writing = {**scan, "pack": ops["pack"], "compress": ops["pack"]}
        return ExchangeRound((before, counting) if before else (counting,), writing, streams)

    return MpiPasses(tuple(exchange(*one) for one in rounds), final)
