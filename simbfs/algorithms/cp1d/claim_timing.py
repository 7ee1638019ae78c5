"""When a bottom-up level's claims become visible to the threads that
probed for them (cp1d-spi), and the claim timing that agrees with the level
it prices.

Bottom-up claim visibility
    A probe waits in its open packet until the packet fills (half a packet's
    worth of that stream's edges on average, at the stream's rate, or until
    the level's end), crosses the network, is answered into an open packet
    of the reverse stream, and crosses back (pricing.claim_delay_s). The
    sweep time and stream rates this needs come from the level itself: the
    level is evaluated once with no remote claim visible (an upper bound on
    probes; :class:`NeverVisible`), then again under the sweep times and
    stream rates it gives, until they agree
    (:func:`self_consistent_claim_timing`).

A claim timing is what work.BottomUpLevel is called with: the executed run's
:class:`ClaimDelay` (every (prober, owner) pair's trip and rates), the
projection's :class:`TargetClaimDelay` (the target's mean ones), or
:class:`NeverVisible` (the MPI code, whose answers only arrive after the
exchange).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine import Simulation
from ...engine.messaging import DirectPackets
from .pricing import fill_wait_s, packet_trip_s, probe_claim_delay_s, probe_queue_share


# The most (prober, owner) pairs whose claim-delay parts are tabled (three
# float64 tables: 96 MiB); beyond, the delays are asked segment by segment.
# Either way gives the same values; this only bounds the tables' memory.
PAIR_TABLES_MAX = 1 << 22


def offers_pair_tables(count: int, pairs: int) -> bool:
    """Whether a claim timing offers (prober, owner) tables for a level of
    ``count`` entries among ``pairs`` pairs: when the entries outnumber the
    pairs (each pair's parts then computed once pay off) and the tables
    stay within PAIR_TABLES_MAX."""
    return pairs < count and pairs <= PAIR_TABLES_MAX


class ClaimDelay:
    """Time from a remote probe to its claim being visible to the prober
    (pricing.claim_delay_s), for the (prober, owner) pairs of a level.

    The level's streams' rates are given on its ``pairs`` (ascending keys
    sender * N + receiver: the pairs its first pass sends on, which hold
    every probe's and every answer's pair), so that nothing here is N x N
    beyond the bounded tables of :meth:`pair_tables`."""

    def __init__(self, sim: Simulation, pairs: np.ndarray, sweep_time: np.ndarray, probe_rate=None,
                 answer_rate=None, per_packet: float = 1.0, queue_s=0.0):
        self.sweep_time = sweep_time
        self._topology = sim.topology
        self._per_host = sim.machine.network.processes_per_host
        self._pairs = pairs
        # per node: a probe's wait in its prober's injection queue, spread
        # over the delay's two trips (pricing.probe_queue_share)
        queue = np.broadcast_to(probe_queue_share(queue_s), sweep_time.shape)
        self._queue = queue if queue.any() else None
        self._network = sim.machine.network
        self._layer = DirectPackets(sim.machine.messaging)
        # edges per second on each of ``pairs`` (sender to receiver), or
        # None (no buffering): probes flow from prober to owner, answers
        # from owner to prober
        self._probe_rate = probe_rate
        self._answer_rate = answer_rate
        self._per_packet = per_packet
        self._pair_table = None  # (trip, probe fill, answer fill) of every pair, once needed

    def _rate_of(self, rate: np.ndarray, senders: np.ndarray, receivers: np.ndarray) -> np.ndarray:
        """``rate`` (one per pair of the level) of the pairs (senders,
        receivers); zero for a pair the level does not send on."""
        keys = senders * len(self.sweep_time) + receivers
        if not len(self._pairs):
            return np.zeros(keys.shape)
        at = np.minimum(np.searchsorted(self._pairs, keys), len(self._pairs) - 1)
        return np.where(self._pairs[at] == keys, rate[at], 0.0)

    def _parts(self, prober: np.ndarray, owner: np.ndarray):
        """The parts of the delay that depend only on the (prober, owner)
        pair: its trip, its probe's fill wait and its answer's."""
        k = self._per_host
        trip = packet_trip_s(self._topology.hops(prober // k, owner // k), self._network, self._layer)
        if self._queue is not None:
            trip = trip + self._queue[prober]
        fills = [np.zeros(trip.shape) if rate is None else fill_wait_s(self._per_packet, self._rate_of(rate, *ends))
                 for rate, ends in ((self._probe_rate, (prober, owner)), (self._answer_rate, (owner, prober)))]
        return (trip, *fills)

    def pair_tables(self, count: int):
        """(trip, probe fill, answer fill) of every (prober, owner) pair, N * N
        tables indexed prober * N + owner, when ``count`` probes (or an upper
        bound of them) outnumber the pairs and the tables stay small
        (PAIR_TABLES_MAX pairs: 2,048 nodes); each pair's parts once, with
        the same element-wise arithmetic, so the same values. Else None."""
        N = len(self.sweep_time)
        if not offers_pair_tables(count, N * N):
            return None
        if self._pair_table is None:  # every pair, in prober-major order
            prober, owner = np.divmod(np.arange(N * N, dtype=np.int64), N)
            self._pair_table = self._parts(prober, owner)
        return self._pair_table

    def __call__(self, prober: np.ndarray, owner: np.ndarray, t: np.ndarray) -> np.ndarray:
        N = len(self.sweep_time)
        tables = self.pair_tables(len(prober))
        if tables is not None:
            trip, probe_fill, answer_fill = (table[prober * N + owner] for table in tables)
        else:
            trip, probe_fill, answer_fill = self._parts(prober, owner)
        return probe_claim_delay_s(self.sweep_time[prober], self.sweep_time[owner], t, probe_fill, answer_fill,
                                   trip)


class NeverVisible:
    """Claims found by remote probes are not seen within the level: the
    bulk-synchronous exchange of cp1d-mpi, and the first pass of a
    cp1d-spi bottom-up level. Only the order of the threads' visits matters
    then, so every sweep takes one unit of time."""

    never_visible = True  # (BottomUpLevel then skips the delays)

    def __init__(self, nodes: int):
        self.sweep_time = np.ones(nodes)

    def __call__(self, prober, owner, t):
        return np.full(len(prober), np.inf)


class TargetClaimDelay:
    """ClaimDelay at a projection's target's mean rates, on the virtual
    layout: the same pricing.probe_claim_delay_s, with one mean trip and
    fill wait for all pairs."""

    def __init__(self, virtual: int, sweep_s: float, trip_s: float, probe_fill_s: float, answer_fill_s: float):
        self.sweep_time = np.full(virtual, sweep_s)
        self._trip = trip_s
        self._probe_fill = probe_fill_s
        self._answer_fill = answer_fill_s
        self._pair_table = None

    def pair_tables(self, count: int):
        """ClaimDelay.pair_tables of these terms, the same for every pair: the
        level's compiled walk then evaluates the formula itself, and scans
        only the segments it reads, where offers_pair_tables."""
        pairs = len(self.sweep_time) ** 2
        if not offers_pair_tables(count, pairs):
            return None
        if self._pair_table is None:
            self._pair_table = tuple(np.full(pairs, value, dtype=np.float64)
                                     for value in (self._trip, self._probe_fill, self._answer_fill))
        return self._pair_table

    def uniform_parts(self) -> tuple:
        """(trip, probe fill, answer fill): the same for every pair, which is
        what lets a projection evaluate a level from its segment table
        (work.BottomUpLevel.counted)."""
        return self._trip, self._probe_fill, self._answer_fill

    def __call__(self, prober, owner, t):
        return probe_claim_delay_s(self.sweep_time[prober], self.sweep_time[owner], t, self._probe_fill,
                                   self._answer_fill, self._trip)


# A bottom-up level's claim timing assumes the level's sweep times and
# stream rates; the level it prices must give them back, within this share.
CLAIM_TIMING_TOLERANCE = 0.03
CLAIM_TIMING_PASSES = 6  # evaluations at most, after the first pass (which sees no claim)


@dataclass(frozen=True)
class ClaimTiming:
    """What a bottom-up level's claim timing assumes (scalars, or per-node
    and per-pair arrays): the sweep times, the probe and answer streams'
    edges per second, the edges per packet, and how long a probe waits in
    its prober's injection queue (pricing.level_queue_wait_s, per node)."""

    sweep_s: object
    probe_rate: object
    answer_rate: object
    per_packet: float
    queue_s: object = 0.0  # per node: a probe's wait in its sender's injection queue

    def toward(self, other: "ClaimTiming", share: float) -> "ClaimTiming":
        """``share`` of the way from this timing to ``other``, term by term."""
        def mix(a, b):
            return np.asarray(a) + share * (np.asarray(b) - np.asarray(a))
        return ClaimTiming(mix(self.sweep_s, other.sweep_s), mix(self.probe_rate, other.probe_rate),
                           mix(self.answer_rate, other.answer_rate),
                           float(mix(self.per_packet, other.per_packet)), mix(self.queue_s, other.queue_s))

    @property
    def mean_sweep_s(self) -> float:
        return float(np.mean(self.sweep_s))

    @property
    def mean_queue_s(self) -> float:
        return float(np.mean(self.queue_s))


def _timings_agree(assumed: "ClaimTiming", given: "ClaimTiming", tolerance: float) -> bool:
    """Whether a priced level gives back the timing it assumed: its sweep,
    and its probes' queue wait, each within ``tolerance`` of the sweep."""
    scale = tolerance * max(given.mean_sweep_s, 1e-300)
    return (abs(given.mean_sweep_s - assumed.mean_sweep_s) <= scale
            and abs(given.mean_queue_s - assumed.mean_queue_s) <= scale)


def self_consistent_claim_timing(evaluate, first: ClaimTiming, tolerance: float = CLAIM_TIMING_TOLERANCE,
                                 passes: int = CLAIM_TIMING_PASSES):
    """The evaluation of a bottom-up level whose claim timing agrees with
    the level it prices.

    ``first`` is the timing of a first pass that sees no remote claim: the
    most probes, the longest sweeps. ``evaluate(timing)`` evaluates and
    prices the level under ``timing`` and returns (result, the timing the
    priced level gives). Shorter sweeps and faster streams make claims
    visible later in a sweep, so more probes go out and the level is
    slower: the sweep a timing gives falls as the sweep it assumes grows.
    So the first timing A gives a shorter one B, and the consistent timing
    lies between them. On the timings from B (share 0) to A (share 1), the
    gap g = (sweep given) - (sweep assumed) is >= 0 at B and < 0 at A;
    regula falsi with the Illinois halving finds where it vanishes, to
    within ``tolerance`` of the sweep, in at most ``passes`` evaluations in
    all (the given sweep hardly moves with the assumed one, which a plain
    iteration or midpoints reach only slowly). A timing agrees when the
    sweep and the probes' queue wait it gives are both within ``tolerance``
    of the sweep of the ones it assumed. Returns the last result. The
    first pass's timing alone is 2.4-4.6 times the consistent sweep at the
    paper's sizes: claims would look visible too early and too few probes
    be counted."""
    result_a, b = evaluate(first)
    gap_a = b.mean_sweep_s - first.mean_sweep_s
    if _timings_agree(first, b, tolerance) or passes <= 1:
        return result_a
    del result_a  # (a level's work: let it go before the next pass)
    result, c = evaluate(b)
    gap_b = c.mean_sweep_s - b.mean_sweep_s
    if _timings_agree(b, c, tolerance) or gap_a >= 0 or gap_b <= 0:
        return result  # agreed, or the gap does not change sign between them (no bracket): the later pass
    low, high = (0.0, gap_b), (1.0, gap_a)  # (share toward A, gap)
    side = 0
    for _ in range(passes - 2):
        share = low[0] - low[1] * (high[0] - low[0]) / (high[1] - low[1])
        assumed = b.toward(first, share)
        result = None  # (the last pass's work: let it go before this one)
        result, given = evaluate(assumed)
        gap = given.mean_sweep_s - assumed.mean_sweep_s
        if _timings_agree(assumed, given, tolerance):
            break
        if gap > 0:
            low = (share, gap)
            if side == 1:
                high = (high[0], high[1] / 2)
            side = 1
        else:
            high = (share, gap)
            if side == -1:
                low = (low[0], low[1] / 2)
            side = -1
    return result
