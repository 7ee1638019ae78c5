"""Kronecker generator: Graph500 quadrant probabilities, determinism, chunk independence."""

import numpy as np
import pytest

from simbfs.errors import UserError
from simbfs.graph import kronecker_edges
from simbfs.graph.counter_rng import STREAM_KRONECKER_EDGES, stream_words
from simbfs.graph.kronecker import (
    GRAPH500_QUADRANTS,
    edge_tables,
    kronecker_unscrambled,
    packed_edges,
    vertex_permutation,
)
from simbfs.graph.quadrant_table import (
    AMBIGUOUS_FLAG,
    joint_outcome_probabilities,
    quadrant_table,
)

A, B, C, D = 0.57, 0.19, 0.19, 0.05  # Graph500 specification


def within_binomial(count, trials, p, sigmas=5.0):
    return abs(count - trials * p) <= sigmas * np.sqrt(trials * p * (1 - p))


def test_graph500_parameters():
    assert GRAPH500_QUADRANTS == pytest.approx((A, B, C, D))


def test_deterministic_in_seed():
    first = kronecker_edges(10, seed=7)
    again = kronecker_edges(10, seed=7)
    other = kronecker_edges(10, seed=8)
    assert np.array_equal(first.src, again.src) and np.array_equal(first.dst, again.dst)
    assert not np.array_equal(first.src, other.src)


def test_size_and_dtype():
    edges = kronecker_edges(9, edgefactor=4)
    assert len(edges) == 4 * 2**9 and edges.num_vertices == 2**9
    assert edges.src.dtype == np.int32
    assert edges.src.min() >= 0 and max(edges.src.max(), edges.dst.max()) < 2**9


@pytest.mark.parametrize("chunk_log2", [0, 3, 7, 10, 13])
def test_same_edges_however_chunked(chunk_log2):
    whole = kronecker_edges(11, chunk_edges=1 << 20)
    chunked = kronecker_edges(11, chunk_edges=1 << chunk_log2)
    assert np.array_equal(whole.src, chunked.src)
    assert np.array_equal(whole.dst, chunked.dst)


def test_unaligned_chunks_also_agree():
    assert np.array_equal(kronecker_unscrambled(10, chunk_edges=1000)[0],
                          kronecker_unscrambled(10, chunk_edges=777)[0])


@pytest.mark.parametrize("scale", [7, 12])
def test_bit_level_quadrant_frequencies(scale):
    src, dst = kronecker_unscrambled(scale, edgefactor=16, seed=3)
    trials = src.size
    pooled = np.zeros(4, dtype=np.int64)
    for level in range(scale):
        quadrant = 2 * ((src >> level) & 1) + ((dst >> level) & 1)
        counts = np.bincount(quadrant, minlength=4)
        pooled += counts
        for count, p in zip(counts, (A, B, C, D)):
            assert within_binomial(count, trials, p), (level, counts / trials)
    for count, p in zip(pooled, (A, B, C, D)):
        assert within_binomial(count, trials * scale, p), pooled / (trials * scale)


def test_levels_are_independent():
    # Joint frequency of quadrant pairs at two levels is the product.
    src, dst = kronecker_unscrambled(12, seed=5)
    q0 = 2 * (src & 1) + (dst & 1)
    q7 = 2 * ((src >> 7) & 1) + ((dst >> 7) & 1)
    both_a = np.count_nonzero((q0 == 0) & (q7 == 0))
    assert within_binomial(both_a, src.size, A * A)


def test_top_bits_closed_form():
    # Fraction of tuples in the top-left quadrant at the top level is A and
    # the fraction with source in the lower half of labels is A+B.
    scale = 12
    src, dst = kronecker_unscrambled(scale, seed=11)
    half = 1 << (scale - 1)
    assert within_binomial(np.count_nonzero((src < half) & (dst < half)), src.size, A)
    assert within_binomial(np.count_nonzero(src < half), src.size, A + B)


def test_table_path_equals_exact_inverse_cdf():
    # The lookup table plus ambiguity fallback must reproduce plain
    # searchsorted on the integer CDF for every field, bit for bit.
    scale, count = 13, 50_000
    tables, words_per_edge = edge_tables(scale, GRAPH500_QUADRANTS)
    packed = packed_edges(4, 123, count, tables, words_per_edge)
    words = stream_words(4, STREAM_KRONECKER_EDGES, 123 * words_per_edge, count * words_per_edge)
    fields = words.view(np.uint32).reshape(count, -1)
    expected = np.zeros(count, dtype=np.uint64)
    for index, table in enumerate(tables):
        expected |= table.exact_packed(fields[:, index])
    assert np.array_equal(packed, expected)
    assert not (packed >= AMBIGUOUS_FLAG).any()


def test_table_handles_bucket_edges_and_ambiguous_buckets():
    table = quadrant_table(5, 0, GRAPH500_QUADRANTS)
    ambiguous = np.flatnonzero(table.bucket_value == AMBIGUOUS_FLAG)
    assert 0 < ambiguous.size <= 4**5 - 1
    starts = np.arange(1 << 16, dtype=np.uint64) << np.uint64(16)
    values = np.concatenate([starts, starts + np.uint64(0xFFFF)]).astype(np.uint32)
    fast = table.bucket_value[values >> np.uint32(16)]
    clear = fast != AMBIGUOUS_FLAG
    assert np.array_equal(fast[clear], table.exact_packed(values[clear]))


def test_joint_probabilities_exact_to_2_pow_minus_32():
    table = quadrant_table(5, 0, GRAPH500_QUADRANTS)
    bounds = np.concatenate([[0], table.upper_thresholds.astype(np.float64), [2.0**32]])
    realised = np.diff(bounds) / 2.0**32
    wanted = joint_outcome_probabilities(5, (A, B, C, D))
    assert np.max(np.abs(realised - wanted)) <= 2.0**-32
    # Outcome 0 is "A at all five levels".
    assert wanted[0] == pytest.approx(A**5)


def test_scramble_is_a_permutation_applied_to_labels():
    scale = 10
    permutation = vertex_permutation(scale, seed=2)
    assert np.array_equal(np.sort(permutation), np.arange(2**scale))
    assert not np.array_equal(permutation, np.arange(2**scale))
    src, dst = kronecker_unscrambled(scale, seed=2)
    edges = kronecker_edges(scale, seed=2)
    assert np.array_equal(edges.src, permutation[src])
    assert np.array_equal(edges.dst, permutation[dst])


def test_scale_out_of_range_is_user_error():
    with pytest.raises(UserError, match="smaller --scale"):
        kronecker_edges(40)
