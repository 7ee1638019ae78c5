"""Pure cost functions: counts in, seconds out.

Every price the simulator charges for moving data between nodes is computed
here, once, by functions of numbers and numpy arrays with no simpy in them.
Two kinds of caller use the same functions:

* the simpy processes of an executed run (``network.py``,
  ``collectives.py``, the algorithms), with each node's own counts;
* the projections (``simbfs/projection*.py``), with the counts of a mean
  node and of the busiest node of a machine too large to execute.

So a change to a cost is made in one place and moves executed and projected
predictions together. Per-operation compute costs belong to the algorithm
that defines the operations (its ``price`` functions); the software overhead
of a message belongs to the messaging layer (``messaging.py``).

Conventions: ``N`` is the number of nodes taking part; bandwidths are bytes
per second of one port, one link or one node; a ``*_s`` value is seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..machine.model import CollectiveModel, NetworkModel

# ----------------------------------------------------------------- exchanges


@dataclass(frozen=True)
class ExchangeCost:
    """The price of one bulk exchange and what set it."""

    time_s: float
    serialisation_s: float
    latency_s: float
    overhead_s: float
    bottleneck: str  # the largest term: "injection", "ejection", "link", "overhead", "latency" or "none"
    packets: float  # an executed exchange counts whole packets, a projected one expects a mean
    payload_bytes: float
    wire_bytes: float


NO_EXCHANGE = ExchangeCost(0.0, 0.0, 0.0, 0.0, "none", 0, 0.0, 0.0)


def port_seconds(wire_bytes, network: NetworkModel):
    """Time a node's injection (or ejection) port needs for ``wire_bytes``."""
    return wire_bytes / network.injection_bandwidth_Bps


def link_seconds(wire_bytes, network: NetworkModel):
    """Time one link needs for ``wire_bytes``."""
    return wire_bytes / network.link_bandwidth_Bps


def route_latency(hops, network: NetworkModel):
    """Latency of the head of a message over ``hops`` router hops."""
    return hops * network.hop_latency_s


def exchange_cost(*, inject_s: float, eject_s: float, link_s: float, latency_s: float, overhead_s: float,
                  packets: float = 0, payload_bytes: float = 0.0, wire_bytes: float = 0.0) -> ExchangeCost:
    """A bulk exchange (flow-level model): it lasts as long as its most
    loaded resource needs to carry its bytes (the busiest injection port,
    ejection port or link), plus the latency of its longest route, plus the
    busiest node's software overhead (as its messaging layer counts it).

    This is the bottleneck bound that pipelined packet traffic approaches;
    it ignores head-of-line blocking and hot spots inside a link's time
    window. The arguments are the busiest values: an executed exchange
    passes the maxima over its nodes and links, a projection its estimates
    of them. ``bottleneck`` names the largest of the five terms (ties: the
    first in the order injection, ejection, link, overhead, latency)."""
    serialisation = max(inject_s, eject_s, link_s)
    terms = {"injection": inject_s, "ejection": eject_s, "link": link_s, "overhead": overhead_s,
             "latency": latency_s}
    return ExchangeCost(
        time_s=serialisation + latency_s + overhead_s,
        serialisation_s=serialisation,
        latency_s=latency_s,
        overhead_s=overhead_s,
        bottleneck=max(terms, key=terms.get),
        packets=packets,
        payload_bytes=payload_bytes,
        wire_bytes=wire_bytes,
    )


# --------------------------------------------------------------- collectives


def collective_stages(nodes: int) -> int:
    """Stages of a log2(N)-stage collective (0 for a single node)."""
    return max(1, math.ceil(math.log2(nodes))) if nodes > 1 else 0


def bandwidth_optimal_bytes(nodes: int, total_bytes: float) -> float:
    """The (N - 1) / N of a collective's total that must pass through every
    node: what a ring, recursive doubling or halving on a power of two, or
    Bruck's algorithm moves."""
    return total_bytes * (nodes - 1) / nodes


class CollectiveAlgorithms:
    """How a machine's collectives are carried out, for ``total_bytes`` over
    ``nodes`` (> 1) nodes: how many latency-bound stages an allgather takes
    (every allgather here moves :func:`bandwidth_optimal_bytes`), and the
    stages and critical-path bytes of a reduce-scatter, which may move more
    (:func:`recursive_halving`). The price is :func:`allgather_time` and
    :func:`reduce_scatter_time`. Barriers and allreduces take
    :func:`collective_stages` under every algorithm."""

    name = ""

    def allgather_stages(self, nodes: int, total_bytes: float) -> int:
        raise NotImplementedError

    def reduce_scatter(self, nodes: int, total_bytes: float) -> tuple[int, float]:
        """(stages, bytes on the critical path) of a reduce-scatter."""
        raise NotImplementedError


class LogStages(CollectiveAlgorithms):
    """Every collective in log2(N) stages, whatever its size: hardware
    collectives (the BlueGene/Q collective logic, the Cell's flag DMAs), or
    an MPI library whose large allgathers are as latency-efficient as its
    small ones."""

    name = "log-stages"

    def allgather_stages(self, nodes: int, total_bytes: float) -> int:
        return collective_stages(nodes)

    def reduce_scatter(self, nodes: int, total_bytes: float) -> tuple[int, float]:
        return collective_stages(nodes), bandwidth_optimal_bytes(nodes, total_bytes)


# MPICH's default switch points (MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE,
# MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE, and the commutative reduce-scatter's
# long-message size), in bytes of the whole result; MVAPICH2 1.x ships the
# same defines (src/mpi/coll/coll_shmem.h).
MPICH_ALLGATHER_SHORT_BYTES = 81_920
MPICH_ALLGATHER_LONG_BYTES = 524_288
MPICH_REDUCE_SCATTER_LONG_BYTES = 524_288


class MpichDefaults(CollectiveAlgorithms):
    """MPICH's default choice of algorithm by size (Thakur, Rabenseifner and
    Gropp, "Optimization of collective communication operations in MPICH",
    IJHPCA 2005; MPICH src/mpi/coll/allgather and reduce_scatter), the
    starting point of the libraries derived from MPICH:

    * allgather: recursive doubling (log2 N stages) below 512 KiB in all on
      a power-of-two N; Bruck's algorithm (log2 N stages) below 80 KiB on
      any N; otherwise a ring, N - 1 stages, because its nearest-neighbour
      steps beat recursive doubling for long messages on real networks;
    * reduce-scatter with a commutative operation: recursive halving below
      512 KiB in all (log2 N stages on a power-of-two N, floor(log2 N) + 2
      otherwise, with a whole vector more: :func:`recursive_halving`), otherwise
      pairwise exchange, N - 1 stages.

    So a large allgather over many nodes costs (N - 1) stage latencies: a
    latency that grows with the node count, not with its logarithm. Other
    libraries decide differently (:class:`Mvapich2Defaults`; Open MPI's
    tuned component has rules of its own)."""

    name = "mpich"

    def allgather_stages(self, nodes: int, total_bytes: float) -> int:
        if nodes <= 1:
            return 0
        power_of_two = nodes & (nodes - 1) == 0
        if (total_bytes < MPICH_ALLGATHER_LONG_BYTES and power_of_two) or total_bytes < MPICH_ALLGATHER_SHORT_BYTES:
            return collective_stages(nodes)
        return nodes - 1

    def reduce_scatter(self, nodes: int, total_bytes: float) -> tuple[int, float]:
        if total_bytes >= MPICH_REDUCE_SCATTER_LONG_BYTES:
            return nodes - 1, bandwidth_optimal_bytes(nodes, total_bytes)  # pairwise exchange
        return recursive_halving(nodes, total_bytes)


# MVAPICH2 1.x's allgather switch points, in bytes of one process's
# contribution, by communicator size: up to 128, up to 256, and more
# processes (mv2_tuning_table[ALLGATHER_ID] = {2048, 1024, 512} in
# src/mpi/coll/ch3_shmem_coll.c, read through allgather_tuning() in the
# 2011 allgather_osu.c; an earlier 1.x cut at 32 and 128 processes instead;
# beyond the last cut both take 512 B).
MVAPICH2_ALLGATHER_BYTES = ((128, 2048), (256, 1024), (None, 512))


class Mvapich2Defaults(MpichDefaults):
    """MVAPICH2 1.x's default choice (src/mpi/coll/allgather_osu.c): an
    allgather whose contribution per process is at most the switch point
    for its communicator's size (2 KiB up to 128 processes, 1 KiB up to
    256, 512 B beyond) takes recursive doubling on a power-of-two count
    and Bruck's algorithm otherwise, log2 N stages either way; anything
    larger goes around the ring, N - 1 stages. Its reduce-scatter is taken
    as MPICH's rule: its header defines the same long-message switch point
    (MPIR_RED_SCAT_LONG_MSG, 512 KiB), but its selection code was not found.

    MVAPICH2 2.x decides differently again, from tuning tables:
    :class:`Mvapich22Tables`."""

    name = "mvapich2"

    def allgather_stages(self, nodes: int, total_bytes: float) -> int:
        if nodes <= 1:
            return 0
        switch = next(size for limit, size in MVAPICH2_ALLGATHER_BYTES if limit is None or nodes <= limit)
        return collective_stages(nodes) if total_bytes / nodes <= switch else nodes - 1


def recursive_halving(nodes: int, total_bytes: float) -> tuple[int, float]:
    """(stages, bytes on the critical path) of a commutative reduce-scatter
    by recursive halving (MPICH's reduce_scatter_intra_recursive_halving;
    MVAPICH2's MPIR_Reduce_scatter_Rec_Halving_MV2): on N = P + r nodes,
    P the largest power of two not above N, the first 2r nodes pair up and
    each even one sends its whole vector to the next (one stage, the whole
    total), log2 P halving stages move (P - 1) / P of it, and each odd one
    hands its partner's segment back (one stage, total / N). On a power of
    two: log2 N stages and (N - 1) / N of the total."""
    pof2 = 1 << (nodes.bit_length() - 1)
    halving = bandwidth_optimal_bytes(pof2, total_bytes)
    if pof2 == nodes:
        return pof2.bit_length() - 1, halving
    return pof2.bit_length() - 1 + 2, total_bytes + halving + total_bytes / nodes


# MVAPICH2 2.2's tables for a CPU the library does not recognise (its final
# else: "Stampede Table"), one process per node. Allgather
# (src/mpi/coll/tuning/allgather/gen2_INTEL_XEON_E5_2680_16_MLX_CX_FDR_1ppn.h),
# by communicator size up to the row's process count: bytes a process from
# which it takes the ring (Bruck's algorithm or recursive doubling below;
# the row of 2 processes rings at every size, one stage either way).
MVAPICH2_22_ALLGATHER_RING_FROM = ((4, 524_288), (8, 131_072), (16, 262_144), (None, 131_072))
# Reduce-scatter (src/mpi/coll/red_scat_tuning.c, the generic table), on the
# total bytes: up to the row's process count, (basic up to, recursive
# halving up to; pairwise exchange above; None: no pairwise).
MVAPICH2_22_REDUCE_SCATTER = ((8, 256, 16_384), (16, 64, 65_536), (32, 64, 131_072), (64, 1024, 262_144),
                              (128, 128, None), (256, 128, None), (None, 256, None))


def _table_row(rows, nodes: int):
    """The first row whose process count is at least ``nodes``; the last
    row for larger communicators ("use largest available")."""
    return next(row for row in rows if row[0] is None or nodes <= row[0])


class Mvapich22Tables(CollectiveAlgorithms):
    """MVAPICH2 2.2's choice with one process per node on a CPU it does not
    recognise, from its tuning tables (read in the public mirror
    kumattau/mvapich2; the module constants name the files). The table's
    row is the first whose process count covers the communicator, or the
    last one; the allgather looks up a process's share of the bytes, the
    reduce-scatter the total:

    * allgather: Bruck's algorithm or recursive doubling, log2 N stages
      (recursive doubling's few fix-up rounds on a count that is not a
      power of two are neglected), below the row's ring switch; the ring,
      N - 1 stages, from it (128 KiB a process beyond 16 processes);
    * reduce-scatter: the basic algorithm (a reduce and a scatter, 2 log2 N
      stages) for the smallest totals, recursive halving
      (:func:`recursive_halving`, whose first step moves the whole vector
      on a count that is not a power of two) above them, and pairwise
      exchange, N - 1 stages, above the row's switch where it has one (up
      to 64 processes)."""

    name = "mvapich2-2.2"

    def allgather_stages(self, nodes: int, total_bytes: float) -> int:
        if nodes <= 1:
            return 0
        if nodes <= 2:
            return 1
        ring_from = _table_row(MVAPICH2_22_ALLGATHER_RING_FROM, nodes)[1]
        return nodes - 1 if total_bytes / nodes >= ring_from else collective_stages(nodes)

    def reduce_scatter(self, nodes: int, total_bytes: float) -> tuple[int, float]:
        _, basic_up_to, halving_up_to = _table_row(MVAPICH2_22_REDUCE_SCATTER, nodes)
        if total_bytes <= basic_up_to:
            # a binomial reduce (the root takes a whole vector a stage) and a scatter
            stages = collective_stages(nodes)
            return 2 * stages, total_bytes * stages + bandwidth_optimal_bytes(nodes, total_bytes)
        if halving_up_to is None or total_bytes <= halving_up_to:
            return recursive_halving(nodes, total_bytes)
        return nodes - 1, bandwidth_optimal_bytes(nodes, total_bytes)  # pairwise exchange


# by name, as machine files choose them (collectives.algorithm; model.CollectiveModel's default is "log-stages")
COLLECTIVE_ALGORITHMS: dict[str, CollectiveAlgorithms] = {
    algorithms.name: algorithms for algorithms in (LogStages(), MpichDefaults(), Mvapich2Defaults(), Mvapich22Tables())}


def barrier_time(model: CollectiveModel, nodes: int) -> float:
    """stages x stage latency."""
    return collective_stages(nodes) * model.stage_latency_s


def allreduce_time(model: CollectiveModel, nodes: int, nbytes: float) -> float:
    """A tree (or hardware) reduction of ``nbytes`` per node:
    stages x stage latency + bytes / bandwidth."""
    if nodes == 1:
        return 0.0
    return barrier_time(model, nodes) + nbytes / model.bandwidth_Bps


def allgather_time(model: CollectiveModel, nodes: int, total_bytes: float) -> float:
    """``total_bytes`` gathered from all nodes: every node receives the
    others' share, in the stages the machine's collective algorithms take
    (``collectives.algorithm``; :class:`CollectiveAlgorithms`):
    stages x stage latency + total x (N - 1) / N / bandwidth."""
    if nodes == 1:
        return 0.0
    stages = COLLECTIVE_ALGORITHMS[model.algorithm].allgather_stages(nodes, total_bytes)
    return stages * model.stage_latency_s + bandwidth_optimal_bytes(nodes, total_bytes) / model.bandwidth_Bps


def reduce_scatter_time(model: CollectiveModel, nodes: int, total_bytes: float) -> float:
    """``total_bytes`` held by every node, each receiving its own reduced
    segment: stages x stage latency + critical-path bytes / bandwidth, both
    as the machine's collective algorithms take them
    (``CollectiveAlgorithms.reduce_scatter``; at least the (N - 1) / N of
    the total an allgather moves). The reduction itself (an OR of bitmaps,
    a sum of counts) is taken to hide under the transfers."""
    if nodes == 1:
        return 0.0
    stages, moved = COLLECTIVE_ALGORITHMS[model.algorithm].reduce_scatter(nodes, total_bytes)
    return stages * model.stage_latency_s + moved / model.bandwidth_Bps


# ------------------------------------------------------------------------ DMA


def dma_stream_seconds(nbytes: float, bandwidth_Bps: float) -> float:
    """Time one DMA engine's data path streams ``nbytes`` at the bandwidth of
    its block size (the latency of a command is charged separately)."""
    return nbytes / bandwidth_Bps


def aligned_bytes(sizes, alignment_bytes: float) -> float:
    """Main-memory bytes of blocks of ``sizes``, each rounded up to the alignment."""
    a = alignment_bytes
    return float((np.ceil(np.asarray(sizes, dtype=np.float64) / a) * a).sum())


def exact_in_any_order(*values: np.ndarray) -> bool:
    """Whether every sum of these values, in any order, is exact in
    floating point: they are whole numbers and no partial sum can reach
    2**53 (checked with room to spare)."""
    return all(bool(np.all(v == np.floor(v))) and float(np.abs(v).sum()) < 2.0**52 for v in values)
