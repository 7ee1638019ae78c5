"""What a machine file may contain: the declared parameters of every role.

A machine file is data with named roles (``node``, ``network``,
``messaging``, ``collectives``), plus the sections that packages register:
a paper algorithm's formats and costs (``cp1d:``, ``spe:``) and a
node-internal device's parameters (``dma:``), see sections.py. Each role
declares the parameters it accepts; the loader rejects anything else. A hardware parameter is a
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
class NonEffects:
    """What-if keys that do not change an algorithm's time on this machine,
    and why: parameter key -> {algorithm: reason}."""

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
        "calibration": Section(
            optional=True,
            doc="What `simbfs calibrate` fits when --fit is not given.",
            fields={
                "key": Text("The dotted key of the file's least certain hardware parameter."),
                "reason": Text("Why it is the least certain (shown by `simbfs calibrate`)."),
            },
        ),
        "non_effects": NonEffects(
            "Parameters that, on this machine, do not change an algorithm's predicted time, each with the "
            "reason: `KEY: {ALGORITHM: why}` (e.g. a bandwidth the algorithm's messages never reach). A run "
            "whose --set changes one says why its time did not move; tests/test_network_what_if.py fails on "
            "a network or collectives key that moves neither path unless it is listed here."),
        "calibrated_on": Text("Written by `simbfs calibrate`: the one measurement this file was calibrated on. "
                              "Every run on the file says so, in its report and its JSON.", optional=True),
        "graph": Section(
            optional=True,
            doc="The graph `simbfs run MACHINE` uses when --graph, --scale, --edgefactor and --arity are not "
                "given (default: a Graph500 Kronecker graph of scale 16, edge factor 16).",
            fields={
                "kind": Choice(("kronecker", "uniform"),
                               "Graph500 Kronecker, or the Cell paper's uniform-arity graph."),
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
                    "hiding latency (the cp1d-*/cp2d algorithms). The structures a phase touches "
                    "at random and the data it streams share the cache; each structure's hit rate "
                    "follows from how often it is touched (Che's approximation of LRU; alone, a "
                    "structure of S bytes hits with probability min(1, cache_size / S)).",
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
                        "bitmap_probe": Param("cycles",
                                              "Read one adjacency entry and probe the frontier bitmap (bottom-up)."),
                        "vertex_visit": Param("cycles", "Set the parent of a newly reached vertex and enqueue it."),
                        "message_pack": Param("cycles", "Append one edge to an outgoing message buffer."),
                        "message_unpack": Param("cycles", "At the target's owner, check and claim one edge's target "
                                                          "(from an incoming message or found locally)."),
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
                "injection_bandwidth": Param("bandwidth", "Bandwidth at which one node injects into "
                                                          "(and receives from) the network."),
                "packet_payload": Param("size", "Largest payload of one network packet."),
                "packet_header": Param("size", "Header bytes added to every packet.", positive=False),
                "packet_granule": Param("size", "Packets occupy the wire in multiples of this many bytes."),
                "processes_per_host": Param("count", "Simulated nodes (MPI processes) that share one physical host "
                                                     "and its network ports (default 1): --nodes counts processes, "
                                                     "and messages between processes of one host stay inside it.",
                                            integer=True, optional=True),
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
                # the names come from simbfs.engine.costs.COLLECTIVE_ALGORITHMS: see machine_schema()
                "algorithm": Choice((), "How many stages a collective takes: log-stages (log2(N) for every "
                                        "collective, the default), mpich or mvapich2 (MPICH's and MVAPICH2 1.x's "
                                        "default choice by size: N - 1 for large allgathers and "
                                        "reduce-scatters), mvapich2-2.2 (MVAPICH2 2.2's tuning tables "
                                        "for one process per node).",
                                 optional=True),
                "stage_latency": Param("time", "Latency of one stage of a collective (one step of a ring, "
                                                "one round of recursive doubling)."),
                "bandwidth": Param("bandwidth", "Per-node bandwidth of the collective network/algorithm."),
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
    that), and every section a package registered (sections.py). Read from
    the registries at call time, so that this module needs nothing from the
    engine or the algorithms when it is imported."""
    from ..engine.costs import COLLECTIVE_ALGORITHMS
    from ..engine.topology import TOPOLOGIES
    from .sections import registered_sections

    network = SCHEMA.fields["network"]
    fields = dict(network.fields)
    fields["topology"] = replace(fields["topology"], choices=tuple(TOPOLOGIES))
    for name, topology in TOPOLOGIES.items():
        for key, spec in topology.PARAMETERS.items():
            fields[key] = replace(spec, doc=f"({name}) {spec.doc}", optional=True)
    collectives = SCHEMA.fields["collectives"]
    collective_fields = dict(collectives.fields)
    collective_fields["algorithm"] = replace(collective_fields["algorithm"], choices=tuple(COLLECTIVE_ALGORITHMS))
    registered = {name: section.schema for name, section in registered_sections().items()}
    return replace(SCHEMA, fields={**SCHEMA.fields, "network": replace(network, fields=fields),
                                   "collectives": replace(collectives, fields=collective_fields), **registered})


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



def declaration(path: str):
    """The declaration (Param, Curve, Text, ...) of a dotted key, or None."""
    return dict(walk()).get(path)


def _kind_text(spec) -> str:
    if isinstance(spec, Param):
        extra = (["integer"] if spec.integer else []) + ["> 0" if spec.positive else ">= 0"]
        return f"{spec.kind} ({', '.join(extra)})"
    if isinstance(spec, Choice):
        return "one of " + ", ".join(f"`{c}`" for c in spec.choices)
    if isinstance(spec, Number):
        return "number (integer)" if spec.integer else "number"
    if isinstance(spec, IntList):
        return "list of positive integers"
    if isinstance(spec, ShapeTable):
        return "node count -> {shape, source}"
    if isinstance(spec, Curve):
        return f"curve of [{spec.x}, {spec.y}] points"
    if isinstance(spec, NonEffects):
        return "key -> {algorithm: reason}"
    return "text"


def reference_table() -> str:
    """Every key of :func:`machine_schema` as the Markdown table of
    docs/reference/machine-files.md (``simbfs machines --keys`` prints it;
    a test keeps the page equal to it)."""
    schema = machine_schema()
    rows = ["| key | kind | required | meaning |", "|---|---|---|---|"]
    for path, spec in walk(schema):
        section, in_optional = schema, False
        for key in path.split(".")[:-1]:
            section = section.fields[key]
            in_optional = in_optional or section.optional
        required = "no" if spec.optional else ("if section present" if in_optional else "yes")
        rows.append(f"| `{path}` | {_kind_text(spec)} | {required} | {spec.doc} |")
    return "\n".join(rows)
