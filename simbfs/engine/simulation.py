"""One simulated machine: its static parts and a fresh context per BFS run.

``Simulation`` holds what does not change between roots (the machine model,
the node count, the topology and its hop table). ``Simulation.context()``
makes a new simpy environment with its network, collectives and the
node-internal devices the machine has (engine/devices: DMA engines, ...), so
every root starts at time zero from an idle machine.
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass, field

import simpy

from ..errors import UserError
from ..machine.model import Machine
from .collectives import Collectives
from .devices import attach_devices
from .network import Network
from .recorder import NULL_RECORDER
from .topology import Topology, make_topology


@dataclass
class SimContext:
    env: simpy.Environment
    network: Network
    collectives: Collectives
    # machine-file section name -> one device instance per node ("dma": [DMAEngine, ...])
    devices: dict[str, list] = field(default_factory=dict)
    recorder: object = NULL_RECORDER


class _NotedInterrupt:
    """A SIGINT handler that only notes the signal."""

    def __init__(self):
        self.pending = False

    def __call__(self, signum, frame) -> None:
        self.pending = True


def run_to_end(env: simpy.Environment) -> None:
    """``env.run()``, stopped at once by Ctrl-C.

    simpy turns an exception raised inside a process into that process's
    failure, delivered later, so a KeyboardInterrupt that lands in one
    node's program lets every other node's program run on (13 s on a
    4,096-node level). Here the signal is only noted, and raised between
    two events. Only in the main thread, and only where Python's own
    handler is in place (a caller's handler is left alone)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        env.run()
        return
    noted = _NotedInterrupt()
    signal.signal(signal.SIGINT, noted)
    try:
        step = env.step
        while True:
            try:
                step()
            except simpy.core.EmptySchedule:
                return
            if noted.pending:
                raise KeyboardInterrupt
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run_node_programs(ctx: SimContext, program, nodes: int) -> float:
    """Start ``program(rank)`` as a process for every node, run the
    environment to its end and return the finish time. A node stuck in a
    collective would end the run early, silently: that is an error."""
    env = ctx.env
    processes = [env.process(program(rank)) for rank in range(nodes)]
    run_to_end(env)
    assert all(process.triggered for process in processes), "a node process did not finish its BFS"
    return env.now


class Simulation:
    def __init__(self, machine: Machine, nodes: int, topology: Topology | None = None):
        if nodes < 1:
            raise UserError(f"--nodes must be at least 1, got {nodes}")
        if nodes > machine.max_nodes:
            raise UserError(f"{machine.name} has at most {machine.max_nodes} nodes (nodes.max), you asked for {nodes}; "
                            f"use fewer nodes, or for a what-if raise the limit with --set nodes.max={nodes}")
        self.machine = machine
        self.nodes = nodes
        # the topology joins hosts; with one process per host (the usual case) a host is a node
        self.hosts = machine.network.hosts(nodes)
        self.topology = topology if topology is not None else make_topology(machine.network, self.hosts)

    def context(self, recorder=NULL_RECORDER) -> SimContext:
        """A fresh environment; ``recorder`` (see engine/recorder.py) observes
        the devices and whatever the algorithm reports."""
        env = simpy.Environment()
        network = Network(env, self.topology, self.machine.network, self.machine.messaging)
        collectives = Collectives(env, self.nodes, self.machine.collectives, network, recorder)
        devices = attach_devices(env, self.machine, self.nodes, recorder)
        return SimContext(env=env, network=network, collectives=collectives, devices=devices, recorder=recorder)
