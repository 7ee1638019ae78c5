"""A non-blocking crossbar: one hop between any two nodes."""

from __future__ import annotations

import numpy as np

from ...machine.model import NetworkModel
from .base import Topology


class Crossbar(Topology):
    """Every node has one full-duplex port into a non-blocking switch.

    A message takes one hop. The switch has no internal links to contend
    for: contention happens only at the nodes' injection and ejection ports,
    which the network prices for every topology.
    """

    name = "crossbar"

    def __init__(self, nodes: int, network: NetworkModel | None = None):
        super().__init__(nodes, network)
        self.num_links = 0

    def hops(self, src, dst):
        return np.where(np.asarray(src) == np.asarray(dst), 0, 1)

    def route(self, src: int, dst: int) -> list[int]:
        return []

    def pair_link_loads(self, senders, receivers, nbytes) -> np.ndarray:
        return np.zeros(0)

    def hop_distribution(self) -> np.ndarray:
        return np.array([0.0, 1.0])

    def uniform_max_link_load(self, pair_bytes: float) -> float:
        return 0.0

    def hot_link_shares(self) -> tuple[float, float]:
        return 0.0, 0.0  # no links of its own: the ports carry everything

    def group_max_link_load(self, group_size: int, within_pair_bytes: float,
                            across_pair_bytes: float = 0.0) -> float:
        return 0.0
