"""How much memory this computer can give a run (checked before allocating)."""

from __future__ import annotations

import os


def available_memory_bytes() -> int:
    """MemAvailable from /proc/meminfo, else physical memory, else 4 GiB."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 4 << 30
