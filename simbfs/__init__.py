"""simbfs: a discrete-event simulator of supercomputers running Graph500 BFS."""

__version__ = "0.1.0"
