"""What one root's executed run keeps, whatever the algorithm's timing:
the BFS state (parents, visited, frontier), the level records and the
level's bookkeeping, and the run itself (every node's program on the
engine). The cp1d-* and lin1d runs build on it."""

from __future__ import annotations

import numpy as np

from ..bfs.direction import TOP_DOWN
from ..engine import NULL_RECORDER, Simulation, run_node_programs
from ..graph import Graph
from ..records import LevelRecord, RootRun


class RootSearch:
    """A root's search on a simulation. Subclasses provide
    ``node_program(rank)``, a simpy process per node that ends when the
    search does."""

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
        self._level = 0
        self._level_start = 0.0
        self._done = False

    def node_program(self, rank: int):  # pragma: no cover - interface
        raise NotImplementedError

    def execute(self) -> RootRun:
        time_s = run_node_programs(self.ctx, self.node_program, self.N)
        return RootRun(root=self.root, parent=self.parent, time_s=time_s, levels=self.records)
