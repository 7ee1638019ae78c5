"""Checconi & Petrini's bulk-synchronous MPI version of their 1D BFS.

What it implements
    Seed 000, IV-B, the comparison code of Fig. 7: the same data layout,
    direction optimisation, load balancing and compression as cp1d-spi (the
    work comes from cp1d.py), but communication in two-phase all-to-alls.
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
    nothing overlaps. An MPI all-to-all pays ``cp1d.mpi_message_overhead``
    per message sent and received (one message per destination) instead of
    the SPI per-packet overheads.

Memory
    The all-to-all must hold the outgoing and incoming edges of a level at
    once, sized from the counts before encoding, i.e. at the long compressed
    format: the reason the paper gives for MPI's largest scale per node being
    one less than SPI's.
"""

from __future__ import annotations

import numpy as np

from ...bfs.direction import TOP_DOWN
from ...engine import NULL_RECORDER, Simulation
from ...engine.messaging import MPIMessages
from ...graph import Graph
from ...records import LevelRecord, RootRun
from . import work as cp1d
from .memory import node_memory
from .work import _add
from .spi import CP1DSPI, Cp1dRun, NeverVisible

SCAN_OPS = ("index_word", "vertex_header", "edge_entry", "bitmap_test")


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
        return _Run(self, sim, graph, root, recorder).execute()


def mpi_memory_bytes(machine, num_vertices: int, num_directed_edges: int, nodes: int,
                     graph_kind: str = "kronecker") -> float:
    """Peak bytes per node (memory.py): the structure, plus the larger of
    the generated tuples while it is built and the visit's parents, bitmaps
    and the outgoing and incoming all-to-all buffers of a level that sends
    every local entry, at the long compressed format."""
    return node_memory(machine, num_vertices, num_directed_edges, nodes, "mpi", graph_kind).peak


def _subset(ops: dict, names) -> dict:
    return {name: ops[name] for name in names}


def mpi_rounds(layout: cp1d.Layout, work: cp1d.LevelWork) -> tuple[list, dict]:
    """A level's exchanges, [(ops before its counting pass, ops of the
    round, its streams)], and the ops after the last exchange. Top-down:
    one round. Bottom-up: the probes, then the answers, which the owners
    count and write after decoding the probes."""
    if work.direction == TOP_DOWN:
        return [({}, work.ops, work.streams)], _subset(work.ops, ("unpack", "claim"))
    probes, answers = work.streams
    shape = (layout.N, layout.T)
    answer_pack, answer_unpack = np.zeros(shape), np.zeros(shape)
    _add(answer_pack, answers.sender, answers.thread)
    _add(answer_unpack, answers.receiver, answers.sender % layout.T)
    probe_ops = dict(work.ops)
    probe_ops["pack"] = work.ops["pack"] - answer_pack
    probe_ops["unpack"] = work.ops["unpack"] - answer_unpack
    answer_ops = {name: np.zeros(shape) for name in work.ops}
    answer_ops["pack"] = answer_pack
    rounds = [({}, probe_ops, [probes]), ({"unpack": probe_ops["unpack"]}, answer_ops, [answers])]
    return rounds, {"unpack": answer_unpack, "claim": work.ops["claim"]}


class _Run(Cp1dRun):
    def __init__(self, algorithm: CP1DMPI, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        super().__init__(algorithm, sim, graph, root, recorder)
        self._plan = None
        self._comm = 0.0
        self._costs = None
        # every counting exchange sends 8 B to every other node: one
        # read-only matrix, which the network prices once (traffic_loads)
        self._counts = np.full((self.N, self.N), 8.0)
        np.fill_diagonal(self._counts, 0.0)
        self._counts.setflags(write=False)

    def _seconds(self, ops: dict) -> np.ndarray:
        cycles = cp1d.thread_cycles(ops, self._costs)
        return (cycles / self.machine.node.clock_hz).max(axis=1)

    def _plan_level(self):
        """The level's work and its phases: [(compute per node, exchange)]."""
        layout, opts = self.layout, self.options
        if self.direction == TOP_DOWN:
            work = cp1d.top_down(layout, self.frontier, self.visited, opts)
        else:
            work = cp1d.bottom_up(layout, self.frontier, self.visited, opts)(NeverVisible(self.N))
        # the level's whole mix sets the L2's hit rates (pricing.py)
        self._costs = cp1d.level_costs(self.machine, layout, work.ops, opts.compression)
        rounds, final_ops = mpi_rounds(layout, work)
        phases = []
        traffic_total = []
        for before, ops, streams in rounds:
            scan = _subset(ops, SCAN_OPS)
            # the costs charge nothing for "compress" when compression is off
            packing = {"pack": ops["pack"], "compress": ops["pack"]}
            count_pass = (self._seconds(before) if before else 0.0) + self._seconds({**scan, "pack": ops["pack"]})
            write_pass = self._seconds({**scan, **packing})
            traffic = cp1d.encode(layout, streams, self.cp, self.machine.network.packet_payload_bytes,
                                  opts.compression)
            phases.append((count_pass, self._counts, None))
            phases.append((write_pass, traffic.payload, traffic.packets))
            traffic_total.append(traffic)
        final = self._seconds(final_ops)
        # the final pass's decoding and claiming: Fig. 13's receive part
        receive = self._seconds({name: final_ops[name] for name in cp1d.RECEIVE_OPS if name in final_ops})
        return work, phases, final, traffic_total, receive

    def node_program(self, rank: int):
        coll = self.ctx.collectives
        mpi = MPIMessages(self.cp.mpi_message_overhead_s)
        while not self.done:
            if self._plan is None:
                self._plan = self._plan_level()
                self._comm = 0.0
            work, phases, final, _, _ = self._plan
            for phase, (compute, payload, packets) in enumerate(phases):
                # each round is a counting pass, then a writing pass (mpi_rounds)
                doing = f"{work.direction} {'count' if phase % 2 == 0 else 'pack'}"
                result = yield coll.alltoallv(rank, lambda p=payload, q=packets: (p, q, None),
                                              after=float(compute[rank]), messaging=mpi, work=doing,
                                              level=self.level)
                if rank == 0:
                    self._comm += result.cost_s
            yield self.closing_allreduce(rank, after=float(final[rank]), work="claim")
        if self._final_words:
            yield self.final_allreduce(rank)

    def _finish_level(self, closing) -> None:
        work, phases, final, traffic, receive = self._plan
        time_s = self.ctx.env.now - self.level_start
        per_node = sum(compute for compute, _, _ in phases) + final
        compute_mean = float(per_node.mean())
        receive_mean = float(receive.mean())
        comm = self._comm + closing.cost_s
        self.records.append(LevelRecord.with_rest_as_synchronisation(
            root=self.root,
            level=self.level,
            direction=work.direction,
            frontier_vertices=int(len(self.frontier)),
            edges_examined=int(work.edges_examined),
            messages=int(sum(t.packets.sum() for t in traffic)),
            bytes=float(sum(t.payload.sum() for t in traffic)),
            time_s=time_s,
            compute_s=compute_mean,
            communication_s=comm,
            compute_max_s=float(per_node.max()),
            bottleneck="none",
            collective_bytes=float(8 * self._closing_words * max(self.N - 1, 0)),
            edges_sent=int(sum(t.edges.sum() for t in traffic)),
            backward_messages=int(sum(t.backward_packets for t in traffic)),
            scan_s=compute_mean - receive_mean,
            receive_s=receive_mean,
        ))
        self.ctx.recorder.level_done(self.records[-1])
        self._plan = None
        self.advance(work)
