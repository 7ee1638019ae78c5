"""Interconnect topologies, by name: the ``network.topology`` of a machine file.

base.py states the contract every topology implements; each topology
module declares its own machine-file parameters. Register a new one here
(docs/howto/add-a-topology.md).
"""

from __future__ import annotations

from ...machine.model import NetworkModel
from .base import Topology
from .crossbar import Crossbar
from .fat_tree import FatTree
from .torus import Torus

TOPOLOGIES: dict[str, type[Topology]] = {
    "crossbar": Crossbar,
    "fat_tree": FatTree,
    "torus": Torus,
}


def make_topology(network: NetworkModel, nodes: int) -> Topology:
    return TOPOLOGIES[network.topology](nodes, network)


__all__ = ["TOPOLOGIES", "Crossbar", "FatTree", "Topology", "Torus", "make_topology"]
