"""simbfs sweep: a grid of runs on Dask, resumable.
Checked: a sweep on a local cluster of 2 workers gives the runs' own
results; an interrupted sweep re-run ends with every point exactly once and
a finished one computes nothing; keys follow the complete configuration; a
failing point is recorded and does not stop the sweep; bad input is
refused in one line before anything runs.

Ctrl-C (SIGINT to the process group) on a parallel sweep prints one line
and keeps what finished; a second sweep into a directory in use is
refused; Dask says nothing when port 8787 is taken; a refused sweep
creates nothing; a failed point fails the command and is retried by a
re-run."""

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from simbfs import sweep
from simbfs.cli import main
from simbfs.errors import UserError
from simbfs.runner import RunConfig, run

BASE = RunConfig(machine="tsubame2", scale=12, roots=2, validate=False)


def _rows(out):
    with open(out / sweep.RESULTS) as stream:
        return list(csv.DictReader(stream))


def test_a_sweep_on_two_dask_workers_reproduces_its_runs(tmp_path):
    grid = sweep.parse_grid(["nodes=16,64", "algorithm=ueno2d,ueno2d:sv=atomic"])
    points = sweep.expand(BASE, grid)
    store = sweep.SweepStore(tmp_path)
    store.prepare()
    assert sweep.compute(points, store, jobs=2) == 4
    rows = sweep.finish(points, grid, store)
    assert [(r["nodes"], r["algorithm"]) for r in rows] == [("16", "ueno2d"), ("16", "ueno2d:sv=atomic"),
                                                            ("64", "ueno2d"), ("64", "ueno2d:sv=atomic")]
    direct = run(RunConfig(machine="tsubame2", scale=12, roots=2, validate=False, nodes=64,
                           algorithm="ueno2d:sv=atomic"))
    assert rows[3]["harmonic_mean_teps"] == direct["teps"]["harmonic_mean"]
    assert len(_rows(tmp_path)) == 4 and (tmp_path / sweep.PLOT).stat().st_size > 0
    assert all(float(row["wall_time_s"]) > 0 for row in _rows(tmp_path))  # each point's, as its document says
    assert sweep.compute(points, store, jobs=2) == 0  # finished: nothing to do


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_interrupted_sweep_resumes_to_every_point_once(tmp_path, jobs):
    grid = sweep.parse_grid(["nodes=16,64", "network.injection_bandwidth=3GB/s,6GB/s,12GB/s"])
    points = sweep.expand(BASE, grid)
    store = sweep.SweepStore(tmp_path)
    store.prepare()
    finished = []

    def interrupt(point, result):
        finished.append(point)
        if len(finished) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep.compute(points, store, jobs=jobs, on_stored=interrupt)
    kept = sum(store.done(point) for point in points)
    assert 2 <= kept < 6  # what finished is kept, the rest is not
    assert sweep.compute(points, store, jobs=jobs) == 6 - kept
    sweep.finish(points, grid, store)
    rows = _rows(tmp_path)
    assert len(rows) == 6 and len({r["key"] for r in rows}) == 6
    assert sweep.compute(points, store, jobs=jobs) == 0


def test_keys_follow_the_complete_configuration():
    one = sweep.config_key(RunConfig(machine="tsubame2", nodes=64, scale=12))
    assert one == sweep.config_key(RunConfig(machine="tsubame2", nodes=64, scale=12))
    assert one != sweep.config_key(RunConfig(machine="tsubame2", nodes=64, scale=13))
    assert one != sweep.config_key(RunConfig(machine="tsubame2", nodes=64, scale=12,
                                             overrides=["gpu.pcie_bandwidth=3GB/s"]))


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path):
    grid = sweep.parse_grid(["nodes=64,96"])
    points = sweep.expand(BASE, grid)
    store = sweep.SweepStore(tmp_path)
    store.prepare()
    sweep.compute(points, store)
    rows = sweep.finish(points, grid, store)
    assert [r["status"] for r in rows] == ["ok", "error"] and "power of two" in rows[1]["error"]


def test_a_sweep_file_carries_values_with_commas(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text("grid:\n  network.link_bandwidth: ['2 GB/s', '4 GB/s']\n  nodes: [16, 64]\n")
    assert sweep.parse_grid([], path) == {"network.link_bandwidth": ["2 GB/s", "4 GB/s"], "nodes": ["16", "64"]}


def test_an_algorithm_variant_keeps_its_options_on_the_command_line():
    # the second option of a variant is not an algorithm of its own
    assert sweep.parse_grid(["algorithm=cp1d-spi:compression=off,threads=16,cp1d-mpi,lin1d:relay=off"]) == {
        "algorithm": ["cp1d-spi:compression=off,threads=16", "cp1d-mpi", "lin1d:relay=off"]}


@pytest.mark.parametrize("grid,message", [
    (["--grid", "nodes"], "KEY=V1,V2"),
    (["--grid", "nodes=16,,64"], "empty value"),
    (["--grid", "nodes=16", "--grid", "nodes=64"], "given twice"),
    (["--grid", "gpu.bogus=1,2"], "no such machine parameter"),
    (["--grid", "scale=ten"], "whole number"),
    (["--grid", "mode=fast"], "one of"),
    ([], "at least one --grid"),
    (["--grid", "network.injection_bandwidth=1GB/s,fast"], "--grid network.injection_bandwidth=fast: "),
    (["--grid", "nodes=16,64", "--grid", "gpu.pcie_bandwidth=8GB/s,slow"], "'slow'"),
    (["--grid", "algorithm=ueno2d,ueno3d"], "--grid algorithm=ueno3d: unknown algorithm"),
])
def test_bad_grids_are_refused_in_one_line(grid, message, tmp_path, capsys):
    """A refused sweep creates nothing, not even --out."""
    assert main(["sweep", "tsubame2", "--out", str(tmp_path / "out"), "--quiet", *grid]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("simbfs: error: ") and message in err
    assert not (tmp_path / "out").exists()


def test_an_unusable_out_is_refused_before_anything_is_created(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    for out in (tmp_path / "file", tmp_path / "file" / "sub" / "dir"):
        assert main(["sweep", "tsubame2", "--grid", "nodes=16", "--out", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "is a file" in err
    assert sorted(os.listdir(tmp_path)) == ["file"]


def test_the_command_writes_the_table_and_reruns_in_no_time(tmp_path, capsys):
    args = ["sweep", "tsubame2", "--scale", "12", "--roots", "1", "--grid", "nodes=16,64", "--jobs", "1",
            "--out", str(tmp_path), "--quiet"]
    assert main(args) == 0
    assert "2 computed now" in capsys.readouterr().out
    assert main(args) == 0
    assert "0 computed now" in capsys.readouterr().out
    assert len(_rows(tmp_path)) == 2


def test_an_unreachable_scheduler_is_a_users_error(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep, "SCHEDULER_TIMEOUT", "1s")
    points = sweep.expand(BASE, sweep.parse_grid(["nodes=16"]))
    store = sweep.SweepStore(tmp_path)
    store.prepare()
    with pytest.raises(UserError, match="Dask scheduler"):
        sweep.compute(points, store, scheduler="tcp://127.0.0.1:9")


def test_an_executed_run_reports_each_root_to_a_progress_bar():
    """On a terminal the roots advance a bar (tqdm); the bar gets the
    roots' count, one label per root and an end."""
    seen = []

    def bar(total, unit):
        seen.append((total, unit))
        return seen.append

    messages = []
    run(RunConfig(machine="tsubame2", nodes=16, scale=12, roots=3), messages.append, bar=bar)
    assert seen[0] == (3, "roots") and len(seen) == 5 and seen[-1] is None
    assert not any(message.startswith("root ") for message in messages)  # the bar replaces the lines


@pytest.mark.parametrize("machine,algorithm", [("bluegene_q", "cp1d-spi"), ("bluegene_q", "bsp1d-do"),
                                               ("bluegene_q", "cp2d"), ("sunway_taihulight", "lin1d"),
                                               ("tsubame2", "ueno2d")])
def test_a_projection_reports_each_root_to_the_progress_bar(machine, algorithm):
    """A projection's profile advances the bar root by root."""
    seen = []

    def bar(total, unit):
        seen.append((total, unit))
        return seen.append

    run(RunConfig(machine=machine, algorithm=algorithm, nodes=64, scale=16, roots=3, mode="project",
                  profile_scale=12), bar=bar)
    assert seen[0] == (3, "roots") and len(seen) == 5 and seen[-1] is None


class _NotingBar:
    """A stand-in for the CLI's tqdm bar: counts the roots, keeps the notes."""

    def __init__(self):
        self.labels, self.notes = [], []

    def __call__(self, label):
        self.labels.append(label)

    def note(self, text):
        self.notes.append(text)


@pytest.mark.parametrize("machine,algorithm,nodes", [
    ("bluegene_q", "bsp1d-do", 32), ("bluegene_q", "cp1d-spi", 32), ("bluegene_q", "cp1d-mpi", 32),
    ("bluegene_q", "cp2d", 32), ("cell_be", "cell-overlap", None), ("sunway_taihulight", "lin1d", 16),
    ("tsubame2", "ueno2d", 16)])
def test_an_executed_run_shows_each_level_as_it_ends(machine, algorithm, nodes):
    """Every executed algorithm hands each finished level to the progress
    display, in the order of the result's level records, so a long root
    shows where it is."""
    shown = _NotingBar()
    doc = run(RunConfig(machine=machine, algorithm=algorithm, nodes=nodes, scale=12, roots=2),
              bar=lambda total, unit: shown)
    expected = [f"root {1 + [r['root'] for r in doc['roots']].index(level['root'])}/2: level {level['level']} "
                f"({level['direction']}, {level['frontier_vertices']:,} frontier vertices) done"
                for level in doc["levels"]]
    assert shown.notes == expected
    assert len(shown.labels) == 3 and shown.labels[-1] is None


def test_without_a_bar_level_lines_are_rate_limited(monkeypatch):
    """Plain lines (stderr not a terminal): a level's end is a line only
    when the last line is LEVEL_LINE_AFTER_S old, so short roots stay at one
    line each."""
    import simbfs.runner as runner

    config = RunConfig(machine="bluegene_q", algorithm="bsp1d-do", nodes=32, scale=12, roots=2)
    quiet = []
    doc = run(config, quiet.append)
    assert [m for m in quiet if m.startswith("root ")] == [f"root {i}/2: vertex {r['root']}"
                                                          for i, r in enumerate(doc["roots"], start=1)]
    monkeypatch.setattr(runner, "LEVEL_LINE_AFTER_S", 0.0)
    every = []
    run(config, every.append)
    assert sum(" done" in m for m in every) == len(doc["levels"])


TINY_SWEEP = ["sweep", "tsubame2", "--scale", "12", "--roots", "1", "--no-validate", "--quiet"]


def test_a_failed_point_fails_the_command_and_a_rerun_retries_it(tmp_path, capsys):
    """A failed point is not done: the command exits 1 and names it, and a
    re-run computes it again (and only it)."""
    args = [*TINY_SWEEP, "--grid", "nodes=64,96", "--jobs", "1", "--out", str(tmp_path)]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "2 computed now, 1 failed" in captured.out
    assert captured.err.startswith("simbfs: error: point nodes=96 failed: ") and "power of two" in captured.err
    assert len(captured.err.splitlines()) == 1
    assert main(args) == 1
    assert "1 computed now, 1 failed" in capsys.readouterr().out  # nodes=96 again, nodes=64 kept
    assert [r["status"] for r in _rows(tmp_path)] == ["ok", "error"]
    points = sweep.expand(BASE, sweep.parse_grid(["nodes=64,96"]))
    store = sweep.SweepStore(tmp_path / "api")
    with store:
        assert sweep.compute(points, store) == 2
        assert [store.done(point) for point in points] == [True, False]
        assert sweep.compute(points, store) == 1  # the failed one, retried


def test_a_second_sweep_into_a_busy_directory_is_refused(tmp_path, capsys):
    """While a sweep holds DIR, another one into DIR is refused before any
    work, in one line; once the first is done it runs."""
    args = [*TINY_SWEEP, "--grid", "nodes=16,64", "--jobs", "1", "--out", str(tmp_path)]
    first = sweep.SweepStore(tmp_path)
    first.prepare()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"simbfs: error: another simbfs sweep (process {os.getpid()}) is writing into {tmp_path}; "
                   f"wait for it to finish (then re-run this one: it reuses the points already done), "
                   f"or give another --out")
    assert os.listdir(tmp_path / sweep.POINTS_DIR) == [] and not (tmp_path / sweep.RESULTS).exists()
    with pytest.raises(UserError, match="another simbfs sweep"):
        sweep.SweepStore(tmp_path).prepare()
    first.close()
    assert main(args) == 0
    assert len(_rows(tmp_path)) == 2


def test_a_dead_sweeps_lock_is_released(tmp_path):
    """The lock is the system's (flock): a sweep killed with SIGKILL leaves
    no stale lock behind."""
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom simbfs.sweep import SweepStore\n"
                               "store = SweepStore(sys.argv[1])\nstore.prepare()\n"
                               "print('locked', flush=True)\ntime.sleep(120)",
                               str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(UserError, match=f"process {holder.pid}"):
            sweep.SweepStore(tmp_path).prepare()
    finally:
        holder.kill()
        holder.wait(timeout=60)
    with sweep.SweepStore(tmp_path):
        pass


def test_a_parallel_sweep_says_nothing_when_port_8787_is_taken(tmp_path, capfd, recwarn):
    """Dask's scheduler starts an HTTP server on 8787 even with the
    dashboard off, and warns on stderr when the port is taken; the sweep
    starts no dashboard and prints no warning."""
    taken = socket.socket()
    try:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("", 8787))
        taken.listen()
    except OSError:
        pass  # something else holds it already: taken all the same
    try:
        assert main([*TINY_SWEEP, "--grid", "nodes=16,64", "--jobs", "2", "--out", str(tmp_path)]) == 0
    finally:
        taken.close()
    captured = capfd.readouterr()
    assert captured.err == "" and "2 of 2 points" in captured.out
    assert not [w for w in recwarn if "already in use" in str(w.message)]


def test_ctrl_c_on_a_parallel_sweep_prints_one_line_and_keeps_what_finished(tmp_path):
    """A terminal's Ctrl-C signals the whole process group, Dask's worker
    processes too, which would each print tracebacks (~60 lines in all).
    The sweep prints one line, exits with status 130, keeps the finished
    points and leaves no process behind."""
    out = tmp_path / "out"
    seeds = 40  # far more than finish before the signal
    command = [sys.executable, "-m", "simbfs", "sweep", "tsubame2", "--nodes", "16", "--scale", "12",
               "--roots", "1", "--no-validate", "--grid", "seed=" + ",".join(map(str, range(1, seeds + 1))),
               "--jobs", "2", "--out", str(out), "--quiet"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)  # its own process group, as a terminal's job
    try:
        deadline = time.monotonic() + 300
        while len(list(out.glob(f"{sweep.POINTS_DIR}/*.json"))) < 2:
            assert child.poll() is None and time.monotonic() < deadline, "no point finished"
            time.sleep(0.1)
        os.killpg(child.pid, signal.SIGINT)
        stdout, stderr = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert stderr == "simbfs: interrupted\n" and stdout == ""
    assert child.returncode == 130
    kept = [json.loads(path.read_text()) for path in out.glob(f"{sweep.POINTS_DIR}/*.json")]
    assert 2 <= len(kept) < seeds and all(record["status"] == "ok" for record in kept)
    rows = _rows(out)
    assert len(rows) == len(kept) and all(row["status"] == "ok" for row in rows)
    deadline = time.monotonic() + 60  # the workers go with the sweep
    while True:
        try:
            os.killpg(child.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "worker processes outlived the sweep"
        time.sleep(0.2)
