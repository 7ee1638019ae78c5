"""What Checconi & Petrini's codes pay: cycles per operation and
main-memory time, as pure functions of a node's operation counts, and the
time of a whole level composed from them (every cost formula of cp1d).

Both codes of this package and cp2d price with these functions: an executed
run with every node's counts, a projection with its virtual nodes' counts
grown to the target. The model (docs/background/cp1d.md, "Per-node costs"):

* **Issue.** An operation issues ``cp1d.cycles.<op>`` instructions on the
  core's one fixed-point pipeline, which the core's hardware threads share
  (A2 User's Manual, D.1: one fixed-point instruction per cycle, from any
  thread).
* **Latency.** Its scattered reads (:data:`ACCESSES`: bit tests, fill
  counts, the read of a test-and-set) wait the load-to-use latency of the
  L2 on a hit and of DDR on a miss. A thread stalls on them; the core's
  other threads issue meanwhile, so an operation costs one thread
  ``max(issue + latency, k x issue)`` cycles, k threads sharing a core.
  A scattered store (a parent) goes to the store queue and stalls nothing.
* **Miss parallelism.** A node's cores have at most
  ``cp1d.load_misses_per_core`` reads outstanding each (the A2's eight),
  so its stalling reads take at least their latency over that many
  (:func:`scattered_seconds`; on BlueGene/Q the threads' own stalls, one
  each, bind first).
* **Shared L2.** The structures a level touches at random (bitmaps, parents,
  the open packets) and the data it streams (adjacency entries, headers)
  compete for the node's L2. Each structure's hit rate follows from how
  often the level touches it (``MemoryHierarchy.shared_hit_rates``), so a
  level that streams many entries past few bitmap tests evicts its bitmaps.
* **Memory bandwidth.** Streams and misses move 128 B lines from DDR: one
  for a read that misses, two for a store or a test-and-set that misses
  (the line in, and back out dirty: :func:`miss_lines`); a level lasts at
  least as long as the node's memory bandwidth needs for them.

The level (docs/background/cp1d.md)
    cp1d-spi: communication overlaps computation (the paper's "almost
    complete overlap", IV-E), and a send waits while its buffer is still in
    flight, so a node's level lasts as long as its slowest resource::

        busy_i = max(cpu_i, inject_i, eject_i, busiest link, memory_i) + drain

    cpu_i is its busiest thread (sweep, packing, compression, decoding,
    claiming, per-packet SPI overheads), inject_i/eject_i its port loads,
    memory_i its DRAM traffic, drain the last packet's flight (twice in a
    bottom-up level: a probe and then its answer). :func:`price_level`
    composes it, with every node's terms (the executed run) or with the
    busiest and the typical node's (the projection).

    cp1d-mpi: each pass is a compute step on every node followed by a
    collective, and nothing overlaps. :func:`price_mpi_level` prices the
    passes work.mpi_passes lists, on every node or on the busiest and the
    typical one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine.costs import link_seconds, route_latency
from ...machine.model import Machine
from .encoding import plain_edges_per_packet
from .layout import Layout
from .memory import header_traffic

# Scattered accesses one operation makes, by structure and kind
# (docs/background/cp1d.md, "Per-node costs"). The kinds differ in what a
# thread waits for and what the memory moves, in 128 B L2 lines:
#   "read":  a load whose value the in-order A2 thread uses at once (a bit
#            test, a fill count): the thread stalls until it arrives; a
#            miss moves one line in;
#   "rmw":   a bitmap word read, tested and written back (test-and-set):
#            the read stalls; a miss moves the line in and, dirty, out again;
#   "write": a store (the parent): it goes to the store queue and does not
#            stall the thread, but a miss moves the line in (the store
#            fills 8 of its 128 B) and, dirty, out again.
# A streamed read is prefetched and stalls nothing (STREAMED).
ACCESSES = {
    "index_word": {},
    "vertex_header": {},
    "edge_entry": {},
    "pack": {"buffers": "read"},
    "compress": {},
    "unpack": {"bitmaps": "read"},
    "bitmap_test": {"bitmaps": "read"},
    "claim": {"bitmaps": "rmw", "parents": "write"},
}
STALLS = {"read": True, "rmw": True, "write": False}
LINES_PER_MISS = {"read": 1, "rmw": 2, "write": 2}
# Bytes each operation streams from memory, by the cp1d section's size key.
# Index words are not streamed: every thread sweeps the same words, which
# stay in the L2 (docs/background/cp1d.md).
STREAMED = {"vertex_header": "vertex_header_bytes", "edge_entry": "adjacency_entry_bytes"}
# Lines of an open packet that a stream of appends keeps touching: the one
# holding its fill count and the one its tail is being written into.
OPEN_PACKET_LINES = 2
# Channels with open packets: forward (edges, answers) and backward (probes).
CHANNELS = 2
BITMAPS = 3  # In, Out, Vis over the local vertices (and their heavy copies)
PARENT_BYTES = 8


@dataclass(frozen=True)
class Residents:
    """Bytes of the structures a node's operations access at random."""

    bitmaps: float
    parents: float
    buffers: float
    # bytes a header read pulls from memory when the entries after it are
    # not read (memory.header_traffic); None: the header's own bytes
    header_traffic: float | None = None

    def as_dict(self) -> dict:
        return {"bitmaps": self.bitmaps, "parents": self.parents, "buffers": self.buffers}


def open_packet_bytes(machine: Machine, destinations: float, threads: int, channels: int = CHANNELS) -> float:
    """The hot lines of a node's open packets: one per (thread, destination)
    pair that talks (a thread's slice reaches destinations / threads nodes,
    or threads / destinations threads share one) and channel."""
    line = machine.node.memory_hierarchy.cache_line_bytes
    return channels * max(destinations, threads) * OPEN_PACKET_LINES * line


def cp1d_residents(machine: Machine, local_vertices: float, heavy_count: int, nodes: int,
                   threads: int, header_traffic: float | None = None) -> Residents:
    """A 1D node's structures: its bitmaps (and the replicated heavy ones),
    its parents and its open packets to every other node; and what its
    header reads pull from memory."""
    return Residents(bitmaps=BITMAPS * (local_vertices + heavy_count) / 8,
                     parents=PARENT_BYTES * local_vertices,
                     buffers=open_packet_bytes(machine, nodes - 1, threads) if nodes > 1 else 0.0,
                     header_traffic=header_traffic)


def accesses(counts: dict, stalling_only: bool = False) -> dict:
    """Scattered accesses per structure of the operation ``counts``: all of
    them (each touches a line, so each competes for the L2), or with
    ``stalling_only`` those that stall their thread (reads, and the reads
    of read-modify-writes)."""
    totals = {"bitmaps": 0.0, "parents": 0.0, "buffers": 0.0}
    for name, count in counts.items():
        for structure, kind in ACCESSES[name].items():
            if STALLS[kind] or not stalling_only:
                totals[structure] = totals[structure] + count
    return totals


def miss_lines(counts: dict, hits: dict):
    """Lines main memory moves for the scattered accesses of ``counts``
    that miss the L2 (hit rates ``hits`` per structure): one for a read,
    two for a write or a read-modify-write (in, and out dirty)."""
    lines = 0.0
    for name, count in counts.items():
        for structure, kind in ACCESSES[name].items():
            lines = lines + count * (1.0 - hits[structure]) * LINES_PER_MISS[kind]
    return lines


def miss_parallelism(machine: Machine):
    """Scattered reads a node's cores can have waiting at once:
    ``cp1d.load_misses_per_core`` on each core (the A2's non-blocking data
    cache holds eight, A2 User's Manual p. 174); None where the machine
    gives no limit. Each thread also waits on its own misses, one at a
    time (an in-order thread stalls at the first use of a missing load,
    and the codes test each bit or count at once): op_cycles charges that."""
    limit = machine.section("cp1d").load_misses_per_core
    return None if limit is None else int(machine.node.cores) * int(limit)


def scattered_seconds(machine: Machine, residents: "Residents", counts: dict, hits: dict | None = None):
    """The least time a node's memory system needs for the stalling
    scattered reads of ``counts``: each is outstanding for its load-to-use
    latency (the L2's on a hit, DDR's on a miss), and at most
    miss_parallelism of them are outstanding at once (zero where the
    machine gives no limit). ``hits``: hit_rates of these counts, if the
    caller has them."""
    parallel = miss_parallelism(machine)
    if parallel is None:
        return 0.0
    memory = machine.node.memory_hierarchy
    hits = hit_rates(machine, residents, counts) if hits is None else hits
    stalls = accesses(counts, stalling_only=True)
    cycles = sum((stalls[s] * memory.latency_cycles(hits[s]) for s in stalls), 0.0)
    return cycles / parallel / machine.node.clock_hz


def streamed_bytes(machine: Machine, counts: dict, header_traffic: float | None = None):
    """Bytes the operations ``counts`` stream from memory: their own (each
    header and entry read), or, where headers are read without the entries
    after them, the lines those headers pull in (``header_traffic`` per
    header), whichever is more."""
    cp = machine.section("cp1d")
    own = sum(counts[name] * getattr(cp, key) for name, key in STREAMED.items() if name in counts)
    if header_traffic is None or "vertex_header" not in counts:
        return own
    return np.maximum(own, counts["vertex_header"] * header_traffic)


def hit_rates(machine: Machine, residents: Residents, counts: dict) -> dict:
    """Each structure's L2 hit rate under the operation mix ``counts``."""
    return machine.node.memory_hierarchy.shared_hit_rates(residents.as_dict(), accesses(counts),
                                                          streamed_bytes(machine, counts, residents.header_traffic))


def core_sharing(machine: Machine, threads: int) -> int:
    """Threads that share one core's issue slots."""
    node = machine.node
    return min(-(-threads // int(node.cores)), int(node.threads_per_core))


def op_cycles(machine: Machine, threads: int, residents: Residents, counts: dict, compression: bool,
              hits: dict | None = None) -> dict:
    """Cycles one thread spends per operation of each kind, in a phase whose
    node-level operation counts are ``counts`` (scalars, or arrays with one
    entry per node: then so are the costs). ``hits``: hit_rates of these
    counts, if the caller has them."""
    cp = machine.section("cp1d")
    memory = machine.node.memory_hierarchy
    hits = hit_rates(machine, residents, counts) if hits is None else hits
    latency = {s: memory.latency_cycles(hit) for s, hit in hits.items()}
    sharing = core_sharing(machine, threads)
    shape = np.broadcast_shapes(*(np.shape(c) for c in counts.values()))
    costs = {}
    for name, touched in ACCESSES.items():
        issue = getattr(cp.cycles, f"{name}_cycles")
        wait = sum((latency[s] for s, kind in touched.items() if STALLS[kind]), 0.0)
        cost = np.maximum(issue + wait, sharing * issue)
        if name == "compress" and not compression:
            cost = 0.0
        cost = np.broadcast_to(np.asarray(cost, dtype=np.float64), shape)
        costs[name] = float(cost) if cost.ndim == 0 else cost.copy()
    return costs


def memory_seconds(machine: Machine, residents: Residents, counts: dict, hits: dict | None = None):
    """The time a node's main memory needs for ``counts``: its streamed
    bytes and the lines its scattered accesses move when they miss the L2
    (miss_lines), at the memory bandwidth; and no less than its stalling
    reads need at the cores' miss parallelism (scattered_seconds).
    ``hits``: hit_rates of these counts, if the caller has them (computed
    once either way)."""
    memory = machine.node.memory_hierarchy
    hits = hit_rates(machine, residents, counts) if hits is None else hits
    lines = miss_lines(counts, hits)
    seconds = ((streamed_bytes(machine, counts, residents.header_traffic) + lines * memory.cache_line_bytes)
               / machine.node.memory_bandwidth_Bps)
    return np.maximum(seconds, scattered_seconds(machine, residents, counts, hits))


# ------------------------------------------------------- the level's parts
# The cp1d-spi level's timing as pure functions of counts and times: the
# executed run calls them with every node's values, the projection with its
# busiest and typical node's.


def closing_words(heavy_count: int) -> int:
    """64-bit words of a level's closing allreduce: two counts for
    CalcDirection, plus Vis^H and Out^H as bitmaps (Algorithm 4, lines 14-15)."""
    return 2 + 2 * (-(-heavy_count // 64))


def packet_flight_s(network) -> float:
    """One full packet's time on a link."""
    return link_seconds(network.packet_payload_bytes + network.packet_header_bytes, network)


def spi_level_busy_s(cpu_s, inject_s, eject_s, link_s, memory_s, latency_s, network, direction: str, sends: bool):
    """A node's busy time in one cp1d-spi level (docs/background/cp1d.md):
    communication overlaps computation, so the level lasts as long as its
    slowest resource, plus the drain of its last packet (the longest
    route and one packet's flight; twice in a bottom-up level, a probe and
    then its answer; nothing when no packet is sent)::

        busy = max(cpu, inject, eject, busiest link, memory) + drain

    Scalars or per-node arrays alike."""
    drain = 0.0
    if sends:
        drain = (latency_s + packet_flight_s(network)) * (2 if direction == "bottom-up" else 1)
    return np.maximum(np.maximum(np.maximum(np.maximum(cpu_s, inject_s), eject_s), link_s), memory_s) + drain


def packet_trip_s(hops, network, layer) -> "np.ndarray | float":
    """A packet's trip from the sender's software to the receiver's: its
    route's latency, one full packet's flight on a link, and the messaging
    layer's posting and receiving of it."""
    return route_latency(hops, network) + (packet_flight_s(network) + layer.send_s(1.0) + layer.receive_s(1.0))


def fill_wait_s(per_packet: float, rate):
    """Expected wait of an edge in its open packet until the packet fills:
    half a packet's edges at the stream's ``rate`` (edges per second;
    infinite where nothing flows)."""
    rate = np.asarray(rate, dtype=np.float64)
    return np.divide(per_packet / 2, rate, out=np.full(rate.shape, np.inf), where=rate > 0)


def backlog_cap_bytes(nodes: int, in_flight: int, network) -> float:
    """The most wire bytes a node can have handed to its messaging unit and
    not yet sent: ``in_flight`` full packets to each other node (III-A: a
    thread that finds all of a destination's buffers still in use waits)."""
    return float(max(nodes - 1, 0) * in_flight * (network.packet_payload_bytes + network.packet_header_bytes))


def injection_queue_wait_s(produce_s, drain_s, wire_bytes, cap_bytes):
    """Mean time a packet waits in its sender's injection queue in a level
    where the sender's own work (threads, memory) would produce its
    ``wire_bytes`` in ``produce_s`` and the network takes ``drain_s`` to
    carry them (its port or the busiest link on its routes).

    A fluid FIFO: while production outpaces the drain the queue grows, so
    the packet made at fraction x of the level's output leaves x * D late,
    D = drain_s - produce_s, until the queue reaches the buffers' cap; then
    the threads wait for buffers (production is throttled to the drain) and
    every later packet waits the cap's worth, w = cap_bytes * drain_s /
    wire_bytes. The mean over packets of min(x D, w)::

        D / 2              if w >= D
        w - w**2 / (2 D)   otherwise

    Zero where the network keeps up (D <= 0) or nothing is sent. Scalars
    or per-node arrays alike."""
    produce_s, drain_s, wire_bytes = (np.asarray(x, dtype=np.float64) for x in (produce_s, drain_s, wire_bytes))
    lag = np.maximum(drain_s - produce_s, 0.0)
    cap_s = np.divide(cap_bytes * drain_s, wire_bytes, out=np.zeros(np.broadcast(drain_s, wire_bytes).shape),
                      where=wire_bytes > 0)
    capped = cap_s - np.divide(cap_s * cap_s, 2 * lag, out=np.zeros_like(cap_s), where=lag > 0)
    return np.where(cap_s >= lag, lag / 2, capped) * (wire_bytes > 0)


def level_queue_wait_s(cpu_s, memory_s, inject_s, link_s, nodes: int, in_flight: int, network):
    """A node's probes' mean wait in its injection queue in one level
    (injection_queue_wait_s): its threads and memory produce its packets,
    its port and the busiest link carry them, and its buffers cap the
    backlog (backlog_cap_bytes). The executed run calls it with every
    node's times, the projection with a typical node's."""
    return injection_queue_wait_s(np.maximum(cpu_s, memory_s), np.maximum(inject_s, link_s),
                                  np.asarray(inject_s) * network.injection_bandwidth_Bps,
                                  backlog_cap_bytes(nodes, in_flight, network))


def claim_delay_s(remaining_s, probe_fill_s, answer_fill_s, answer_cap_s, trip_s):
    """Time from a remote probe being issued to its claim being visible to
    the prober: the probe waits in its open packet until it fills or the
    prober's sweep ends (``remaining_s``), crosses the network, is answered
    into an open packet of the reverse stream, which waits until it fills
    or at most ``answer_cap_s``, and crosses back."""
    return np.minimum(probe_fill_s, remaining_s) + np.minimum(answer_fill_s, answer_cap_s) + 2 * trip_s


def probe_claim_delay_s(prober_sweep_s, owner_sweep_s, probe_time_s, probe_fill_s, answer_fill_s, trip_s):
    """:func:`claim_delay_s` of a probe issued ``probe_time_s`` into its
    prober's sweep of ``prober_sweep_s``: it waits at most the rest of that
    sweep, its answer at most half the owner's sweep (``owner_sweep_s``).
    Called with arrays by the claim timings and per probe by the compiled
    bottom-up walk."""
    return claim_delay_s(np.maximum(prober_sweep_s - probe_time_s, 0.0), probe_fill_s, answer_fill_s,
                         owner_sweep_s / 2, trip_s)




def probe_queue_share(queue_s):
    """What a probe's injection-queue wait adds to each of the two trips
    a claim delay counts (claim_delay_s): half of it. Only the probe
    queues: the paper uses "separate FIFOs for probes and responses" (000,
    II-C), so an answer does not wait behind its owner's probes, and the
    answers, one per hit, are too few to build a backlog of their own."""
    return np.asarray(queue_s, dtype=np.float64) / 2


def bottleneck(cpu_s: float, inject_s: float, eject_s: float, link_s: float, memory_s: float) -> str:
    """The resource that bounds a level's busy time (ties: the first named)."""
    terms = {"compute": cpu_s, "injection": inject_s, "ejection": eject_s, "link": link_s, "memory": memory_s}
    return max(terms, key=terms.get)


def compressed_ops(ops: dict, compression: bool) -> dict:
    """A level's operation counts with compression's share: with
    ``compression`` every packed edge is also compressed. A new dict, in
    the same order; the level's own counts are left as they are."""
    counts = dict(ops)
    if compression:
        counts["compress"] = ops["pack"]
    return counts


def edges_per_packet(edges, packets, payload_bytes: float, cp) -> float:
    """Edges one packet carries on average, ``edges`` sent in ``packets``
    (a full uncompressed packet's when none was sent)."""
    if packets:
        return float(edges / packets)
    return plain_edges_per_packet(payload_bytes, cp)


def stream_rates(stream_edges, busy_s) -> list:
    """Each channel's edges per second over a level whose senders are busy
    ``busy_s`` (a zero busy time only when nothing was done)."""
    return [edges / np.maximum(busy_s, 1e-12) for edges in stream_edges]


# -------------------------------------------------------------- the level
@dataclass(frozen=True)
class LevelPrice:
    """One cp1d-spi level's price on every node (arrays) or on one
    (scalars). The closing allreduce is not in it: the executed run hands
    it to the engine's collectives, the projection prices it apart."""

    busy_s: object  # until the node's last packet has drained (spi_level_busy_s)
    cpu_s: object  # its busiest thread
    memory_s: object  # its main memory's traffic
    inject_s: object  # its port, sending
    eject_s: object  # its port, receiving
    link_s: object  # the busiest link
    queue_s: object  # its probes' mean wait in its injection queue (level_queue_wait_s)

    @property
    def flush_s(self):
        """What the network and the memory add after the threads are done."""
        return self.busy_s - self.cpu_s

    @property
    def bottleneck(self) -> str:
        """The resource that bounds the busiest node (each term's largest)."""
        return bottleneck(*(float(np.max(term)) for term in (self.cpu_s, self.inject_s, self.eject_s, self.link_s,
                                                              self.memory_s)))


def price_level(machine: Machine, direction: str, nodes: int, *, cpu_s, memory_s, inject_s, eject_s, link_s,
                latency_s: float, sends: bool) -> LevelPrice:
    """A cp1d-spi level's busy time on ``nodes`` nodes of ``machine``, from
    each node's busiest thread (``cpu_s``), memory, ports and the busiest
    link: the module docstring's formula, with the longest route's
    ``latency_s`` in the drain (no drain unless the level ``sends``). Also
    how long its probes wait in the injection queue, which the bottom-up
    claim timing needs. Scalars or per-node arrays alike."""
    network = machine.network
    return LevelPrice(
        busy_s=spi_level_busy_s(cpu_s, inject_s, eject_s, link_s, memory_s, latency_s, network, direction,
                                sends=sends),
        cpu_s=cpu_s, memory_s=memory_s, inject_s=inject_s, eject_s=eject_s, link_s=link_s,
        queue_s=level_queue_wait_s(cpu_s, memory_s, inject_s, link_s, nodes, machine.section("cp1d").in_flight,
                                   network))


@dataclass(frozen=True)
class MpiLevelPrice:
    """One cp1d-mpi level's compute on every node (arrays) or on the nodes
    a projection prices: each exchange round's counting and writing passes
    (work.ExchangeRound) and the final pass. The exchanges between them are
    collectives, the engine's when executing and closed forms when
    projecting."""

    counting_s: tuple  # per round: the passes before its exchange of counts
    writing_s: tuple  # per round: the pass before its exchange of edges
    final_s: object  # after the last exchange: decoding and claiming

    @property
    def compute_s(self):
        """Every pass, in the order they run."""
        total = 0.0
        for counting, writing in zip(self.counting_s, self.writing_s):
            total = total + counting + writing
        return total + self.final_s

    @property
    def receive_s(self):
        """Fig. 13's receive part: the final pass, which decodes and claims."""
        return self.final_s


def price_mpi_level(passes, pass_seconds) -> MpiLevelPrice:
    """The compute of a cp1d-mpi level's ``passes`` (work.mpi_passes):
    ``pass_seconds(ops)`` gives one pass's time (its busiest thread) from
    its operation counts, on every node the caller prices. A round's
    counting passes (decoding the previous round's messages, then
    counting) follow one another."""
    counting = []
    for exchange in passes.rounds:
        seconds = 0.0
        for ops in exchange.counting:
            seconds = seconds + pass_seconds(ops)
        counting.append(seconds)
    return MpiLevelPrice(counting_s=tuple(counting),
                         writing_s=tuple(pass_seconds(exchange.writing) for exchange in passes.rounds),
                         final_s=pass_seconds(passes.final))


# ------------------------------------------------------- a layout's costs
# The executed runs' costs per node: the functions above with the layout's
# sizes and each node's counts.


def layout_residents(machine: Machine, layout: Layout) -> Residents:
    """The largest node's randomly accessed structures, and what a header
    read pulls from memory in this layout (memory.header_traffic)."""
    graph, spec = layout.graph, layout.graph.spec
    # a Kronecker graph's closed form takes its generated tuples; any other
    # graph its stored entries
    edges = (2.0 * spec.edgefactor * graph.num_vertices if spec.kind == "kronecker"
             else float(len(graph.indices)))
    return cp1d_residents(machine, float(layout.local_vertices.max()), layout.heavy_count, layout.N, layout.T,
                          header_traffic(machine, graph.num_vertices, edges, layout.T, spec.kind))


def node_counts(ops: dict) -> dict:
    """Each node's operation counts: the sum over its threads."""
    return {name: counts.sum(axis=1) for name, counts in ops.items()}


def level_costs(machine: Machine, layout: Layout, ops: dict, compression: bool) -> dict:
    """Per node, the cycles one of its threads spends per operation in a
    level whose work is ``ops`` (the level's whole mix sets the L2's hit
    rates, whichever part of it is then charged)."""
    return op_cycles(machine, layout.T, layout_residents(machine, layout), node_counts(ops), compression)


def thread_cycles(ops: dict, costs: dict) -> np.ndarray:
    """(N, T) cycles each thread is busy with ``ops`` at per-node ``costs``."""
    total = None
    for name, counts in ops.items():
        part = counts * np.asarray(costs[name])[..., None]
        total = part if total is None else total + part
    return total

