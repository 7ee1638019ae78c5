"""GPUs behind PCIe (TSUBAME 2.0's Tesla M2050, seed 004).

A host carries one or more GPUs, each on its own PCIe link to host memory;
one MPI process drives each GPU (004, V-A, VI-C). The GPU runs the BFS as
*kernels*, one at a time in launch order, and moves data to and from host
memory with its copy engines, one per direction, so a device-to-host copy, a
host-to-device copy and a kernel can all run at once (a Fermi Tesla has two
DMA engines). Every message between GPUs crosses PCIe twice, device to host
at the sender and host to device at the receiver (004, V-G).

The machine file's ``gpu:`` section (:data:`SECTION`) holds the GPU's spec
sheet and component figures. Its frozen model, :class:`GPUModel`, prices
with pure methods (no simpy), so that an executed run and a projection price
a kernel alike:

* :meth:`Processor.kernel_seconds` - a kernel, from the bytes it streams,
  its scattered accesses, its atomics, its lane operations and its launches;
* :meth:`GPUModel.copy_seconds` - a PCIe copy.

:class:`Processor` is the kernel cost model itself, shared with a CPU that
runs the same code (004, Fig. 13's CPU configuration builds one from the
host's ``node:`` section).

The simpy side is small: each process gets one :class:`GPU`, three
capacity-1 ``simpy.Resource``\\ s (kernels, device-to-host, host-to-device),
held for priced times (:meth:`GPU.work`) and reported to the recorder as
spans on the resources ``gpu``, ``pcie d2h`` and ``pcie h2d``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from ...machine import schema as S
from ...machine.sections import MachineSection, SectionValues
from ..recorder import NULL_RECORDER
from .base import Device


@dataclass(frozen=True)
class Processor:
    """What a memory-bound kernel costs on one processor (a GPU, or the CPU
    threads that run the same code), in SI units, per kind of access.

    ``stream_Bps``, ``stream_write_Bps``: sustained bandwidths of coalesced
    (sequential) reads and writes;
    ``granule_bytes``: memory traffic of one scattered load that misses
    the cache (a 32 B L2 sector for Fermi's cache-global loads, 128 B for
    its default L1-caching ones; a 64 B line on a Xeon);
    ``write_granule_bytes``: memory traffic of one scattered store or atomic
    that misses (a 32 B L2 sector on Fermi, whose stores and atomics bypass
    the L1; a 64 B line on a Xeon);
    ``cache_bytes``: the last-level cache that scattered accesses may hit;
    ``load_rate``, ``store_rate``: scattered loads and stores that miss,
    per second, whatever bytes they move (on a GPU the measured rate of
    uncoalesced accesses, each lane its own line; on a CPU the misses its
    threads keep in flight over the memory latency);
    ``op_rate``: simple integer operations per second (lanes x clock);
    ``atomic_rate``: atomic read-modify-writes per second in the cache;
    ``launch_s``: fixed cost of one kernel launch (or parallel region)."""

    stream_Bps: float
    stream_write_Bps: float
    granule_bytes: float
    write_granule_bytes: float
    cache_bytes: float
    load_rate: float
    store_rate: float
    op_rate: float
    atomic_rate: float
    launch_s: float

    def miss_rate(self, working_set_bytes):
        """Share of uniformly scattered accesses into ``working_set_bytes``
        that miss the cache: 1 - min(1, cache / working set)."""
        ws = np.asarray(working_set_bytes, dtype=np.float64)
        return np.where(ws <= self.cache_bytes, 0.0, 1.0 - self.cache_bytes / np.maximum(ws, 1e-300))

    def kernel_seconds(self, streamed_bytes=0.0, scattered=0.0, scattered_set_bytes=0.0, atomics=0.0,
                       ops=0.0, launches=1.0, scattered_writes=0.0, written_bytes=0.0):
        """Time of a kernel (scalars, or numpy arrays with one entry per
        process) that reads ``streamed_bytes`` and writes ``written_bytes``
        coalesced, makes ``scattered`` scattered loads and
        ``scattered_writes`` scattered stores (each a dirty sector or line
        written back, atomics included) into a structure of
        ``scattered_set_bytes``, ``atomics`` atomic updates and ``ops`` lane
        operations, over ``launches`` launches::

            miss    = miss_rate(scattered_set_bytes)
            loads   = scattered x miss;  stores = scattered_writes x miss
            memory  = (streamed_bytes + loads x granule) / stream_bandwidth
                      + (written_bytes + stores x write_granule) / stream_write_bandwidth
            scatter = loads / load_rate + stores / store_rate
            time    = launches x launch
                      + max(memory, scatter, ops / op_rate, atomics / atomic_rate)

        Reads and writes share the memory bus, and scattered loads and
        stores the path that serves uncoalesced requests, so each pair adds
        up. Overlap rule: a kernel keeps its memory traffic, its scattered
        requests, its arithmetic and its atomics in flight at once
        (thousands of threads), so it runs at the rate of the busiest of
        them, not their sum. A kernel with nothing to do costs nothing (no
        launch)."""
        miss = self.miss_rate(scattered_set_bytes)
        loads = np.asarray(scattered, dtype=np.float64) * miss
        stores = np.asarray(scattered_writes, dtype=np.float64) * miss
        memory = ((np.asarray(streamed_bytes, dtype=np.float64) + loads * self.granule_bytes) / self.stream_Bps
                  + (np.asarray(written_bytes, dtype=np.float64) + stores * self.write_granule_bytes)
                  / self.stream_write_Bps)
        scatter = loads / self.load_rate + stores / self.store_rate
        busiest = np.maximum(np.maximum(memory, scatter),
                             np.maximum(np.asarray(ops, dtype=np.float64) / self.op_rate,
                                        np.asarray(atomics, dtype=np.float64) / self.atomic_rate))
        busy = busiest > 0
        time = np.where(busy, np.asarray(launches, dtype=np.float64) * self.launch_s + busiest, 0.0)
        return float(time) if time.ndim == 0 else time


@dataclass(frozen=True)
class GPUModel:
    """One GPU and its PCIe link, in SI units; pure pricing methods."""

    multiprocessors: int
    lanes: int
    clock_hz: float
    memory_bytes: float
    memory_bandwidth_Bps: float
    stream_Bps: float
    stream_write_Bps: float
    load_bytes: float
    sector_bytes: float
    l2_bytes: float
    load_rate: float
    store_rate: float
    atomic_rate: float
    launch_s: float
    pcie_Bps: float
    pcie_latency_s: float

    @property
    def processor(self) -> Processor:
        """The GPU as a kernel cost model: the measured coalesced and
        uncoalesced rates, one simple operation per lane per cycle."""
        return Processor(stream_Bps=self.stream_Bps, stream_write_Bps=self.stream_write_Bps,
                         granule_bytes=self.load_bytes, write_granule_bytes=self.sector_bytes,
                         cache_bytes=self.l2_bytes, load_rate=self.load_rate, store_rate=self.store_rate,
                         op_rate=self.multiprocessors * self.lanes * self.clock_hz,
                         atomic_rate=self.atomic_rate, launch_s=self.launch_s)

    def copy_seconds(self, nbytes, copies=1.0):
        """Time of ``copies`` PCIe copies of ``nbytes`` in all, one
        direction (scalars or arrays)::

            copies x latency + nbytes / pcie_bandwidth

        (nothing to copy costs nothing)."""
        nbytes = np.asarray(nbytes, dtype=np.float64)
        time = np.where(nbytes > 0, np.asarray(copies, dtype=np.float64) * self.pcie_latency_s
                        + nbytes / self.pcie_Bps, 0.0)
        return float(time) if time.ndim == 0 else time


def _build(v: SectionValues) -> GPUModel:
    return GPUModel(
        multiprocessors=int(v["multiprocessors"]), lanes=int(v["lanes"]), clock_hz=v["clock"],
        memory_bytes=v["memory"], memory_bandwidth_Bps=v["memory_bandwidth"], stream_Bps=v["stream_bandwidth"],
        stream_write_Bps=v["stream_write_bandwidth"], load_rate=v["scattered_load_rate"],
        store_rate=v["scattered_store_rate"], load_bytes=v["scattered_load"], sector_bytes=v["sector"],
        l2_bytes=v["l2_cache"], atomic_rate=v["atomic_rate"], launch_s=v["launch_overhead"],
        pcie_Bps=v["pcie_bandwidth"], pcie_latency_s=v["pcie_latency"])


def _check(v: SectionValues, problem) -> None:
    for key in ("stream_bandwidth", "stream_write_bandwidth"):
        if v[key] > v["memory_bandwidth"]:
            problem(f"gpu.{key}", "a sustained bandwidth cannot exceed the peak (gpu.memory_bandwidth)")
    if v["l2_cache"] > v["memory"]:
        problem("gpu.l2_cache", "the L2 cache cannot be larger than the GPU's memory (gpu.memory)")


SECTION = MachineSection(
    name="gpu",
    build=_build,
    check=_check,
    schema=S.Section(
        optional=True,
        doc="The GPU of each process and its PCIe link (engine/devices/gpu.py): kernels priced from the bytes "
            "they move, copies from PCIe bandwidth and latency.",
        fields={
            "multiprocessors": S.Param("count", "Streaming multiprocessors.", integer=True),
            "lanes": S.Param("count", "SIMD lanes (CUDA cores) per multiprocessor.", integer=True),
            "clock": S.Param("frequency", "Shader clock of the lanes."),
            "memory": S.Param("size", "Device memory a process can use (ECC on)."),
            "memory_bandwidth": S.Param("bandwidth", "Peak device-memory bandwidth."),
            "stream_bandwidth": S.Param("bandwidth", "Sustained device-memory bandwidth of coalesced reads."),
            "stream_write_bandwidth": S.Param("bandwidth", "Sustained device-memory bandwidth of coalesced writes."),
            "scattered_load_rate": S.Param("frequency", "Uncoalesced loads per second (Hz) that miss the L2, each "
                                                        "lane its own line."),
            "scattered_store_rate": S.Param("frequency", "Uncoalesced stores per second (Hz) that miss the L2, "
                                                         "each lane its own line."),
            "scattered_load": S.Param("size", "Memory traffic of one scattered load that misses the caches."),
            "sector": S.Param("size", "Memory traffic of one scattered store or atomic that misses the L2."),
            "l2_cache": S.Param("size", "L2 cache shared by the multiprocessors."),
            "atomic_rate": S.Param("frequency", "Atomic read-modify-writes per second (Hz) resolved in the L2."),
            "launch_overhead": S.Param("time", "Fixed cost of one kernel launch."),
            "pcie_bandwidth": S.Param("bandwidth", "Host-device copy bandwidth, per direction."),
            "pcie_latency": S.Param("time", "Fixed cost of one host-device copy."),
        },
    ),
)


class GPU:
    """One process's GPU: a kernel queue and a copy engine per direction,
    each a capacity-1 simpy Resource."""

    UNITS = ("gpu", "pcie d2h", "pcie h2d")

    def __init__(self, env: simpy.Environment, model: GPUModel, *, owner: int = 0, recorder=NULL_RECORDER):
        self.env = env
        self.model = model
        self.owner = owner
        self.recorder = recorder
        self.units = {unit: simpy.Resource(env, capacity=1) for unit in self.UNITS}

    def work(self, unit: str, seconds: float, what: str, **detail):
        """Process: take ``unit`` (one of :attr:`UNITS`; first come, first
        served), hold it for ``seconds`` (priced with the model), give it
        back; reported as a span on ``unit``."""
        with self.units[unit].request() as request:
            yield request
            start = self.env.now
            yield self.env.timeout(seconds)
        self.recorder.record(self.owner, unit, start, self.env.now, what, **detail)


class GPUDevice(Device):
    """The GPU of every process."""

    SECTION = SECTION

    @classmethod
    def attach(cls, env, machine, nodes: int, recorder) -> list[GPU]:
        model = machine.section(SECTION.name)
        return [GPU(env, model, owner=rank, recorder=recorder) for rank in range(nodes)]
