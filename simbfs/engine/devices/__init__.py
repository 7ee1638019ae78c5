"""Node-internal devices, by machine-file section (see base.py).

Register a new device class here; its section then becomes part of every
machine file's schema and it is attached to each node of a machine that has
the section.
"""

from __future__ import annotations

from ...machine.sections import register_section
from .base import Device
from .cpe_cluster import CPECluster, CPEClusterModel, CPEClusters
from .dma import DMA, DMAEngine, DMAModel, SharedMemoryPort
from .gpu import GPU, GPUDevice, GPUModel, Processor

DEVICES: dict[str, type[Device]] = {DMA.SECTION.name: DMA, CPECluster.SECTION.name: CPECluster,
                                     GPUDevice.SECTION.name: GPUDevice}
for _device in DEVICES.values():
    register_section(_device.SECTION)


def attach_devices(env, machine, nodes: int, recorder) -> dict[str, list]:
    """Every device the machine has, attached to each of ``nodes`` nodes:
    section name -> list of per-node instances."""
    return {name: device.attach(env, machine, nodes, recorder)
            for name, device in DEVICES.items() if machine.section(name) is not None}


__all__ = ["CPECluster", "CPEClusterModel", "CPEClusters", "DEVICES", "DMA", "DMAEngine", "DMAModel", "Device", "GPU",
           "GPUDevice", "GPUModel", "Processor", "SharedMemoryPort", "attach_devices"]
