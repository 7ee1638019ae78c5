"""Network cost: point-to-point messages and bulk exchanges.

Two granularities, one set of parameters (docs/background/simulation.md):

* :meth:`Network.send` simulates one message. Every port and link keeps the
  time at which it is next free; a message reserves the injection port, each
  link of its route and the ejection port in turn, its head advancing one
  ``hop_latency`` per hop (virtual cut-through), and arrives when its tail
  has left the slowest resource. Reservations never block one another in
  simulated time, so there is no deadlock, and the cost is O(hops) per
  message with a single simpy event.

* :meth:`Network.exchange_cost` prices a whole all-to-all at once from its
  N x N traffic matrix (a flow-level model): the exchange lasts as long as
  its most loaded resource (a node's injection or ejection port, or a
  torus link) needs to carry its bytes, plus the latency of the longest
  route, plus the busiest node's software overhead as its messaging layer
  counts it (engine/messaging.py). The formula is
  :func:`simbfs.engine.costs.exchange_cost`, which projections call too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from ..machine.model import MessagingModel, NetworkModel
from .costs import (NO_EXCHANGE, ExchangeCost, exact_in_any_order, exchange_cost, link_seconds, port_seconds,
                    route_latency)
from .messaging import DirectPackets, MessagingLayer
from .topology import Topology


@dataclass(frozen=True)
class TrafficLoads:
    """What one traffic matrix asks of each node's ports and of the links."""

    inject_s: np.ndarray  # per node: its outgoing wire bytes at the injection bandwidth
    eject_s: np.ndarray  # per node: its incoming wire bytes at the injection bandwidth
    link_s: float  # the busiest link's bytes at the link bandwidth
    latency_s: float  # hops of the longest route in use x hop latency
    packets_out: np.ndarray
    packets_in: np.ndarray
    messages_out: np.ndarray  # per node: destinations it sends to (one message each in an all-to-all)
    messages_in: np.ndarray
    payload_bytes: float
    wire_bytes: float


def _remembered_key(payload_bytes, packets):
    """(ids) of a traffic matrix and its packets (or None) that are both
    read-only numpy arrays; else None."""
    frozen = [isinstance(m, np.ndarray) and not m.flags.writeable for m in (payload_bytes, packets) if m is not None]
    if all(frozen):
        return id(payload_bytes), None if packets is None else id(packets)
    return None


class Network:
    def __init__(self, env: simpy.Environment, topology: Topology, network: NetworkModel,
                 messaging: MessagingModel):
        self.env = env
        self.topology = topology
        self.model = network
        self.messaging = messaging
        self.packets_layer = DirectPackets(messaging)  # the default: software handles every packet
        self.per_host = network.processes_per_host
        n = topology.nodes  # hosts
        # when each port and link is next free (lists: read and written one
        # message at a time, where numpy's scalars cost more)
        self._inject_free = [0.0] * n
        self._eject_free = [0.0] * n
        self._link_free = [0.0] * topology.num_links
        self._remembered: dict = {}  # traffic_loads of read-only matrices (_remembered_key)

    # ------------------------------------------------------------ one message
    def send(self, src: int, dst: int, payload_bytes: float) -> simpy.Event:
        """Event that fires when a message of ``payload_bytes`` has arrived at
        ``dst`` (its receive overhead included)."""
        return self.env.timeout(self.arrival_time(src, dst, payload_bytes) - self.env.now)

    def arrival_time(self, src: int, dst: int, payload_bytes: float) -> float:
        """When a message of ``payload_bytes`` from ``src`` sent now has
        arrived at ``dst``, its receive overhead included; its ports and
        links are reserved."""
        return float(self.arrival_times(src, [dst], [payload_bytes])[0])

    def arrival_times(self, src: int, destinations, payload_bytes) -> np.ndarray:
        """:meth:`arrival_time` of messages from ``src`` sent now, one after
        another in the given order (each reserves its ports and links before
        the next): the per-message prices are computed for all of them at
        once, the reservations in order."""
        model = self.model
        destinations = np.asarray(destinations, dtype=np.int64)
        payload = np.asarray(payload_bytes, dtype=np.float64)
        wire = model.wire_bytes(payload)
        # Software overheads are per packet, as in exchange_cost.
        packets = np.maximum(1.0, model.packets(payload))
        layer = self.packets_layer
        ready = (self.env.now + layer.send_s(packets)).tolist()
        received = layer.receive_s(packets).tolist()
        port_time = port_seconds(wire, model).tolist()
        link_time = link_seconds(wire, model).tolist()
        src = src // self.per_host  # ports and routes belong to hosts
        hosts = (destinations // self.per_host).tolist()
        hops = np.atleast_1d(self.topology.hops(src, np.asarray(hosts, dtype=np.int64)))
        routes = [self.topology.route(src, dst) if dst != src else [] for dst in hosts]
        # Hops without a contended link of their own (a crossbar's switch).
        unrouted = route_latency(hops - np.array([len(route) for route in routes], dtype=np.int64), model).tolist()
        hop_s = model.hop_latency_s
        inject_free, eject_free, link_free = self._inject_free, self._eject_free, self._link_free
        arrivals = []
        for i, dst in enumerate(hosts):
            if src == dst:
                arrivals.append(ready[i] + received[i])
                continue
            head = max(ready[i], inject_free[src])
            inject_free[src] = head + port_time[i]
            tail = head + port_time[i]
            for link in routes[i]:
                head = max(head + hop_s, link_free[link])
                link_free[link] = head + link_time[i]
                tail = max(tail + hop_s, head + link_time[i])
            head += unrouted[i]
            tail += unrouted[i]
            head = max(head, eject_free[dst])
            eject_free[dst] = head + port_time[i]
            tail = max(tail, head + port_time[i])
            arrivals.append(tail + received[i])
        return np.array(arrivals, dtype=np.float64)

    # -------------------------------------------------------- bulk exchange
    def traffic_loads(self, payload_bytes: np.ndarray, packets: np.ndarray | None = None) -> "TrafficLoads":
        """Per-node and per-link loads of node i sending ``payload_bytes[i, j]``
        to node j in ``packets[i, j]`` packets (default: as few as fit). The
        diagonal (a node's messages to itself) never enters the network.
        With several processes per host, the matrices are per process and
        the result too, each process reporting its host's port times.

        The loads of read-only matrices are remembered, so that a code which
        exchanges the same matrix many times (cp1d-mpi's counts) prices it
        once: found by identity, and used only if the matrices still hold
        what they held (a writeable view, or a flag set back, could change
        them); the remembered loads are read-only too."""
        key = _remembered_key(payload_bytes, packets)
        kept = self._remembered.get(key)
        if kept is not None and all(m is None and c is None or np.array_equal(m, c)
                                    for m, c in zip((payload_bytes, packets), kept[2:4])):
            return kept[4]
        if self.per_host > 1:
            loads = self._host_traffic_loads(payload_bytes, packets)
        else:
            loads = self._traffic_loads(payload_bytes, packets)
        if key is not None:
            for part in vars(loads).values():
                if isinstance(part, np.ndarray):
                    part.setflags(write=False)
            if key not in self._remembered and len(self._remembered) >= 4:
                del self._remembered[next(iter(self._remembered))]
            # the matrices are held, so that their ids stay theirs, and copied, to see a change
            self._remembered[key] = (payload_bytes, packets, payload_bytes.copy(),
                                     None if packets is None else packets.copy(), loads)
        return loads

    def _traffic_loads(self, payload_bytes: np.ndarray, packets: np.ndarray | None) -> "TrafficLoads":
        """traffic_loads with one process per host."""
        n = self.topology.nodes
        payload = np.asarray(payload_bytes, dtype=np.float64).reshape(-1)
        if 4 * np.count_nonzero(payload) >= n * n:  # most pairs talk: whole rows and columns
            loads = self.dense_traffic_loads(payload.reshape(n, n), packets)
            if loads is not None:
                return loads
        return self.pair_traffic_loads(payload, packets)

    def pair_traffic_loads(self, payload: np.ndarray, packets: np.ndarray | None) -> "TrafficLoads":
        """traffic_loads (one process per host) of the flat N x N ``payload``,
        pair by pair: one of the two ways traffic_loads prices a matrix."""
        model = self.model
        n = self.topology.nodes
        # Work on the pairs that talk: small levels touch few of the N^2.
        pairs = np.flatnonzero(payload)
        senders, receivers = np.divmod(pairs, n)
        away = senders != receivers  # a node's messages to itself stay home
        pairs, senders, receivers = pairs[away], senders[away], receivers[away]
        if len(pairs) == 0:
            zero = np.zeros(n)
            return TrafficLoads(zero, zero, 0.0, 0.0, zero, zero, zero, zero, 0.0, 0.0)
        sizes = payload[pairs]
        if packets is None:
            counts = model.packets(sizes)
        else:
            counts = np.asarray(packets, dtype=np.float64).reshape(-1)[pairs]
        wire = model.wire_bytes(sizes, counts)
        link = 0.0
        if self.topology.num_links:
            dense = np.zeros(n * n)
            dense[pairs] = wire
            link = link_seconds(self.topology.link_loads(dense.reshape(n, n)).max(), model)
        return TrafficLoads(
            inject_s=port_seconds(np.bincount(senders, weights=wire, minlength=n), model),
            eject_s=port_seconds(np.bincount(receivers, weights=wire, minlength=n), model),
            link_s=float(link),
            latency_s=route_latency(int(self.topology.hop_matrix.reshape(-1)[pairs].max()), model),
            packets_out=np.bincount(senders, weights=counts, minlength=n),
            packets_in=np.bincount(receivers, weights=counts, minlength=n),
            messages_out=np.bincount(senders, minlength=n).astype(np.float64),
            messages_in=np.bincount(receivers, minlength=n).astype(np.float64),
            payload_bytes=float(sizes.sum()),
            wire_bytes=float(wire.sum()),
        )

    def dense_traffic_loads(self, payload: np.ndarray, packets: np.ndarray | None) -> "TrafficLoads | None":
        """traffic_loads (one process per host) of an N x N matrix in which
        most pairs talk, by whole-matrix sums over rows and columns instead
        of gathering the pairs (five times faster at 1,024 nodes). Those sums are numpy's
        order, not the pairs' order, so this is used only when every sum is
        exact in any order (whole numbers of bytes and packets), and gives
        the same loads; else (or if only the diagonal talks) None. The
        prices of a pair (packets, wire bytes) are its own, and zero where
        it sends nothing."""
        model, n = self.model, self.topology.nodes
        sizes = payload.copy()
        np.fill_diagonal(sizes, 0.0)  # a node's messages to itself stay home
        talking = sizes != 0
        if not talking.any():
            return None
        if packets is None:
            counts = model.packets(sizes)
        else:
            counts = np.where(talking, np.asarray(packets, dtype=np.float64).reshape(n, n), 0.0)
        wire = model.wire_bytes(sizes, counts)
        if not exact_in_any_order(sizes, counts, wire):
            return None
        link = 0.0
        if self.topology.num_links:
            link = link_seconds(self.topology.link_loads(wire).max(), model)
        return TrafficLoads(
            inject_s=port_seconds(wire.sum(axis=1), model),
            eject_s=port_seconds(wire.sum(axis=0), model),
            link_s=float(link),
            latency_s=route_latency(int(self.topology.hop_matrix[talking].max()), model),
            packets_out=counts.sum(axis=1),
            packets_in=counts.sum(axis=0),
            messages_out=np.count_nonzero(talking, axis=1).astype(np.float64),
            messages_in=np.count_nonzero(talking, axis=0).astype(np.float64),
            payload_bytes=float(sizes.sum()),
            wire_bytes=float(wire.sum()),
        )

    def _host_traffic_loads(self, payload_bytes: np.ndarray, packets: np.ndarray | None) -> "TrafficLoads":
        """traffic_loads of per-process matrices on hosts of k processes:
        the host matrix (pairs within a host dropped) goes through the
        topology, and each process gets its host's port times; packets and
        messages stay per process (software overheads are a process's)."""
        k = self.per_host
        payload = np.asarray(payload_bytes, dtype=np.float64)
        n = payload.shape[0]
        hosts = -(-n // k)
        host = np.arange(n) // k
        # The prices of a pair of processes (packets, wire bytes, hops) are
        # its own and zero without payload and packets, so they are worked
        # out on the pairs between hosts that have some (a level's fold
        # touches few of the N^2); pairs inside a host stay off the network.
        flat = payload.reshape(-1)
        given = None if packets is None else np.asarray(packets, dtype=np.float64).reshape(-1)
        pairs = np.flatnonzero(flat if given is None else (flat != 0) | (given != 0))
        pairs = pairs[host[pairs // n] != host[pairs % n]]
        senders, receivers = pairs // n, pairs % n
        sizes = flat[pairs]
        counts = self.model.packets(sizes) if given is None else given[pairs]
        wire = self.model.wire_bytes(sizes, counts)
        if exact_in_any_order(sizes, counts, wire):
            # whole numbers: every sum is exact, whatever its order
            def total(index, values, length):  # (float also without values)
                return np.bincount(index, weights=values, minlength=length).astype(np.float64, copy=False)

            host_wire = total(host[senders] * hosts + host[receivers], wire, hosts * hosts).reshape(hosts, hosts)
            packets_out, packets_in = total(senders, counts, n), total(receivers, counts, n)
            payload_total, wire_total = float(sizes.sum()), float(wire.sum())
        else:  # numpy's sums of the N x N matrices, in numpy's order
            def matrix(values):
                dense = np.zeros(n * n)
                dense[pairs] = values
                return dense.reshape(n, n)

            pad = hosts * k - n
            wire_matrix, packets_matrix = matrix(wire), matrix(counts)
            padded = np.pad(wire_matrix, ((0, pad), (0, pad))) if pad else wire_matrix
            host_wire = padded.reshape(hosts, k, hosts, k).sum(axis=(1, 3))
            packets_out, packets_in = packets_matrix.sum(axis=1), packets_matrix.sum(axis=0)
            payload_total, wire_total = float(matrix(sizes).sum()), float(wire_matrix.sum())
        link = 0.0
        if self.topology.num_links:
            link = link_seconds(self.topology.link_loads(host_wire).max(), self.model)
        talking = sizes > 0
        hops = self.topology.hop_matrix[host[senders[talking]], host[receivers[talking]]]
        return TrafficLoads(
            inject_s=port_seconds(host_wire.sum(axis=1), self.model)[host],
            eject_s=port_seconds(host_wire.sum(axis=0), self.model)[host],
            link_s=float(link),
            latency_s=route_latency(int(hops.max()) if len(hops) else 0, self.model),
            packets_out=packets_out, packets_in=packets_in,
            messages_out=np.bincount(senders[talking], minlength=n).astype(np.float64),
            messages_in=np.bincount(receivers[talking], minlength=n).astype(np.float64),
            payload_bytes=payload_total, wire_bytes=wire_total,
        )

    def exchange_cost(self, payload_bytes: np.ndarray, packets: np.ndarray | None = None,
                      messaging: MessagingLayer | None = None) -> ExchangeCost:
        """Cost of an all-to-all in which node i sends ``payload_bytes[i, j]``
        to node j in ``packets[i, j]`` packets (default: as few as fit),
        its software overhead counted by ``messaging`` (default: every
        packet posted and received by software, engine/messaging.py)."""
        loads = self.traffic_loads(payload_bytes, packets)
        if loads.wire_bytes == 0:
            return NO_EXCHANGE
        layer = messaging if messaging is not None else self.packets_layer
        per_node = layer.overhead_s(loads.packets_out, loads.packets_in, loads.messages_out, loads.messages_in)
        return exchange_cost(
            inject_s=float(loads.inject_s.max()), eject_s=float(loads.eject_s.max()), link_s=loads.link_s,
            latency_s=loads.latency_s, overhead_s=float(per_node.max()),
            packets=int(loads.packets_out.sum()), payload_bytes=loads.payload_bytes, wire_bytes=loads.wire_bytes)
