"""The ``lin1d:`` machine section: the data formats, hub counts, relay
groups and software costs of Lin et al.'s BFS (seed 003). The hardware it
runs on (CPE clusters, their DMA and register buses, the MPEs) is the
``cpe_cluster:`` device section; this one holds what belongs to the code.
Registered by this package (simbfs/machine/sections.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ...machine import schema as S
from ...machine.sections import MachineSection, SectionValues, register_section


@dataclass(frozen=True)
class Lin1DModel:
    hubs_top_down: int
    hubs_bottom_up: int
    group_size: int
    small_input_bytes: float
    pair_bytes: float
    adjacency_entry_bytes: float
    parent_bytes: float
    random_access_bytes: float
    message_bytes: float
    buffers_per_destination: int
    mpi_connection_bytes: float
    mpi_processes: int
    mpe_item_cycles: float


SCHEMA = S.Section(
    optional=True,
    doc="Formats, hubs, relay groups and software costs of Lin et al.'s BFS on Sunway TaihuLight "
        "(seed 003; the lin1d algorithm). The CPE clusters it runs on are the cpe_cluster: section.",
    fields={
        "hubs_top_down": S.Param("count", "Hub vertices per node in a top-down level (their frontier bits are "
                                          "gathered to every node).", integer=True, positive=False),
        "hubs_bottom_up": S.Param("count", "Hub vertices per node in a bottom-up level.", integer=True,
                                  positive=False),
        "group_size": S.Param("count", "Nodes per relay group (M of the N x M matrix).", integer=True),
        "small_input": S.Param("size", "A module whose input is smaller runs on the MPE itself."),
        "pair": S.Param("size", "Bytes of one (u, v) pair in a message or buffer."),
        "adjacency_entry": S.Param("size", "Bytes of one stored neighbour."),
        "parent": S.Param("size", "Bytes of one parent-map entry."),
        "random_access": S.Param("size", "DMA chunk of one random main-memory access from a CPE."),
        "message": S.Param("size", "Largest MPI message the MPE sends; a phase's bytes to one peer go in "
                                   "as many of these as they need."),
        "buffers_per_destination": S.Param("count", "Batch buffers a consumer keeps per destination in its "
                                                    "scratch pad.", integer=True),
        "mpi_connection": S.Param("size", "Memory the MPI library takes per connection."),
        "mpi_processes": S.Param("count", "MPEs of a node that hold MPI connections.", integer=True),
        "mpe_item_cycles": S.Param("cycles", "MPE cycles per pair a module handles, besides its memory "
                                             "accesses."),
    },
)


def _build(v: SectionValues) -> Lin1DModel:
    return Lin1DModel(
        hubs_top_down=int(v["hubs_top_down"]), hubs_bottom_up=int(v["hubs_bottom_up"]),
        group_size=int(v["group_size"]), small_input_bytes=v["small_input"], pair_bytes=v["pair"],
        adjacency_entry_bytes=v["adjacency_entry"], parent_bytes=v["parent"],
        random_access_bytes=v["random_access"], message_bytes=v["message"],
        buffers_per_destination=int(v["buffers_per_destination"]),
        mpi_connection_bytes=v["mpi_connection"], mpi_processes=int(v["mpi_processes"]),
        mpe_item_cycles=v["mpe_item_cycles"])


def _check(v: SectionValues, problem) -> None:
    if v.machine("cpe_cluster.clusters") is None:
        problem("lin1d", "its modules run on CPE clusters and MPEs; add the cpe_cluster: section")
    if v["message"] < v["pair"]:
        problem("lin1d.message", "a message must hold at least one pair")


SECTION = register_section(MachineSection(name="lin1d", schema=SCHEMA, build=_build, check=_check))
