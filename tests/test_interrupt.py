"""Ctrl-C stops a run at once: a projection stops between roots rather than
finishing the roots running on its thread pool first (11-12 s, up to 40 s on
a loaded machine), and an executed run stops before the next event rather
than letting every node's program finish the level in which the signal
landed, which simpy would do because it turns an exception raised inside a
process into that process's failure, delivered later."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest
import simpy

from simbfs.bfs.parallel import map_in_order
from simbfs.engine.simulation import run_to_end


def _interrupt_main_thread_when(event: threading.Event) -> None:
    def fire():
        if event.wait(timeout=60):
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=fire, daemon=True).start()


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_an_interrupted_map_does_not_wait_for_the_calls_still_running():
    started, release = threading.Event(), threading.Event()
    finished = []

    def slow(item):
        if item == 0:
            started.set()
            release.wait(timeout=60)  # stands for a root that takes seconds
        finished.append(item)
        return item

    _interrupt_main_thread_when(started)
    try:
        with pytest.raises(KeyboardInterrupt):
            map_in_order(slow, [0, 1, 2, 3], workers=2)
        # a pool's `with` block would wait here until item 0 ended
        assert 0 not in finished
    finally:
        release.set()


def test_a_map_keeps_the_items_order_whatever_the_threads():
    assert map_in_order(lambda x: x * x, range(20), workers=3) == [x * x for x in range(20)]
    assert map_in_order(lambda x: x, [], workers=3) == []


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_an_interrupt_inside_a_node_program_stops_the_simulation_before_the_next_event():
    env = simpy.Environment()
    ran = []

    def program(rank):
        ran.append(rank)
        if rank == 0:
            os.kill(os.getpid(), signal.SIGINT)  # lands inside this process's code
        yield env.timeout(1)

    for rank in range(3):
        env.process(program(rank))
    with pytest.raises(KeyboardInterrupt):
        run_to_end(env)
    assert ran == [0]  # env.run() let ranks 1 and 2 run first
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_run_to_end_runs_a_simulation_to_its_end():
    env = simpy.Environment()
    log = []

    def program(rank):
        yield env.timeout(rank + 1)
        log.append((env.now, rank))

    for rank in range(3):
        env.process(program(rank))
    run_to_end(env)
    assert log == [(1, 0), (2, 1), (3, 2)] and env.now == 3


def test_ctrl_c_on_a_projection_prints_one_line_and_exits_130(tmp_path):
    """SIGINT to the process group, as a terminal's Ctrl-C sends it, once
    the roots are being projected on the thread pool."""
    env = {**os.environ, "SIMBFS_CACHE": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "simbfs", "run", "bluegene_q", "--nodes", "65536", "--scale", "40", "--algorithm",
         "cp1d-spi", "--mode", "project", "--profile-scale", "16", "--roots", "64"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "virtual nodes" in line:  # the roots are on the thread pool now
            break
    os.killpg(process.pid, signal.SIGINT)
    rest = process.stderr.read()
    assert process.wait(timeout=60) == 130
    assert "Traceback" not in rest and rest.rstrip().endswith("simbfs: interrupted")
    assert process.stdout.read() == ""
