"""What Lin et al.'s modules cost on an SW26010 node, as pure functions of
a node's counts (work.py's counters; scalars or per-node arrays).

A reaction module on a CPE cluster (every module but the Forward Handler,
003, Fig. 1; 4.3, Fig. 6): producers read its input by DMA, the
register-bus shuffle carries what it produces (and routes the tests of a
bitmap spread over the routers' and consumers' scratch pads, a slice per
pass when it does not fit), consumers write batches by DMA. It takes
``CPEClusterModel.reaction_seconds``; random main-memory accesses (a parent
written, a bit of the gathered hub bitmap, which is too large for the
scratch pads) are blocking DMAs of ``lin1d.random_access`` bytes
(``CPEClusterModel.random_access_seconds``, swCandle's measured rate),
made by the producers. The Forward Handler is a dispose module: its CPEs
split the input, stream it and test and update main memory with random
accesses, each a blocking DMA, no shuffle (4.3, 2.1). On an MPE the same
module streams its bytes at the MPE's bandwidth, waits one memory latency
for every random test (its 256 KB L2 cannot hold bitmaps of megabytes) and
spends ``lin1d.mpe_item_cycles`` per pair.

Which unit runs what (4.2, 5): modules go to the node's CPE clusters, first
come first served, at most one cluster per module; with ``modules=mpe`` to
the two MPEs that do not communicate (M2, M3). A module whose input is
smaller than ``lin1d.small_input`` (a handler fed by small messages) runs
on M1, which receives. M0 pays the MPI overhead of every message sent, M1
of every message received and of every cluster it notifies.

A level on node i (``price_level``)
    The modules run as a pipeline (4.2): generators, relays and handlers
    overlap with each other and with the network, so a node's level lasts
    as long as its busiest unit, plus the pipeline's fill and drain:

        busy_i = max(clusters_i, M0_i, M1_i, M2/M3_i, inject_i, eject_i,
                     busiest link) + latency

    ``clusters_i`` is the node's module work on its CPE clusters (at most
    one cluster per module, the total spread over the clusters), M0 and M1
    the MPI overheads of the messages sent and received (M1 also handles
    small inputs and notifies the clusters), M2/M3 the module work when
    modules run on MPEs. The network carries every phase's pairs (with
    relay, twice: to the relay and on to the destination) on the fat tree.
    ``latency`` is the pipeline's fill and drain: one message through every
    phase. The executed run calls price_level with every node's counts and
    the engine's loads of the real pairs; the projection with the mean and
    the busiest node's counts and its closed-form traffic. The collectives
    that close the level come after (closing_collectives).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine.costs import allgather_time, reduce_scatter_time
from ...machine.model import Machine

MODULES = ("forward_generator", "backward_generator", "backward_handler", "forward_handler",
           "forward_relay", "backward_relay")
HANDLERS = ("backward_handler", "forward_handler", "forward_relay", "backward_relay")
# counters of work that arrives in messages (the rest of a handler's work is local)
MESSAGE_FED = ("backward_in", "answers", "forward_in", "relayed_forward", "relayed_backward")
OFFSETS_BYTES = 16  # a vertex's two CSR offsets, read before its entries
MODULE_MPES = 2  # M2 and M3: the MPEs that neither send nor receive (4.2)
FLAG_BYTES = 8  # one word
COUNT_WORDS = 2  # frontier edges and vertices, for the direction policy


@dataclass(frozen=True)
class ModuleDemand:
    """What one module asks of the unit that runs it, per node."""

    read_bytes: object  # streamed in
    read_chunk: object  # the DMA chunk of that stream
    shuffled_bytes: object  # carried by the register buses (cluster) or handled item by item (MPE)
    written_bytes: object  # written in batches
    random_accesses: object  # random main-memory accesses
    items: object  # pairs or entries the module handles
    tests: object = 0.0  # tests of local bitmaps (in the scratch pads on a cluster; a memory latency each on an MPE)
    bitmap_bytes: object = 0.0  # the local bitmap the tests read (a cluster holds it a slice per pass)
    dispose: bool = False  # a dispose module: its input split over the CPEs, no shuffle (003, 2.1, 4.3)


def demands(machine: Machine, counts: dict, direction: str, local_vertices=0.0) -> dict:
    """Each module's demand from a level's counters; ``local_vertices``
    (per node) sizes the bitmaps the handlers test."""
    lin = machine.section("lin1d")
    batch = machine.section("cpe_cluster").batch_bytes
    P, E = lin.pair_bytes, lin.adjacency_entry_bytes
    c = counts
    none = ModuleDemand(0.0, batch, 0.0, 0.0, 0.0, 0.0, 0.0)
    bitmap = np.asarray(local_vertices, dtype=np.float64) / 8
    read = c["vertices_read"] * OFFSETS_BYTES + c["entries_read"] * E
    generated = c["pairs_generated"] * P
    if direction == "top-down":
        # the frontier is scattered: its lists are separate chunks of their
        # mean length (at most a batch)
        lists = np.maximum(c["frontier_read"], 1.0)
        chunk = np.minimum(np.maximum(c["entries_read"] * E / lists, E), batch)
        forward = ModuleDemand(c["frontier_read"] * OFFSETS_BYTES + c["entries_read"] * E, chunk, generated,
                               generated, 0.0, c["entries_read"])
        backward = none
    else:
        # the sweep reads the lists of consecutive unvisited vertices in
        # batches; it tests each vertex's visited bit and its hub neighbours'
        # bits (the gathered hub bitmap: a random access)
        forward = none
        backward = ModuleDemand(read, batch, generated, generated, c["hub_bits"], c["entries_read"],
                                c["vertices_read"])
    # The hub entries a node keeps are tested where Algorithm 2 tests the
    # same thing: in a top-down level, a frontier hub's entry (h, v) asks
    # whether v has a parent, as the Forward Handler does for a pair that
    # arrives; in a bottom-up level, an unvisited hub's entry (h, u) asks
    # whether u is in the frontier, as the Backward Handler does.
    forward_hub = c["hub_entries"] if direction == "top-down" else 0.0
    backward_hub = c["hub_entries"] if direction != "top-down" else 0.0
    backward_items = c["backward_in"] + backward_hub
    forward_items = c["forward_in"] + forward_hub
    return {
        "forward_generator": forward,
        "backward_generator": backward,
        # a Backward Handler, a reaction module, tests u in the frontier
        # bitmap spread over the scratch pads: the shuffle routes every pair
        # to the CPE holding u
        "backward_handler": ModuleDemand(c["backward_in"] * P + backward_hub * E, batch, backward_items * P,
                                         c["answers"] * P, 0.0, backward_items, backward_items, bitmap),
        # a Forward Handler is a dispose module (003, Fig. 1): its CPEs split
        # the input, and each "checks the frontier, and updates the result
        # in main memory" (2.1): a random access per item it tests, another
        # per parent it writes
        "forward_handler": ModuleDemand(c["forward_in"] * P + forward_hub * E, batch, 0.0, 0.0, c["claims"],
                                        forward_items, forward_items, bitmap, dispose=True),
        "forward_relay": ModuleDemand(c["relayed_forward"] * P, batch, c["relayed_forward"] * P,
                                      c["relayed_forward"] * P, 0.0, c["relayed_forward"]),
        "backward_relay": ModuleDemand(c["relayed_backward"] * P, batch, c["relayed_backward"] * P,
                                       c["relayed_backward"] * P, 0.0, c["relayed_backward"]),
    }


def cluster_seconds(machine: Machine, demand: ModuleDemand):
    """One module on one CPE cluster (per node; arrays allowed). A module
    that tests a bitmap larger than the scratch pads on an item's way reads
    its input once per slice (``CPEClusterModel.bitmap_passes``)."""
    cpe, lin = machine.section("cpe_cluster"), machine.section("lin1d")
    if demand.dispose:
        # every CPE streams its share of the input and makes its own random
        # accesses, each a blocking DMA; the memory port serves both
        streamed = cpe.dma_seconds(demand.read_bytes, np.maximum(np.asarray(demand.read_chunk), 1.0))
        random_access = cpe.random_access_seconds(lin.random_access_bytes)
        return streamed + (np.asarray(demand.tests) + np.asarray(demand.random_accesses)) * random_access
    # in a reaction module the producers, which read the input, make the
    # random accesses (a hub bit of an item they produce)
    random_access = cpe.random_access_seconds(lin.random_access_bytes, cpe.layout.producers)
    passes = np.where(np.asarray(demand.tests) > 0, cpe.bitmap_passes(demand.bitmap_bytes), 1.0)
    read = np.broadcast_arrays(np.asarray(demand.read_bytes) * passes, demand.read_chunk, demand.shuffled_bytes,
                               demand.written_bytes, demand.random_accesses)
    reaction = cpe.reaction_seconds(read[0], np.maximum(read[1], 1.0), read[2], read[3])
    return reaction + read[4] * random_access


def mpe_seconds(machine: Machine, demand: ModuleDemand):
    """One module on one MPE (per node; arrays allowed)."""
    cpe, lin = machine.section("cpe_cluster"), machine.section("lin1d")
    streamed = (np.asarray(demand.read_bytes) + np.asarray(demand.written_bytes)) / cpe.mpe_bandwidth_Bps
    # a bitmap test or a random access waits a memory latency: the MPE's
    # 256 KB L2 cannot hold bitmaps of megabytes
    tests = np.asarray(demand.tests) + np.asarray(demand.random_accesses)
    return (streamed + tests * cpe.memory_latency_s
            + np.asarray(demand.items) * lin.mpe_item_cycles / machine.node.clock_hz)


@dataclass(frozen=True)
class NodeTimes:
    """Per node: each unit's busy time in a level (seconds)."""

    clusters: np.ndarray  # the busiest of the node's cluster loads
    module_mpes: np.ndarray  # M2/M3 (modules=mpe)
    sender: np.ndarray  # M0
    receiver: np.ndarray  # M1
    modules: dict  # module -> per-node seconds on the unit that ran it

    @property
    def compute(self) -> np.ndarray:
        return np.maximum(np.maximum(self.clusters, self.module_mpes), np.maximum(self.sender, self.receiver))


def shared(times: list, units: int):
    """Modules on ``units`` interchangeable units, at most one unit per
    module at a time: the longest module, or the total spread evenly."""
    if not times:
        return 0.0
    stack = np.stack(np.broadcast_arrays(*(np.asarray(t, dtype=np.float64) for t in times)))
    return np.maximum(stack.max(axis=0), stack.sum(axis=0) / units)


def node_times(machine: Machine, counts: dict, direction: str, small_share: dict, messages_out, messages_in,
               modules: str, local_vertices=0.0):
    """Each unit's busy time per node. ``small_share[module]``: the share of
    a handler's input that arrives in messages below ``lin1d.small_input``
    (handled on M1); ``messages_out/in``: MPI messages per node;
    ``local_vertices``: a node's vertices (its bitmaps' size)."""
    cpe = machine.section("cpe_cluster")
    messaging = machine.messaging
    need = demands(machine, counts, direction, local_vertices)
    # a handler's message-fed work (the pairs it receives) and the rest (the
    # hub entries it reads, the parents it writes): only the former arrives
    # in messages, so only its small share runs on M1
    zero = {name: 0.0 for name in counts}
    fed = demands(machine, {**zero, **{k: counts[k] for k in MESSAGE_FED if k in counts}}, direction, local_vertices)
    local = demands(machine, {**counts, **{k: 0.0 for k in MESSAGE_FED if k in counts}}, direction, local_vertices)
    placed, on_clusters, on_mpes = {}, [], []
    receiver = np.asarray(messages_in, dtype=np.float64) * messaging.receive_overhead_s
    for name in MODULES:
        demand = need[name]
        if modules == "mpe":
            placed[name] = mpe_seconds(machine, demand)
            on_mpes.append(placed[name])
            continue
        if name in HANDLERS:
            small = np.asarray(small_share.get(name, 0.0))
            placed[name] = (cluster_seconds(machine, local[name])
                            + cluster_seconds(machine, _scaled(fed[name], 1.0 - small)))
            receiver = receiver + mpe_seconds(machine, _scaled(fed[name], small))
        else:
            placed[name] = cluster_seconds(machine, demand)
        on_clusters.append(placed[name])
    # M1 notifies a cluster for every message it hands on (busy-wait flags,
    # 4.2): those it does not handle itself
    if modules != "mpe":
        handed_on = 1.0 - np.asarray(small_share.get("forward_handler", 0.0))
        receiver = receiver + np.asarray(messages_in, dtype=np.float64) * handed_on * cpe.notify_latency_s
    zeros = np.zeros_like(receiver)
    return NodeTimes(clusters=shared(on_clusters, cpe.clusters) + zeros,
                     module_mpes=shared(on_mpes, MODULE_MPES) + zeros,
                     sender=np.asarray(messages_out, dtype=np.float64) * messaging.send_overhead_s + zeros,
                     receiver=receiver, modules=placed)


@dataclass(frozen=True)
class LevelPrice:
    """One level's price on every node (arrays) or on one (scalars): each
    unit's busy time, the network's terms, and the pipeline's fill and
    drain. The level's closing collectives are not in it (the executed run
    hands their bytes to the engine's collectives; the projection prices
    them with closing_seconds)."""

    times: NodeTimes  # each unit's busy time
    injection_s: object  # the node's port, sending
    ejection_s: object  # the node's port, receiving
    link_s: object  # the busiest link
    units_s: object  # the busiest of the units and the network terms
    latency_s: float  # the pipeline's fill and drain
    bottleneck: str  # which term is largest on the busiest node

    @property
    def compute_s(self):
        return self.times.compute

    @property
    def busy_s(self):
        """Until the node is ready for the closing collectives."""
        return self.units_s + self.latency_s

    @property
    def port_s(self):
        return np.maximum(self.injection_s, self.ejection_s)


def price_level(machine: Machine, counts: dict, direction: str, modules: str, local_vertices, small_share,
                messages_out, messages_in, *, injection_s, ejection_s, link_s, phases: int,
                route_latency_s: float) -> LevelPrice:
    """A level's time from its counts (the module docstring's formula):
    the units' busy times (node_times, every handler taking ``small_share``
    of its input from small messages), the network's terms, and the
    pipeline latency through ``phases`` network phases (none: the
    generators are only notified)."""
    times = node_times(machine, counts, direction, {name: small_share for name in HANDLERS}, messages_out,
                       messages_in, modules, local_vertices)
    terms = {"compute": times.compute, "injection": injection_s, "ejection": ejection_s, "link": link_s}
    units = np.maximum(np.maximum(times.compute, injection_s), np.maximum(ejection_s, link_s))
    latency = (pipeline_latency_s(machine, phases, route_latency_s) if phases
               else machine.section("cpe_cluster").notify_latency_s)
    slowest = {name: float(np.max(value)) for name, value in terms.items()}
    return LevelPrice(times=times, injection_s=injection_s, ejection_s=ejection_s, link_s=link_s, units_s=units,
                      latency_s=latency, bottleneck=max(slowest, key=slowest.get))


def _scaled(demand: ModuleDemand, share) -> ModuleDemand:
    return ModuleDemand(np.asarray(demand.read_bytes) * share, demand.read_chunk,
                        np.asarray(demand.shuffled_bytes) * share, np.asarray(demand.written_bytes) * share,
                        np.asarray(demand.random_accesses) * share, np.asarray(demand.items) * share,
                        np.asarray(demand.tests) * share, demand.bitmap_bytes, demand.dispose)


def messages(pairs: np.ndarray, machine: Machine) -> np.ndarray:
    """MPI messages of a phase between pairs of nodes (their pairs in, any
    array): a peer's pairs go in messages of at most ``lin1d.message``
    bytes."""
    lin = machine.section("lin1d")
    return np.ceil(pairs * lin.pair_bytes / lin.message_bytes)


def small_input(pairs: np.ndarray, machine: Machine) -> np.ndarray:
    """Of a phase's pairs from one peer (any array of counts), those that
    arrive in a message smaller than ``lin1d.small_input``: all of them
    below the threshold (they go in one small message), none above (they
    are cut into full messages)."""
    lin = machine.section("lin1d")
    return np.where(pairs * lin.pair_bytes < lin.small_input_bytes, pairs, 0.0)


def small_pairs(phases: list, machine: Machine) -> np.ndarray:
    """Per receiving node, the pairs that arrive in messages smaller than
    ``lin1d.small_input`` (:func:`small_input`). ``phases``: N x N pair
    counts, one matrix per phase."""
    return sum(small_input(p, machine).sum(axis=0) for p in phases)


def pipeline_latency_s(machine: Machine, phases: int, route_latency_s: float) -> float:
    """The level's fill and drain: the generator is notified, then every
    network phase posts a message, crosses the network, is received and
    wakes the next module."""
    cpe, messaging = machine.section("cpe_cluster"), machine.messaging
    per_phase = messaging.send_overhead_s + route_latency_s + messaging.receive_overhead_s + cpe.notify_latency_s
    return cpe.notify_latency_s + phases * per_phase


def gather_bytes(hub_nodes: float, nodes: int, hubs_per_node: int, counts: bool = True) -> float:
    """Bytes a closing collective carries: a node whose hubs are in the
    next frontier has their bitmap, the others a one-word flag (5); with
    ``counts``, every node adds the direction policy's counts."""
    bitmap = -(-hubs_per_node // 8)
    return (hub_nodes * bitmap + (nodes - hub_nodes) * FLAG_BYTES
            + (nodes * COUNT_WORDS * FLAG_BYTES if counts else 0.0))


def closing_collectives(direction: str) -> tuple:
    """The collectives that close a level, in order, as (kind, carries the
    direction counts). A bottom-up level's unvisited hubs are claimed by the
    owners of their neighbours (work.py), not by their own: the claims are
    first combined (an OR of the hub bitmaps, each owner receiving its own
    segment: a reduce-scatter) and then gathered to every node with the
    counts. A top-down level claims every vertex at its owner, so the
    gather alone announces its hubs."""
    if direction == "bottom-up":
        return (("reduce_scatter", False), ("allgather", True))
    return (("allgather", True),)


def closing_bytes(direction: str, nodes: int, hub_nodes: float, hubs_per_node: int) -> list:
    """(kind, total bytes) of each closing collective of a level, in order
    (closing_collectives, each carrying gather_bytes)."""
    return [(kind, gather_bytes(hub_nodes, nodes, hubs_per_node, counts))
            for kind, counts in closing_collectives(direction)]


_CLOSING_TIME = {"reduce_scatter": reduce_scatter_time, "allgather": allgather_time}


def closing_seconds(machine: Machine, nodes: int, direction: str, hub_nodes: float, hubs_per_node: int):
    """The closing collectives' time and bytes: the projection's price of
    closing_bytes, which the executed run hands to the engine's collectives
    (priced by the same engine/costs.py functions)."""
    closing = closing_bytes(direction, nodes, hub_nodes, hubs_per_node)
    return (sum(_CLOSING_TIME[kind](machine.collectives, nodes, carried) for kind, carried in closing),
            sum(carried for _, carried in closing))


def connection_bytes(machine: Machine, peers) -> np.ndarray:
    """MPI connection memory of a node: ``lin1d.mpi_connection`` per peer in
    every MPE that holds connections."""
    lin = machine.section("lin1d")
    return np.asarray(peers, dtype=np.float64) * lin.mpi_connection_bytes * lin.mpi_processes
