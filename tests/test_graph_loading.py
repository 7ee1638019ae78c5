"""load_graph: memory check before allocating, atomic on-disk cache."""

import tracemalloc

import numpy as np
import pytest

import simbfs.graph.loading as loading
import simbfs.graph.memory as memory
from simbfs.errors import UserError
from simbfs.graph import GraphSpec, estimate_memory_bytes, generate_graph, load_graph


def forbid_generation(monkeypatch):
    def fail(spec):
        raise AssertionError("graph was generated instead of read from cache")
    monkeypatch.setattr(loading, "generate_graph", fail)


def test_second_load_reads_cache(tmp_path, monkeypatch):
    spec = GraphSpec("kronecker", 8, seed=3)
    messages = []
    first = load_graph(spec, tmp_path, progress=messages.append)
    assert (tmp_path / spec.cache_key()).exists()
    assert any("generating kronecker scale 8" in message for message in messages)
    forbid_generation(monkeypatch)
    second = load_graph(spec, tmp_path)
    for name in ("indptr", "indices", "endpoint_count"):
        assert np.array_equal(getattr(first, name), getattr(second, name))
    assert np.array_equal(first.edges.src, second.edges.src)
    assert np.array_equal(first.edges.dst, second.edges.dst)
    assert second.num_input_edges == first.num_input_edges
    assert list(tmp_path.iterdir()) == [tmp_path / spec.cache_key()]


def test_graphs_are_read_only_generated_or_mapped(tmp_path, monkeypatch):
    """A cached graph is mapped from its files, a generated one built in
    memory: both are plain read-only arrays, so code that writes into a
    graph fails on either, and a search gives the same result on both."""
    from simbfs.algorithms import get_algorithm
    from simbfs.engine import Simulation
    from simbfs.machine import load_machine
    spec = GraphSpec("kronecker", 9)
    generated = load_graph(spec, tmp_path)
    forbid_generation(monkeypatch)
    mapped = load_graph(spec, tmp_path)
    for graph in (generated, mapped):
        for array in (graph.indptr, graph.indices, graph.edges.src, graph.edges.dst, graph.endpoint_count):
            assert type(array) is np.ndarray and not array.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            graph.indices[0] = 0
    sim = Simulation(load_machine("bluegene_q"), 32)
    runs = [get_algorithm("cp1d-spi").run(sim, graph, 3) for graph in (generated, mapped)]
    assert np.array_equal(runs[0].parent, runs[1].parent) and runs[0].time_s == runs[1].time_s


def test_cache_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBFS_CACHE", str(tmp_path))
    spec = GraphSpec("uniform", 6, arity=2.0)
    load_graph(spec)
    assert (tmp_path / spec.cache_key()).exists()


def test_corrupt_cache_is_regenerated(tmp_path):
    spec = GraphSpec("kronecker", 6)
    path = tmp_path / spec.cache_key()
    path.mkdir()
    (path / "key.txt").write_text(f"{spec.cache_key()}\n64\n")
    (path / "indices.npy").write_bytes(b"not an array")
    graph = load_graph(spec, tmp_path)
    expected = generate_graph(spec)
    assert np.array_equal(graph.indices, expected.indices)
    assert np.array_equal(np.load(path / "indices.npy"), expected.indices)


def test_absurd_scale_rejected_before_allocating(tmp_path, monkeypatch):
    forbid_generation(monkeypatch)
    with pytest.raises(UserError) as error:
        load_graph(GraphSpec("kronecker", 40), tmp_path)
    message = str(error.value)
    assert "scale 40" in message and "GiB" in message and "smaller --scale" in message


def test_memory_check_uses_available_memory(tmp_path, monkeypatch):
    forbid_generation(monkeypatch)
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: 1 << 20)
    with pytest.raises(UserError, match="only 0.0 GiB is available"):
        load_graph(GraphSpec("kronecker", 10), tmp_path)


def test_estimate_is_conservative():
    spec = GraphSpec("kronecker", 15)
    tracemalloc.start()
    try:
        generate_graph(spec)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < estimate_memory_bytes(spec)
    # Conservative but not absurd: within an order of magnitude of the data.
    assert estimate_memory_bytes(spec) < 10 * peak + (512 << 20)


def test_released_pages_read_the_same_values(tmp_path):
    """release_pages drops a mapped graph's pages from the process, not its
    values: every array reads the same afterwards; arrays in ordinary
    memory (a generated graph, a writable copy) are never advised, since
    the same advice would zero anonymous memory."""
    from simbfs.graph.mapped import release_pages
    spec = GraphSpec("kronecker", 10)
    generated = load_graph(spec, tmp_path)
    mapped = load_graph(spec, tmp_path)
    names = ("indptr", "indices", "endpoint_count")
    expected = {name: np.array(getattr(generated, name)) for name in names}
    expected["src"], expected["dst"] = np.array(generated.edges.src), np.array(generated.edges.dst)
    arrays = {name: getattr(mapped, name) for name in names} | {"src": mapped.edges.src, "dst": mapped.edges.dst}
    for name, array in arrays.items():
        assert np.array_equal(array, expected[name])  # touched: resident
        assert release_pages(array), name
        assert release_pages(array[5:1000]), name  # a slice (a validator's batch)
        assert np.array_equal(array, expected[name]), name
    for array in (generated.indices, generated.edges.src, expected["indices"], np.zeros(0)):
        before = np.array(array)
        assert not release_pages(array)
        assert np.array_equal(array, before)
    assert not release_pages(None)
