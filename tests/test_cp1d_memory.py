"""What one node holds (simbfs/algorithms/cp1d/memory.py): the closed forms
against the structures the layout builds on real graphs, worked by hand,
and the lines a header sweep pulls."""

import numpy as np
import pytest

from simbfs.algorithms.cp1d.layout import Layout
from simbfs.algorithms.cp1d.memory import header_count, node_memory, stored_entries
from simbfs.graph import GraphSpec, generate_graph
from simbfs.machine import load_machine


@pytest.mark.parametrize("scale,threads", [(14, 64), (16, 64), (16, 16)])
def test_memory_model_counts_what_the_layout_allocates(scale, threads):
    """memory.py's closed forms against the structures Layout builds on a
    real graph: stored neighbours (the simple graph's, after duplicates and
    self-loops are dropped) and (vertex, thread block) headers."""
    graph = generate_graph(GraphSpec("kronecker", scale, seed=1))
    layout = Layout(graph, 16, threads, heavy_count=0, index_stride=64)
    tuples = 2 * graph.num_input_edges
    assert stored_entries(graph.num_vertices, tuples) == pytest.approx(len(graph.indices), rel=0.02)
    assert header_count(graph.num_vertices, tuples, threads) == pytest.approx(layout.blocks_of.sum(), rel=0.03)


def test_memory_model_of_a_uniform_graph_uses_its_own_degrees_not_kroneckers():
    """A uniform graph of 2^14 vertices is not a Kronecker graph of scale 14:
    its entries are its tuples' ends (few duplicates) and its headers the
    Poisson form of its mean degree (the Kronecker closed forms would be
    18% and 55% low)."""
    graph = generate_graph(GraphSpec("uniform", 14, arity=16, seed=1))
    layout = Layout(graph, 16, 64, heavy_count=0, index_stride=64)
    tuples = 2 * graph.num_input_edges
    assert stored_entries(graph.num_vertices, tuples, "uniform") == pytest.approx(len(graph.indices), rel=0.02)
    assert header_count(graph.num_vertices, tuples, 64, "uniform") == pytest.approx(layout.blocks_of.sum(), rel=0.03)


def test_memory_peak_is_the_structure_plus_the_larger_of_building_and_visiting():
    """Worked by hand for one node at scale 24 (2^24 vertices, 2^29 tuple
    ends): 8 B per stored entry and header, 8 B per 64 vertices of index,
    16 B per tuple while building; SPI buffers are 5 packets of 512 B per
    destination, MPI's two all-to-all buffers 8 B per stored entry each."""
    machine = load_machine("bluegene_q")
    n, ends = 2**24, 2**29
    entries, headers = stored_entries(n, ends), header_count(n, ends, 64)
    structure = 8 * entries + 8 * headers + 8 * n / 64
    spi = node_memory(machine, n, ends, 1, "spi")
    mpi = node_memory(machine, n, ends, 1, "mpi")
    assert spi.peak == pytest.approx(structure + max(16 * ends / 2, 8 * n + 3 * n / 8 + 5 * 512))
    assert mpi.peak == pytest.approx(structure + max(16 * ends / 2, 8 * n + 3 * n / 8 + 2 * 8 * entries))


@pytest.mark.parametrize("scale", [14, 16])
def test_the_header_traffic_closed_form_matches_the_layouts_lines(scale):
    """000, II-D: each source vertex's header is followed by its neighbours,
    one record per (vertex, thread block); a sweep reading headers only
    pulls every 128 B line that holds a header. Counted on the records of
    a Kronecker graph (16 nodes, 64 blocks by neighbour id, each block
    starting on a line), against kronecker_theory.header_line_bytes: within
    8% (26.4 against 28.0 B at scale 14, 28.0 against 29.0 at 16; the
    closed form's Poisson records are a little longer than the simple
    graph's)."""
    from simbfs.bfs.partition import block_owner
    from simbfs.graph.kronecker_theory import header_line_bytes

    g = generate_graph(GraphSpec("kronecker", scale, seed=1))
    n, T, N = g.num_vertices, 64, 16
    src = np.repeat(np.arange(n), np.diff(g.indptr))
    block = (g.indices.astype(np.int64) * T) // n
    records, entries = np.unique((block_owner(src, n, N) * T + block) * n + src, return_counts=True)
    group = records // n
    sizes = 8 + 8 * entries
    starts = np.r_[0, np.flatnonzero(np.diff(group)) + 1]
    before = np.cumsum(sizes) - sizes
    line = (before - np.repeat(before[starts], np.diff(np.r_[starts, len(sizes)]))) // 128
    new_line = np.r_[True, (line[1:] != line[:-1]) | (group[1:] != group[:-1])]
    counted = 128 * new_line.sum() / len(records)
    assert counted == pytest.approx(header_line_bytes(scale, T, 128, 8, 8), rel=0.08)
    assert 8 < counted < 128  # more than the header, less than a line each


@pytest.mark.parametrize("batch", [7, 1000, 1 << 23])
def test_thread_blocks_in_batches_count_each_vertexs_distinct_blocks(batch, monkeypatch):
    """A vertex's headers are the thread blocks (v * T // n) its neighbours
    fall in, counted by definition on a scale-10 graph; taking the rows in
    batches of any size gives the same counts."""
    from simbfs.algorithms.cp1d import layout as cp1d_layout
    from simbfs.graph import generate_graph
    graph = generate_graph(GraphSpec("kronecker", 10, seed=3))
    monkeypatch.setattr(cp1d_layout, "ENTRY_BATCH", batch)
    n, T = graph.num_vertices, 16
    expected = [len({int(v) * T // n for v in graph.indices[graph.indptr[u]:graph.indptr[u + 1]]}) for u in range(n)]
    assert cp1d_layout.thread_blocks(graph, T).tolist() == expected
