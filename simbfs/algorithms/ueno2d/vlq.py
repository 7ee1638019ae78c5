"""Compressed vertex lists of Ueno & Suzumura's GPU BFS: VLQ and SIMD VLQ.

Where it comes from
    Seed 004, section V-B ("Expand Compression") and V-C ("SIMD
    Variable-length Quantity Encoding", Fig. 4, Algorithm IV). When the
    frontier NQ is small (at most alpha n vertices, alpha = 1/16), the
    expand phase all-gathers a *compressed vertex list* instead of a
    bitmap: the vertices are sorted in decreasing order of id, consecutive
    ids are differenced, and the differences are coded in base-128
    variable-length quantity (VLQ).

The VLQ format (classic, "sequential")
    A value is cut into 7-bit groups, least significant first; each group
    is one byte whose most significant bit (MSB) is 1 if another byte of
    the same value follows and 0 on the value's last byte. So 0..127 take
    1 byte, 128..16383 take 2, ..., and a 64-bit value takes at most 10
    (2**63 = 128**9 is the first 10-byte value). Example (the values of the
    paper's Fig. 4)::

        3      -> 03
        123456 -> C0 C4 07     (123456 = 0x40 + 0x44 * 128 + 7 * 128**2)
        80     -> 50
        300    -> AC 02        (300 = 0x2C + 2 * 128)

    and the classic stream of 3, 123456, 80, 300 is
    ``03 C0 C4 07 50 AC 02``.

The SIMD VLQ format (the paper's)
    Values are taken in consecutive groups of ``width`` (the SIMD width:
    32 lanes of a CUDA warp; the last group may be shorter). Within a
    group, the first byte of every value is stored contiguously in value
    order, then the second byte of every value that has one (in value
    order), then the third, and so on; no space is left for values that
    have run out of bytes. Groups follow one another. Fig. 4 (width 4)::

        3, 123456, 80, 300  ->  03 C0 50 AC | C4 02 | 07
                                 1st bytes   2nd     3rd

    Why this order: in Algorithm IV each lane of a warp decodes one value
    of the group. At byte position j the lanes whose value is not yet
    finished vote (``__ballot``); a lane's byte is at ``offset +
    popc(ballot & lanes-below-me)``, i.e. the still-active lanes read
    *consecutive* bytes (one coalesced memory transaction), and the warp
    advances ``offset`` by ``popc(ballot)``. In the classic order lane i
    could not know where its value starts before every earlier value had
    been parsed, a serial dependency. The bytes are the same as in the
    classic stream, only permuted, so the size is unchanged.

What the functions return (all values are unsigned 64-bit integers;
negative or too-large inputs raise ValueError)
    vlq_lengths(values)              bytes of each value's VLQ (int64)
    vlq_encode(values)               classic VLQ stream (uint8)
    vlq_decode(stream, count)        its inverse (uint64)
    simd_vlq_encode(values, width)   SIMD VLQ stream (uint8)
    simd_vlq_decode(stream, count, width)  its inverse (uint64)
    delta_list(ids)                  [d0, d0-d1, d1-d2, ...], ids sorted
                                     descending d0 > d1 > ... (uint64)
    undelta_list(deltas)             the ids, descending (uint64)
    simd_vlq_encode_lists, simd_vlq_decode_lists, delta_lists,
    undelta_lists                    the same for several lists at once
                                     (one list after the other, each coded
                                     on its own), with the lists' counts
    compressed_list_bytes(ids, width)  bytes of the SIMD VLQ stream of
                                     delta_list(ids) (int)
    expected_bytes_per_value(density)  closed-form expected VLQ bytes of
                                     one gap of a random id set (float)

Size of a compressed list, and the paper's 1/8 crossover
    The list of n ids costs ``vlq_lengths(d0) + sum of the gap lengths``.
    The n - 1 gaps d_i - d_{i+1} of a set in which each id of a range is
    present independently with probability p are (up to the range's ends)
    geometric on {1, 2, ...}, which :func:`expected_bytes_per_value`
    prices in closed form. The first entry is *not* a gap: it is d0
    itself, the largest id, which costs about as many bytes as the
    range's top id (3 bytes for a 2**20 range, whatever p). That one-off
    (at most 10 bytes per list) is outside the closed form, so an
    expected list size is ``vlq_lengths(top) + (n - 1) * E(p)``, and E(p)
    alone is the per-vertex cost only when n is large. At p = 1/8 a gap
    is 128 or more with probability (7/8)**127 ~ 4e-8, so the list costs
    one byte per vertex, exactly what the bitmap costs (1/(8p) bytes per
    vertex): the crossover the paper states in V-B ("if the number of
    vertices in NQ is more than 1/8 of all the vertices, the bitmap ...
    becomes smaller").
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "compressed_list_bytes",
    "delta_list",
    "delta_lists",
    "expected_bytes_per_value",
    "simd_vlq_decode",
    "simd_vlq_decode_lists",
    "simd_vlq_encode",
    "simd_vlq_encode_lists",
    "undelta_list",
    "undelta_lists",
    "vlq_decode",
    "vlq_encode",
    "vlq_lengths",
]

#: Most bytes one 64-bit value can take (ceil(64 / 7)).
MAX_VLQ_BYTES = 10

# A value needs k + 1 bytes iff it is at least 128**k: lengths are
# 1 + (number of these thresholds <= value).
_THRESHOLDS = np.array([128**k for k in range(1, MAX_VLQ_BYTES)], dtype=np.uint64)
_U64_MAX = 2**64 - 1


# --------------------------------------------------------------------------
# input checking


def _as_uint64(values, who: str) -> np.ndarray:
    """``values`` as a uint64 array of the same shape, or ValueError.

    Accepts any integer numpy array and any (nested) Python sequence of
    integers in 0 .. 2**64 - 1. A Python list that mixes negative values
    with values above 2**63 makes numpy pick float64 (lossy), so such lists
    are checked element by element as Python ints before converting.
    """
    if isinstance(values, np.ndarray):
        arr = values
    else:
        arr = np.asarray(values)
        if arr.dtype.kind in "fO" and arr.size:
            # Re-read as objects: the float64 copy has already rounded big ints.
            items = np.array(values, dtype=object).ravel().tolist()
            if not all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in items):
                raise ValueError(f"{who}: values must be integers, got {arr.dtype} data")
            lo, hi = min(items), max(items)
            if lo < 0:
                raise ValueError(f"{who}: values must be non-negative (unsigned 64-bit) integers, got {lo}")
            if hi > _U64_MAX:
                raise ValueError(f"{who}: values must fit in 64 bits (at most 2**64 - 1), got {hi}")
            return np.array(items, dtype=np.uint64).reshape(arr.shape)
    if arr.size == 0:
        # An empty Python list arrives as float64; no value to misread.
        return np.zeros(arr.shape, dtype=np.uint64)
    kind = arr.dtype.kind
    if kind == "u":
        return arr.astype(np.uint64, copy=False)
    if kind == "i":
        if (arr < 0).any():
            bad = int(arr.ravel()[np.flatnonzero(arr.ravel() < 0)[0]])
            raise ValueError(f"{who}: values must be non-negative (unsigned 64-bit) integers, got {bad}")
        return arr.astype(np.uint64)
    if kind == "O":
        return _as_uint64(arr.tolist(), who)
    raise ValueError(f"{who}: values must be integers, got {arr.dtype} data")


def _as_1d_uint64(values, who: str) -> np.ndarray:
    arr = _as_uint64(values, who)
    if arr.ndim != 1:
        raise ValueError(f"{who}: values must be one-dimensional, got shape {arr.shape}")
    return arr


def _as_stream(stream, who: str) -> np.ndarray:
    """``stream`` (bytes-like, or a sequence of ints 0..255) as a 1-D uint8 array."""
    if isinstance(stream, (bytes, bytearray, memoryview)):
        return np.frombuffer(stream, dtype=np.uint8)
    arr = np.asarray(stream)
    if arr.dtype == np.uint8 and arr.ndim == 1:
        return arr
    if arr.ndim != 1:
        raise ValueError(f"{who}: stream must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint8)
    if arr.dtype.kind not in "iu" or arr.min() < 0 or arr.max() > 255:
        raise ValueError(f"{who}: stream must hold bytes (integers 0..255)")
    return arr.astype(np.uint8)


def _check_count(count, who: str) -> int:
    if not isinstance(count, numbers.Integral) or isinstance(count, bool) or count < 0:
        raise ValueError(f"{who}: count must be a non-negative integer, got {count!r}")
    return int(count)


def _check_counts(counts, who: str) -> np.ndarray:
    """The lists' value counts as a 1-D int64 array, or ValueError."""
    arr = np.asarray(counts)
    if arr.ndim != 1 or (arr.size and (arr.dtype.kind not in "iu" or (arr < 0).any())):
        raise ValueError(f"{who}: counts must be a one-dimensional sequence of non-negative integers")
    return arr.astype(np.int64)


def _check_total(values: np.ndarray, counts: np.ndarray, who: str) -> None:
    if int(counts.sum()) != values.size:
        raise ValueError(f"{who}: the counts add up to {int(counts.sum())}, but there are {values.size} values")


def _check_width(width, who: str) -> int:
    if not isinstance(width, numbers.Integral) or isinstance(width, bool) or width < 1:
        raise ValueError(f"{who}: width must be a positive integer (the SIMD width, 32 on CUDA), got {width!r}")
    return int(width)


# --------------------------------------------------------------------------
# lengths and the byte matrix shared by both encoders


def vlq_lengths(values) -> np.ndarray:
    """Bytes of each value's base-128 VLQ, as int64 of the same shape.

    1 for 0..127, 2 for 128..16383, ..., k + 1 for 128**k .. 128**(k+1) - 1,
    10 for 2**63 .. 2**64 - 1. Raises ValueError for negative, non-integer
    or > 64-bit values.
    """
    arr = _as_uint64(values, "vlq_lengths")
    return (1 + np.searchsorted(_THRESHOLDS, arr, side="right")).astype(np.int64)


def _byte_matrix(arr: np.ndarray, lengths: np.ndarray, max_len: int) -> np.ndarray:
    """(len(arr), max_len) uint8: row i holds value i's VLQ bytes, then junk.

    Byte k of value i is bits 7k .. 7k+6, with MSB 1 unless k is the
    value's last byte; columns k >= lengths[i] are not part of the code
    (callers mask them out).
    """
    # Filled one contiguous row per byte position (strided column writes
    # are several times slower), returned as a transposed view.
    out = np.empty((max_len, arr.size), dtype=np.uint8)
    for k in range(max_len):  # at most 10 byte positions
        group = ((arr >> np.uint64(7 * k)) & np.uint64(0x7F)).astype(np.uint8)
        out[k] = group | ((k < lengths - 1).view(np.uint8) << np.uint8(7))
    return out.T


# --------------------------------------------------------------------------
# classic VLQ


def vlq_encode(values) -> np.ndarray:
    """The classic VLQ stream of ``values`` (1-D, unsigned 64-bit), as uint8.

    Each value's bytes are contiguous, least-significant 7-bit group first,
    MSB 1 on every byte but the value's last; values follow in order.
    ``len(result) == vlq_lengths(values).sum()``.
    """
    arr = _as_1d_uint64(values, "vlq_encode")
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint8)
    lengths = vlq_lengths(arr)
    max_len = int(lengths.max())
    mat = _byte_matrix(arr, lengths, max_len)
    # Row-major boolean selection keeps value order, then byte order.
    return mat[np.arange(max_len) < lengths[:, None]]


def _terminators(stream: np.ndarray, count: int, who: str) -> np.ndarray:
    """Positions of the bytes with MSB 0 (one per value), checked against count.

    The stream must hold exactly ``count`` values: ``count`` terminators,
    the last one being the stream's last byte.
    """
    ends = np.flatnonzero(stream < 0x80)
    if ends.size != count or (count and ends[-1] != stream.size - 1) or (count == 0 and stream.size):
        complete = ends.size
        trailing = stream.size - (int(ends[-1]) + 1 if complete else 0)
        raise ValueError(
            f"{who}: stream of {stream.size} bytes holds {complete} complete values and "
            f"{trailing} bytes of an unfinished one, expected exactly {count} values"
        )
    return ends


def _check_top_byte(payload: np.ndarray, position: int, who: str) -> None:
    # The 10th byte carries bit 63 only; anything above would not fit in 64 bits.
    if position == MAX_VLQ_BYTES - 1 and (payload > 1).any():
        raise ValueError(f"{who}: a value in the stream does not fit in 64 bits")


def vlq_decode(stream, count) -> np.ndarray:
    """The ``count`` values of a classic VLQ stream, as uint64.

    Inverse of :func:`vlq_encode`: ``vlq_decode(vlq_encode(v), len(v)) == v``.
    ``stream`` is bytes-like or a 1-D array of bytes and must hold exactly
    ``count`` complete values (ValueError otherwise, and for a value longer
    than 10 bytes or above 2**64 - 1). Non-minimal codes (e.g. ``80 00``
    for 0) are accepted.
    """
    who = "vlq_decode"
    data = _as_stream(stream, who)
    count = _check_count(count, who)
    ends = _terminators(data, count, who)
    if count == 0:
        return np.zeros(0, dtype=np.uint64)
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts + 1
    if lengths.max() > MAX_VLQ_BYTES:
        raise ValueError(f"{who}: a value in the stream is longer than {MAX_VLQ_BYTES} bytes (64 bits)")
    # Byte position by byte position (at most 10): a gather per position is
    # much cheaper than expanding a per-byte position array.
    values = np.zeros(count, dtype=np.uint64)
    for k in range(int(lengths.max())):
        has = np.flatnonzero(lengths > k)
        payload = (data[starts[has] + k] & 0x7F).astype(np.uint64)
        _check_top_byte(payload, k, who)
        values[has] |= payload << np.uint64(7 * k)
    return values


# --------------------------------------------------------------------------
# SIMD VLQ


def _groups(counts: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """How lists of ``counts`` values fall into SIMD groups: each list is cut
    into groups of ``width`` consecutive values (its last group may be
    shorter). Returns the values (lanes) of every group, in stream order,
    and each value's slot in a (groups x width) array of lanes."""
    lists = np.arange(len(counts))
    per_list = -(-counts // width)
    first_group = np.cumsum(per_list) - per_list
    list_of_group = np.repeat(lists, per_list)
    group_in_list = np.arange(int(per_list.sum())) - first_group[list_of_group]
    lanes = np.minimum(width, counts[list_of_group] - group_in_list * width)
    list_of_value = np.repeat(lists, counts)
    value_in_list = np.arange(int(counts.sum())) - (np.cumsum(counts) - counts)[list_of_value]
    return lanes, first_group[list_of_value] * width + value_in_list


def simd_vlq_encode(values, width: int = 32) -> np.ndarray:
    """The paper's SIMD VLQ stream of ``values`` (1-D, unsigned 64-bit), as uint8.

    Values are grouped ``width`` at a time (the last group may be shorter);
    a group's bytes are laid out byte position by byte position: the first
    byte of each of its values in value order, then the second byte of
    each value that has one, and so on; groups follow one another. The
    bytes are those of :func:`vlq_encode`, permuted, so the lengths agree.
    Fig. 4: ``simd_vlq_encode([3, 123456, 80, 300], 4)`` is
    ``03 C0 50 AC C4 02 07``.
    """
    width = _check_width(width, "simd_vlq_encode")
    arr = _as_1d_uint64(values, "simd_vlq_encode")
    return _simd_vlq_encode_lists(arr, np.array([arr.size]), width)[0]


def simd_vlq_encode_lists(values, counts, width: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """The SIMD VLQ streams of several lists at once: ``values`` holds the
    lists one after the other, ``counts[r]`` values for list r. Each list is
    coded on its own, as :func:`simd_vlq_encode` codes it (its groups start
    at its first value), and the streams follow one another. Returns the
    stream (uint8) and each list's bytes (int64)."""
    who = "simd_vlq_encode_lists"
    width = _check_width(width, who)
    arr = _as_1d_uint64(values, who)
    counts = _check_counts(counts, who)
    _check_total(arr, counts, who)
    return _simd_vlq_encode_lists(arr, counts, width)


def _simd_vlq_encode_lists(arr: np.ndarray, counts: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    value_lengths = vlq_lengths(arr)
    ends = np.cumsum(counts)
    cumulative = np.concatenate(([0], np.cumsum(value_lengths)))
    list_bytes = cumulative[ends] - cumulative[ends - counts]  # the SIMD order adds no byte
    if arr.size == 0:
        return np.zeros(0, dtype=np.uint8), list_bytes
    lanes, slot = _groups(counts, width)
    groups = len(lanes)
    padded = np.zeros(groups * width, dtype=np.uint64)
    padded[slot] = arr
    lengths = np.zeros(groups * width, dtype=np.int64)  # padding lanes: no bytes
    lengths[slot] = value_lengths
    max_len = int(lengths.max())
    mat = _byte_matrix(padded, lengths, max_len).reshape(groups, width, max_len)
    present = (np.arange(max_len) < lengths[:, None]).reshape(groups, width, max_len)
    # Index order (group, byte position, lane) is exactly the stream order.
    return mat.transpose(0, 2, 1)[present.transpose(0, 2, 1)], list_bytes


def simd_vlq_decode(stream, count, width: int = 32) -> np.ndarray:
    """The ``count`` values of a SIMD VLQ stream of group width ``width``, as uint64.

    Inverse of :func:`simd_vlq_encode` (same ``width``). ``stream`` must
    hold exactly ``count`` values (ValueError otherwise, for a stream whose
    groups are not laid out as the format says, and for values longer than
    10 bytes or above 2**64 - 1).

    Vectorised over all groups at once. Algorithm IV walks the groups in
    sequence because a group's start is the previous group's end; here the
    group boundaries come first, from the terminators: every value has
    exactly one byte with MSB 0, and a group's last byte position holds
    only last bytes, so group j ends at the ((j + 1) * width)-th terminator
    of the stream. Then, byte position by byte position (at most 10), each
    group's still-active lanes read consecutive bytes at their rank among
    the active lanes, which is Algorithm IV's ``popc(mask & ballot)``.
    """
    who = "simd_vlq_decode"
    width = _check_width(width, who)
    data = _as_stream(stream, who)
    count = _check_count(count, who)
    return _simd_vlq_decode_lists(data, np.array([count]), width, who)


def simd_vlq_decode_lists(stream, counts, width: int = 32) -> np.ndarray:
    """Inverse of :func:`simd_vlq_encode_lists`: the values of the lists
    whose streams follow one another in ``stream``, ``counts[r]`` values for
    list r, one list after the other, as uint64 (ValueError as
    :func:`simd_vlq_decode`)."""
    who = "simd_vlq_decode_lists"
    width = _check_width(width, who)
    data = _as_stream(stream, who)
    return _simd_vlq_decode_lists(data, _check_counts(counts, who), width, who)


def _simd_vlq_decode_lists(data: np.ndarray, counts: np.ndarray, width: int, who: str) -> np.ndarray:
    count = int(counts.sum())
    ends = _terminators(data, count, who)
    if count == 0:
        return np.zeros(0, dtype=np.uint64)
    lanes, _ = _groups(counts, width)
    group_end = ends[np.cumsum(lanes) - 1] + 1  # a group ends with its last value's terminator
    offset = np.concatenate(([0], group_end[:-1])).astype(np.int64)
    lane_used = np.arange(width) < lanes[:, None]  # (groups, width)
    active = lane_used.copy()
    values = np.zeros((len(lanes), width), dtype=np.uint64)
    for k in range(MAX_VLQ_BYTES):
        if not active.any():
            break
        index = offset[:, None] + np.cumsum(active, axis=1) - 1
        if (active & (index >= group_end[:, None])).any():
            raise ValueError(f"{who}: stream is not a SIMD VLQ stream of width {width} (a group overruns its end)")
        byte = np.where(active, data[np.where(active, index, 0)], 0)
        payload = (byte & 0x7F).astype(np.uint64)
        _check_top_byte(payload, k, who)
        values |= payload << np.uint64(7 * k)
        offset += active.sum(axis=1)
        active &= byte >= 0x80
    if active.any():
        raise ValueError(f"{who}: a value in the stream is longer than {MAX_VLQ_BYTES} bytes (64 bits)")
    if (offset != group_end).any():
        raise ValueError(f"{who}: stream is not a SIMD VLQ stream of width {width} (a group has stray bytes)")
    return values[lane_used]


# --------------------------------------------------------------------------
# the compressed vertex list


def delta_list(ids) -> np.ndarray:
    """The paper's difference list of a set of distinct ids, as uint64.

    With the ids sorted in decreasing order d0 > d1 > ... > d_{n-1}, returns
    ``[d0, d0 - d1, d1 - d2, ..., d_{n-2} - d_{n-1}]``: the first entry is
    the largest id itself, every later entry is at least 1. ``ids`` may be
    in any order; repeated ids or negative ids raise ValueError.
    Example: {5, 9, 100} -> [100, 91, 4].
    """
    arr = _as_1d_uint64(ids, "delta_list")
    return _delta_lists(arr, np.array([arr.size]), "delta_list")


def delta_lists(ids, counts) -> np.ndarray:
    """:func:`delta_list` of several sets at once: ``ids`` holds the sets one
    after the other, ``counts[r]`` ids for set r (each in any order);
    returns their difference lists, one after the other."""
    who = "delta_lists"
    arr = _as_1d_uint64(ids, who)
    counts = _check_counts(counts, who)
    _check_total(arr, counts, who)
    return _delta_lists(arr, counts, who)


def _delta_lists(arr: np.ndarray, counts: np.ndarray, who: str) -> np.ndarray:
    if arr.size == 0:
        return arr.copy()
    if len(counts) == 1:
        desc = np.sort(arr)[::-1]
    else:  # each set's ids in decreasing order (~ reverses unsigned order), the sets in turn
        desc = arr[np.lexsort((~arr, np.repeat(np.arange(len(counts)), counts)))]
    first = (np.cumsum(counts) - counts)[counts > 0]  # where each list starts
    out = np.empty_like(desc)
    out[1:] = desc[:-1] - desc[1:]
    out[first] = desc[first]
    step = np.ones(arr.size, dtype=bool)
    step[first] = False
    repeated = step & (out == 0)
    if repeated.any():
        dup = int(desc[np.flatnonzero(repeated)[0]])
        raise ValueError(f"{who}: ids must be distinct, {dup} appears more than once")
    return out


def undelta_list(deltas) -> np.ndarray:
    """Inverse of :func:`delta_list`: the ids in decreasing order, as uint64.

    ``deltas[0]`` is the largest id and every later entry the (positive)
    step down to the next id; ValueError if a later entry is 0 (ids would
    repeat) or the steps add up to more than ``deltas[0]`` (an id would be
    negative).
    """
    arr = _as_1d_uint64(deltas, "undelta_list")
    return _undelta_lists(arr, np.array([arr.size]), "undelta_list")


def undelta_lists(deltas, counts) -> np.ndarray:
    """Inverse of :func:`delta_lists`: each list's ids in decreasing order,
    the lists one after the other, as uint64 (ValueError as
    :func:`undelta_list`)."""
    who = "undelta_lists"
    arr = _as_1d_uint64(deltas, who)
    counts = _check_counts(counts, who)
    _check_total(arr, counts, who)
    return _undelta_lists(arr, counts, who)


def _undelta_lists(arr: np.ndarray, counts: np.ndarray, who: str) -> np.ndarray:
    if arr.size == 0:
        return arr.copy()
    starts = np.cumsum(counts) - counts
    list_start = np.repeat(starts, counts)  # per entry, where its list starts
    step = np.arange(arr.size) != list_start
    if (arr[step] == 0).any():
        raise ValueError(f"{who}: entries after the first must be positive (ids are distinct)")
    running = np.cumsum(np.where(step, arr, np.uint64(0)), dtype=np.uint64)
    below = running - running[list_start]  # the steps of its list so far (modulo 2**64)
    top = arr[list_start]
    # Every step is >= 1, so the running sum rises strictly unless it wrapped past 2**64.
    wrapped = step[1:] & (below[1:] <= below[:-1])
    if wrapped.any() or (below > top).any():
        raise ValueError(f"{who}: the steps add up to more than the first entry (an id would be negative)")
    return top - below


def compressed_list_bytes(ids, width: int = 32) -> int:
    """Bytes of the SIMD VLQ stream of ``delta_list(ids)``.

    Equal to ``len(simd_vlq_encode(delta_list(ids), width))`` and to
    ``vlq_lengths(delta_list(ids)).sum()``: the SIMD order permutes the
    bytes without adding any, so ``width`` (checked, must be >= 1) does not
    change the size. Computed from the lengths, without encoding.
    """
    _check_width(width, "compressed_list_bytes")
    return int(vlq_lengths(delta_list(ids)).sum())


def expected_bytes_per_value(density):
    """Expected VLQ bytes of one gap of a random id set with the given density.

    Model: each id of a range is present independently with probability
    p = ``density`` (0 < p <= 1), so a gap g = d_i - d_{i+1} between
    consecutive present ids is geometric on {1, 2, ...}:
    P(g >= m) = (1 - p)**(m - 1). A gap takes 1 + #{k >= 1 : g >= 128**k}
    bytes, hence

        E = 1 + sum_{k=1}^{9} (1 - p)**(128**k - 1)

    (the sum stops at k = 9 because ids are 64-bit, so no gap reaches
    128**10; beyond k = 3 the terms vanish for any p above ~1e-6). p = 1
    gives 1.0; as p -> 0 E rises to the 10-byte cap.

    Scope: this prices the n - 1 gaps of a list of n ids. The first entry
    of :func:`delta_list` is the largest id d0 itself, *not* a gap from
    the range's top, so it costs about ``vlq_lengths(range_size - 1)``
    bytes regardless of p; the expected list size is about that plus
    (n - 1) * E, and E is the per-vertex cost only for long lists.

    Accepts a scalar (returns float) or an array (returns an array of the
    same shape). ValueError if any density is outside (0, 1].
    """
    p = np.asarray(density, dtype=np.float64)
    if not ((p > 0) & (p <= 1)).all():
        raise ValueError(f"expected_bytes_per_value: density must be in (0, 1], got {density!r}")
    with np.errstate(divide="ignore"):  # p = 1: log(0) = -inf, every term exp(-inf) = 0
        log_q = np.log1p(-p)
    exponents = 128.0 ** np.arange(1, MAX_VLQ_BYTES) - 1.0
    # (1 - p)**m as exp(m log1p(-p)): exact enough for tiny p, where 1 - p rounds to 1.
    expected = 1.0 + np.exp(log_q[..., None] * exponents).sum(axis=-1)
    return float(expected) if expected.ndim == 0 else expected
