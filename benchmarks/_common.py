"""What the benchmarks share: a best-of-N timer and a description of the computer."""

from __future__ import annotations

import platform
import time

import numpy as np


def best_time(function, repeats: int) -> float:
    """Best wall time of ``repeats`` calls (the least disturbed by other load)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
        del result
    return best


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def describe_computer() -> str:
    uname = platform.uname()
    return (f"{uname.system} {uname.release} {uname.machine}; CPU: {cpu_model()}; "
            f"numpy {np.__version__}; Python {platform.python_version()}")
