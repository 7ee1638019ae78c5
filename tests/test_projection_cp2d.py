"""The cp2d projection (simbfs/algorithms/cp2d/project.py): checked against
execution where both are possible, and its closed forms against what they
stand for (random columns, the engine's exchange pricing)."""

import numpy as np
import pytest
import simpy

from simbfs.engine import Network
from simbfs.engine.topology import Torus, make_topology
from simbfs.errors import UserError
from simbfs.machine import load_machine
from simbfs.algorithms.cp2d.project import GRID_NODES_MAX, GridPatterns, Target, exchange, new_columns
from simbfs.runner import RunConfig, run

BAR = 0.10  # issue 3: projected TEPS within 10% of executed TEPS


def _error(projected, executed):
    return projected["teps"]["harmonic_mean"] / executed["teps"]["harmonic_mean"] - 1


def test_projection_at_the_profile_scale_reproduces_the_executed_levels(tmp_path):
    # Same graph and roots: the levels and their edges are the profile's own;
    # only the closed forms (deduplication, busiest node, exchanges) differ.
    common = dict(machine="bluegene_q", nodes=64, scale=14, roots=8, algorithm="cp2d", cache_dir=str(tmp_path))
    executed = run(RunConfig(**common, validate=False))
    projected = run(RunConfig(**common, mode="project", profile_scale=14))
    assert projected["mode"] == "projected" and projected["validated"] is False

    def levels(doc):
        return [(lv["root"], lv["level"], lv["frontier_vertices"], lv["edges_examined"]) for lv in doc["levels"]]

    def sent(doc):
        return sum(lv["edges_sent"] for lv in doc["levels"])

    assert levels(projected) == levels(executed)
    assert sent(projected) == pytest.approx(sent(executed), rel=0.03)  # deduplicated pairs
    assert abs(_error(projected, executed)) <= BAR


def test_one_scale_extrapolation_is_within_ten_percent_of_execution(tmp_path):
    common = dict(machine="bluegene_q", nodes=64, scale=15, roots=16, algorithm="cp2d", cache_dir=str(tmp_path))
    executed = run(RunConfig(**common, validate=False))
    projected = run(RunConfig(**common, mode="project", profile_scale=14))
    assert abs(_error(projected, executed)) <= BAR, f"projected {_error(projected, executed):+.1%} from executed"


@pytest.mark.parametrize("cols, earlier, current", [(8, 0, 3), (16, 5, 7), (64, 40, 100), (1, 0, 2), (1, 3, 2)])
def test_new_columns_matches_neighbours_dropped_in_random_columns(cols, earlier, current):
    rng = np.random.default_rng(7)
    trials = 100_000
    columns = rng.integers(0, cols, size=(trials, earlier + current))
    seen_before = np.zeros((trials, cols), dtype=bool)
    seen_now = np.zeros((trials, cols), dtype=bool)
    rows = np.arange(trials)[:, None]
    seen_before[rows, columns[:, :earlier]] = True
    seen_now[rows, columns[:, earlier:]] = True
    sending = (seen_now & ~seen_before).sum(axis=1).mean()
    assert float(new_columns(np.array([current]), np.array([earlier]), cols)[0]) == pytest.approx(sending, rel=0.01,
                                                                                                  abs=1e-3)


def _target(nodes: int) -> Target:
    machine = load_machine("bluegene_q")
    return Target.of(machine, make_topology(machine.network, nodes), 2**16)


@pytest.mark.parametrize("pattern", ["expand", "fold"])
def test_a_uniform_pattern_exchange_costs_what_the_engine_charges(pattern):
    # Every node sends 300 B in one packet to each of its grid peers: the
    # pattern's closed form must equal Network.exchange_cost on the matrix.
    target = _target(256)
    machine, topology = target.machine, target.topology
    ranks = np.arange(target.nodes)
    key = ranks // target.rows if pattern == "expand" else ranks % target.rows
    same = key[:, None] == key[None, :]
    np.fill_diagonal(same, False)
    engine = Network(simpy.Environment(), topology, machine.network, machine.messaging).exchange_cost(same * 300.0)
    shape = getattr(target.patterns, pattern)
    peers = shape.peers
    projected = exchange(target, shape, 300.0, 1.0, (peers * 300.0, peers), (peers * 300.0, peers))
    assert projected.time_s == pytest.approx(engine.time_s, rel=1e-9)
    assert projected.bottleneck == engine.bottleneck
    assert projected.packets == engine.packets


def test_one_sender_pays_its_own_first_hop_link():
    # Only node 0 sends (a seed level's single frontier vertex): the busiest
    # link is node 0's own, carrying its share of the 15 messages.
    target = _target(256)
    machine, topology = target.machine, target.topology
    same = np.zeros((target.nodes, target.nodes))
    same[0, 1:target.rows] = 64.0
    engine = Network(simpy.Environment(), topology, machine.network, machine.messaging).exchange_cost(same)
    peers = target.patterns.expand.peers
    projected = exchange(target, target.patterns.expand, 64.0 / target.nodes, 1.0 / target.nodes,
                         (peers * 64.0, peers), (64.0, 1.0))
    assert projected.time_s == pytest.approx(engine.time_s, rel=0.05)


def test_grids_beyond_the_dense_pattern_limit_are_refused():
    machine = load_machine("bluegene_q")
    nodes = 2 * GRID_NODES_MAX
    with pytest.raises(UserError, match=f"--nodes {GRID_NODES_MAX} or fewer"):
        GridPatterns.of(Torus(nodes, machine.network), rows=128)
