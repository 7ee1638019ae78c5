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
* one bulk exchange: ``pair_link_loads(senders, receivers, nbytes)`` takes
  the pairs that talk and their bytes (engine/traffic.py: only those pairs,
  so that its memory follows the traffic, never N x N) and returns the
  bytes every directed link carries (flow level, no per-message work); a
  node's bytes to itself stay home. The base class's ``link_loads(matrix)``
  is the same for a dense N x N matrix (small machines and tests);
* closed forms, for any machine size without enumerating pairs:
  ``hop_distribution()`` (the share of ordered pairs of distinct nodes at
  each hop count), ``uniform_max_link_load(pair_bytes)`` (the busiest
  link's bytes when every ordered pair exchanges ``pair_bytes``) and
  ``hot_link_shares()`` (the largest share of one node's traffic to (from)
  all others that crosses a single one of its own links), and
  ``group_max_link_load(group_size, within_pair_bytes, across_pair_bytes)``
  (the busiest link's bytes when nodes form groups of ``group_size``
  consecutive ids, the last possibly partial, and every node sends
  ``within_pair_bytes`` to each other member of its group and
  ``across_pair_bytes`` to the node at its own position, id mod
  ``group_size``, in every other group: a relay through groups, such as
  lin1d's). The base class answers the last one for groups of the whole
  machine from ``uniform_max_link_load`` and otherwise by enumeration
  (``link_loads`` of the explicit matrix, ``group_traffic``) up to
  ``ENUMERATION_LIMIT`` nodes, raising NotImplementedError beyond; a
  topology that projections use at larger sizes gives it a closed form.

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

# the largest machine whose traffic matrix the base class enumerates (N x N floats)
ENUMERATION_LIMIT = 4096


def group_traffic(nodes: int, group_size: int, within_pair_bytes: float, across_pair_bytes: float = 0.0) -> np.ndarray:
    """The N x N matrix of ``Topology.group_max_link_load``'s pattern:
    ``within_pair_bytes`` between distinct members of a group of
    ``group_size`` consecutive ids, ``across_pair_bytes`` between nodes at
    the same position (id mod group_size) of different groups."""
    M = max(1, min(int(group_size), nodes))
    ids = np.arange(nodes)
    same_group = (ids[:, None] // M) == (ids[None, :] // M)
    same_position = (ids[:, None] % M) == (ids[None, :] % M)
    traffic = within_pair_bytes * same_group + across_pair_bytes * (same_position & ~same_group)
    np.fill_diagonal(traffic, 0.0)
    return traffic


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

    def pair_link_loads(self, senders: np.ndarray, receivers: np.ndarray,
                        nbytes: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def link_loads(self, traffic: np.ndarray) -> np.ndarray:
        """Bytes per directed link for a dense N x N matrix of bytes: its
        nonzero pairs' :meth:`pair_link_loads`."""
        traffic = np.asarray(traffic, dtype=np.float64)
        senders, receivers = np.nonzero(traffic)
        return self.pair_link_loads(senders, receivers, traffic[senders, receivers])

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

    def group_max_link_load(self, group_size: int, within_pair_bytes: float,
                            across_pair_bytes: float = 0.0) -> float:
        """Bytes on the busiest link when nodes form groups of
        ``group_size`` consecutive ids (the last possibly partial) and every
        node sends ``within_pair_bytes`` to each other member of its group
        and ``across_pair_bytes`` to the node at its own position (id mod
        group_size) in every other group. A group of the whole machine is
        ``uniform_max_link_load``; otherwise this enumerates up to
        ENUMERATION_LIMIT nodes and raises NotImplementedError beyond."""
        if group_size >= self.nodes:
            return float(self.uniform_max_link_load(within_pair_bytes))
        if self.nodes > ENUMERATION_LIMIT:
            raise NotImplementedError(f"{self.describe()} has no closed form for the busiest link of groups of "
                                      f"{group_size} nodes, and {self.nodes} nodes are too many to enumerate "
                                      f"(at most {ENUMERATION_LIMIT})")
        traffic = group_traffic(self.nodes, group_size, within_pair_bytes, across_pair_bytes)
        return float(self.link_loads(traffic).max(initial=0.0))

    @cached_property
    def hop_matrix(self) -> np.ndarray:
        """Hops between every pair of nodes (uint8/uint16), computed once:
        N x N, for small machines and tests; the engine asks :meth:`hops`
        of the pairs that talk."""
        ids = np.arange(self.nodes)
        out = self.hops(ids[:, None], ids[None, :])
        return out.astype(np.uint16 if out.max(initial=0) > 255 else np.uint8)

    def describe(self) -> str:
        return self.name
