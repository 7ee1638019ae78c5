"""The Graph500 Kronecker (R-MAT) edge generator, vectorised and chunk-independent.

Graph500 (spec section "Graph generation"): N = 2**scale vertices,
M = edgefactor * N input tuples. Each tuple's endpoints are built one bit
level at a time: at every level one of four quadrants is chosen with
probabilities A=0.57, B=0.19, C=0.19, D=0.05, setting that bit of the source
(C, D) and of the destination (B, D). Vertex labels are then scrambled by a
seeded random permutation of [0, N) so that degree does not correlate with
label.

Speed: instead of two float draws per level, each edge gets a few uint64
words from a counter-based stream (counter_rng); every 32-bit half decides
several levels at once through an exact lookup table (quadrant_table).

Chunk independence: edge e uses stream words [e*W, (e+1)*W) where W is fixed
by the scale alone, so any chunking yields the same edges.

The reference generator also shuffles the order of the tuples; we do not
(the order carries no information the simulator uses, and the graph, the
TEPS count and the validator are independent of it).
"""

from __future__ import annotations

import numpy as np

from simbfs.errors import UserError
from simbfs.graph.counter_rng import (
    STREAM_KRONECKER_EDGES,
    STREAM_VERTEX_PERMUTATION,
    stream_generator,
    stream_words,
)
from simbfs.graph.edgelist import EdgeList, vertex_dtype
from simbfs.graph.quadrant_table import (
    AMBIGUOUS_FLAG,
    FIELD_BITS,
    field_plan,
    quadrant_table,
)
from simbfs.graph.spec import MAX_SCALE

GRAPH500_A = 0.57
GRAPH500_B = 0.19
GRAPH500_C = 0.19
GRAPH500_D = 1.0 - (GRAPH500_A + GRAPH500_B + GRAPH500_C)
GRAPH500_QUADRANTS = (GRAPH500_A, GRAPH500_B, GRAPH500_C, GRAPH500_D)

# 5 levels = 1024 joint outcomes per 32-bit field: at most 1023 of the 65536
# table buckets are ambiguous (1.6 %), and scale 20 needs only 2 words/edge.
LEVELS_PER_FIELD = 5
FIELDS_PER_WORD = 64 // FIELD_BITS
# Small enough that per-chunk temporaries (~50 MB) stay cache- and
# allocator-friendly; large enough that per-chunk Python overhead is nil.
DEFAULT_CHUNK_EDGES = 1 << 19

_LOW_HALF = np.uint64(0xFFFFFFFF)


def _check_scale(scale: int) -> None:
    if not 1 <= scale <= MAX_SCALE:
        raise UserError(
            f"Kronecker scale must be between 1 and {MAX_SCALE}, got {scale}; "
            "choose a smaller --scale"
        )


def edge_tables(scale: int, quadrants: tuple):
    """The quadrant tables of a scale's random fields, and the 64-bit random
    words one edge draws: what :func:`packed_edges` needs."""
    plan = field_plan(scale, LEVELS_PER_FIELD)
    tables = [quadrant_table(levels, offset, quadrants) for levels, offset in plan]
    words_per_edge = -(-len(plan) // FIELDS_PER_WORD)
    return tables, words_per_edge


def packed_edges(seed, first_edge, num_edges, tables, words_per_edge) -> np.ndarray:
    """Edges [first_edge, first_edge+num_edges) unscrambled, packed src | dst << 32."""
    words = stream_words(
        seed, STREAM_KRONECKER_EDGES, first_edge * words_per_edge, num_edges * words_per_edge
    )
    fields = words.view(np.uint32).reshape(num_edges, words_per_edge * FIELDS_PER_WORD)
    # On little-endian machines the second uint16 of each 32-bit field is its
    # top 16 bits, i.e. the bucket index: a strided view, no arithmetic.
    halves = words.view(np.uint16).reshape(num_edges, 2 * words_per_edge * FIELDS_PER_WORD)

    packed = tables[0].bucket_value[halves[:, 1]]
    for field_index, table in enumerate(tables[1:], start=1):
        packed |= table.bucket_value[halves[:, 2 * field_index + 1]]

    # Edges touching an ambiguous bucket in any field: redo those fields exactly.
    flagged = np.flatnonzero(packed >= AMBIGUOUS_FLAG)
    if flagged.size:
        flagged_fields = fields[flagged]
        exact = np.zeros(flagged.size, dtype=np.uint64)
        for field_index, table in enumerate(tables):
            field = flagged_fields[:, field_index]
            value = table.bucket_value[field >> np.uint32(16)]
            ambiguous = value == AMBIGUOUS_FLAG
            value[ambiguous] = table.exact_packed(field[ambiguous])
            exact |= value
        packed[flagged] = exact
    return packed


def _byteorder_check() -> None:
    if np.little_endian is False:  # pragma: no cover - all supported hosts are LE
        raise RuntimeError("the Kronecker generator's bucket views assume little-endian")


def kronecker_unscrambled_chunks(scale, edgefactor=16, seed=1, *, chunk_edges=DEFAULT_CHUNK_EDGES,
                                 quadrants=GRAPH500_QUADRANTS):
    """Yield (first_edge, packed) chunks before label scrambling.

    packed holds src in the low 32 bits and dst in the high 32 bits. Exposed
    for tests of the bit-level quadrant frequencies, which the permutation
    would hide.
    """
    _check_scale(scale)
    _byteorder_check()
    if chunk_edges < 1:
        raise ValueError("chunk_edges must be positive")
    num_edges = edgefactor << scale
    tables, words_per_edge = edge_tables(scale, tuple(float(q) for q in quadrants))
    for first_edge in range(0, num_edges, chunk_edges):
        count = min(chunk_edges, num_edges - first_edge)
        yield first_edge, packed_edges(seed, first_edge, count, tables, words_per_edge)


def kronecker_unscrambled(scale, edgefactor=16, seed=1, *, chunk_edges=DEFAULT_CHUNK_EDGES,
                          quadrants=GRAPH500_QUADRANTS) -> tuple[np.ndarray, np.ndarray]:
    """(src, dst) as uint32 before scrambling; see kronecker_unscrambled_chunks."""
    num_edges = edgefactor << scale
    src = np.empty(num_edges, dtype=np.uint32)
    dst = np.empty(num_edges, dtype=np.uint32)
    for first, packed in kronecker_unscrambled_chunks(
        scale, edgefactor, seed, chunk_edges=chunk_edges, quadrants=quadrants
    ):
        halves = packed.view(np.uint32).reshape(-1, 2)
        src[first:first + len(packed)] = halves[:, 0]
        dst[first:first + len(packed)] = halves[:, 1]
    return src, dst


def vertex_permutation(scale: int, seed: int) -> np.ndarray:
    """The seeded label scrambling: a random permutation of [0, 2**scale)."""
    num_vertices = 1 << scale
    permutation = stream_generator(seed, STREAM_VERTEX_PERMUTATION).permutation(num_vertices)
    return permutation.astype(vertex_dtype(num_vertices), copy=False)


def kronecker_edges(scale: int, edgefactor: int = 16, seed: int = 1, *,
                    chunk_edges: int = DEFAULT_CHUNK_EDGES) -> EdgeList:
    """Graph500 Kronecker input tuples: edgefactor * 2**scale (src, dst), labels scrambled."""
    _check_scale(scale)
    num_vertices = 1 << scale
    num_edges = edgefactor << scale
    permutation = vertex_permutation(scale, seed)
    dtype = vertex_dtype(num_vertices)
    src = np.empty(num_edges, dtype=dtype)
    dst = np.empty(num_edges, dtype=dtype)
    for first, packed in kronecker_unscrambled_chunks(
        scale, edgefactor, seed, chunk_edges=chunk_edges
    ):
        halves = packed.view(np.uint32).reshape(-1, 2)
        stop = first + len(packed)
        np.take(permutation, halves[:, 0], out=src[first:stop])
        np.take(permutation, halves[:, 1], out=dst[first:stop])
    return EdgeList(src=src, dst=dst, num_vertices=num_vertices)
