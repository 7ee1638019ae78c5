"""Lin et al.'s asynchronous 1D BFS on Sunway TaihuLight, executed: the
paper's own algorithm (seed 003, Algorithms 1-2, sections 4-5).

Timing of one level on node i (docs/background/lin1d.md)
    The modules run as a pipeline (4.2): generators, relays and handlers
    overlap with each other and with the network, so a node's level lasts
    as long as its busiest unit, plus the pipeline's fill and drain:

        busy_i = max(clusters_i, M0_i, M1_i, M2/M3_i, inject_i, eject_i,
                     busiest link) + latency

    ``clusters_i`` is the node's module work on its CPE clusters
    (pricing.py: at most one cluster per module, the total spread over the
    clusters), M0 and M1 the MPI overheads of the messages sent and
    received (M1 also handles small inputs and notifies the clusters),
    M2/M3 the module work when modules run on MPEs. The network carries
    every phase's pairs (with relay, twice: to the relay and on to the
    destination) on the fat tree. ``latency`` is the pipeline's fill and
    drain: one message through every phase. The level ends with the
    allgather of the hub bitmaps (a flag for a node without frontier hubs),
    which also carries the counts the direction policy needs; after a
    bottom-up level a reduce-scatter first brings the hubs that the owners
    of their neighbours claimed to their own owners
    (pricing.closing_collectives).

Direction
    The traversal policy is Beamer's (003, 2.1 cites it): simbfs.bfs.direction.
"""

from __future__ import annotations

import numpy as np

from ...bfs.direction import TOP_DOWN, choose_direction
from ...engine import NULL_RECORDER, Simulation
from ...errors import UserError
from ...graph import Graph
from ...records import LevelRecord, RootRun
from ..base import Algorithm, LayoutCache
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
    requires = ("lin1d", "cpe_cluster")
    memory_uncertainty = 0.05

    def __init__(self, name: str, options: Lin1DOptions = Lin1DOptions()):
        self.name = name
        self.options = options
        self._layouts = LayoutCache()

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
        return self._layouts.get(graph, key, lambda: Layout(graph, *key))

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return _Run(self, sim, graph, root, recorder).execute()


class _Run(RootSearch):
    def __init__(self, algorithm: Lin1D, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(sim, graph, root, recorder)
        self.options = algorithm.options
        self.section = sim.machine.section("lin1d")
        self.layout = algorithm.layout(graph, sim)
        self.unexplored_edges = int(self.layout.degree.sum()) - int(self.layout.degree[root])
        self._pending = None
        self._closing_s = 0.0  # the level's closing collectives before the last

    # ------------------------------------------------------------ one level
    def _plan(self):
        layout, opts = self.layout, self.options
        step = lin.top_down if self.direction == TOP_DOWN else lin.bottom_up
        work = step(layout, self.frontier, self.visited, opts)
        priced = price_level(self.machine, self.ctx.network, layout, work, opts)
        next_direction = self._next_direction(work)
        gathered = lin.gathered_hubs(work.direction, next_direction)
        hubs = layout.hubs(gathered)
        frontier_hubs = np.bincount(layout.owner(work.new_vertices[hubs[work.new_vertices]]), minlength=self.N)
        closing = pricing.closing_bytes(work.direction, self.N, float(np.count_nonzero(frontier_hubs)),
                                        layout.hubs_per_node[gathered])
        return work, priced, next_direction, closing

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
            work, priced, _, closing = self._pending
            if self.recorder.enabled:
                record_units(self.recorder, rank, self.level_start, self.level, work.direction, priced,
                             self.machine.section("cpe_cluster").clusters)
            after, work_name = float(priced.busy[rank]), f"{work.direction} modules"
            for step, (kind, nbytes) in enumerate(closing):
                last = step == len(closing) - 1
                yield getattr(self.ctx.collectives, kind)(
                    rank, nbytes / self.N, on_complete=self._finish_level if last else self._closing_step,
                    after=after, work=work_name, level=self.level)
                after, work_name = 0.0, None

    def _closing_step(self, result) -> None:
        self._closing_s += result.cost_s

    def _finish_level(self, last) -> None:
        work, priced, next_direction, closing = self._pending
        closing_s, self._closing_s = self._closing_s + last.cost_s, 0.0
        carried = sum(nbytes for _, nbytes in closing)
        time_s = self.ctx.env.now - self.level_start
        compute = priced.times.compute
        self.records.append(LevelRecord.with_rest_as_synchronisation(
            root=self.root, level=self.level, direction=work.direction,
            frontier_vertices=int(len(self.frontier)), edges_examined=int(work.edges_examined),
            messages=int(priced.messages), bytes=float(priced.payload_bytes), time_s=time_s,
            compute_s=float(compute.mean()),
            communication_s=float((priced.busy - compute).mean()) + closing_s,
            compute_max_s=float(compute.max()), bottleneck=priced.bottleneck,
            collective_bytes=float(carried * max(self.N - 1, 0) / max(self.N, 1)),
            edges_sent=int(priced.pairs_sent)))
        self.ctx.recorder.level_done(self.records[-1])
        new = work.new_vertices
        self.parent[new] = work.new_parents
        self.visited[new] = True
        self.unexplored_edges -= int(self.layout.degree[new].sum())
        self.frontier = new
        self.direction = next_direction
        self.level += 1
        self.done = len(new) == 0
        self._pending = None
        self.level_start = self.ctx.env.now



def _sum_by(index: np.ndarray, values: np.ndarray, length: int) -> np.ndarray:
    """The sums of ``values`` by ``index`` (float, also without values)."""
    return np.bincount(index, weights=values, minlength=length).astype(np.float64, copy=False)


def _matrix(nodes: int, at: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The N x N matrix with ``values`` at the flat indices ``at``, zero elsewhere."""
    matrix = np.zeros(nodes * nodes)
    matrix[at] = values
    return matrix.reshape(nodes, nodes)


class PricedLevel:
    """A level's per-node busy time and what set it."""

    def __init__(self, busy, times, messages, payload_bytes, pairs_sent, bottleneck, port=None):
        self.busy = busy
        self.times = times
        self.messages = messages
        self.payload_bytes = payload_bytes
        self.pairs_sent = pairs_sent
        self.bottleneck = bottleneck
        self.port = port  # per node: the longer of its sending and receiving at the port


def record_units(recorder, rank: int, start: float, level: int, direction: str, priced: PricedLevel,
                 clusters: int) -> None:
    """The node's units over the level, for timelines (spans only; the
    level's timing is set by price_level): each module on a CPE cluster,
    placed in pipeline order on the first free one (at most one cluster per
    module, the order the paper's first-come-first-served scheduler would
    see them), or on M2/M3 with modules=mpe; M0 sending, M1 receiving and
    handling small inputs; the port. All start at the level's start: the
    modules run as a pipeline."""
    times = priced.times
    free = {f"cluster{k}": start for k in range(clusters)}
    mpes = {"mpe2": start, "mpe3": start}
    for name, seconds in times.modules.items():
        seconds = float(np.broadcast_to(np.asarray(seconds, dtype=np.float64), (len(priced.busy),))[rank])
        if seconds <= 0:
            continue
        units = mpes if float(np.asarray(times.module_mpes).max()) > 0 else free
        unit = min(units, key=lambda u: (units[u], u))
        recorder.record(rank, unit, units[unit], units[unit] + seconds, name.replace("_", " "), level=level,
                        direction=direction)
        units[unit] += seconds
    for unit, seconds, what in (("mpe0", times.sender, "send (M0)"), ("mpe1", times.receiver, "receive (M1)"),
                                ("port", priced.port, "network")):
        value = float(np.broadcast_to(np.asarray(seconds, dtype=np.float64), (len(priced.busy),))[rank]) \
            if seconds is not None else 0.0
        if value > 0:
            recorder.record(rank, unit, start, start + value, what, level=level, direction=direction)


def price_level(machine, network, layout: Layout, work: lin.LevelWork, options: Lin1DOptions) -> PricedLevel:
    """Per node: the units' busy times, the network's loads of every phase
    together, the pipeline latency (module docstring)."""
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
        loads = network.traffic_loads(_matrix(N, traffic.talking, pairs * section.pair_bytes),
                                      _matrix(N, traffic.talking, packets))
        # inputs under lin1d.small_input, message by message (phase by phase)
        small = (_sum_by(receiver, sum(pricing.small_input(p, machine) for p in phases), N)
                 / np.maximum(_sum_by(receiver, pairs, N), 1e-300))
        messages_out, messages_in = _sum_by(sender, messages, N), _sum_by(receiver, messages, N)
    else:
        pairs = np.zeros((N, N))
        messages = pairs
        loads = network.traffic_loads(pairs)
        small = np.zeros(N)
        messages_out = messages_in = np.zeros(N)
    shares = {name: small for name in pricing.HANDLERS}
    times = pricing.node_times(machine, work.counts, work.direction, shares, messages_out, messages_in,
                               options.modules, layout.local_vertices)
    terms = {"compute": times.compute, "injection": loads.inject_s, "ejection": loads.eject_s,
             "link": np.full(N, loads.link_s)}
    busy = np.maximum.reduce(list(terms.values()))
    latency = pricing.pipeline_latency_s(machine, len(phases), loads.latency_s) if loads.wire_bytes else \
        machine.section("cpe_cluster").notify_latency_s
    slowest = {name: float(np.max(value)) for name, value in terms.items()}
    return PricedLevel(busy + latency, times, float(messages.sum()), float(pairs.sum() * section.pair_bytes),
                       float(pairs.sum()), max(slowest, key=slowest.get),
                       port=np.maximum(loads.inject_s, loads.eject_s))
