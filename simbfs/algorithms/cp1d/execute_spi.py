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
    The work itself (what is scanned, sent and claimed) is work.py's.

Timing of one level on node i
    pricing.price_level, with every node's terms: its busiest thread, its
    port loads from the engine's network, its memory traffic, the busiest
    link and the drain. Each node is busy that long (communication overlaps
    computation), and the closing allreduce starts when the last node is
    done. A bottom-up level's claims become visible under the claim timing
    that agrees with the level (claim_timing.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...bfs.direction import TOP_DOWN
from ...engine import NULL_RECORDER, Simulation
from ...engine.messaging import DirectPackets
from ...errors import UserError
from ...graph import Graph
from ...records import LevelRecord, RootRun
from ..base import Algorithm, LayoutCache
from ..search import RootSearch
from .claim_timing import ClaimDelay, ClaimTiming, NeverVisible, self_consistent_claim_timing
from .encoding import Traffic, encode
from .layout import Layout
from .memory import MEMORY_UNCERTAINTY, node_memory
from .pricing import (LevelPrice, closing_words, compressed_ops, edges_per_packet, layout_residents, memory_seconds,
                      node_counts, op_cycles, price_level, stream_rates, thread_cycles)
from .work import (OPTIONS, RECEIVE_OPS, CP1DOptions, LevelWork, bottom_up, calc_direction, require_cp1d,
                   top_down)


class CP1DSPI(Algorithm):
    """Seed 000's asynchronous direction-optimising 1D BFS over SPI."""

    paper = "000"
    directed_graphs = False
    OPTIONS = OPTIONS  # work.py's
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
        cp = require_cp1d(machine)
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
        cp = require_cp1d(sim.machine)
        threads = self.options.threads or cp.threads
        heavy = cp.heavy_vertices if self.options.load_balancing else 0
        key = (sim.nodes, threads, heavy, cp.index_stride)
        return self._layouts.get(graph, key, lambda: Layout(graph, *key))

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return SpiSearch(self, sim, graph, root, recorder).execute()


def spi_memory_bytes(machine, num_vertices: int, num_directed_edges: int, nodes: int,
                     graph_kind: str = "kronecker") -> float:
    """Peak bytes per node (memory.py): the structure, plus the larger of
    the generated tuples while it is built and the visit's parents,
    bitmaps and one open plus ``in_flight`` packets per destination."""
    return node_memory(machine, num_vertices, num_directed_edges, nodes, "spi", graph_kind).peak


def _zeros(words: int) -> np.ndarray:
    zeros = np.zeros(words, dtype=np.int64)
    zeros.setflags(write=False)
    return zeros


class Cp1dSearch(RootSearch):
    """What one root's run of a cp1d-* code keeps, whatever its timing: the
    search state (RootSearch), the closing allreduces of Algorithm 4, and
    CalcDirection on each level's claims. A subclass prices its levels and
    ends each in ``level_closed(closing)``, when its closing allreduce has
    completed."""

    def __init__(self, algorithm: CP1DSPI, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(sim, graph, root, recorder)
        self.options = algorithm.options
        self.cp = sim.machine.section("cp1d")
        self.layout = algorithm.layout(graph, sim)
        self.unvisited = self.n - 1
        heavy = self.layout.heavy_count if self.options.load_balancing else 0
        # Closing allreduce each level; P^H once at the end.
        self._closing_words = closing_words(heavy)
        self._final_words = heavy
        # Every rank's contribution (the reduced values are not used, only
        # their size is priced): one read-only array each, shared by all
        # ranks, not N copies (the final one has a word per heavy vertex).
        self._closing_zeros = _zeros(self._closing_words)
        self._final_zeros = _zeros(self._final_words)

    def closing_allreduce(self, rank: int, after: float, work: str | None = None):
        return self.ctx.collectives.allreduce(rank, self._closing_zeros, np.add,
                                              on_complete=self.level_closed, after=after, work=work,
                                              level=self.level)

    def final_allreduce(self, rank: int):
        """P^H, when there are heavy vertices: one allreduce picks their parents."""
        return self.ctx.collectives.allreduce(rank, self._final_zeros, np.minimum,
                                              on_complete=self._finish_visit, level=self.records[-1].level)

    def _finish_visit(self, result) -> None:
        last = self.records[-1]
        last.communication_s += result.cost_s
        last.time_s += result.cost_s

    def level_closed(self, closing) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def level_record(self, work: LevelWork, **priced) -> LevelRecord:
        """The current level's record: its work's counts, its time so far
        (the level ends now), the closing allreduce's bytes, and ``priced``."""
        return LevelRecord.with_rest_as_synchronisation(
            root=self.root, level=self.level, direction=work.direction, frontier_vertices=int(len(self.frontier)),
            edges_examined=int(work.edges_examined), time_s=self.ctx.env.now - self.level_start,
            collective_bytes=float(8 * self._closing_words * max(self.N - 1, 0)), **priced)

    def close(self, record: LevelRecord, work: LevelWork) -> None:
        """End the level with its claims (RootSearch.close_level); the next
        one's direction is CalcDirection's on the claims' edges and the
        vertices left (top-down throughout without direction optimisation)."""
        new = work.new_vertices
        self.unvisited -= len(new)
        direction = TOP_DOWN
        if self.options.direction_optimising:
            direction = calc_direction(int(self.layout.degree[new].sum()), self.unvisited)
        self.close_level(record, new, work.new_parents, direction)


@dataclass(frozen=True)
class PricedLevel:
    """A level's work, priced on every node: its LevelPrice, each node's
    busiest thread's sweep (``scan_s``) and receive time, its traffic and the
    engine network's loads of it."""

    work: LevelWork
    price: LevelPrice
    scan_s: np.ndarray
    receive_s: np.ndarray
    traffic: Traffic
    loads: object


class SpiSearch(Cp1dSearch):
    """A root's run of cp1d-spi: each level priced once (by the first node
    to reach it), each node busy its own busy time, then the closing
    allreduce."""

    def __init__(self, algorithm: CP1DSPI, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(algorithm, sim, graph, root, recorder)
        self._priced = None  # the current level's PricedLevel
        self._busy = None  # its busy times, per node
        self._sent = None  # its payload bytes sent, per node (for the recorder)

    def price(self, work: LevelWork, per_stream: bool = False) -> PricedLevel:
        """Every node's price of a level's ``work`` (pricing.price_level),
        with its traffic (each stream's edges per pair when asked: a claim
        timing's rates)."""
        machine, layout, opts = self.machine, self.layout, self.options
        ops = compressed_ops(work.ops, opts.compression)
        traffic = encode(layout, work.streams, self.cp, machine.network.packet_payload_bytes, opts.compression,
                         per_stream)
        loads = self.ctx.network.traffic_loads(traffic.pairs)
        clock = machine.node.clock_hz
        # the level's whole mix sets the L2's hit rates, whichever part of it is then charged
        residents, counts = layout_residents(machine, layout), node_counts(ops)
        costs = op_cycles(machine, layout.T, residents, counts, opts.compression)
        scan_s = thread_cycles({k: v for k, v in ops.items() if k not in RECEIVE_OPS}, costs) / clock
        receive_s = thread_cycles({k: ops[k] for k in RECEIVE_OPS}, costs) / clock
        overhead = DirectPackets(machine.messaging).overhead_s(loads.packets_out, loads.packets_in) / layout.T
        price = price_level(machine, work.direction, self.N,
                            cpu_s=(scan_s + receive_s + overhead[:, None]).max(axis=1),
                            memory_s=memory_seconds(machine, residents, counts), inject_s=loads.inject_s,
                            eject_s=loads.eject_s, link_s=loads.link_s, latency_s=loads.latency_s,
                            sends=bool(loads.wire_bytes))
        return PricedLevel(work, price, scan_s.max(axis=1), receive_s.max(axis=1), traffic, loads)

    def claim_timing(self, priced: PricedLevel, pairs: np.ndarray) -> ClaimTiming:
        """The claim timing a priced bottom-up level gives: each node's busy
        time as its sweep, each (sender, receiver) pair's edges per second
        on the level's two channels (probes, then answers) on the level's
        ``pairs`` (keys sender * N + receiver, those of its first pass), the
        edges per packet and each node's probes' queue wait."""
        price, traffic = priced.price, priced.traffic
        edges = [traffic.on(pairs, stream) for stream in traffic.stream_edges]
        probes, answers = stream_rates(edges, price.busy_s[pairs // self.N])
        per_packet = edges_per_packet(traffic.edges.sum(), traffic.packet_count,
                                      self.machine.network.packet_payload_bytes, self.cp)
        return ClaimTiming(price.busy_s, probes, answers, per_packet, price.queue_s)

    def priced_level(self) -> PricedLevel:
        """The current level's work, priced. Bottom-up: a first pass with no
        remote claim visible, then the claim timing that agrees with the
        level's own sweep times and stream rates
        (claim_timing.self_consistent_claim_timing)."""
        opts = self.options
        if self.direction == TOP_DOWN:
            return self.price(top_down(self.layout, self.frontier, self.visited, opts))
        level = bottom_up(self.layout, self.frontier, self.visited, opts)
        pairs, first = self.first_pass(level)

        def evaluate(timing: ClaimTiming):
            priced = self.price(level(ClaimDelay(self.sim, pairs, timing.sweep_s, timing.probe_rate,
                                                 timing.answer_rate, per_packet=timing.per_packet,
                                                 queue_s=timing.queue_s)),
                                per_stream=True)
            return priced, self.claim_timing(priced, pairs)

        return self_consistent_claim_timing(evaluate, first)

    def first_pass(self, level) -> tuple[np.ndarray, ClaimTiming]:
        """A bottom-up level's first pass, with no remote claim visible: it
        sends every probe the level can send, and so every answer, so its
        pairs (keys sender * N + receiver) hold every later pass's, and the
        claim timings' per-pair rates are kept on them. Returns those pairs
        and the pass's timing (its work and traffic are let go)."""
        priced = self.price(level(NeverVisible(self.N)), per_stream=True)
        pairs = priced.traffic.pairs.keys
        return pairs, self.claim_timing(priced, pairs)

    def node_program(self, rank: int):
        """One node: per level, its busy time (threads, ports, links and
        memory overlapped, then the drain), then the closing allreduce."""
        while not self.done:
            if self._busy is None:
                self._priced = self.priced_level()
                self._busy = self._priced.price.busy_s.tolist()
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
        priced = self._priced
        price, loads = priced.price, priced.loads
        start, level = self.level_start, self.level
        self.recorder.record(rank, "cpu", start, start + float(price.cpu_s[rank]), priced.work.direction,
                             level=level)
        port = max(float(loads.inject_s[rank]), float(loads.eject_s[rank]))
        if port > 0:
            if self._sent is None:
                self._sent = priced.traffic.pairs.sent_by()
            self.recorder.record(rank, "nic", start, start + port, "exchange", level=level,
                                 bytes=float(self._sent[rank]))
        self.recorder.record(rank, "node", start, start + float(price.busy_s[rank]), "busy", level=level)

    def level_closed(self, closing) -> None:
        priced = self._priced
        price, traffic = priced.price, priced.traffic
        flush = float(price.flush_s.mean())
        record = self.level_record(
            priced.work,
            messages=int(traffic.packet_count),
            bytes=traffic.payload_bytes,
            compute_s=float(price.cpu_s.mean()),
            communication_s=flush + closing.cost_s,
            compute_max_s=float(price.cpu_s.max()),
            bottleneck=price.bottleneck,
            edges_sent=int(traffic.edges.sum()),
            backward_messages=int(traffic.backward_packets),
            scan_s=float(priced.scan_s.mean()),
            receive_s=float(priced.receive_s.mean()),
            flush_s=flush,
        )
        self._busy = None
        self._priced = None
        self._sent = None
        self.close(record, priced.work)
