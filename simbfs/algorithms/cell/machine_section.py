"""The ``spe:`` machine section: a Cell SPE's local-store budget, data
formats and per-step cycle costs (seed 001), read by cell-bsp and
cell-overlap. Registered by this package, so the core schema does not know
it (simbfs/machine/sections.py). The SPE moves data only by DMA, so the
section needs the machine's ``dma:`` device (engine/devices/dma.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...machine import schema as S
from ...machine.sections import MachineSection, SectionValues, register_section

STEPS = ("fetch", "gather", "dispatch", "alltoall", "bitmap", "commit")
ELEMENTS = ("edge", "list", "portion", "quadword", "transfer")
BUFFERS = ("local_store", "code_and_stack", "bitmap_max", "bq_buffer", "bg_buffer", "qout", "qin",
           "bqnext_buffer", "vertex_code", "padding", "header_entry", "guard")


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
        if all(isinstance(count, (int, float)) for count in (edges, lists, portions, quadwords, transfers)):
            # one SPE's step: the same sum in plain floats, without five array conversions
            return (self.per_edge_cycles * edges + self.per_list_cycles * lists
                    + self.per_portion_cycles * portions + self.per_quadword_cycles * quadwords
                    + self.per_transfer_cycles * transfers)
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
    dma_list_max: int
    guard_bytes: float
    cycles: StepCosts


SCHEMA = S.Section(
    optional=True,
    doc="A processing element with an explicitly managed local store and per-step "
        "cycle costs (the Cell BE's SPEs; used by the cell-* algorithms). It moves data "
        "only by DMA, so the machine needs a `dma:` section too.",
    fields={
        "local_store": S.Param("size", "Local store of one SPE: code, stack, bitmap and all buffers must fit."),
        "code_and_stack": S.Param("size", "Local store taken by the SPE program and its stack."),
        "bitmap_max": S.Param("size", "Largest bitmap partition (visited bits of the SPE's vertices) "
                                      "the local store can hold."),
        "bq_buffer": S.Param("size", "One bQ buffer (Fetch, double-buffered): a block of the frontier queue Q."),
        "bg_buffer": S.Param("size", "One bG buffer (Gather, double-buffered): the adjacency lists of one iteration."),
        "qout": S.Param("size", "All outgoing queues Qout_i,p of one SPE together (split evenly among the SPEs)."),
        "qin": S.Param("size", "All incoming queues Qin_i,p of one SPE together (split evenly among the SPEs)."),
        "bqnext_buffer": S.Param("size", "One bQnext buffer (Commit, double-buffered): newly visited vertices."),
        "vertex_code": S.Param("size", "Bytes of one vertex code (vertex id and encoded list length) or queue entry."),
        "padding": S.Param("size", "Per-SPE portions of an adjacency list are padded to a multiple of this "
                                   "(a quadword)."),
        "header_entry": S.Param("size", "Bytes per SPE in an adjacency list's header "
                                        "(offset and length of its portion)."),
        "dma_list_max": S.Param("count", "Most transfers one DMA list may describe.", integer=True),
        "guard": S.Param("size", "Bytes of one communication guard (a flag put after each queue transfer)."),
        "cycles": S.Section(
            doc="Cycles one SPE spends in each step of the paper's Algorithm 3, per element. "
                "Elements: edges (adjacency entries), lists (adjacency lists, i.e. frontier "
                "vertices with at least one edge), portions (non-empty per-SPE parts of a list, "
                "one queue entry each), quadwords (padded queue quadwords) and transfers "
                "(DMA commands issued). Every step's section must be present; within one, "
                "an omitted cost is zero.",
            fields={
                step: S.Section(
                    doc=f"Cycle costs of the {step} step.",
                    fields={
                        f"per_{element}": S.Param("cycles", f"Cycles per {element} in the {step} step.",
                                                  positive=False, optional=True)
                        for element in ELEMENTS
                    },
                )
                for step in STEPS
            },
        ),
    },
)


def _build(v: SectionValues) -> SPEModel:
    steps = {step: StepCost(**{f"per_{element}_cycles": float(v.machine(f"spe.cycles.{step}.per_{element}", 0.0))
                               for element in ELEMENTS})
             for step in STEPS}
    return SPEModel(**{f"{key}_bytes": v[key] for key in BUFFERS},
                    dma_list_max=v["dma_list_max"], cycles=StepCosts(**steps))


def _check(v: SectionValues, problem) -> None:
    fixed = (v["code_and_stack"] + 2 * v["bq_buffer"] + 2 * v["bg_buffer"]
             + v["qout"] + v["qin"] + 2 * v["bqnext_buffer"])
    if fixed >= v["local_store"]:
        problem("spe", f"code, stack and double buffers take {fixed:.0f} B, more than the "
                       f"{v['local_store']:.0f} B local store; shrink the buffers")
    if v["bitmap_max"] > v["local_store"]:
        problem("spe.bitmap_max", "cannot exceed spe.local_store")


SECTION = register_section(MachineSection(name="spe", schema=SCHEMA, build=_build, check=_check, requires=("dma",)))
