"""What one bsp1d level costs a node, as pure functions of counts.

A node's compute is the node's generic per-element cycles
(``node.compute``), spread over all its cores: a top-down level scans each
frontier edge and packs each remote one before the exchange, and checks
each received edge and claims each new vertex after it; a bottom-up level
probes adjacency entries against the frontier bitmap and claims each new
vertex, all before its closing allreduce. The exchange and the collectives
are priced by the engine (executed) or by the projection's closed forms.

The executed run calls :func:`price_level` with every node's counts (arrays
of N); the projection with every profile vertex's (arrays of n), whose
moments it then grows to the target's nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...bfs.direction import TOP_DOWN


def top_down_send_cycles(costs, scanned, packed):
    """Before the exchange: scan each frontier edge, pack each remote one."""
    return scanned * costs.edge_scan_cycles + packed * costs.message_pack_cycles


def top_down_receive_cycles(costs, received, claimed):
    """After the exchange: check each received edge, claim each new vertex."""
    return received * costs.message_unpack_cycles + claimed * costs.vertex_visit_cycles


def bottom_up_cycles(costs, probes, claimed):
    """Probe adjacency entries against the frontier bitmap, claim each new vertex."""
    return probes * costs.bitmap_probe_cycles + claimed * costs.vertex_visit_cycles


@dataclass(frozen=True)
class LevelPrice:
    """One level's compute, for every node (arrays) or one (scalars).

    A node does nothing but compute between its collectives, so its busy
    time is all compute; the level's bottleneck is its exchange's (priced
    by the network, not here)."""

    before_s: object  # before the exchange (all of a bottom-up level's work)
    after_s: object  # after it (zero in a bottom-up level)

    @property
    def busy_s(self):
        """The node's compute in the level."""
        return self.before_s + self.after_s


def price_level(node, direction: str, *, scanned=0.0, packed=0.0, received=0.0, probes=0.0,
                claimed=0.0) -> LevelPrice:
    """Price a level's counts (work.LevelWork's, scalars or arrays) on
    ``node`` (a machine's node model)."""
    costs = node.compute
    if direction == TOP_DOWN:
        before = top_down_send_cycles(costs, scanned, packed)
        after = top_down_receive_cycles(costs, received, claimed)
    else:
        before = bottom_up_cycles(costs, probes, claimed)
        after = np.zeros_like(np.asarray(before, dtype=np.float64))
    return LevelPrice(before_s=node.seconds(before), after_s=node.seconds(after))
