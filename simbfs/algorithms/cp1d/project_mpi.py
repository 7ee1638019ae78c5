"""Projection of Checconi & Petrini's bulk-synchronous MPI 1D BFS
(cp1d-mpi) to runs too large to execute (mode "projected").

The executed cp1d-mpi (execute_mpi.py) does cp1d-spi's work
in phases separated by MPI all-to-alls; per exchange round (one top-down,
two bottom-up: probes, then answers)

    busiest counting pass + all-to-all of counts
    + busiest writing pass + all-to-all of edges

then the busiest final pass (decode and claim) and the closing allreduce.
Nothing overlaps, and a remote claim is never visible within a level.

The projection is simbfs/algorithms/cp1d/project_spi.py's, on the same virtual layout
and level functions, with these terms priced instead of the SPI ones
(docs/background/projection.md, "cp1d-mpi"):

* each pass's busiest thread (work.mpi_passes, priced by
  pricing.price_mpi_level as executed), on the busiest and on a typical
  node: the cp1d-spi projection's Spread of the per-(virtual node, thread)
  cycles (mean, Gaussian extreme and hub part), plus the coarse index on
  every scanning pass;
* the all-to-all of counts: 8 B to every other node;
* the all-to-all of edges: the closed-form bytes and packets of the
  compression (shared with cp1d-spi), their injection, ejection, busiest
  link and longest route, and ``cp1d.mpi_message_overhead`` per message
  sent and received, one per destination that gets edges.

Every output of a projection says "projected".
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...bfs.direction import TOP_DOWN
from ...engine.costs import exchange_cost, link_seconds, port_seconds, route_latency
from ...engine.messaging import MPIMessages
from ...projection import busiest_link_seconds, busiest_node_overhead_s, longest_route_hops
from ...records import LevelRecord
from ..search import LevelStep
from .claim_timing import NeverVisible
from .pricing import MpiLevelPrice, memory_seconds, price_mpi_level
from .project_spi import LevelPricer, level_work, project_with
from .work import bottom_up, mpi_passes, top_down

# The profile is laid out on virtual nodes, as for cp1d-spi.
PROFILE_VERTEX_PER_NODE = False


class MpiLevelPricer(LevelPricer):
    """cp1d-mpi's level: passes and MPI all-to-alls, on the virtual layout."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        target = self.target
        N, net = target.nodes, target.machine.network
        self.mpi = MPIMessages(target.machine.section("cp1d").mpi_message_overhead_s)
        # the all-to-all of counts: 8 B from every node to every other
        count_wire = float(net.wire_bytes(8.0))
        hops = len(target.topology.hop_distribution()) - 1  # the diameter: every pair talks
        self.counts_s = exchange_cost(
            inject_s=port_seconds((N - 1) * count_wire, net), eject_s=port_seconds((N - 1) * count_wire, net),
            link_s=link_seconds(target.topology.uniform_max_link_load(count_wire), net),
            latency_s=route_latency(hops, net),
            overhead_s=self.mpi.overhead_s(0.0, 0.0, N - 1, N - 1)).time_s if N > 1 else 0.0

    def level(self, step: LevelStep) -> tuple[np.ndarray, LevelRecord, MpiLevelPrice]:
        """One level of the walk at the target (walk_root's ``price``): the
        level functions on the virtual layout, their passes priced on the
        busiest and a typical node, and the all-to-alls."""
        target, layout = self.target, self.layout
        N, T = target.nodes, target.threads
        clock = target.machine.node.clock_hz
        frontier, seed = step.frontier, step.seed
        edge_growth = self.edge_growth(step)

        def level_work_and_passes():
            if step.direction == TOP_DOWN:
                work = top_down(layout, frontier, step.visited, target.options)
            else:  # the answers arrive after the exchange: no remote claim is visible
                work = bottom_up(layout, frontier, step.visited, target.options)(NeverVisible(layout.N))
            passes = mpi_passes(layout, work)
            rounds = tuple(replace(r, streams=level_work(replace(work, streams=r.streams), layout.N).streams)
                           for r in passes.rounds)
            return level_work(work, layout.N), replace(passes, rounds=rounds)

        # no claim timing: the whole level's work is price-independent (a work profile keeps it)
        work, passes = self.work.get((step.root, step.level, step.direction), level_work_and_passes)
        kappa, per_node, threads, nodes = self.cell_scaling(seed)
        item_growth = self.item_growth(edge_growth)
        costs, index = self.thread_costs(self.grown_node_counts(work.ops, item_growth))

        def pass_seconds(ops: dict) -> np.ndarray:
            """One pass on the busiest node and on a typical one: its
            busiest thread, or its main memory's traffic if that takes
            longer (as the SPI code's level and the executed passes)."""
            _, busiest, typical = threads.mean_and_busiest(self.cells(ops, costs, item_growth), T)
            scanning = index if "index_word" in ops else 0.0
            grown = {k: ops[k].sum(axis=1) * item_growth[k] for k in ops if k != "index_word"}
            memory_mean, memory, _ = nodes.mean_and_busiest(
                memory_seconds(target.machine, self.residents, grown))
            return np.array([max((scanning + busiest) / clock, memory),
                             max((scanning + typical) / clock, memory_mean)])

        price = price_mpi_level(passes, pass_seconds)
        communication = 0.0
        sent = payload = packets = backward = 0.0
        for exchange in passes.rounds:
            messages = self._messages(replace(work, streams=exchange.streams), seed, edge_growth, len(frontier),
                                      per_node, kappa, nodes)
            communication += self.counts_s + self._edges_exchange_s(messages)
            sent, payload = sent + messages.edges * N, payload + messages.payload * N
            packets, backward = packets + messages.packets * N, backward + messages.backward_packets * N
        communication += self.closing_s
        compute, typical = (float(seconds) for seconds in price.compute_s)
        receive = float(price.receive_s[1])
        record = self._record(
            step, work, edge_growth,
            messages=int(round(packets)), bytes=float(round(payload)),
            time_s=compute + communication, compute_s=typical, communication_s=communication,
            synchronisation_s=max(compute - typical, 0.0), compute_max_s=compute, bottleneck="none",
            edges_sent=int(round(sent)), backward_messages=int(round(backward)),
            scan_s=typical - receive, receive_s=receive)
        return work.new_vertices, record, price

    def _edges_exchange_s(self, messages) -> float:
        """The all-to-all of one round's edges, priced like
        Network.exchange_cost with a per-message overhead."""
        target = self.target
        N, net = target.nodes, target.machine.network
        pair = max(N - 1, 1)
        if not messages.packets or N < 2:
            return 0.0
        wire = float(net.wire_bytes(messages.payload / pair, messages.packets / pair)) * pair
        out_wire, in_wire = wire * messages.out_ratio, wire * messages.in_ratio
        link = busiest_link_seconds(target.topology, net, wire * N, out_wire, in_wire)
        per_pair = messages.edges / pair  # edges a node sends each other node

        def destinations(ratio: float) -> float:  # pairs that get at least one edge
            return pair * -math.expm1(-per_pair * ratio)

        talking = N * destinations(1.0)
        # the busiest sender (receiving like a typical node) or the busiest receiver
        overhead = busiest_node_overhead_s(lambda out, into: self.mpi.overhead_s(0.0, 0.0, out, into),
                                           destinations(1.0), destinations(1.0), destinations(messages.out_ratio),
                                           destinations(messages.in_ratio))
        return exchange_cost(inject_s=port_seconds(out_wire, net), eject_s=port_seconds(in_wire, net), link_s=link,
                             latency_s=route_latency(longest_route_hops(target.topology, talking), net),
                             overhead_s=overhead).time_s


def project(graph, keys, machine, topology, algorithm, profile_scale: int, target_scale: int, edgefactor: int,
            progress=lambda message: None, work=None) -> list:
    """As project_spi.project, with cp1d-mpi's passes and all-to-alls."""
    return project_with(MpiLevelPricer, graph, keys, machine, topology, algorithm, profile_scale, target_scale,
                        edgefactor, progress, work)
