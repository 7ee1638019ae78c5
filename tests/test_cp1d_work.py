"""A level's work (simbfs/algorithms/cp1d/work.py and layout.py; seed 000,
Algorithms 2-4): which thread slices a bottom-up level reads, against its
entry-by-entry definition; the heavy vertices' side; top-down load
balancing against networkx; the sweep's index words; CalcDirection (III-A);
and how the MPI code cuts a level into passes (IV-B)."""

from collections import Counter

import networkx as nx
import numpy as np
import pytest

from simbfs.algorithms.cp1d.claim_timing import ClaimDelay, NeverVisible, TargetClaimDelay
from simbfs.algorithms.cp1d.execute_spi import CP1DSPI
from simbfs.algorithms.cp1d.layout import Layout
from simbfs.algorithms.cp1d.work import CP1DOptions, bottom_up, calc_direction, mpi_passes, new_ops, scan_ops, top_down
from simbfs.bfs import BOTTOM_UP, TOP_DOWN
from simbfs.engine import Simulation
from simbfs.graph import GraphSpec, generate_graph, search_keys
from simbfs.machine import load_machine
from tests.cp1d_support import bgq, heavy_count, kronecker_graphs, small_kronecker_graph


@pytest.fixture(scope="module")
def graphs():
    return kronecker_graphs()


@pytest.fixture(scope="module")
def small_graph():
    return small_kronecker_graph()


def test_scaled_floor_does_not_overflow_32_bit_ids():
    """v * T // n for a 32-bit id whose product with T passes 2^31 (a thread
    count that does not divide n takes the division, not the shift)."""
    from simbfs.bfs.partition import scaled_floor

    assert scaled_floor(np.array([2**26 - 1], dtype=np.int32), 48, 2**26).tolist() == [47]
    assert scaled_floor(np.array([2**26 - 1], dtype=np.int32), 64, 2**26).tolist() == [63]


def walk_one_prober(in_frontier, delay, row=(4, 5, 9, 13)):
    """kernels.bottom_up_walk on a hand-made level: 2 nodes, 16 vertices, 4
    threads (slice u >> 2, owner u >> 3). Prober 0 (node 0) has the list
    4, 5 (slice 1, local), 9 (slice 2, remote) and 13 (slice 3, remote); a
    sweep of length 1 over 4 vertices puts threads 3, 2 and 1 at 0.25, 0.5
    and 0.75 of it. ``delay``: of its remote claims (np.inf: never
    visible, the lazy scan in time order), else one delay per segment with
    a remote hit (every segment scanned in CSR order)."""
    from simbfs.algorithms.cp1d.kernels import bottom_up_walk
    bits = np.packbits(np.isin(np.arange(16), in_frontier), bitorder="little")
    never = delay == np.inf
    none = np.zeros(0)
    return bottom_up_walk(np.array([0, len(row)]), np.array(row, dtype=np.int32), np.array([0]), 0,
                          np.zeros(2, dtype=np.uint8), bits, 16, 2, 4, 3, 2, np.array([0, 1]), np.array([4, 1]),
                          np.ones(2), never, none if never else np.array([delay]), none, none, none, False)


@pytest.mark.parametrize("delay, probed, parent", [
    (0.1, [13], 13),  # visible at 0.35: the threads at 0.5 and 0.75 find v claimed
    (0.4, [9, 13], 13),  # visible at 0.65: the thread at 0.5 probes 9, the one at 0.75 stops
    (np.inf, [9, 13], 4),  # never within the level: every slice is read, the local hit at 0.75 claims
])
def test_a_remote_claim_stops_the_slices_reached_after_it_is_visible(delay, probed, parent):
    counts, probes, answers, claimed, parents, *_ = walk_one_prober([4, 13], delay)
    # the probes in CSR order
    assert probes[3].tolist() == [0] * len(probed) and probes[2].tolist() == [1] * len(probed)
    assert probes[1].tolist() == [{13: 3, 9: 2}[u] for u in probed]  # the sweeping threads
    assert counts[0].sum() == len(probed) + (parent == 4)  # entries read: 4 stops slice 1 at once
    assert answers.shape[1] == 1  # 13 is in the frontier: answered
    assert claimed.tolist() == [0] and parents.tolist() == [parent]


@pytest.mark.parametrize("delay", [np.inf, 0.0])
def test_a_local_hit_first_in_time_stops_every_later_slice(delay):
    # vertex 1 (slice 0, thread 0 at 0.0 of the sweep) is a local hit: the
    # slices reached at 0.25, 0.5 and 0.75 are not read, even the remote hit
    # 13 visible at once, whether the walk scans them (a delay given) or not
    counts, probes, answers, claimed, parents, *_ = walk_one_prober([1, 4, 13], delay, row=(1, 4, 9, 13))
    assert counts[0].sum() == 1 and counts[1].sum() == 1  # one entry read, one local check
    assert probes.shape[1] == 0 and answers.shape[1] == 0
    assert claimed.tolist() == [0] and parents.tolist() == [1]


def sequential_reads(seg_vertex, seg_t, cand):
    """The definition: in time order, a slice is read iff no claim found by
    an earlier read slice of the same vertex is visible before it."""
    read = np.zeros(len(seg_t), dtype=bool)
    for v in np.unique(seg_vertex):
        idx = np.flatnonzero(seg_vertex == v)
        visible = np.inf
        for i in idx[np.argsort(seg_t[idx])]:
            if seg_t[i] <= visible:
                read[i] = True
                visible = min(visible, cand[i])
    return read


class PairDelay:
    """A claim timing for the test: a per-node sweep time, and a delay that
    depends on the pair and the probe time (some never visible)."""

    def __init__(self, nodes):
        self.sweep_time = 1.0 + 0.25 * np.arange(nodes)

    def __call__(self, prober, owner, t):
        delay = ((prober * 7 + owner * 3) % 5) * 0.2 + t / 4
        return np.where((prober + owner) % 4 == 3, np.inf, delay)


def reference_bottom_up(layout, frontier, visited, heavy, claim_delay):
    """BackwardStep's light part entry by entry, straight from its
    definition (docs/background/cp1d.md): every light unvisited vertex v
    reads its neighbours thread slice by thread slice; a slice stops after
    its first local hit (a neighbour in the frontier that v's node owns,
    or a heavy one); a remote neighbour is probed, and answered if it is in
    the frontier; a slice is read iff, in time order, no claim of an
    earlier read slice of v was visible before its thread got there; v's
    parent is its earliest claim, the first in CSR order among equals."""
    from collections import defaultdict
    g, N, T, n = layout.graph, layout.N, layout.T, layout.n
    in_frontier = np.zeros(n, dtype=bool)
    in_frontier[frontier] = True
    light_u = [v for v in range(n) if not visited[v] and layout.degree[v] > 0 and not heavy[v]]
    owner = lambda x: x * N // n  # noqa: E731
    counts = {name: defaultdict(int) for name in ("edge_entry", "bitmap_test", "pack", "unpack")}
    probes, answers, claims = [], [], {}
    for i, v in enumerate(light_u):
        node = owner(v)
        row = g.indices[g.indptr[v]:g.indptr[v + 1]].tolist()
        segments = []  # [thread, entries read until the stop, claim time]
        for u in row:
            thread = u * T // n
            if not segments or segments[-1][0] != thread:
                segments.append([thread, [], False])
            seg = segments[-1]
            if seg[2]:
                continue  # after the local hit: not read
            seg[1].append(u)
            if in_frontier[u] and not (owner(u) != node and not heavy[u]):
                seg[2] = True
        times, claim_times = [], []
        for thread, entries, local in segments:
            position = layout.sweep_position(np.array([v]), np.array([thread]), np.array([node]),
                                             members=np.array(light_u), member_index=np.array([i]))[0]
            t = position * claim_delay.sweep_time[node]
            claim = t if local else np.inf
            remote_hits = [u for u in entries if in_frontier[u] and owner(u) != node and not heavy[u]]
            if remote_hits:
                delay = claim_delay(np.array([node]), np.array([owner(remote_hits[0])]), np.array([t]))[0]
                claim = min(claim, t + delay)
            times.append(t)
            claim_times.append(claim)
        read = sequential_reads(np.zeros(len(segments), dtype=int), np.array(times), np.array(claim_times))
        best = None
        for (thread, entries, local), t, claim, was_read in zip(segments, times, claim_times, read):
            if not was_read:
                continue
            cell = (node, thread)
            counts["edge_entry"][cell] += len(entries)
            for u in entries:
                o = owner(u)
                if o != node and not heavy[u]:
                    counts["pack"][cell] += 1
                    counts["unpack"][(o, node % T)] += 1
                    probes.append((node, thread, o, v))
                    if in_frontier[u]:
                        counts["pack"][(o, node % T)] += 1
                        counts["unpack"][(node, o % T)] += 1
                        answers.append((o, node % T, node, v))
                        if best is None or claim < best[0]:
                            best = (claim, u)
                else:
                    counts["bitmap_test"][cell] += 1
                    if in_frontier[u] and (best is None or t < best[0]):
                        best = (t, u)
        if best is not None:
            claims[v] = best[1]
    return counts, probes, answers, claims


def claim_timing(kind, nodes, seed):
    """The three ways a level is evaluated: delays asked per segment (every
    segment scanned), none visible (NeverVisible) and spi's ClaimDelay with
    pair tables (both scanned lazily, in time order)."""
    if kind == "asked":
        return PairDelay(nodes)
    if kind == "never":
        return NeverVisible(nodes)
    rng = np.random.default_rng(seed)
    shape = {3: "[3]", 4: "[2,2]", 8: "[2,2,2]"}[nodes]
    sim = Simulation(load_machine("bluegene_q", [f"network.shape={shape}"]), nodes)
    sweep = 1e-6 * (1 + rng.random(nodes))  # sweeps as long as a trip (about 1 us): the timing decides
    every_pair = np.arange(nodes * nodes)  # rates on pairs sender * N + receiver
    return ClaimDelay(sim, every_pair, sweep, *(rng.random(nodes * nodes) * 1e9 for _ in range(2)), per_packet=20.0)


@pytest.mark.parametrize("timing", ["asked", "never", "tables"])
@pytest.mark.parametrize("nodes, threads, seed", [(4, 4, 1), (4, 8, 2), (3, 4, 3), (8, 2, 4)])
def test_bottom_up_level_equals_its_entry_by_entry_definition(nodes, threads, seed, timing):
    """The compiled bottom-up level (kernels.py) counts, streams and claims
    exactly what the entry-by-entry definition gives, on a random level:
    node and thread counts that do and do not divide n, probes that are and
    are not answered, claims never visible within the level; with every
    segment scanned and with the scan in time order that stops early."""
    graph = generate_graph(GraphSpec("kronecker", 8, seed=seed))
    rng = np.random.default_rng(seed)
    layout = Layout(graph, nodes, threads, heavy_count=0, index_stride=64)
    visited = rng.random(graph.num_vertices) < 0.3
    frontier = np.flatnonzero(visited & (rng.random(graph.num_vertices) < 0.5))
    options = CP1DOptions(load_balancing=False)
    delay = claim_timing(timing, nodes, seed)
    work = bottom_up(layout, frontier, visited, options)(delay)
    counts, probes, answers, claims = reference_bottom_up(layout, frontier, visited,
                                                          np.zeros(graph.num_vertices, dtype=bool), delay)
    base = new_ops(layout)
    scan_ops(layout, np.flatnonzero(~visited & (layout.degree > 0)), options, base)
    for name, table in counts.items():
        expected = base[name].copy()
        for (node, thread), count in table.items():
            expected[node, thread] += count
        assert np.array_equal(work.ops[name], expected), name
    rows = lambda s: list(zip(s.sender.tolist(), s.thread.tolist(), s.receiver.tolist(),  # noqa: E731
                              s.sweep_vertex.tolist()))
    assert rows(work.streams[0]) == probes and rows(work.streams[1]) == answers
    assert work.probes_sent == len(probes) > 0 and work.responses == len(answers) > 0
    assert work.new_vertices.tolist() == sorted(claims)
    assert work.new_parents.tolist() == [claims[v] for v in sorted(claims)]
    assert work.edges_examined == sum(counts["edge_entry"].values())


@pytest.mark.parametrize("nodes, threads, seed", [(4, 8, 5), (3, 5, 6), (16, 4, 7)])
def test_heavy_vertices_side_equals_its_definition(nodes, threads, seed):
    """Algorithm 4, lines 20-30, for the heavy unvisited vertices: at each
    node that owns some of v's neighbours, the thread of v's slice reads
    them in ascending order up to its first neighbour in the frontier;
    v is claimed if any node finds one, with the smallest such neighbour
    as parent. Computed once per level and the same at every evaluation."""
    graph = generate_graph(GraphSpec("kronecker", 9, seed=seed))
    rng = np.random.default_rng(seed)
    layout = Layout(graph, nodes, threads, heavy_count=8, index_stride=64, share_limit=None)
    visited = rng.random(graph.num_vertices) < 0.3
    frontier = np.flatnonzero(visited & (rng.random(graph.num_vertices) < 0.5))
    in_frontier = np.zeros(graph.num_vertices, dtype=bool)
    in_frontier[frontier] = True
    read, claims = Counter(), {}
    heavy_unvisited = [v for v in range(graph.num_vertices)
                       if layout.heavy[v] and not visited[v] and layout.degree[v] > 0]
    assert heavy_unvisited  # the case under test
    for v in heavy_unvisited:
        neighbours = sorted(graph.indices[graph.indptr[v]:graph.indptr[v + 1]].tolist())
        thread = int(layout.slice_of(np.array([v]))[0])
        for node in sorted({int(layout.owner(np.array([u]))[0]) for u in neighbours}):
            mine = [u for u in neighbours if int(layout.owner(np.array([u]))[0]) == node]
            hits = [k for k, u in enumerate(mine) if in_frontier[u]]
            read[node, thread] += hits[0] + 1 if hits else len(mine)
            if hits:
                claims[v] = min(claims.get(v, mine[hits[0]]), mine[hits[0]])
    level = bottom_up(layout, frontier, visited, CP1DOptions())
    heavy = level.heavy_claims
    expected = np.zeros(nodes * threads)
    for (node, thread), count in read.items():
        expected[node * threads + thread] = count
    assert np.array_equal(heavy.read, expected) and heavy.examined == sum(read.values())
    assert heavy.claimed.tolist() == sorted(claims) and heavy.parents.tolist() == [claims[v] for v in sorted(claims)]
    level(NeverVisible(nodes))
    assert level.heavy_claims is heavy


@pytest.mark.parametrize("threads", [2, 3, 7])
def test_bottom_up_level_is_the_same_on_any_number_of_host_threads(monkeypatch, threads):
    """The level's probers are cut into runs, one per host thread, and the
    runs' results put together in order: the LevelWork is the same, array
    for array, as on one thread."""
    graph = generate_graph(GraphSpec("kronecker", 9, seed=5))
    rng = np.random.default_rng(5)
    layout = Layout(graph, 4, 8, heavy_count=4, index_stride=64)
    visited = rng.random(graph.num_vertices) < 0.3
    frontier = np.flatnonzero(visited & (rng.random(graph.num_vertices) < 0.5))

    def level(workers):
        monkeypatch.setattr("simbfs.algorithms.cp1d.work.worker_threads", lambda: workers)
        return bottom_up(layout, frontier, visited, CP1DOptions())(PairDelay(4))
    one, many = level(1), level(threads)
    assert len(bottom_up(layout, frontier, visited, CP1DOptions()).chunks) == threads
    for name in one.ops:
        assert np.array_equal(one.ops[name], many.ops[name]), name
    for a, b in zip(one.streams, many.streams):
        for field_name in ("sender", "thread", "receiver", "sweep_vertex"):
            assert np.array_equal(getattr(a, field_name), getattr(b, field_name))
    assert np.array_equal(one.new_vertices, many.new_vertices)
    assert np.array_equal(one.new_parents, many.new_parents)
    assert (one.edges_examined, one.probes_sent, one.responses) == (many.edges_examined, many.probes_sent,
                                                                   many.responses)


def test_a_level_is_the_same_whichever_timing_evaluates_it_first():
    """A bottom-up level keeps state between evaluations (the segments with
    a remote hit, found when a timing first asks about them): evaluated
    with no claim visible and then with a timing, or the other way round,
    it gives the same work for each timing and the same segments."""
    graph = generate_graph(GraphSpec("kronecker", 9, seed=7))
    rng = np.random.default_rng(7)
    layout = Layout(graph, 4, 4, heavy_count=4, index_stride=64)
    visited = rng.random(graph.num_vertices) < 0.3
    frontier = np.flatnonzero(visited & (rng.random(graph.num_vertices) < 0.5))
    never_first = bottom_up(layout, frontier, visited, CP1DOptions())
    asked_first = bottom_up(layout, frontier, visited, CP1DOptions())
    works = [never_first(NeverVisible(4)), never_first(PairDelay(4))]
    timed = asked_first(PairDelay(4))  # its remote segments found apart, before the walk
    found_apart = [asked_first(NeverVisible(4)), timed]
    for one, other in zip(never_first.remote_segments(), asked_first.remote_segments()):
        assert np.array_equal(one, other)
    assert len(never_first.remote_segments()[0]) > 0
    for a, b in zip(works, found_apart):
        for name in a.ops:
            assert np.array_equal(a.ops[name], b.ops[name]), name
        assert np.array_equal(a.new_parents, b.new_parents) and a.probes_sent == b.probes_sent


def _target_timings(nodes):
    """Projection claim timings (one sweep, one trip and fill per pair)
    from delays far below a sweep to far above it, and none visible."""
    timings = [NeverVisible(nodes)]
    for sweep in (1e-3, 1.0):
        for trip, probe_fill, answer_fill in ((0.0, 0.0, 0.0), (2e-5, 1e-4, 3e-4), (1e-3, np.inf, 2e-3),
                                             (0.3, 0.05, np.inf)):
            timings.append(TargetClaimDelay(nodes, sweep, trip, probe_fill, answer_fill))
    return timings


def _totals(rows, nodes):
    """A stream's rows (sender, thread, receiver, sweep vertex) summed as
    work.StreamTotals: (sweep vertices, their edges, per sender, per receiver)."""
    vertex = Counter(row[3] for row in rows)
    return (sorted(vertex), [vertex[v] for v in sorted(vertex)],
            [sum(row[0] == k for row in rows) for k in range(nodes)],
            [sum(row[2] == k for row in rows) for k in range(nodes)])


def _rows(stream):
    return list(zip(stream.sender.tolist(), stream.thread.tolist(), stream.receiver.tolist(),
                    stream.sweep_vertex.tolist()))


@pytest.mark.parametrize("nodes, threads, heavy, seed", [(4, 4, 0, 1), (4, 8, 4, 2), (3, 5, 0, 3), (16, 64, 8, 4)])
def test_a_levels_segment_table_gives_the_walks_counts_under_every_projection_timing(nodes, threads, heavy, seed):
    """BottomUpLevel.counted (the projection's evaluation from the level's
    segment table: kernels.segment_table, table_walk) gives, under every
    projection claim timing, the walk's operation counts and claims, and
    its streams summed (edges per sweep vertex, per sender, per receiver),
    on levels where the timings read different numbers of the open
    segments; and, where no vertex is heavy, what the entry-by-entry
    definition (reference_bottom_up) gives."""
    graph = generate_graph(GraphSpec("kronecker", 8, seed=seed))
    rng = np.random.default_rng(seed)
    layout = Layout(graph, nodes, threads, heavy_count=heavy, index_stride=64, share_limit=None)
    options = CP1DOptions(load_balancing=heavy > 0)
    for share in (0.1, 0.4):
        visited = rng.random(graph.num_vertices) < share
        frontier = np.flatnonzero(visited & (rng.random(graph.num_vertices) < 0.5))
        level = bottom_up(layout, frontier, visited, options)
        table = level.segment_table()
        assert len(table.segment_thread) > 0 and len(table.candidate_thread) > 0  # open probers exist
        probes = set()
        for k, timing in enumerate(_target_timings(nodes)):
            fast, walked = level.counted(timing, table), level(timing)
            for name in walked.ops:
                assert np.array_equal(fast.ops[name], walked.ops[name]), name
            assert np.array_equal(fast.new_vertices, walked.new_vertices)
            for totals, stream in zip(fast.streams, walked.streams):
                assert (totals.sweep_vertex.tolist(), totals.edges.tolist(), totals.sent.tolist(),
                        totals.received.tolist()) == _totals(_rows(stream), nodes)
            assert (fast.edges_examined, fast.probes_sent, fast.responses) == (
                walked.edges_examined, walked.probes_sent, walked.responses)
            probes.add(fast.probes_sent)
            if heavy == 0 and k in (0, 2, 7):  # none visible, short delays, long ones
                _, probed, answered, claims = reference_bottom_up(layout, frontier, visited,
                                                                  np.zeros(layout.n, dtype=bool), timing)
                assert [(t.sweep_vertex.tolist(), t.edges.tolist(), t.sent.tolist(), t.received.tolist())
                        for t in fast.streams] == [_totals(probed, nodes), _totals(answered, nodes)]
                assert fast.new_vertices.tolist() == sorted(claims)
        assert len(probes) > 2  # the timing decides, and the open segments follow it


def test_the_segment_table_serves_only_timings_it_can_price_exactly():
    """The executed run's per-pair ClaimDelay, and sweeps too short to
    order positions (below TABLE_SWEEP_MIN), are left to the walk (None)."""
    graph = generate_graph(GraphSpec("kronecker", 8, seed=3))
    rng = np.random.default_rng(3)
    layout = Layout(graph, 4, 4, heavy_count=0, index_stride=64)
    visited = rng.random(graph.num_vertices) < 0.3
    level = bottom_up(layout, np.flatnonzero(visited), visited, CP1DOptions())
    table = level.segment_table()
    assert level.counted(claim_timing("tables", 4, 3), table) is None
    assert level.counted(PairDelay(4), table) is None
    assert level.counted(TargetClaimDelay(4, 0.0, 1e-6, 0.0, 0.0), table) is None
    assert level.counted(TargetClaimDelay(4, 1e-3, 1e-6, 0.0, 0.0), table) is not None


def test_an_unsorted_adjacency_list_is_refused_not_overrun():
    """The bottom-up walk keeps at most T segments per vertex, which a
    sorted list cannot exceed; an unsorted one (slices 0, 1, 0, 1, ...) is
    an error, not a write past the scratch arrays."""
    from simbfs.algorithms.cp1d.kernels import bottom_up_walk
    indptr, indices = np.array([0, 6]), np.array([0, 5, 0, 5, 0, 5], dtype=np.int32)
    no_bits, none = np.zeros(1, dtype=np.uint8), np.zeros(0)
    with pytest.raises(ValueError, match="not sorted"):
        bottom_up_walk(indptr, indices, np.array([0]), 0, no_bits, no_bits, 8, 1, 2, 3, 2, np.array([0]),
                       np.array([1]), np.ones(1), True, none, none, none, none, True)


def test_a_claim_timing_without_finite_sweep_times_is_refused():
    """The walk visits a vertex's segments in time order and stops at the
    first that starts after a claim is visible: it needs times that order
    (an infinite sweep would make 0 x inf a NaN position)."""
    graph = generate_graph(GraphSpec("kronecker", 8, seed=2))
    layout = Layout(graph, 2, 2, heavy_count=0, index_stride=64)
    visited = np.zeros(graph.num_vertices, dtype=bool)
    visited[:8] = True
    level = bottom_up(layout, np.arange(8), visited, CP1DOptions())

    class Endless(PairDelay):
        def __init__(self):
            self.sweep_time = np.array([1.0, np.inf])
    with pytest.raises(ValueError, match="finite"):
        level(Endless())


@pytest.mark.parametrize("edges, unvisited, direction", [
    (11, 10, BOTTOM_UP), (10, 10, TOP_DOWN), (9, 10, TOP_DOWN), (1, 0, BOTTOM_UP), (0, 0, TOP_DOWN),
    (10**9 + 1, 10**9, BOTTOM_UP),
])
def test_calc_direction_goes_bottom_up_iff_frontier_edges_outnumber_unvisited_vertices(edges, unvisited, direction):
    assert calc_direction(edges, unvisited) == direction


def test_load_balancing_sends_no_edge_of_a_heavy_frontier_vertex(graphs):
    graph, nxg = graphs[12]
    n, N = graph.num_vertices, 16
    machine = bgq(N)
    layout = CP1DSPI("x").layout(graph, Simulation(machine, N))
    # heavy set, independently: the LB highest networkx degrees, ties to the smaller id
    heavy = set(sorted(nxg.nodes, key=lambda v: (-nxg.degree(v), v))[:heavy_count(graph)])
    hub = max(nxg.nodes, key=lambda v: (nxg.degree(v), -v))
    assert hub in heavy and np.flatnonzero(layout.heavy).tolist() == sorted(heavy)
    # the BFS level of some root that contains the hub
    root = next(int(r) for r in search_keys(graph, 20, seed=2) if int(r) != hub)
    distance = nx.single_source_shortest_path_length(nxg, root)
    depth = distance[hub]
    frontier = np.array(sorted(v for v, d in distance.items() if d == depth))
    visited = np.zeros(n, dtype=bool)
    visited[[v for v, d in distance.items() if d <= depth]] = True
    expected_new = sorted({w for u in frontier for w in nxg[u]} - {v for v, d in distance.items() if d <= depth})

    def owner(v):
        return v // (n // N)  # 4096 vertices on 16 nodes: blocks of 256

    def remote_edges(u, skip_heavy):
        return sum(1 for w in nxg[u] if owner(w) != owner(u) and not (skip_heavy and w in heavy))

    sent = {}
    for lb in (True, False):
        work = top_down(layout, frontier, visited, CP1DOptions(load_balancing=lb))
        assert work.new_vertices.tolist() == expected_new
        assert all(p in nxg[v] and distance[p] == depth for v, p in zip(work.new_vertices.tolist(),
                                                                          work.new_parents.tolist()))
        assert work.edges_examined == sum(nxg.degree(u) for u in frontier)
        (fwd,) = work.streams
        assert fwd.channel == "forward"
        assert np.array_equal(fwd.sender, [owner(u) for u in fwd.sweep_vertex.tolist()])
        light = [u for u in frontier.tolist() if not (lb and u in heavy)]
        pairs = Counter((owner(u), owner(w)) for u in light for w in nxg[u]
                        if owner(w) != owner(u) and not (lb and w in heavy))
        assert Counter(zip(fwd.sender.tolist(), fwd.receiver.tolist())) == pairs
        per_source = Counter(fwd.sweep_vertex.tolist())
        assert per_source == Counter({u: remote_edges(u, lb) for u in light if remote_edges(u, lb)})
        from_hub = per_source[hub]
        assert len(fwd.sender) == sum(remote_edges(u, lb) for u in light)
        sent[lb] = (len(fwd.sender), from_hub)
    assert sent[True][1] == 0
    assert sent[False][1] == remote_edges(hub, False) > 0
    assert sent[True][0] < sent[False][0]


def test_every_thread_tests_every_index_word_of_its_node(small_graph):
    # II-D: thread j's block A_ij spans all of node i's source vertices, so a
    # coarse-index sweep tests ceil(local vertices / 64) words on every thread,
    # whatever the frontier; the skip list has no index words.
    layout = Layout(small_graph, nodes=2, threads=4, heavy_count=0, index_stride=16)  # 32 vertices a node
    ops = new_ops(layout)
    scan_ops(layout, np.array([0]), CP1DOptions(), ops)
    assert np.array_equal(ops["index_word"], np.full((2, 4), 2.0))  # ceil(32 / 16)
    ops = new_ops(layout)
    scan_ops(layout, np.array([0]), CP1DOptions(representation="skip-list"), ops)
    assert not ops["index_word"].any()


def test_the_mpi_passes_split_a_levels_packing_and_decoding_between_its_rounds():
    """IV-B: a top-down level is one exchange, a bottom-up level two: the
    probes, then the answers, which the probed owners count and write after
    decoding the probes. Every probe and answer is packed once and decoded
    once, in the round that sends it (the answers decoded in the final
    pass, with the claims): the level's counts, split and none lost."""
    graph = generate_graph(GraphSpec("kronecker", 9, seed=5))
    rng = np.random.default_rng(5)
    layout = Layout(graph, 4, 8, heavy_count=4, index_stride=64)
    visited = rng.random(graph.num_vertices) < 0.3
    frontier = np.flatnonzero(visited & (rng.random(graph.num_vertices) < 0.5))
    work = bottom_up(layout, frontier, visited, CP1DOptions())(NeverVisible(4))
    passes = mpi_passes(layout, work)
    probes, answers = passes.rounds
    assert [len(probes.counting), len(answers.counting)] == [1, 2]
    assert probes.writing["pack"].sum() == probes.counting[0]["pack"].sum() == work.probes_sent > 0
    assert answers.writing["pack"].sum() == passes.final["unpack"].sum() == work.responses > 0
    assert answers.counting[0]["unpack"].sum() == work.probes_sent  # the owners decode the probes
    assert np.allclose(probes.writing["pack"] + answers.writing["pack"], work.ops["pack"])
    assert np.allclose(answers.counting[0]["unpack"] + passes.final["unpack"], work.ops["unpack"])
    assert not any(answers.writing[name].any() for name in ("index_word", "vertex_header", "edge_entry"))
    assert passes.final["claim"] is work.ops["claim"]
    (one,) = mpi_passes(layout, top_down(layout, frontier, visited, CP1DOptions())).rounds
    assert len(one.counting) == 1 and one.streams[0].channel == "forward"
