"""Checconi & Petrini's asynchronous 1D BFS over SPI: the paper's own code.

What it implements
    Seed 000, Algorithms 2-4 with the communication of III-B: threads sweep
    their edge-list slices and hand edges to one open packet per
    destination; packets go out as they fill, a bounded number in flight,
    probes and answers on separate channels; receives are handled while the
    sweep goes on; each level ends with a flush and an allreduce that
    decides the next direction (CalcDirection: bottom-up when the edges
    reachable from the frontier outnumber the unvisited vertices) and, with
    load balancing, ORs the heavy vertices' bitmaps.
    The work itself (what is scanned, sent and claimed) is cp1d.py's.

Timing of one level on node i (docs/background/cp1d.md)
    Communication overlaps computation (the paper's "almost complete
    overlap", IV-E), and a send waits while its buffer is still in flight,
    so a node's level lasts as long as its slowest resource:

        busy_i = max(cpu_i, inject_i, eject_i, busiest link, memory_i) + drain

    cpu_i is its busiest thread (sweep, packing, compression, decoding,
    claiming, per-packet SPI overheads), inject_i/eject_i its port loads,
    memory_i its DRAM traffic, drain the last packet's flight (twice in a
    bottom-up level: a probe and then its answer). The closing allreduce
    starts when the last node is done.

Bottom-up claim visibility
    A probe waits in its open packet until the packet fills (half a packet's
    worth of that stream's edges on average, at the stream's rate, or until
    the level's end), crosses the network, is answered into an open packet
    of the reverse stream, and crosses back. The sweep time and stream rates
    this needs come from the level itself: the level is computed once with
    no remote claim visible (an upper bound on probes), then again with the
    sweep times and stream rates of that first pass.
"""

from __future__ import annotations

import numpy as np

from ...bfs.direction import BOTTOM_UP, TOP_DOWN
from ...engine import NULL_RECORDER, Simulation
from ...engine.messaging import DirectPackets
from ...errors import UserError
from ...graph import Graph
from ..base import Algorithm, LayoutCache
from ..search import RootSearch
from ...records import LevelRecord, RootRun
from . import work as cp1d
from .memory import MEMORY_UNCERTAINTY, node_memory
from .work import CP1DOptions, Layout, LevelWork, Traffic


def calc_direction(frontier_edges: int, unvisited_vertices: int) -> str:
    """CalcDirection of Algorithm 2 (III-A): it "counts how many vertices
    have not been visited yet, and how many edges are reachable from the
    frontier; if the edges reachable from the frontier outnumber the ones to
    be visited we switch to a bottom-up visit". We read "the ones to be
    visited" as those vertices (a bottom-up level costs at least one check
    per unvisited vertex, a top-down level one message per frontier edge)."""
    return BOTTOM_UP if frontier_edges > unvisited_vertices else TOP_DOWN


# The most (prober, owner) pairs whose claim-delay parts are tabled (three
# float64 tables: 96 MiB); beyond, the delays are asked segment by segment.
# Either way gives the same values; this only bounds the tables' memory.
PAIR_TABLES_MAX = 1 << 22


def offers_pair_tables(count: int, pairs: int) -> bool:
    """Whether a claim timing offers (prober, owner) tables for a level of
    ``count`` entries among ``pairs`` pairs: when the entries outnumber the
    pairs (each pair's parts then computed once pay off) and the tables
    stay within PAIR_TABLES_MAX."""
    return pairs < count and pairs <= PAIR_TABLES_MAX


class ClaimDelay:
    """Time from a remote probe to its claim being visible to the prober
    (cp1d.claim_delay_s), for every (prober, owner) pair of a level."""

    def __init__(self, sim: Simulation, sweep_time: np.ndarray, probe_rate=None, answer_rate=None,
                 per_packet: float = 1.0, queue_s=0.0):
        self.sweep_time = sweep_time
        self._hops = sim.topology.hop_matrix
        # per node: a probe's wait in its prober's injection queue, spread
        # over the delay's two trips (cp1d.probe_queue_share)
        queue = np.broadcast_to(cp1d.probe_queue_share(queue_s), sweep_time.shape)
        self._queue = np.broadcast_to(queue[:, None], (len(queue), len(queue))) if queue.any() else None
        self._network = sim.machine.network
        self._layer = DirectPackets(sim.machine.messaging)
        # N x N edges per second, or None (no buffering), both indexed
        # [prober, owner]: the answers flow from owner to prober
        self._probe_rate = probe_rate
        self._answer_rate = None if answer_rate is None else answer_rate.T
        self._per_packet = per_packet
        self._pair_table = None  # (trip, probe fill, answer fill) of every pair, once needed

    def _parts(self, pick):
        """The parts of the delay that depend only on the (prober, owner)
        pair: its trip, its probe's fill wait and its answer's, for the
        pairs ``pick`` takes from an N x N matrix indexed [prober, owner]."""
        trip = cp1d.packet_trip_s(pick(self._hops), self._network, self._layer)
        if self._queue is not None:
            trip = trip + pick(self._queue)
        return (trip, *(np.zeros(trip.shape) if rate is None else cp1d.fill_wait_s(self._per_packet, pick(rate))
                        for rate in (self._probe_rate, self._answer_rate)))

    def pair_tables(self, count: int):
        """(trip, probe fill, answer fill) of every (prober, owner) pair, N * N
        tables indexed prober * N + owner, when ``count`` probes (or an upper
        bound of them) outnumber the pairs and the tables stay small
        (PAIR_TABLES_MAX pairs: 2,048 nodes); each pair's parts once, with
        the same element-wise arithmetic, so the same values. Else None."""
        N = len(self.sweep_time)
        if not offers_pair_tables(count, N * N):
            return None
        if self._pair_table is None:  # the matrices in prober-major order
            self._pair_table = self._parts(lambda matrix: matrix.reshape(-1))
        return self._pair_table

    def __call__(self, prober: np.ndarray, owner: np.ndarray, t: np.ndarray) -> np.ndarray:
        N = len(self.sweep_time)
        tables = self.pair_tables(len(prober))
        if tables is not None:
            trip, probe_fill, answer_fill = (table[prober * N + owner] for table in tables)
        else:
            trip, probe_fill, answer_fill = self._parts(lambda matrix: matrix[prober, owner])
        return cp1d.probe_claim_delay_s(self.sweep_time[prober], self.sweep_time[owner], t, probe_fill, answer_fill,
                                        trip)


class NeverVisible:
    """Claims found by remote probes are not seen within the level: the
    bulk-synchronous exchange of cp1d-mpi, and the first pass of a
    cp1d-spi bottom-up level. Only the order of the threads' visits matters
    then, so every sweep takes one unit of time."""

    never_visible = True  # (BottomUpLevel then skips the delays)

    def __init__(self, nodes: int):
        self.sweep_time = np.ones(nodes)

    def __call__(self, prober, owner, t):
        return np.full(len(prober), np.inf)


class CP1DSPI(Algorithm):
    """Seed 000's asynchronous direction-optimising 1D BFS over SPI."""

    paper = "000"
    directed_graphs = False
    OPTIONS = cp1d.OPTIONS
    requires = ("cp1d",)
    memory_uncertainty = MEMORY_UNCERTAINTY

    def __init__(self, name: str, options: CP1DOptions = CP1DOptions()):
        self.name = name
        self.options = options
        self._layouts = LayoutCache()

    @property
    def summary(self) -> str:
        o = self.options
        on = [label for label, flag in (("direction optimisation", o.direction_optimising),
                                        ("compression", o.compression), ("load balancing", o.load_balancing))
              if flag]
        return (f"Checconi & Petrini asynchronous 1D BFS over SPI, {o.representation}"
                + (f", with {', '.join(on)}" if on else ", no optimisations"))

    def check(self, machine, num_vertices: int, nodes: int) -> None:
        cp = cp1d.require_cp1d(machine)
        threads = self.options.threads or cp.threads
        limit = int(machine.node.cores * machine.node.threads_per_core)
        if threads > limit:
            where = (f"--algorithm {self.name.partition(':')[0]}:threads={limit}" if self.options.threads
                     else f"--set cp1d.threads={limit}")
            raise UserError(f"{threads} threads per node, but a {machine.name} node runs at most {limit} "
                            f"(node.cores x node.threads_per_core); use {where} or fewer")

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int, machine=None,
                          graph_kind: str = "kronecker") -> float:
        return spi_memory_bytes(machine, num_vertices, num_directed_edges, nodes, graph_kind)

    def layout(self, graph: Graph, sim: Simulation) -> Layout:
        cp = cp1d.require_cp1d(sim.machine)
        threads = self.options.threads or cp.threads
        heavy = cp.heavy_vertices if self.options.load_balancing else 0
        key = (sim.nodes, threads, heavy, cp.index_stride)
        return self._layouts.get(graph, key, lambda: Layout(graph, *key))

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return _Run(self, sim, graph, root, recorder).execute()


def spi_memory_bytes(machine, num_vertices: int, num_directed_edges: int, nodes: int,
                     graph_kind: str = "kronecker") -> float:
    """Peak bytes per node (memory.py): the structure, plus the larger of
    the generated tuples while it is built and the visit's parents,
    bitmaps and one open plus ``in_flight`` packets per destination."""
    return node_memory(machine, num_vertices, num_directed_edges, nodes, "spi", graph_kind).peak


class Cp1dRun(RootSearch):
    """What one root's run of a cp1d-* code keeps, whatever its timing: the
    search state (RootSearch), the closing allreduces of Algorithm 4."""

    def __init__(self, algorithm: CP1DSPI, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(sim, graph, root, recorder)
        self.options = algorithm.options
        self.cp = sim.machine.section("cp1d")
        self.layout = algorithm.layout(graph, sim)
        self.unvisited = self.n - 1
        heavy = self.layout.heavy_count if self.options.load_balancing else 0
        # Closing allreduce each level; P^H once at the end.
        self._closing_words = cp1d.closing_words(heavy)
        self._final_words = heavy

    def closing_allreduce(self, rank: int, after: float, work: str | None = None):
        return self.ctx.collectives.allreduce(rank, np.zeros(self._closing_words, dtype=np.int64), np.add,
                                              on_complete=self._finish_level, after=after, work=work,
                                              level=self.level)

    def final_allreduce(self, rank: int):
        """P^H, when there are heavy vertices: one allreduce picks their parents."""
        return self.ctx.collectives.allreduce(rank, np.zeros(self._final_words, dtype=np.int64), np.minimum,
                                              on_complete=self._finish_visit, level=self.records[-1].level)

    def _finish_visit(self, result) -> None:
        last = self.records[-1]
        last.communication_s += result.cost_s
        last.time_s += result.cost_s

    def _finish_level(self, closing) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def advance(self, work: LevelWork) -> None:
        """Apply a finished level's claims and choose the next direction."""
        new = work.new_vertices
        self.parent[new] = work.new_parents
        self.visited[new] = True
        self.unvisited -= len(new)
        if self.options.direction_optimising:
            self.direction = calc_direction(int(self.layout.degree[new].sum()), self.unvisited)
        self.frontier = new
        self.level += 1
        self.level_start = self.ctx.env.now
        self.done = len(new) == 0

class _Run(Cp1dRun):
    def __init__(self, algorithm: CP1DSPI, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(algorithm, sim, graph, root, recorder)
        self._busy = None
        self._pending = None

    # -------------------------------------------------------- one level
    def _price(self, work: LevelWork, per_stream: bool = False):
        """Per-node busy time of a level's work, and its parts (the traffic
        with each stream's edges per pair when asked: a claim timing's rates)."""
        machine, layout, opts = self.machine, self.layout, self.options
        if opts.compression:
            work.ops["compress"] = work.ops["pack"].copy()
        traffic = cp1d.encode(layout, work.streams, self.cp, machine.network.packet_payload_bytes, opts.compression,
                              per_stream)
        loads = self.ctx.network.traffic_loads(traffic.payload, traffic.packets)
        clock = machine.node.clock_hz
        costs = cp1d.level_costs(machine, layout, work.ops, opts.compression)
        scan_s = cp1d.thread_cycles({k: v for k, v in work.ops.items() if k not in cp1d.RECEIVE_OPS}, costs) / clock
        receive_s = cp1d.thread_cycles({k: work.ops[k] for k in cp1d.RECEIVE_OPS}, costs) / clock
        overhead = DirectPackets(machine.messaging).overhead_s(loads.packets_out, loads.packets_in) / layout.T
        cpu = (scan_s + receive_s + overhead[:, None]).max(axis=1)
        memory = cp1d.memory_seconds(machine, layout, work.ops)
        busy = cp1d.spi_level_busy_s(cpu, loads.inject_s, loads.eject_s, loads.link_s, memory, loads.latency_s,
                                     machine.network, work.direction, sends=bool(loads.wire_bytes))
        return busy, cpu, scan_s.max(axis=1), receive_s.max(axis=1), traffic, loads, memory

    def _level_work(self):
        opts = self.options
        if self.direction == TOP_DOWN:
            work = cp1d.top_down(self.layout, self.frontier, self.visited, opts)
            return work, self._price(work)
        # Bottom-up: a first pass with no remote claim visible, then the
        # claim timing that agrees with the level's own sweep times and
        # stream rates (cp1d.self_consistent_claim_timing).
        level = cp1d.bottom_up(self.layout, self.frontier, self.visited, opts)

        def timing_of(priced) -> cp1d.ClaimTiming:
            busy, cpu, traffic, loads, memory = priced[0], priced[1], priced[4], priced[5], priced[6]
            return cp1d.ClaimTiming(busy, *self._rates(traffic, busy), self._per_packet(traffic),
                                    cp1d.level_queue_wait_s(cpu, memory, loads.inject_s, loads.link_s, self.N,
                                                            self.cp.in_flight, self.machine.network))

        def evaluate(timing: cp1d.ClaimTiming):
            work = level(ClaimDelay(self.sim, timing.sweep_s, timing.probe_rate, timing.answer_rate,
                                    per_packet=timing.per_packet, queue_s=timing.queue_s))
            priced = self._price(work, per_stream=True)
            return (work, priced), timing_of(priced)

        first = timing_of(self._price(level(NeverVisible(self.N)), per_stream=True))
        return cp1d.self_consistent_claim_timing(evaluate, first)

    def _rates(self, traffic: Traffic, busy: np.ndarray):
        """Edges per second on every (sender, receiver) pair, per channel
        (the level's two streams: probes, then answers)."""
        probes, answers = (edges / np.maximum(busy, 1e-12)[:, None] for edges in traffic.stream_edges)
        return probes, answers

    def _per_packet(self, traffic: Traffic) -> float:
        """Edges one packet carries on average (a full uncompressed one if none was sent)."""
        packets = traffic.packets.sum()
        if packets:
            return float(traffic.edges.sum() / packets)
        return float(np.floor(self.machine.network.packet_payload_bytes / self.cp.uncompressed_entry_bytes))

    def node_program(self, rank: int):
        """One node: per level, its busy time (threads, ports, links and
        memory overlapped, then the drain), then the closing allreduce."""
        while not self.done:
            if self._busy is None:
                work, priced = self._level_work()
                self._pending = (work, priced)
                self._busy = priced[0].tolist()
            if self.recorder.enabled:
                self._record_level(rank)
            yield self.closing_allreduce(rank, after=self._busy[rank])
        if self._final_words:
            yield self.final_allreduce(rank)

    def _record_level(self, rank: int) -> None:
        """The node's overlapped activity from the level's start: its
        threads' work (``cpu``, named by direction), its port traffic
        (``nic``: the longer of sending and receiving) and the level's
        whole busy time (``busy`` on ``node``, up to the drain's end)."""
        work, (busy, cpu, _, _, traffic, loads, _) = self._pending
        start, level = self.level_start, self.level
        self.recorder.record(rank, "cpu", start, start + float(cpu[rank]), work.direction, level=level)
        port = max(float(loads.inject_s[rank]), float(loads.eject_s[rank]))
        if port > 0:
            self.recorder.record(rank, "nic", start, start + port, "exchange", level=level,
                                 bytes=float(traffic.payload[rank].sum()))
        self.recorder.record(rank, "node", start, start + float(busy[rank]), "busy", level=level)

    def _finish_level(self, closing) -> None:
        work, (busy, cpu, scan, receive, traffic, loads, memory) = self._pending
        time_s = self.ctx.env.now - self.level_start
        compute_mean = float(cpu.mean())
        comm = float((busy - cpu).mean()) + closing.cost_s
        self.records.append(LevelRecord.with_rest_as_synchronisation(
            root=self.root,
            level=self.level,
            direction=work.direction,
            frontier_vertices=int(len(self.frontier)),
            edges_examined=int(work.edges_examined),
            messages=int(traffic.packets.sum()),
            bytes=float(traffic.payload.sum()),
            time_s=time_s,
            compute_s=compute_mean,
            communication_s=comm,
            compute_max_s=float(cpu.max()),
            bottleneck=_bottleneck(cpu, loads, memory),
            collective_bytes=float(8 * self._closing_words * max(self.N - 1, 0)),
            edges_sent=int(traffic.edges.sum()),
            backward_messages=int(traffic.backward_packets),
            scan_s=float(scan.mean()),
            receive_s=float(receive.mean()),
            flush_s=float((busy - cpu).mean()),
        ))
        self.ctx.recorder.level_done(self.records[-1])
        self._busy = None
        self._pending = None
        self.advance(work)


def _bottleneck(cpu: np.ndarray, loads, memory: np.ndarray) -> str:
    return bottleneck(float(cpu.max()), float(loads.inject_s.max()), float(loads.eject_s.max()), loads.link_s,
                      float(memory.max()))


def bottleneck(cpu_s: float, inject_s: float, eject_s: float, link_s: float, memory_s: float) -> str:
    """The resource that bounds a level's busy time (ties: the first named)."""
    terms = {"compute": cpu_s, "injection": inject_s, "ejection": eject_s, "link": link_s, "memory": memory_s}
    return max(terms, key=terms.get)
