"""The work of Lin et al.'s 1D BFS on Sunway TaihuLight, level by level, on
the real graph.

What it implements
    Seed 003 (Lin et al., IPDPS 2017), Algorithms 1-2 with sections 4.4 and
    5: a 1D partition (vertex v belongs to node ``v * N // n``), direction
    optimisation, messages of (u, v) pairs between the modules of Fig. 1,
    relayed through an N x M matrix of nodes, and hub vertices whose
    frontiers every node holds as bitmaps. What each module reads, produces
    and claims is computed here for all nodes at once with numpy; what it
    costs is pricing.py's, and when it runs is execute.py's.

Modules (Fig. 1, Algorithm 2)
    Top-down: the Forward Generator of node p sends (u, v) to Owner(v) for
    every frontier vertex u of p and every neighbour v; the Forward Handler
    of Owner(v) claims v if it has no parent. Bottom-up: the Backward
    Generator of p sends (u, v) to Owner(u) for every unvisited vertex v of
    p and every neighbour u; the Backward Handler of Owner(u) forwards
    (u, v) to Owner(v) when u is in the frontier, whose Forward Handler
    claims v. A pair between vertices of one node stays on the node (the
    module is the same, the network is not used).

Relay (4.4, Fig. 7)
    Nodes form a matrix of groups of M nodes (a group is a supernode,
    Fig. 9): node i is in group i // M at column i % M. A pair from s to d
    goes first to the relay node in d's group at s's column, which shuffles
    it (Forward or Backward Relay) and sends it on to d. When s's column
    does not exist in d's group (a partial last group: 40,768 nodes are 159
    groups of 256 and one of 64), the column wraps around that group. When
    the relay is s or d, the pair goes directly.

Hubs (5, "degree aware prefetch")
    Each node's highest-degree local vertices are hubs: 2^12 for top-down
    levels, 2^14 for bottom-up ones. Their frontier bits are gathered to
    every node each level, so an edge to or from a hub needs no message:
    the entry (u, v) of a hub u is kept by Owner(v) as well (the combined
    1D/2D layout the paper cites), which checks the hub's bit itself. In a
    top-down level, Owner(v) claims v from a frontier hub u; in a bottom-up
    level, the Backward Generator tests the hub neighbours of v first and
    sends nothing for a v it can claim so (it reads v's entries either way).
    An unvisited hub v is claimed by the owner of a frontier neighbour and
    announced through the next gather.

Parents
    Among several candidate parents the real code keeps the first to
    arrive; here, deterministically, the smallest u (any candidate is a
    valid BFS parent).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...bfs.partition import BlockLayout, block_owner
from ...bfs.adjacency import concatenated_ranges, neighbour_lists, neighbour_slots
from ...bfs.keyed import smallest_per_key
from ..options import choice, switch
from ...graph import Graph

MODULE_CHOICES = ("cpe", "mpe")
HUB_SHARE_LIMIT = 64  # at most one hub per this many local vertices on small graphs


@dataclass(frozen=True)
class Lin1DOptions:
    """The variants of the paper's Fig. 11, and direction optimisation;
    OPTIONS declares them."""

    relay: bool = True
    modules: str = "cpe"
    direction_optimising: bool = True


OPTIONS = (
    switch("relay", True, "batch messages through a relay node of the destination's group (4.4, Fig. 11)"),
    choice("modules", MODULE_CHOICES, "cpe", "run the message modules on the CPE clusters or on the MPEs (4.2)"),
    switch("direction-optimising", True, "switch between top-down and bottom-up levels"),
)


# ------------------------------------------------------------------ layout
class Layout(BlockLayout):
    """What does not change between roots: owners, hubs, relay groups."""

    def __init__(self, graph: Graph, nodes: int, group_size: int, hubs_top_down: int, hubs_bottom_up: int,
                 share_limit: int | None = HUB_SHARE_LIMIT):
        super().__init__(graph, nodes)
        self.group_size = max(1, min(int(group_size), nodes))
        self.groups = -(-nodes // self.group_size)
        # Hubs are sized for the paper's 1.6-26M vertices per node; on the
        # small graphs executed here a node keeps at most one per
        # ``share_limit`` local vertices, so that most vertices still follow
        # the 1D distribution.
        cap = int(self.local_vertices.max()) // share_limit if share_limit else None
        self.hubs_per_node = {"top-down": hubs_top_down if cap is None else min(hubs_top_down, cap),
                              "bottom-up": hubs_bottom_up if cap is None else min(hubs_bottom_up, cap)}
        self.hub_top_down = self._hubs(self.hubs_per_node["top-down"])
        self.hub_bottom_up = self._hubs(self.hubs_per_node["bottom-up"])

    def _hubs(self, per_node: int) -> np.ndarray:
        """Each node's ``per_node`` highest-degree local vertices with an
        edge (ties: the smaller id)."""
        hub = np.zeros(self.n, dtype=bool)
        if per_node <= 0:
            return hub
        owner = self.owner(np.arange(self.n, dtype=np.int64))
        order = np.lexsort((np.arange(self.n), -self.degree, owner))  # by node, then degree down
        rank_in_node = np.arange(self.n) - self.starts[owner[order]]
        chosen = order[(rank_in_node < per_node) & (self.degree[order] > 0)]
        hub[chosen] = True
        return hub

    def owner(self, vertices: np.ndarray) -> np.ndarray:
        return block_owner(vertices, self.n, self.N)

    def hubs(self, direction: str) -> np.ndarray:
        return self.hub_top_down if direction == "top-down" else self.hub_bottom_up

    def relay(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """The relay node of each (src, dst) pair: in dst's group, at src's
        column (wrapping around a partial last group)."""
        M = self.group_size
        group = dst // M
        members = np.minimum(self.N - group * M, M)
        return group * M + (src % M) % members

    def destinations(self, relay: bool) -> int:
        """Nodes one reaction module writes batches for (its consumers keep a
        buffer for each): peer_count's."""
        return peer_count(self.N, self.group_size, relay)

    def peers(self, relay: bool) -> np.ndarray:
        """Nodes each node exchanges messages with (its MPI connections),
        enumerated: every other node directly; with relay, the node at its
        own column in every other group and the other members of its own
        group: G + M - 2 besides itself for G full groups of M (4.4 counts
        G + M - 1 with the node itself)."""
        if not relay:
            return np.full(self.N, max(self.N - 1, 0))
        ranks = np.arange(self.N)
        sources = np.repeat(ranks, self.groups)
        groups = np.tile(np.arange(self.groups), self.N)
        M = self.group_size
        members = np.minimum(self.N - groups * M, M)
        relays = groups * M + (sources % M) % members
        out = np.zeros((self.N, self.N), dtype=bool)
        out[sources, relays] = True
        same_group = (ranks[:, None] // M) == (ranks[None, :] // M)
        talks = out | out.T | same_group
        np.fill_diagonal(talks, False)
        return talks.sum(axis=1)


def peer_count(nodes: int, group_size: int, relay: bool) -> int:
    """Peers of a node (closed form of Layout.peers for full groups): every
    other node directly; with relay, the G - 1 nodes at its column in the
    other groups and the M - 1 other members of its group (4.4 counts
    N + M - 1 with the node itself, N being the groups)."""
    if not relay:
        return max(nodes - 1, 0)
    size = max(1, min(group_size, nodes))
    groups = -(-nodes // size)
    return min(nodes - 1, (groups - 1) + (size - 1))


def gathered_hubs(direction: str, next_direction: str) -> str:
    """Whose hub set the closing gather of a level carries: the next
    level's (it tests those bits), and after a bottom-up level the
    bottom-up set, which holds the top-down one, so that a hub claimed by
    the owner of one of its neighbours reaches its own owner."""
    return "bottom-up" if "bottom-up" in (direction, next_direction) else "top-down"


# -------------------------------------------------------------- level work
# Counters per node (arrays of N) that pricing.py turns into module times:
#   frontier_read, vertices_read: frontier (top-down) or unvisited (bottom-up)
#     vertices whose adjacency a generator reads; entries_read: their entries;
#   hub_bits: random reads of the gathered hub bitmap (bottom-up generator);
#   hub_entries: kept entries of hubs read and tested locally;
#   pairs_generated: pairs a generator produces (remote or not);
#   backward_in, forward_in: pairs a Backward or Forward Handler receives;
#   answers: pairs a Backward Handler forwards; claims: vertices claimed;
#   relayed_forward, relayed_backward: pairs a relay shuffles on.


@dataclass
class Pairs:
    """(u, v) pairs one message phase moves, each from ``src`` to ``dst``."""

    src: np.ndarray
    dst: np.ndarray
    channel: str  # "forward" or "backward"


@dataclass
class LevelWork:
    direction: str
    counts: dict  # name -> per-node array (see module docstrings of pricing.py)
    phases: list  # list[Pairs], in pipeline order
    new_vertices: np.ndarray
    new_parents: np.ndarray
    edges_examined: int
    hub_frontier: int  # hubs (of this level's direction) in its frontier


def _zeros(layout: Layout) -> np.ndarray:
    return np.zeros(layout.N)


def _per_node(layout: Layout, vertices: np.ndarray, weights=None) -> np.ndarray:
    return np.bincount(layout.owner(vertices), weights=weights, minlength=layout.N).astype(np.float64)


def _gather(graph: Graph, vertices: np.ndarray):
    slots, lengths, _ = neighbour_slots(graph.indptr, vertices)
    return np.repeat(vertices, lengths), graph.indices[slots].astype(np.int64, copy=False)


def new_counts(layout: Layout) -> dict:
    names = ("frontier_read", "vertices_read", "entries_read", "hub_bits", "hub_entries", "pairs_generated",
             "backward_in", "answers", "forward_in", "claims", "relayed_forward", "relayed_backward")
    return {name: _zeros(layout) for name in names}


def _route(layout: Layout, src: np.ndarray, dst: np.ndarray, channel: str, relay: bool, counts: dict,
           phases: list) -> None:
    """Add the network phases of pairs src -> dst (direct, or through the
    relay with its shuffle counted at the relay node)."""
    remote = src != dst
    src, dst = src[remote], dst[remote]
    if not relay or layout.groups == 1:  # one group: every relay is the source or the destination
        phases.append(Pairs(src, dst, channel))
        return
    hop = layout.relay(src, dst)
    via = (hop != src) & (hop != dst)
    first_dst = np.where(via, hop, dst)
    phases.append(Pairs(src, first_dst, channel))
    counts[f"relayed_{channel}"] += np.bincount(hop[via], minlength=layout.N)
    phases.append(Pairs(hop[via], dst[via], channel))


def top_down(layout: Layout, frontier: np.ndarray, visited: np.ndarray, options: Lin1DOptions) -> LevelWork:
    """Forward Generator and Forward Handler (Algorithm 2), with hubs."""
    graph = layout.graph
    counts = new_counts(layout)
    phases: list = []
    hub = layout.hubs("top-down")
    light = frontier[~hub[frontier]]
    heavy = frontier[hub[frontier]]
    counts["frontier_read"] += _per_node(layout, light)
    sources, targets = _gather(graph, light)
    src_node, dst_node = layout.owner(sources), layout.owner(targets)
    counts["entries_read"] += np.bincount(src_node, minlength=layout.N)
    counts["pairs_generated"] += np.bincount(src_node, minlength=layout.N)
    counts["forward_in"] += np.bincount(dst_node, minlength=layout.N)
    _route(layout, src_node, dst_node, "forward", options.relay, counts, phases)
    cand_t, cand_p = [targets], [sources]
    # Frontier hubs: Owner(v) checks the hub's entries it keeps, locally.
    if len(heavy):
        h_src, h_tgt = _gather(graph, heavy)
        h_node = layout.owner(h_tgt)
        counts["hub_entries"] += np.bincount(h_node, minlength=layout.N)
        cand_t.append(h_tgt)
        cand_p.append(h_src)
    targets, parents = np.concatenate(cand_t), np.concatenate(cand_p)
    fresh = ~visited[targets]
    new, new_parents = smallest_per_key(targets[fresh], parents[fresh])
    counts["claims"] += _per_node(layout, new)
    return LevelWork("top-down", counts, phases, new, new_parents, edges_examined=int(len(targets)),
                     hub_frontier=int(hub[frontier].sum()))


def bottom_up(layout: Layout, frontier: np.ndarray, visited: np.ndarray, options: Lin1DOptions) -> LevelWork:
    """Backward Generator, Backward Handler and Forward Handler
    (Algorithm 2), with hubs."""
    graph = layout.graph
    N = layout.N
    counts = new_counts(layout)
    phases: list = []
    hub = layout.hubs("bottom-up")
    in_frontier = np.zeros(layout.n, dtype=bool)
    in_frontier[frontier] = True
    unvisited = np.flatnonzero(~visited & (layout.degree > 0))
    light = unvisited[~hub[unvisited]]
    heavy = unvisited[hub[unvisited]]
    light_node = layout.owner(light)
    counts["vertices_read"] += _per_node(layout, light)
    counts["entries_read"] += _per_node(layout, light, layout.degree[light])
    # The generator tests v's hub neighbours against the gathered hub bitmap
    # first, in order, up to the first hit: a hit claims v on the spot, and
    # nothing is sent for v. (It reads v's entries either way.)
    first_hit, tested = _first_hub_hits(graph, light, hub, in_frontier)
    counts["hub_bits"] += np.bincount(light_node, weights=tested, minlength=N)
    claimed_here = first_hit >= 0
    # The other vertices send a pair for each of their other neighbours.
    unclaimed = light[~claimed_here]
    nbrs, lengths = neighbour_lists(graph.indptr, graph.indices, unclaimed, layout.degree)
    send = ~hub[nbrs]
    node = np.repeat(light_node[~claimed_here], lengths)  # the generator's node, entry by entry
    src_node, owner_u = node[send], layout.owner(nbrs[send])
    counts["pairs_generated"] += np.bincount(src_node, minlength=N)
    counts["backward_in"] += np.bincount(owner_u, minlength=N)
    _route(layout, src_node, owner_u, "backward", options.relay, counts, phases)
    # Backward Handler: Owner(u) answers the pairs whose u is in the frontier.
    answered = send & in_frontier[nbrs]
    a_src, a_dst = layout.owner(nbrs[answered]), node[answered]
    counts["answers"] += np.bincount(a_src, minlength=N)
    counts["forward_in"] += np.bincount(a_dst, minlength=N)
    _route(layout, a_src, a_dst, "forward", options.relay, counts, phases)
    # Unvisited hubs: the owner of each neighbour u tests u against its own
    # frontier; a hit is announced with the next hub gather.
    h_u, h_lengths = neighbour_lists(graph.indptr, graph.indices, heavy, layout.degree)
    counts["hub_entries"] += np.bincount(layout.owner(h_u), minlength=N)
    # v's parent: a claimed v's first hit, which is also its smallest hub
    # neighbour in the frontier (an undirected graph's lists are sorted,
    # graph/csr.py); another v's smallest answered neighbour; a hub's
    # smallest neighbour in the frontier
    answer_parent = _smallest_marked(nbrs, answered, lengths, layout.n)
    hub_parent = _smallest_marked(h_u, in_frontier[h_u], h_lengths, layout.n)
    new, new_parents = smallest_per_key(
        np.concatenate([light[claimed_here], unclaimed[answer_parent >= 0], heavy[hub_parent >= 0]]),
        np.concatenate([first_hit[claimed_here], answer_parent[answer_parent >= 0], hub_parent[hub_parent >= 0]]))
    examined = int(layout.degree[light].sum()) + len(h_u)
    counts["claims"] += _per_node(layout, new)
    return LevelWork("bottom-up", counts, phases, new, new_parents, edges_examined=examined,
                     hub_frontier=int(hub[frontier].sum()))


def _smallest_marked(values: np.ndarray, marked: np.ndarray, lengths: np.ndarray, bound: int) -> np.ndarray:
    """For consecutive lists (``lengths``, none empty) of ``values`` below
    ``bound``: each list's smallest marked value, or -1 without one (an
    unmarked value counts as itself + bound, above every marked one)."""
    if len(lengths) == 0:
        return np.zeros(0, dtype=np.int64)
    smallest = np.minimum.reduceat(values + ~marked * bound, np.cumsum(lengths) - lengths)
    return np.where(smallest < bound, smallest, -1)


def _first_hub_hits(graph: Graph, vertices: np.ndarray, hub: np.ndarray, in_frontier: np.ndarray):
    """For each vertex (none without neighbours): its first neighbour, in
    list order, that is a hub in the frontier (-1: none), and the hub
    neighbours tested up to it (all of them without one).

    Probes in rounds: the next ``width`` entries of every list still
    searching, ``width`` doubling each round (as bsp1d's
    first_frontier_neighbour), so a list with an early hit is read only
    that far and the numpy work stays within twice the entries tested."""
    searching = np.arange(len(vertices))  # the lists without a hit yet, with the rest of each
    start, end = graph.indptr[vertices], graph.indptr[vertices + 1]
    found = np.full(len(vertices), -1, dtype=np.int64)
    tested = np.zeros(len(vertices), dtype=np.int64)
    width = 1
    while len(searching):
        take = np.minimum(end - start, width)
        positions, offsets = concatenated_ranges(start, take)
        neighbours = graph.indices[positions].astype(np.int64, copy=False)
        is_hub = hub[neighbours]
        miss = ~(is_hub & in_frontier[neighbours])
        segment_end = offsets + take
        # each segment's first hit (a miss counts as its position + the
        # entries: past every segment's end)
        first = np.minimum.reduceat(np.arange(len(positions)) + miss * len(positions), offsets)
        has_hit = first < segment_end
        hubs_before = np.concatenate(([0], np.cumsum(is_hub)))
        tested[searching] += hubs_before[np.where(has_hit, first + 1, segment_end)] - hubs_before[offsets]
        found[searching[has_hit]] = neighbours[first[has_hit]]
        start = start + take
        still = ~has_hit & (start < end)
        searching, start, end = searching[still], start[still], end[still]
        width *= 2
    return found, tested


# ---------------------------------------------------------------- traffic
@dataclass
class Traffic:
    """A level's pairs between the pairs of nodes that talk, per phase."""

    talking: np.ndarray  # src * N + dst of every pair of nodes with pairs in some phase, ascending
    pairs: list  # per phase, the pairs it moves between each of those pairs of nodes


def traffic(layout: Layout, work: LevelWork) -> Traffic:
    """The level's pairs per phase between the pairs of nodes that talk
    (only those: never N x N)."""
    N = layout.N
    keys = [p.src * N + p.dst for p in work.phases]
    if not keys:
        return Traffic(np.zeros(0, dtype=np.int64), [])
    talking, pair_of = np.unique(np.concatenate(keys), return_inverse=True)
    ends = np.cumsum([0] + [len(k) for k in keys])
    return Traffic(talking, [np.bincount(pair_of[a:b], minlength=len(talking)).astype(np.float64)
                             for a, b in zip(ends[:-1], ends[1:])])
