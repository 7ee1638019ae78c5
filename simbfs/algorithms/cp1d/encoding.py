"""The messages of Checconi & Petrini's 1D BFS: how many bytes and packets a
level's streams of edges take on the wire.

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
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ...bfs.parallel import in_parallel
from ...engine.traffic import PairTraffic
from .layout import Layout
from .machine_section import CP1DModel
from .work import Streams


@dataclass
class Traffic:
    """A level's messages, pair by pair: only the (sender, receiver) pairs
    that talk (``pairs``: their payload bytes and packets, ascending
    sender * N + receiver), with each pair's edges, aligned to them."""

    pairs: PairTraffic
    edges: np.ndarray  # per pair: edges sent
    backward_packets: int
    stream_edges: list | None = None  # per stream given, each pair's edges sent (encode(per_stream=True))

    @property
    def payload_bytes(self) -> float:
        return float(self.pairs.payload.sum())

    @property
    def packet_count(self) -> float:
        return float(self.pairs.packets.sum())

    def on(self, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``values`` (one per pair of this traffic) on the pairs ``keys``
        (sorted, a superset of this traffic's pairs), zero elsewhere."""
        at = np.searchsorted(keys, self.pairs.keys)
        if len(at) and (at[-1] >= len(keys) or not np.array_equal(keys[at], self.pairs.keys)):
            raise ValueError("the traffic has pairs that the given keys lack")
        out = np.zeros(len(keys))
        out[at] = values
        return out


def plain_edges_per_packet(payload_bytes: float, cp: CP1DModel) -> float:
    """Whole uncompressed edges one packet of ``payload_bytes`` holds."""
    return float(np.floor(payload_bytes / cp.uncompressed_entry_bytes))


def encode(layout: Layout, streams: list, cp: CP1DModel, payload_bytes: float, compression: bool,
           per_stream: bool = False) -> Traffic:
    """Bytes and packets of every (sender, thread, receiver) stream, added
    up per pair that talks (and, with ``per_stream``, each stream's edges
    on those pairs).

    A stream is sent in its sweep order. Compressed, its first edge and
    every edge whose vertex is at most ``delta_max`` after the previous
    one take the short format, the rest the long one, and each packet
    carries ``room`` bytes of them behind its header; uncompressed, a
    packet carries as many whole 6 B edges as fit (kernels.stream_bytes)."""
    from . import kernels
    N, T = layout.N, layout.T
    backward = 0
    per_packet_plain = plain_edges_per_packet(payload_bytes, cp)
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

    # the channels on threads (kernels.stream_bytes releases the GIL), then
    # each pair's channels added up in the streams' order
    sent = [s for s in streams if len(s.sender)]
    channels = in_parallel([partial(encoded, s) for s in sent])
    for s, channel in zip(sent, channels):
        if s.channel == "backward":
            backward += int(channel[5])
    keys, pair_of = np.unique(np.concatenate([c[1] for c in channels] or [np.zeros(0, dtype=np.int64)]),
                              return_inverse=True)
    payload, packets, edges = (np.bincount(pair_of, weights=np.concatenate([c[f] for c in channels] or [np.zeros(0)]),
                                           minlength=len(keys)) for f in (2, 3, 4))
    stream_edges = None
    if per_stream:
        first = np.cumsum([0] + [len(c[1]) for c in channels])
        by_stream = {id(s): np.bincount(pair_of[first[k]:first[k + 1]], weights=channels[k][4], minlength=len(keys))
                     for k, s in enumerate(sent)}
        stream_edges = [by_stream.get(id(s), np.zeros(len(keys))) for s in streams]
    return Traffic(PairTraffic.from_keys(N, keys, payload, packets), edges, backward, stream_edges)
