"""Compiled loops of the cp1d bottom-up level.

A bottom-up level reads, for every light unvisited vertex, its adjacency
list thread slice by thread slice until the first hit. In numpy that is
some forty whole-array passes over every unvisited vertex's entries (23
million at scale 20 on 1,024 nodes), each building a temporary: the
profile put 80% of a cp1d-spi root there, at 10-18x scipy's whole BFS.
These loops make one or two passes over the CSR arrays themselves and
keep no per-entry array, which is also what keeps the level's memory
small.

They compute exactly what the numpy version did (the regression documents
are byte-identical): counts are whole numbers, added to the operation
tables in the same order, and every choice (the first local hit, the first
entry with the smallest claim time) follows the entries' CSR order.

The functions are pure: arrays in, arrays out. Their callers state what
the quantities mean: ``BottomUpLevel`` in work.py, ``Layout`` in layout.py
and ``encode`` in encoding.py.
"""

from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from ...bfs.compiled import compiled, grown as _grown, grown_rows as _grown_rows, modulo as _mod, scaled as _scaled
from .pricing import claim_delay_s, probe_claim_delay_s

# The pricing's formula, compiled as it is for the loops (one formula, one
# place): calls to these functions inside compiled code compile them.
register_jitable(claim_delay_s)
register_jitable(probe_claim_delay_s)

# Every vertex here is owned by node v * N // n and falls in thread slice
# v * T // n (bfs.partition): the same integer arithmetic, inlined, with
# the shifts bfs.partition.floor_shift finds.


@compiled(inline="always")
def _slices(indptr, indices, v, n, T, slice_shift, start, thread):
    """Split prober v's adjacency list into segments, the runs of
    consecutive entries in one thread slice (at most T: the list is sorted,
    so a slice is one run). Fills, per segment in CSR order, its first
    slot and its thread, and start[count] with the list's end; returns the
    number of segments. Only the slices are computed here, not the hits
    (_scan), which most segments never need."""
    k = -1
    current = -1  # the slice of segment k
    for slot in range(indptr[v], indptr[v + 1]):
        slice_ = _scaled(indices[slot], T, n, slice_shift)
        if slice_ != current:
            if slice_ < current:  # else more segments than the T slots of the scratch arrays
                raise ValueError("an adjacency list is not sorted: its thread slices go back")
            k += 1
            current = slice_
            start[k] = slot
            thread[k] = slice_
    start[k + 1] = indptr[v + 1]
    return k + 1


@compiled(inline="always")
def _scan(indices, first, end, node, heavy, in_frontier, n, N, owner_shift):
    """Where the sweep of the segment [first, end) stops, and what it meets
    before: (its stop, one past its first local hit, else ``end``; whether
    it has a local hit; the owner of its first remote hit before the stop,
    -1 if none).

    A hit is a neighbour in the frontier; an entry is remote when the
    neighbour's owner is another node and the neighbour is not heavy
    (heavy vertices are replicated); ``in_frontier`` and ``heavy`` are
    bitmaps (_bit)."""
    first_owner = -1
    for slot in range(first, end):
        u = indices[slot]
        if not _bit(in_frontier, u):
            continue
        owner = _scaled(u, N, n, owner_shift)
        if owner != node and not _bit(heavy, u):
            if first_owner < 0:
                first_owner = owner
        else:
            return slot + 1, True, first_owner
    return end, False, first_owner


@compiled(inline="always")
def _bit(bits, i):
    """Bit i of a bitmap packed as numpy.packbits(..., bitorder="little")
    does: a set of vertices in an eighth of a bool array's room, so that
    the random tests stay in the host's cache."""
    return (bits[i >> 3] >> (i & 7)) & 1


@compiled(inline="always")
def _sweep_position(index, node, thread, member_base, member_span, T):
    """Where in [0, 1) of its sweep thread ``thread`` of ``node`` reaches
    the vertex with ``index`` among the vertices swept (the node's are
    member_base[node] onwards, member_span[node] of them, at least 1).
    Thread j starts at the j/T point of the node's vertices and wraps
    around (the paper's staggered starts)."""
    span = member_span[node]
    position = index - (member_base[node] + thread * span // T)
    if position < 0:
        position += span
    return position / span


@compiled(nogil=True)
def sweep_positions(index, node, thread, member_base, member_span, T):
    """_sweep_position of many: layout.Layout.sweep_position."""
    positions = np.empty(len(index), dtype=np.float64)
    for i in range(len(index)):
        positions[i] = _sweep_position(index[i], node[i], thread[i], member_base, member_span, T)
    return positions


@compiled(inline="always")
def _first_in_time(index, node, thread, count, member_base, member_span, T):
    """The segment its thread reaches first: _sweep_position is
    (index - base - j * span // T) mod span for thread j, which falls as j
    grows up to the last thread j0 whose start is at or before the vertex
    and jumps up after it. So in time the segments come in descending
    thread order, cyclically from the last one with a thread up to j0 (ties
    of equal starts in any order; -1: from the last segment). One division
    per vertex instead of one per segment."""
    span = member_span[node]
    j0 = min(T - 1, ((index - member_base[node] + 1) * T - 1) // span)
    first = -1
    for k in range(count):
        if thread[k] <= j0:
            first = k
    return first


@compiled(nogil=True)
def bottom_up_walk(indptr, indices, probers, first_index, heavy, in_frontier, n, N, T, owner_shift, slice_shift,
                   member_base, member_span, sweep_time, never_visible, remote_delay, trip, probe_fill, answer_fill,
                   record_remote):
    """Evaluate one claim timing: which segments (_slices) are probed, and
    what the probed ones read (their first slot to their stop, _scan).

    A segment's thread reaches it at its ``seg_time``: its sweep position
    (_sweep_position) times the sweep's length on the prober's node
    (``sweep_time``, per node). Its claim time is its ``seg_time`` if it
    has a local hit, and at most ``seg_time`` plus its delay if it has a
    remote one: ``remote_delay``, one value per segment with a remote hit
    before its stop (as ``record_remote`` returns them), in CSR order; or, when
    ``trip`` is not empty, pricing.probe_claim_delay_s of the two nodes'
    sweeps, the segment's time and the (prober node, owner) pair's
    ``trip``, ``probe_fill`` and ``answer_fill`` (N * N tables, prober * N
    + owner): the ClaimDelay of claim_timing.py, without an array per segment.
    With ``never_visible`` no remote claim is visible within the level
    (every delay infinite). ``probers`` may be a run of all the probers,
    starting at index ``first_index`` among them.

    Which segments are probed: a thread reads its slice of v unless v's
    claim was visible before it arrived. In time order, segment k is read
    iff its ``seg_time`` is at most the earliest claim time among the
    segments read before it; since a segment's claim time is never before
    its ``seg_time``, that is the same as ``seg_time`` at most the earliest
    claim time over all of v's segments. So the segments are scanned in
    time order until the next one starts after the earliest claim so far:
    none of the rest is read or can claim earlier, and they are not
    scanned at all (in a scale-20 level, 3 of 24 million entries are
    read). Only when the segments with a remote hit must be counted in CSR
    order (``record_remote``, or delays given per segment) is every
    segment scanned, in CSR order; which are read is the same.

    Counts, per (node, thread) cell (node * T + thread):

    0. entries read, at the sweeping thread;
    1. local checks, at the sweeping thread;
    2. probes packed, at the sweeping thread;
    3. probes unpacked, at Owner(u)'s receive thread for the prober's node;
    4. answers packed, at the same thread of Owner(u);
    5. answers unpacked, at the prober's receive thread for Owner(u).

    Also returns the probes' and the answers' streams (rows: sender,
    thread, receiver, sweep vertex), in CSR order, and the claims: every
    prober with a hit, in ascending order, and its parent, the first entry
    (in CSR order) with the smallest claim time; a local hit is claimed at
    its segment's ``seg_time``, a remote one at the segment's claim time.
    With ``record_remote``, last, the segments with a remote hit before
    their stop, in CSR order: the prober's node, the first such hit's owner
    and the segment's sweep position (else empty arrays). They do not
    depend on the timing; a claim timing is asked about them.
    The shifts are bfs.partition.floor_shift's for N and T over n."""
    slice_mask = T - 1 if T & (T - 1) == 0 else -1
    every_segment = record_remote or (not never_visible and len(trip) == 0)
    remote_nodes = np.empty(len(probers) if record_remote else 0, dtype=np.int64)
    remote_owners = np.empty(len(remote_nodes), dtype=np.int64)
    remote_positions = np.empty(len(remote_nodes), dtype=np.float64)
    start = np.empty(T + 1, dtype=np.int64)
    stop = np.empty(T, dtype=np.int64)
    thread = np.empty(T, dtype=np.int64)
    seg_time = np.empty(T, dtype=np.float64)
    claim_time = np.empty(T, dtype=np.float64)
    scanned = np.empty(T, dtype=np.bool_)
    counts = np.zeros((6, N * T), dtype=np.int64)
    probe_stream = np.empty((4, max(len(probers), 1)), dtype=np.int64)
    answer_stream = np.empty((4, max(len(probers), 1)), dtype=np.int64)
    claimed = np.empty(len(probers), dtype=np.int64)
    parent = np.empty(len(probers), dtype=np.int64)
    claims = 0
    p = 0
    a = 0
    r = 0
    for i in range(len(probers)):
        v = probers[i]
        node = _scaled(v, N, n, owner_shift)
        count = _slices(indptr, indices, v, n, T, slice_shift, start, thread)
        scanned[:count] = False
        first = -1 if every_segment else _first_in_time(first_index + i, node, thread, count, member_base,
                                                          member_span, T)
        earliest = np.inf
        for j in range(count):
            # CSR order (every segment), else time order until no later one can be read
            k = j if every_segment else (first - j if first >= j else first - j + count)
            position = _sweep_position(first_index + i, node, thread[k], member_base, member_span, T)
            seg_time[k] = position * sweep_time[node]
            if seg_time[k] > earliest and not every_segment:
                break
            stop[k], has_local, owner = _scan(indices, start[k], start[k + 1], node, heavy, in_frontier, n, N,
                                              owner_shift)
            scanned[k] = True
            t = seg_time[k] if has_local else np.inf
            if owner >= 0 and record_remote:
                if r == len(remote_nodes):
                    remote_nodes, remote_owners = _grown(remote_nodes), _grown(remote_owners)
                    remote_positions = _grown(remote_positions)
                remote_nodes[r] = node
                remote_owners[r] = owner
                remote_positions[r] = position
            if owner >= 0 and never_visible:
                r += 1
            elif owner >= 0:
                if len(trip):
                    pair = node * N + owner
                    delay = probe_claim_delay_s(sweep_time[node], sweep_time[owner], seg_time[k], probe_fill[pair],
                                                answer_fill[pair], trip[pair])
                else:
                    delay = remote_delay[r]
                t = min(t, seg_time[k] + delay)
                r += 1
            claim_time[k] = t
            earliest = min(earliest, t)
        node_thread = _mod(node, T, slice_mask)
        found = False
        best_time = 0.0
        best_parent = 0
        for k in range(count):
            if not scanned[k] or not seg_time[k] <= earliest:
                continue  # not read
            sweep_cell = node * T + thread[k]
            counts[0, sweep_cell] += stop[k] - start[k]
            for slot in range(start[k], stop[k]):
                u = indices[slot]
                owner = _scaled(u, N, n, owner_shift)
                hit = _bit(in_frontier, u)
                if owner != node and not _bit(heavy, u):
                    counts[2, sweep_cell] += 1
                    counts[3, owner * T + node_thread] += 1
                    if p == probe_stream.shape[1]:
                        probe_stream = _grown_rows(probe_stream)
                    probe_stream[0, p] = node
                    probe_stream[1, p] = thread[k]
                    probe_stream[2, p] = owner
                    probe_stream[3, p] = v
                    p += 1
                    if not hit:
                        continue
                    counts[4, owner * T + node_thread] += 1
                    counts[5, node * T + _mod(owner, T, slice_mask)] += 1
                    if a == answer_stream.shape[1]:
                        answer_stream = _grown_rows(answer_stream)
                    answer_stream[0, a] = owner
                    answer_stream[1, a] = node_thread
                    answer_stream[2, a] = node
                    answer_stream[3, a] = v
                    a += 1
                    time = claim_time[k]
                else:
                    counts[1, sweep_cell] += 1
                    if not hit:
                        continue
                    time = seg_time[k]
                if not found or time < best_time:
                    found = True
                    best_time = time
                    best_parent = u
        if found:
            claimed[claims] = v
            parent[claims] = best_parent
            claims += 1
    return (counts, probe_stream[:, :p].copy(), answer_stream[:, :a].copy(), claimed[:claims].copy(),
            parent[:claims].copy(), remote_nodes[:r].copy(), remote_owners[:r].copy(), remote_positions[:r].copy())


@compiled(inline="always")
def _grown_to(array, size):
    """``array`` in a new array of at least ``size`` entries (doubling)."""
    bigger = np.zeros(max(size, 2 * len(array)), dtype=array.dtype)
    bigger[:len(array)] = array
    return bigger


@compiled(nogil=True)
def stream_bytes(sender, thread, receiver, vertex, N, T, by_receiver, compression, short_bytes, long_bytes,
                 delta_max, room, header_bytes, per_packet_plain, entry_bytes, whole_bytes):
    """Bytes and packets of every (sender, thread, receiver) stream of one
    channel, summed per (sender, receiver) pair (encoding.encode states the
    formats). The entries must come grouped: by sender (``by_receiver``
    False) or by receiver (True), and in each stream with non-decreasing
    sweep vertices (a stream is encoded in its sweep order). Returns
    ``ok`` False, and nothing else of use, if they do not.

    Returns (ok, pair keys sender * N + receiver, payload, packets, edges
    of each pair, the channel's packets): only the pairs that talk, group
    by group (ascending keys when grouped by sender), so that the memory
    follows the traffic, never N x N.

    A pair's streams are added up in the order of their stream ids, so
    that fractional byte sizes give the same sums however the entries came;
    with ``whole_bytes`` (every size a whole number of bytes, whose sums
    are exact in any order) they are added in the order they were opened,
    which saves sorting each group's streams (a fifth of the heavy level's
    encoding at 1,024 nodes)."""
    capacity = max(16, min(len(sender), 4 * N))
    keys = np.zeros(capacity, dtype=np.int64)
    payload = np.zeros(capacity)
    packets = np.zeros(capacity)
    edges = np.zeros(capacity)
    pairs = 0
    streams = N * T
    size = np.zeros(streams)  # the open group's streams: bytes (or entries)
    entries = np.zeros(streams)  # and their entries
    last = np.full(streams, -1, dtype=np.int64)  # and their last vertex
    touched = np.empty(streams, dtype=np.int64)
    # the open group's partners (receivers, or senders when grouped by
    # receiver): their sums, and which are in use
    partner_payload, partner_packets, partner_edges = np.zeros(N), np.zeros(N), np.zeros(N)
    partner_open = np.zeros(N, dtype=np.bool_)
    partners = np.empty(N, dtype=np.int64)
    opened = 0
    total_packets = 0.0
    group = -1
    for i in range(len(sender) + 1):
        if i < len(sender):
            g = receiver[i] if by_receiver else sender[i]
            if g < group:
                return False, keys[:0], payload[:0], packets[:0], edges[:0], 0.0
        if i == len(sender) or g != group:
            # Close the previous group's streams, in ascending key: a pair's
            # streams then add up in the order of their stream ids.
            order = touched[:opened] if whole_bytes else np.sort(touched[:opened])
            talking = 0
            for key in order:
                partner = key // T if by_receiver else key % N
                if compression:
                    stream_packets = np.ceil(size[key] / room)
                    stream_payload = size[key] + stream_packets * header_bytes
                else:
                    stream_packets = np.ceil(size[key] / per_packet_plain)
                    stream_payload = size[key] * entry_bytes
                if not partner_open[partner]:
                    partner_open[partner] = True
                    partners[talking] = partner
                    talking += 1
                partner_payload[partner] += stream_payload
                partner_packets[partner] += stream_packets
                partner_edges[partner] += entries[key]
                total_packets += stream_packets
                size[key] = 0.0
                entries[key] = 0.0
                last[key] = -1
            if pairs + talking > len(keys):
                keys, payload = _grown_to(keys, pairs + talking), _grown_to(payload, pairs + talking)
                packets, edges = _grown_to(packets, pairs + talking), _grown_to(edges, pairs + talking)
            for partner in np.sort(partners[:talking]):
                keys[pairs] = partner * N + group if by_receiver else group * N + partner
                payload[pairs] = partner_payload[partner]
                packets[pairs] = partner_packets[partner]
                edges[pairs] = partner_edges[partner]
                pairs += 1
                partner_payload[partner] = 0.0
                partner_packets[partner] = 0.0
                partner_edges[partner] = 0.0
                partner_open[partner] = False
            opened = 0
            if i == len(sender):
                break
            group = g
        if by_receiver:
            key = sender[i] * T + thread[i]
        else:
            key = thread[i] * N + receiver[i]
        v = vertex[i]
        if last[key] < 0:
            touched[opened] = key
            opened += 1
            size[key] += short_bytes if compression else 1.0  # a stream's first entry is short
        else:
            if v < last[key]:
                return False, keys[:0], payload[:0], packets[:0], edges[:0], 0.0
            if compression:
                size[key] += short_bytes if v - last[key] <= delta_max else long_bytes
            else:
                size[key] += 1.0
        last[key] = v
        entries[key] += 1.0
    return True, keys[:pairs], payload[:pairs], packets[:pairs], edges[:pairs], total_packets


# ------------------------------------------------- the level's segment table
# A projection evaluates a bottom-up level under several claim timings that
# each give every node one sweep time and every (prober, owner) pair the
# same claim-delay parts (claim_timing.TargetClaimDelay), and reads of each
# evaluation only its counts, never its streams' order or its parents
# (project_spi.level_work). For those, what bottom_up_walk finds splits in
# two: what no timing changes, found once per level (segment_table), and a
# short list of the segments that a timing decides (table_walk).
#
# Take prober v, its segments' sweep positions p, L the smallest position
# of a segment with a local hit and R the smallest of one with a remote hit
# before its stop (inf: none). A segment is read iff p * S <= E, E the
# earliest claim time over v's segments (bottom_up_walk's docstring), and
# every claim is at or after its segment's time, so E lies between
# min(L, R) * S and L * S:
#   * p <= min(L, R): read whatever the timing ("fixed");
#   * p > L: never read, p * S > L * S for a sweep time S that is a normal
#     number (work.TABLE_SWEEP_MIN): distinct positions of a node's
#     vertices differ by at least 1 / span, far more than a rounding;
#   * R < p <= L: read iff p * S <= E ("open"). Only these, and the
#     segments with a remote hit at p <= L (the "candidates": the others
#     claim after L * S), are kept, for the probers with R < L ("open
#     probers"). E is computed with bottom_up_walk's formula and
#     operations, so the same floats are compared.
# v is claimed iff it has a hit at all (its first hit in time is read).
# A segment is kept as its thread (its position follows: _sweep_position),
# its first slot and the entries it reads: some 7 bytes.


@compiled(inline="always")
def _count_segment(indices, first, stop, node, thread, heavy, in_frontier, n, N, T, owner_shift, slice_mask,
                   counts):
    """Add what reading the entries [first, stop) of a segment of ``node``
    on ``thread`` costs to ``counts`` (bottom_up_walk's six rows); returns
    its (probes, answers)."""
    sweep_cell = node * T + thread
    node_thread = _mod(node, T, slice_mask)
    counts[0, sweep_cell] += stop - first
    probes = 0
    answers = 0
    for slot in range(first, stop):
        u = indices[slot]
        owner = _scaled(u, N, n, owner_shift)
        if owner != node and not _bit(heavy, u):
            counts[2, sweep_cell] += 1
            counts[3, owner * T + node_thread] += 1
            probes += 1
            if _bit(in_frontier, u):
                counts[4, owner * T + node_thread] += 1
                counts[5, node * T + _mod(owner, T, slice_mask)] += 1
                answers += 1
        else:
            counts[1, sweep_cell] += 1
    return probes, answers


@compiled(nogil=True)
def segment_table(indptr, indices, probers, first_index, heavy, in_frontier, n, N, T, owner_shift, slice_shift,
                  member_base, member_span):
    """The timing-free part of a bottom-up level (the comment above), for
    ``probers``, a run of the probers starting at index ``first_index``
    among them (arguments as bottom_up_walk's).

    Returns (counts of the fixed segments, as bottom_up_walk's; per prober
    its fixed probes, its fixed answers, and whether it is claimed; per
    open prober: its index among the probers, the thread of its first
    local hit in time (-1: none), its number of candidates and of open
    segments; per candidate: its thread and its first remote hit's owner;
    per open segment: its thread, first slot and entries read), each
    prober's in time order (the order its threads reach them)."""
    slice_mask = T - 1 if T & (T - 1) == 0 else -1
    start = np.empty(T + 1, dtype=np.int64)
    thread = np.empty(T, dtype=np.int64)
    stop = np.empty(T, dtype=np.int64)
    position = np.empty(T, dtype=np.float64)
    local = np.empty(T, dtype=np.bool_)
    remote = np.empty(T, dtype=np.int64)
    counts = np.zeros((6, N * T), dtype=np.int64)
    probes = np.zeros(len(probers), dtype=np.int64)
    answers = np.zeros(len(probers), dtype=np.int64)
    claimed = np.zeros(len(probers), dtype=np.bool_)
    room = 16
    open_index = np.empty(room, dtype=np.int64)
    open_local = np.empty(room, dtype=np.int64)
    open_candidates = np.empty(room, dtype=np.int64)
    open_segments = np.empty(room, dtype=np.int64)
    candidate_thread = np.empty(room, dtype=np.int64)
    candidate_owner = np.empty(room, dtype=np.int64)
    segment_thread = np.empty(room, dtype=np.int64)
    segment_start = np.empty(room, dtype=np.int64)
    segment_read = np.empty(room, dtype=np.int64)
    opened = 0
    c = 0
    s = 0
    for i in range(len(probers)):
        v = probers[i]
        node = _scaled(v, N, n, owner_shift)
        count = _slices(indptr, indices, v, n, T, slice_shift, start, thread)
        first_local = np.inf
        first_remote = np.inf
        local_thread = -1
        for k in range(count):
            position[k] = _sweep_position(first_index + i, node, thread[k], member_base, member_span, T)
            stop[k], local[k], remote[k] = _scan(indices, start[k], start[k + 1], node, heavy, in_frontier, n, N,
                                                 owner_shift)
            if local[k] and position[k] < first_local:
                first_local = position[k]
                local_thread = thread[k]
            if remote[k] >= 0:
                first_remote = min(first_remote, position[k])
        fixed = min(first_local, first_remote)
        claimed[i] = fixed < np.inf
        is_open = first_remote < first_local
        c0 = c
        s0 = s
        first = _first_in_time(first_index + i, node, thread, count, member_base, member_span, T)
        last = 0.0
        for j in range(count):  # in time order (ties in any): table_walk stops at the first too late
            k = first - j if first >= j else first - j + count
            if position[k] < last:
                raise ValueError("the segments' time order is not ascending")
            last = position[k]
            if position[k] <= fixed:
                probed, answered = _count_segment(indices, start[k], stop[k], node, thread[k], heavy, in_frontier,
                                                  n, N, T, owner_shift, slice_mask, counts)
                probes[i] += probed
                answers[i] += answered
            elif is_open and position[k] <= first_local:
                if s == len(segment_thread):
                    segment_thread, segment_start = _grown(segment_thread), _grown(segment_start)
                    segment_read = _grown(segment_read)
                segment_thread[s] = thread[k]
                segment_start[s] = start[k]
                segment_read[s] = stop[k] - start[k]
                s += 1
            if is_open and remote[k] >= 0 and position[k] <= first_local:
                if c == len(candidate_thread):
                    candidate_thread, candidate_owner = _grown(candidate_thread), _grown(candidate_owner)
                candidate_thread[c] = thread[k]
                candidate_owner[c] = remote[k]
                c += 1
        if is_open:
            if opened == len(open_index):
                open_index, open_local = _grown(open_index), _grown(open_local)
                open_candidates, open_segments = _grown(open_candidates), _grown(open_segments)
            open_index[opened] = first_index + i
            open_local[opened] = local_thread
            open_candidates[opened] = c - c0
            open_segments[opened] = s - s0
            opened += 1
    return (counts, probes, answers, claimed, open_index[:opened].copy(), open_local[:opened].copy(),
            open_candidates[:opened].copy(), open_segments[:opened].copy(), candidate_thread[:c].copy(),
            candidate_owner[:c].copy(), segment_thread[:s].copy(), segment_start[:s].copy(),
            segment_read[:s].copy())


@compiled(nogil=True)
def table_walk(indices, probers, heavy, in_frontier, n, N, T, owner_shift, member_base, member_span, open_index,
               open_local, candidates_begin, open_candidates, segments_begin, open_segments, candidate_thread,
               candidate_owner, segment_thread, segment_start, segment_read, sweep_time, never_visible, trip,
               probe_fill, answer_fill):
    """The open segments' part of bottom_up_walk under one claim timing,
    from segment_table's lists (a run of its open probers, with where each
    one's candidates and open segments begin): for each open prober, its
    earliest claim E (the smaller of its first local hit's time and its
    candidates' claim times: pricing.probe_claim_delay_s of the pair's
    ``trip``, ``probe_fill`` and ``answer_fill``, N * N tables indexed
    prober * N + owner, or one value for every pair), and what its open
    segments with p * S <= E read; both lists in time order, so each is
    read only as far as it can matter. Returns (counts as bottom_up_walk's, and
    per open prober its probes and its answers)."""
    slice_mask = T - 1 if T & (T - 1) == 0 else -1
    uniform = len(trip) == 1
    counts = np.zeros((6, N * T), dtype=np.int64)
    probes = np.zeros(len(open_index), dtype=np.int64)
    answers = np.zeros(len(open_index), dtype=np.int64)
    for i in range(len(open_index)):
        index = np.int64(open_index[i])  # (the table's lists are narrow: compute in 64 bits)
        v = probers[index]
        node = _scaled(v, N, n, owner_shift)
        sweep = sweep_time[node]
        earliest = np.inf
        if open_local[i] >= 0:
            earliest = _sweep_position(index, node, np.int64(open_local[i]), member_base, member_span, T) * sweep
        if not never_visible:
            for c in range(candidates_begin[i], candidates_begin[i] + open_candidates[i]):
                seg_time = _sweep_position(index, node, np.int64(candidate_thread[c]), member_base, member_span,
                                           T) * sweep
                if seg_time > earliest:
                    break  # it and the later ones claim after E (a claim is never before its segment's time)
                owner = np.int64(candidate_owner[c])
                pair = 0 if uniform else node * N + owner
                delay = probe_claim_delay_s(sweep, sweep_time[owner], seg_time, probe_fill[pair], answer_fill[pair],
                                            trip[pair])
                earliest = min(earliest, seg_time + delay)
        for k in range(segments_begin[i], segments_begin[i] + open_segments[i]):
            thread = np.int64(segment_thread[k])
            if _sweep_position(index, node, thread, member_base, member_span, T) * sweep > earliest:
                break  # not read, nor the later ones
            first = np.int64(segment_start[k])
            probed, answered = _count_segment(indices, first, first + np.int64(segment_read[k]), node, thread, heavy,
                                              in_frontier, n, N, T, owner_shift, slice_mask, counts)
            probes[i] += probed
            answers[i] += answered
    return counts, probes, answers
