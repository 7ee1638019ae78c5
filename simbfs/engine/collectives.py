"""Collective operations among the simulated node processes.

Every node process calls the same collectives in the same order (SPMD). The
k-th call of every rank joins rendezvous k; when the last rank arrives the
rendezvous prices the operation, combines the contributions (real data: the
counts an allreduce sums, the frontier an allgather replicates) and fires one
shared event after the cost. A rank's wait before the last arrival is its
*synchronisation* time; the priced duration is *communication* time.

Every operation takes ``after``: the rank arrives that many seconds from
now. A node that computes for t and then enters a collective is the same as
a node entering it at now + t, and saying so costs no simpy event: a
bulk-synchronous level needs two events per node instead of four.

The prices are the pure functions of engine/costs.py (barrier_time,
allreduce_time, allgather_time; an alltoallv is the network's flow-level
exchange_cost), which projections call directly with no simpy objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import simpy

from ..machine.model import CollectiveModel
from .costs import ExchangeCost, allgather_time, allreduce_time, barrier_time
from .messaging import MessagingLayer
from .network import Network


@dataclass(frozen=True)
class CollectiveResult:
    """What every rank gets back from a collective."""

    value: Any
    started_s: float  # when the last rank arrived
    cost_s: float
    exchange: ExchangeCost | None = None


class _Rendezvous:
    __slots__ = ("kind", "contributions", "arrivals", "last_arrival", "on_complete", "event")

    def __init__(self, env: simpy.Environment, size: int, kind: str):
        self.kind = kind
        self.contributions: list[Any] = [None] * size
        self.arrivals = 0
        self.last_arrival = env.now
        self.on_complete = None
        self.event = env.event()


class Collectives:
    def __init__(self, env: simpy.Environment, nodes: int, model: CollectiveModel, network: Network):
        self.env = env
        self.nodes = nodes
        self.model = model
        self.network = network
        self._calls = np.zeros(nodes, dtype=np.int64)
        self._open: dict[int, _Rendezvous] = {}

    # ----------------------------------------------------------- cost models
    def barrier_cost(self) -> float:
        return barrier_time(self.model, self.nodes)

    def allreduce_cost(self, nbytes: float) -> float:
        return allreduce_time(self.model, self.nodes, nbytes)

    def allgather_cost(self, total_bytes: float) -> float:
        return allgather_time(self.model, self.nodes, total_bytes)

    # ------------------------------------------------------------ operations
    def barrier(self, rank: int, after: float = 0.0) -> simpy.Event:
        return self._join("barrier", rank, None, lambda _: (None, self.barrier_cost(), None), after=after)

    def allreduce(self, rank: int, value: np.ndarray, op: np.ufunc = np.add,
                  on_complete: Callable[[CollectiveResult], None] | None = None,
                  after: float = 0.0) -> simpy.Event:
        """Combine ``value`` (a small numpy array) over all ranks with ``op``.

        ``op`` is a numpy ufunc (``np.add``, ``np.maximum``, ``np.logical_or``).
        ``on_complete(result)``, if given by any rank, runs once when the operation
        completes and before any rank resumes: the place for work that all
        ranks would do identically on the reduced value (deciding the next
        BFS direction, say)."""
        value = np.asarray(value)

        def finish(contributions):
            total = op.reduce(np.stack(contributions), axis=0)
            return total, self.allreduce_cost(value.nbytes), None

        return self._join("allreduce", rank, value, finish, on_complete, after)

    def allgather(self, rank: int, nbytes: float, gather: Callable[[], Any] | None = None,
                  after: float = 0.0) -> simpy.Event:
        """Every rank contributes ``nbytes``; ``gather()`` (called once, when
        the last rank arrives) builds the replicated result from the shared
        state."""

        def finish(contributions):
            total = float(sum(contributions))
            return (gather() if gather else None), self.allgather_cost(total), None

        return self._join("allgather", rank, float(nbytes), finish, after=after)

    def alltoallv(self, rank: int, deliver: Callable[[], tuple[np.ndarray, np.ndarray | None, Any]],
                  after: float = 0.0, messaging: MessagingLayer | None = None) -> simpy.Event:
        """Bulk exchange. ``deliver()`` is called once, when the last rank
        arrives; it returns (payload bytes matrix, packets matrix or None,
        value) where value is handed to every rank (the delivered messages).
        ``messaging``: who pays which software overhead (default: per
        packet, engine/messaging.py)."""

        def finish(_):
            payload, packets, value = deliver()
            cost = self.network.exchange_cost(payload, packets, messaging)
            return value, cost.time_s, cost

        return self._join("alltoallv", rank, None, finish, after=after)

    # ------------------------------------------------------------- machinery
    def _join(self, kind: str, rank: int, contribution: Any, finish: Callable,
              on_complete: Callable[[CollectiveResult], None] | None = None,
              after: float = 0.0) -> simpy.Event:
        if after < 0:
            raise ValueError(f"rank {rank} cannot arrive at a {kind} {after} s in the past")
        call = int(self._calls[rank])
        self._calls[rank] += 1
        rendezvous = self._open.get(call)
        if rendezvous is None:
            rendezvous = self._open[call] = _Rendezvous(self.env, self.nodes, kind)
        elif rendezvous.kind != kind:
            # SPMD code that diverged: every rank must call the same collectives in order.
            raise RuntimeError(f"collective #{call}: rank {rank} called {kind}, other ranks {rendezvous.kind}")
        if on_complete is not None:
            rendezvous.on_complete = on_complete
        rendezvous.contributions[rank] = contribution
        rendezvous.arrivals += 1
        rendezvous.last_arrival = max(rendezvous.last_arrival, self.env.now + after)
        if rendezvous.arrivals == self.nodes:
            del self._open[call]
            value, cost, exchange = finish(rendezvous.contributions)
            started = rendezvous.last_arrival
            result = CollectiveResult(value=value, started_s=started, cost_s=cost, exchange=exchange)
            done = self.env.timeout(started + cost - self.env.now)

            def complete(_event):
                if rendezvous.on_complete is not None:
                    rendezvous.on_complete(result)
                rendezvous.event.succeed(result)

            done.callbacks.append(complete)
        return rendezvous.event
