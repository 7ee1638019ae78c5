"""Compiled loops of the cp1d bottom-up level (issue 16).

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

The functions are pure: arrays in, arrays out. ``BottomUpLevel`` in
work.py is their only caller and states what the quantities mean.
"""

from __future__ import annotations

import numpy as np
from numba import njit as _njit


def compiled(**options):
    """numba's njit, its machine code cached beside the source (or in
    ~/.cache, or NUMBA_CACHE_DIR) so that only the first run after an
    install compiles it; where no cache location is writable, compiled
    in each process instead of failing."""
    def decorate(function):
        try:
            return _njit(cache=True, **options)(function)
        except RuntimeError:  # numba: "cannot cache function ...: no locator available"
            return _njit(**options)(function)
    return decorate

# Every vertex here is owned by node v * N // n and falls in thread slice
# v * T // n (bfs.partition): the same integer arithmetic, inlined, with
# the shifts bfs.partition.floor_shift finds.


@compiled(nogil=True)
def bottom_up_segments(indptr, indices, probers, heavy, in_frontier, n, N, T, owner_shift, slice_shift):
    """Split every prober's adjacency list into segments, the runs of
    consecutive entries in one thread slice, and find in each where the
    sweep stops.

    Returns, per segment in CSR order: its first slot, its stop (one past
    its first local hit, else its end), its vertex and thread, whether it
    has a local hit, whether a remote hit comes before the stop, the slot
    of that first remote hit (0 where none), and how many remote entries
    and remote hits come before the stop (the probes and answers the
    segment sends if it is probed). A hit is a neighbour in the frontier;
    an entry is remote when the neighbour's owner is another node and the
    neighbour is not heavy (heavy vertices are replicated). The shifts are
    bfs.partition.floor_shift's for N and T over n."""
    count = 0
    for i in range(len(probers)):
        v = probers[i]
        previous = -1
        for slot in range(indptr[v], indptr[v + 1]):
            thread = _scaled(indices[slot], T, n, slice_shift)
            if thread != previous:
                count += 1
                previous = thread
    start = np.empty(count, dtype=np.int64)
    stop = np.empty(count, dtype=np.int64)
    vertex = np.empty(count, dtype=np.int64)
    seg_thread = np.empty(count, dtype=np.int32)  # below T
    has_local = np.zeros(count, dtype=np.bool_)
    has_remote = np.zeros(count, dtype=np.bool_)
    first_remote = np.zeros(count, dtype=np.int64)
    remote_entries = np.zeros(count, dtype=np.int32)  # below a vertex's degree
    remote_hits = np.zeros(count, dtype=np.int32)
    s = -1
    for i in range(len(probers)):
        v = probers[i]
        node = _scaled(v, N, n, owner_shift)
        previous = -1
        for slot in range(indptr[v], indptr[v + 1]):
            u = indices[slot]
            thread = _scaled(u, T, n, slice_shift)
            if thread != previous:
                if previous >= 0 and not has_local[s]:
                    stop[s] = slot  # the vertex's previous segment ends here
                s += 1
                previous = thread
                start[s] = slot
                vertex[s] = v
                seg_thread[s] = thread
            if has_local[s]:
                continue  # past the stop
            if _scaled(u, N, n, owner_shift) != node and not heavy[u]:
                remote_entries[s] += 1
                if in_frontier[u]:
                    remote_hits[s] += 1
                    if not has_remote[s]:
                        has_remote[s] = True
                        first_remote[s] = slot
            elif in_frontier[u]:
                has_local[s] = True
                stop[s] = slot + 1
        if previous >= 0 and not has_local[s]:
            stop[s] = indptr[v + 1]
    return start, stop, vertex, seg_thread, has_local, has_remote, first_remote, remote_entries, remote_hits


@compiled(nogil=True)
def bottom_up_walk(indptr, indices, heavy, in_frontier, n, N, T, start, stop, vertex, seg_thread,
                   remote_entries, remote_hits, seg_pos, sweep_time, has_local, has_remote, remote_delay,
                   owner_shift):
    """Evaluate one claim timing: which segments are probed, and what the
    probed ones read (their first slot to their stop).

    A segment's thread reaches it at ``seg_time``: its position in [0, 1)
    of the thread's sweep (``seg_pos``) times the sweep's length on the
    prober's node (``sweep_time``, per node). Its claim time is its
    ``seg_time`` if it has a local hit, and
    at most ``seg_time`` plus its first remote hit's ``remote_delay`` (one
    value per segment with ``has_remote``, in order) if it has a remote
    one. Which segments are probed: ``probed_segments``.

    ``remote_entries`` and ``remote_hits`` are bottom_up_segments' counts.
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
    its segment's ``seg_time``, a remote one at the segment's claim time."""
    segments = len(start)
    slice_mask = T - 1 if T & (T - 1) == 0 else -1
    seg_time = np.empty(segments, dtype=np.float64)
    claim_time = np.empty(segments, dtype=np.float64)
    r = 0
    for s in range(segments):
        seg_time[s] = seg_pos[s] * sweep_time[_scaled(vertex[s], N, n, owner_shift)]
        t = np.inf
        if has_local[s]:
            t = seg_time[s]
        if has_remote[s]:
            t = min(t, seg_time[s] + remote_delay[r])
            r += 1
        claim_time[s] = t
    probed = probed_segments(vertex, seg_time, claim_time)
    probes = 0
    answers = 0
    for s in range(segments):
        if probed[s]:
            probes += remote_entries[s]
            answers += remote_hits[s]
    counts = np.zeros((6, N * T), dtype=np.int64)
    probe_stream = np.empty((4, probes), dtype=np.int64)
    answer_stream = np.empty((4, answers), dtype=np.int64)
    claimed = np.empty(segments, dtype=np.int64)
    parent = np.empty(segments, dtype=np.int64)
    claims = 0
    p = 0
    a = 0
    current = -1
    found = False
    best_time = 0.0
    best_parent = 0
    for s in range(segments):
        v = vertex[s]
        if v != current:
            if found:
                claimed[claims] = current
                parent[claims] = best_parent
                claims += 1
            current = v
            found = False
        if not probed[s]:
            continue
        node = _scaled(v, N, n, owner_shift)
        thread = seg_thread[s]
        sweep_cell = node * T + thread
        node_thread = _mod(node, T, slice_mask)
        counts[0, sweep_cell] += stop[s] - start[s]
        for slot in range(start[s], stop[s]):
            u = indices[slot]
            owner = _scaled(u, N, n, owner_shift)
            hit = in_frontier[u]
            if owner != node and not heavy[u]:
                counts[2, sweep_cell] += 1
                counts[3, owner * T + node_thread] += 1
                probe_stream[0, p] = node
                probe_stream[1, p] = thread
                probe_stream[2, p] = owner
                probe_stream[3, p] = v
                p += 1
                if not hit:
                    continue
                counts[4, owner * T + node_thread] += 1
                counts[5, node * T + _mod(owner, T, slice_mask)] += 1
                answer_stream[0, a] = owner
                answer_stream[1, a] = node_thread
                answer_stream[2, a] = node
                answer_stream[3, a] = v
                a += 1
                time = claim_time[s]
            else:
                counts[1, sweep_cell] += 1
                if not hit:
                    continue
                time = seg_time[s]
            if not found or time < best_time:
                found = True
                best_time = time
                best_parent = u
    if found:
        claimed[claims] = current
        parent[claims] = best_parent
        claims += 1
    return counts, probe_stream, answer_stream, claimed[:claims].copy(), parent[:claims].copy()


@compiled(nogil=True)
def probed_segments(vertex, seg_time, claim_time):
    """Which segments are read. A thread reads its slice of v unless v's
    claim was visible before it arrived: in time order, slice k is read iff
    its ``seg_time`` is before the earliest ``claim_time`` among the slices
    read before it. Since a slice's claim time is never before its own
    read time, that is the same as seg_time <= the earliest claim time over
    all of v's slices (an unread slice's claim time is after a claim
    already visible, so it cannot be the minimum), which needs no sort:
    one minimum per vertex. A vertex's segments are consecutive."""
    segments = len(vertex)
    probed = np.zeros(segments, dtype=np.bool_)
    first = 0
    while first < segments:
        last = first
        earliest = np.inf
        while last < segments and vertex[last] == vertex[first]:
            earliest = min(earliest, claim_time[last])
            last += 1
        for s in range(first, last):
            probed[s] = seg_time[s] <= earliest
        first = last
    return probed


@compiled(inline="always")
def _scaled(value, numerator, denominator, shift):
    """bfs.partition.scaled_floor of one value: value * numerator //
    denominator, by ``shift`` (bfs.partition.floor_shift) where it is one."""
    if shift >= 0:
        return value >> shift
    return value * numerator // denominator


@compiled(inline="always")
def _mod(value, modulus, mask):
    """value % modulus of a non-negative value; a mask when the modulus is a power of two."""
    if mask >= 0:
        return value & mask
    return value % modulus


@compiled(nogil=True)
def stream_bytes(sender, thread, receiver, vertex, N, T, by_receiver, compression, short_bytes, long_bytes,
                 delta_max, room, header_bytes, per_packet_plain, entry_bytes):
    """Bytes and packets of every (sender, thread, receiver) stream of one
    channel, summed per (sender, receiver) pair (work.encode states the
    formats). The entries must come grouped: by sender (``by_receiver``
    False) or by receiver (True), and in each stream with non-decreasing
    sweep vertices (a stream is encoded in its sweep order). Returns
    ``ok`` False, and nothing else of use, if they do not.

    Returns (ok, payload, packets, edges per pair (N * N), the channel's
    packets)."""
    payload = np.zeros(N * N)
    packets = np.zeros(N * N)
    edges = np.zeros(N * N)
    streams = N * T
    size = np.zeros(streams)  # the open group's streams: bytes (or entries)
    last = np.full(streams, -1, dtype=np.int64)  # and their last vertex
    touched = np.empty(streams, dtype=np.int64)
    opened = 0
    total_packets = 0.0
    group = -1
    for i in range(len(sender) + 1):
        if i < len(sender):
            g = receiver[i] if by_receiver else sender[i]
            if g < group:
                return False, payload, packets, edges, 0.0
        if i == len(sender) or g != group:
            # Close the previous group's streams, in ascending key: a pair's
            # streams then add up in the order of their stream ids.
            for key in np.sort(touched[:opened]):
                if by_receiver:
                    pair = (key // T) * N + group
                else:
                    pair = group * N + key % N
                if compression:
                    stream_packets = np.ceil(size[key] / room)
                    stream_payload = size[key] + stream_packets * header_bytes
                else:
                    stream_packets = np.ceil(size[key] / per_packet_plain)
                    stream_payload = size[key] * entry_bytes
                payload[pair] += stream_payload
                packets[pair] += stream_packets
                total_packets += stream_packets
                size[key] = 0.0
                last[key] = -1
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
                return False, payload, packets, edges, 0.0
            if compression:
                size[key] += short_bytes if v - last[key] <= delta_max else long_bytes
            else:
                size[key] += 1.0
        last[key] = v
        edges[sender[i] * N + receiver[i]] += 1.0
    return True, payload, packets, edges, total_packets
