"""The two-level fat tree (engine/topology/fat_tree.py) against per-message
enumeration of its own routes, a hand-worked all-to-all and hand-worked
message timelines, and its machine-file checks.

The routing is the one the Sunway paper describes (003, 3.3): supernodes
with full bisection, a central network reached through a quarter of the
supernode's capacity (oversubscription 4), static destination-based routes.
"""

import numpy as np
import pytest
import simpy
import yaml

from simbfs.engine.network import Network
from simbfs.engine.topology import FatTree
from simbfs.engine.topology.base import group_traffic
from simbfs.errors import UserError
from simbfs.machine import load_machine
from tests.conftest import enumerated_link_loads, tiny_machine, tiny_raw

# (nodes, supernode_size, oversubscription): full and partial last
# supernodes, K dividing the supernode size or not, K = 1, one supernode,
# one-node supernodes and a single node.
SIZES = [(8, 4, 2), (10, 4, 2), (12, 4, 4), (9, 3, 2), (7, 4, 1.5), (3, 4, 2), (5, 1, 1), (1, 4, 2)]


def fat_tree_machine(supernode_size, oversubscription):
    return tiny_machine(**{
        "network.topology": "fat_tree",
        "network.supernode_size": {"value": supernode_size, "source": "test"},
        "network.oversubscription": {"value": oversubscription, "source": "test"},
    })


def fat_tree(nodes, supernode_size, oversubscription):
    return FatTree(nodes, fat_tree_machine(supernode_size, oversubscription).network)


@pytest.mark.parametrize("size", SIZES)
def test_link_loads_equal_summed_routes(size):
    tree = fat_tree(*size)
    traffic = np.random.default_rng(11).random((tree.nodes, tree.nodes))
    assert np.allclose(tree.link_loads(traffic), enumerated_link_loads(tree, traffic))


@pytest.mark.parametrize("size", SIZES)
def test_hops_count_the_links_of_the_route(size):
    tree = fat_tree(*size)
    for s in range(tree.nodes):
        for d in range(tree.nodes):
            assert int(tree.hop_matrix[s, d]) == len(tree.route(s, d))
    assert tree.hops(np.arange(tree.nodes), np.arange(tree.nodes)[::-1]).shape == (tree.nodes,)


def test_routes_by_hand():
    tree = fat_tree(10, 4, 2)  # supernodes {0..3}, {4..7}, {8, 9}; K = 2 central links each
    n, K, G = 10, 2, 3
    assert tree.num_links == 2 * n + 2 * G * K
    assert tree.route(3, 3) == []
    assert tree.route(1, 2) == [1, n + 2]  # up to the supernode switch and down
    # 1 -> 9: supernode 0's central up-link 9 mod 2 = 1, supernode 2's down-link 1
    assert tree.route(1, 9) == [1, 2 * n + 0 * K + 1, 2 * n + (G + 2) * K + 1, n + 9]
    assert [int(tree.hops(0, d)) for d in range(n)] == [0, 2, 2, 2, 4, 4, 4, 4, 4, 4]


@pytest.mark.parametrize("size", SIZES)
def test_closed_forms_match_enumeration(size):
    tree = fat_tree(*size)
    n = tree.nodes
    off_diagonal = ~np.eye(n, dtype=bool)
    if n > 1:
        counted = np.bincount(tree.hop_matrix[off_diagonal].astype(int)) / off_diagonal.sum()
        # as long as the diameter + 1: projections read the diameter from it
        assert np.allclose(tree.hop_distribution(), counted)
    else:
        assert tree.hop_distribution().tolist() == [1.0]
    assert tree.uniform_max_link_load(3.0) == pytest.approx(enumerated_link_loads(tree, 3.0 * off_diagonal).max())
    out, into = np.zeros((n, n)), np.zeros((n, n))
    out[-1, :-1] = 1.0  # the last node (in a partial supernode, when there is one)
    into[:-1, -1] = 1.0
    peers = max(n - 1, 1)
    assert tree.hot_link_shares() == pytest.approx((enumerated_link_loads(tree, out).max() / peers,
                                                    enumerated_link_loads(tree, into).max() / peers))


def test_all_to_all_by_hand():
    # 8 nodes in two supernodes of 4, oversubscription 2: K = 2 central
    # links per supernode. 1 B between every ordered pair of distinct nodes.
    # A node's up-link carries its 7 B. Supernode {0..3}'s central up-link 0
    # carries what its 4 nodes send to the even nodes of the other supernode
    # (4 and 6): 4 x 2 = 8 B; central down-link 0 of {4..7} carries what the
    # 4 nodes of {0..3} send to 4 and 6: also 8 B. The central links, not the
    # nodes' links, are the busiest: the oversubscription shows.
    tree = fat_tree(8, 4, 2)
    loads = tree.link_loads(np.ones((8, 8)))
    n, K, G = 8, 2, 2
    assert loads[0] == 7  # node 0's up-link
    assert loads[n + 5] == 7  # node 5's down-link
    assert loads[2 * n + 0 * K + 0] == 8  # supernode 0's central up-link 0
    assert loads[2 * n + (G + 1) * K + 0] == 8  # supernode 1's central down-link 0
    assert loads.max() == 8 == tree.uniform_max_link_load(1.0)
    # 2 supernodes x 4 x 3 = 24 of the 56 ordered pairs stay in their supernode
    assert tree.hop_distribution().tolist() == pytest.approx([0, 0, 24 / 56, 0, 32 / 56])


def test_the_sunway_machine_as_the_paper_describes_it():
    # 40,768 nodes (003, 6.2): 159 full supernodes and one of 64 nodes; 256
    # nodes, 1:4 -> 64 central links per supernode (003, 3.3).
    tree = FatTree(40768, load_machine("sunway_taihulight").network)
    assert (tree.supernodes, tree.central_links) == (160, 64)
    assert tree.describe() == "fat_tree 159x256+64 1:4"
    share_inside = (159 * 256 * 255 + 64 * 63) / (40768 * 40767)
    assert tree.hop_distribution() == pytest.approx([0, 0, share_inside, 0, 1 - share_inside])
    # uniform traffic: a full supernode's central up-link k carries its 256
    # nodes' traffic to the 40,768 - 256 outside nodes that are k mod 64,
    # i.e. 256 x 633 pair units (40,512 / 64 = 633), more than a node's 40,767
    assert tree.uniform_max_link_load(1.0) == 256 * 633


# ------------------------------------------------------- message timelines
def arrival_ns(src, dst):
    machine = fat_tree_machine(4, 2)
    net = Network(simpy.Environment(), FatTree(8, machine.network), machine.network, machine.messaging)
    return round(net.arrival_time(src, dst, 1000) * 1e9, 6)  # 1024 B on the wire, 1 B/ns


def test_a_message_pays_one_hop_latency_per_link():
    assert arrival_ns(0, 3) == 2 * 100 + 1024  # within the supernode
    assert arrival_ns(0, 5) == 4 * 100 + 1024  # through the central network


# ------------------------------------------------------- machine files
def refused(tmp_path, **network):
    """The fixture machine's file as a fat tree of supernodes of 4,
    oversubscribed 1:2, with ``network`` keys changed (None: removed): the
    loader's message, which names the file."""
    raw = tiny_raw(**{"network.topology": "fat_tree", "network.supernode_size": {"value": 4, "source": "test"},
                      "network.oversubscription": {"value": 2, "source": "test"}})
    for key, value in network.items():
        if value is None:
            raw["network"].pop(key)
        else:
            raw["network"][key] = value
    path = tmp_path / "machine.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    with pytest.raises(UserError) as info:
        load_machine(str(path))
    message = str(info.value)
    assert str(path) in message
    return message


def test_oversubscription_above_the_supernode_size_is_refused(tmp_path):
    message = refused(tmp_path, oversubscription={"value": 8, "source": "t"})
    assert "network.oversubscription: 8 exceeds network.supernode_size 4" in message


def test_oversubscription_below_one_is_refused(tmp_path):
    message = refused(tmp_path, oversubscription={"value": 0.5, "source": "t"})
    assert "network.oversubscription: must be at least 1" in message


def test_a_fat_tree_needs_its_supernode_size(tmp_path):
    message = refused(tmp_path, supernode_size=None)
    assert "network.supernode_size: missing; a fat tree needs it" in message


def test_supernode_size_must_be_a_whole_number(tmp_path):
    message = refused(tmp_path, supernode_size={"value": 2.5, "source": "t"})
    assert "network.supernode_size: must be a whole number" in message


def test_a_crossbar_what_if_leaves_the_fat_tree_parameters_unused():
    # like a torus's partitions, they stay valid but unused when a what-if
    # swaps the topology with --set
    machine = load_machine("sunway_taihulight", overrides=["network.topology=crossbar"])
    assert machine.network.topology == "crossbar"
    assert dict(machine.network.topology_params) == {}


# (nodes, supernode_size, oversubscription, group_size): groups inside,
# across and straddling supernodes, a partial last supernode and group,
# one-node groups, and groups of the whole machine or more.
GROUPED = [(16, 4, 2, 4), (16, 8, 4, 4), (24, 8, 2, 6), (20, 8, 4, 8), (14, 4, 2, 5), (12, 4, 4, 1),
           (12, 4, 2, 12), (10, 4, 2, 40), (9, 3, 1.5, 2)]


@pytest.mark.parametrize("size", GROUPED)
@pytest.mark.parametrize("within, across", [(1.0, 0.0), (0.0, 1.0), (1.0, 0.5)])
def test_group_max_link_load_matches_enumeration(size, within, across):
    nodes, supernode_size, oversubscription, group = size
    tree = fat_tree(nodes, supernode_size, oversubscription)
    traffic = group_traffic(nodes, group, within, across)
    assert tree.group_max_link_load(group, within, across) == pytest.approx(
        enumerated_link_loads(tree, traffic).max(), rel=1e-12, abs=1e-12)


def test_group_max_link_load_of_the_whole_machine_is_the_uniform_load():
    tree = fat_tree(10, 4, 2)
    assert tree.group_max_link_load(10, 3.0, 5.0) == tree.uniform_max_link_load(3.0)
    assert tree.group_max_link_load(64, 3.0) == tree.uniform_max_link_load(3.0)
