"""lin1d, Lin et al.'s BFS on Sunway TaihuLight (seed 003): every executed
run validates, the relay groups and connection counts follow the paper's
arithmetic, the module counters conserve pairs, the resource checks refuse
what does not fit, and the pricing matches values worked by hand on the
fixture machine (tests/conftest.py, SECTIONS["cpe_cluster"] and
SECTIONS["lin1d"])."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simbfs.algorithms import get_algorithm
from simbfs.algorithms.lin1d import pricing
from simbfs.algorithms.lin1d import work as lin
from simbfs.errors import UserError
from simbfs.graph import GraphSpec, generate_graph
from simbfs.machine import load_machine
from simbfs.runner import RunConfig, run
from tests.conftest import tiny_machine

# The fixture's node (1 GHz): 2 clusters, DMA 1 GB/s at 8 B to 4 GB/s at
# 64 B and beyond (+1 GB/s per doubling), shuffle 2 GB/s, 4 producers, 2
# routers, 2 consumers of 1 KiB scratch pad, 64 B batches; MPE 1 GB/s, 100 ns
# per memory access, 10 cycles per pair; 10 B pairs, 8 B entries, 8 B
# random accesses (8 ns each at 1 GB/s), inputs under 1000 B on the MPE,
# messages of at most 4000 B.
TINY = tiny_machine("cpe_cluster", "lin1d")
COUNTERS = ("frontier_read", "vertices_read", "entries_read", "hub_bits", "hub_entries", "pairs_generated",
            "backward_in", "answers", "forward_in", "claims", "relayed_forward", "relayed_backward")


@pytest.fixture(scope="module")
def graph():
    return generate_graph(GraphSpec("kronecker", 12, seed=1))


@pytest.mark.parametrize("variant", ["lin1d", "lin1d:relay=off", "lin1d:modules=mpe",
                                     "lin1d:relay=off,modules=mpe", "lin1d:direction-optimising=off"])
@pytest.mark.parametrize("nodes", [1, 16, 64])
def test_every_variant_builds_valid_bfs_trees(variant, nodes):
    doc = run(RunConfig(machine="sunway_taihulight", algorithm=variant, nodes=nodes, scale=12, roots=3, seed=1))
    assert doc["validated"] and doc["all_valid"]
    assert doc["teps"]["harmonic_mean"] > 0


def test_the_relay_is_in_the_destinations_group_at_the_sources_column(graph):
    """Fig. 7: nodes in groups (rows) of M; s -> d goes through the node of
    d's row in s's column. 10 nodes in groups of 4: rows 0-3, 4-7, 8-9."""
    layout = lin.Layout(graph, 10, 4, 0, 0)
    src = np.array([1, 5, 6, 7, 3])
    dst = np.array([6, 2, 9, 8, 9])
    # 1 -> 6: group 1, column 1 -> 5; 5 -> 2: group 0, column 1 -> 1;
    # 6 -> 9: group 2 has 2 members, column 2 wraps to 0 -> 8; 7 -> 8:
    # column 3 wraps to 1 -> 9; 3 -> 9: column 3 -> 9
    assert layout.relay(src, dst).tolist() == [5, 1, 8, 9, 9]


def test_peers_are_n_plus_m_minus_one_and_the_connection_memory_follows():
    """4.4: with relay a node of an N x M matrix exchanges messages with
    its row and its column, N + M - 1 nodes counting itself once (the
    paper's count), so N + M - 2 peers besides itself (N - 1 directly).
    At 100 KB per connection, 40,000 nodes need 4 GB directly and
    (200 + 200 - 1) x 100 KB, about 40 MB, relayed (sunway.mpi_connection_memory)."""
    layout = lin.Layout(generate_graph(GraphSpec("kronecker", 10, seed=1)), 16, 4, 0, 0)
    assert layout.peers(relay=True).tolist() == [4 + 4 - 1 - 1] * 16
    assert layout.peers(relay=False).tolist() == [15] * 16
    machine = load_machine("sunway_taihulight")
    # the paper's "4 GB" and "40 MB" are round numbers of 100 KB (here 1 KB = 1,024 B) units
    assert float(pricing.connection_bytes(machine, 40_000)) == 40_000 * 100 * 1024 == pytest.approx(4e9, rel=0.05)
    assert float(pricing.connection_bytes(machine, 200 + 200 - 1)) == pytest.approx(40e6, rel=0.05)


@pytest.mark.parametrize("direction", ["top-down", "bottom-up"])
def test_pairs_are_conserved_through_relays_and_handlers(graph, direction):
    """The same level with and without relay: the relayed run sends every
    remote pair once more for each pair a relay shuffles, and nothing else
    changes; every generated pair reaches a handler; a bottom-up level
    forwards exactly the answered pairs; claims are new, once each, with a
    frontier parent."""
    layout = lin.Layout(graph, 16, 4, 4, 8)
    rng = np.random.default_rng(3)
    visited = rng.random(graph.num_vertices) < 0.3
    frontier = np.flatnonzero(visited & (rng.random(graph.num_vertices) < 0.2))
    step = lin.top_down if direction == "top-down" else lin.bottom_up
    direct = step(layout, frontier, visited, lin.Lin1DOptions(relay=False))
    relayed = step(layout, frontier, visited, lin.Lin1DOptions(relay=True))
    shuffled = (relayed.counts["relayed_forward"] + relayed.counts["relayed_backward"]).sum()
    assert shuffled > 0
    assert sum(len(p.src) for p in relayed.phases) == sum(len(p.src) for p in direct.phases) + shuffled
    np.testing.assert_array_equal(relayed.new_vertices, direct.new_vertices)
    c = {k: v.sum() for k, v in relayed.counts.items()}
    if direction == "top-down":
        assert c["forward_in"] == c["pairs_generated"]
    else:
        assert c["backward_in"] == c["pairs_generated"]
        assert c["forward_in"] == c["answers"]
    assert len(np.unique(relayed.new_vertices)) == len(relayed.new_vertices) == c["claims"]
    assert not visited[relayed.new_vertices].any()
    in_frontier = np.zeros(graph.num_vertices, dtype=bool)
    in_frontier[frontier] = True
    assert in_frontier[relayed.new_parents].all()


def test_direct_cpe_is_refused_when_the_consumers_spm_cannot_buffer_every_destination():
    """4.3: 16 consumers x 64 KiB at 4 batches of 256 B per destination
    buffer 1,024 destinations; direct messaging to 2,048 nodes needs more
    (the Direct_CPE failure of Fig. 11 comes from this check)."""
    machine = load_machine("sunway_taihulight")
    direct_cpe = get_algorithm("lin1d:relay=off")
    direct_cpe.check(machine, 2**20, 1025)  # 1,024 other nodes
    with pytest.raises(UserError, match="scratch pads"):
        direct_cpe.check(machine, 2**20, 1026)
    get_algorithm("lin1d").check(machine, 2**20, 40768)  # relay: max(160 groups, 256 members)
    get_algorithm("lin1d:relay=off,modules=mpe").check(machine, 2**20, 40768)


def test_a_cluster_module_is_priced_by_the_reaction_rule_by_hand():
    """Fixture machine. A Backward Handler receiving 1e6 pairs of 10 B and
    answering 2.5e5 of them: read 10 MB, shuffle 10 MB at 2 GB/s (5 ms),
    write 2.5 MB; the cluster's port moves 12.5 MB at 4 GB/s (3.125 ms);
    producers (4 CPEs) and consumers (2) are each at full bandwidth. So 5 ms."""
    zero = {name: 0.0 for name in COUNTERS}
    counts = dict(zero, backward_in=1e6, answers=2.5e5)
    demand = pricing.demands(TINY, counts, "bottom-up")["backward_handler"]
    assert float(pricing.cluster_seconds(TINY, demand)) == pytest.approx(5e-3)
    # on an MPE: 12.5 MB at 1 GB/s (12.5 ms), 1e6 tests of 100 ns (100 ms),
    # 1e6 x 10 cycles at 1 GHz (10 ms)
    assert float(pricing.mpe_seconds(TINY, demand)) == pytest.approx(122.5e-3)


def test_on_the_sunway_a_handler_on_the_mpe_is_over_ten_times_slower():
    """Fig. 11's CPE/MPE: on the bundled machine, the Backward Handler of
    1e6 pairs (2.5e5 answered) takes over 10x longer on an MPE than on a
    CPE cluster."""
    machine = load_machine("sunway_taihulight")
    counts = dict({name: 0.0 for name in COUNTERS}, backward_in=1e6, answers=2.5e5)
    demand = pricing.demands(machine, counts, "bottom-up")["backward_handler"]
    assert float(pricing.mpe_seconds(machine, demand)) / float(pricing.cluster_seconds(machine, demand)) > 10


def test_a_bitmap_larger_than_the_routers_and_consumers_scratch_pads_costs_a_read_per_slice():
    """Fixture machine. The shuffle takes an item to the CPE holding its
    bit, and only the 2 routers and 2 consumers are on its way (Fig. 6):
    4 x 1 KiB = 4,096 B hold bits. A Backward Handler testing 1e6 hub
    entries of 8 B (a bottom-up level's unvisited hubs' entries, is each u
    in the frontier?), each shuffled as a 10 B pair, against the bitmap of
    80,000 local vertices (10,000 B, 3 slices) reads them 3 times:
    2.4e7 B at 4 GB/s = 6 ms, above the shuffle's 1e7 B at 2 GB/s = 5 ms;
    with 8,000 local vertices (one slice, 2 ms of reading) the shuffle
    bounds it."""
    cpe = TINY.section("cpe_cluster")
    assert cpe.bitmap_passes(4096) == 1 and cpe.bitmap_passes(4097) == 2
    assert cpe.bitmap_passes(10_000) == 3 and cpe.bitmap_passes(0) == 1
    counts = dict({name: 0.0 for name in COUNTERS}, hub_entries=1e6)
    for local, expected in ((80_000, 6e-3), (8_000, 5e-3)):
        demand = pricing.demands(TINY, counts, "bottom-up", local)["backward_handler"]
        assert float(pricing.cluster_seconds(TINY, demand)) == pytest.approx(expected, rel=1e-12)
        # the MPE tests each item at a memory latency, slices or not: 8e6 B
        # at 1 GB/s (8 ms), 1e6 x 100 ns (100 ms), 1e6 x 10 cycles (10 ms)
        assert float(pricing.mpe_seconds(TINY, demand)) == pytest.approx(118e-3)


def test_on_the_sunway_the_headlines_bitmap_takes_two_slices():
    """The bundled machine: 16 routers and 16 consumers x 64 KiB hold
    2,097,152 B of bits (Fig. 6); at the headline's 26.97M vertices per node
    (2^40 over 40,768) a bitmap takes 2 slices, and the second read hides
    under the shuffle."""
    cpe = load_machine("sunway_taihulight").section("cpe_cluster")
    assert cpe.bitmap_passes(2_097_152) == 1 and cpe.bitmap_passes(2_097_153) == 2
    assert cpe.bitmap_passes(2 ** 40 / 40768 / 8) == 2


def test_the_forward_handler_is_a_dispose_module_priced_by_hand():
    """003, Fig. 1: the Forward Handler is a dispose module; 4.3: a dispose
    module splits its input over the CPEs (no shuffle); 2.1: it "checks the
    frontier, and updates the result in main memory". Fixture machine: 1e6
    pairs of 10 B arrive and 2e5 vertices are claimed: the CPEs stream
    1e7 B at 4 GB/s (2.5 ms) and make 1.2e6 random 8 B accesses, each a
    blocking DMA at the 8 B point of the blocking curve, 1 GB/s (9.6 ms). A top-down level's kept hub
    entries are tested the same way, but stream 8 B each (2 ms); a
    bottom-up level's go to the Backward Handler."""
    zero = {name: 0.0 for name in COUNTERS}
    demand = pricing.demands(TINY, dict(zero, forward_in=1e6, claims=2e5), "bottom-up", 1e6)["forward_handler"]
    assert demand.shuffled_bytes == 0
    assert float(pricing.cluster_seconds(TINY, demand)) == pytest.approx(2.5e-3 + 9.6e-3, rel=1e-12)
    top_down = pricing.demands(TINY, dict(zero, hub_entries=1e6, claims=2e5), "top-down", 1e6)
    assert float(pricing.cluster_seconds(TINY, top_down["forward_handler"])) == pytest.approx(2e-3 + 9.6e-3,
                                                                                             rel=1e-12)
    assert top_down["backward_handler"].items == 0
    bottom_up = pricing.demands(TINY, dict(zero, hub_entries=1e6), "bottom-up", 1e6)
    assert bottom_up["forward_handler"].items == 0 and bottom_up["backward_handler"].items == 1e6


def test_a_reaction_modules_random_accesses_are_made_by_its_producers():
    """Fixture machine. A bottom-up Backward Generator reading 1e5 vertices
    (16 B of offsets each) and 1e6 entries of 8 B in 64 B batches, making
    1e6 pairs of 10 B and testing 5e5 hub bits: the reaction is bound by
    its 1e7 B of shuffle at 2 GB/s (5 ms); the 5e5 hub bits are blocking
    8 B DMAs of the 4 producers (of 8 CPEs), 16 ns each: 8 ms more."""
    counts = dict({name: 0.0 for name in COUNTERS}, vertices_read=1e5, entries_read=1e6, pairs_generated=1e6,
                  hub_bits=5e5)
    demand = pricing.demands(TINY, counts, "bottom-up")["backward_generator"]
    assert float(pricing.cluster_seconds(TINY, demand)) == pytest.approx(5e-3 + 8e-3, rel=1e-12)


def test_modules_share_four_clusters_one_each_at_most():
    """5 modules of 1, 1, 1, 1 and 4 ms on 4 clusters: the long one bounds
    it (4 ms); 8 of 1 ms: the total over 4 (2 ms)."""
    assert pricing.shared([1, 1, 1, 1, 4], 4) == pytest.approx(4)
    assert pricing.shared([1] * 8, 4) == pytest.approx(2)


def test_price_level_prices_every_node_as_it_prices_one():
    """The executed run prices all nodes' counts at once, the projection
    one node's: the same numbers, node by node; a level without traffic
    pays only the generators' notification."""
    machine = load_machine("sunway_taihulight")
    names = ("frontier_read", "vertices_read", "entries_read", "hub_bits", "hub_entries", "pairs_generated",
             "backward_in", "answers", "forward_in", "claims", "relayed_forward", "relayed_backward")
    counts = {name: np.array([1e3 * (i + 1), 4e4 * (i + 1) % 7e4]) for i, name in enumerate(names)}
    per_node = dict(small=np.array([0.2, 0.0]), out=np.array([40.0, 300.0]), into=np.array([60.0, 250.0]),
                    inject=np.array([1e-4, 3e-6]), eject=np.array([2e-6, 1.0]))
    network = dict(link_s=2e-5, phases=2, route_latency_s=1e-6)

    def price(direction, at=slice(None)):
        return pricing.price_level(machine, {k: v[at] for k, v in counts.items()}, direction, "cpe", 1e6,
                                   per_node["small"][at], per_node["out"][at], per_node["into"][at],
                                   injection_s=per_node["inject"][at], ejection_s=per_node["eject"][at], **network)

    for direction in ("top-down", "bottom-up"):
        every = price(direction)
        for i in range(2):
            one = price(direction, i)
            assert float(one.busy_s) == float(every.busy_s[i]) > 0
            assert float(one.compute_s) == float(every.compute_s[i])
            assert float(one.port_s) == float(every.port_s[i])
        assert every.bottleneck == "ejection"  # node 1's port, receiving, is the slowest term
    quiet = pricing.price_level(machine, {name: 0.0 for name in names}, "top-down", "cpe", 1e6, 0.0, 0.0, 0.0,
                                injection_s=0.0, ejection_s=0.0, link_s=0.0, phases=0, route_latency_s=1e-6)
    assert quiet.busy_s == quiet.latency_s == machine.section("cpe_cluster").notify_latency_s


def test_small_messages_are_handled_on_the_receiving_mpe():
    """5: inputs under lin1d.small_input run on the MPE. Fixture machine
    (10 B pairs, under 1000 B is small, messages of at most 4000 B): node 0
    receives 50 pairs (500 B) from node 1 and 500 (5,000 B) from node 2:
    50 small pairs."""
    pairs = np.zeros((3, 3))
    pairs[1, 0], pairs[2, 0] = 50, 500
    assert pricing.small_pairs([pairs], TINY)[0] == 50
    # a peer's pairs in two phases are two messages, each judged on its own:
    # 5 pairs (50 B) and 50 (500 B), both small, twice
    assert pricing.small_pairs([pairs / 10, pairs / 10], TINY)[0] == 2 * (5 + 50)
    assert pricing.messages(pairs, TINY)[2, 0] == 2  # 5,000 B in messages of 4,000 B


@pytest.mark.parametrize("nodes, scale, profile", [(64, 16, 14), (128, 16, 14)])
def test_the_projection_predicts_an_executed_run_within_ten_percent(nodes, scale, profile):
    """The issue's check: a projection from a smaller profile against the
    executed run at the target size (docs/validation.md lists every pair
    tried, the misses too)."""
    config = dict(machine="sunway_taihulight", algorithm="lin1d", nodes=nodes, scale=scale, roots=8, seed=1)
    executed = run(RunConfig(**config))["teps"]["harmonic_mean"]
    projected = run(RunConfig(**config, mode="project", profile_scale=profile))
    assert projected["mode"] == "projected"
    assert projected["teps"]["harmonic_mean"] == pytest.approx(executed, rel=0.10)


def test_a_same_scale_projection_keeps_the_executed_level_structure():
    """Profile = target: the projection runs the executed level functions,
    so its levels, directions and edges examined are the executed ones."""
    config = dict(machine="sunway_taihulight", algorithm="lin1d", nodes=64, scale=14, roots=2, seed=1)
    executed = run(RunConfig(**config))
    projected = run(RunConfig(**config, mode="project", profile_scale=14))
    shape = [(lv["root"], lv["level"], lv["direction"], lv["edges_examined"]) for lv in executed["levels"]]
    assert [(lv["root"], lv["level"], lv["direction"], lv["edges_examined"]) for lv in projected["levels"]] == shape


def test_the_projections_walk_shows_each_level_and_its_price_to_on_level():
    """An experiment keeps a projected level's details through the walk's
    on_level instead of copying the walk: it sees every record the walk
    returns, with the busiest node's price beside it."""
    from simbfs.algorithms.lin1d.project import Projector
    from simbfs.engine import Simulation

    machine = load_machine("sunway_taihulight")
    graph = generate_graph(GraphSpec("kronecker", 12, seed=1))
    topology = Simulation(machine, 1024).topology
    projector = Projector(graph, machine, topology, get_algorithm("lin1d").options, 12, 16, 16)
    seen = []
    walk = projector.root(int(np.argmax(graph.degree)), on_level=lambda step, record, level: seen.append(
        (step.direction, record, level)))
    assert [record for _, record, _ in seen] == walk.records and len(seen) > 2
    assert "bottom-up" in {direction for direction, _, _ in seen}
    for _, record, level in seen:
        assert record.time_s == level.time_s > float(level.busiest.busy_s) >= float(level.busiest.compute_s)
        assert record.bottleneck == level.busiest.bottleneck
    assert walk.time_s == pytest.approx(sum(record.time_s for record in walk.records), rel=1e-12)


def test_small_share_is_the_size_biased_poisson_tail():
    """A pair sits in a message of X pairs with probability X P(X) / E[X]:
    with one pair per peer on average and messages 'small' under 3 pairs,
    the share is P(Y < 2) = e^-1 (1 + 1) for Y ~ Poisson(1)."""
    from simbfs.algorithms.lin1d.project import small_share

    assert small_share(1.0, 3) == pytest.approx(2 * math.exp(-1))
    assert small_share(0.0, 3) == 0.0 and small_share(1e6, 128) == 0.0


@pytest.mark.parametrize("variant", ["lin1d:modules=mpe", "lin1d:relay=off,modules=mpe"])
def test_the_mpe_variants_project(variant):
    """Was a ValueError (scalar and per-node unit times mixed)."""
    doc = run(RunConfig(machine="sunway_taihulight", algorithm=variant, nodes=256, scale=20, roots=2, seed=1,
                        mode="project", profile_scale=12))
    assert doc["teps"]["harmonic_mean"] > 0


def test_the_closing_gather_carries_the_bottom_up_hubs_around_a_bottom_up_level():
    """The next level tests its own direction's hub bits; after a bottom-up
    level the bottom-up set (which holds the top-down one) is gathered, so
    a hub claimed by a neighbour's owner reaches its own (review finding)."""
    assert lin.gathered_hubs("top-down", "top-down") == "top-down"
    assert lin.gathered_hubs("top-down", "bottom-up") == "bottom-up"
    assert lin.gathered_hubs("bottom-up", "top-down") == "bottom-up"
    assert lin.gathered_hubs("bottom-up", "bottom-up") == "bottom-up"
    spec_graph = generate_graph(GraphSpec("kronecker", 12, seed=1))
    layout = lin.Layout(spec_graph, 16, 4, 4, 8)
    assert (layout.hub_top_down <= layout.hub_bottom_up).all()  # the top-down hubs are bottom-up hubs too


def test_a_bottom_up_level_closes_with_a_reduce_scatter_of_its_hub_claims_then_the_gather():
    """A bottom-up level's unvisited hubs are claimed by the owners of their
    neighbours (work.py), so the claims must reach the hubs' owners before
    the gather can announce them (review finding, 2026-11-27): an OR
    reduce-scatter of the hub bitmaps, then the allgather. Hand-worked from
    the executed level: the nodes owning a claimed hub send a bitmap of
    their hubs (256 here: 32 B), the others an 8 B flag; the gather carries
    16 B of direction counts per node more; a top-down level has the gather
    only. Prices by the file's MVAPICH2 2.2 tables on 4 nodes: the gather
    takes recursive doubling, 2 stages and 3/4 of the total; the
    reduce-scatter, at most 256 B in all, the basic algorithm, a binomial
    reduce (2 stages, a whole vector each at the root) and a scatter (2
    stages, 3/4 of the total)."""
    from simbfs.engine import Simulation, TimelineRecorder

    graph = generate_graph(GraphSpec("kronecker", 16, seed=1))
    machine = load_machine("sunway_taihulight")
    N = 4  # 256 hubs per node (one per 64 local vertices): a 32 B bitmap against an 8 B flag
    algorithm = get_algorithm("lin1d")
    recorder = TimelineRecorder()
    # a root of moderate degree (232): its second level, bottom-up, claims
    # about 900 of the 1,024 hubs (a root of degree 1 reaches them top-down)
    root = int(np.argsort(-graph.degree, kind="stable")[2000])
    result = algorithm.run(Simulation(machine, N), graph, root, recorder=recorder)
    layout = algorithm.layout(graph, Simulation(machine, N))
    coll = machine.collectives
    bottom_up_hub_nodes = []
    directions = {r.level: r.direction for r in result.levels}
    assert "bottom-up" in directions.values() and "top-down" in directions.values()
    parent, depth = result.parent, np.full(graph.num_vertices, -1)
    depth[root] = 0
    for level in sorted(directions):  # each vertex's level, from the tree
        claimed = (depth < 0) & (parent >= 0) & np.isin(parent, np.flatnonzero(depth == level))
        depth[claimed] = level + 1
    for level, direction in directions.items():
        spans = sorted((s for s in recorder.spans if s.node == 0 and s.resource == "collective"
                        and s.detail.get("level") == level), key=lambda s: s.start_s)
        kinds = [s.what for s in spans]
        new = np.flatnonzero(depth == level + 1)
        gathered = "bottom-up" if direction == "bottom-up" else lin.gathered_hubs(
            "top-down", directions.get(level + 1, "top-down"))
        hub_nodes = len(np.unique(layout.owner(new[layout.hubs(gathered)[new]])))
        claims = hub_nodes * layout.hubs_per_node[gathered] // 8 + (N - hub_nodes) * 8
        expected = [("allgather", claims + N * 16)]
        if direction == "bottom-up":
            expected.insert(0, ("reduce_scatter", claims))
        assert kinds == [kind for kind, _ in expected], (level, direction)
        assert coll.algorithm == "mvapich2-2.2" and max(total for _, total in expected) <= 256
        for span, (kind, total) in zip(spans, expected):
            stages, moved = 2, total * 3 / 4  # recursive doubling on 4 nodes
            if kind == "reduce_scatter":
                stages, moved = 2 + 2, total * 2 + total * 3 / 4  # reduce, then scatter
            hand = stages * coll.stage_latency_s + moved / coll.bandwidth_Bps
            assert span.duration_s == pytest.approx(hand, rel=1e-12), (level, span.what)
        if direction == "bottom-up":
            bottom_up_hub_nodes.append(hub_nodes)
    assert 0 < max(bottom_up_hub_nodes), bottom_up_hub_nodes  # bitmaps, not only flags
