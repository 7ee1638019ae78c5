"""Pure cost functions: counts in, seconds out.

Every price the simulator charges for moving data between nodes is computed
here, once, by functions of numbers and numpy arrays with no simpy in them.
Two kinds of caller use the same functions:

* the simpy processes of an executed run (``network.py``,
  ``collectives.py``, the algorithms), with each node's own counts;
* the projections (``simbfs/projection*.py``), with the counts of a mean
  node and of the busiest node of a machine too large to execute.

So a change to a cost is made in one place and moves executed and projected
predictions together. Per-operation compute costs belong to the algorithm
that defines the operations (its ``price`` functions); the software overhead
of a message belongs to the messaging layer (``messaging.py``).

Conventions: ``N`` is the number of nodes taking part; bandwidths are bytes
per second of one port, one link or one node; a ``*_s`` value is seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..machine.model import CollectiveModel, NetworkModel

# ----------------------------------------------------------------- exchanges


@dataclass(frozen=True)
class ExchangeCost:
    """The price of one bulk exchange and what set it."""

    time_s: float
    serialisation_s: float
    latency_s: float
    overhead_s: float
    bottleneck: str  # the largest term: "injection", "ejection", "link", "overhead", "latency" or "none"
    packets: float  # an executed exchange counts whole packets, a projected one expects a mean
    payload_bytes: float
    wire_bytes: float


NO_EXCHANGE = ExchangeCost(0.0, 0.0, 0.0, 0.0, "none", 0, 0.0, 0.0)


def port_seconds(wire_bytes, network: NetworkModel):
    """Time a node's injection (or ejection) port needs for ``wire_bytes``."""
    return wire_bytes / network.injection_bandwidth_Bps


def link_seconds(wire_bytes, network: NetworkModel):
    """Time one link needs for ``wire_bytes``."""
    return wire_bytes / network.link_bandwidth_Bps


def route_latency(hops, network: NetworkModel):
    """Latency of the head of a message over ``hops`` router hops."""
    return hops * network.hop_latency_s


def exchange_cost(*, inject_s: float, eject_s: float, link_s: float, latency_s: float, overhead_s: float,
                  packets: float = 0, payload_bytes: float = 0.0, wire_bytes: float = 0.0) -> ExchangeCost:
    """A bulk exchange (flow-level model): it lasts as long as its most
    loaded resource needs to carry its bytes (the busiest injection port,
    ejection port or link), plus the latency of its longest route, plus the
    busiest node's software overhead (as its messaging layer counts it).

    This is the bottleneck bound that pipelined packet traffic approaches;
    it ignores head-of-line blocking and hot spots inside a link's time
    window. The arguments are the busiest values: an executed exchange
    passes the maxima over its nodes and links, a projection its estimates
    of them. ``bottleneck`` names the largest of the five terms (ties: the
    first in the order injection, ejection, link, overhead, latency)."""
    serialisation = max(inject_s, eject_s, link_s)
    terms = {"injection": inject_s, "ejection": eject_s, "link": link_s, "overhead": overhead_s,
             "latency": latency_s}
    return ExchangeCost(
        time_s=serialisation + latency_s + overhead_s,
        serialisation_s=serialisation,
        latency_s=latency_s,
        overhead_s=overhead_s,
        bottleneck=max(terms, key=terms.get),
        packets=packets,
        payload_bytes=payload_bytes,
        wire_bytes=wire_bytes,
    )


# --------------------------------------------------------------- collectives


def collective_stages(nodes: int) -> int:
    """Stages of a log2(N)-stage collective (0 for a single node)."""
    return max(1, math.ceil(math.log2(nodes))) if nodes > 1 else 0


def barrier_time(model: CollectiveModel, nodes: int) -> float:
    """stages x stage latency."""
    return collective_stages(nodes) * model.stage_latency_s


def allreduce_time(model: CollectiveModel, nodes: int, nbytes: float) -> float:
    """A tree (or hardware) reduction of ``nbytes`` per node:
    stages x stage latency + bytes / bandwidth."""
    if nodes == 1:
        return 0.0
    return barrier_time(model, nodes) + nbytes / model.bandwidth_Bps


def allgather_time(model: CollectiveModel, nodes: int, total_bytes: float) -> float:
    """Recursive doubling of ``total_bytes`` gathered from all nodes: every
    node receives the others' share, stages x stage latency +
    total x (N - 1) / N / bandwidth."""
    if nodes == 1:
        return 0.0
    share = total_bytes * (nodes - 1) / nodes
    return barrier_time(model, nodes) + share / model.bandwidth_Bps


def reduce_scatter_time(model: CollectiveModel, nodes: int, total_bytes: float) -> float:
    """Recursive halving of ``total_bytes`` (every node holds a value of that
    size and receives its own reduced segment): the mirror image of
    :func:`allgather_time`, with the same stages and the same (N - 1) / N of
    the total through every node, so the same price. The reduction itself
    (an OR of bitmaps, a sum of counts) is taken to hide under the
    transfers."""
    return allgather_time(model, nodes, total_bytes)


# ------------------------------------------------------------------------ DMA


def dma_stream_seconds(nbytes: float, bandwidth_Bps: float) -> float:
    """Time one DMA engine's data path streams ``nbytes`` at the bandwidth of
    its block size (the latency of a command is charged separately)."""
    return nbytes / bandwidth_Bps


def aligned_bytes(sizes, alignment_bytes: float) -> float:
    """Main-memory bytes of blocks of ``sizes``, each rounded up to the alignment."""
    a = alignment_bytes
    return float((np.ceil(np.asarray(sizes, dtype=np.float64) / a) * a).sum())


def exact_in_any_order(*values: np.ndarray) -> bool:
    """Whether every sum of these values, in any order, is exact in
    floating point: they are whole numbers and no partial sum can reach
    2**53 (checked with room to spare)."""
    return all(bool(np.all(v == np.floor(v))) and float(np.abs(v).sum()) < 2.0**52 for v in values)
