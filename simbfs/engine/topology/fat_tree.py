"""A two-level fat tree with an oversubscribed top level (Sunway TaihuLight)."""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from ...machine.model import NetworkModel
from ...machine.schema import Param
from .base import Topology


class FatTree(Topology):
    """Nodes in supernodes of full bisection, joined by an oversubscribed
    central network; static destination-based (D-mod-K) routing.

    Every node has an up-link to its supernode's switch and a down-link
    from it. Inside a supernode the switch has full bisection bandwidth, so
    it is not a resource of its own: a message within a supernode crosses
    the source's up-link and the destination's down-link (2 hops). Each
    supernode has K = ceil(supernode_size / oversubscription) up-links to
    the central network and K down-links from it, so that with
    oversubscription 4 the supernode's outside capacity is a quarter of its
    nodes' (the central network is non-blocking behind those links). A
    message to another supernode crosses the source's up-link, its
    supernode's central up-link number dst mod K, the destination
    supernode's central down-link number dst mod K and the destination's
    down-link (4 hops). The link is chosen by the destination alone, as in
    the real network's static destination-based routing, so a node's
    incoming traffic from all other supernodes shares one central link.
    Every link is directed and runs at ``network.link_bandwidth``.

    Nodes fill supernodes in id order: node i is in supernode
    i // supernode_size. A node count that is not a multiple of the
    supernode size (the paper's 40,768 of 40,960 nodes) leaves the last
    supernode partial; it keeps all K central links, since the switch is
    the same, only fewer of its ports are in use.

    Link ids: node i's up-link i, its down-link N + i; supernode g's
    central up-link k is 2N + g K + k, its central down-link k is
    2N + (G + g) K + k, for G supernodes.
    """

    name = "fat_tree"
    PARAMETERS = {
        "supernode_size": Param("count", "Nodes under one supernode switch, with full bisection among them.",
                                integer=True),
        "oversubscription": Param("ratio", "A supernode's nodes' total link capacity over its capacity into "
                                           "the central network: 4 for 1:4, at least 1 (a full fat tree)."),
    }

    @classmethod
    def check(cls, values: dict, add_problem) -> None:
        for key in cls.PARAMETERS:
            if key not in values:
                add_problem(f"network.{key}", f"missing; a fat tree needs it ({cls.PARAMETERS[key].doc})")
        size, ratio = values.get("supernode_size"), values.get("oversubscription")
        if ratio is not None and ratio < 1:
            add_problem("network.oversubscription", f"must be at least 1 (1 is a full fat tree), got {ratio:g}")
        if size is not None and ratio is not None and ratio > size:
            add_problem("network.oversubscription", f"{ratio:g} exceeds network.supernode_size {size}: "
                                                    f"a supernode needs at least one link to the central network")

    def __init__(self, nodes: int, network: NetworkModel):
        super().__init__(nodes, network)
        params = network.topology_params
        self.supernode_size = int(params["supernode_size"])
        self.oversubscription = float(params["oversubscription"])
        self.central_links = math.ceil(self.supernode_size / self.oversubscription)  # K
        self.supernodes = -(-nodes // self.supernode_size)  # G, the last one possibly partial
        self.num_links = 2 * nodes + 2 * self.supernodes * self.central_links

    def describe(self) -> str:
        full, last = divmod(self.nodes, self.supernode_size)
        shape = f"{full}x{self.supernode_size}" + (f"+{last}" if last else "")
        return f"fat_tree {shape} 1:{self.oversubscription:g}"

    # ------------------------------------------------------------ link ids
    def _central_up(self, supernode, k):
        return 2 * self.nodes + supernode * self.central_links + k

    def _central_down(self, supernode, k):
        return 2 * self.nodes + (self.supernodes + supernode) * self.central_links + k

    # -------------------------------------------------------- one message
    def hops(self, src, dst):
        src, dst = np.asarray(src), np.asarray(dst)
        same_supernode = src // self.supernode_size == dst // self.supernode_size
        return np.where(src == dst, 0, np.where(same_supernode, 2, 4))

    def route(self, src: int, dst: int) -> list[int]:
        if src == dst:
            return []
        up, down = src, self.nodes + dst
        src_group, dst_group = src // self.supernode_size, dst // self.supernode_size
        if src_group == dst_group:
            return [up, down]
        k = dst % self.central_links
        return [up, self._central_up(src_group, k), self._central_down(dst_group, k), down]

    # -------------------------------------------------------- bulk exchange
    def pair_link_loads(self, senders: np.ndarray, receivers: np.ndarray, nbytes: np.ndarray) -> np.ndarray:
        """Bytes per directed link of the pairs that talk (a node's bytes to
        itself stay home): each pair's bytes on its sender's up link and its
        receiver's down link, and, between supernodes, on the central links
        that D-mod-K routing picks (receiver mod K at both ends). O(pairs)
        numpy work, no per-pair Python loop."""
        senders, receivers = np.asarray(senders, dtype=np.int64), np.asarray(receivers, dtype=np.int64)
        nbytes = np.asarray(nbytes, dtype=np.float64)
        away = senders != receivers
        senders, receivers, nbytes = senders[away], receivers[away], nbytes[away]
        n, size, K, G = self.nodes, self.supernode_size, self.central_links, self.supernodes
        node_up = np.bincount(senders, weights=nbytes, minlength=n)
        node_down = np.bincount(receivers, weights=nbytes, minlength=n)
        src_group, dst_group = senders // size, receivers // size
        leaving = src_group != dst_group  # bytes inside a supernode never reach the central network
        link = receivers[leaving] % K
        central_up = np.bincount(src_group[leaving] * K + link, weights=nbytes[leaving], minlength=G * K)
        central_down = np.bincount(dst_group[leaving] * K + link, weights=nbytes[leaving], minlength=G * K)
        return np.concatenate([node_up, node_down, central_up, central_down])

    # ------------------------------------------------------- closed forms
    @cached_property
    def _members(self) -> np.ndarray:
        """Nodes per supernode (the last one possibly partial)."""
        members = np.full(self.supernodes, self.supernode_size, dtype=np.int64)
        members[-1] = self.nodes - (self.supernodes - 1) * self.supernode_size
        return members

    @cached_property
    def _residues(self) -> np.ndarray:
        """R[g, k] = nodes of supernode g whose id is k mod K: the nodes that
        central link k of g carries traffic to (G x K, no pairs)."""
        K = self.central_links
        starts = np.arange(self.supernodes, dtype=np.int64) * self.supernode_size
        k = np.arange(K, dtype=np.int64)

        def below(x):  # ids d < x with d = k mod K, for each k
            return (x[:, None] - k[None, :] + K - 1) // K

        return below(starts + self._members) - below(starts)

    def hop_distribution(self) -> np.ndarray:
        n = self.nodes
        if n == 1:
            return np.array([1.0])  # no pairs: the diameter is 0
        if self.supernodes == 1:
            return np.array([0.0, 0.0, 1.0])  # the diameter is 2
        inside = float((self._members * (self._members - 1)).sum())
        share_inside = inside / (n * (n - 1))
        return np.array([0.0, 0.0, share_inside, 0.0, 1.0 - share_inside])

    def uniform_max_link_load(self, pair_bytes: float) -> float:
        n, residues = self.nodes, self._residues
        # A node's up- (down-) link carries its traffic to (from) all others;
        # central up-link k of g carries, from each of g's nodes, the traffic
        # to every node outside g that is k mod K; central down-link k of g,
        # from every node outside g, the traffic to g's nodes that are k mod K.
        outside = residues.sum(axis=0)[None, :] - residues
        central_up = self._members[:, None] * outside
        central_down = (n - self._members)[:, None] * residues
        return float(pair_bytes * max(n - 1, central_up.max(), central_down.max()))

    def group_max_link_load(self, group_size: int, within_pair_bytes: float,
                            across_pair_bytes: float = 0.0) -> float:
        """Closed form for Q groups of M nodes, in O(N + (G + K)(Q + M))
        memory and O(N + G K (Q + M)) time once per group size, O(N + G K)
        per call after that, from the nodes of each (supernode, group),
        (group, residue mod K), (supernode, position in the group) and
        (position, residue mod K); central up-link
        k of g carries, from each of g's nodes, the bytes to the nodes
        outside g that are k mod K in its group (within) or at its position
        (across), and down-link k the reverse."""
        M = max(1, min(int(group_size), self.nodes))
        if M >= self.nodes:
            return float(self.uniform_max_link_load(within_pair_bytes))
        within, across = float(within_pair_bytes), float(across_pair_bytes)
        node, up, down = self._group_unit_loads(M)
        # a node's own up-link (down-link) carries all it sends (receives); the pattern is symmetric
        worst = float((within * node[0] + across * node[1]).max(initial=0.0))
        if self.supernodes == 1:
            return worst
        central_up = within * up[0] + across * up[1]
        central_down = within * down[0] + across * down[1]
        return max(worst, float(central_up.max()), float(central_down.max()))

    def _group_unit_loads(self, M: int) -> tuple:
        """Per unit of within- and of across-group pair bytes, for groups of
        M < N nodes: the bytes on every node's own link (N), on every
        central up-link and down-link (G x K); cached per M."""
        cache = self.__dict__.setdefault("_group_units", {})
        if M in cache:
            return cache[M]
        n, K, G = self.nodes, self.central_links, self.supernodes
        ids = np.arange(n, dtype=np.int64)
        supernode, group, position, residue = ids // self.supernode_size, ids // M, ids % M, ids % K
        Q = -(-n // M)  # groups, the last one possibly partial
        group_nodes = np.bincount(group, minlength=Q)
        position_nodes = np.bincount(position, minlength=M)  # groups that hold each position
        node = (group_nodes[group] - 1.0, position_nodes[position] - 1.0)

        def cells(rows, columns, shape):  # nodes per (row, column)
            return np.bincount(rows * shape[1] + columns, minlength=shape[0] * shape[1]).reshape(shape).astype(float)

        cell = supernode * K + residue  # a node's (supernode, residue) pair: its central links
        # up-link k of g: sum over groups q of |g and q| x (nodes of q that are k mod K, outside g);
        # down-link k of g: sum over g's nodes that are k mod K of the members of their group outside g
        inside = cells(supernode, group, (G, Q))
        mine = inside[supernode, group]
        up_within = inside @ cells(group, residue, (Q, K)) - np.bincount(cell, mine, G * K).reshape(G, K)
        down_within = np.bincount(cell, group_nodes[group] - mine, G * K).reshape(G, K)
        # the same with positions in place of groups
        inside = cells(supernode, position, (G, M))
        mine = inside[supernode, position]
        up_across = inside @ cells(position, residue, (M, K)) - np.bincount(cell, mine, G * K).reshape(G, K)
        down_across = np.bincount(cell, position_nodes[position] - mine, G * K).reshape(G, K)
        cache[M] = (node, (up_within, up_across), (down_within, down_across))
        return cache[M]

    def hot_link_shares(self) -> tuple[float, float]:
        # A node's own up-link (down-link) carries all its outgoing (incoming) traffic.
        return (1.0, 1.0) if self.nodes > 1 else (0.0, 0.0)
