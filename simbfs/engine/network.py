"""Network cost: point-to-point messages and bulk exchanges.

Two granularities, one set of parameters (docs/background/simulation.md):

* :meth:`Network.send` simulates one message. Every port and link keeps the
  time at which it is next free; a message reserves the injection port, each
  link of its route and the ejection port in turn, its head advancing one
  ``hop_latency`` per hop (virtual cut-through), and arrives when its tail
  has left the slowest resource. Reservations never block one another in
  simulated time, so there is no deadlock, and the cost is O(hops) per
  message with a single simpy event.

* :meth:`Network.exchange_cost` prices a whole all-to-all at once from the
  pairs that talk in it (engine/traffic.py; a flow-level model): the exchange lasts as long as
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
from .costs import NO_EXCHANGE, ExchangeCost, exchange_cost, link_seconds, port_seconds, route_latency
from .messaging import DirectPackets, MessagingLayer
from .topology import Topology
from .traffic import AllToAll, PairTraffic


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
    def traffic_loads(self, traffic, packets: np.ndarray | None = None) -> "TrafficLoads":
        """Per-node and per-link loads of an exchange: ``traffic`` is a
        :class:`~simbfs.engine.traffic.PairTraffic` (the pairs that talk),
        an :class:`~simbfs.engine.traffic.AllToAll`, or a dense N x N matrix of payload bytes with ``packets`` (default:
        as few as fit) for small callers. A node's messages to itself never
        enter the network. With several processes per host, the pairs are
        processes' and the result too, each process reporting its host's
        port times."""
        if isinstance(traffic, AllToAll):
            if self.per_host == 1 and packets is None:
                return self._all_to_all_loads(traffic)
            traffic = traffic.pairs()
        traffic = PairTraffic.of(traffic, packets)
        if self.per_host > 1:
            return self._host_traffic_loads(traffic)
        return self._pair_traffic_loads(traffic)

    def _all_to_all_loads(self, traffic: AllToAll) -> "TrafficLoads":
        """traffic_loads of an AllToAll with one process per host: every
        node's port carries N - 1 messages, the busiest link the topology's
        uniform closed form, the longest route its diameter; the same sums
        as the N (N - 1) pairs give, without listing them."""
        model, n = self.model, traffic.nodes
        if n < 2 or traffic.pair_bytes == 0:
            zero = np.zeros(n)
            return TrafficLoads(zero, zero, 0.0, 0.0, zero, zero, zero, zero, 0.0, 0.0)
        peers = n - 1
        counts = float(model.packets(np.float64(traffic.pair_bytes)))
        wire = float(model.wire_bytes(np.float64(traffic.pair_bytes), counts))
        port = np.full(n, port_seconds(peers * wire, model))
        link = link_seconds(self.topology.uniform_max_link_load(wire), model) if self.topology.num_links else 0.0
        diameter = int(np.flatnonzero(self.topology.hop_distribution())[-1])
        return TrafficLoads(
            inject_s=port, eject_s=port.copy(), link_s=float(link), latency_s=route_latency(diameter, model),
            packets_out=np.full(n, peers * counts), packets_in=np.full(n, peers * counts),
            messages_out=np.full(n, float(peers)), messages_in=np.full(n, float(peers)),
            payload_bytes=float(n * peers * traffic.pair_bytes), wire_bytes=float(n * peers * wire))

    def _pair_traffic_loads(self, traffic: PairTraffic) -> "TrafficLoads":
        """traffic_loads with one process per host: pair by pair, on the
        pairs that send payload to another node."""
        model = self.model
        n = self.topology.nodes
        talking = (traffic.payload != 0) & (traffic.senders != traffic.receivers)
        senders, receivers, sizes = traffic.senders[talking], traffic.receivers[talking], traffic.payload[talking]
        if len(sizes) == 0:
            zero = np.zeros(n)
            return TrafficLoads(zero, zero, 0.0, 0.0, zero, zero, zero, zero, 0.0, 0.0)
        counts = model.packets(sizes) if traffic.packets is None else traffic.packets[talking]
        wire = model.wire_bytes(sizes, counts)
        link = 0.0
        if self.topology.num_links:
            link = link_seconds(self.topology.pair_link_loads(senders, receivers, wire).max(), model)
        return TrafficLoads(
            inject_s=port_seconds(np.bincount(senders, weights=wire, minlength=n), model),
            eject_s=port_seconds(np.bincount(receivers, weights=wire, minlength=n), model),
            link_s=float(link),
            latency_s=route_latency(int(np.max(self.topology.hops(senders, receivers))), model),
            packets_out=np.bincount(senders, weights=counts, minlength=n),
            packets_in=np.bincount(receivers, weights=counts, minlength=n),
            messages_out=np.bincount(senders, minlength=n).astype(np.float64),
            messages_in=np.bincount(receivers, minlength=n).astype(np.float64),
            payload_bytes=float(sizes.sum()),
            wire_bytes=float(wire.sum()),
        )

    def _host_traffic_loads(self, traffic: PairTraffic) -> "TrafficLoads":
        """traffic_loads of processes' pairs on hosts of k processes: the
        pairs between hosts, added up per pair of hosts, go through the
        topology, and each process gets its host's port times; packets and
        messages stay per process (software overheads are a process's).
        Pairs inside a host stay off the network."""
        k, model = self.per_host, self.model
        n = traffic.nodes
        hosts = -(-n // k)
        sender_host, receiver_host = traffic.senders // k, traffic.receivers // k
        given = traffic.packets
        sending = traffic.payload != 0 if given is None else (traffic.payload != 0) | (given != 0)
        between = sending & (sender_host != receiver_host)
        senders, receivers = traffic.senders[between], traffic.receivers[between]
        sizes = traffic.payload[between]
        counts = model.packets(sizes) if given is None else given[between]
        wire = model.wire_bytes(sizes, counts)
        # the hosts' pairs (sorted: the processes' pairs are sender-major, and so their hosts')
        host_keys, which = np.unique(sender_host[between] * hosts + receiver_host[between], return_inverse=True)
        host_wire = np.bincount(which, weights=wire, minlength=len(host_keys))
        host_senders, host_receivers = np.divmod(host_keys, hosts)
        link = 0.0
        if self.topology.num_links and len(host_keys):
            link = link_seconds(self.topology.pair_link_loads(host_senders, host_receivers, host_wire).max(), model)
        talking = sizes > 0
        hops = self.topology.hops(senders[talking] // k, receivers[talking] // k)
        host = np.arange(n) // k
        return TrafficLoads(
            inject_s=port_seconds(np.bincount(host_senders, weights=host_wire, minlength=hosts), model)[host],
            eject_s=port_seconds(np.bincount(host_receivers, weights=host_wire, minlength=hosts), model)[host],
            link_s=float(link),
            latency_s=route_latency(int(np.max(hops)) if len(hops) else 0, model),
            packets_out=np.bincount(senders, weights=counts, minlength=n),
            packets_in=np.bincount(receivers, weights=counts, minlength=n),
            messages_out=np.bincount(senders[talking], minlength=n).astype(np.float64),
            messages_in=np.bincount(receivers[talking], minlength=n).astype(np.float64),
            payload_bytes=float(sizes.sum()), wire_bytes=float(wire.sum()),
        )

    def exchange_cost(self, traffic, packets: np.ndarray | None = None,
                      messaging: MessagingLayer | None = None) -> ExchangeCost:
        """Cost of an all-to-all of ``traffic`` (a PairTraffic, or a dense
        payload matrix with its ``packets``, as :meth:`traffic_loads`), its
        software overhead counted by ``messaging`` (default: every packet
        posted and received by software, engine/messaging.py)."""
        loads = self.traffic_loads(traffic, packets)
        if loads.wire_bytes == 0:
            return NO_EXCHANGE
        layer = messaging if messaging is not None else self.packets_layer
        per_node = layer.overhead_s(loads.packets_out, loads.packets_in, loads.messages_out, loads.messages_in)
        return exchange_cost(
            inject_s=float(loads.inject_s.max()), eject_s=float(loads.eject_s.max()), link_s=loads.link_s,
            latency_s=loads.latency_s, overhead_s=float(per_node.max()),
            packets=int(loads.packets_out.sum()), payload_bytes=loads.payload_bytes, wire_bytes=loads.wire_bytes)
