"""The validated, immutable machine model the engine runs on.

Fields hold SI floats with the unit in the name. Instances are produced only
by :mod:`simbfs.machine.loader`; the engine never sees YAML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class ComputeCosts:
    edge_scan_cycles: float
    bitmap_probe_cycles: float
    vertex_visit_cycles: float
    message_pack_cycles: float
    message_unpack_cycles: float


@dataclass(frozen=True)
class MemoryHierarchy:
    """Latency of random accesses into structures that share the node's
    last-level cache.

    Alone, a structure of S bytes is found in the cache with probability
    min(1, cache_size / S) (:meth:`miss_rate`). Shared, the structures a
    phase of work touches and the data it streams compete for the cache:
    :meth:`shared_hit_rates` gives each structure's hit rate from how often
    it is touched (Che's approximation of an LRU cache)."""

    cache_size_bytes: float
    cache_latency_cycles: float
    memory_latency_cycles: float
    cache_line_bytes: float

    def miss_rate(self, working_set_bytes: float) -> float:
        if working_set_bytes <= self.cache_size_bytes:
            return 0.0
        return 1.0 - self.cache_size_bytes / working_set_bytes

    def access_cycles(self, working_set_bytes: float) -> float:
        """Expected load-to-use cycles of one random access into a
        structure of ``working_set_bytes`` that has the cache to itself."""
        return self.latency_cycles(1.0 - self.miss_rate(working_set_bytes))

    def latency_cycles(self, hit_rate):
        """Expected load-to-use cycles of one random access that hits the
        cache with probability ``hit_rate`` (scalar or array)."""
        return hit_rate * self.cache_latency_cycles + (1.0 - hit_rate) * self.memory_latency_cycles

    def shared_hit_rates(self, residents: Mapping[str, float], accesses: Mapping[str, object],
                         streamed_bytes=0.0) -> dict:
        """Hit rate of a random access into each structure of ``residents``
        (name -> bytes) when, in one period, each is accessed ``accesses[name]``
        times at uniformly random lines and ``streamed_bytes`` are read once
        through the cache. Counts may be scalars or per-node arrays; only
        their ratios matter.

        Che's approximation of an LRU cache under independent references: a
        line stays cached for a characteristic time t after its last use,
        so a line touched at rate r is found with probability
        1 - exp(-r t), and t fills the cache::

            sum_i L_i (1 - exp(-a_i t / L_i)) + s t = C

        (L_i lines of structure i, a_i its accesses, s the streamed lines,
        C the cache's lines; t in units of the period). A structure that is
        not accessed occupies nothing; if everything fits, every access
        hits."""
        line = self.cache_line_bytes
        capacity = self.cache_size_bytes / line
        names = [k for k in residents if residents[k] > 0]
        lines = {k: max(residents[k] / line, 1.0) for k in names}
        touched = {k: np.asarray(accesses.get(k, 0.0), dtype=np.float64) for k in names}
        stream = np.asarray(streamed_bytes, dtype=np.float64) / line
        shape = np.broadcast_shapes(stream.shape, *(a.shape for a in touched.values()))

        def occupancy(t):
            total = stream * t
            for k in names:
                total = total + lines[k] * -np.expm1(-touched[k] * t / lines[k])
            return total

        # The largest occupancy is reached as t grows: the touched
        # structures whole, plus an unbounded stream.
        whole = sum((lines[k] * (touched[k] > 0) for k in names), np.zeros(shape))
        fits = (stream <= 0) & (whole <= capacity)
        # bisection on log t, over every node at once (deterministic: a
        # fixed number of halvings of a fixed bracket)
        low, high = np.full(shape, -60.0), np.full(shape, 60.0)
        for _ in range(80):
            mid = (low + high) / 2
            over = occupancy(np.exp(mid)) > capacity
            high = np.where(over, mid, high)
            low = np.where(over, low, mid)
        t = np.where(fits, np.inf, np.exp((low + high) / 2))
        rates = {}
        for k in residents:
            if k not in lines:
                rates[k] = np.ones(shape)
                continue
            with np.errstate(invalid="ignore"):
                hit = -np.expm1(-touched[k] * t / lines[k])
            rates[k] = np.where(fits | (touched[k] <= 0), 1.0, hit)
        return {k: (float(v) if v.ndim == 0 else v) for k, v in rates.items()}


@dataclass(frozen=True)
class NodeModel:
    clock_hz: float
    cores: float
    threads_per_core: float
    memory_bytes: float
    memory_bandwidth_Bps: float
    compute: ComputeCosts
    memory_hierarchy: MemoryHierarchy | None = None

    def seconds(self, cycles):
        """Wall time of ``cycles`` of work spread over all cores of one node.

        Accepts a scalar or a numpy array (one entry per node).
        """
        return np.asarray(cycles, dtype=np.float64) / (self.clock_hz * self.cores)


@dataclass(frozen=True)
class NetworkModel:
    topology: str
    link_bandwidth_Bps: float
    hop_latency_s: float
    injection_bandwidth_Bps: float
    packet_payload_bytes: float
    packet_header_bytes: float
    packet_granule_bytes: float
    # simulated nodes (MPI processes) per physical host, sharing its ports
    processes_per_host: int = 1
    # the chosen topology's own parameters (its PARAMETERS), as validated
    topology_params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    def wire_bytes(self, payload_bytes, packets=None):
        """Bytes on the wire for messages of ``payload_bytes`` in total.

        Payload is cut into packets of at most ``packet_payload_bytes``, each
        rounded up to the packet granule and given a header. ``packets`` may
        be given when the caller already knows the packet count (buffers
        flushed before they were full, say); the payload is then spread
        evenly over them and every packet is padded on its own.
        """
        payload = np.asarray(payload_bytes, dtype=np.float64)
        granule = self.packet_granule_bytes
        if packets is None:
            packets = np.ceil(payload / self.packet_payload_bytes)
            # Every packet but the last is full (a whole number of granules,
            # checked by the loader); only the last one is padded.
            padded = np.ceil(payload / granule) * granule
        else:
            packets = np.asarray(packets, dtype=np.float64)
            per_packet = np.divide(payload, packets, out=np.zeros_like(payload), where=packets > 0)
            if np.any(per_packet > self.packet_payload_bytes * (1 + 1e-12)):
                raise ValueError("more payload per packet than network.packet_payload allows")
            padded = packets * np.ceil(per_packet / granule) * granule
        return padded + packets * self.packet_header_bytes

    def hosts(self, processes: int) -> int:
        """Physical hosts that ``processes`` simulated nodes occupy."""
        return -(-processes // self.processes_per_host)

    def packets(self, payload_bytes):
        return np.ceil(np.asarray(payload_bytes, dtype=np.float64) / self.packet_payload_bytes)


@dataclass(frozen=True)
class MessagingModel:
    edge_bytes: float
    send_overhead_s: float
    receive_overhead_s: float


@dataclass(frozen=True)
class CollectiveModel:
    """Parameters of the collective network; priced by engine/costs.py."""

    stage_latency_s: float
    bandwidth_Bps: float
    # which algorithms carry the collectives out (engine/costs.py COLLECTIVE_ALGORITHMS)
    algorithm: str = "log-stages"


@dataclass(frozen=True)
class GraphDefaults:
    """The graph a machine runs when the user names none (machine file ``graph:``)."""

    kind: str
    scale: int
    edgefactor: int | None = None
    arity: float | None = None


@dataclass(frozen=True)
class Machine:
    name: str
    description: str
    paper: str | None
    algorithm: str | None
    default_nodes: int
    max_nodes: int
    node: NodeModel
    network: NetworkModel
    messaging: MessagingModel
    collectives: CollectiveModel
    sources: Mapping[str, str]  # dotted parameter path -> where its value comes from
    origin: str  # file the model was loaded from
    graph: GraphDefaults | None = None
    # the registered sections this machine has (machine/sections.py):
    # name -> the frozen model its package built ("cp1d", "spe", "dma", ...)
    sections: Mapping[str, object] = field(default_factory=dict)
    # every validated leaf value, by dotted path, in SI units (for --describe)
    values: Mapping[str, object] = field(default_factory=dict)
    # the parameter `simbfs calibrate` fits by default: the file's least certain one
    calibration_key: str | None = None
    # set by `simbfs calibrate`: the measurement this file was calibrated on
    calibrated_on: str | None = None
    # parameter key -> {algorithm: why that algorithm's time does not depend on it here}
    non_effects: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # parameter key -> its stated uncertainty range, where the file gives one
    # ({low, high, reason}, {fixed, reason} or {follows, reason}; simbfs/uncertainty.py)
    ranges: Mapping[str, Mapping] = field(default_factory=dict)

    def __post_init__(self):
        for name in ("sources", "sections", "values", "ranges"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "non_effects", MappingProxyType(
            {key: MappingProxyType(dict(reasons)) for key, reasons in self.non_effects.items()}))

    def non_effect(self, key: str, algorithm: str) -> str | None:
        """Why ``algorithm``'s time (its base name: options do not matter)
        does not depend on the parameter ``key`` on this machine, or None."""
        return self.non_effects.get(key, {}).get(algorithm.partition(":")[0])

    def section(self, name: str):
        """The model of the registered section ``name`` (``cp1d``, ``spe``,
        ``dma``, ...), or None when this machine file has no such section."""
        return self.sections.get(name)
