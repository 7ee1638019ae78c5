"""How much memory building a graph needs, and how much the host has.

The check runs before anything is allocated so an impossible --scale fails
in milliseconds with a clear message instead of swapping or being killed by
the OOM killer after minutes of work.
"""

from __future__ import annotations

import os

from simbfs.errors import UserError
from simbfs.graph.kronecker import DEFAULT_CHUNK_EDGES
from simbfs.graph.spec import KRONECKER, GraphSpec

GIB = 1 << 30

# Bytes per input tuple at the peak of build_csr, with a vertex label of 4
# bytes: the tuple list (2*4), the distinct canonical keys (8) and the
# reverse keys (8) concatenated into the directed key array (16), plus
# slack for sort buffers. Measured peak at scale 20/22 is ~36 B/tuple.
_PEAK_BYTES_PER_TUPLE = 48
# Per vertex: indptr, endpoint counts, the label permutation, bincount
# temporaries.
_PEAK_BYTES_PER_VERTEX = 40
# Generator chunk working set: words, packed values and temporaries.
_CHUNK_BYTES_PER_EDGE = 64
# Interpreter, numpy, tables.
_FIXED_OVERHEAD = 256 << 20


def estimate_memory_bytes(spec: GraphSpec) -> int:
    """Conservative peak bytes for generating and building `spec`'s graph."""
    tuples = spec.num_input_edges_estimate()
    if spec.kind != KRONECKER:
        # Arities are random; allow for a high tail of the total.
        tuples = int(tuples * 1.05) + 1024
    vertices = spec.num_vertices()
    label_bytes = 4 if vertices <= 2**31 else 8
    per_tuple = _PEAK_BYTES_PER_TUPLE * label_bytes // 4
    return (
        per_tuple * tuples
        + _PEAK_BYTES_PER_VERTEX * vertices
        + _CHUNK_BYTES_PER_EDGE * DEFAULT_CHUNK_EDGES
        + _FIXED_OVERHEAD
    )


def available_memory_bytes() -> int:
    """MemAvailable from /proc/meminfo, else free physical pages via sysconf."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0


EXECUTION_ADVICE = ("use a smaller --scale, predict the run with --mode project (it generates only a smaller "
                    "profile graph), or run on a machine with more memory")


def check_memory(spec: GraphSpec, advice: str = EXECUTION_ADVICE) -> None:
    """Raise UserError if `spec` needs more memory than this host has available."""
    needed = estimate_memory_bytes(spec)
    available = available_memory_bytes()
    if available and needed > available:
        raise UserError(
            f"a {spec.kind} graph of scale {spec.scale} needs about {needed / GIB:.1f} GiB "
            f"to generate, but only {available / GIB:.1f} GiB is available; {advice}"
        )
