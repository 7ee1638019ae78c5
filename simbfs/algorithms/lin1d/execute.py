"""Lin et al.'s asynchronous 1D BFS on Sunway TaihuLight, executed: the
paper's own algorithm (seed 003, Algorithms 1-2, sections 4-5).

One level on node i (docs/background/lin1d.md)
    The level's work (work.py) gives every node's counters and the real
    pairs of every network phase; the pairs give each node's MPI messages
    and the network's loads of every phase together (``level_traffic``),
    and pricing.price_level the node's busy time: its busiest unit plus
    the pipeline's fill and drain (the formula is pricing.py's). The node
    then joins the collectives that close the level: the allgather of the
    hub bitmaps (a flag for a node without frontier hubs), which also
    carries the counts the direction policy needs; after a bottom-up level
    a reduce-scatter first brings the hubs that the owners of their
    neighbours claimed to their own owners (pricing.closing_collectives).

Direction
    The traversal policy is Beamer's (003, 2.1 cites it): simbfs.bfs.direction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...bfs.direction import TOP_DOWN, choose_direction
from ...bfs.keyed import sum_per_key
from ...engine import NULL_RECORDER, Simulation
from ...engine.traffic import PairTraffic
from ...errors import UserError
from ...graph import Graph
from ...records import LevelRecord, RootRun
from ..base import Algorithm
from ..search import RootSearch
from . import pricing
from . import work as lin
from .work import Layout, Lin1DOptions

BITMAPS = 3  # visited, current and next frontier, one bit per local vertex
EDGE_TUPLE_BYTES = 16  # two 64-bit ids per generated edge while the graph is built
OFFSET_BYTES = 8


class Lin1D(Algorithm):
    """Seed 003's pipelined, relay-batched direction-optimising 1D BFS."""

    paper = "003"
    directed_graphs = False
    OPTIONS = lin.OPTIONS
    options = Lin1DOptions()
    requires = ("lin1d", "cpe_cluster")
    memory_uncertainty = 0.05

    @property
    def summary(self) -> str:
        o = self.options
        return (f"Lin et al. pipelined 1D BFS on SW26010, modules on {'CPE clusters' if o.modules == 'cpe' else 'MPEs'}"
                f", {'relay through N x M groups' if o.relay else 'direct messages'}"
                + ("" if o.direction_optimising else ", top-down only"))

    def check(self, machine, num_vertices: int, nodes: int) -> None:
        """Refuse what the machine cannot hold: the consumers' scratch pads
        must buffer every destination of a reaction module (4.3)."""
        if self.options.modules != "cpe":
            return
        cpe, section = machine.section("cpe_cluster"), machine.section("lin1d")
        fits = cpe.consumer_destinations(section.buffers_per_destination)
        destinations = self.destinations(machine, nodes)
        if destinations > fits:
            raise UserError(
                f"lin1d with modules on CPE clusters and {'relay' if self.options.relay else 'direct messages'} "
                f"sends each reaction module's output to {destinations:,} destinations, but the consumers' "
                f"scratch pads (SPM) buffer at most {fits:,} ({cpe.layout.consumers} consumers x "
                f"{cpe.spm_bytes / 1024:g} KiB / ({cpe.batch_bytes:g} B x {section.buffers_per_destination})); "
                f"use lin1d:relay=on, or lin1d:modules=mpe, or at most {fits + 1:,} nodes")

    def destinations(self, machine, nodes: int) -> int:
        """Destinations one reaction module writes batches for: every other
        node directly; with relay, the relays at its column and its own
        group's members (lin.peer_count)."""
        return lin.peer_count(nodes, machine.section("lin1d").group_size, self.options.relay)

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int, machine=None,
                          graph_kind: str = "kronecker") -> float:
        """Peak bytes per node: the CSR (entries and offsets) plus the larger
        of the generated tuples while it is built and the visit's parents,
        bitmaps, gathered hub bitmaps and MPI connections."""
        section = machine.section("lin1d")
        local = -(-num_vertices // nodes)
        structure = num_directed_edges / nodes * section.adjacency_entry_bytes + local * OFFSET_BYTES
        building = num_directed_edges / 2 / nodes * EDGE_TUPLE_BYTES
        peers = lin.peer_count(nodes, section.group_size, self.options.relay)
        visit = (local * (section.parent_bytes + BITMAPS / 8) + nodes * section.hubs_bottom_up / 8
                 + float(pricing.connection_bytes(machine, peers)))
        return structure + max(building, visit)

    def layout(self, graph: Graph, sim: Simulation) -> Layout:
        section = sim.machine.section("lin1d")
        key = (sim.nodes, section.group_size, section.hubs_top_down, section.hubs_bottom_up)
        return self.layouts.get(graph, key, lambda: Layout(graph, *key))

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return _Run(self, sim, graph, root, recorder).execute()


@dataclass(frozen=True)
class LevelTraffic:
    """A level's messages, counted on its real pairs (work.traffic), and the
    network's loads of every phase's pairs together."""

    messages_out: np.ndarray  # per node, MPI messages sent
    messages_in: np.ndarray  # per node, MPI messages received
    small_share: np.ndarray  # per node, the share of the pairs it receives in messages under lin1d.small_input
    loads: object  # Network.traffic_loads
    phases: int  # network phases the pipeline goes through (0: no traffic)
    messages: float
    pairs: float
    payload_bytes: float


def level_traffic(machine, network, layout: Layout, work: lin.LevelWork) -> LevelTraffic:
    """The level's messages per node, the share of small inputs, and the
    network's loads of its pairs (priced by the engine's network)."""
    section = machine.section("lin1d")
    traffic = lin.traffic(layout, work)
    phases = traffic.pairs
    N = layout.N
    if phases:
        # per pair of nodes that talk; every sum over them adds counts
        # (whole numbers), which is exact in any order
        sender, receiver = traffic.talking // N, traffic.talking % N
        pairs = sum(phases)
        messages = np.where(sender == receiver, 0.0, sum(pricing.messages(p, machine) for p in phases))
        packets = sum(machine.network.packets(p * section.pair_bytes) for p in phases)
        loads = network.traffic_loads(PairTraffic.from_keys(N, traffic.talking, pairs * section.pair_bytes,
                                                            packets))
        # inputs under lin1d.small_input, message by message (phase by phase)
        small = (sum_per_key(receiver, sum(pricing.small_input(p, machine) for p in phases), N)
                 / np.maximum(sum_per_key(receiver, pairs, N), 1e-300))
        messages_out, messages_in = sum_per_key(sender, messages, N), sum_per_key(receiver, messages, N)
    else:
        pairs = messages = np.zeros(0)
        loads = network.traffic_loads(PairTraffic.from_keys(N, np.zeros(0, dtype=np.int64), pairs))
        small = np.zeros(N)
        messages_out = messages_in = np.zeros(N)
    return LevelTraffic(messages_out=messages_out, messages_in=messages_in, small_share=small, loads=loads,
                        phases=len(phases) if loads.wire_bytes else 0, messages=float(messages.sum()),
                        pairs=float(pairs.sum()), payload_bytes=float(pairs.sum() * section.pair_bytes))


@dataclass(frozen=True)
class ExecutedLevel:
    """One executed level: its work and traffic, its price on every node
    (pricing.price_level), the next level's direction and the closing
    collectives' (kind, total bytes)."""

    work: lin.LevelWork
    traffic: LevelTraffic
    price: pricing.LevelPrice
    busy_s: np.ndarray
    next_direction: str
    closing: list


class _Run(RootSearch):
    def __init__(self, algorithm: Lin1D, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(sim, graph, root, recorder)
        self.options = algorithm.options
        self.section = sim.machine.section("lin1d")
        self.layout = algorithm.layout(graph, sim)
        self.unexplored_edges = int(self.layout.degree.sum()) - int(self.layout.degree[root])
        self._pending: ExecutedLevel | None = None
        self._closing_s = 0.0  # the level's closing collectives before the last

    # ------------------------------------------------------------ one level
    def _plan(self) -> ExecutedLevel:
        layout, opts = self.layout, self.options
        step = lin.top_down if self.direction == TOP_DOWN else lin.bottom_up
        work = step(layout, self.frontier, self.visited, opts)
        traffic = level_traffic(self.machine, self.ctx.network, layout, work)
        loads = traffic.loads
        price = pricing.price_level(self.machine, work.counts, work.direction, opts.modules, layout.local_vertices,
                                    traffic.small_share, traffic.messages_out, traffic.messages_in,
                                    injection_s=loads.inject_s, ejection_s=loads.eject_s, link_s=loads.link_s,
                                    phases=traffic.phases, route_latency_s=loads.latency_s)
        next_direction = self._next_direction(work)
        gathered = lin.gathered_hubs(work.direction, next_direction)
        hubs = layout.hubs(gathered)
        frontier_hubs = np.bincount(layout.owner(work.new_vertices[hubs[work.new_vertices]]), minlength=self.N)
        closing = pricing.closing_bytes(work.direction, self.N, float(np.count_nonzero(frontier_hubs)),
                                        layout.hubs_per_node[gathered])
        busy = np.broadcast_to(price.busy_s, (self.N,))
        return ExecutedLevel(work, traffic, price, busy, next_direction, closing)

    def _next_direction(self, work: lin.LevelWork) -> str:
        if not self.options.direction_optimising:
            return TOP_DOWN
        new = work.new_vertices
        return choose_direction(self.direction, frontier_edges=int(self.layout.degree[new].sum()),
                                unexplored_edges=self.unexplored_edges - int(self.layout.degree[new].sum()),
                                frontier_vertices=int(len(new)), prev_frontier_vertices=int(len(self.frontier)),
                                num_vertices=self.n)

    def node_program(self, rank: int):
        while not self.done:
            if self._pending is None:
                self._pending = self._plan()
            level = self._pending
            direction = level.work.direction
            if self.recorder.enabled:
                record_units(self.recorder, rank, self.level_start, self.level, direction, level.price, self.N,
                             self.machine.section("cpe_cluster").clusters)
            after, work_name = float(level.busy_s[rank]), f"{direction} modules"
            for step, (kind, nbytes) in enumerate(level.closing):
                last = step == len(level.closing) - 1
                yield getattr(self.ctx.collectives, kind)(
                    rank, nbytes / self.N, on_complete=self._finish_level if last else self._closing_step,
                    after=after, work=work_name, level=self.level)
                after, work_name = 0.0, None

    def _closing_step(self, result) -> None:
        self._closing_s += result.cost_s

    def _finish_level(self, last) -> None:
        level, self._pending = self._pending, None
        work, traffic = level.work, level.traffic
        closing_s, self._closing_s = self._closing_s + last.cost_s, 0.0
        carried = sum(nbytes for _, nbytes in level.closing)
        compute = level.price.compute_s
        record = LevelRecord.with_rest_as_synchronisation(
            root=self.root, level=self.level, direction=work.direction,
            frontier_vertices=int(len(self.frontier)), edges_examined=int(work.edges_examined),
            messages=int(traffic.messages), bytes=float(traffic.payload_bytes),
            time_s=self.ctx.env.now - self.level_start, compute_s=float(compute.mean()),
            communication_s=float((level.busy_s - compute).mean()) + closing_s,
            compute_max_s=float(compute.max()), bottleneck=level.price.bottleneck,
            collective_bytes=float(carried * max(self.N - 1, 0) / max(self.N, 1)),
            edges_sent=int(traffic.pairs))
        self.unexplored_edges -= int(self.layout.degree[work.new_vertices].sum())
        self.close_level(record, work.new_vertices, work.new_parents, level.next_direction)


def record_units(recorder, rank: int, start: float, level: int, direction: str, price: pricing.LevelPrice,
                 nodes: int, clusters: int) -> None:
    """The node's units over the level, for timelines (spans only; the
    level's timing is set by pricing.price_level): each module on a CPE
    cluster, placed in pipeline order on the first free one (at most one
    cluster per module, the order the paper's first-come-first-served
    scheduler would see them), or on M2/M3 with modules=mpe; M0 sending, M1
    receiving and handling small inputs; the port. All start at the level's
    start: the modules run as a pipeline."""
    times = price.times
    free = {f"cluster{k}": start for k in range(clusters)}
    mpes = {"mpe2": start, "mpe3": start}
    for name, seconds in times.modules.items():
        seconds = float(np.broadcast_to(np.asarray(seconds, dtype=np.float64), (nodes,))[rank])
        if seconds <= 0:
            continue
        units = mpes if float(np.asarray(times.module_mpes).max()) > 0 else free
        unit = min(units, key=lambda u: (units[u], u))
        recorder.record(rank, unit, units[unit], units[unit] + seconds, name.replace("_", " "), level=level,
                        direction=direction)
        units[unit] += seconds
    for unit, seconds, what in (("mpe0", times.sender, "send (M0)"), ("mpe1", times.receiver, "receive (M1)"),
                                ("port", price.port_s, "network")):
        value = float(np.broadcast_to(np.asarray(seconds, dtype=np.float64), (nodes,))[rank])
        if value > 0:
            recorder.record(rank, unit, start, start + value, what, level=level, direction=direction)
