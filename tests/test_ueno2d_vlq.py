"""VLQ and SIMD VLQ coding of Ueno & Suzumura's compressed vertex lists.

Checked against the paper's Fig. 4 example (seed 004, V-C), a hand-worked
classic encoding of the same values, a straightforward pure-Python encoder
written here (bytes appended one at a time, groups walked one at a time),
and, for the closed-form size model, the empirical mean over seeded random
id sets.
"""

import numpy as np
import pytest

from simbfs.algorithms.ueno2d import vlq

FIG4_VALUES = [3, 123456, 80, 300]


# --------------------------------------------------------------------------
# pure-Python reference (independent of the vectorised code)


def ref_vlq(value):
    """Classic VLQ bytes of one value: 7-bit groups, low first, MSB = more."""
    out = []
    while True:
        group = value & 0x7F
        value >>= 7
        if value:
            out.append(group | 0x80)
        else:
            out.append(group)
            return out


def ref_encode(values):
    return [b for v in values for b in ref_vlq(int(v))]


def ref_simd_encode(values, width):
    out = []
    for start in range(0, len(values), width):
        codes = [ref_vlq(int(v)) for v in values[start:start + width]]
        for k in range(max(len(c) for c in codes)):
            out.extend(c[k] for c in codes if len(c) > k)
    return out


def mixed_values(count, seed):
    """Seeded values of every magnitude: random 64-bit words shifted right by
    0..63 bits, with a sprinkling of boundary values (0, 127, 128, 2**63, 2**64-1)."""
    rng = np.random.default_rng(seed)
    raw = rng.integers(0, 2**64 - 1, size=count, dtype=np.uint64, endpoint=True)
    values = raw >> rng.integers(0, 64, size=count).astype(np.uint64)
    specials = np.array([0, 127, 128, 16383, 16384, 2**63, 2**64 - 1], dtype=np.uint64)
    hit = rng.random(count) < 0.1
    values[hit] = rng.choice(specials, size=int(hit.sum()))
    return values


COUNTS = [0, 1, 31, 32, 33, 1000]
WIDTHS = [1, 4, 32]


# --------------------------------------------------------------------------
# the paper's example and a hand-worked one


def test_fig4_simd_example_encodes_and_decodes():
    """The claim tsubame.simd_vlq_example (004, V-C, Fig. 4), byte for byte."""
    stream = vlq.simd_vlq_encode(FIG4_VALUES, width=4)
    assert stream.dtype == np.uint8
    assert bytes(stream) == bytes([0x03, 0xC0, 0x50, 0xAC, 0xC4, 0x02, 0x07])
    decoded = vlq.simd_vlq_decode(stream, 4, width=4)
    assert decoded.dtype == np.uint64
    assert decoded.tolist() == FIG4_VALUES


def test_classic_vlq_of_fig4_values_by_hand():
    # 123456 = 0x40 + 0x44 * 128 + 7 * 128**2 -> C0 C4 07; 300 = 0x2C + 2 * 128 -> AC 02.
    assert 0x40 + (0x44 << 7) + (7 << 14) == 123456
    stream = vlq.vlq_encode(FIG4_VALUES)
    assert bytes(stream) == bytes([0x03, 0xC0, 0xC4, 0x07, 0x50, 0xAC, 0x02])
    assert vlq.vlq_decode(stream, 4).tolist() == FIG4_VALUES
    assert vlq.vlq_decode(bytes(stream), 4).tolist() == FIG4_VALUES  # bytes-like input


def test_vlq_lengths_at_the_boundaries():
    values = [0, 127, 128, 16383, 16384, 2**63 - 1, 2**63, 2**64 - 1]
    lengths = vlq.vlq_lengths(np.array(values, dtype=np.uint64))
    assert lengths.dtype == np.int64
    # 2**63 - 1 has 63 bits = 9 groups of 7; 2**63 needs a 10th byte.
    assert lengths.tolist() == [1, 1, 2, 2, 3, 9, 10, 10]
    assert lengths.tolist() == [len(ref_vlq(v)) for v in values]
    assert vlq.vlq_lengths(values).tolist() == lengths.tolist()  # Python list input


# --------------------------------------------------------------------------
# round trips against the reference


@pytest.mark.parametrize("count", COUNTS)
def test_classic_round_trip_matches_reference(count):
    values = mixed_values(count, seed=count)
    stream = vlq.vlq_encode(values)
    assert stream.tolist() == ref_encode(values)
    assert len(stream) == vlq.vlq_lengths(values).sum()
    assert np.array_equal(vlq.vlq_decode(stream, count), values)
    assert np.array_equal(vlq.vlq_decode(np.array(ref_encode(values), dtype=np.uint8), count), values)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("count", COUNTS)
def test_simd_round_trip_matches_reference(count, width):
    values = mixed_values(count, seed=1000 + count)
    stream = vlq.simd_vlq_encode(values, width=width)
    assert stream.tolist() == ref_simd_encode(values.tolist(), width)
    decoded = vlq.simd_vlq_decode(stream, count, width=width)
    assert decoded.dtype == np.uint64
    assert np.array_equal(decoded, values)


@pytest.mark.parametrize("width", WIDTHS)
def test_simd_and_classic_are_permutations_of_the_same_bytes(width):
    values = mixed_values(1000, seed=7)
    simd = vlq.simd_vlq_encode(values, width=width)
    classic = vlq.vlq_encode(values)
    assert len(simd) == len(classic)
    assert np.array_equal(np.sort(simd), np.sort(classic))


def test_width_one_simd_is_classic():
    # One value per group: byte positions of a single value in order.
    values = mixed_values(100, seed=3)
    assert np.array_equal(vlq.simd_vlq_encode(values, width=1), vlq.vlq_encode(values))


def test_decoders_refuse_malformed_streams():
    stream = vlq.simd_vlq_encode(FIG4_VALUES, width=4)
    with pytest.raises(ValueError, match="expected exactly 4 values"):
        vlq.simd_vlq_decode(stream[:-1], 4, width=4)  # the 07 of 123456 is missing
    with pytest.raises(ValueError, match="expected exactly 3 values"):
        vlq.vlq_decode(vlq.vlq_encode(FIG4_VALUES), 3)
    with pytest.raises(ValueError, match="64 bits"):
        vlq.vlq_decode(bytes([0xFF] * 9 + [0x02]), 1)  # bit 64 set
    with pytest.raises(ValueError, match="longer than 10 bytes"):
        vlq.vlq_decode(bytes([0x80] * 10 + [0x00]), 1)


# --------------------------------------------------------------------------
# the difference list


def test_delta_list_hand_example_and_round_trip():
    deltas = vlq.delta_list([5, 9, 100])
    assert deltas.dtype == np.uint64
    assert deltas.tolist() == [100, 91, 4]
    assert vlq.undelta_list(deltas).tolist() == [100, 9, 5]
    assert vlq.delta_list([]).tolist() == []
    assert vlq.undelta_list([]).tolist() == []
    assert vlq.delta_list([0]).tolist() == [0]


def test_delta_list_random_round_trip_and_size():
    rng = np.random.default_rng(11)
    ids = rng.choice(2**40, size=5000, replace=False).astype(np.uint64)
    ids[0] = 2**64 - 1  # the largest id the format carries
    deltas = vlq.delta_list(ids)
    assert np.array_equal(vlq.undelta_list(deltas), np.sort(ids)[::-1])
    # Reference: Python ints, sorted by hand.
    desc = sorted(ids.tolist(), reverse=True)
    assert deltas.tolist() == [desc[0]] + [a - b for a, b in zip(desc, desc[1:])]
    for width in WIDTHS:
        assert vlq.compressed_list_bytes(ids, width=width) == len(vlq.simd_vlq_encode(deltas, width=width))
    assert vlq.compressed_list_bytes(ids) == len(ref_encode(deltas))


def test_delta_list_refuses_repeats_and_undelta_refuses_bad_steps():
    with pytest.raises(ValueError, match="distinct"):
        vlq.delta_list([4, 7, 4])
    with pytest.raises(ValueError, match="positive"):
        vlq.undelta_list([10, 0, 3])
    with pytest.raises(ValueError, match="negative"):
        vlq.undelta_list([10, 6, 5])


# --------------------------------------------------------------------------
# the closed-form size model


@pytest.mark.parametrize("density", [1 / 2, 1 / 64, 1 / 1000, 1 / 20000])
def test_expected_bytes_per_value_matches_random_sets(density):
    # Each id of [0, M) present independently with probability p is the
    # same as a Binomial(M, p) count of ids drawn uniformly without
    # replacement. M is at least 2**20 and large enough for ~65k ids: on a
    # 2**20 range at p = 1/20000 there would be ~52 ids and a sampling
    # error (~3%) above the 1% tolerance; with 65k it is ~0.1%.
    rng = np.random.default_rng(int(1 / density))
    size = max(2**20, int(2**16 / density))
    ids = rng.choice(size, size=rng.binomial(size, density), replace=False)
    deltas = vlq.delta_list(ids)
    predicted = vlq.expected_bytes_per_value(density)
    gaps_mean = vlq.vlq_lengths(deltas[1:]).mean()
    list_mean = vlq.compressed_list_bytes(ids) / len(ids)  # includes d0, negligible here
    assert gaps_mean == pytest.approx(predicted, rel=0.01)
    assert list_mean == pytest.approx(predicted, rel=0.01)


def test_expected_bytes_per_value_limits_and_paper_crossover():
    assert vlq.expected_bytes_per_value(1.0) == 1.0
    # p -> 0: every gap is huge, up to the 10-byte cap of 64-bit values.
    assert vlq.expected_bytes_per_value(1e-30) == pytest.approx(10.0)
    # Paper V-B: below 1/8 of the vertices the list can be smaller than the
    # bitmap; at 1/8 both cost one byte per vertex (bitmap: 1 / (8 p)).
    assert vlq.expected_bytes_per_value(1 / 8) == pytest.approx(1.0, abs=1e-6)
    densities = np.array([1.0, 1 / 8, 1 / 20000])
    out = vlq.expected_bytes_per_value(densities)
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    assert out[2] == pytest.approx(vlq.expected_bytes_per_value(1 / 20000))
    for bad in (0.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="density"):
            vlq.expected_bytes_per_value(bad)


# --------------------------------------------------------------------------
# invalid input


@pytest.mark.parametrize("call", [
    lambda v: vlq.vlq_lengths(v),
    lambda v: vlq.vlq_encode(v),
    lambda v: vlq.simd_vlq_encode(v, width=4),
    lambda v: vlq.delta_list(v),
    lambda v: vlq.compressed_list_bytes(v),
])
@pytest.mark.parametrize("values", [
    [3, -1, 5],
    np.array([3, -1, 5], dtype=np.int64),
    [-1, 2**64 - 1],  # numpy alone would turn this list into float64
])
def test_negative_values_raise_value_error(call, values):
    with pytest.raises(ValueError, match="non-negative"):
        call(values)


def test_other_invalid_input_raises_value_error():
    with pytest.raises(ValueError, match="64 bits"):
        vlq.vlq_encode([2**64])
    with pytest.raises(ValueError, match="integers"):
        vlq.vlq_encode([1.5])
    with pytest.raises(ValueError, match="width"):
        vlq.simd_vlq_encode([1, 2], width=0)
    with pytest.raises(ValueError, match="count"):
        vlq.vlq_decode(b"", -1)


def test_batched_lists_equal_one_list_at_a_time():
    """The batched codec (every process's NQ in one call) gives, list by
    list, exactly the bytes and values of the one-list functions, empty
    lists included, and round-trips."""
    from simbfs.algorithms.ueno2d import vlq

    rng = np.random.default_rng(11)
    counts = np.array([0, 1, 5, 0, 37, 4, 130])
    lists = [np.sort(rng.choice(1 << 20, int(c), replace=False)) for c in counts]
    ids = np.concatenate(lists)
    for width in (1, 4, 32):
        deltas = vlq.delta_lists(ids, counts)
        assert np.array_equal(deltas, np.concatenate([vlq.delta_list(x) for x in lists]))
        stream, per_list = vlq.simd_vlq_encode_lists(deltas, counts, width)
        singles = [vlq.simd_vlq_encode(vlq.delta_list(x), width) for x in lists]
        assert list(per_list) == [len(s) for s in singles]
        assert np.array_equal(stream, np.concatenate(singles))
        back = vlq.undelta_lists(vlq.simd_vlq_decode_lists(stream, counts, width), counts)
        # the delta code lists each list's ids in decreasing order, as delta_list does
        assert np.array_equal(back, np.concatenate([x[::-1] for x in lists]))
