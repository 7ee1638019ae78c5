"""Measured curves of the machine files, read the one way simbfs reads them.

A machine file gives some rates as a curve of points, measured at a few
sizes: a Cell SPE's DMA bandwidth by block size (``dma.bandwidth_curve``),
an SW26010 cluster's by chunk size (``cpe_cluster.dma_curve``). Between the
points a rate is linear in log2 of the size, as the papers plot them; beyond
the first and last points it is flat. Every device reads its curve here.
"""

from __future__ import annotations

import numpy as np


def log_linear(sizes, values, size):
    """``values`` (measured at ``sizes``, ascending) at ``size``: linear in
    log2(size) between the points, flat beyond the ends. ``size`` > 0, a
    number or an array; the result is a numpy float or array."""
    return np.interp(np.log2(size), np.log2(np.asarray(sizes)), values)
