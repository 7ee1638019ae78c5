"""Ueno & Suzumura's 2D BFS on GPUs, executed: the paper's own algorithm
(seed 004, sections IV-V) on TSUBAME 2.0's model.

Each simulated node is one MPI process driving one GPU (004, VI-C); hosts
of ``network.processes_per_host`` processes share their network ports. A
level's work is computed on the real graph for every process at once
(work.py, with the expand lists really SIMD-VLQ-coded), priced per process
(``execute_level``: pricing.price_level on every process's counts), and each
process's program waits for it and then joins the allreduce of the next
frontier's size, which ends the level (Algorithm III, line 1) and, at zero,
the search. Spans of the GPU's kernels, its PCIe copies, the allgathers and
the host's ports are reported to the recorder for timelines; they never
change timing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...bfs.direction import TOP_DOWN
from ...bfs.keyed import sum_per_key
from ...engine import NULL_RECORDER, Simulation
from ...engine.traffic import PairTraffic
from ...errors import UserError
from ...graph import Graph
from ...records import LevelRecord, RootRun
from ..base import Algorithm
from ..search import RootSearch
from . import pricing
from . import work as ueno
from .pricing import Counts, Shape
from .work import Layout, Ueno2DOptions

EDGE_TUPLE_BYTES = 16  # two 64-bit ids per generated edge while the host builds the graph


def gpu_memory_bytes(section, num_vertices: float, num_directed_edges: float, processes: int) -> float:
    """Peak bytes one process keeps in its GPU's (device=gpu) or its host's
    (device=cpu) memory: its adjacency entries (48-bit, V-G) and their index
    (one entry per 32 vertices of its column), the CQ (n/C bits), SV (n/R
    bits), VISITED and NQ (n/P bits each) bitmaps, PRED, the gather buffer
    and its filtered copy, and the receive buffer."""
    rows, cols = ueno.grid_shape(processes)
    n = float(num_vertices)
    structure = num_directed_edges / processes * section.adjacency_entry_bytes + n / cols / 32 * section.index_bytes
    bitmaps = n / cols / 8 + n / rows / 8 + 2 * n / processes / 8
    buffers = 2 * section.gather_buffer_bytes + section.receive_threshold_bytes
    return structure + bitmaps + n / processes * section.parent_bytes + buffers


class Ueno2D(Algorithm):
    """Seed 004's 2D BFS with SIMD-VLQ expand compression and shared SV."""

    paper = "004"
    directed_graphs = False
    OPTIONS = ueno.OPTIONS
    options = Ueno2DOptions()
    requires = ("ueno2d", "gpu")
    memory_uncertainty = 0.05

    @property
    def summary(self) -> str:
        o = self.options
        sv = {"atomic": "(A) atomic", "ttas": "(B) test and test-and-set", "tas": "(C) test and set"}[o.sv]
        return (f"Ueno & Suzumura 2D BFS on {'GPUs' if o.device == 'gpu' else 'host CPUs'}: R x C grid, "
                f"{'SIMD-VLQ lists below alpha n, else bitmaps' if o.expand == 'auto' else 'bitmap'} expand, "
                f"SV shared along rows, SV update {sv}, fold overlapped with kernels")

    def check(self, machine, num_vertices: int, nodes: int) -> None:
        ueno.grid_shape(nodes)

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int, machine=None,
                          graph_kind: str = "kronecker") -> float:
        """Peak bytes of one *host* (node.memory describes a host). With
        device=gpu, first refuses what does not fit a GPU's memory: the
        paper's limit of scale 23 per GPU comes out of it (004, VI-C)."""
        section = machine.section("ueno2d")
        per_host = machine.network.processes_per_host
        device_bytes = gpu_memory_bytes(section, num_vertices, num_directed_edges, nodes)
        building = num_directed_edges / 2 / nodes * EDGE_TUPLE_BYTES
        if self.options.device == "gpu":
            gpu = machine.section("gpu")
            if device_bytes > gpu.memory_bytes:
                scale = int(num_vertices).bit_length() - 1  # exact for any size (2^99 overflows numpy)
                largest = scale - int(np.ceil(np.log2(device_bytes / gpu.memory_bytes)))
                raise UserError(
                    f"ueno2d keeps each process's graph and bitmaps in its GPU's memory: scale {scale} on {nodes:,} "
                    f"GPUs needs about {device_bytes / 2**30:.2f} GiB per GPU, but a GPU has "
                    f"{gpu.memory_bytes / 2**30:.2f} GiB (gpu.memory); use at most scale {largest} on {nodes:,} "
                    f"GPUs, or more GPUs (the paper's limit is scale 23 per GPU)")
            return per_host * building
        return per_host * max(building, device_bytes)

    def layout(self, graph: Graph, processes: int) -> Layout:
        return self.layouts.get(graph, processes, lambda: Layout(graph, processes))

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return _Run(self, sim, graph, root, recorder).execute()


class Fold:
    """The fold's edges between different processes, pair by pair (the
    pairs that have some): sums over them add whole numbers, exact in any
    order."""

    def __init__(self, work: ueno.LevelWork, portions: np.ndarray):
        self.P = P = len(portions)
        sender, receiver = work.fold_keys // P, work.fold_keys % P
        remote = sender != receiver
        self.pairs = work.fold_keys[remote]  # sender * P + receiver
        self.sender, self.receiver = sender[remote], receiver[remote]
        self.edges = work.fold_edges[remote]
        # one message per portion to each peer it has edges for
        self.messages = np.minimum(self.edges, portions[self.sender])

    def traffic(self, values: np.ndarray) -> PairTraffic:
        """One value per pair (payload bytes), as the network takes it."""
        return PairTraffic.from_keys(self.P, self.pairs, values)


def counts_of(layout: Layout, work: ueno.LevelWork, edge_bytes: float, fold: Fold) -> Counts:
    """Every process's counts of one executed level."""
    P = layout.P
    ex = work.expand
    return Counts(expand_mode=ex.mode, own_vertices=ex.own_vertices, own_bytes=ex.own_bytes,
                  column_bytes=ex.column_bytes, row_bytes=ex.row_bytes, column_vertices=ex.column_vertices,
                  row_vertices=ex.row_vertices, cq_words=work.cq_words, nonempty_words=work.nonempty_words,
                  entries=work.entries, passed=work.passed,
                  sent_bytes=sum_per_key(fold.sender, fold.edges, P) * edge_bytes, received=work.received,
                  received_bytes=sum_per_key(fold.receiver, fold.edges, P) * edge_bytes, claimed=work.claimed,
                  messages_out=sum_per_key(fold.sender, fold.messages, P),
                  messages_in=sum_per_key(fold.receiver, fold.messages, P))


@dataclass(frozen=True)
class ExecutedLevel:
    """One executed level: its work, every process's counts, its price
    (pricing.price_level) and each process's busy time until the allreduce."""

    work: ueno.LevelWork
    counts: Counts
    price: pricing.LevelPrice
    busy_s: np.ndarray


def execute_level(machine, network, layout: Layout, work: ueno.LevelWork, options: Ueno2DOptions) -> ExecutedLevel:
    """Every process's counts of the level and its price: the fold on the
    host ports from the real P x P edge counts, each allgather waiting for
    the slowest member of its real column (row)."""
    section = machine.section("ueno2d")
    portions = np.maximum(1.0, np.ceil(work.entries * section.edge_bytes / section.gather_buffer_bytes))
    fold = Fold(work, portions)
    loads = network.traffic_loads(fold.traffic(fold.edges * section.edge_bytes))
    counts = counts_of(layout, work, section.edge_bytes, fold)
    ports = np.maximum.reduce([loads.inject_s, loads.eject_s, np.full(layout.P, loads.link_s)])
    shape = Shape(n=layout.n, R=layout.R, C=layout.C)

    def column_max(values):
        return np.maximum.reduceat(np.asarray(values, dtype=np.float64), np.arange(0, layout.P, layout.R))[
            layout.col_of]

    def row_max(values):
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), (layout.P,))
        out = np.zeros(layout.R)
        np.maximum.at(out, layout.row_of, values)
        return out[layout.row_of]

    price = pricing.price_level(machine, options.device, options.sv, shape, counts, ports, loads.latency_s,
                                layout.per_column(work.expand.own_bytes), layout.per_row(work.expand.own_bytes),
                                column_max, row_max)
    busy = (np.broadcast_to(price.expand_s, (layout.P,)).astype(float)
            + np.broadcast_to(price.fold_s, (layout.P,)).astype(float))
    return ExecutedLevel(work, counts, price, busy)


class _Run(RootSearch):
    def __init__(self, algorithm: Ueno2D, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(sim, graph, root, recorder)
        self.options = algorithm.options
        self.section = sim.machine.section("ueno2d")
        self.layout = algorithm.layout(graph, sim.nodes)
        self._pending: ExecutedLevel | None = None

    def _plan(self) -> ExecutedLevel:
        mode = "bitmap" if self.options.expand == "bitmap" else "auto"
        work = ueno.level(self.layout, self.frontier, self.visited, self.section.alpha, self.section.simd_width, mode)
        return execute_level(self.machine, self.ctx.network, self.layout, work, self.options)

    def node_program(self, rank: int):
        while not self.done:
            if self._pending is None:
                self._pending = self._plan()
            level = self._pending
            if self.recorder.enabled:
                record_units(self.recorder, rank, self.level_start, self.level, level.price, self.options.device)
            yield self.ctx.collectives.allreduce(rank, np.array([level.work.claimed[rank]], dtype=np.float64),
                                                 on_complete=self._finish_level, after=float(level.busy_s[rank]),
                                                 work="expand and fold", level=self.level)

    def _finish_level(self, closing) -> None:
        level, self._pending = self._pending, None
        work, c = level.work, level.counts
        kernels = np.broadcast_to(level.price.compute_s, (self.N,))
        record = LevelRecord.with_rest_as_synchronisation(
            root=self.root, level=self.level, direction=TOP_DOWN,
            frontier_vertices=int(len(self.frontier)), edges_examined=work.edges_examined,
            messages=int(np.sum(c.messages_out)), bytes=float(np.sum(c.sent_bytes)),
            time_s=self.ctx.env.now - self.level_start, compute_s=float(kernels.mean()),
            communication_s=float((level.busy_s - kernels).mean()) + closing.cost_s,
            compute_max_s=float(kernels.max()), bottleneck=level.price.bottleneck,
            collective_bytes=float(np.sum(c.column_bytes) + np.sum(c.row_bytes)),
            edges_sent=int(round(float(np.sum(c.sent_bytes)) / self.section.edge_bytes)))
        self.close_level(record, work.new_vertices, work.new_parents)


def _at(value, rank: int) -> float:
    array = np.asarray(value, dtype=np.float64)
    return float(array) if array.ndim == 0 else float(array[rank])


def record_units(recorder, rank: int, start: float, level: int, price: pricing.LevelPrice, device: str) -> None:
    """The process's units over the level, for timelines (spans only; the
    level's timing is set by price_level). Expand: encode, copy out, the two
    allgathers, copy in, decode, in turn. Fold: the CQ list, then the
    portions: gather and filter of portion k on the GPU, its copy out, the
    host's port, its copy in at the receiver and task 8 on the GPU, laid
    out as the pipeline (pricing.py) runs them (the received edges of
    portion k are drawn as arriving with the process's own portion k); the
    level's timing is the pipeline's bound, which these spans stay within."""
    t = price.times
    kernels = {name: _at(value, rank) for name, value in t.kernels.items()}
    gpu = "gpu" if device == "gpu" else "cpu"
    clock = start

    def span(unit, seconds, what, at=None):
        nonlocal clock
        begin = clock if at is None else at
        if seconds > 0:
            recorder.record(rank, unit, begin, begin + seconds, what, level=level, direction=TOP_DOWN)
        return begin + seconds

    clock = span(gpu, kernels["encode"], "encode NQ (SIMD-VLQ)")
    clock = span("pcie d2h", _at(t.expand_d2h, rank), "copy NQ to host")
    expand_end = start + _at(price.expand_s, rank)
    finish = _at(t.expand_h2d, rank) + kernels["decode"]
    gathers = expand_end - finish - clock
    column = min(_at(t.column_allgather, rank), gathers)
    span("network", column, "allgather NQ in column", at=expand_end - finish - gathers)
    span("network", gathers - column, "wait + allgather NQ in row", at=expand_end - finish - gathers + column)
    clock = expand_end - finish
    clock = span("pcie h2d", _at(t.expand_h2d, rank), "copy CQ and SV parts to GPU")
    clock = span(gpu, kernels["decode"], "decode, set CQ and SV")
    clock = span(gpu, kernels["cq_list"], "generate CQ list")
    portions = int(max(1, min(_at(t.portions, rank), 64)))  # a timeline needs no more detail
    per = {name: kernels[name] / portions for name in ("gather", "filter", "receive")}
    d2h, h2d = _at(t.fold_d2h, rank) / portions, _at(t.fold_h2d, rank) / portions
    port = _at(t.ports, rank) / portions
    gpu_free = copy_out = wire = copy_in = clock
    # The GPU runs task 8 on a received portion as soon as its edges are on
    # the GPU and the GPU is free, else the next portion's gather+filter.
    arrived = []  # when each portion's received edges are on the GPU
    gathered = received = 0
    while received < portions:
        waiting = received < gathered and arrived[received] <= gpu_free
        if gathered < portions and not waiting:
            gathered += 1
            gpu_free = span(gpu, per["gather"] + per["filter"], f"gather+filter portion {gathered}", at=gpu_free)
            copy_out = span("pcie d2h", d2h, f"copy portion {gathered} out", at=max(copy_out, gpu_free))
            wire = span("network", port, f"fold portion {gathered}", at=max(wire, copy_out))
            copy_in = span("pcie h2d", h2d, f"copy received {gathered} in", at=max(copy_in, wire))
            arrived.append(copy_in)
        else:
            received += 1
            gpu_free = span(gpu, per["receive"], f"receive (task 8) {received}",
                            at=max(gpu_free, arrived[received - 1]))
