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
    """Latency of random accesses: a structure of S bytes is found in the
    cache with probability min(1, cache_size / S), else in main memory."""

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
        structure of ``working_set_bytes``."""
        miss = self.miss_rate(working_set_bytes)
        return (1.0 - miss) * self.cache_latency_cycles + miss * self.memory_latency_cycles


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


@dataclass(frozen=True)
class DMAModel:
    latency_s: float
    curve_block_bytes: tuple[float, ...]
    curve_bandwidth_Bps: tuple[float, ...]
    max_outstanding: int
    shared_bandwidth_Bps: float

    def bandwidth(self, block_bytes: float) -> float:
        """Engine bandwidth for transfers of ``block_bytes``, log-linear between points."""
        xs = np.log2(np.asarray(self.curve_block_bytes))
        return float(np.interp(np.log2(max(block_bytes, 1.0)), xs, self.curve_bandwidth_Bps))


STEPS = ("fetch", "gather", "dispatch", "alltoall", "bitmap", "commit")
ELEMENTS = ("edge", "list", "portion", "quadword", "transfer")


@dataclass(frozen=True)
class StepCost:
    """Cycles one SPE spends in one step, per element of work."""

    per_edge_cycles: float = 0.0
    per_list_cycles: float = 0.0
    per_portion_cycles: float = 0.0
    per_quadword_cycles: float = 0.0
    per_transfer_cycles: float = 0.0

    def cycles(self, edges=0, lists=0, portions=0, quadwords=0, transfers=0):
        """Cycles for the given element counts (scalars or numpy arrays)."""
        return (self.per_edge_cycles * np.asarray(edges, dtype=np.float64)
                + self.per_list_cycles * np.asarray(lists, dtype=np.float64)
                + self.per_portion_cycles * np.asarray(portions, dtype=np.float64)
                + self.per_quadword_cycles * np.asarray(quadwords, dtype=np.float64)
                + self.per_transfer_cycles * np.asarray(transfers, dtype=np.float64))


@dataclass(frozen=True)
class StepCosts:
    fetch: StepCost
    gather: StepCost
    dispatch: StepCost
    alltoall: StepCost
    bitmap: StepCost
    commit: StepCost


@dataclass(frozen=True)
class SPEModel:
    """A Cell SPE: its local store budget, data formats and per-step costs."""

    local_store_bytes: float
    code_and_stack_bytes: float
    bitmap_max_bytes: float
    bq_buffer_bytes: float
    bg_buffer_bytes: float
    qout_bytes: float
    qin_bytes: float
    bqnext_buffer_bytes: float
    vertex_code_bytes: float
    padding_bytes: float
    header_entry_bytes: float
    dma_alignment_bytes: float
    dma_list_max: int
    guard_bytes: float
    cycles: StepCosts


@dataclass(frozen=True)
class CP1DCycles:
    """Issue cycles of one hardware thread per operation (see schema)."""

    index_word_cycles: float
    vertex_header_cycles: float
    edge_entry_cycles: float
    pack_cycles: float
    compress_cycles: float
    unpack_cycles: float
    bitmap_test_cycles: float
    claim_cycles: float


@dataclass(frozen=True)
class CP1DModel:
    """Formats, thread layout and costs of Checconi & Petrini's codes."""

    threads: int
    heavy_vertices: int
    index_stride: int
    adjacency_entry_bytes: float
    vertex_header_bytes: float
    edge_tuple_bytes: float
    uncompressed_entry_bytes: float
    compressed_short_bytes: float
    compressed_long_bytes: float
    compressed_header_bytes: float
    delta_max: int
    in_flight: int
    mpi_message_overhead_s: float
    cycles: CP1DCycles


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
    dma: DMAModel | None
    spe: SPEModel | None
    sources: Mapping[str, str]  # dotted parameter path -> where its value comes from
    origin: str  # file the model was loaded from
    cp1d: CP1DModel | None = None
    graph: GraphDefaults | None = None

    def __post_init__(self):
        object.__setattr__(self, "sources", MappingProxyType(dict(self.sources)))
