"""Getting a Graph for a spec: generate it, or read it from the on-disk cache.

Generating scale 22 takes tens of seconds while reading it back takes about
a second, so built graphs are cached: one directory per graph, named by
GraphSpec.cache_key(), holding one plain .npy file per array (three to four
times faster to read than an .npz, which checksums every member) and the
key itself. A graph is written into a temporary directory renamed into
place, so a crash or a concurrent run never leaves a half-written graph under
the real name; an unreadable or mismatching one is simply regenerated.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import numpy as np

from simbfs.cache_entry import publish
from simbfs.graph.csr import Graph, build_csr
from simbfs.graph.edgelist import EdgeList
from simbfs.graph.kronecker import kronecker_edges
from simbfs.graph.memory import check_memory
from simbfs.graph.spec import KRONECKER, GraphSpec
from simbfs.graph.uniform import uniform_edges

CACHE_ENV_VAR = "SIMBFS_CACHE"
_ARRAYS = ("src", "dst", "indptr", "indices", "endpoint_count")
_KEY_FILE = "key.txt"


def default_cache_dir() -> Path:
    configured = os.environ.get(CACHE_ENV_VAR)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "simbfs"


def generate_edges(spec: GraphSpec) -> EdgeList:
    if spec.kind == KRONECKER:
        return kronecker_edges(spec.scale, spec.edgefactor, spec.seed)
    return uniform_edges(spec.scale, spec.arity, spec.seed)


def generate_graph(spec: GraphSpec) -> Graph:
    """Generate and build the graph, without touching the cache or checking memory."""
    return build_csr(spec, generate_edges(spec))


def _save(graph: Graph, path: Path) -> None:
    arrays = {"src": graph.edges.src, "dst": graph.edges.dst, "indptr": graph.indptr,
              "indices": graph.indices, "endpoint_count": graph.endpoint_count}

    def write(directory: Path) -> None:
        for name, array in arrays.items():
            np.save(directory / f"{name}.npy", array, allow_pickle=False)
        # Written last: a directory with a key file is complete.
        (directory / _KEY_FILE).write_text(f"{graph.spec.cache_key()}\n{graph.num_vertices}\n")

    publish(path, write, lambda entry: _load(graph.spec, entry) is not None)


def _load(spec: GraphSpec, path: Path) -> Graph | None:
    """The cached graph, or None if it is missing, corrupt or for another spec."""
    try:
        key, vertices = (path / _KEY_FILE).read_text().split()
        if key != spec.cache_key():
            return None
        num_vertices = int(vertices)
        # Mapped, not read: the pages come from the page cache as the run
        # touches them, with no copy into fresh memory (0.06-0.1 s of a
        # scale-20 command), and the arrays are read-only, as a graph is.
        # (viewed as plain arrays: np.memmap's subclass hooks cost on every
        # operation and would follow the arrays into every result)
        arrays = {name: np.load(path / f"{name}.npy", allow_pickle=False, mmap_mode="r").view(np.ndarray)
                  for name in _ARRAYS}
    except Exception:  # any unreadable entry is just a cache miss
        return None
    edges = EdgeList(src=arrays["src"], dst=arrays["dst"], num_vertices=num_vertices)
    consistent = (
        num_vertices == spec.num_vertices()
        and arrays["indptr"].shape == (num_vertices + 1,)
        and arrays["endpoint_count"].shape == (num_vertices,)
        and int(arrays["indptr"][-1]) == arrays["indices"].size
    )
    if not consistent:
        return None
    return Graph(
        spec=spec,
        num_vertices=num_vertices,
        num_input_edges=len(edges),
        indptr=arrays["indptr"],
        indices=arrays["indices"],
        edges=edges,
        endpoint_count=arrays["endpoint_count"],
    )


def load_graph(spec: GraphSpec, cache_dir: Path | None = None, *,
               progress: Callable[[str], None] | None = None) -> Graph:
    """The graph for `spec`, from the cache if possible; checks memory first."""
    report = progress or (lambda message: None)
    check_memory(spec)
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    path = directory / spec.cache_key()
    if path.exists():
        report(f"loading cached graph {path}")
        graph = _load(spec, path)
        if graph is not None:
            return graph
        report(f"cached graph {path} is unreadable or stale; regenerating")
    report(f"generating {spec.kind} scale {spec.scale} ...")
    graph = generate_graph(spec)
    try:
        _save(graph, path)
        report(f"cached graph in {path}")
    except OSError as error:
        # A read-only or full cache directory should not stop a simulation.
        report(f"could not write graph cache {path}: {error}")
    return graph
