"""Each Graph500 validation rule catches a tree broken in exactly that way."""

import numpy as np

from simbfs.bfs import bfs_reference, validate_bfs_tree
from simbfs.graph import EdgeList, GraphSpec, build_csr, generate_graph, search_keys


def hand_graph(tuples, num_vertices=8):
    src, dst = (np.array(column, dtype=np.int32) for column in zip(*tuples))
    return build_csr(GraphSpec("kronecker", 3), EdgeList(src, dst, num_vertices))


def rules_failed(report):
    return {failure.split(" ")[1] for failure in report.failures}


def test_valid_trees_pass():
    graph = generate_graph(GraphSpec("kronecker", 10))
    for root in search_keys(graph, 8):
        result = bfs_reference(graph, root)
        assert validate_bfs_tree(graph, root, result.parent).ok
        report = validate_bfs_tree(graph, root, result.parent, result.level)
        assert report.ok and report.failures == []


def test_rule_1_cycle():
    graph = hand_graph([(0, 1), (1, 2), (2, 3)])
    parent = np.array([0, 0, 1, 2, -1, -1, -1, -1])
    assert validate_bfs_tree(graph, 0, parent).ok
    parent[2], parent[3] = 3, 2  # 2 <-> 3: adjacent, but a cycle off the root
    report = validate_bfs_tree(graph, 0, parent)
    assert not report.ok and rules_failed(report) == {"1"}
    assert "vertex 2" in report.failures[0]


def test_rule_1_root_not_its_own_parent():
    graph = hand_graph([(0, 1), (1, 2)])
    parent = np.array([1, 0, 1, -1, -1, -1, -1, -1])
    report = validate_bfs_tree(graph, 0, parent)
    assert not report.ok and "1" in rules_failed(report)


def test_rule_2_tree_edge_within_a_level():
    graph = hand_graph([(0, 1), (1, 2), (2, 3), (3, 0), (1, 3)])
    level = np.array([0, 1, 2, 1, -1, -1, -1, -1])
    parent = np.array([0, 0, 1, 0, -1, -1, -1, -1])
    assert validate_bfs_tree(graph, 0, parent, level).ok
    parent[3] = 1  # a neighbour on the same level: still a tree, wrong level step
    report = validate_bfs_tree(graph, 0, parent, level)
    assert not report.ok and rules_failed(report) == {"2"}
    assert "1->3" in report.failures[0]


def test_rule_3_input_edge_spans_two_levels():
    graph = hand_graph([(0, 1), (1, 2), (0, 2)])
    parent = np.array([0, 0, 0, -1, -1, -1, -1, -1])
    assert validate_bfs_tree(graph, 0, parent).ok
    parent[2] = 1  # a valid spanning tree, but not breadth-first
    report = validate_bfs_tree(graph, 0, parent)
    assert not report.ok and rules_failed(report) == {"3"}
    assert "(0, 2)" in report.failures[0] or "(2, 0)" in report.failures[0]


def test_rule_4_component_not_spanned():
    graph = hand_graph([(0, 1), (1, 2)])
    parent = np.array([0, 0, 1, -1, -1, -1, -1, -1])
    parent[2] = -1  # leave a leaf of the root's component unreached
    report = validate_bfs_tree(graph, 0, parent)
    assert not report.ok and rules_failed(report) == {"4"}
    assert "(1, 2)" in report.failures[0]


def test_rule_5_parent_not_adjacent():
    graph = hand_graph([(0, 1), (0, 2), (1, 3)])
    parent = np.array([0, 0, 0, 1, -1, -1, -1, -1])
    assert validate_bfs_tree(graph, 0, parent).ok
    parent[3] = 2  # same depth as before, but 2 and 3 share no edge
    report = validate_bfs_tree(graph, 0, parent)
    assert not report.ok and rules_failed(report) == {"5"}
    assert "vertex 3" in report.failures[0]
    # the same with the search's levels supplied (rule 5 then looks at every
    # tuple, not only those joining depths d and d + 1)
    report = validate_bfs_tree(graph, 0, parent, np.array([0, 1, 1, 2, -1, -1, -1, -1]))
    assert not report.ok and rules_failed(report) == {"5"}


def test_broken_kronecker_tree_is_caught():
    graph = generate_graph(GraphSpec("kronecker", 9))
    root = search_keys(graph, 1)[0]
    result = bfs_reference(graph, root)
    parent = result.parent.copy()
    reached = np.flatnonzero((parent >= 0) & (np.arange(parent.size) != root))
    parent[reached[0]] = -1
    report = validate_bfs_tree(graph, root, parent)
    assert not report.ok and "4" in rules_failed(report)


def test_deep_trees_are_checked_at_every_depth():
    """Levels narrower than 32 bits must not wrap: a path of 300 vertices
    (levels past 127 and 255) passes, and a chord joining levels 0 and 299
    or 150 and 152 fails rule 3 with those levels named."""
    n = 300
    path = [(v, v + 1) for v in range(n - 1)]
    for chord, levels in (((0, n - 1), "0 and 299"), ((150, 152), "150 and 152")):
        assert validate_bfs_tree(hand_graph(path, n), 0, np.array([0] + list(range(n - 1)))).ok
        report = validate_bfs_tree(hand_graph(path + [chord], n), 0, np.array([0] + list(range(n - 1))))
        assert not report.ok and rules_failed(report) == {"3"}
        assert f"levels {levels}" in report.failures[0]


def test_supplied_levels_below_unreached_are_not_wrapped():
    """A supplied level of -255 is wrong (rule 2) and, kept as it is, makes
    the tuple (0, 1) span more than one level (rule 3); narrowing the
    levels to 8 bits would wrap it to 1 and hide that."""
    graph = hand_graph([(0, 1)], 2)
    parent = np.array([0, 0])
    report = validate_bfs_tree(graph, 0, parent, np.array([0, -255]))
    assert not report.ok and {"2", "3"} <= rules_failed(report)


def test_depth_keys_boundary_depths_125_and_126():
    """Trees up to depth 125 are checked from 16-bit depth keys (unreached
    stored as 127), deeper ones from their levels: on both sides of the
    boundary a tuple from the deepest vertex to an unreached one fails
    rule 4 and nothing else, and the intact path passes."""
    for depth in (124, 125, 126):
        n = depth + 2  # vertices 0..depth on the path, one more unreached
        path = [(v, v + 1) for v in range(depth)]
        parent = np.array([0] + list(range(depth)) + [-1])
        assert validate_bfs_tree(hand_graph(path, n), 0, parent).ok
        report = validate_bfs_tree(hand_graph(path + [(depth, depth + 1)], n), 0, parent)
        assert rules_failed(report) == {"4"}, (depth, report.failures)
        assert f"edge ({depth}, {depth + 1})" in report.failures[0]


def test_rule_5_parent_sharing_a_neighbours_low_byte():
    """Rule 5's exact lookup behind the low-byte filter: vertex 2's claimed
    parent 257 sits one level up and ends in the same byte (0x01) as its
    real neighbour 1, but shares no tuple with it."""
    graph = hand_graph([(0, 1), (0, 257), (1, 2)], 512)
    parent = np.full(512, -1)
    parent[[0, 1, 257, 2]] = [0, 0, 0, 1]
    assert validate_bfs_tree(graph, 0, parent).ok
    parent[2] = 257
    report = validate_bfs_tree(graph, 0, parent)
    assert rules_failed(report) == {"5"} and "vertex 2 and its parent 257" in report.failures[0]


def directed_graph(tuples, num_vertices):
    src, dst = (np.array(column, dtype=np.int32) for column in zip(*tuples))
    return build_csr(GraphSpec("uniform", 3, directed=True), EdgeList(src, dst, num_vertices))


def test_directed_rules_3_and_4():
    """Directed: a tuple may lead back any number of levels; one that skips
    a level fails rule 3, one from a reached vertex to an unreached one
    fails rule 4; a tuple from an unreached vertex is never checked."""
    tree = [(0, 1), (1, 2), (2, 3)]
    parent = np.array([0, 0, 1, 2, -1, -1, -1, -1])
    assert validate_bfs_tree(directed_graph(tree + [(3, 0), (4, 0), (5, 4)], 8), 0, parent).ok
    report = validate_bfs_tree(directed_graph(tree + [(1, 3)], 8), 0, parent)
    assert rules_failed(report) == {"3"} and "levels 1 and 3" in report.failures[0]
    report = validate_bfs_tree(directed_graph(tree + [(2, 6)], 8), 0, parent)
    assert rules_failed(report) == {"4"} and "edge (2, 6)" in report.failures[0]
    # the tree edge must be an input tuple in its own direction
    report = validate_bfs_tree(directed_graph([(0, 1), (2, 1), (2, 3)], 8), 0, parent)
    assert "5" in rules_failed(report)


def test_a_mapped_graph_validates_as_a_generated_one(tmp_path):
    """The validator lets a cached graph's pages go as it reads them
    (graph/mapped.py): on the mapped graph it gives the generated graph's
    reports, for good trees and broken ones, again and again, and the
    graph reads the same afterwards."""
    from simbfs.graph import load_graph
    spec = GraphSpec("kronecker", 12)
    generated = generate_graph(spec)
    load_graph(spec, tmp_path)
    mapped = load_graph(spec, tmp_path)
    from simbfs.graph.mapped import _read_only_mapping
    assert _read_only_mapping(mapped.indices) is not None and _read_only_mapping(generated.indices) is None
    root = int(search_keys(generated, 1)[0])
    good = bfs_reference(generated, root).parent
    cycle = good.copy()
    child = np.flatnonzero((good >= 0) & (good != np.arange(good.size)))[-1]
    cycle[good[child]], cycle[child] = child, good[child]  # a two-vertex cycle off the root
    stranger = good.copy()
    stranger[child] = root if good[child] != root else int(np.flatnonzero(good < 0)[0])  # not its neighbour
    dropped = good.copy()
    dropped[child] = -1  # a reached neighbour, an unreached vertex
    reports = []
    for parent in (good, cycle, stranger, dropped):
        expected = validate_bfs_tree(generated, root, parent)
        for _ in range(2):
            report = validate_bfs_tree(mapped, root, parent)
            assert (report.ok, report.failures) == (expected.ok, expected.failures)
        reports.append(expected)
    assert reports[0].ok and not any(report.ok for report in reports[1:])
    assert np.array_equal(mapped.indices, generated.indices)
    assert np.array_equal(mapped.edges.src, generated.edges.src)
