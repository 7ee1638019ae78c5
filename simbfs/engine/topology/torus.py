"""An N-dimensional torus with dimension-order routing (BlueGene/Q's 5D torus)."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ...errors import UserError
from ...machine.model import NetworkModel
from ...machine.schema import IntList, ShapeTable
from .base import Topology


class Torus(Topology):
    """N-dimensional torus with dimension-order routing.

    Each node has two outgoing links per dimension (+ and -). A message
    corrects its coordinates one dimension at a time, in order, along the
    shorter way round the ring. When both ways are equally short (extent even,
    distance exactly half) the flow-level model splits the traffic evenly
    between them, as adaptive hardware would; ``route`` (one message) takes
    the + way so that single-message timelines stay hand-checkable.

    Link id = ((node * ndim) + dim) * 2 + (0 for +, 1 for -).
    """

    name = "torus"
    PARAMETERS = {
        "shape": IntList("Torus shape (one extent per dimension); overrides `partitions`."),
        "partitions": ShapeTable("Torus shape for each node count the machine was partitioned into."),
    }

    @classmethod
    def check(cls, values: dict, add_problem) -> None:
        if "shape" not in values and not values.get("partitions"):
            add_problem("network", "a torus needs `shape:` or `partitions:` to know its dimensions")

    def __init__(self, nodes: int, network: NetworkModel):
        super().__init__(nodes, network)
        self.shape = self._shape_for(nodes, network)
        self.ndim = len(self.shape)
        self.num_links = nodes * self.ndim * 2
        self._strides = np.array([int(np.prod(self.shape[k + 1:])) for k in range(self.ndim)], dtype=np.int64)

    @staticmethod
    def _shape_for(nodes: int, network: NetworkModel) -> tuple[int, ...]:
        params = network.topology_params
        partitions = params.get("partitions", {})
        if params.get("shape") is not None:
            shape = tuple(params["shape"])
            if int(np.prod(shape)) != nodes:
                raise UserError(f"the torus shape {list(shape)} holds {int(np.prod(shape))} nodes, not {nodes}; "
                                f"give --nodes {int(np.prod(shape))} "
                                f"or --set network.shape=[...] with a product of {nodes}")
            return shape
        if nodes in partitions:
            return tuple(partitions[nodes])
        sizes = ", ".join(str(n) for n in sorted(partitions))
        raise UserError(f"this machine's torus has no partition of {nodes} nodes; choose --nodes from {sizes}, "
                        f"or give an explicit shape with --set network.shape=[a,b,...]")

    def describe(self) -> str:
        return "torus " + "x".join(str(x) for x in self.shape)

    def coords(self, node):
        node = np.asarray(node, dtype=np.int64)
        return [(node // self._strides[k]) % self.shape[k] for k in range(self.ndim)]

    def hops(self, src, dst):
        total = 0
        for k, (a, b) in enumerate(zip(self.coords(src), self.coords(dst))):
            d = np.abs(a - b)
            total = total + np.minimum(d, self.shape[k] - d)
        return total

    @cached_property
    def hop_matrix(self) -> np.ndarray:
        """Hops between every pair of nodes, as :meth:`hops` counts them: the
        sum over the dimensions of a ring distance that depends on the two
        nodes' coordinates in that dimension only, so the N x N matrix is
        built as a sum of D small ring tables broadcast over the others
        (a few passes over N^2 bytes instead of 64-bit coordinates of every
        pair: 2 ms instead of 30-60 at 1,024 nodes, paid by every run)."""
        D = self.ndim
        longest = sum(extent // 2 for extent in self.shape)
        dtype = np.uint8 if longest <= 255 else np.uint16
        total = np.zeros(self.shape + self.shape, dtype=dtype)  # axes s_0..s_{D-1}, t_0..t_{D-1}
        for k, extent in enumerate(self.shape):
            position = np.arange(extent)
            d = np.abs(position[:, None] - position[None, :])
            ring = np.minimum(d, extent - d).astype(dtype)
            axes = [1] * (2 * D)
            axes[k], axes[D + k] = extent, extent
            total += ring.reshape(axes)
        return total.reshape(self.nodes, self.nodes)

    def _link(self, node: int, dim: int, negative: bool) -> int:
        return ((node * self.ndim) + dim) * 2 + int(negative)

    def route(self, src: int, dst: int) -> list[int]:
        links = []
        here = [int(c) for c in self.coords(src)]
        target = [int(c) for c in self.coords(dst)]
        for k, extent in enumerate(self.shape):
            forward = (target[k] - here[k]) % extent
            backward = (here[k] - target[k]) % extent
            negative = backward < forward
            steps = backward if negative else forward
            for _ in range(steps):
                node = int(np.dot(here, self._strides))
                links.append(self._link(node, k, negative))
                here[k] = (here[k] + (-1 if negative else 1)) % extent
        return links

    @cached_property
    def _ring_paths(self) -> list[np.ndarray]:
        """Per dimension: P[s, t, dir * n + p] = share of s->t traffic that
        leaves ring position p in direction dir (0 = +, 1 = -)."""
        paths = []
        for extent in self.shape:
            P = np.zeros((extent, extent, 2 * extent))
            for s in range(extent):
                for t in range(extent):
                    forward = (t - s) % extent
                    backward = (s - t) % extent
                    if forward == 0:
                        continue
                    weights = ((1.0, 0.0) if forward < backward else
                               (0.0, 1.0) if backward < forward else (0.5, 0.5))
                    for step in range(forward):
                        P[s, t, (s + step) % extent] += weights[0]
                    for step in range(backward):
                        P[s, t, extent + (s - step) % extent] += weights[1]
            paths.append(P)
        return paths

    def hop_distribution(self) -> np.ndarray:
        # Coordinates of a random pair are independent per dimension: the
        # hop count is the sum of independent ring distances (a convolution).
        total = np.array([1.0])
        for extent in self.shape:
            ring = np.zeros(extent // 2 + 1)
            for step in range(extent):
                ring[min(step, extent - step)] += 1.0 / extent
            total = np.convolve(total, ring)
        total[0] -= 1.0 / self.nodes  # a node and itself
        return total / total.sum()

    def uniform_max_link_load(self, pair_bytes: float) -> float:
        return self._uniform_over(range(self.ndim), pair_bytes)

    def _uniform_over(self, dims, pair_bytes: float) -> float:
        """The busiest link when every ordered pair of distinct nodes that
        differ only in dimensions ``dims`` exchanges ``pair_bytes``: each
        sub-torus of those dimensions is a uniform exchange of its own.
        Summing it over the other coordinates gives every ring of dimension
        k a uniform n_k x n_k matrix of pair_bytes * (sub-torus nodes) / n_k."""
        dims = list(dims)
        nodes = int(np.prod([self.shape[k] for k in dims])) if len(dims) < self.ndim else self.nodes
        worst = 0.0
        for k in dims:
            extent, paths = self.shape[k], self._ring_paths[k]
            ring = np.ones((extent, extent)) - np.eye(extent)
            per_ring = np.einsum("st,stj->j", ring, paths).max()
            worst = max(worst, pair_bytes * nodes / extent * per_ring)
        return float(worst)

    def group_max_link_load(self, group_size: int, within_pair_bytes: float,
                            across_pair_bytes: float = 0.0) -> float:
        """Closed form when a group is a sub-torus of the trailing
        dimensions (group_size the product of the last extents): with
        dimension-order routing the within-group bytes use only those
        dimensions' links and the across bytes (same trailing coordinates)
        only the leading ones', so they never share a link. Other group
        sizes: the base class (enumeration)."""
        M = max(1, min(int(group_size), self.nodes))
        for split in range(self.ndim + 1):
            if int(np.prod(self.shape[split:])) == M:
                within = self._uniform_over(range(split, self.ndim), within_pair_bytes) if within_pair_bytes else 0.0
                across = self._uniform_over(range(split), across_pair_bytes) if across_pair_bytes else 0.0
                return max(within, across)
        return super().group_max_link_load(group_size, within_pair_bytes, across_pair_bytes)

    def hot_link_shares(self) -> tuple[float, float]:
        # A message leaves its source along the first dimension that differs
        # and reaches its destination along the last one; the other
        # coordinates of a uniformly chosen peer are uniform.
        first = next((k for k, extent in enumerate(self.shape) if extent > 1), 0)
        last = max((k for k, extent in enumerate(self.shape) if extent > 1), default=0)
        extent, paths = self.shape[first], self._ring_paths[first]
        out_share = max(paths[0, :, 0].sum(), paths[0, :, extent].sum()) / extent
        extent, paths = self.shape[last], self._ring_paths[last]
        into_zero = (extent - 1, extent + 1 if extent > 1 else extent)  # + link from k-1, - link from 1
        in_share = max(paths[:, 0, j].sum() for j in into_zero) / extent
        peers = self.nodes / (self.nodes - 1) if self.nodes > 1 else 0.0  # shares of N - 1 peers, not N
        return float(out_share * peers), float(in_share * peers)

    def pair_link_loads(self, senders: np.ndarray, receivers: np.ndarray, nbytes: np.ndarray) -> np.ndarray:
        """Bytes per directed link of the pairs that talk.

        In dimension-order routing a message is, while it travels dimension
        k, at coordinates (dst_0..dst_{k-1}, x_k, src_{k+1}..src_{D-1}): on
        the ring ("line") of dimension k that those other coordinates name,
        from ring position src_k to dst_k. So each dimension's loads are,
        per line, an n_k x n_k matrix of bytes (the pairs' bytes added up by
        line, source and destination position) times the ring's path table:
        O(pairs + N n_k) memory and work per dimension, never N x N. A
        node's bytes to itself stay home (its positions are equal in every
        dimension, so its path table rows are zero).
        """
        nbytes = np.asarray(nbytes, dtype=np.float64)
        source, target = self.coords(senders), self.coords(receivers)
        loads = np.zeros((self.nodes, self.ndim, 2))
        for k, extent in enumerate(self.shape):
            stride = int(self._strides[k])
            lines = self.nodes // extent
            # the line's node at ring position 0, from the coordinates it keeps
            start = sum((target[j] if j < k else source[j]) * self._strides[j] for j in range(self.ndim) if j != k)
            line = (start // (stride * extent)) * stride + start % stride  # 0 .. lines - 1, row-major
            cell = (line * extent + source[k]) * extent + target[k]
            per_line = np.bincount(cell, weights=nbytes, minlength=lines * extent * extent)
            ring = per_line.reshape(lines, extent * extent) @ self._ring_paths[k].reshape(extent * extent, 2 * extent)
            first = (np.arange(lines) // stride) * stride * extent + np.arange(lines) % stride
            nodes = first[:, None] + np.arange(extent)[None, :] * stride  # line x position -> node
            ring = ring.reshape(lines, 2, extent)
            loads[nodes, k, 0] = ring[:, 0, :]
            loads[nodes, k, 1] = ring[:, 1, :]
        return loads.reshape(-1)
