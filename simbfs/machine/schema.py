"""What a machine file may contain: the declared parameters of every role.

A machine file is data with named roles (``node``, ``network``,
``messaging``, ``collectives``, ``dma``). Each role declares the parameters it
accepts; the loader rejects anything else. A hardware parameter is a
:class:`Param`: in YAML it is written ``{value: "2 GB/s", source: "..."}`` and
must name its source (a paper section, a figure, a spec sheet, or an
"estimate:" that says how it was estimated).

Adding a parameter is one line here plus its use in a model; the loader,
``--set`` overrides, ``simbfs machines --describe`` and docs/reference all
read this table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Param:
    """A sourced numeric hardware parameter of a given unit kind."""

    kind: str  # one of simbfs.units.KINDS
    doc: str
    positive: bool = True  # strictly > 0 (else >= 0)
    integer: bool = False
    optional: bool = False


@dataclass(frozen=True)
class Choice:
    """A plain (unsourced) choice among names, e.g. a topology."""

    choices: tuple[str, ...]
    doc: str
    optional: bool = False


@dataclass(frozen=True)
class Text:
    doc: str
    optional: bool = False


@dataclass(frozen=True)
class Number:
    """A plain (unsourced) number: a default the user may change, not a
    property of the hardware."""

    doc: str
    integer: bool = False
    optional: bool = False


@dataclass(frozen=True)
class IntList:
    """A list of positive integers, e.g. a torus shape."""

    doc: str
    optional: bool = True


@dataclass(frozen=True)
class ShapeTable:
    """Mapping node count -> torus shape, each entry sourced."""

    doc: str
    optional: bool = True


@dataclass(frozen=True)
class Curve:
    """A sourced piecewise curve: list of points of (x kind, y kind)."""

    x: str
    y: str
    x_name: str
    y_name: str
    doc: str
    optional: bool = False


@dataclass(frozen=True)
class Section:
    fields: dict
    doc: str
    optional: bool = False


SCHEMA = Section(
    doc="A machine model.",
    fields={
        "name": Text("Short identifier, used on the command line."),
        "description": Text("One line shown by `simbfs machines`."),
        "paper": Text("The seed paper the model answers to.", optional=True),
        "extends": Text("Name or path of a base machine file whose values this one overrides.", optional=True),
        "algorithm": Text("Algorithm run when --algorithm is not given.", optional=True),
        "graph": Section(
            optional=True,
            doc="The graph `simbfs run MACHINE` uses when --graph, --scale, --edgefactor and --arity are not "
                "given (default: a Graph500 Kronecker graph of scale 16, edge factor 16).",
            fields={
                "kind": Choice(("kronecker", "uniform"), "Graph500 Kronecker, or the Cell paper's uniform-arity graph."),
                "scale": Number("2^scale vertices.", integer=True),
                "edgefactor": Number("Kronecker: edges per vertex.", integer=True, optional=True),
                "arity": Number("Uniform: each vertex's arity is uniform in [0, 2 x arity].", optional=True),
            },
        ),
        "nodes": Section(
            doc="Which node counts the machine has.",
            fields={
                "default": Param("count", "Node count used when --nodes is not given.", integer=True),
                "max": Param("count", "Largest node count the real machine had.", integer=True),
            },
        ),
        "node": Section(
            doc="One simulated node (or processing element) and its compute cost model.",
            fields={
                "clock": Param("frequency", "Core clock."),
                "cores": Param("count", "Cores that run BFS work.", integer=True),
                "threads_per_core": Param("count", "Hardware threads per core.", integer=True),
                "memory": Param("size", "Memory available to the BFS on one node."),
                "memory_bandwidth": Param("bandwidth", "Main-memory bandwidth of one node."),
                "memory_hierarchy": Section(
                    optional=True,
                    doc="Latency of random memory accesses, for algorithms that model threads "
                    "hiding latency (the cp1d-*/cp2d algorithms). An access to a structure of S "
                    "bytes hits the cache with probability min(1, cache_size / S).",
                    fields={
                        "cache_size": Param("size", "Last-level cache shared by the node's cores."),
                        "cache_latency": Param("cycles", "Load-to-use latency of a last-level cache hit."),
                        "memory_latency": Param("cycles", "Load-to-use latency of a main-memory access."),
                        "cache_line": Param("size", "Bytes moved from memory per missing access."),
                    },
                ),
                "compute": Section(
                    doc="Cost of each BFS operation, in core cycles, amortised over the "
                    "core's hardware threads. Time = count x cycles / (clock x cores).",
                    fields={
                        "edge_scan": Param("cycles", "Read one adjacency entry and test/mark its target (top-down)."),
                        "bitmap_probe": Param("cycles", "Read one adjacency entry and probe the frontier bitmap (bottom-up)."),
                        "vertex_visit": Param("cycles", "Set the parent of a newly reached vertex and enqueue it."),
                        "message_pack": Param("cycles", "Append one edge to an outgoing message buffer."),
                        "message_unpack": Param("cycles", "At the target's owner, check and claim one edge's target (from an incoming message or found locally)."),
                    },
                ),
            },
        ),
        "network": Section(
            doc="The interconnect between nodes.",
            fields={
                # the names (and each topology's own parameters) come from
                # simbfs.engine.topology.TOPOLOGIES: see machine_schema()
                "topology": Choice((), "How nodes are connected."),
                "link_bandwidth": Param("bandwidth", "Bandwidth of one link, per direction."),
                "hop_latency": Param("time", "Latency added by each router hop."),
                "injection_bandwidth": Param("bandwidth", "Bandwidth at which one node injects into (and receives from) the network."),
                "packet_payload": Param("size", "Largest payload of one network packet."),
                "packet_header": Param("size", "Header bytes added to every packet.", positive=False),
                "packet_granule": Param("size", "Packets occupy the wire in multiples of this many bytes."),
            },
        ),
        "messaging": Section(
            doc="The software layer that turns BFS edges into network messages.",
            fields={
                "edge_bytes": Param("size", "Bytes one (vertex, parent) edge occupies in a message."),
                "send_overhead": Param("time", "Software time to post one network packet.", positive=False),
                "receive_overhead": Param("time", "Software time to receive one network packet.", positive=False),
            },
        ),
        "collectives": Section(
            doc="Barrier, allreduce and allgather cost: stages x stage_latency + bytes / bandwidth.",
            fields={
                "stage_latency": Param("time", "Latency of one stage of a log2(N)-stage collective."),
                "bandwidth": Param("bandwidth", "Per-node bandwidth of the collective network/algorithm."),
            },
        ),
        "cp1d": Section(
            optional=True,
            doc="Data formats, thread layout and per-operation costs of Checconi & Petrini's BFS "
            "codes (seed 000; the cp1d-spi, cp1d-mpi and cp2d algorithms). A cost is the cycles "
            "one hardware thread issues per operation; the random memory accesses each operation "
            "makes are priced by node.memory_hierarchy and hidden by the core's other threads.",
            fields={
                "threads": Param("count", "Software threads per node (edge-list slices).", integer=True),
                "heavy_vertices": Param("count", "LB: highest-degree vertices whose edges are spread (Algorithm 4).",
                                        integer=True, positive=False),
                "index_stride": Param("count", "Source vertices per coarse-index entry.", integer=True),
                "adjacency_entry": Param("size", "Bytes of one stored neighbour (id plus load-balancing bits)."),
                "vertex_header": Param("size", "Bytes of one source-vertex header (id bits plus shortcut)."),
                "edge_tuple": Param("size", "Bytes of one generated edge tuple held while the graph is built."),
                "uncompressed_entry": Param("size", "Bytes of one edge in an uncompressed message."),
                "compressed_short": Param("size", "Bytes of a compressed edge whose delta fits."),
                "compressed_long": Param("size", "Bytes of a compressed edge whose delta does not fit."),
                "compressed_header": Param("size", "Software header of a compressed packet (source, length, base vertex)."),
                "delta_max": Param("count", "Largest vertex delta the short format encodes.", integer=True),
                "in_flight": Param("count", "Packets per destination that may be in flight besides the open one.",
                                   integer=True),
                "mpi_message_overhead": Param("time", "MPI software time per message of an all-to-all (cp1d-mpi).",
                                              positive=False),
                "cycles": Section(
                    doc="Issue cycles of one hardware thread per operation.",
                    fields={
                        "index_word": Param("cycles", "Test one coarse-index word of the frontier bitmap."),
                        "vertex_header": Param("cycles", "Visit one source-vertex header and test its bit."),
                        "edge_entry": Param("cycles", "Read one stored neighbour (sequential)."),
                        "pack": Param("cycles", "Append one edge to its destination's open packet."),
                        "compress": Param("cycles", "Extra cycles to delta-encode one edge.", positive=False),
                        "unpack": Param("cycles", "Decode one received edge and test a bitmap bit (random access)."),
                        "bitmap_test": Param("cycles", "Test a local bitmap bit for a neighbour (random access)."),
                        "claim": Param("cycles", "Set a parent and two bitmap bits (random accesses)."),
                    },
                ),
            },
        ),
        "dma": Section(
            optional=True,
            doc="A DMA engine between a processing element and main memory.",
            fields={
                "latency": Param("time", "Time from issuing a DMA to its first byte arriving."),
                "bandwidth_curve": Curve("size", "bandwidth", "block", "bandwidth",
                                         "Bandwidth of one engine as a function of block size (log-linear in between)."),
                "max_outstanding": Param("count", "Requests one engine may have in flight.", integer=True),
                "shared_bandwidth": Param("bandwidth", "Main-memory bandwidth all engines share."),
            },
        ),
        "spe": Section(
            optional=True,
            doc="A processing element with an explicitly managed local store and per-step "
            "cycle costs (the Cell BE's SPEs; used by the cell-* algorithms).",
            fields={
                "local_store": Param("size", "Local store of one SPE: code, stack, bitmap and all buffers must fit."),
                "code_and_stack": Param("size", "Local store taken by the SPE program and its stack."),
                "bitmap_max": Param("size", "Largest bitmap partition (visited bits of the SPE's vertices) the local store can hold."),
                "bq_buffer": Param("size", "One bQ buffer (Fetch, double-buffered): a block of the frontier queue Q."),
                "bg_buffer": Param("size", "One bG buffer (Gather, double-buffered): the adjacency lists of one iteration."),
                "qout": Param("size", "All outgoing queues Qout_i,p of one SPE together (split evenly among the SPEs)."),
                "qin": Param("size", "All incoming queues Qin_i,p of one SPE together (split evenly among the SPEs)."),
                "bqnext_buffer": Param("size", "One bQnext buffer (Commit, double-buffered): newly visited vertices."),
                "vertex_code": Param("size", "Bytes of one vertex code (vertex id and encoded list length) or queue entry."),
                "padding": Param("size", "Per-SPE portions of an adjacency list are padded to a multiple of this (a quadword)."),
                "header_entry": Param("size", "Bytes per SPE in an adjacency list's header (offset and length of its portion)."),
                "dma_alignment": Param("size", "DMA transfers to and from main memory are aligned to this boundary."),
                "dma_list_max": Param("count", "Most transfers one DMA list may describe.", integer=True),
                "guard": Param("size", "Bytes of one communication guard (a flag put after each queue transfer)."),
                "cycles": Section(
                    doc="Cycles one SPE spends in each step of the paper's Algorithm 3, per element. "
                    "Elements: edges (adjacency entries), lists (adjacency lists, i.e. frontier "
                    "vertices with at least one edge), portions (non-empty per-SPE parts of a list, "
                    "one queue entry each), quadwords (padded queue quadwords) and transfers "
                    "(DMA commands issued). Every step's section must be present; within one, "
                    "an omitted cost is zero.",
                    fields={
                        step: Section(
                            doc=f"Cycle costs of the {step} step.",
                            fields={
                                element: Param("cycles", f"Cycles per {element[4:]} in the {step} step.",
                                               positive=False, optional=True)
                                for element in ("per_edge", "per_list", "per_portion", "per_quadword", "per_transfer")
                            },
                        )
                        for step in ("fetch", "gather", "dispatch", "alltoall", "bitmap", "commit")
                    },
                ),
            },
        ),
    },
)


@dataclass(frozen=True)
class ParamDoc:
    path: str
    kind: str
    doc: str
    optional: bool


def machine_schema() -> Section:
    """The whole schema: :data:`SCHEMA` (the core roles) with the registered
    topologies' names and, under ``network:``, the parameters each topology
    declares (accepted only when that topology is chosen; the loader checks
    that). Read from the registries at call time, so that this module needs
    nothing from the engine when it is imported."""
    from ..engine.topology import TOPOLOGIES

    network = SCHEMA.fields["network"]
    fields = dict(network.fields)
    fields["topology"] = replace(fields["topology"], choices=tuple(TOPOLOGIES))
    for name, topology in TOPOLOGIES.items():
        for key, spec in topology.PARAMETERS.items():
            fields[key] = replace(spec, doc=f"({name}) {spec.doc}", optional=True)
    return replace(SCHEMA, fields={**SCHEMA.fields, "network": replace(network, fields=fields)})


def walk(section: Section | None = None, prefix: str = "") -> list[tuple[str, object]]:
    """All declared leaves as (dotted path, declaration); by default of
    the whole :func:`machine_schema`."""
    if section is None:
        section = machine_schema()
    out: list[tuple[str, object]] = []
    for key, spec in section.fields.items():
        path = f"{prefix}{key}"
        if isinstance(spec, Section):
            out.extend(walk(spec, path + "."))
        else:
            out.append((path, spec))
    return out

