"""The SW26010 core groups' CPE clusters (seed 003, Sunway TaihuLight).

A SW26010 node has four core groups, each an MPE, a cluster of 64 CPEs (an
8x8 mesh joined by register buses, 64 KiB of scratch-pad memory each) and a
memory controller (003, 3.1). The BFS modules run on the clusters, at most
one cluster per module, while the MPEs drive MPI and hand work to an idle
cluster by a flag in memory (003, 4.2). A *reaction module* (Forward
Generator, relays) runs on one cluster as a pipeline of 32 producers that
read by DMA, 16 routers that shuffle over the register buses, and 16
consumers that write 256 B batches by DMA (003, 4.3, Fig. 6).

The machine file's ``cpe_cluster:`` section (:data:`SECTION`) holds the
cluster's component measurements: its DMA bandwidth against chunk size
(003, 3.2, Fig. 3), how many CPEs saturate it (Fig. 5), the MPE's own
bandwidth, the register-bus shuffle rate (003, 4.3) and the shuffle layout.
Its frozen model, :class:`CPEClusterModel`, prices operations with pure
methods (no simpy), so that an executed run and a projection price a module
alike:

* :meth:`CPEClusterModel.dma_seconds` - a DMA stream of one cluster;
* :meth:`CPEClusterModel.random_access_seconds` - a random access, one
  blocking DMA of a CPE;
* :meth:`CPEClusterModel.mpe_seconds` - the same bytes moved by an MPE;
* :meth:`CPEClusterModel.shuffle_seconds` - the register-bus shuffle;
* :meth:`CPEClusterModel.reaction_seconds` - a whole reaction module;
* :meth:`CPEClusterModel.consumer_destinations` - how many destinations the
  consumers' scratch pads can buffer.

The simpy side is small: each node gets one :class:`CPEClusters`, a
capacity-1 ``simpy.Resource`` per cluster, from which an algorithm takes a
given cluster or the first free one (first come, first served), and holds
it for a priced time (:meth:`CPEClusters.work`), reported to the recorder
as a span on the resource ``cpe_cluster<i>``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import simpy

from ...machine import schema as S
from ...machine.sections import MachineSection, SectionValues
from ..curves import log_linear
from ..recorder import NULL_RECORDER
from .base import Device


@dataclass(frozen=True)
class ShuffleLayout:
    """CPEs of one cluster in each role of the contention-free shuffle (003, 4.3)."""

    producers: int
    routers: int
    consumers: int


@dataclass(frozen=True)
class CPEClusterModel:
    """One SW26010 node's CPE clusters, in SI units; pure pricing methods."""

    clusters: int
    cpes: int
    spm_bytes: float
    curve_chunk_bytes: tuple[float, ...]
    curve_bandwidth_Bps: tuple[float, ...]
    blocking_chunk_bytes: tuple[float, ...]
    blocking_bandwidth_Bps: tuple[float, ...]
    cpes_to_saturate: int
    mpe_bandwidth_Bps: float
    memory_latency_s: float
    register_bus_Bps: float
    layout: ShuffleLayout
    batch_bytes: float
    notify_latency_s: float
    interrupt_s: float

    # ------------------------------------------------------------- DMA
    def _cpes(self, cpes: int | None) -> int:
        """``cpes`` of a cluster (default all), checked."""
        cpes = self.cpes if cpes is None else cpes
        if not 1 <= cpes <= self.cpes or cpes != int(cpes):
            raise ValueError(f"a cluster has 1 to {self.cpes} CPEs; got cpes={cpes!r}")
        return cpes

    def dma_bandwidth(self, chunk_bytes, cpes: int | None = None):
        """DMA bandwidth of one cluster, B/s, when ``cpes`` of its CPEs (default
        all) stream chunks of ``chunk_bytes``:

            curve(chunk) x min(1, cpes / cpes_to_saturate)

        ``curve`` is log-linear between the machine file's points and flat
        beyond its ends (below the first point a chunk is priced as the first
        point's size). ``chunk_bytes`` may be an array (one bandwidth each)."""
        cpes = self._cpes(cpes)
        chunks = np.asarray(chunk_bytes, dtype=np.float64)
        if not np.all(chunks > 0):
            raise ValueError(f"a DMA chunk must be larger than 0 bytes; got {chunk_bytes!r}")
        curve = log_linear(self.curve_chunk_bytes, self.curve_bandwidth_Bps, chunks)
        return _scalar_or_array(curve * min(1.0, cpes / self.cpes_to_saturate))

    def dma_seconds(self, nbytes, chunk_bytes, cpes: int | None = None):
        """Time for ``cpes`` CPEs of one cluster (default all) to move ``nbytes``
        by DMA in chunks of ``chunk_bytes``:

            nbytes / (curve(chunk_bytes) x min(1, cpes / cpes_to_saturate))

        Reads and writes cost the same (003, 3.2, Fig. 3: "write has a
        similar performance"). No per-command latency: Fig. 3 and Fig. 5 are
        streaming rates. Arrays allowed (element by element)."""
        nbytes = np.asarray(nbytes, dtype=np.float64)
        return _scalar_or_array(np.where(nbytes > 0, nbytes / self.dma_bandwidth(chunk_bytes, cpes), 0.0))

    def random_access_seconds(self, nbytes: float, cpes: int | None = None) -> float:
        """Time one cluster takes per random main-memory access of
        ``nbytes`` when ``cpes`` of its CPEs (default all) each make such
        accesses one after another, each a blocking DMA (a word read and
        tested, or written):

            nbytes / (blocking_curve(nbytes) x cpes / cluster's cpes)

        ``blocking_curve`` is the DMA bandwidth of the whole cluster when
        every CPE waits for each of its DMAs (log-linear between the machine
        file's points); a blocking DMA is bound by its own latency, so the
        rate grows with the CPEs that make them. An access smaller than the
        curve's first point costs a DMA of that size: its latency, not its
        bytes, bounds it."""
        cpes = self._cpes(cpes)
        size = max(float(nbytes), self.blocking_chunk_bytes[0])
        bandwidth = float(log_linear(self.blocking_chunk_bytes, self.blocking_bandwidth_Bps,
                                     np.asarray(size, dtype=np.float64)))
        return size / (bandwidth * cpes / self.cpes)

    def mpe_seconds(self, nbytes: float) -> float:
        """Time for one MPE (one thread, 256 B batches) to move ``nbytes``:

            nbytes / mpe_bandwidth"""
        return nbytes / self.mpe_bandwidth_Bps if nbytes > 0 else 0.0

    # ---------------------------------------------------------- shuffle
    def shuffle_seconds(self, nbytes):
        """Time for one cluster's producer/router/consumer shuffle to carry
        ``nbytes`` register to register (arrays allowed):

            nbytes / register_bus"""
        nbytes = np.asarray(nbytes, dtype=np.float64)
        return _scalar_or_array(np.where(nbytes > 0, nbytes / self.register_bus_Bps, 0.0))

    def reaction_seconds(self, read_bytes, read_chunk, shuffled_bytes, written_bytes):
        """Time for a reaction module on one cluster (003, 4.3, Fig. 6): the
        producers read ``read_bytes`` by DMA in chunks of ``read_chunk``, the
        shuffle carries ``shuffled_bytes`` from producers through routers to
        consumers, and the consumers write ``written_bytes`` by DMA in batches
        of ``batch`` bytes:

            read  = dma_seconds(read_bytes, read_chunk, producers)
            write = dma_seconds(written_bytes, batch, consumers)
            port  = dma_seconds(read_bytes, read_chunk) + dma_seconds(written_bytes, batch)
            time  = max(read, shuffle_seconds(shuffled_bytes), write, port)

        Overlap rule: the three stages run at once on different CPEs, joined
        by scratch-pad buffers, so in steady state the module runs at the
        rate of its busiest resource, not the sum of the stages. The
        resources are each stage's own CPEs (producers' and consumers' DMA
        issue rate, ``min(1, k / cpes_to_saturate)`` of the curve), the
        register buses, and the cluster's one memory port (one memory
        controller per core group, 003, 3.1), which reads and writes share:
        together they move at most ``curve`` bytes per second, so ``port``
        is the sum of the two streams at the full cluster bandwidth. This is
        how 003, 4.3 derives its theoretical 14.5 GB/s shuffle, "half of peak
        bandwidth in Figure 3 for both read and write": reading and writing
        N bytes in 256 B chunks takes 2N / 28.9 GB/s, so 14.45 GB/s of
        shuffle throughput. With the paper's layout (32 producers, 16
        consumers, both at least ``cpes_to_saturate``) ``port`` is never
        below ``read`` or ``write``. Neglected: the pipeline's fill and
        drain (one batch per stage, a module moves many), DMA latency, and
        the CPEs' processing rate, which the measured register-bus rate
        (10 GB/s, a micro-benchmark of the whole shuffle) includes."""
        layout = self.layout
        read = self.dma_seconds(read_bytes, read_chunk, min(layout.producers, self.cpes))
        write = self.dma_seconds(written_bytes, self.batch_bytes, min(layout.consumers, self.cpes))
        port = self.dma_seconds(read_bytes, read_chunk) + self.dma_seconds(written_bytes, self.batch_bytes)
        return _scalar_or_array(np.maximum.reduce(np.broadcast_arrays(read, self.shuffle_seconds(shuffled_bytes),
                                                                      write, port)))

    def bitmap_passes(self, bitmap_bytes):
        """Passes a cluster module makes over its input to test every item
        against a bitmap of ``bitmap_bytes`` (arrays allowed):

            max(1, ceil(bitmap_bytes / ((routers + consumers) x spm)))

        The shuffle routes an item to the CPE that holds its bit (003, 4.3,
        Fig. 6: producers read, routers check and pass on, consumers take);
        only routers and consumers are on an item's way, and the flow runs
        one way, so the bitmap must fit their scratch pads. A larger one is
        held a slice at a time, and every pass reads the whole input again
        and tests the items of its slice. Generous: the whole of each
        scratch pad holds bits, none is left for buffers or code."""
        holders = (self.layout.routers + self.layout.consumers) * self.spm_bytes
        bitmap = np.asarray(bitmap_bytes, dtype=np.float64)
        return _scalar_or_array(np.maximum(1.0, np.ceil(bitmap / holders)))

    def consumer_destinations(self, buffers_per_destination: int = 1) -> int:
        """Destinations whose batches the consumers' scratch pads can hold at
        once:

            floor(consumers x spm / (batch x buffers_per_destination))

        With 16 consumers, 64 KiB each and 256 B batches that is 4096 with one
        buffer per destination. The paper says "we can handle up to 1024
        destinations in practice" (003, 4.3), which is 4 buffers of 256 B per
        destination, or one buffer and three quarters of the SPM used
        otherwise (code, stacks, double buffering); the text does not say
        which, so the caller chooses ``buffers_per_destination``."""
        if buffers_per_destination <= 0:
            raise ValueError(f"buffers_per_destination must be positive; got {buffers_per_destination!r}")
        return math.floor(self.layout.consumers * self.spm_bytes / (self.batch_bytes * buffers_per_destination))


def _scalar_or_array(values: np.ndarray):
    """A float for scalar inputs, else the array: the pricing methods take
    either (an executed run prices every node at once)."""
    return float(values) if values.ndim == 0 else values


def _build(v: SectionValues) -> CPEClusterModel:
    chunks, bandwidths = v["dma_curve"]
    blocking_chunks, blocking_bandwidths = v["blocking_dma_curve"]
    return CPEClusterModel(
        clusters=int(v["clusters"]), cpes=int(v["cpes"]), spm_bytes=v["spm"],
        curve_chunk_bytes=chunks, curve_bandwidth_Bps=bandwidths, blocking_chunk_bytes=blocking_chunks,
        blocking_bandwidth_Bps=blocking_bandwidths,
        cpes_to_saturate=int(v["cpes_to_saturate"]), mpe_bandwidth_Bps=v["mpe_bandwidth"],
        memory_latency_s=v["memory_latency"], register_bus_Bps=v["register_bus"],
        layout=ShuffleLayout(producers=int(v["shuffle_layout.producers"]),
                             routers=int(v["shuffle_layout.routers"]),
                             consumers=int(v["shuffle_layout.consumers"])),
        batch_bytes=v["batch"], notify_latency_s=v["notify_latency"], interrupt_s=v["interrupt"])


def _check(v: SectionValues, problem) -> None:
    cpes = v["cpes"]
    roles = sum(v[f"shuffle_layout.{role}"] for role in ("producers", "routers", "consumers"))
    if roles > cpes:
        problem("cpe_cluster.shuffle_layout", f"producers, routers and consumers take {roles} CPEs, "
                                              f"more than the {cpes} of a cluster (cpe_cluster.cpes)")
    if v["cpes_to_saturate"] > cpes:
        problem("cpe_cluster.cpes_to_saturate", f"{v['cpes_to_saturate']} CPEs to saturate the DMA bandwidth, "
                                                f"more than the {cpes} of a cluster (cpe_cluster.cpes)")
    if v["batch"] > v["spm"]:
        problem("cpe_cluster.batch", "a consumer's write batch must fit in its scratch pad (cpe_cluster.spm)")


SECTION = MachineSection(
    name="cpe_cluster",
    build=_build,
    check=_check,
    schema=S.Section(
        optional=True,
        doc="The CPE clusters of a SW26010 node (engine/devices/cpe_cluster.py): per cluster, its DMA "
            "bandwidth, register-bus shuffle and scratch pads; the MPE's bandwidth and notifications.",
        fields={
            "clusters": S.Param("count", "CPE clusters (core groups) per node.", integer=True),
            "cpes": S.Param("count", "CPEs per cluster.", integer=True),
            "spm": S.Param("size", "Scratch-pad memory of one CPE."),
            "dma_curve": S.Curve("size", "bandwidth", "chunk", "bandwidth",
                                 "DMA bandwidth of one whole cluster as a function of chunk size "
                                 "(log-linear in between, flat beyond the ends)."),
            "blocking_dma_curve": S.Curve("size", "bandwidth", "chunk", "bandwidth",
                                          "DMA bandwidth of one whole cluster when every CPE waits for each of "
                                          "its DMAs, as a function of their size: the rate of random accesses "
                                          "(log-linear in between, flat beyond the ends)."),
            "cpes_to_saturate": S.Param("count", "CPEs of a cluster that reach its full DMA bandwidth; k CPEs "
                                                 "reach min(1, k / cpes_to_saturate) of it.", integer=True),
            "mpe_bandwidth": S.Param("bandwidth", "Memory bandwidth of one MPE (one thread)."),
            "memory_latency": S.Param("time", "Latency of one main-memory access."),
            "register_bus": S.Param("bandwidth", "Rate of one cluster's producer/router/consumer shuffle over "
                                                 "the register buses."),
            "shuffle_layout": S.Section(
                doc="CPEs of one cluster in each role of the shuffle.",
                fields={
                    "producers": S.Param("count", "CPEs that read input by DMA and produce messages.",
                                         integer=True),
                    "routers": S.Param("count", "CPEs that pass messages on to their consumer.", integer=True),
                    "consumers": S.Param("count", "CPEs that buffer messages per destination and write them "
                                                  "by DMA in batches.", integer=True),
                },
            ),
            "batch": S.Param("size", "Bytes a consumer writes to memory in one DMA batch."),
            "notify_latency": S.Param("time", "From an MPE setting a flag to the whole cluster seeing it."),
            "interrupt": S.Param("time", "Latency of a system interrupt (documented; not used: notifications "
                                         "poll memory flags)."),
        },
    ),
)


class CPEClusters:
    """One node's CPE clusters, each a capacity-1 simpy Resource."""

    def __init__(self, env: simpy.Environment, model: CPEClusterModel, *, owner: int = 0, recorder=NULL_RECORDER):
        self.env = env
        self.model = model
        self.owner = owner
        self.recorder = recorder
        self.clusters = [simpy.Resource(env, capacity=1) for _ in range(model.clusters)]

    def acquire(self, cluster: int | None = None):
        """Process whose value is ``(index, request)``: cluster ``cluster``, or
        the first cluster to be free (requests are served first come, first
        served: each cluster's queue is FIFO, and a waiter withdraws from the
        other queues as soon as one cluster is its). Give it back with
        :meth:`release`."""
        if cluster is not None:
            request = self.clusters[cluster].request()
            yield request
            return cluster, request
        requests = [resource.request() for resource in self.clusters]
        yield self.env.any_of(requests)
        chosen = next(i for i, request in enumerate(requests) if request.triggered)
        for i, request in enumerate(requests):
            if i == chosen:
                continue
            if request.triggered:
                self.clusters[i].release(request)
            else:
                request.cancel()
        return chosen, requests[chosen]

    def release(self, cluster: int, request) -> None:
        self.clusters[cluster].release(request)

    def work(self, seconds: float, what: str = "module", cluster: int | None = None, **detail):
        """Process: take a cluster (``cluster`` or the first free one), hold it
        for ``seconds`` (priced with the model's methods), give it back.
        Reported as a span from taking to giving back on
        ``cpe_cluster<index>``; the value is the index."""
        index, request = yield self.env.process(self.acquire(cluster))
        start = self.env.now
        yield self.env.timeout(seconds)
        self.release(index, request)
        self.recorder.record(self.owner, f"cpe_cluster{index}", start, self.env.now, what, **detail)
        return index


class CPECluster(Device):
    """The CPE clusters of every node."""

    SECTION = SECTION

    @classmethod
    def attach(cls, env, machine, nodes: int, recorder) -> list[CPEClusters]:
        model = machine.section(SECTION.name)
        return [CPEClusters(env, model, owner=rank, recorder=recorder) for rank in range(nodes)]
