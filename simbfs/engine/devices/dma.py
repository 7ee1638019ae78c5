"""A DMA engine between one processing element and main memory (and, for the
Cell's SPEs, the other elements' local stores).

A transfer of ``n`` bytes in blocks of ``b`` bytes costs the engine's
``latency`` plus ``n / bandwidth(b)`` (the machine's size-dependent curve).
The curve is the bandwidth of *one engine*: the engine's outstanding
requests share it (the engine remembers when its data path is next free,
so a second request's bytes follow the first's), while their latencies
overlap, as a stream of queued MFC commands does. No transfer moves faster
than the main-memory bandwidth all engines share: the shared memory port is
reserved like a network link (next-free time), so concurrent engines queue
for it, and it is charged the bytes rounded up to the DMA alignment of
every block (a 144-byte list at a 128-byte boundary occupies two 128-byte
lines of memory). At most ``max_outstanding`` transfers of one engine are
in flight; a further request waits for a slot (a simpy Resource), as an MFC
command queue makes an SPE wait.

Three commands, each one simpy event however many blocks it moves:

* :meth:`DMAEngine.transfer` - one contiguous get or put;
* :meth:`DMAEngine.transfer_list` - a DMA list (up to the machine's list
  length) of blocks of different sizes, priced at the mean block size;
* :meth:`DMAEngine.put_list` - puts into other elements' local stores over
  the on-chip network, each followed by a small guard transfer that the
  fenced list ordering (``mfc_putlb``) keeps behind its payload.

Every command is reported to the engine's recorder as a span on the
owner's ``dma`` resource, from issue to completion; recorders only observe
and never change timing.

The machine file's ``dma:`` section (:data:`DMA.SECTION`) holds the curve,
the latency, the command queue depth, the shared memory bandwidth and the
alignment.
"""

from __future__ import annotations

import numpy as np
import simpy

from dataclasses import dataclass
from functools import cached_property, lru_cache

from ...machine import schema as S
from ...machine.sections import MachineSection, SectionValues
from ..costs import aligned_bytes, dma_stream_seconds
from ..curves import log_linear
from ..recorder import NULL_RECORDER
from .base import Device


@dataclass(frozen=True)
class DMAModel:
    latency_s: float
    curve_block_bytes: tuple[float, ...]
    curve_bandwidth_Bps: tuple[float, ...]
    max_outstanding: int
    shared_bandwidth_Bps: float
    alignment_bytes: float = 1.0

    def bandwidth(self, block_bytes: float) -> float:
        """Engine bandwidth for transfers of ``block_bytes``, log-linear between points."""
        return self._curve(block_bytes)

    @cached_property
    def _curve(self):
        """The curve as a function of the block size, remembering recent
        sizes: an executed run asks for the same few sizes (bQ blocks,
        commit spans) tens of thousands of times, and a value is the same
        whenever it is computed."""
        bandwidths = np.asarray(self.curve_bandwidth_Bps, dtype=np.float64)

        @lru_cache(maxsize=4096)
        def bandwidth(block_bytes: float) -> float:
            return float(log_linear(self.curve_block_bytes, bandwidths, max(block_bytes, 1.0)))
        return bandwidth


def _build_model(v: SectionValues) -> DMAModel:
    blocks, bandwidths = v["bandwidth_curve"]
    return DMAModel(latency_s=v["latency"], curve_block_bytes=blocks, curve_bandwidth_Bps=bandwidths,
                    max_outstanding=v["max_outstanding"], shared_bandwidth_Bps=v["shared_bandwidth"],
                    alignment_bytes=v["alignment"])


SECTION = MachineSection(
    name="dma",
    build=_build_model,
    schema=S.Section(
        optional=True,
        doc="A DMA engine between each processing element and main memory (engine/devices/dma.py).",
        fields={
            "latency": S.Param("time", "Time from issuing a DMA to its first byte arriving."),
            "bandwidth_curve": S.Curve("size", "bandwidth", "block", "bandwidth",
                                       "Bandwidth of one engine as a function of block size (log-linear in between)."),
            "max_outstanding": S.Param("count", "Requests one engine may have in flight.", integer=True),
            "shared_bandwidth": S.Param("bandwidth", "Main-memory bandwidth all engines share."),
            "alignment": S.Param("size", "Transfers to and from main memory are aligned to this boundary: "
                                         "main memory is charged every block rounded up to it."),
        },
    ),
)


class SharedMemoryPort:
    """Main memory as one shared resource with a bandwidth, in next-free form."""

    def __init__(self, bandwidth_Bps: float):
        self.bandwidth_Bps = bandwidth_Bps
        self.free_at = 0.0

    def reserve(self, start: float, nbytes: float) -> float:
        """Reserve the port for ``nbytes`` from ``start`` on; return the end."""
        begin = max(start, self.free_at)
        self.free_at = begin + dma_stream_seconds(nbytes, self.bandwidth_Bps)
        return self.free_at


@lru_cache(maxsize=4096)
def _aligned_contiguous(nbytes: float, block: float, alignment_bytes: float) -> float:
    """:meth:`DMAEngine.aligned_contiguous`, remembered: the contiguous
    transfers of a run (bQ blocks, commit spans) have a few sizes only."""
    if nbytes <= 0:
        return 0.0
    full_blocks, rest = divmod(nbytes, block) if block > 0 else (0.0, nbytes)
    aligned = aligned_bytes([block], alignment_bytes) * full_blocks
    return float(aligned + (aligned_bytes([rest], alignment_bytes) if rest > 0 else 0.0))


class DMAEngine:
    def __init__(self, env: simpy.Environment, model: DMAModel, memory: SharedMemoryPort | None = None,
                 *, owner: int = 0, recorder=NULL_RECORDER):
        self.env = env
        self.model = model
        self.memory = memory if memory is not None else SharedMemoryPort(model.shared_bandwidth_Bps)
        self.slots = simpy.Resource(env, capacity=model.max_outstanding)
        self.owner = owner
        self.alignment_bytes = float(model.alignment_bytes)
        self.recorder = recorder
        self.free_at = 0.0  # the engine's own data path
        self.bytes_moved = 0.0

    def aligned(self, sizes) -> float:
        """Main-memory bytes of blocks of ``sizes``, each rounded up to the alignment."""
        return aligned_bytes(sizes, self.alignment_bytes)

    def aligned_contiguous(self, nbytes: float, block: float) -> float:
        """Main-memory bytes of ``nbytes`` cut into blocks of ``block`` bytes
        (the last one shorter), each rounded up to the alignment: the closed
        form, whatever the number of blocks."""
        return _aligned_contiguous(nbytes, block, self.alignment_bytes)

    def _finish_time(self, start: float, nbytes: float, block: float, memory_bytes: float) -> float:
        begin = max(start, self.free_at)
        self.free_at = begin + dma_stream_seconds(nbytes, self.model.bandwidth(block))
        shared_end = self.memory.reserve(start, memory_bytes)
        return max(self.free_at, shared_end)

    def transfer(self, nbytes: float, block_bytes: float | None = None, kind: str = "dma"):
        """Process: move ``nbytes`` in blocks of ``block_bytes`` (default: one
        block). Use as ``yield env.process(engine.transfer(n))`` or start it
        with ``env.process`` and keep computing (double buffering)."""
        block = nbytes if block_bytes is None else block_bytes
        issued = self.env.now
        with self.slots.request() as slot:
            yield slot
            memory_bytes = self.aligned_contiguous(nbytes, block)
            end = self._finish_time(self.env.now + self.model.latency_s, nbytes, block, memory_bytes)
            yield self.env.timeout(end - self.env.now)
            self.bytes_moved += nbytes
        if self.recorder.enabled:  # (spans nobody keeps are not built: a call per command)
            self.recorder.record(self.owner, "dma", issued, self.env.now, kind, bytes=float(nbytes))

    def transfer_list(self, sizes, kind: str = "dma-list"):
        """Process: one DMA list moving blocks of ``sizes`` bytes (a numpy
        array). The engine streams them at the curve's bandwidth for the mean
        block size; main memory is charged each block aligned."""
        sizes = np.asarray(sizes, dtype=np.float64)
        issued = self.env.now
        nbytes = float(sizes.sum())
        with self.slots.request() as slot:
            yield slot
            if len(sizes):
                end = self._finish_time(self.env.now + self.model.latency_s, nbytes, nbytes / len(sizes),
                                        self.aligned(sizes))
                yield self.env.timeout(end - self.env.now)
            self.bytes_moved += nbytes
        if self.recorder.enabled:
            self.recorder.record(self.owner, "dma", issued, self.env.now, kind, bytes=nbytes, blocks=len(sizes))

    def reserve_put_list(self, network, destinations, sizes, guard_bytes: float) -> np.ndarray:
        """Reserve, from now, a fenced put list into other elements' local
        stores: for each destination its payload, then its guard, cross the
        network (ports and links reserved in list order, so a guard never
        overtakes its payload). Returns the guard arrival time at every
        destination. No event: the caller waits as it needs (the sender
        for the last guard, each receiver for its own)."""
        sizes = np.asarray(sizes, dtype=np.float64)
        # The messages in list order: each non-empty payload, then its guard.
        # A list has one entry per destination (at most the N - 1 others), so
        # plain lists build it faster than numpy calls on arrays this small.
        order, payloads, guards = [], [], []  # guards: each guard's place among the messages
        guard = float(guard_bytes)
        for destination, size in zip(np.asarray(destinations, dtype=np.int64).tolist(), sizes.tolist()):
            if size > 0:
                order.append(destination)
                payloads.append(size)
            guards.append(len(order))
            order.append(destination)
            payloads.append(guard)
        arrivals = network.arrival_times(self.owner, np.array(order, dtype=np.int64),
                                         np.array(payloads, dtype=np.float64))[guards]
        self.bytes_moved += float(np.sum(sizes))
        return arrivals

    def put_list(self, network, destinations, sizes, guard_bytes: float, kind: str = "put-list"):
        """Process: :meth:`reserve_put_list` holding one command slot until
        the last guard has arrived; its value is the arrival times."""
        issued = self.env.now
        with self.slots.request() as slot:
            yield slot
            arrivals = self.reserve_put_list(network, destinations, sizes, guard_bytes)
            end = float(arrivals.max(initial=self.env.now))
            yield self.env.timeout(end - self.env.now)
        self.recorder.record(self.owner, "dma", issued, self.env.now, kind, bytes=float(np.sum(sizes)),
                             blocks=len(destinations))
        return arrivals


class DMA(Device):
    """One DMA engine per node, all sharing one main-memory port."""

    SECTION = SECTION

    @classmethod
    def attach(cls, env, machine, nodes: int, recorder) -> list[DMAEngine]:
        model = machine.section(SECTION.name)
        memory = SharedMemoryPort(model.shared_bandwidth_Bps)
        return [DMAEngine(env, model, memory, owner=rank, recorder=recorder) for rank in range(nodes)]
