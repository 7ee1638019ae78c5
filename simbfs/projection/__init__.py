"""What every projection shares (docs/background/projection.md).

A projection predicts a run too large to execute here from a real BFS at a
smaller *profile* scale, and says "projected" in every output. Each paper
algorithm's package holds its own projection (``algorithms/<family>/
project*.py``) and prices the target with the same pure cost functions as
its executed run; this package holds what they have in common:

* how a Graph500 Kronecker graph grows with scale (:class:`Growth`, from
  the closed forms of simbfs.graph.kronecker_theory) and per-vertex work
  moments (:class:`Moments`);
* how per-vertex work adds up on a target node: the mean node and the
  busiest one (:func:`node_load`, :func:`extreme_z`);
* expected packet counts (:func:`poisson_ceil_mean`);
* the busiest node's software overhead in an exchange
  (:func:`busiest_node_overhead_s`);
* closed forms of an exchange's network loads on the target's topology
  (:func:`busiest_link_seconds`, :func:`longest_route_hops`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..engine.costs import link_seconds
from ..engine.topology import Topology
from ..graph.kronecker_theory import degree_moments, mean_thread_blocks


@dataclass(frozen=True)
class Growth:
    """How a Kronecker graph's (simple) degrees change from the profile
    scale to the target scale: closed forms of simbfs.graph.kronecker_theory,
    which match generated graphs within 1% at scales 14 to 22.

    ``mean`` and ``second`` are over all vertices, so they carry a level's
    edges over (edges = vertices x mean degree). But fewer and fewer
    vertices have an edge as the scale grows (62% at scale 20, 28% at 40),
    and only those are ever reached: a level's share of the *vertices* grows
    by ``vertices``, the ratio of those shares, and a reached vertex's
    degree by ``reached_mean`` = mean / vertices, so that the edges are the
    same either way."""

    second: float  # ratio of E[d^2] over all vertices
    mean: float  # ratio of the mean degree over all vertices
    largest: float  # ratio of the heaviest vertex's degree
    profile_mean_degree: float
    profile_max_degree: float
    vertices: float = 1.0  # ratio of the shares of vertices with an edge
    profile_scale: int | None = None
    target_scale: int | None = None
    edgefactor: int = 16

    @classmethod
    def between(cls, profile_scale: int, target_scale: int, edgefactor: int) -> "Growth":
        before, after = degree_moments(profile_scale, edgefactor), degree_moments(target_scale, edgefactor)
        return cls(second=after.second / before.second, mean=after.mean / before.mean,
                   largest=after.largest / before.largest,
                   profile_mean_degree=before.mean / before.nonisolated,  # of a vertex with an edge
                   profile_max_degree=before.largest, vertices=after.nonisolated / before.nonisolated,
                   profile_scale=profile_scale, target_scale=target_scale, edgefactor=edgefactor)

    @property
    def reached_mean(self) -> float:
        """Growth of the mean degree of the vertices that have an edge."""
        return self.mean / self.vertices

    def thread_blocks(self, threads: int) -> float:
        """Growth of the mean number of thread blocks (headers) a vertex
        with an edge has: sub-linear in the degree, since a vertex has at
        most ``threads`` blocks (kronecker_theory.mean_thread_blocks)."""
        if self.profile_scale is None or self.target_scale is None:
            return 1.0
        return (mean_thread_blocks(self.target_scale, threads, self.edgefactor)
                / mean_thread_blocks(self.profile_scale, threads, self.edgefactor))

    def of_vertex(self, degree: float) -> float:
        """Growth of a value held by a reached vertex of ``degree``: the
        reached mean's for a vertex of mean degree, the hub's for the
        heaviest, log-interpolated in between."""
        low, high = self.profile_mean_degree, self.profile_max_degree
        typical = self.reached_mean
        if degree <= low or high <= low:
            return typical
        position = min(1.0, math.log(degree / low) / math.log(high / low))
        return typical * (self.largest / typical) ** position


def grown_degrees(growth: Growth, degrees: np.ndarray) -> np.ndarray:
    """Each degree grown to the target scale with its own vertex's growth."""
    values, inverse = np.unique(np.asarray(degrees, dtype=np.float64), return_inverse=True)
    return (values * np.array([growth.of_vertex(float(d)) for d in values]))[inverse.reshape(-1)]


# Per-vertex values are kept individually for levels touching at most this
# many vertices (they may be seed levels).
SEED_ITEMS = 1 << 16


@dataclass
class Moments:
    """Sum, sum of squares and maximum of a per-vertex quantity over n
    vertices, and the degree of the vertex holding the maximum."""

    total: float
    squares: float
    largest: float
    largest_degree: float
    # (value, degree) of every vertex with a nonzero value, when there are
    # few (the seed levels around the root: search.LevelStep.seed)
    items: np.ndarray | None = None

    @classmethod
    def of(cls, values: np.ndarray, degree: np.ndarray) -> "Moments":
        values = np.asarray(values, dtype=np.float64)
        if values.size == 0:
            return cls(0.0, 0.0, 0.0, 0.0)
        top = int(values.argmax())
        nonzero = np.flatnonzero(values)
        items = np.stack([values[nonzero], degree[nonzero]], axis=1) if len(nonzero) <= SEED_ITEMS else None
        return cls(float(values.sum()), float(np.dot(values, values)), float(values[top]), float(degree[top]),
                   items)


@dataclass
class NodeLoad:
    mean: float
    busiest: float


def node_load(moments: Moments, profile_vertices: int, target_vertices: int, nodes: int,
              growth: Growth, mean_growth: float = 1.0) -> NodeLoad:
    """Steps 2 and 3: the mean and busiest node's sum of a per-vertex quantity.
    ``mean_growth``: how its mean over all vertices grows: ``growth.mean``
    for work proportional to degree, ``growth.vertices`` for work per
    reached vertex (fewer vertices have an edge at larger scales)."""
    if moments.total == 0:
        return NodeLoad(0.0, 0.0)
    mean = moments.total / profile_vertices * mean_growth
    second = moments.squares / profile_vertices * growth.second
    largest = moments.largest * growth.of_vertex(moments.largest_degree)
    variance = max(second - mean * mean, 0.0)
    k = target_vertices / nodes
    gaussian = k * mean + extreme_z(nodes) * math.sqrt(variance * k)
    heaviest = largest + mean * max(k - 1, 0.0)
    return NodeLoad(mean=k * mean, busiest=max(gaussian, heaviest, k * mean))


def busiest_node_overhead_s(overhead, typical_out: float, typical_in: float, busiest_out: float,
                            busiest_in: float, *, independent: bool = False) -> float:
    """The busiest node's per-packet (or per-message) software overhead in
    an exchange, from the typical and the busiest node's counts out and in;
    ``overhead(out, in)`` prices counts with the machine's messaging layer
    (engine/messaging.py). Two rules, by how a node's two sides relate:

    * ``independent=False``: one node is the busiest sender *or* the busiest
      receiver, and does the other side like a typical node (bsp1d's and
      cp1d-mpi's levels: the owner of a frontier hub sends, its
      neighbours' owners, elsewhere, receive): the larger of the two
      pairings;
    * ``independent=True``: a node's counts out and in are independent sums
      (cp2d's grid patterns), so their excesses over the typical node add
      in quadrature."""
    if independent:
        return overhead(typical_out, typical_in) + math.hypot(
            overhead(max(busiest_out - typical_out, 0.0), 0.0), overhead(0.0, max(busiest_in - typical_in, 0.0)))
    return max(overhead(busiest_out, typical_in), overhead(typical_out, busiest_in))


def extreme_z(count: int) -> float:
    """Typical largest of ``count`` standard normal draws (0 for one)."""
    if count < 2:
        return 0.0
    if count == 2:
        return 1 / math.sqrt(math.pi)  # exact mean of the larger of two
    a = math.sqrt(2 * math.log(count))
    # Gumbel approximation of the maximum: location plus Euler's gamma / a (its mean)
    return a - (math.log(math.log(count)) + math.log(4 * math.pi)) / (2 * a) + 0.5772156649 / a


# Poisson rates above this are priced by their normal limit.
POISSON_EXACT_MAX = 5e3
# log(x!) for x = 0, 1, ...: math.lgamma's values, tabled once (they were
# a Python list per call, 60% of a cp1d-spi projection's time), so that the
# sums below are the same arithmetic on the same numbers.
_LOG_FACTORIAL = np.array([math.lgamma(v + 1) for v in
                           range(int(POISSON_EXACT_MAX + 12 * math.sqrt(POISSON_EXACT_MAX) + 13))])
_COUNTS = np.arange(len(_LOG_FACTORIAL), dtype=np.float64)


def poisson_ceil_mean(rate: float, unit: float) -> float:
    """E[ceil(X / unit)] for X ~ Poisson(rate) edges and ``unit`` edges per packet."""
    return _poisson_ceil_mean(float(rate), float(unit))


# A pure function of two numbers, asked again with the same ones by every
# re-pricing of the same work (a calibration's projections, a sweep's
# points): its values are kept, a bounded number of them.
@functools.lru_cache(maxsize=1 << 16)
def _poisson_ceil_mean(rate: float, unit: float) -> float:
    if rate <= 0:
        return 0.0
    if rate > POISSON_EXACT_MAX:
        return rate / unit + 0.5
    top = int(rate + 12 * math.sqrt(rate) + 12)
    x = _COUNTS[:top + 1]
    log_pmf = x * math.log(rate) - rate - _LOG_FACTORIAL[:top + 1]
    return float(np.dot(np.exp(log_pmf), np.ceil(x / unit)))


def busiest_link_seconds(topology: Topology, net, all_wire: float, out_wire: float, in_wire: float,
                         packets: float | None = None) -> float:
    """The busiest link's time for ``all_wire`` bytes spread uniformly over
    all pairs, when the busiest sender sends ``out_wire`` and the busiest
    receiver gets ``in_wire``: uniform background traffic (which already
    holds a typical node's own traffic), plus, on the busiest sender's
    first-hop (or the busiest receiver's last-hop) link, that node's share
    of its traffic beyond a typical node's.

    With ``packets`` (the exchange's packets, when they go between random
    pairs, few of all pairs), the background is the busiest link's rather
    than a mean link's: a link carries about m = (uniform load) / (wire
    bytes per packet) of them, a Poisson count whose largest over the
    topology's links is about m + z sqrt(m) (z: extreme_z of the links).
    Executed at 16,384 nodes and scale 22, the busiest link of a bottom-up
    level carries some 20% more than the mean pattern's
    (docs/background/projection.md, "Checked against execution at the
    papers' node counts"); at the papers' scales m is in the millions and
    the term vanishes."""
    nodes = topology.nodes
    if nodes < 2 or all_wire <= 0:
        return 0.0
    background = topology.uniform_max_link_load(all_wire / (nodes * (nodes - 1)))
    if packets and background > 0 and topology.num_links > 1:
        per_link = background / (all_wire / packets)  # packets on a typical loaded link
        background *= 1.0 + extreme_z(topology.num_links) / math.sqrt(per_link)
    typical_wire = all_wire / nodes
    out_share, in_share = topology.hot_link_shares()
    excess = max((out_wire - typical_wire) * out_share, (in_wire - typical_wire) * in_share, 0.0)
    return link_seconds(background + excess, net)


def longest_route_hops(topology: Topology, talking_pairs: float) -> int:
    """The longest route among ``talking_pairs`` random pairs: the typical
    maximum of that many draws from the hop distribution."""
    cdf = np.cumsum(topology.hop_distribution())
    return int(np.searchsorted(cdf ** max(talking_pairs, 1.0), 0.5))
