"""Collective rendezvous: exact timelines with ranks arriving at different times.

Tiny machine: stage latency 50 ns, collective bandwidth 1 B/ns.
"""

import numpy as np
import pytest
import simpy

from simbfs.engine import Collectives, Network, make_topology
from tests.conftest import tiny_machine


def setup(nodes):
    machine = tiny_machine()
    env = simpy.Environment()
    net = Network(env, make_topology(machine.network, nodes), machine.network, machine.messaging)
    return env, Collectives(env, nodes, machine.collectives, net)


def test_barrier_releases_everyone_after_the_last_arrival_plus_its_cost():
    env, coll = setup(4)
    log = []

    def rank(r, arrive_ns):
        yield env.timeout(arrive_ns * 1e-9)
        result = yield coll.barrier(r)
        log.append((r, round(env.now * 1e9, 6), round(result.started_s * 1e9, 6)))

    for r, t in enumerate([0, 10, 30, 20]):
        env.process(rank(r, t))
    env.run()
    # log2(4) = 2 stages x 50 ns after the last arrival at 30 ns
    assert sorted(log) == [(0, 130, 30), (1, 130, 30), (2, 130, 30), (3, 130, 30)]


def test_allreduce_combines_real_values_and_charges_bytes():
    env, coll = setup(8)
    got = []

    def rank(r):
        result = yield coll.allreduce(r, np.array([r, 1], dtype=np.int64))
        got.append((result.value.tolist(), round(env.now * 1e9, 6)))

    for r in range(8):
        env.process(rank(r))
    env.run()
    # 3 stages x 50 ns + 16 B at 1 B/ns
    assert got == [([28, 8], 166.0)] * 8



@pytest.mark.parametrize("op, dtype, expected", [
    (np.add, np.int32, [6, 2, 3]),  # numpy's reduction widens a sum to int64
    (np.add, np.bool_, [3, 2, 3]),
    (np.minimum, np.int64, [-3, 0, 1]),
    (np.maximum, np.uint8, [3, 1, 1]),
    (np.logical_or, np.bool_, [True, True, True]),
])
def test_allreduce_of_integers_gives_numpys_reduction(op, dtype, expected):
    """Integer and boolean contributions are folded one by one, not
    stacked: the values and the dtype are those of op.reduce over the
    stacked contributions (worked out by hand here)."""
    values = [[0, 0, 1], [1, 1, 1], [2, 1, 1], [3, 0, 0]] if dtype != np.int64 else \
        [[0, 0, 1], [-3, 1, 1], [2, 1, 1], [3, 0, 5]]
    env, coll = setup(4)
    got = []
    shared = np.array(values[0], dtype=dtype)
    shared.setflags(write=False)  # a contribution is only read

    def rank(r):
        mine = shared if r == 0 else np.array(values[r], dtype=dtype)
        result = yield coll.allreduce(r, mine, op)
        got.append(result.value)

    for r in range(4):
        env.process(rank(r))
    env.run()
    reference = op.reduce(np.stack([np.array(v, dtype=dtype) for v in values]), axis=0)
    assert [value.tolist() for value in got] == [expected] * 4 == [reference.tolist()] * 4
    assert all(value.dtype == reference.dtype for value in got)
    assert shared.tolist() == values[0]

def test_on_complete_runs_once_before_any_rank_resumes():
    env, coll = setup(3)
    order = []

    def rank(r):
        yield coll.allreduce(r, np.array([1]), on_complete=lambda res: order.append("hook"))
        order.append(r)

    for r in range(3):
        env.process(rank(r))
    env.run()
    assert order[0] == "hook" and sorted(order[1:]) == [0, 1, 2]


def test_allgather_cost_is_stages_plus_the_others_share():
    env, coll = setup(4)
    # 4 ranks x 100 B: each receives 300 B at 1 B/ns after 2 x 50 ns
    assert coll.allgather_cost(400) == pytest.approx(100e-9 + 300e-9)


def test_collectives_match_calls_in_order():
    env, coll = setup(2)
    seen = []

    def rank(r):
        a = yield coll.allreduce(r, np.array([r + 1]))
        b = yield coll.allreduce(r, np.array([10 * (r + 1)]))
        seen.append((int(a.value[0]), int(b.value[0])))

    env.process(rank(0))
    env.process(rank(1))
    env.run()
    assert seen == [(3, 30), (3, 30)]


def test_one_node_collectives_are_free():
    env, coll = setup(1)
    assert coll.barrier_cost() == 0 and coll.allreduce_cost(8) == 0 and coll.allgather_cost(8) == 0


def test_arriving_after_a_delay_equals_computing_then_arriving():
    env, coll = setup(4)
    log = []

    def rank(r, busy_ns):
        result = yield coll.barrier(r, after=busy_ns * 1e-9)
        log.append((r, round(env.now * 1e9, 6), round(result.started_s * 1e9, 6)))

    for r, t in enumerate([0, 10, 30, 20]):
        env.process(rank(r, t))
    env.run()
    # the same timeline as ranks that compute with timeouts first (test above)
    assert sorted(log) == [(0, 130, 30), (1, 130, 30), (2, 130, 30), (3, 130, 30)]


def test_ranks_calling_different_collectives_is_an_error():
    env, coll = setup(2)

    def rank0():
        yield coll.barrier(0)

    def rank1():
        yield coll.allreduce(1, np.array([1]))

    env.process(rank0())
    env.process(rank1())
    with pytest.raises(RuntimeError, match="called allreduce, other ranks barrier"):
        env.run()


def test_the_completion_hook_may_come_from_any_rank():
    env, coll = setup(2)
    ran = []

    def rank(r):
        hook = (lambda result: ran.append(result.value.tolist())) if r == 0 else None
        yield env.timeout(r * 1e-9)  # rank 0 arrives first, rank 1 completes the rendezvous
        yield coll.allreduce(r, np.array([r + 1]), on_complete=hook)

    env.process(rank(0))
    env.process(rank(1))
    env.run()
    assert ran == [[3]]


def test_a_recorder_sees_each_ranks_work_wait_and_the_operation():
    """Rank 0 computes 10 ns of 'scan', rank 1 computes 40 ns; the allreduce
    of one int64 over 2 ranks costs 1 stage of 50 ns + 8 B at 1 B/ns = 58 ns
    from the last arrival. Rank 0 waits 10..40 ns; both are in the
    allreduce 40..98 ns."""
    from simbfs.engine import TimelineRecorder
    from simbfs.engine.costs import allreduce_time

    machine = tiny_machine()
    env = simpy.Environment()
    net = Network(env, make_topology(machine.network, 2), machine.network, machine.messaging)
    recorder = TimelineRecorder()
    coll = Collectives(env, 2, machine.collectives, net, recorder)
    for r, busy in ((0, 10e-9), (1, 40e-9)):
        env.process(_one_allreduce(coll, r, busy))
    env.run()
    cost = allreduce_time(machine.collectives, 2, 8)
    assert cost * 1e9 == pytest.approx(58)
    spans = sorted((s.node, s.resource, s.what, round(s.start_s * 1e9, 6), round(s.end_s * 1e9, 6), s.detail)
                   for s in recorder.spans)
    end = round(40 + cost * 1e9, 6)
    assert spans == [
        (0, "collective", "allreduce", 40, end, {"level": 3}),
        (0, "cpu", "scan", 0, 10, {"level": 3}),
        (0, "cpu", "wait", 10, 40, {"level": 3, "on": "allreduce"}),
        (1, "collective", "allreduce", 40, end, {"level": 3}),
        (1, "cpu", "scan", 0, 40, {"level": 3}),
    ]
    assert env.now * 1e9 == pytest.approx(end)


def _one_allreduce(coll, rank, busy):
    yield coll.allreduce(rank, np.array([rank], dtype=np.int64), after=busy, work="scan", level=3)


def test_without_a_recorder_nothing_is_kept_and_timing_is_the_same():
    from simbfs.engine import TimelineRecorder

    ends = []
    for recorder in (None, TimelineRecorder()):
        machine = tiny_machine()
        env = simpy.Environment()
        net = Network(env, make_topology(machine.network, 3), machine.network, machine.messaging)
        coll = Collectives(env, 3, machine.collectives, net, *([recorder] if recorder else []))
        for r in range(3):
            env.process(_one_allreduce(coll, r, (r + 1) * 7e-9))
        env.run()
        ends.append(env.now)
    assert ends[0] == ends[1]
