"""The ``ueno2d:`` machine section: the data formats, buffer sizes and
per-item operation counts of Ueno & Suzumura's BFS (seed 004). The hardware
it runs on (the GPU and its PCIe link) is the ``gpu:`` device section, the
host CPU the ``node:`` section; this one holds what belongs to the code.
Registered by this package (simbfs/machine/sections.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ...machine import schema as S
from ...machine.sections import MachineSection, SectionValues, register_section


@dataclass(frozen=True)
class Ueno2DModel:
    alpha: float
    simd_width: int
    adjacency_entry_bytes: float
    edge_bytes: float
    parent_bytes: float
    word_bytes: float
    index_bytes: float
    gather_buffer_bytes: float
    receive_threshold_bytes: float
    gather_ops: float
    filter_ops: float
    receive_ops: float
    vlq_ops: float
    host_threads: int
    cpu_misses_in_flight: float


SCHEMA = S.Section(
    optional=True,
    doc="Formats, buffers and per-item operations of Ueno & Suzumura's 2D BFS on GPUs (seed 004; the ueno2d "
        "algorithm). The GPU it runs on is the gpu: section.",
    fields={
        "alpha": S.Param("ratio", "The expand sends bitmaps when the next frontier holds more than alpha x n "
                                  "vertices, else SIMD-VLQ lists."),
        "simd_width": S.Param("count", "Values per SIMD-VLQ group (a warp).", integer=True),
        "adjacency_entry": S.Param("size", "Bytes of one stored adjacency entry."),
        "edge": S.Param("size", "Bytes of one (u, v) edge in the gather buffer and in a fold message."),
        "parent": S.Param("size", "Bytes of one PRED entry."),
        "word": S.Param("size", "Bytes of one bitmap word (the CQ list lists non-empty words)."),
        "index": S.Param("size", "Bytes of the adjacency index per word of a column's vertices."),
        "gather_buffer": S.Param("size", "The edge-gathering kernel's output buffer; the kernel is "
                                         "relaunched when it is full, and each fill is one portion of the fold."),
        "receive_threshold": S.Param("size", "Received fold edges are buffered until they exceed this, then "
                                             "copied to the GPU and processed (task 8)."),
        "gather_ops": S.Param("count", "Lane operations per gathered edge (64-bit ids emulated in 32-bit).",
                              positive=False),
        "filter_ops": S.Param("count", "Lane operations per edge filtered against SV.", positive=False),
        "receive_ops": S.Param("count", "Lane operations per received fold edge (task 8).", positive=False),
        "vlq_ops": S.Param("count", "Lane operations per SIMD-VLQ byte encoded or decoded.", positive=False),
        "host_threads": S.Param("count", "Host CPU threads serving one GPU process.", integer=True),
        "cpu_misses_in_flight": S.Param("count", "Cache misses one host thread keeps in flight in the CPU "
                                                 "version's loops (device=cpu)."),
    },
)


def _build(v: SectionValues) -> Ueno2DModel:
    return Ueno2DModel(
        alpha=v["alpha"], simd_width=int(v["simd_width"]), adjacency_entry_bytes=v["adjacency_entry"],
        edge_bytes=v["edge"], parent_bytes=v["parent"], word_bytes=v["word"], index_bytes=v["index"],
        gather_buffer_bytes=v["gather_buffer"], receive_threshold_bytes=v["receive_threshold"],
        gather_ops=v["gather_ops"], filter_ops=v["filter_ops"], receive_ops=v["receive_ops"],
        vlq_ops=v["vlq_ops"], host_threads=int(v["host_threads"]), cpu_misses_in_flight=v["cpu_misses_in_flight"])


def _check(v: SectionValues, problem) -> None:
    if v.machine("gpu.memory") is None:
        problem("ueno2d", "its kernels run on a GPU; add the gpu: section")
    if not 0 < v["alpha"] <= 1:
        problem("ueno2d.alpha", f"a share of the vertices, in (0, 1]; got {v['alpha']:g}")
    if v["gather_buffer"] < v["edge"]:
        problem("ueno2d.gather_buffer", "the gather buffer must hold at least one edge (ueno2d.edge)")


SECTION = register_section(MachineSection(name="ueno2d", schema=SCHEMA, build=_build, check=_check))
