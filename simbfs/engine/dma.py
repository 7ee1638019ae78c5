"""A DMA engine between one processing element and main memory.

A transfer of ``n`` bytes in blocks of ``b`` bytes costs the engine's
``latency`` plus ``n / bandwidth(b)`` (the machine's size-dependent curve),
but never moves faster than the main-memory bandwidth all engines share: the
shared memory port is reserved like a network link (next-free time), so
concurrent engines queue for it. At most ``max_outstanding`` transfers of
one engine are in flight; a further request waits for a slot (a simpy
Resource), as an MFC command queue would make an SPE wait.
"""

from __future__ import annotations

import simpy

from ..machine.model import DMAModel


class SharedMemoryPort:
    """Main memory as one shared resource with a bandwidth, in next-free form."""

    def __init__(self, bandwidth_Bps: float):
        self.bandwidth_Bps = bandwidth_Bps
        self.free_at = 0.0

    def reserve(self, start: float, nbytes: float) -> float:
        """Reserve the port for ``nbytes`` from ``start`` on; return the end."""
        begin = max(start, self.free_at)
        self.free_at = begin + nbytes / self.bandwidth_Bps
        return self.free_at


class DMAEngine:
    def __init__(self, env: simpy.Environment, model: DMAModel, memory: SharedMemoryPort | None = None):
        self.env = env
        self.model = model
        self.memory = memory if memory is not None else SharedMemoryPort(model.shared_bandwidth_Bps)
        self.slots = simpy.Resource(env, capacity=model.max_outstanding)
        self.bytes_moved = 0.0

    def transfer(self, nbytes: float, block_bytes: float | None = None):
        """Process: move ``nbytes`` in blocks of ``block_bytes`` (default: one
        block). Use as ``yield env.process(engine.transfer(n))`` or start it
        with ``env.process`` and keep computing (double buffering)."""
        block = nbytes if block_bytes is None else block_bytes
        with self.slots.request() as slot:
            yield slot
            start = self.env.now + self.model.latency_s
            own_end = start + nbytes / self.model.bandwidth(block)
            shared_end = self.memory.reserve(start, nbytes)
            yield self.env.timeout(max(own_end, shared_end) - self.env.now)
            self.bytes_moved += nbytes
