"""The contract of a node-internal device.

A device is hardware inside a node that moves data or runs work on the
node's behalf, with its own timing: a DMA engine, a cluster of CPEs, a
GPU with its PCIe link. Each is a class registered in
:data:`simbfs.engine.devices.DEVICES` under the name of its machine-file
section. The simulation attaches a device to every node of every machine
whose file has that section, so neither the engine nor the machine model
hard-wires any of them.

A device class provides:

``SECTION``
    its :class:`~simbfs.machine.sections.MachineSection`: the parameters
    it reads from the machine file (each with a source), their checks, and
    the frozen model built from them (``machine.section(SECTION.name)``).
``attach(env, machine, nodes, recorder)``
    one instance per node (a list indexed by rank), living in the simpy
    environment ``env`` of one BFS run. Instances that share hardware (the
    Cell's SPEs share one memory port) share it here. Every operation a
    device performs is reported to ``recorder`` as a span of (node,
    resource, start, end, what), after its timing is fixed, so that a
    recorder never changes timing.

Pricing lives in :mod:`simbfs.engine.costs` as pure functions, so that a
projection prices the same operation without building an environment.
"""

from __future__ import annotations

from typing import ClassVar

from ...machine.sections import MachineSection


class Device:
    """Base class of node-internal devices; see the module docstring."""

    SECTION: ClassVar[MachineSection]

    @classmethod
    def attach(cls, env, machine, nodes: int, recorder) -> list:  # pragma: no cover - interface
        raise NotImplementedError
