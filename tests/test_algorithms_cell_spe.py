"""The Cell SPE BFS (simbfs/algorithms/cell/execute.py): real BFS on the paper's
directed graphs, local-store limits, and the joint bound Th35."""

import networkx as nx
import numpy as np
import pytest

from simbfs.algorithms import get_algorithm
from simbfs.algorithms.cell.execute import check_local_store
from simbfs.bfs import validate_bfs_tree
from simbfs.engine import Simulation, TimelineRecorder
from simbfs.errors import UserError
from simbfs.graph import GraphSpec, generate_graph
from simbfs.machine import load_machine

CELL = load_machine("cell_be")


@pytest.fixture(scope="module")
def graph():
    return generate_graph(GraphSpec("uniform", 11, arity=6, seed=3, directed=True))


def tree_levels(parent, root):
    level = np.full(len(parent), -1)
    level[root] = 0
    changed = True
    while changed:
        changed = False
        todo = np.flatnonzero((level < 0) & (parent >= 0))
        ok = todo[level[parent[todo]] >= 0]
        if len(ok):
            level[ok] = level[parent[ok]] + 1
            changed = True
    return level


@pytest.mark.parametrize("name", ["cell-bsp", "cell-overlap"])
@pytest.mark.parametrize("spes", [1, 3, 8])
def test_tree_is_valid_and_levels_are_directed_distances(graph, name, spes):
    root = int(np.flatnonzero(graph.degree > 0)[0])
    run = get_algorithm(name).run(Simulation(CELL, spes), graph, root)
    assert validate_bfs_tree(graph, root, run.parent).ok
    g = nx.DiGraph()
    g.add_nodes_from(range(graph.num_vertices))
    g.add_edges_from(zip(graph.edges.src.tolist(), graph.edges.dst.tolist()))
    distance = nx.single_source_shortest_path_length(g, root)
    level = tree_levels(run.parent, root)
    assert {v: int(level[v]) for v in np.flatnonzero(level >= 0)} == distance
    assert sum(r.edges_examined for r in run.levels) == graph.input_edges_in_component(run.parent >= 0)


def test_directed_validator_rejects_a_wrong_parent(graph):
    root = int(np.flatnonzero(graph.degree > 0)[0])
    run = get_algorithm("cell-overlap").run(Simulation(CELL, 2), graph, root)
    parent = run.parent.copy()
    child = int(np.flatnonzero((parent >= 0) & (np.arange(len(parent)) != root))[-1])
    parent[child] = root  # not an input edge root -> child, and skips levels
    assert not validate_bfs_tree(graph, root, parent).ok


def test_same_schedule_same_tree_deterministic(graph):
    root = int(np.flatnonzero(graph.degree > 0)[1])
    a = get_algorithm("cell-overlap").run(Simulation(CELL, 4), graph, root)
    b = get_algorithm("cell-overlap").run(Simulation(CELL, 4), graph, root)
    assert a.time_s == b.time_s and (a.parent == b.parent).all()


def test_overlap_is_faster_than_strict_bsp(graph):
    root = int(np.flatnonzero(graph.degree > 0)[0])
    bsp = get_algorithm("cell-bsp").run(Simulation(CELL, 8), graph, root)
    ovl = get_algorithm("cell-overlap").run(Simulation(CELL, 8), graph, root)
    assert ovl.time_s < bsp.time_s


def test_bitmap_limit_is_about_ten_million_vertices_per_cell():
    # 001, 3 (Bitmap): 160 KB of bitmap per SPE, 8 SPEs -> about 10 M vertices (claim cell.bitmap_capacity)
    most = int(CELL.section("spe").bitmap_max_bytes * 8 * 8)
    assert most == 10_485_760
    check_local_store(CELL, 10_000_000, 8)
    with pytest.raises(UserError, match="bitmap"):
        check_local_store(CELL, 11_000_000, 8)
    with pytest.raises(UserError, match="at most 1,310,720 vertices"):
        check_local_store(CELL, 2**21, 1)


def test_local_store_overflow_is_a_user_error():
    from simbfs.runner import RunConfig, run
    with pytest.raises(UserError, match="local store overflows"):
        run(RunConfig(machine="cell_be", graph="uniform", scale=23, arity=4, roots=1,
                      overrides=["spe.bg_buffer=40 KiB"]))


def test_recorder_does_not_change_timing(graph):
    root = int(np.flatnonzero(graph.degree > 0)[0])
    plain = get_algorithm("cell-overlap").run(Simulation(CELL, 8), graph, root)
    recorder = TimelineRecorder()
    traced = get_algorithm("cell-overlap").run(Simulation(CELL, 8), graph, root, recorder=recorder)
    assert traced.time_s == plain.time_s
    kinds = {s.what for s in recorder.spans}
    assert {"fetch", "gather", "dispatch", "bitmap", "commit"} <= kinds


def test_arity_10_throughput_is_predicted_within_the_claims_tolerance():
    """cell.arity10: 8 SPEs reach 101.6 ME/s at arity 10 (tolerance 15%).
    The paper says throughput does not depend on graph size
    (cell.size_insensitive), so a 2^16-vertex graph stands in for its larger
    ones; experiments/cell_be/arity10.py runs up to 2^22."""
    from simbfs.claims import within_tolerance
    from simbfs.graph import search_keys
    from simbfs.bfs import teps_statistics

    graph = generate_graph(GraphSpec("uniform", 16, arity=10, seed=1, directed=True))
    sim = Simulation(CELL, 8)
    rates = []
    for root in search_keys(graph, 2, seed=1):
        run = get_algorithm("cell-overlap").run(sim, graph, int(root))
        rates.append(graph.input_edges_in_component(run.parent >= 0) / run.time_s)
    assert within_tolerance(teps_statistics(rates)["harmonic_mean"] / 1e6, "cell.arity10")


@pytest.mark.parametrize("algorithm", ["cell-overlap", "cell-bsp"])
def test_every_level_time_is_compute_plus_communication_plus_synchronisation(algorithm):
    """docs/reference/json.md: time = compute + comm + sync. Was off in 17 of
    50 cell-overlap levels (root 11971, level 5: 975.19 us against 978.12
    us): the SPU's DMA set-up cycles (fetch, gather list, commit) were
    counted as compute but never spent on the simulated timeline."""
    from simbfs.runner import RunConfig, run

    doc = run(RunConfig(machine="cell_be", graph="uniform", arity=16, scale=13, roots=4, algorithm=algorithm))
    for level in doc["levels"]:
        split = level["compute_s"] + level["communication_s"] + level["synchronisation_s"]
        assert split == pytest.approx(level["time_s"], rel=1e-12), (level["root"], level["level"])


def test_the_runner_passes_its_recorder_and_the_recorder_never_changes_timing():
    """A run with a TimelineRecorder gives the document of a run without one,
    and the recorder holds the SPEs' spans."""
    import json

    from simbfs.engine import TimelineRecorder
    from simbfs.runner import RunConfig, run

    config = dict(machine="cell_be", graph="uniform", arity=8, scale=11, roots=2)
    recorder = TimelineRecorder()
    traced = run(RunConfig(**config, recorder=recorder))
    plain = run(RunConfig(**config))
    # the run's wall time on this computer is the one field that may differ
    assert (json.dumps({**traced, "wall_time_s": 0}, sort_keys=True)
            == json.dumps({**plain, "wall_time_s": 0}, sort_keys=True))
    kinds = {span.what for span in recorder.spans}
    assert {"dispatch", "bitmap", "fetch", "gather"} <= kinds


def reference_chunk_starts(list_bytes, entry_bytes, bg_bytes, q_cap, max_lists):
    """The greedy bG fill stated list by list: from each start, take lists
    while the chunk's bytes, every SPE's entry bytes and the list count
    stay within their bounds (whole-number sizes, so the sums are exact)."""
    count, N = entry_bytes.shape
    starts, s = [0], 0
    while True:
        end = s
        while (end < count and end - s < max_lists and sum(list_bytes[s:end + 1]) <= bg_bytes
               and all(sum(entry_bytes[s:end + 1, p]) <= q_cap for p in range(N))):
            end += 1
        end = max(end, s + 1)
        if end >= count:
            return starts
        starts.append(end)
        s = end


@pytest.mark.parametrize("seed", range(4))
def test_chunk_starts_equal_the_greedy_fill_list_by_list(seed):
    """The compiled fill (cell/kernels.py) against its list-by-list definition."""
    from simbfs.algorithms.cell.kernels import chunk_starts
    rng = np.random.default_rng(seed)
    n, N = 300, int(rng.integers(1, 6))
    list_bytes = rng.integers(0, 40, n).astype(np.float64) * 16
    entry_bytes = rng.integers(0, 8, (n, N)).astype(np.float64) * 16
    for _ in range(5):
        queue = rng.choice(n, size=int(rng.integers(0, n)), replace=False).astype(np.int64)
        bg, cap, most = float(rng.integers(20, 200) * 16), float(rng.integers(4, 60) * 16), int(rng.integers(1, 30))
        starts, largest_list, largest_entry = chunk_starts(queue, list_bytes, entry_bytes, bg, cap, most)
        assert starts.tolist() == reference_chunk_starts(list_bytes[queue], entry_bytes[queue], bg, cap, most)
        assert largest_list == list_bytes[queue].max(initial=0)
        assert largest_entry == entry_bytes[queue].max(initial=0)


@pytest.mark.parametrize("spes", [1, 3, 8])
def test_plan_rounds_equal_their_edge_by_edge_definition(graph, spes):
    """The compiled level pass (cell/kernels.py) against the level stated
    edge by edge: the chunks in bitmap order (round, sender, queue order),
    every target claimed by the first edge that reaches it, and every
    count summed list by list."""
    from simbfs.algorithms.cell.work import build_layout
    from simbfs.algorithms.cell.kernels import plan_rounds
    layout = build_layout(graph, spes, CELL.section("spe"))
    n = graph.num_vertices
    rng = np.random.default_rng(spes)
    for _ in range(3):
        visited = rng.random(n) < 0.3
        queue = rng.choice(n, size=n // 4, replace=False).astype(np.int64)
        visited[queue] = True
        K = 5
        cuts = np.sort(rng.choice(len(queue) + 1, size=K * spes - 1))
        bounds = np.concatenate([[0], cuts, [len(queue)]]).reshape(-1)  # K * spes consecutive chunks
        lo = bounds[:-1].reshape(spes, K).T.copy()  # chunk (t, r), ranks' queues one after another
        hi = bounds[1:].reshape(spes, K).T.copy()
        parent = np.full(n, -1, dtype=np.int64)
        got_visited = visited.copy()
        (lists, edges_out, portions_out, quadwords_out, put_bytes, edges_in, portions_in, quadwords_in,
         new_in, new, examined) = plan_rounds(graph.indptr, graph.indices, queue, lo, hi, layout.block,
                                             layout.portion_edges, layout.portion_quadwords,
                                             layout.entry_bytes, got_visited, parent)
        want = {name: np.zeros((K, spes)) for name in ("lists", "edges_out", "portions_out", "quadwords_out",
                                                       "edges_in", "portions_in", "quadwords_in", "new_in")}
        want_put = np.zeros((K, spes, spes))
        seen, claimed, parents, edges = set(np.flatnonzero(visited).tolist()), [], {}, 0
        for t in range(K):
            for r in range(spes):
                for v in queue[lo[t, r]:hi[t, r]].tolist():
                    targets = graph.indices[graph.indptr[v]:graph.indptr[v + 1]].tolist()
                    want["lists"][t, r] += len(targets) > 0
                    want["edges_out"][t, r] += len(targets)
                    edges += len(targets)
                    for p in range(spes):
                        portion = sum(w // layout.block == p for w in targets)
                        quadwords = layout.portion_quadwords[v, p]
                        want["portions_out"][t, r] += portion > 0
                        want["portions_in"][t, p] += portion > 0
                        want["quadwords_out"][t, r] += quadwords
                        want["quadwords_in"][t, p] += quadwords
                        want["edges_in"][t, p] += portion
                        want_put[t, r, p] += layout.entry_bytes[v, p]
                    for w in targets:
                        if w not in seen:
                            seen.add(w)
                            claimed.append(w)
                            parents[w] = v
                            want["new_in"][t, w // layout.block] += 1
        got = dict(lists=lists, edges_out=edges_out, portions_out=portions_out, quadwords_out=quadwords_out,
                   edges_in=edges_in, portions_in=portions_in, quadwords_in=quadwords_in, new_in=new_in)
        for name, value in want.items():
            assert np.array_equal(got[name], value), name
        assert np.array_equal(put_bytes, want_put)
        assert new.tolist() == claimed and examined == edges
        assert {int(w): int(parent[w]) for w in np.flatnonzero(parent >= 0)} == parents
        assert set(np.flatnonzero(got_visited).tolist()) == seen


def test_a_layout_is_never_handed_to_another_graph():
    """algorithms.base.LayoutCache compares the graph object itself: a cache
    keyed by id(graph) gave a freed graph's layout to a new graph of
    another size that Python put at the same address (a Cell run then
    indexed its SPE queues past the end). Here: built once per graph and
    settings, rebuilt for another graph object or other settings, and a
    small graph's layout not handed to a bigger one."""
    from simbfs.algorithms.base import LayoutCache

    class Fake:
        pass

    cache = LayoutCache()
    first, second = Fake(), Fake()
    built = []
    assert cache.get(first, 8, lambda: built.append("first") or "first") == "first"
    assert cache.get(first, 8, lambda: built.append("again") or "again") == "first"  # built once
    assert cache.get(second, 8, lambda: built.append("second") or "second") == "second"
    assert cache.get(second, 4, lambda: built.append("four") or "four") == "four"  # other settings
    assert built == ["first", "second", "four"]
    # the real case: a graph dropped and a new one of another size
    layouts = get_algorithm("cell-overlap")
    small = generate_graph(GraphSpec("uniform", 10, arity=4, seed=1, directed=True))
    big = generate_graph(GraphSpec("uniform", 12, arity=4, seed=1, directed=True))
    assert layouts.layout(small, CELL, 8).block == -(-small.num_vertices // 8)
    assert layouts.layout(big, CELL, 8).block == -(-big.num_vertices // 8)


def test_price_level_of_hand_counted_rounds():
    """One round on two SPEs, at the fixture machine's cycles
    (tests/conftest.py, SECTIONS["spe"]) and 1 GHz: SPE 0 gathers 3 lists
    (2 each + 10 to issue: 16), dispatches 100 edges of 3 lists in 4
    portions and 30 quadwords (1, 3, 100 and 2 each: 569) and tests 50
    received edges in 2 portions and 15 quadwords (20, 100 and 4 each:
    1,260); SPE 1 does nothing but issue its empty DMA list. Every DMA
    issue costs 10 cycles."""
    from types import SimpleNamespace

    from simbfs.algorithms.cell.pricing import price_level
    from tests.conftest import tiny_machine

    def pair(a, b):
        return np.array([[a, b]], dtype=np.float64)

    plan = SimpleNamespace(lists=pair(3, 0), edges_out=pair(100, 0), portions_out=pair(4, 0),
                           quadwords_out=pair(30, 0), edges_in=pair(50, 0), portions_in=pair(2, 0),
                           quadwords_in=pair(15, 0))
    price = price_level(tiny_machine("spe").section("spe"), 1e9, plan)
    assert price.gather_issue_s[0] == pytest.approx([16e-9, 10e-9])
    assert price.dispatch_s[0] == pytest.approx([569e-9, 0.0])
    assert price.bitmap_s[0] == pytest.approx([1260e-9, 0.0])
    assert price.fetch_issue_s == price.commit_issue_s == price.alltoall_issue_s == pytest.approx(10e-9)
