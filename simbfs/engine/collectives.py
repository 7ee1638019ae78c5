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

With a recorder (engine/recorder.py), every completed collective reports,
for every rank: the work it did in ``after`` (on ``cpu``, named by the
caller's ``work``, e.g. ``top-down``), its wait for the last rank (``wait``
on ``cpu``) and the operation itself (``alltoallv`` on ``nic``; a barrier,
allreduce, allgather or reduce-scatter on ``collective``), each with the
caller's ``level``.
So a bulk-synchronous node's spans tile its whole run. Recording happens
after the timing is fixed and never changes it.

The prices are the pure functions of engine/costs.py (barrier_time,
allreduce_time, allgather_time, reduce_scatter_time; an alltoallv is the network's flow-level
exchange_cost), which projections call directly with no simpy objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import simpy

from ..machine.model import CollectiveModel
from .costs import ExchangeCost, allgather_time, allreduce_time, barrier_time, reduce_scatter_time
from .messaging import MessagingLayer
from .network import Network
from .traffic import AllToAll, PairTraffic
from .recorder import NULL_RECORDER


@dataclass(frozen=True)
class CollectiveResult:
    """What every rank gets back from a collective."""

    value: Any
    started_s: float  # when the last rank arrived
    cost_s: float
    exchange: ExchangeCost | None = None
    # an alltoallv's payload bytes sent by each rank, when a recorder keeps
    # them (a trace's bytes in flight)
    sent_bytes: np.ndarray | None = None


class _Rendezvous:
    __slots__ = ("kind", "contributions", "arrivals", "last_arrival", "on_complete", "event", "arrived_at",
                 "worked")

    def __init__(self, env: simpy.Environment, size: int, kind: str, recording: bool):
        self.kind = kind
        self.contributions: list[Any] = [None] * size
        # per rank, when recording: its arrival time and its (work, seconds, level)
        self.arrived_at = np.zeros(size) if recording else None
        self.worked: list[Any] = [None] * size if recording else None
        self.arrivals = 0
        self.last_arrival = env.now
        self.on_complete = None
        self.event = env.event()


# the resource a collective occupies, in recorded spans
_RESOURCE = {"alltoallv": "nic", "allreduce": "collective", "allgather": "collective", "reduce_scatter": "collective",
             "barrier": "collective"}


class Collectives:
    def __init__(self, env: simpy.Environment, nodes: int, model: CollectiveModel, network: Network,
                 recorder=NULL_RECORDER):
        self.env = env
        self.recorder = recorder
        self.nodes = nodes
        self.model = model
        self.network = network
        self._calls = [0] * nodes  # per rank, its collectives so far (a list: numpy scalars cost more per call)
        self._open: dict[int, _Rendezvous] = {}

    # ----------------------------------------------------------- cost models
    def barrier_cost(self) -> float:
        return barrier_time(self.model, self.nodes)

    def allreduce_cost(self, nbytes: float) -> float:
        return allreduce_time(self.model, self.nodes, nbytes)

    def allgather_cost(self, total_bytes: float) -> float:
        return allgather_time(self.model, self.nodes, total_bytes)

    def reduce_scatter_cost(self, total_bytes: float) -> float:
        return reduce_scatter_time(self.model, self.nodes, total_bytes)

    # ------------------------------------------------------------ operations
    def barrier(self, rank: int, after: float = 0.0, work: str | None = None, level: int | None = None) -> simpy.Event:
        return self._join("barrier", rank, None, lambda _: (None, self.barrier_cost(), None), after=after,
                          work=work, level=level)

    def allreduce(self, rank: int, value: np.ndarray, op: np.ufunc = np.add,
                  on_complete: Callable[[CollectiveResult], None] | None = None,
                  after: float = 0.0, work: str | None = None, level: int | None = None) -> simpy.Event:
        """Combine ``value`` (a small numpy array) over all ranks with ``op``.

        ``op`` is a numpy ufunc (``np.add``, ``np.maximum``, ``np.logical_or``).
        ``on_complete(result)``, if given by any rank, runs once when the operation
        completes and before any rank resumes: the place for work that all
        ranks would do identically on the reduced value (deciding the next
        BFS direction, say)."""
        value = np.asarray(value)

        def finish(contributions):
            if value.dtype.kind in "biu":
                # Integers combine exactly in any grouping: fold them one by
                # one rather than stacking N of them (N x words: 2 GB for
                # cp1d's heavy bitmaps on 65,536 nodes, which grow with N).
                # (in the dtype numpy's reduction gives: add widens to int64)
                total = op.reduce(np.stack(contributions[:1]), axis=0)
                for contribution in contributions[1:]:
                    op(total, contribution, out=total)
            else:  # floats: numpy's own reduction order, as always
                total = op.reduce(np.stack(contributions), axis=0)
            return total, self.allreduce_cost(value.nbytes), None

        return self._join("allreduce", rank, value, finish, on_complete, after, work, level)

    def allgather(self, rank: int, nbytes: float, gather: Callable[[], Any] | None = None,
                  on_complete: Callable[[CollectiveResult], None] | None = None,
                  after: float = 0.0, work: str | None = None, level: int | None = None) -> simpy.Event:
        """Every rank contributes ``nbytes``; ``gather()`` (called once, when
        the last rank calls) builds the replicated result from the shared
        state; ``on_complete(result)``, if given, runs once when the
        operation completes, as for :meth:`allreduce`."""

        def finish(contributions):
            total = float(sum(contributions))
            return (gather() if gather else None), self.allgather_cost(total), None

        return self._join("allgather", rank, float(nbytes), finish, on_complete, after=after, work=work,
                          level=level)

    def reduce_scatter(self, rank: int, nbytes: float, on_complete: Callable[[CollectiveResult], None] | None = None,
                       after: float = 0.0, work: str | None = None, level: int | None = None) -> simpy.Event:
        """Every rank holds a value whose segments belong to the ranks and
        gets its own segment combined over all ranks; ``nbytes`` is the part
        of the total that rank ``rank`` accounts for (the price is that of
        the total, :func:`~simbfs.engine.costs.reduce_scatter_time`). The
        caller combines the real data itself; ``on_complete`` as for
        :meth:`allreduce`."""

        def finish(contributions):
            return None, self.reduce_scatter_cost(float(sum(contributions))), None

        return self._join("reduce_scatter", rank, float(nbytes), finish, on_complete, after=after, work=work,
                          level=level)

    def alltoallv(self, rank: int, deliver: Callable[[], tuple[np.ndarray, np.ndarray | None, Any]],
                  after: float = 0.0, messaging: MessagingLayer | None = None, work: str | None = None,
                  level: int | None = None) -> simpy.Event:
        """Bulk exchange. ``deliver()`` is called once, when the last rank
        arrives; it returns (traffic, packets, value): a PairTraffic or an
        AllToAll (engine/traffic.py) and None, or for small machines a dense payload
        bytes matrix and its packets matrix or None; value is handed to
        every rank (the delivered messages).
        ``messaging``: who pays which software overhead (default: per
        packet, engine/messaging.py)."""

        def finish(_):
            payload, packets, value = deliver()
            traffic = payload if isinstance(payload, AllToAll) else PairTraffic.of(payload, packets)
            cost = self.network.exchange_cost(traffic, messaging=messaging)
            return value, cost.time_s, cost, (traffic.sent_by() if self.recorder.enabled else None)

        return self._join("alltoallv", rank, None, finish, after=after, work=work, level=level)

    # ------------------------------------------------------------- machinery
    def _join(self, kind: str, rank: int, contribution: Any, finish: Callable,
              on_complete: Callable[[CollectiveResult], None] | None = None,
              after: float = 0.0, work: str | None = None, level: int | None = None) -> simpy.Event:
        """Rank ``rank`` joins its next collective, arriving ``after`` seconds
        from now, having spent them on ``work`` (for the recorder; None
        records no work span, for callers that record their own)."""
        if after < 0:
            raise ValueError(f"rank {rank} cannot arrive at a {kind} {after} s in the past")
        call = self._calls[rank]
        self._calls[rank] = call + 1
        rendezvous = self._open.get(call)
        if rendezvous is None:
            rendezvous = self._open[call] = _Rendezvous(self.env, self.nodes, kind, self.recorder.enabled)
        elif rendezvous.kind != kind:
            # SPMD code that diverged: every rank must call the same collectives in order.
            raise RuntimeError(f"collective #{call}: rank {rank} called {kind}, other ranks {rendezvous.kind}")
        if on_complete is not None:
            rendezvous.on_complete = on_complete
        rendezvous.contributions[rank] = contribution
        rendezvous.arrivals += 1
        rendezvous.last_arrival = max(rendezvous.last_arrival, self.env.now + after)
        if rendezvous.arrived_at is not None:
            rendezvous.arrived_at[rank] = self.env.now + after
            rendezvous.worked[rank] = (work, after, level)
        if rendezvous.arrivals == self.nodes:
            del self._open[call]
            value, cost, exchange, *sent = finish(rendezvous.contributions)
            started = rendezvous.last_arrival
            result = CollectiveResult(value=value, started_s=started, cost_s=cost, exchange=exchange,
                                      sent_bytes=sent[0] if sent else None)
            done = self.env.timeout(started + cost - self.env.now)

            def complete(_event):
                if rendezvous.arrived_at is not None:
                    self._record(rendezvous, result)
                if rendezvous.on_complete is not None:
                    rendezvous.on_complete(result)
                rendezvous.event.succeed(result)

            done.callbacks.append(complete)
        return rendezvous.event

    def _record(self, rendezvous: _Rendezvous, result: CollectiveResult) -> None:
        """Every rank's work, wait and share of the operation (module docstring)."""
        record = self.recorder.record
        resource = _RESOURCE[rendezvous.kind]
        started, ended = result.started_s, result.started_s + result.cost_s
        for rank in range(self.nodes):
            arrived = float(rendezvous.arrived_at[rank])
            work, seconds, level = rendezvous.worked[rank]
            detail = {} if level is None else {"level": level}
            if work is not None and seconds > 0:
                record(rank, "cpu", arrived - seconds, arrived, work, **detail)
            if arrived < started:
                record(rank, "cpu", arrived, started, "wait", on=rendezvous.kind, **detail)
            if ended > started:
                if result.sent_bytes is not None:
                    detail = {**detail, "bytes": float(result.sent_bytes[rank])}
                record(rank, resource, started, ended, rendezvous.kind, **detail)
