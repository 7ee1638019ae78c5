"""The ``cp1d:`` machine section: data formats, thread layout and
per-operation costs of Checconi & Petrini's codes (seed 000), read by
cp1d-spi, cp1d-mpi and cp2d. Registered by this package, so the core schema
does not know it (simbfs/machine/sections.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ...machine import schema as S
from ...machine.sections import MachineSection, SectionValues, register_section

OPERATIONS = ("index_word", "vertex_header", "edge_entry", "pack", "compress", "unpack", "bitmap_test", "claim")
SIZES = ("adjacency_entry", "vertex_header", "edge_tuple", "uncompressed_entry", "compressed_short",
         "compressed_long", "compressed_header")


@dataclass(frozen=True)
class CP1DCycles:
    """Issue cycles of one hardware thread per operation (see the schema)."""

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
    # load misses a core may have outstanding (None: no limit but its threads')
    load_misses_per_core: int | None = None


SCHEMA = S.Section(
    optional=True,
    doc="Data formats, thread layout and per-operation costs of Checconi & Petrini's BFS "
        "codes (seed 000; the cp1d-spi, cp1d-mpi and cp2d algorithms). A cost is the cycles "
        "one hardware thread issues per operation; the random memory accesses each operation "
        "makes are priced by node.memory_hierarchy and hidden by the core's other threads.",
    fields={
        "threads": S.Param("count", "Software threads per node (edge-list slices).", integer=True),
        "heavy_vertices": S.Param("count", "LB: highest-degree vertices whose edges are spread (Algorithm 4).",
                                  integer=True, positive=False),
        "index_stride": S.Param("count", "Source vertices per coarse-index entry.", integer=True),
        "adjacency_entry": S.Param("size", "Bytes of one stored neighbour (id plus load-balancing bits)."),
        "vertex_header": S.Param("size", "Bytes of one source-vertex header (id bits plus shortcut)."),
        "edge_tuple": S.Param("size", "Bytes of one generated edge tuple held while the graph is built."),
        "uncompressed_entry": S.Param("size", "Bytes of one edge in an uncompressed message."),
        "compressed_short": S.Param("size", "Bytes of a compressed edge whose delta fits."),
        "compressed_long": S.Param("size", "Bytes of a compressed edge whose delta does not fit."),
        "compressed_header": S.Param("size", "Software header of a compressed packet (source, length, base vertex)."),
        "delta_max": S.Param("count", "Largest vertex delta the short format encodes.", integer=True),
        "in_flight": S.Param("count", "Packets per destination that may be in flight besides the open one.",
                             integer=True),
        "mpi_message_overhead": S.Param("time", "MPI software time per message of an all-to-all (cp1d-mpi).",
                                        positive=False),
        "load_misses_per_core": S.Param("count", "Load misses one core may have outstanding at once (its "
                                        "non-blocking data cache's limit); bounds a node's scattered reads "
                                        "with the memory latency.", integer=True, optional=True),
        "cycles": S.Section(
            doc="Issue cycles of one hardware thread per operation.",
            fields={
                "index_word": S.Param("cycles", "Test one coarse-index word of the frontier bitmap."),
                "vertex_header": S.Param("cycles", "Visit one source-vertex header and test its bit."),
                "edge_entry": S.Param("cycles", "Read one stored neighbour (sequential)."),
                "pack": S.Param("cycles", "Append one edge to its destination's open packet."),
                "compress": S.Param("cycles", "Extra cycles to delta-encode one edge.", positive=False),
                "unpack": S.Param("cycles", "Decode one received edge and test a bitmap bit (random access)."),
                "bitmap_test": S.Param("cycles", "Test a local bitmap bit for a neighbour (random access)."),
                "claim": S.Param("cycles", "Set a parent and two bitmap bits (random accesses)."),
            },
        ),
    },
)


def _build(v: SectionValues) -> CP1DModel:
    return CP1DModel(
        threads=int(v["threads"]),
        heavy_vertices=int(v["heavy_vertices"]),
        index_stride=int(v["index_stride"]),
        delta_max=int(v["delta_max"]),
        in_flight=int(v["in_flight"]),
        mpi_message_overhead_s=v["mpi_message_overhead"],
        load_misses_per_core=None if v.get("load_misses_per_core") is None else int(v["load_misses_per_core"]),
        cycles=CP1DCycles(**{f"{op}_cycles": v[f"cycles.{op}"] for op in OPERATIONS}),
        **{f"{key}_bytes": v[key] for key in SIZES},
    )


def _check(v: SectionValues, problem) -> None:
    if v.machine("node.memory_hierarchy.cache_size") is None:
        problem("cp1d", "its costs price random accesses with node.memory_hierarchy; add that section")
    widest = max(v["uncompressed_entry"], v["compressed_header"] + v["compressed_long"])
    if widest > v.machine("network.packet_payload"):
        problem("cp1d", f"a packet must hold at least one edge ({widest:.0f} B with its header), "
                        f"more than network.packet_payload")


SECTION = register_section(MachineSection(name="cp1d", schema=SCHEMA, build=_build, check=_check))
