"""The contract every interconnect topology implements.

A topology answers two kinds of question about the same routing, for the
two event granularities the engine uses (docs/background/simulation.md),
and a third kind for projections, which must answer for machines far too
large to enumerate:

* one message: ``route(src, dst)`` lists the directed link ids it crosses
  (point-to-point messages simulated one by one, Network.arrival_time);
  ``hops(src, dst)`` counts its router hops (vectorised over numpy arrays;
  hops without a contended link of their own, such as a crossbar's switch,
  are charged latency but no link time);
* one bulk exchange: ``link_loads(traffic)`` takes an N x N matrix of bytes
  and returns the bytes every directed link carries (flow level, no
  per-message work);
* closed forms, for any machine size without enumerating pairs:
  ``hop_distribution()`` (the share of ordered pairs of distinct nodes at
  each hop count), ``uniform_max_link_load(pair_bytes)`` (the busiest
  link's bytes when every ordered pair exchanges ``pair_bytes``) and
  ``hot_link_shares()`` (the largest share of one node's traffic to (from)
  all others that crosses a single one of its own links).

A topology is chosen by ``network.topology`` in a machine file and may
declare parameters of its own in ``PARAMETERS`` (name -> a declaration of
simbfs.machine.schema: Param, IntList, ShapeTable, ...). The loader accepts
them under ``network:`` only when that topology is chosen, hands the
validated values to ``check`` for cross-field problems, and keeps them in
``NetworkModel.topology_params``; ``__init__(nodes, network)`` reads them
from there and raises a UserError for a node count the topology cannot
build. Node ids are row-major coordinates where the topology has a shape.
Register a new topology in simbfs/engine/topology/__init__.py
(docs/howto/add-a-topology.md).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ...machine.model import NetworkModel


class Topology:
    """Base class; the module docstring states the whole contract."""

    name = "abstract"
    PARAMETERS: dict = {}  # the topology's own machine-file parameters under network:

    def __init__(self, nodes: int, network: NetworkModel | None = None):
        self.nodes = nodes

    @classmethod
    def check(cls, values: dict, add_problem) -> None:
        """Cross-field checks of the topology's validated parameters
        (``values``: name -> value, only those given); report each problem
        with ``add_problem(path, message)``."""

    num_links: int

    def hops(self, src, dst):  # pragma: no cover - interface
        raise NotImplementedError

    def route(self, src: int, dst: int) -> list[int]:  # pragma: no cover - interface
        raise NotImplementedError

    def link_loads(self, traffic: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def hop_distribution(self) -> np.ndarray:
        """P[h] = share of ordered pairs of distinct nodes that are h hops
        apart, computed without enumerating pairs (for any machine size)."""
        raise NotImplementedError

    def uniform_max_link_load(self, pair_bytes: float) -> float:
        """Bytes on the busiest link when every ordered pair of distinct
        nodes exchanges ``pair_bytes`` (closed form, any machine size)."""
        raise NotImplementedError

    def hot_link_shares(self) -> tuple[float, float]:
        """(out, in): the largest share of one node's traffic to (from) all
        N - 1 others that crosses a single one of its own links."""
        raise NotImplementedError

    @cached_property
    def hop_matrix(self) -> np.ndarray:
        """Hops between every pair of nodes (uint8/uint16), computed once."""
        ids = np.arange(self.nodes)
        out = self.hops(ids[:, None], ids[None, :])
        return out.astype(np.uint16 if out.max(initial=0) > 255 else np.uint8)

    def describe(self) -> str:
        return self.name
