"""Expected degrees of a Graph500 Kronecker graph, in closed form, at any scale.

The generator draws M = edgefactor * 2^s tuples; each picks, at every bit
level, a quadrant with probabilities A, B, C, D. A tuple joins vertex u
(source) and v (destination) with probability A^n00 B^n01 C^n10 D^n11, where
n_xy counts the bit levels at which u's bit is x and v's is y. Label
scrambling renames vertices and changes nothing here.

Vertices with the same number j of one-bits are alike. For a vertex u with j
ones and a vertex v with k ones that share i of them, the number of tuples
between them (either orientation) is Poisson with mean

    lambda = M (A^(s-j-k+i) B^(k-i) C^(j-i) D^i + A^(s-j-k+i) B^(j-i) C^(k-i) D^i),

and there are C(j, i) C(s - j, k - i) such v. The BFS runs on the *simple*
graph (duplicates and self-loops removed), where u's expected degree is

    E[d(u)] = sum over k, i of C(j, i) C(s - j, k - i) (1 - exp(-lambda)),

O(s^2) terms per class: scale 40 costs nothing.

Summing lambda over all v gives the tuples that touch u,

    Lambda_j = M ((A + B)^(s-j) (C + D)^j + (A + C)^(s-j) (B + D)^j),

so u is isolated with probability exp(-Lambda_j): the share of vertices
with at least one edge falls from 71% at scale 16 to 28% at scale 40. And
with u's neighbours split into T equal id ranges (cp1d's thread blocks),
u has entries in T (1 - exp(-Lambda_j / T)) of them on average. Both match
generated graphs within 0.1% and 2% at scales 14 to 18
(tests/test_graph_kronecker_theory.py). The multigraph's moments
(no 1 - exp) grow by 2 (A + B) (largest) and 2 ((A + B)^2 + (C + D)^2)
(second moment) per scale; the simple graph's grow faster at small scales,
where duplicates cap the hubs, and approach those rates slowly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .kronecker import GRAPH500_A, GRAPH500_B, GRAPH500_C, GRAPH500_D


@dataclass(frozen=True)
class DegreeMoments:
    mean: float  # expected degree of a random vertex (simple graph)
    second: float  # E[d^2] over vertices (of the expected degrees: a lower bound)
    largest: float  # expected degree of the heaviest vertex class (j = 0 one-bits)
    nonisolated: float = 1.0  # share of vertices with at least one edge


@lru_cache(maxsize=None)
def _log_factorials(n: int) -> np.ndarray:
    """log(k!) for k = 0..n, each math.lgamma(k + 1): a table, so that a
    binomial is three lookups instead of three calls per entry."""
    return np.array([math.lgamma(k + 1) for k in range(n + 1)])


def _log_binomial(n: int, k: np.ndarray) -> np.ndarray:
    """log(n choose k), elementwise over ``k`` (0 <= k <= n)."""
    table = _log_factorials(n)
    k = np.asarray(k)
    return table[n] - table[k] - table[n - k]


@lru_cache(maxsize=None)
def expected_simple_degrees(scale: int, edgefactor: int = 16) -> np.ndarray:
    """E[simple degree] of a vertex with j one-bits, for j = 0..scale."""
    s = scale
    m = edgefactor * 2.0**s
    log = {name: math.log(p) for name, p in (("a", GRAPH500_A), ("b", GRAPH500_B), ("c", GRAPH500_C),
                                               ("d", GRAPH500_D))}
    degrees = np.zeros(s + 1)
    k = np.arange(s + 1)[:, None]  # rows: the other end's one-bits
    for j in range(s + 1):
        # every (k, i) at once, elementwise exactly as one k at a time; the
        # entries outside max(0, j + k - s) <= i <= min(j, k) are never summed
        i = np.arange(j + 1)[None, :]
        zeros = s - j - k + i
        forward = zeros * log["a"] + (k - i) * log["b"] + (j - i) * log["c"] + i * log["d"]
        backward = zeros * log["a"] + (j - i) * log["b"] + (k - i) * log["c"] + i * log["d"]
        with np.errstate(over="ignore"):
            lam = m * (np.exp(forward) + np.exp(backward))
        rest = np.clip(k - i, 0, s - j)
        count = np.exp(_log_binomial(j, np.broadcast_to(i, rest.shape)) + _log_binomial(s - j, rest))
        missing = -np.expm1(-lam)
        total = 0.0
        for row in range(s + 1):
            low, high = max(0, j + row - s), min(j, row) + 1
            # fresh arrays, as the one-k-at-a-time loop made: the dot sees the same inputs
            total += float(np.dot(count[row, low:high].copy(), missing[row, low:high].copy()))
        # a tuple from u to itself is a self-loop, not an edge
        self_lam = 2 * m * math.exp((s - j) * log["a"] + j * log["d"])
        degrees[j] = total - (-math.expm1(-self_lam))
    return degrees


def _class_shares(scale: int) -> np.ndarray:
    """Share of the vertices with j one-bits, j = 0..scale."""
    j = np.arange(scale + 1)
    return np.exp(_log_binomial(scale, j) - scale * math.log(2))


def _touching_tuples(scale: int, edgefactor: int) -> np.ndarray:
    """Lambda_j: expected generated tuples with a vertex of class j at either end."""
    j = np.arange(scale + 1, dtype=np.float64)
    m = edgefactor * 2.0**scale
    a, b, c, d = GRAPH500_A, GRAPH500_B, GRAPH500_C, GRAPH500_D
    return m * ((a + b) ** (scale - j) * (c + d) ** j + (a + c) ** (scale - j) * (b + d) ** j)


def nonisolated_share(scale: int, edgefactor: int = 16) -> float:
    """Share of the vertices that have at least one edge."""
    return math.fsum(_class_shares(scale) * -np.expm1(-_touching_tuples(scale, edgefactor)))


def thread_blocks_per_vertex(scale: int, threads: int, edgefactor: int = 16) -> float:
    """Mean, over all vertices, of how many of the ``threads`` equal id
    ranges a vertex's neighbours fall in (cp1d's per-thread blocks, one
    header each; 0 for an isolated vertex)."""
    blocks = threads * -np.expm1(-_touching_tuples(scale, edgefactor) / threads)
    return math.fsum(_class_shares(scale) * blocks)


def mean_thread_blocks(scale: int, threads: int, edgefactor: int = 16) -> float:
    """The same, over the vertices that have an edge."""
    return thread_blocks_per_vertex(scale, threads, edgefactor) / nonisolated_share(scale, edgefactor)


def record_line_bytes(shares, block_means, line_bytes: float, header_bytes: float, entry_bytes: float) -> float:
    """Mean bytes a sweep that reads headers but not the entries after them
    pulls from memory per header, when each (vertex, thread block) record
    is a header followed by the vertex's entries in that block, stored one
    after another. A header begins a new cache line unless the record
    before it ended in the line it starts in, which a record of r bytes
    does with probability 1 - r / line: so a header costs min(line, r) of
    the record before it, on average E[min(line, header + entry x X)] over
    the records. A vertex class of share ``shares[j]`` has X ~
    Poisson(``block_means[j]``) entries in each block, and a record only
    where X >= 1."""
    shares = np.asarray(shares, dtype=np.float64)
    means = np.asarray(block_means, dtype=np.float64)
    whole = max(1, math.ceil((line_bytes - header_bytes) / entry_bytes))  # entries from which a record fills a line
    x = np.arange(1, whole, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_means = np.log(means)[:, None]
    pmf = np.exp(x * log_means - means[:, None] - np.array([math.lgamma(v + 1) for v in x]))
    record_bytes = header_bytes + entry_bytes * x
    # math.fsum, not a BLAS product: exactly rounded, so the same on every CPU
    below = np.array([1.0 - math.exp(-m) - math.fsum(row) for m, row in zip(means, pmf)])  # P(X >= whole)
    cost = np.array([math.fsum(row * record_bytes) for row in pmf]) + line_bytes * np.maximum(below, 0.0)
    records = -np.expm1(-means)
    weight = math.fsum(shares * records)
    if weight <= 0:  # no vertex has an entry: no record, a header alone
        return float(header_bytes)
    return math.fsum(shares * cost) / weight


@lru_cache(maxsize=64)  # a pure function of scalars, asked for at every pricing of a level
def header_line_bytes(scale: int, threads: int, line_bytes: float, header_bytes: float, entry_bytes: float,
                      edgefactor: int = 16) -> float:
    """record_line_bytes of cp1d's layout of a Kronecker graph: a class-j
    vertex's Lambda_j tuples spread over the ``threads`` blocks by neighbour
    id."""
    return record_line_bytes(_class_shares(scale), _touching_tuples(scale, edgefactor) / threads, line_bytes,
                             header_bytes, entry_bytes)


def degree_moments(scale: int, edgefactor: int = 16) -> DegreeMoments:
    degrees = expected_simple_degrees(scale, edgefactor)
    share = _class_shares(scale)  # vertices with j ones / n
    # math.fsum: exactly rounded, so the same on every CPU (a BLAS dot is not)
    return DegreeMoments(mean=math.fsum(share * degrees), second=math.fsum(share * degrees**2),
                         largest=float(degrees[0]), nonisolated=nonisolated_share(scale, edgefactor))
