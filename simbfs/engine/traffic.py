"""An exchange's traffic, pair by pair: only the pairs that talk.

A level of a BFS on N nodes sends data between at most as many pairs as it
sends edges, and on a large machine far fewer than N x N: at 65,536 nodes a
dense matrix of one float per pair takes 32 GiB, while a scale-22 level's
pairs fit in a few hundred MB. So the engine prices exchanges from
:class:`PairTraffic`, whose memory follows the traffic: the (sender,
receiver) pairs with something to send, sender-major (the order in which
a dense matrix's rows list them, so that sums over pairs run in the same
order as they would over the matrix), each with its payload bytes and,
optionally, its packets.

Small callers and tests may still hand the network a dense N x N matrix:
:meth:`PairTraffic.of` turns it into pairs. An exchange in which every
node sends the same bytes to every other (cp1d-mpi's counts) is an
:class:`AllToAll`, which the network prices from the topology's closed
forms: its N (N - 1) pairs are never listed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PairTraffic:
    """Node ``senders[i]`` sends ``payload[i]`` bytes to ``receivers[i]``
    in ``packets[i]`` packets (None: as few as fit, the network's
    packetisation). Pairs are distinct and in ascending (sender,
    receiver) order; a pair may carry packets and no payload (a header-only
    message) and may be a node's message to itself, which the network
    keeps off the wire."""

    nodes: int
    senders: np.ndarray  # int64
    receivers: np.ndarray  # int64
    payload: np.ndarray  # float64 bytes
    packets: np.ndarray | None = None  # float64

    @classmethod
    def from_keys(cls, nodes: int, keys: np.ndarray, payload: np.ndarray,
                  packets: np.ndarray | None = None) -> "PairTraffic":
        """Pairs given as ascending distinct keys ``sender * nodes + receiver``."""
        senders, receivers = np.divmod(np.asarray(keys, dtype=np.int64), nodes)
        return cls(nodes, senders, receivers, np.asarray(payload, dtype=np.float64),
                   None if packets is None else np.asarray(packets, dtype=np.float64))

    @classmethod
    def from_matrix(cls, payload: np.ndarray, packets: np.ndarray | None = None) -> "PairTraffic":
        """The pairs of a dense N x N payload matrix (and packets matrix)
        that carry payload or packets."""
        payload = np.asarray(payload, dtype=np.float64)
        n = payload.shape[0]
        flat = payload.reshape(-1)
        if packets is None:
            keys = np.flatnonzero(flat)
            return cls.from_keys(n, keys, flat[keys])
        counted = np.asarray(packets, dtype=np.float64).reshape(-1)
        keys = np.flatnonzero((flat != 0) | (counted != 0))
        return cls.from_keys(n, keys, flat[keys], counted[keys])

    @classmethod
    def of(cls, traffic, packets=None) -> "PairTraffic":
        """``traffic`` itself, or the pairs of a dense matrix (with ``packets``)."""
        if isinstance(traffic, PairTraffic):
            if packets is not None:
                raise TypeError("PairTraffic carries its own packets")
            return traffic
        return cls.from_matrix(traffic, packets)

    @property
    def keys(self) -> np.ndarray:
        """``sender * nodes + receiver`` of every pair (ascending)."""
        return self.senders * self.nodes + self.receivers

    def sent_by(self) -> np.ndarray:
        """Payload bytes each node sends (its messages to itself included)."""
        return np.bincount(self.senders, weights=self.payload, minlength=self.nodes)


@dataclass(frozen=True)
class AllToAll:
    """Every node sends ``pair_bytes`` to every other node, each in as few
    packets as fit. Its loads are closed forms (Network.traffic_loads); the
    same exchange as the PairTraffic of all N (N - 1) pairs, which
    :meth:`pairs` lists for the cases that need them."""

    nodes: int
    pair_bytes: float

    def sent_by(self) -> np.ndarray:
        """Payload bytes each node sends."""
        return np.full(self.nodes, (self.nodes - 1) * float(self.pair_bytes))

    def pairs(self) -> PairTraffic:
        keys = np.arange(self.nodes * self.nodes, dtype=np.int64)
        keys = keys[keys % (self.nodes + 1) != 0]  # all but a node's own
        return PairTraffic.from_keys(self.nodes, keys, np.full(len(keys), float(self.pair_bytes)))
