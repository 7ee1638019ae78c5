"""Virtual nodes: how a projection lays its profile graph on fewer nodes
than the target has, and how it takes the profile's heaviest vertices and
its virtual cells' spread back to the target. Shared by the cp1d-spi,
cp1d-mpi and lin1d projections (docs/background/projection.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..graph.kronecker_theory import expected_simple_degrees
from . import Growth, extreme_z, grown_degrees

VIRTUAL_NODES_MAX = 1024
VIRTUAL_VERTICES_MIN = 256  # profile vertices per virtual node, at least


# ------------------------------------------------------------ heavy set
def _class_degrees(scale: int, edgefactor: int):
    """(degree, vertex count) of the Kronecker vertex classes, heaviest first."""
    degrees = expected_simple_degrees(scale, edgefactor)
    counts = np.array([math.comb(scale, j) for j in range(scale + 1)], dtype=np.float64)
    order = np.argsort(-degrees, kind="stable")
    return degrees[order], counts[order]


def expected_count_above(scale: int, edgefactor: int, degree: float) -> float:
    """Expected number of vertices of degree >= ``degree`` in a graph of
    ``scale``: a vertex of class j has a Poisson-like degree of mean d_j (a
    sum of many unlikely edges), so the count is sum_j C(s, j) P(degree_j >=
    x), with the normal approximation of the tail."""
    degrees, counts = _class_degrees(scale, edgefactor)
    z = (degree - 0.5 - degrees) / np.sqrt(2.0 * np.maximum(degrees, 1e-9))
    return float(np.dot(counts, [0.5 * math.erfc(v) for v in z]))


def _grown_above_threshold(degree: np.ndarray, growth: Growth, profile_scale: int, target_scale: int,
                           edgefactor: int, heavy_target: int) -> int:
    """The profile vertices whose grown degree reaches the target threshold
    x at which the target has LB heavy vertices. The closed form miscounts
    the vertices above a degree by a factor that the profile graph shows (its actual count over the closed
    form's, at the profile degree that grows to x); that factor is assumed
    to carry over, so x solves closed-form count at the target x factor = LB.
    Projected from its own scale, this picks exactly LB vertices."""
    values, counts = np.unique(degree[degree > 0], return_counts=True)
    grown = grown_degrees(growth, values)
    above_actual = np.cumsum(counts[::-1])[::-1]  # profile vertices with degree >= values[i]

    def excess(x: float) -> tuple[float, int]:
        i = int(np.searchsorted(grown, x))  # first profile degree that grows to x or more
        if i >= len(values):
            return expected_count_above(target_scale, edgefactor, x) - heavy_target, 0
        actual = int(above_actual[i])
        closed = expected_count_above(profile_scale, edgefactor, float(values[i]))
        factor = actual / closed if closed > 0 else 1.0
        return expected_count_above(target_scale, edgefactor, x) * factor - heavy_target, actual

    low, high = 1.0, float(grown[-1]) * 4 + 64
    for _ in range(100):  # bisection: the excess falls as the threshold rises
        middle = math.sqrt(low * high)
        if excess(middle)[0] > 0:
            low = middle
        else:
            high = middle
    return excess(high)[1]


def heavy_edge_share(scale: int, edgefactor: int, heavy: int) -> float:
    """Expected share of all adjacency entries held by the ``heavy``
    highest-degree vertices of a graph of ``scale``: the heaviest classes'
    expected degrees, whole classes and then part of the next (within 2% of
    generated graphs at scales 14 and 16, tests/test_projection_cp1d.py;
    within 1% at 18 to 20)."""
    degrees, counts = _class_degrees(scale, edgefactor)
    before = np.concatenate([[0.0], np.cumsum(counts)[:-1]])
    taken = np.clip(heavy - before, 0.0, counts)
    return float(np.dot(degrees, taken) / np.dot(degrees, counts))


def heavy_vertices_at_profile(degree: np.ndarray, growth: Growth, profile_scale: int, target_scale: int,
                              edgefactor: int, heavy_target: int) -> int:
    """The profile's heavy count, the larger of two:

    * every profile vertex whose degree, grown to the target scale, is
      heavy there (``_grown_above_threshold``): a vertex left light must be
      light at the target, or a profile hub would be projected as a light
      target vertex with a hub's degree;
    * as many of the highest-degree vertices as hold the share of adjacency
      entries that the target's LB heaviest hold (``_holding_target_share``):
      that share decides how much of a search the heavy path carries (no
      probes, no messages).

    Near the profile scale the second is larger (the 1,024 heaviest of
    scale 20 hold 18.5% of the entries; the 172 scale-18 vertices that grow
    past its threshold hold 12%); far from it, the first (a scale-40
    target's 4,096 heaviest hold 0.3%)."""
    if heavy_target <= 0:
        return 0
    return max(_grown_above_threshold(degree, growth, profile_scale, target_scale, edgefactor, heavy_target),
               _holding_target_share(degree, profile_scale, target_scale, edgefactor, heavy_target))


def _holding_target_share(degree: np.ndarray, profile_scale: int, target_scale: int, edgefactor: int,
                          heavy_target: int) -> int:
    """As many of the profile's highest-degree vertices as hold the share of
    adjacency entries that the target's ``heavy_target`` heaviest hold. The
    closed form's small miss at the profile scale (its share of the
    profile's LB / 2^(T - s) heaviest against the actual) is carried over
    as a factor, so that projected from its own scale this picks exactly LB."""
    entries = np.sort(degree[degree > 0])[::-1].astype(np.float64)
    if entries.size == 0:
        return 0
    held = np.cumsum(entries) / entries.sum()  # share of the top k + 1
    same_rank = int(min(max(round(heavy_target * 2.0 ** (profile_scale - target_scale)), 1), entries.size))
    factor = held[same_rank - 1] / heavy_edge_share(profile_scale, edgefactor, same_rank)
    share = min(heavy_edge_share(target_scale, edgefactor, heavy_target) * factor, 1.0)
    return int(min(np.searchsorted(held, share * (1 - 1e-12)) + 1, entries.size))


def virtual_nodes(target_nodes: int, profile_vertices: int) -> int:
    """The profile's nodes: the target's, when each gets at least
    VIRTUAL_VERTICES_MIN profile vertices and there are at most
    VIRTUAL_NODES_MAX; else the largest power of two that does."""
    if target_nodes <= VIRTUAL_NODES_MAX and profile_vertices // target_nodes >= VIRTUAL_VERTICES_MIN:
        return target_nodes
    room = max(1, min(VIRTUAL_NODES_MAX, profile_vertices // VIRTUAL_VERTICES_MIN))
    return 1 << (room.bit_length() - 1)


# --------------------------------------------------------- cell scaling
@dataclass(frozen=True)
class Spread:
    """How virtual cells' values become target cells' values (step 3)."""

    kappa: float  # items per target cell / items per virtual cell
    widening: float  # per-item standard deviation growth beyond the mean's
    hub_growth: float  # growth of the heaviest light vertex's value beyond the mean's
    cells: int  # target cells (nodes, or nodes x threads)

    def mean_and_busiest(self, values: np.ndarray, group: int = 1) -> tuple[float, float, float]:
        """Target cells' mean, busiest, and typical busiest of ``group``
        consecutive cells (a typical node's busiest thread: no hub)."""
        values = np.asarray(values, dtype=np.float64).reshape(-1)
        mean = float(values.mean()) if values.size else 0.0
        if mean <= 0:
            return 0.0, 0.0, 0.0
        q1, q3 = np.percentile(values, [25, 75])
        sd = (q3 - q1) / 1.349  # robust to the hubs, which the hub part carries
        # The heaviest virtual cell's excess = its Gaussian extreme (at most
        # the excess itself) + a hub part; so at kappa = 1 on the same cells
        # the busiest target cell is exactly the heaviest virtual one.
        excess = float(values.max()) - mean
        z_profile = extreme_z(values.size)
        gaussian_profile = min(excess, z_profile * sd)
        hub = excess - gaussian_profile
        widen = math.sqrt(self.kappa) * self.widening
        gaussian = gaussian_profile * (extreme_z(self.cells) / z_profile if z_profile else 1.0) * widen
        return (mean * self.kappa, mean * self.kappa + gaussian + hub * self.hub_growth,
                mean * self.kappa + extreme_z(group) * min(sd, excess / max(z_profile, 1.0)) * widen)
