"""Physical quantities written by people, parsed into SI floats in one place.

Machine files say "2 GB/s", "40 ns", "1.6 GHz", "256 KiB". Everything inside
simbfs holds plain floats in SI base units (bytes, seconds, hertz, bytes per
second) with the unit in the field name (``link_bandwidth_Bps``,
``hop_latency_s``). This module is the only place that knows unit spellings.

Decimal prefixes (k, M, G, T) are powers of 1000 and binary prefixes (Ki, Mi,
Gi, Ti) powers of 1024, as in the spec sheets: "2 GB/s" is 2e9 B/s and
"256 KiB" is 262144 B. A lone "KB" (as hardware manuals write local-store
sizes) is ambiguous; we follow the manuals and read "KB", "MB" for *sizes* as
binary, but for *bandwidths* as decimal, and say so in docs/reference.
"""

from __future__ import annotations

import re

_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}
_SUB = {"": 1.0, "m": 1e-3, "u": 1e-6, "µ": 1e-6, "n": 1e-9, "p": 1e-12}

# kind -> (accepted unit suffixes after an optional prefix, prefix table, example)
_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12}

KINDS = ("time", "bandwidth", "frequency", "size", "count", "cycles", "ratio")

_EXAMPLES = {
    "time": '"40 ns", "1.5 us", "2 ms"',
    "bandwidth": '"2 GB/s", "25.6 GB/s", "800 MB/s"',
    "frequency": '"1.6 GHz", "3200 MHz"',
    "size": '"256 KiB", "512 B", "16 GiB"',
    "count": "16",
    "cycles": '"26 cycles" or 26',
    "ratio": "0.85",
}

_NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"


class UnitError(ValueError):
    """A value that is not a valid quantity of the expected kind."""


def example(kind: str) -> str:
    return _EXAMPLES[kind]


def parse_quantity(text: object, kind: str) -> float:
    """Parse ``text`` as a quantity of ``kind`` and return SI units.

    Raises :class:`UnitError` with a message naming the expected form.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown quantity kind {kind!r}")
    if isinstance(text, bool):
        raise UnitError(f"expected a {kind} such as {_EXAMPLES[kind]}, got {text!r}")
    if isinstance(text, (int, float)):
        if kind in ("count", "cycles", "ratio"):
            return float(text)
        if text == 0:
            return 0.0
        raise UnitError(f"a {kind} needs a unit, for example {_EXAMPLES[kind]}; got the bare number {text!r}")
    if not isinstance(text, str):
        raise UnitError(f"expected a {kind} such as {_EXAMPLES[kind]}, got {text!r}")
    match = re.fullmatch(r"\s*" + _NUMBER + r"\s*(.*?)\s*", text)
    if not match:
        raise UnitError(f"cannot read {text!r} as a {kind}; write it like {_EXAMPLES[kind]}")
    number = float(match.group(1))
    unit = match.group(2)
    scale = _unit_scale(unit, kind)
    if scale is None:
        raise UnitError(f"{text!r} has unit {unit!r}, which is not a {kind} unit; write it like {_EXAMPLES[kind]}")
    return number * scale


def _unit_scale(unit: str, kind: str) -> float | None:
    if kind == "time":
        return _TIME_UNITS.get(unit)
    if kind == "frequency":
        if unit.endswith("Hz"):
            return _DECIMAL.get(unit[:-2])
        return None
    if kind == "bandwidth":
        for suffix in ("B/s", "Bps"):
            if unit.endswith(suffix):
                prefix = unit[: -len(suffix)]
                if prefix in _BINARY:
                    return _BINARY[prefix]
                return _DECIMAL.get(prefix)
        return None
    if kind == "size":
        if not unit.endswith("B"):
            return None
        prefix = unit[:-1]
        if prefix in _BINARY:
            return _BINARY[prefix]
        # Hardware manuals write "256 KB" local stores and "32 MB" caches in
        # powers of two; sizes are read that way.
        return {"": 1.0, "K": 2.0**10, "k": 2.0**10, "M": 2.0**20, "G": 2.0**30, "T": 2.0**40}.get(prefix)
    if kind == "cycles":
        return 1.0 if unit in ("", "cycle", "cycles") else None
    if kind in ("count", "ratio"):
        return 1.0 if unit == "" else None
    return None


# the unit of each kind's SI value, as simbfs holds it (counts and ratios have none)
SI_UNITS = {"time": "s", "bandwidth": "B/s", "frequency": "Hz", "size": "B", "cycles": "cycles"}


def exact_text(value: float | int, kind: str) -> str:
    """``value`` (SI) as text that parse_quantity reads back to the same float."""
    return f"{value!r} {SI_UNITS.get(kind, '')}".rstrip()


def format_quantity(value: float, kind: str, digits: int = 4) -> str:
    """Human-readable rendering of an SI value (for listings and reports),
    to ``digits`` significant digits."""
    if kind == "time":
        for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
            if abs(value) >= scale or unit == "ns":
                return f"{value / scale:.{digits}g} {unit}"
    if kind == "bandwidth":
        for unit, scale in (("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
            if abs(value) >= scale:
                return f"{value / scale:.{digits}g} {unit}"
        return f"{value:.{digits}g} B/s"
    if kind == "frequency":
        for unit, scale in (("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3)):
            if abs(value) >= scale:
                return f"{value / scale:.{digits}g} {unit}"
        return f"{value:.{digits}g} Hz"
    if kind == "size":
        for unit, scale in (("TiB", 2.0**40), ("GiB", 2.0**30), ("MiB", 2.0**20), ("KiB", 2.0**10)):
            if abs(value) >= scale:
                return f"{value / scale:.{digits}g} {unit}"
        return f"{value:.{digits}g} B"
    return f"{value:.6g}"


def distinct_sizes(need: float, have: float) -> tuple[str, str]:
    """Two sizes for one message (what a run needs, what a node has), with
    enough digits that they do not read as equal: 16.0026 GiB, not 16 GiB,
    beside 16 GiB."""
    have_text = format_quantity(have, "size")
    digits = 4
    need_text = format_quantity(need, "size", digits)
    while need_text == have_text and digits < 12:
        digits += 2
        need_text = format_quantity(need, "size", digits)
    return need_text, have_text
