"""The simpy engine: topologies, network, collectives, node-internal devices, simulation."""

from .collectives import CollectiveResult, Collectives
from .devices import DEVICES, DMAEngine, SharedMemoryPort
from .costs import ExchangeCost
from .messaging import DirectPackets, MessagingLayer, MPIMessages
from .network import Network
from .recorder import NULL_RECORDER, NullRecorder, Span, TimelineRecorder
from .simulation import SimContext, Simulation, run_node_programs
from .topology import TOPOLOGIES, Crossbar, FatTree, Topology, Torus, make_topology

__all__ = [
    "CollectiveResult", "Collectives", "Crossbar", "DEVICES", "FatTree", "DirectPackets", "DMAEngine", "ExchangeCost",
    "MessagingLayer", "MPIMessages", "Network",
    "NULL_RECORDER", "NullRecorder", "Span", "TimelineRecorder",
    "SharedMemoryPort", "SimContext", "Simulation",
    "run_node_programs", "TOPOLOGIES", "Topology", "Torus", "make_topology",
]
