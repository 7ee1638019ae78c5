"""What one level of Ueno & Suzumura's BFS costs, as pure functions of
counts (docs/background/ueno2d.md).

``price_level`` composes them into a level's time. The executed run calls
it with every process's counts (numpy arrays of length P); the projection
with the mean and the busiest process's counts (scalars). Nothing here
knows which: what differs is given, the fold's network term (the engine's
loads of the real P x P fold, or the projection's closed form) and how an
allgather finds the slowest member of its group (the real column and row,
or the process priced standing for all of them).

Kernels (004, V-A, Fig. 3), each priced by :meth:`Processor.kernel_seconds`
from the bytes it streams, its scattered accesses into a structure (which
hit the L2 as often as the structure fits), its atomics and lane operations:

    encode   (list expand) read NQ, write its SIMD-VLQ bytes
    decode   set the received vertices in CQ and SV (list), or copy and OR
             the received bitmaps (bitmap)
    cq_list  scan the n/C-bit CQ bitmap, list its non-empty words
    gather   per listed word two index reads; per entry read 6 B, write an 8 B
             edge; relaunched each time the gather buffer fills
    filter   per gathered edge read it and check SV (Algorithm V): (A) an
             atomicOr for every edge, no separate load (a missing sector is
             fetched into the L2 and written back dirty); (B) load the word,
             and an atomicOr only for edges that pass; (C) the same with a
             plain store; every update dirties its sector, which goes back
             to memory; passing edges are written out
    receive  (task 8) per received edge test VISITED; per claimed vertex set
             VISITED and NQ, write PRED (an atomic on VISITED)

Time of a level on one process
    expand: encode, copy to the host, allgather in the processor-column,
    allgather in the processor-row, copy the received data to the GPU,
    decode; not overlapped (004, VI-E: "except the expand communication").
    Each allgather starts when the slowest member of its column (row) is
    ready.

    fold: cq_list, then the portions of the edge frontier flow through
    gather+filter (GPU), device-to-host copy, the host's network ports,
    host-to-device copy at the receiver and task 8 (GPU), all overlapped
    (004, V-A). A pipeline of K equal portions through stages of total
    times t_s lasts (sum of t_s + (K - 1) x the busiest) / K: the busiest
    resource works throughout, and the other stages add their share of one
    portion at the start and the end::

        busiest = max(gpu, d2h, h2d, ports, mpi)
        stages  = gather + filter + d2h + ports + h2d + receive
        fold    = cq_list + busiest + (stages - busiest) / portions + latency

    ``gpu`` is gather + filter + receive (one kernel at a time), ``ports``
    the busiest of the host's injection, ejection and link times, ``mpi``
    the host's software overhead of the fold messages; ``portions`` the
    gather-buffer fills. With one portion nothing overlaps and the sum of
    the stages remains; with many, the busiest resource.

device=cpu (VI-F): the same kernels on the process's share of the host CPU
(no PCIe copies), priced by the same formula with the host's parameters
(:func:`cpu_processor`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...engine.costs import allgather_time
from ...engine.devices import Processor
from ...machine.model import Machine
from .work import EXPAND_LIST

KERNELS = ("encode", "decode", "cq_list", "gather", "filter", "receive")


def cpu_processor(machine: Machine) -> Processor:
    """The host CPU share of one process as a kernel cost model (device=cpu):
    the host's sustained memory bandwidth and last-level cache divided among
    its processes, 64 B lines, ``host_threads`` x ``cpu_misses_in_flight``
    misses in flight at the memory latency, one operation per cycle per core
    of the process's share, atomics as misses, no launch cost (a parallel
    loop's fork is microseconds against kernels of milliseconds)."""
    node, section = machine.node, machine.section("ueno2d")
    share = machine.network.processes_per_host
    hierarchy = node.memory_hierarchy
    latency_s = hierarchy.memory_latency_cycles / node.clock_hz
    random_rate = section.host_threads * section.cpu_misses_in_flight / latency_s
    return Processor(stream_Bps=node.memory_bandwidth_Bps / share, stream_write_Bps=node.memory_bandwidth_Bps / share,
                     granule_bytes=hierarchy.cache_line_bytes, write_granule_bytes=hierarchy.cache_line_bytes,
                     cache_bytes=hierarchy.cache_size_bytes / share, load_rate=random_rate, store_rate=random_rate,
                     op_rate=node.cores / share * node.clock_hz, atomic_rate=random_rate, launch_s=0.0)


def processor(machine: Machine, device: str) -> Processor:
    return machine.section("gpu").processor if device == "gpu" else cpu_processor(machine)


@dataclass(frozen=True)
class Shape:
    """The sizes every level's prices need: vertices and the grid."""

    n: float
    R: int
    C: int

    @property
    def P(self) -> int:
        return self.R * self.C


@dataclass
class Counts:
    """One level's counts of one process (scalars) or of every process
    (arrays). Bytes are payload bytes."""

    expand_mode: str
    own_vertices: object
    own_bytes: object
    column_bytes: object  # received from its column
    row_bytes: object  # received from its row
    column_vertices: object  # |CQ|
    row_vertices: object
    cq_words: object
    nonempty_words: object
    entries: object
    passed: object
    sent_bytes: object  # fold bytes to other processes
    received: object  # fold edges task 8 handles (kept ones included)
    received_bytes: object  # fold bytes from other processes
    claimed: object
    messages_out: object  # fold messages to other processes
    messages_in: object


@dataclass
class LevelTimes:
    """Per process (arrays) or one process (scalars): what each unit spends."""

    kernels: dict = field(default_factory=dict)
    expand_d2h: object = 0.0
    expand_h2d: object = 0.0
    fold_d2h: object = 0.0
    fold_h2d: object = 0.0
    column_allgather: object = 0.0
    row_allgather: object = 0.0
    mpi: object = 0.0
    portions: object = 1.0
    ports: object = 0.0  # busiest of inject, eject, link
    fill: object = 0.0

    @property
    def kernel_total(self):
        return sum(self.kernels.values())

    def busiest(self):
        """The fold's busiest resource: the GPU (gather, filter and task 8,
        one kernel at a time), a copy engine, the host's ports or the MPI
        software."""
        k = self.kernels
        busiest = k["gather"] + k["filter"] + k["receive"]
        for other in (self.fold_d2h, self.fold_h2d, self.ports, self.mpi):
            busiest = np.maximum(busiest, other)
        return busiest

    def fold_seconds(self):
        return self.kernels["cq_list"] + self.busiest() + self.fill

    def expand_ready(self):
        """From the level's start until the process's NQ is on the host."""
        return self.kernels["encode"] + self.expand_d2h

    def expand_finish(self):
        """From the end of the row allgather until CQ and SV are ready."""
        return self.expand_h2d + self.kernels["decode"]


def kernel_times(machine: Machine, device: str, sv: str, shape: Shape, c: Counts) -> dict:
    """Seconds of each kernel of the level (module docstring)."""
    section = machine.section("ueno2d")
    proc = processor(machine, device)
    n, R, C, P = shape.n, shape.R, shape.C, shape.P
    edge, word = section.edge_bytes, section.word_bytes
    cq_bits, sv_bits, own_bits = n / C / 8, n / R / 8, n / P / 8
    listed = c.expand_mode == EXPAND_LIST
    received_expand = np.asarray(c.column_bytes, dtype=np.float64) + c.row_bytes
    if listed:
        encode = proc.kernel_seconds(streamed_bytes=own_bits, written_bytes=np.asarray(c.own_bytes, dtype=np.float64),
                                     ops=np.asarray(c.own_bytes, dtype=np.float64) * section.vlq_ops)
        decode = proc.kernel_seconds(streamed_bytes=received_expand,
                                     scattered_writes=np.asarray(c.column_vertices, dtype=np.float64)
                                     + c.row_vertices,
                                     scattered_set_bytes=cq_bits + sv_bits,
                                     ops=received_expand * section.vlq_ops)
    else:
        encode = proc.kernel_seconds() * np.zeros_like(np.asarray(c.own_bytes, dtype=np.float64))
        decode = proc.kernel_seconds(streamed_bytes=received_expand + own_bits,
                                     written_bytes=received_expand + own_bits, launches=2.0)
    words = np.asarray(c.cq_words, dtype=np.float64)
    cq_list = proc.kernel_seconds(streamed_bytes=words * word, written_bytes=2 * np.asarray(c.nonempty_words) * word,
                                  ops=4 * words, launches=2.0)
    entries = np.asarray(c.entries, dtype=np.float64)
    passed = np.asarray(c.passed, dtype=np.float64)
    launches = np.maximum(1.0, np.ceil(entries * edge / section.gather_buffer_bytes))
    index_bytes = n / C / 32 * section.index_bytes
    gather = proc.kernel_seconds(
        streamed_bytes=entries * section.adjacency_entry_bytes + np.asarray(c.nonempty_words) * word,
        written_bytes=entries * edge,
        scattered=2 * np.asarray(c.nonempty_words, dtype=np.float64), scattered_set_bytes=index_bytes,
        ops=entries * section.gather_ops, launches=launches)
    # Algorithm V: (A) one atomicOr per edge and no load of its own: the L2
    # fetches the missing sector (a scattered load's traffic and request)
    # and writes it back dirty (a scattered store's); (B) and (C) load the
    # word and update it, atomically or not, only for edges that pass,
    # writing the sector back
    tests, updates = (entries, entries) if sv == "atomic" else (entries, passed)
    atomics = {"atomic": entries, "ttas": passed, "tas": 0.0 * passed}[sv]
    filt = proc.kernel_seconds(streamed_bytes=entries * edge, written_bytes=passed * edge, scattered=tests,
                               scattered_writes=updates, scattered_set_bytes=sv_bits, atomics=atomics,
                               ops=entries * section.filter_ops,
                               launches=launches)
    received = np.asarray(c.received, dtype=np.float64)
    claimed = np.asarray(c.claimed, dtype=np.float64)
    receive = proc.kernel_seconds(
        streamed_bytes=received * edge, scattered=received, scattered_writes=3 * claimed,
        scattered_set_bytes=2 * own_bits + n / P * section.parent_bytes, atomics=claimed,
        ops=received * section.receive_ops,
        launches=np.maximum(1.0, np.ceil(np.asarray(c.received_bytes) / section.receive_threshold_bytes)))
    return {"encode": encode, "decode": decode, "cq_list": cq_list, "gather": gather, "filter": filt,
            "receive": receive}


def level_times(machine: Machine, device: str, sv: str, shape: Shape, c: Counts, ports, latency_s: float,
                column_total_bytes, row_total_bytes) -> LevelTimes:
    """Every unit's time in the level for counts ``c``. ``ports``: the
    busiest of the process's host injection, ejection and link times for
    the fold; ``column_total_bytes``/``row_total_bytes``: the bytes its
    column's (row's) allgather gathers."""
    section = machine.section("ueno2d")
    kernels = kernel_times(machine, device, sv, shape, c)
    coll = machine.collectives
    times = LevelTimes(kernels=kernels)
    times.column_allgather = _each_distinct(lambda b: allgather_time(coll, shape.R, b), column_total_bytes)
    times.row_allgather = _each_distinct(lambda b: allgather_time(coll, shape.C, b), row_total_bytes)
    portions = np.maximum(1.0, np.ceil(np.asarray(c.entries, dtype=np.float64) * section.edge_bytes
                                       / section.gather_buffer_bytes))
    times.portions = portions
    if device == "gpu":
        gpu = machine.section("gpu")
        times.expand_d2h = gpu.copy_seconds(c.own_bytes)
        times.expand_h2d = gpu.copy_seconds(np.asarray(c.column_bytes, dtype=np.float64) + c.row_bytes, 2.0)
        times.fold_d2h = gpu.copy_seconds(c.sent_bytes, portions)
        batches = np.maximum(1.0, np.ceil(np.asarray(c.received_bytes, dtype=np.float64)
                                          / section.receive_threshold_bytes))
        times.fold_h2d = gpu.copy_seconds(c.received_bytes, batches)
    messaging = machine.messaging
    times.mpi = (np.asarray(c.messages_out, dtype=np.float64) * messaging.send_overhead_s
                 + np.asarray(c.messages_in, dtype=np.float64) * messaging.receive_overhead_s)
    times.ports = np.asarray(ports, dtype=np.float64)
    stages = (kernels["gather"] + kernels["filter"] + times.fold_d2h + times.ports + times.fold_h2d
              + kernels["receive"])
    has_fold = np.asarray(c.sent_bytes, dtype=np.float64) > 0
    times.fill = np.maximum(stages - times.busiest(), 0.0) / portions + np.where(has_fold, latency_s, 0.0)
    return times


def _each_distinct(function, values) -> np.ndarray:
    """``function`` of every value (an array of their shape), called once per
    distinct value: the processes of a column (row) share its allgather."""
    values = np.asarray(values, dtype=np.float64)
    distinct, at = np.unique(values, return_inverse=True)
    return np.array([function(value) for value in distinct], dtype=np.float64)[at].reshape(values.shape)


def expand_seconds(times: LevelTimes, column_max, row_max):
    """From the level's start to CQ and SV ready: each allgather starts
    when the slowest member of its group is ready (``column_max`` and
    ``row_max`` map a per-process value to its group's largest)."""
    column_end = column_max(times.expand_ready()) + times.column_allgather
    return row_max(column_end) + times.row_allgather + times.expand_finish()


def alone(values):
    """The group maximum where every member of the group is the process
    priced: the projection's typical or busiest process, each the slowest
    of its own column and row."""
    return values


@dataclass(frozen=True)
class LevelPrice:
    """One level's price on every process (arrays) or on one (scalars):
    its units' times, its expand and fold, and the largest term. The
    allreduce that ends the level is not in it."""

    times: LevelTimes
    expand_s: object  # from the level's start to CQ and SV ready
    fold_s: object  # from then until task 8 has handled the last portion
    bottleneck: str  # which term is largest on the slowest process

    @property
    def busy_s(self):
        """Until the process joins the allreduce that ends the level."""
        return self.expand_s + self.fold_s

    @property
    def compute_s(self):
        return self.times.kernel_total


def price_level(machine: Machine, device: str, sv: str, shape: Shape, c: Counts, ports, latency_s: float,
                column_total_bytes, row_total_bytes, column_max=alone, row_max=alone) -> LevelPrice:
    """The level's time for counts ``c`` (the module docstring's formula):
    every unit's time (level_times, with the same ``ports``, ``latency_s``
    and group totals), the expand with each allgather waiting for the
    slowest member of its group (``column_max``, ``row_max``: a
    per-process value to its group's largest), and the fold's pipeline."""
    times = level_times(machine, device, sv, shape, c, ports, latency_s, column_total_bytes, row_total_bytes)
    expand_s = expand_seconds(times, column_max, row_max)
    k = times.kernels
    terms = {"gpu kernels" if device == "gpu" else "cpu kernels": np.asarray(k["gather"] + k["filter"] + k["receive"]),
             "pcie": np.maximum(times.fold_d2h, times.fold_h2d), "network": times.ports, "mpi": times.mpi,
             "expand": expand_s}
    slowest = {name: float(np.max(value)) for name, value in terms.items()}
    return LevelPrice(times=times, expand_s=expand_s, fold_s=times.fold_seconds(),
                      bottleneck=max(slowest, key=slowest.get))
