"""Output paths as in every Unix tool: ``-`` is standard
output, a device or a named pipe is written in place, a link is followed
and its target replaced safely, a directory or an unwritable path is
refused before the run. Each flag (--json, --csv, --plot, --trace) on each
kind of path.

Only a regular file is written to a temporary file and renamed over the
path: done to anything else, the rename would make /dev/stdout a regular
file, replace a link by a file, replace a named pipe (its reader hangs),
and make a file named ``-``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import threading

import pytest

from simbfs.cli import main

TINY = ["run", "bluegene_q", "--nodes", "64", "--scale", "10", "--roots", "1", "--quiet"]
FLAGS = ("--json", "--csv", "--plot", "--trace")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBFS_CACHE", str(tmp_path / "cache"))


def looks_like(flag: str, data: bytes) -> bool:
    """What each flag writes, recognised by its format: a result document,
    a per-level table, a PNG picture, a Trace Event Format document."""
    if flag == "--plot":
        return data.startswith(PNG_MAGIC)
    text = data.decode()
    if flag == "--json":
        return json.loads(text)["machine"] == "bluegene_q"
    if flag == "--csv":
        return "level" in next(csv.reader(io.StringIO(text)))
    return "traceEvents" in json.loads(text)


@pytest.mark.parametrize("flag", FLAGS)
def test_a_dash_writes_standard_output_and_the_report_goes_to_stderr(flag, tmp_path, monkeypatch, capfdbinary):
    monkeypatch.chdir(tmp_path)
    assert main([*TINY, flag, "-"]) == 0
    captured = capfdbinary.readouterr()
    assert looks_like(flag, captured.out)
    assert b"harmonic_mean" in captured.err  # the text report, kept apart from the data
    assert not (tmp_path / "-").exists()


def test_a_link_to_standard_output_is_written_not_replaced(tmp_path, capfdbinary):
    """The JSON is printed through the link, which stays a link: renamed
    over, it would print nothing and (as root) turn /dev/stdout into a 40 KB
    regular file. Tested on a link of our own to /proc/self/fd/1 (what
    /dev/stdout is), so that a regression cannot replace the system's."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    assert main([*TINY, "--json", str(link)]) == 0
    assert looks_like("--json", capfdbinary.readouterr().out)
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"


def test_dev_null_takes_every_output_and_stays_a_device(tmp_path, capsys):
    from pathlib import Path

    from simbfs import outputs

    # asked first, so that a regression fails here instead of renaming over the system's /dev/null
    assert {outputs.check(flag, Path(os.devnull)).how for flag in FLAGS} == {"direct"}
    assert main([*TINY, *(x for flag in FLAGS for x in (flag, os.devnull))]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert "harmonic_mean" in capsys.readouterr().out


def test_a_link_is_followed_and_its_target_written(tmp_path):
    targets = {}
    for flag in FLAGS:
        name = flag.lstrip("-")
        target = tmp_path / f"target-{name}.{'png' if flag == '--plot' else 'out'}"
        target.write_text("old")
        link = tmp_path / f"link-{name}.{'png' if flag == '--plot' else 'out'}"
        link.symlink_to(target.name)
        targets[flag] = (link, target)
    assert main([*TINY, *(x for flag, (link, _) in targets.items() for x in (flag, str(link)))]) == 0
    for flag, (link, target) in targets.items():
        assert link.is_symlink() and os.readlink(link) == target.name, flag
        assert looks_like(flag, target.read_bytes()), flag
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".simbfs-")) == []


def test_a_dangling_link_creates_its_target(tmp_path):
    link = tmp_path / "r.json"
    link.symlink_to("made.json")
    assert main([*TINY, "--json", str(link)]) == 0
    assert link.is_symlink() and looks_like("--json", (tmp_path / "made.json").read_bytes())


@pytest.mark.parametrize("flag", FLAGS)
def test_a_named_pipe_is_written_to_its_reader(flag, tmp_path):
    """The pipe's reader gets the output; a file in the pipe's place would
    leave its reader waiting forever."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received = {}

    def reader():
        with open(pipe, "rb") as stream:
            received["data"] = stream.read()

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    assert main([*TINY, flag, str(pipe)]) == 0
    thread.join(timeout=60)
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert looks_like(flag, received["data"])


@pytest.mark.parametrize("flag", FLAGS)
def test_a_regular_file_is_replaced_whole(flag, tmp_path):
    path = tmp_path / ("r.png" if flag == "--plot" else "r.out")
    path.write_text("x" * 10_000_000)  # longer than any output: no old tail may survive
    assert main([*TINY, flag, str(path)]) == 0
    assert looks_like(flag, path.read_bytes())


@pytest.mark.parametrize("flag", FLAGS)
def test_a_directory_is_refused_before_the_run(flag, tmp_path, capsys):
    assert main([*TINY[:-1], flag, str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"simbfs: error: {flag} {tmp_path} is a directory; give a file name inside it\n"


@pytest.mark.parametrize("flag", FLAGS)
def test_an_unwritable_path_is_refused_before_the_run(flag, capsys):
    target = "/proc/simbfs-output.png" if flag == "--plot" else "/proc/simbfs-output"
    assert main([*TINY[:-1], flag, target]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"simbfs: error: cannot write {flag} {target}: cannot create files in /proc")
    assert err.count("\n") == 1 and "root " not in err  # refused before any search


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only directory")
def test_a_read_only_directory_is_refused(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    assert main([*TINY, "--json", str(folder / "r.json")]) == 2
    assert "cannot create files in" in capsys.readouterr().err


def test_two_outputs_on_standard_output_are_refused(capsys):
    assert main([*TINY, "--json", "-", "--csv", "-"]) == 2
    assert capsys.readouterr().err == ("simbfs: error: --json and --csv both name standard output; give each "
                                       "output its own file\n")


def test_a_calibrated_file_follows_a_link(tmp_path, monkeypatch):
    """calibrate --out goes through the same writer."""
    import simbfs.cli as cli

    class Result:
        key, kind, start, machine, measurement, measured_teps = "node.clock", "frequency", 1.0, "bluegene_q", "m", 1.0
        solution = type("S", (), {"value": 2.0, "teps": 1.0, "steps": [1]})()

        def machine_file(self, name, extends):
            return f"name: {name}\nextends: {extends}\n"

    monkeypatch.setattr("simbfs.calibration.calibrate", lambda *a, **k: Result())
    target = tmp_path / "real.yaml"
    link = tmp_path / "cal.yaml"
    link.symlink_to(target.name)
    assert cli.main(["calibrate", "bluegene_q", "--measured-teps", "1e9", "--out", str(link), "--quiet"]) == 0
    assert link.is_symlink() and target.read_text().startswith("name: cal\n")


def test_a_missing_folder_is_named_as_the_user_wrote_it(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([*TINY, "--json", "nodir/r.json"]) == 2
    assert capsys.readouterr().err == ("simbfs: error: cannot write --json nodir/r.json: directory nodir does not "
                                       "exist; create it first\n")
