"""Checconi & Petrini's bulk-synchronous MPI version of their 1D BFS.

What it implements
    Seed 000, IV-B, the comparison code of Fig. 7: the same data layout,
    direction optimisation, load balancing and compression as cp1d-spi (the
    work comes from work.py), but communication in two-phase all-to-alls.
    Per exchange, as the paper lists: (1) each thread scans its input and
    counts the messages per destination; (2) the nodes exchange the counts
    with an all-to-all and allocate buffers; (3) each thread scans again,
    writing the edges into the send buffers; (4) the nodes exchange the
    edges with an all-to-all; (5) each thread processes the messages of a
    subset of the sources.

    A top-down level is one such exchange. A bottom-up level is two: the
    probes, then the answers of the probed owners. Because the answers only
    arrive after the exchange, a probed vertex cannot be seen claimed by a
    remote answer within the level: every slice of an unvisited vertex is
    probed unless a local or heavy neighbour claims it first.

Timing
    Each phase is a compute step on every node followed by a collective;
    nothing overlaps. The passes are work.mpi_passes', their compute
    pricing.price_mpi_level's with every node's counts. An MPI all-to-all
    pays ``cp1d.mpi_message_overhead`` per message sent and received (one
    message per destination) instead of the SPI per-packet overheads.

Memory
    The all-to-all must hold the outgoing and incoming edges of a level at
    once, sized from the counts before encoding, i.e. at the long compressed
    format: the reason the paper gives for MPI's largest scale per node being
    one less than SPI's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...bfs.direction import TOP_DOWN
from ...engine import NULL_RECORDER, Simulation
from ...engine.messaging import MPIMessages
from ...engine.traffic import AllToAll
from ...graph import Graph
from ...records import RootRun
from .claim_timing import NeverVisible
from .encoding import encode
from .execute_spi import CP1DSPI, Cp1dSearch
from .memory import node_memory
from .pricing import (MpiLevelPrice, layout_residents, level_costs, memory_seconds, node_counts, price_mpi_level,
                      thread_cycles)
from .work import LevelWork, bottom_up, mpi_passes, top_down


class CP1DMPI(CP1DSPI):
    """Seed 000's bulk-synchronous MPI 1D BFS (IV-B)."""

    @property
    def summary(self) -> str:
        return "Checconi & Petrini bulk-synchronous 1D BFS over MPI (two-phase all-to-all), " + \
            self.options.representation

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int, machine=None,
                          graph_kind: str = "kronecker") -> float:
        return mpi_memory_bytes(machine, num_vertices, num_directed_edges, nodes, graph_kind)

    def run(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER) -> RootRun:
        return MpiSearch(self, sim, graph, root, recorder).execute()


def mpi_memory_bytes(machine, num_vertices: int, num_directed_edges: int, nodes: int,
                     graph_kind: str = "kronecker") -> float:
    """Peak bytes per node (memory.py): the structure, plus the larger of
    the generated tuples while it is built and the visit's parents, bitmaps
    and the outgoing and incoming all-to-all buffers of a level that sends
    every local entry, at the long compressed format."""
    return node_memory(machine, num_vertices, num_directed_edges, nodes, "mpi", graph_kind).peak


@dataclass(frozen=True)
class MpiLevel:
    """A level's work and its compute on every node (pricing.MpiLevelPrice),
    its phases as [(compute per node, exchange payload, packets)] (each
    round's counting pass and the 8 B counts, then its writing pass and the
    edges; packets None: as few as fit), and each round's traffic."""

    work: LevelWork
    price: MpiLevelPrice
    phases: list
    traffic: list


class MpiSearch(Cp1dSearch):
    """A root's run of cp1d-mpi: each level's passes, each ended by an
    all-to-all, then the final pass and the closing allreduce."""

    def __init__(self, algorithm: CP1DMPI, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(algorithm, sim, graph, root, recorder)
        self._plan = None
        self._comm = 0.0
        # every counting exchange sends 8 B to every other node
        self._counts = AllToAll(self.N, 8.0)

    def plan_level(self) -> MpiLevel:
        """The current level's work, its passes priced on every node, and
        its exchanges."""
        layout, opts, machine = self.layout, self.options, self.machine
        if self.direction == TOP_DOWN:
            work = top_down(layout, self.frontier, self.visited, opts)
        else:  # the answers arrive after the exchange: no remote claim is visible
            work = bottom_up(layout, self.frontier, self.visited, opts)(NeverVisible(self.N))
        # the level's whole mix sets the L2's hit rates (pricing.py)
        costs = level_costs(machine, layout, work.ops, opts.compression)
        clock = machine.node.clock_hz
        passes = mpi_passes(layout, work)
        residents = layout_residents(machine, layout)

        def pass_seconds(ops: dict) -> np.ndarray:
            """One pass on every node: its busiest thread, or its main
            memory's traffic if that takes longer (as the SPI code's level)."""
            return np.maximum((thread_cycles(ops, costs) / clock).max(axis=1),
                              memory_seconds(machine, residents, node_counts(ops)))

        price = price_mpi_level(passes, pass_seconds)
        traffic = [encode(layout, exchange.streams, self.cp, machine.network.packet_payload_bytes, opts.compression)
                   for exchange in passes.rounds]
        phases = []
        for counting, writing, sent in zip(price.counting_s, price.writing_s, traffic):
            phases.append((counting, self._counts, None))
            phases.append((writing, sent.pairs, None))
        return MpiLevel(work, price, phases, traffic)

    def node_program(self, rank: int):
        coll = self.ctx.collectives
        mpi = MPIMessages(self.cp.mpi_message_overhead_s)
        while not self.done:
            if self._plan is None:
                self._plan = self.plan_level()
                self._comm = 0.0
            plan = self._plan
            for phase, (compute, payload, packets) in enumerate(plan.phases):
                # each round is a counting pass, then a writing pass (work.mpi_passes)
                doing = f"{plan.work.direction} {'count' if phase % 2 == 0 else 'pack'}"
                result = yield coll.alltoallv(rank, lambda p=payload, q=packets: (p, q, None),
                                              after=float(compute[rank]), messaging=mpi, work=doing,
                                              level=self.level)
                if rank == 0:
                    self._comm += result.cost_s
            yield self.closing_allreduce(rank, after=float(plan.price.final_s[rank]), work="claim")
        if self._final_words:
            yield self.final_allreduce(rank)

    def level_closed(self, closing) -> None:
        plan = self._plan
        per_node = plan.price.compute_s
        compute_mean = float(per_node.mean())
        receive_mean = float(plan.price.receive_s.mean())
        traffic = plan.traffic
        record = self.level_record(
            plan.work,
            messages=int(sum(t.packet_count for t in traffic)),
            bytes=float(sum(t.payload_bytes for t in traffic)),
            compute_s=compute_mean,
            communication_s=self._comm + closing.cost_s,
            compute_max_s=float(per_node.max()),
            bottleneck="none",
            edges_sent=int(sum(t.edges.sum() for t in traffic)),
            backward_messages=int(sum(t.backward_packets for t in traffic)),
            scan_s=compute_mean - receive_mean,
            receive_s=receive_mean,
        )
        self._plan = None
        self.close(record, plan.work)
