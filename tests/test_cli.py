"""The command line as a user meets it: output, JSON, determinism, errors."""

import json
import os
import subprocess
import sys

import pytest

from simbfs.cli import main
from simbfs.errors import UserError

SMALL = ["--nodes", "32", "--scale", "10", "--roots", "3"]


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMBFS_CACHE", str(tmp_path / "cache"))


def simbfs(*args, cwd=None):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "simbfs.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def test_run_prints_teps_summary_and_level_table(capsys):
    assert main(["run", "bluegene_q", *SMALL, "--quiet"]) == 0
    out = capsys.readouterr().out
    for word in ("harmonic_mean", "median", "q3", "all valid", "level", "direction", "sync", "bottom-up"):
        assert word in out


def test_json_document_has_the_documented_fields(tmp_path):
    path = tmp_path / "r.json"
    assert main(["run", "bluegene_q", *SMALL, "--quiet", "--json", str(path)]) == 0
    doc = json.loads(path.read_text())
    assert doc["mode"] == "executed" and doc["machine"] == "bluegene_q" and doc["nodes"] == 32
    assert doc["scale"] == 10
    assert set(doc["teps"]) >= {"harmonic_mean", "min", "q1", "median", "q3", "max"}
    assert len(doc["roots"]) == 3
    for root in doc["roots"]:
        assert set(root) >= {"root", "edges", "time_s", "teps", "valid"}
        assert root["valid"] is True
        assert root["teps"] == pytest.approx(root["edges"] / root["time_s"])
    for level in doc["levels"]:
        assert set(level) >= {"level", "direction", "frontier_vertices", "edges_examined", "messages",
                              "bytes", "time_s", "compute_s", "communication_s", "synchronisation_s"}
        split = level["compute_s"] + level["communication_s"] + level["synchronisation_s"]
        assert split == pytest.approx(level["time_s"])
    # Graph500's harmonic mean of the per-root TEPS
    teps = [r["teps"] for r in doc["roots"]]
    assert doc["teps"]["harmonic_mean"] == pytest.approx(len(teps) / sum(1 / t for t in teps))


def without_wall_time(document: bytes) -> bytes:
    """The document's bytes without its top-level key wall_time_s, the run's
    wall time on this computer: the one field that is not reproducible."""
    import re

    trimmed, count = re.subn(rb'\n "wall_time_s": [0-9.e+-]+,', b"", document)
    assert count == 1
    return trimmed


def test_same_command_and_seed_give_byte_identical_json(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    args = ["run", "cell_be", "--graph", "uniform", "--arity", "4", "--scale", "10", "--roots", "2", "--quiet"]
    assert main([*args, "--json", str(a)]) == 0
    assert main([*args, "--json", str(b)]) == 0
    assert without_wall_time(a.read_bytes()) == without_wall_time(b.read_bytes())


def test_a_projection_twice_gives_byte_identical_json(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    args = ["run", "bluegene_q", "--algorithm", "cp1d-spi", "--mode", "project", "--nodes", "512",
            "--scale", "18", "--profile-scale", "14", "--roots", "2", "--quiet"]
    assert main([*args, "--json", str(a)]) == 0
    assert main([*args, "--json", str(b)]) == 0
    assert without_wall_time(a.read_bytes()) == without_wall_time(b.read_bytes())


def test_no_validate_says_so(tmp_path, capsys):
    path = tmp_path / "r.json"
    assert main(["run", "bluegene_q", *SMALL, "--quiet", "--no-validate", "--json", str(path)]) == 0
    assert "SKIPPED" in capsys.readouterr().out
    doc = json.loads(path.read_text())
    assert doc["validated"] is False and all(r["valid"] is None for r in doc["roots"])


def test_set_override_changes_the_prediction(tmp_path):
    base, fast = tmp_path / "base.json", tmp_path / "fast.json"
    common = ["run", "bluegene_q", *SMALL, "--quiet", "--algorithm", "bsp1d-topdown"]
    assert main([*common, "--json", str(base)]) == 0
    assert main([*common, "--set", "messaging.send_overhead=1 us", "--json", str(fast)]) == 0
    slow_doc, base_doc = json.loads(fast.read_text()), json.loads(base.read_text())
    assert slow_doc["overrides"] == ["messaging.send_overhead=1 us"]
    assert slow_doc["teps"]["harmonic_mean"] < base_doc["teps"]["harmonic_mean"]


def test_machines_lists_every_bundled_model(capsys):
    assert main(["machines"]) == 0
    out = capsys.readouterr().out
    for name in ("bluegene_q", "cell_be", "sunway_taihulight", "tsubame2"):
        assert name in out


def test_describe_shows_values_with_sources(capsys):
    assert main(["machines", "--describe", "bluegene_q"]) == 0
    out = capsys.readouterr().out
    assert "network.link_bandwidth" in out and "2 GB/s" in out and "spec sheet" in out
    assert "default algorithm: cp1d-spi" in out  # machines/bluegene_q.yaml's `algorithm`
    # the value column starts at one place, however long the dotted key
    rows = [line for line in out.splitlines() if line.startswith("  node.") or line.startswith("  network.")]
    starts = {len(line) - len(line[2:].split(" ", 1)[1].lstrip()) for line in rows}
    assert len(starts) == 1, starts


BAD_YAML = "name: broken\nnode: [unclosed\n"
UNKNOWN_KEY = "extends: bluegene_q\nnode:\n  turbo: {value: 2, source: x}\n"
BAD_UNIT = "extends: bluegene_q\nnetwork:\n  link_bandwidth: {value: 2 GB, source: x}\n"
NEGATIVE = "extends: bluegene_q\nnetwork:\n  link_bandwidth: {value: -2 GB/s, source: x}\n"


@pytest.mark.parametrize("text, words", [
    (BAD_YAML, ["malformed YAML", "line"]),
    (UNKNOWN_KEY, ["node.turbo", "unknown key"]),
    (BAD_UNIT, ["network.link_bandwidth", "GB/s"]),
    (NEGATIVE, ["network.link_bandwidth", "greater than zero"]),
])
def test_bad_machine_files_exit_2_with_one_clear_message(tmp_path, text, words):
    machine = tmp_path / "m.yaml"
    machine.write_text(text)
    out = tmp_path / "out.json"
    result = simbfs("run", str(machine), *SMALL, "--json", str(out))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("simbfs: error:")
    for word in words:
        assert word in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("args, words", [
    (["bluegene_q", "--nodes", "0"], ["--nodes", "at least 1"]),
    (["bluegene_q", "--nodes", "1000", "--scale", "12"], ["no partition of 1000 nodes", "512"]),
    (["bluegene_q", "--nodes", "32", "--scale", "38"], ["per node", "16 GiB"]),
    (["bluegene_q", "--nodes", "65536", "--scale", "36"], ["graph of scale 36", "GiB", "--mode project"]),
    # bsp1d-do copies the n/8-byte frontier bitmap to every node: more nodes cannot help
    (["bluegene_q", "--nodes", "98304", "--scale", "40", "--algorithm", "bsp1d-do", "--mode", "project"],
     ["more nodes do not help", "or less"]),
    (["bluegene_q", "--nodes", "32", "--scale", "12", "--algorithm", "cp1d-spi:"], ["no options after cp1d-spi:"]),
    (["bluegene_q", "--nodes", "32", "--scale", "12", "--algorithm", "cp1d-spi:compression=off,compression=on"],
     ["'compression' is given twice"]),
    (["bluegene_q", "--nodes", "32", "--scale", "12", "--algorithm", "cp1d-spi", "--set", "cp1d.threads=128"],
     ["at most 64", "--set cp1d.threads=64"]),
    (["bluegene_q", "--nodes", "64", "--scale", "14", "--mode", "project", "--profile-scale", "16"],
     ["--profile-scale 16 is larger than the target --scale 14"]),
    (["nonexistent_machine"], ["unknown machine", "bluegene_q"]),
    (["bluegene_q", "--set", "network.warp=9"], ["no such machine parameter"]),
    (["bluegene_q", "--set", "network.hop_latency=fast"], ["network.hop_latency", "ns"]),
    (["bluegene_q", "--nodes", "32", "--scale", "4"], ["leaves nodes without a vertex"]),
    (["tsubame2", "--graph", "uniform", "--arity", "nan"], ["finite number"]),
    (["bluegene_q", "--nodes", "64", "--scale", "14", "--mode", "project", "--profile-scale", "1"],
     ["--profile-scale must be between 10"]),
    (["bluegene_q", "--nodes", "32", "--scale", "10", "--profile-scale", "10"], ["only applies to --mode project"]),
    (["bluegene_q", "--nodes", "64", "--scale", "14", "--mode", "project", "--algorithm", "cell-overlap"],
     ["--mode project is available for"]),
    (["bluegene_q", "--nodes", "64", "--scale", "14", "--mode", "project", "--graph", "uniform"],
     ["Kronecker"]),
    (["tsubame2", "--graph", "uniform", "--arity", "1e400"], ["finite number"]),
])
def test_impossible_runs_exit_2_before_any_work(tmp_path, args, words):
    out = tmp_path / "out.json"
    result = simbfs("run", *args, "--json", str(out))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr
    assert not out.exists()


def test_graph_too_large_for_this_computer_is_refused_before_allocating(tmp_path):
    # Scale 30 fits 1,024 simulated BG/Q nodes but not this computer.
    result = simbfs("run", "bluegene_q", "--nodes", "1024", "--scale", "30", "--json", str(tmp_path / "o.json"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "scale 30" in result.stderr and "GiB" in result.stderr and "smaller --scale" in result.stderr


def test_json_into_a_missing_directory_fails_before_running(tmp_path):
    result = simbfs("run", "bluegene_q", *SMALL, "--json", str(tmp_path / "nope" / "r.json"))
    assert result.returncode == 2 and "does not exist" in result.stderr


def test_help_teaches_with_examples():
    result = simbfs("run", "--help")
    assert result.returncode == 0
    assert "examples:" in result.stdout and "--set" in result.stdout


def test_csv_has_one_row_per_root_and_level_and_matches_json(tmp_path):
    import csv

    js, table, picture = tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.png"
    assert main(["run", "bluegene_q", *SMALL, "--quiet", "--json", str(js), "--csv", str(table),
                 "--plot", str(picture)]) == 0
    doc = json.loads(js.read_text())
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == len(doc["levels"])
    for row, level in zip(rows, doc["levels"]):
        assert int(row["root"]) == level["root"] and int(row["level"]) == level["level"]
        assert float(row["time_s"]) == pytest.approx(level["time_s"])
        assert row["machine"] == "bluegene_q" and row["mode"] == "executed"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_closed_pipe_ends_quietly_and_keeps_the_json(tmp_path):
    out = tmp_path / "r.json"
    command = (f"{sys.executable} -m simbfs.cli run bluegene_q --nodes 32 --scale 10 --roots 2 --quiet "
               f"--json {out} | head -1")
    result = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True,
                            env=dict(os.environ), timeout=300)
    assert "Traceback" not in result.stderr
    assert json.loads(out.read_text())["mode"] == "executed"


def test_output_files_get_the_users_umask(tmp_path):
    out = tmp_path / "r.json"
    old = os.umask(0o022)
    try:
        assert main(["run", "bluegene_q", *SMALL, "--quiet", "--json", str(out)]) == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


def test_two_outputs_into_one_file_are_refused(tmp_path):
    out = tmp_path / "same"
    result = simbfs("run", "bluegene_q", *SMALL, "--json", str(out), "--csv", str(out))
    assert result.returncode == 2 and "--json and --csv both name" in result.stderr
    assert not out.exists()


def test_directed_follows_the_algorithm_unless_asked(tmp_path):
    base = ["run", "cell_be", "--graph", "uniform", "--arity", "4", "--scale", "10", "--roots", "1", "--quiet"]
    default, forced = tmp_path / "d.json", tmp_path / "u.json"
    assert main([*base, "--json", str(default)]) == 0
    assert main([*base, "--undirected", "--json", str(forced)]) == 0
    assert json.loads(default.read_text())["graph"]["directed"] is True  # the Cell paper's graphs
    assert json.loads(forced.read_text())["graph"]["directed"] is False
    result = simbfs("run", "bluegene_q", "--nodes", "32", "--scale", "10", "--directed")
    assert result.returncode == 2 and "--directed applies to uniform graphs" in result.stderr
    result = simbfs("run", "cell_be", "--graph", "uniform", "--scale", "10", "--algorithm", "bsp1d-do", "--directed")
    assert result.returncode == 2 and "needs an undirected graph" in result.stderr


def test_a_projection_says_projected_everywhere_and_is_deterministic(tmp_path):
    a, b, table = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "p.csv"
    args = ["run", "bluegene_q", "--nodes", "64", "--scale", "16", "--mode", "project", "--profile-scale", "12",
            "--roots", "4", "--quiet"]
    assert main([*args, "--json", str(a), "--csv", str(table)]) == 0
    assert main([*args, "--json", str(b)]) == 0
    assert without_wall_time(a.read_bytes()) == without_wall_time(b.read_bytes())
    doc = json.loads(a.read_text())
    assert doc["mode"] == "projected" and doc["projection"]["profile_scale"] == 12
    assert doc["graph"]["vertices"] == 2**16 and doc["validated"] is False
    assert all(row.split(",")[4] == "projected" for row in table.read_text().splitlines()[1:])


@pytest.mark.parametrize("machine,algorithm,section", [
    ("sunway_taihulight", "cp1d-spi", "`cp1d:`"), ("tsubame2", "cp1d-mpi", "`cp1d:`"),
    ("sunway_taihulight", "cp2d", "`cp1d:`"), ("bluegene_q", "cell-overlap", "`spe:` and `dma:`")])
@pytest.mark.parametrize("mode", ["execute", "project"])
def test_an_algorithm_on_a_machine_without_its_section_is_refused_in_one_line(machine, algorithm, section, mode,
                                                                               capsys):
    """A machine without the section an algorithm reads (cp1d-* and cp2d
    off bluegene_q) gets a one-line refusal, not a traceback. The refusal
    comes before any graph is generated, names the missing section and the
    machine's own algorithm."""
    args = ["run", machine, "--scale", "12", "--nodes", "64", "--algorithm", algorithm, "--mode", mode, "--quiet"]
    if algorithm.startswith("cell"):
        args += ["--graph", "uniform"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    if mode == "project" and algorithm.startswith("cell"):
        assert "--mode project is available for" in err  # no projection at all: said first
    else:
        own = {"sunway_taihulight": "lin1d", "tsubame2": "ueno2d", "bluegene_q": "cp1d-spi"}[machine]
        assert len(err.splitlines()) == 1 and section in err and machine in err and f"use {own}" in err


@pytest.mark.parametrize("machine", ["bluegene_q", "cell_be", "sunway_taihulight", "tsubame2"])
def test_every_bundled_machine_runs_with_no_options(machine, tmp_path):
    """Each machine file declares its default graph beside its default
    algorithm (cell_be: the paper's uniform directed graph, which fits the
    SPE local stores)."""
    out = tmp_path / "r.json"
    assert main(["run", machine, "--roots", "2", "--quiet", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["all_valid"] is True
    expected = {"cell_be": ("uniform", 14)}.get(machine, ("kronecker", 16))
    assert (doc["graph"]["kind"], doc["graph"]["scale"]) == expected


@pytest.mark.parametrize("args,words", [
    (["bluegene_q", "--arity", "8"], "--arity applies to uniform graphs"),
    (["cell_be", "--edgefactor", "8"], "--edgefactor applies to the Graph500 Kronecker graph"),
    (["cell_be", "--graph", "uniform", "--edgefactor", "8"], "--edgefactor applies"),
    (["bluegene_q", "--graph", "kronecker", "--undirected"], "--undirected applies to uniform graphs"),
])
def test_options_that_do_not_apply_to_the_graph_are_refused(args, words, capsys):
    """An option that does not apply is refused rather than silently
    ignored."""
    assert main(["run", *args, "--scale", "10", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err


def test_version():
    from simbfs import __version__

    result = simbfs("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"simbfs {__version__}"


def test_a_machine_file_that_is_not_utf8_is_one_line(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\u00e9\n".encode("latin-1"))
    result = simbfs("run", str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (f"simbfs: error: {path} is not UTF-8 text (byte 9, line 1: b'\\xe9'); "
                                     "save it as UTF-8")


@pytest.mark.parametrize("target,words", [
    ("x.txt", "--plot x.txt: the picture's format comes from its extension"),
    ("/proc/x.png", "cannot write --plot /proc/x.png: cannot create files in /proc"),
    ("FILE/x.png", "FILE is a file, not a directory"),
])
def test_bad_plot_targets_are_refused_before_simulating(target, words, tmp_path):
    """Refused before simulating, in one line: a matplotlib traceback after
    the whole simulation would lose the --json file and the table."""
    existing = tmp_path / "afile"
    existing.write_text("")
    target = target.replace("FILE", str(existing))
    words = words.replace("FILE", str(existing))
    json_out = tmp_path / "r.json"
    result = simbfs("run", "bluegene_q", *SMALL, "--json", str(json_out), "--plot", target)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr
    assert "root 1/" not in result.stderr  # refused before any search
    assert not json_out.exists()


def test_a_write_that_fails_after_simulating_still_prints_the_results(tmp_path, monkeypatch, capsys):
    """The output passed the checks, then the disk filled: one error line,
    exit status 2, and the table on stdout all the same."""
    import simbfs.outputs as outputs

    def full_disk(_writers):
        raise UserError("cannot write r.json: No space left on device")

    monkeypatch.setattr(outputs, "write_all", full_disk)
    assert main(["run", "bluegene_q", *SMALL, "--quiet", "--json", str(tmp_path / "r.json")]) == 2
    captured = capsys.readouterr()
    assert "harmonic_mean" in captured.out
    assert captured.err.strip() == "simbfs: error: cannot write r.json: No space left on device"


def test_byte_counts_are_integers_in_every_document():
    """A byte count is written as 480, never 480.0. Every algorithm,
    executed and projected: the stored regression documents cover them all."""
    from pathlib import Path

    for path in sorted((Path(__file__).parent / "regression" / "expected").glob("*.json")):
        for level in json.loads(path.read_text())["levels"]:
            assert type(level["bytes"]) is int and type(level["collective_bytes"]) is int, path.name


PROJECT_29 = ["run", "bluegene_q", "--nodes", "32", "--scale", "29", "--algorithm", "cp1d-spi", "--mode", "project",
              "--profile-scale", "12", "--roots", "1"]


def test_a_run_within_the_memory_estimates_uncertainty_is_warned_about_not_refused(tmp_path, capsys):
    """2^24 vertices per node need 8.62 GiB with cp1d-spi (memory.py, 5%):
    on an 8.5 GiB node that is 1.4% over, inside the estimate's uncertainty."""
    out = tmp_path / "r.json"
    assert main([*PROJECT_29, "--set", "node.memory=8.5GiB", "--json", str(out)]) == 0
    warnings = json.loads(out.read_text())["warnings"]
    assert len(warnings) == 1 and "may not fit" in warnings[0] and "8.618 GiB" in warnings[0]
    assert "WARNING    memory:" in capsys.readouterr().out


def test_a_run_beyond_the_memory_estimates_uncertainty_is_refused(capsys):
    """8.62 GiB on an 8 GiB node: 7.7% over, beyond the 5%."""
    assert main([*PROJECT_29, "--set", "node.memory=8GiB"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "(an estimate good to 5%)" in err and "--nodes 64" in err


def test_a_refusal_shows_the_digits_that_tell_need_from_have():
    from simbfs.units import distinct_sizes

    assert distinct_sizes(16.0026 * 2**30, 16 * 2**30) == ("16.0026 GiB", "16 GiB")


@pytest.mark.parametrize("machine", ["bluegene_q", "cell_be", "sunway_taihulight", "tsubame2"])
@pytest.mark.parametrize("mode", ["execute", "project"])
def test_an_impossible_scale_is_refused_in_one_line_on_every_machine(machine, mode, capsys):
    """Scale 99 (2^99 vertices): tsubame2 gave a numpy traceback (the
    vertex count overflows int64), the others a refusal."""
    assert main(["run", machine, "--scale", "99", "--mode", mode, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simbfs: error: ") and err.count("\n") == 1


def test_a_hopeless_scale_is_refused_after_a_few_memory_estimates(monkeypatch, capsys):
    """Finding the largest scale that fits took one estimate per scale below
    the asked one (66 at scale 99, 17.6 s); a larger graph never needs less,
    so bisection needs about log2(99) of them."""
    from simbfs.algorithms.cp1d.execute_spi import CP1DSPI

    calls = []
    real = CP1DSPI.node_memory_bytes

    def counted(self, num_vertices, *args, **kwargs):
        calls.append(num_vertices)
        return real(self, num_vertices, *args, **kwargs)

    monkeypatch.setattr(CP1DSPI, "node_memory_bytes", counted)
    assert main(["run", "bluegene_q", "--nodes", "512", "--scale", "99", "--algorithm", "cp1d-spi", "--quiet"]) == 2
    assert "use --scale 33 or less" in capsys.readouterr().err
    scales_tried = {n.bit_length() - 1 for n in calls} - {99}
    assert len(scales_tried) <= 8, sorted(scales_tried)


@pytest.mark.parametrize("args,message", [
    # the example must be one of lin1d's own options
    (["sunway_taihulight", "--algorithm", "lin1d:relay"], "must be written key=value, e.g. lin1d:relay=off"),
    (["tsubame2", "--algorithm", "ueno2d:sv"], "e.g. ueno2d:sv=atomic"),
        (["tsubame2", "--algorithm", "ueno2d:sv=fast"], "ueno2d option sv='fast': sv takes one of atomic, ttas, tas"),
        (["tsubame2", "--algorithm", "ueno2d:svv=tas"], "unknown ueno2d option 'svv' (did you mean sv?)"),
    (["bluegene_q", "--algorithm", "cp1d-spi:"], "(e.g. cp1d-spi:direction-optimising=off)"),
        (["bluegene_q", "--algorithm", "cp1d-spi:threads=0"], "threads takes a positive integer"),
    # the refusal names the option that was given, --undirected
    (["bluegene_q", "--undirected"], "the Graph500 Kronecker graph is always undirected; drop --undirected"),
    (["bluegene_q", "--arity", "4"], "edges per vertex are set by --edgefactor; drop --arity"),
    (["bluegene_q", "--algorithm", "cp1d-sip"], "unknown algorithm 'cp1d-sip' (did you mean cp1d-spi?)"),
    # a key given twice is refused, not settled silently by the last value
    (["bluegene_q", "--set", "network.link_bandwidth=1GB/s", "--set", "network.link_bandwidth=2GB/s"],
     "--set network.link_bandwidth is given twice ('1GB/s' and '2GB/s'); give it once"),
])
def test_small_slips_get_a_precise_refusal(args, message, capsys):
    assert main(["run", *args, "--scale", "10", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_a_misspelt_fit_key_gets_a_suggestion(tmp_path, capsys):
    assert main(["calibrate", "bluegene_q", "--measured-teps", "1e9", "--fit", "node.compute.edge_scn",
                 "--out", str(tmp_path / "c.yaml"), "--quiet"]) == 2
    assert "(did you mean node.compute.edge_scan?)" in capsys.readouterr().err


def test_the_machine_list_on_stdout_is_only_the_list(capsys):
    """The hint line went to stdout, in the way of `simbfs machines | cut`."""
    from simbfs.machine import bundled_machines

    assert main(["machines"]) == 0
    captured = capsys.readouterr()
    assert [line.split()[0] for line in captured.out.splitlines()] == bundled_machines()
    assert "--describe NAME" in captured.err


@pytest.mark.parametrize("label,text", [
    ("fat_tree 1x18+4 1:1", "fat tree: 1 supernode of 18 hosts + 1 of 4, oversubscribed 1:1 into the central network"),
    ("fat_tree 159x256+64 1:4", "fat tree: 159 supernodes of 256 hosts + 1 of 64, oversubscribed 1:4 into the "
                                "central network"),
    ("fat_tree 2x256 1:4", "fat tree: 2 supernodes of 256 hosts, oversubscribed 1:4 into the central network"),
    ("torus 4x4x4x4x2", "torus 4x4x4x4x2"),
])
def test_the_report_spells_out_a_fat_trees_shape(label, text):
    """64 TSUBAME processes, 3 a host: 22 hosts, 18 under one switch (the
    machine file's supernode_size) and 4 under the next."""
    from simbfs.report import topology_text

    assert topology_text(label) == text


def test_a_what_if_on_a_declared_non_effect_says_why_nothing_moved(capsys):
    """cell_be.yaml's non_effects: the EIB is a crossbar, so its link
    bandwidth cannot change bsp1d's time; the run says so, and both runs
    give the same TEPS."""
    args = ["run", "cell_be", "--algorithm", "bsp1d-topdown", "--scale", "10", "--roots", "2", "--quiet",
            "--no-validate", "--json", "-"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--set", "network.link_bandwidth=1 GB/s"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["teps"] == plain["teps"]
    assert doc["warnings"] == ["--set network.link_bandwidth does not change bsp1d-topdown's time on cell_be: the "
                               "EIB is modelled as a crossbar (network.topology): an exchange crosses no shared "
                               "link, so only the SPEs' ports (network.injection_bandwidth) bound it (the machine "
                               "file's non_effects)"]
    assert "WARNING    --set network.link_bandwidth does not change" in captured.err
