"""simbfs.units: spellings of physical quantities -> SI floats.

Expected values are worked out by hand from the unit definitions (SI decimal
prefixes, IEC binary prefixes, and the documented rule that a bare "KB" size
is binary, as the hardware manuals write local-store sizes).
"""

import pytest

from simbfs.units import KINDS, UnitError, example, format_quantity, parse_quantity


@pytest.mark.parametrize(
    "text, kind, expected",
    [
        # bandwidths: decimal prefixes (spec sheets: "2 GB/s" per BG/Q link)
        ("2 GB/s", "bandwidth", 2e9),
        ("25.6 GB/s", "bandwidth", 25.6e9),
        ("800 MB/s", "bandwidth", 800e6),
        ("1 kB/s", "bandwidth", 1e3),
        ("3 GBps", "bandwidth", 3e9),
        ("1 GiB/s", "bandwidth", 2.0**30),
        ("1 KB/s", "bandwidth", 1e3),  # a bandwidth "KB" is decimal
        # sizes: IEC binary prefixes, and "KB"/"MB"/"GB" read as binary
        ("256 KiB", "size", 262144),
        ("256 KB", "size", 262144),
        ("256 kB", "size", 262144),
        ("32 MB", "size", 32 * 2**20),
        ("16 GiB", "size", 16 * 2**30),
        ("16 GB", "size", 16 * 2**30),
        ("512 B", "size", 512),
        ("1 TiB", "size", 2**40),
        # times
        ("40 ns", "time", 4e-8),
        ("1.5 us", "time", 1.5e-6),
        ("1.5 µs", "time", 1.5e-6),
        ("2 ms", "time", 2e-3),
        ("3 s", "time", 3.0),
        ("10 ps", "time", 1e-11),
        # frequencies
        ("1.6 GHz", "frequency", 1.6e9),
        ("3200 MHz", "frequency", 3.2e9),
        ("100 Hz", "frequency", 100.0),
        # dimensionless kinds
        ("26 cycles", "cycles", 26.0),
        ("1 cycle", "cycles", 1.0),
        (26, "cycles", 26.0),
        ("26", "cycles", 26.0),
        (16, "count", 16.0),
        (0.85, "ratio", 0.85),
        # number syntax
        ("1e3 B", "size", 1000.0),
        (" 2 GB/s ", "bandwidth", 2e9),
        ("2GB/s", "bandwidth", 2e9),
        (".5 ns", "time", 0.5e-9),
    ],
)
def test_parse_quantity(text, kind, expected):
    assert parse_quantity(text, kind) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("kind", ["time", "bandwidth", "frequency", "size"])
def test_bare_number_rejected_for_dimensioned_kinds(kind):
    with pytest.raises(UnitError, match="needs a unit"):
        parse_quantity(40, kind)


@pytest.mark.parametrize("kind", ["time", "bandwidth", "frequency", "size"])
def test_bare_zero_is_zero_in_any_unit(kind):
    assert parse_quantity(0, kind) == 0.0


@pytest.mark.parametrize(
    "text, kind",
    [
        ("2 GB", "bandwidth"),  # a size where a bandwidth is expected
        ("40 GHz", "time"),
        ("1.6 GB/s", "frequency"),
        ("256 KiB/s", "size"),
        ("26 ns", "cycles"),
        ("16 cores", "count"),
        ("3 parsecs", "time"),
        ("2 Gb/s", "bandwidth"),  # bits are not accepted: say bytes
    ],
)
def test_wrong_unit_kind_rejected_with_example(text, kind):
    with pytest.raises(UnitError) as info:
        parse_quantity(text, kind)
    message = str(info.value)
    assert kind in message
    assert example(kind) in message  # names an example of the right form


@pytest.mark.parametrize("text", ["fast", "", "GB/s", "2..5 GB/s", "two GB/s"])
def test_unreadable_text_rejected(text):
    with pytest.raises(UnitError, match="write it like"):
        parse_quantity(text, "bandwidth")


@pytest.mark.parametrize("value", [True, False, None, [2], {"value": 2}])
def test_non_scalar_values_rejected(value):
    with pytest.raises(UnitError):
        parse_quantity(value, "count")


def test_unknown_kind_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown quantity kind"):
        parse_quantity("2 GB/s", "speed")


def test_every_kind_has_an_example():
    for kind in KINDS:
        assert example(kind)


@pytest.mark.parametrize(
    "value, kind, text",
    [
        (4e-8, "time", "40 ns"),
        (1.5e-6, "time", "1.5 us"),
        (2e9, "bandwidth", "2 GB/s"),
        (1.6e9, "frequency", "1.6 GHz"),
        (262144, "size", "256 KiB"),
        (16 * 2**30, "size", "16 GiB"),
        (512, "size", "512 B"),
    ],
)
def test_format_quantity_round_trips(value, kind, text):
    assert format_quantity(value, kind) == text
    assert parse_quantity(text, kind) == pytest.approx(value)
