"""The one root-search harness every algorithm package uses.

A root's search is the same walk in every package, executed or projected:
start from the root, price a level, claim its new vertices, choose the next
direction, and stop when a level claims none. What differs is only how a
level is worked and priced, so the walk is written here once:

* :class:`RootSearch` is an executed run's walk on the engine. A subclass
  writes ``node_program(rank)`` (one simpy process per node) and, when a
  level has ended, calls :meth:`RootSearch.close_level` with the level's
  record and claims. The recorder hears of each level (``level_done``).
* :func:`walk_root` is a projection's walk over the profile graph. The
  projection passes ``price(step)``, which works and prices one
  :class:`LevelStep` at the target; an ``on_level`` callback sees every
  level with the details the pricing returned beside its record, so that
  experiments can keep them without copying the loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..bfs.direction import TOP_DOWN
from ..engine import NULL_RECORDER, Simulation, run_node_programs
from ..graph import Graph
from ..records import LevelRecord, RootRun


class RootSearch:
    """A root's executed search on a simulation.

    The search state is public and owned by this class: ``parent``,
    ``visited``, ``frontier`` (the current level's vertices), ``direction``,
    ``level`` (its index), ``level_start`` (simulated time it began),
    ``done`` (no level left), and ``records`` (one LevelRecord per finished
    level). Subclasses read it and change it only through
    :meth:`close_level`.

    Subclasses provide ``node_program(rank)``, a simpy process per node
    that runs levels until ``done``."""

    def __init__(self, sim: Simulation, graph: Graph, root: int, recorder=NULL_RECORDER):
        self.sim = sim
        self.machine = sim.machine
        self.N = sim.nodes
        self.n = graph.num_vertices
        self.ctx = sim.context(recorder)
        self.recorder = recorder
        self.root = root
        self.parent = np.full(self.n, -1, dtype=np.int64)
        self.parent[root] = root
        self.visited = np.zeros(self.n, dtype=bool)
        self.visited[root] = True
        self.frontier = np.array([root], dtype=np.int64)
        self.direction = TOP_DOWN
        self.records: list[LevelRecord] = []
        self.level = 0
        self.level_start = 0.0
        self.done = False

    def node_program(self, rank: int):  # pragma: no cover - interface
        raise NotImplementedError

    def close_level(self, record: LevelRecord, new_vertices: np.ndarray, new_parents: np.ndarray,
                    next_direction: str = TOP_DOWN) -> None:
        """End the current level: keep its ``record`` (and tell the
        recorder), claim ``new_vertices`` with their ``new_parents``, and make
        them the next level's frontier, searched in ``next_direction``. The
        search is done when a level claims no vertex."""
        self.records.append(record)
        self.ctx.recorder.level_done(record)
        self.parent[new_vertices] = new_parents
        self.visited[new_vertices] = True
        self.frontier = new_vertices
        self.direction = next_direction
        self.level += 1
        self.level_start = self.ctx.env.now
        self.done = len(new_vertices) == 0

    def execute(self) -> RootRun:
        time_s = run_node_programs(self.ctx, self.node_program, self.N)
        return RootRun(root=self.root, parent=self.parent, time_s=time_s, levels=self.records)


@dataclass(frozen=True)
class LevelStep:
    """One level of a projection's walk over the profile graph.

    ``visited`` is the walk's array (read it; the walk marks the claims).
    ``seed``: whether the level is still a seed level, one whose frontier
    is the same handful of vertices at any scale: true from the root until
    the frontier first exceeds sqrt(n) vertices or a level runs bottom-up
    (which sweeps every unvisited vertex)."""

    root: int
    level: int
    frontier: np.ndarray
    visited: np.ndarray
    direction: str
    seed: bool


@dataclass(frozen=True)
class Walk:
    """A projection's finished walk of one root: ``visited`` (the profile
    vertices reached), its level ``records`` and their summed ``time_s``."""

    root: int
    visited: np.ndarray
    records: list
    time_s: float

    def target_edges(self, graph: Graph, edgefactor: int, target_vertices: float) -> float:
        """The input edges of the root's component at the target: the
        profile's share of input edges in the component, times the target's
        edgefactor * vertices."""
        return graph.input_edges_in_component(self.visited) / graph.num_input_edges * edgefactor * target_vertices


def walk_root(graph: Graph, root: int, price: Callable, *, next_direction: Callable | None = None,
              on_level: Callable | None = None) -> Walk:
    """Walk ``root``'s BFS on the profile ``graph`` level by level.

    ``price(step)`` works and prices a :class:`LevelStep` and returns
    ``(new_vertices, record, details)``: the level's claims in the profile,
    its LevelRecord at the target, and whatever else the projection wants
    to show (None if nothing). ``next_direction(step, new_vertices)`` chooses
    the next level's direction (default: always top-down); it is called
    after the claims are marked visited. ``on_level(step, record, details)``
    is called for every level, in order."""
    n = graph.num_vertices
    visited = np.zeros(n, dtype=bool)
    visited[root] = True
    frontier = np.array([root], dtype=np.int64)
    direction, seed = TOP_DOWN, True
    records, total, level = [], 0.0, 0
    sqrt_n = math.sqrt(n)
    while len(frontier):
        seed = seed and len(frontier) <= sqrt_n and direction == TOP_DOWN
        step = LevelStep(root=root, level=level, frontier=frontier, visited=visited, direction=direction, seed=seed)
        new, record, details = price(step)
        records.append(record)
        total += record.time_s
        if on_level is not None:
            on_level(step, record, details)
        visited[new] = True
        direction = next_direction(step, new) if next_direction is not None else TOP_DOWN
        frontier = new
        level += 1
    return Walk(root=root, visited=visited, records=records, time_s=total)
