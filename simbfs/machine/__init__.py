"""Machine models: YAML files validated into immutable dataclasses."""

from .loader import bundled_machines, load_machine, machines_dir
from .model import Machine

__all__ = ["Machine", "bundled_machines", "load_machine", "machines_dir"]
