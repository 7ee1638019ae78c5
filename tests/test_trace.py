"""--trace: a run as a Trace Event Format timeline. The roots run one
after another, so the trace spans exactly the sum of their times; in a
bulk-synchronous code a node's work, waits and collectives tile its whole
run; a trace never changes the timing; selections and the default cap keep
large runs usable; a projection's trace is labelled so."""

import json

import pytest

from simbfs.cli import main
from simbfs.runner import RunConfig, run
from simbfs.trace import DEFAULT_NODES, TraceRecorder, parse_selection, trace_document


def _trace(tmp_path, *args):
    path = tmp_path / "trace.json"
    assert main(["run", *args, "--quiet", "--trace", str(path)]) == 0
    return json.loads(path.read_text())


def _complete(trace):
    return [e for e in trace["traceEvents"] if e["ph"] == "X"]


def test_a_bulk_synchronous_nodes_spans_tile_the_sum_of_the_roots(tmp_path, capsys):
    trace = _trace(tmp_path, "bluegene_q", "--nodes", "32", "--scale", "12", "--roots", "3",
                   "--algorithm", "bsp1d-do")
    capsys.readouterr()
    total_us = trace["otherData"]["total_time_s"] * 1e6
    events = _complete(trace)
    assert min(e["ts"] for e in events) == 0
    assert max(e["ts"] + e["dur"] for e in events) == pytest.approx(total_us, abs=1e-5)  # times in us to 1 ps
    for node in range(32):
        # work before each collective or exchange, the wait for the last node, the operation: the whole run
        mine = [e for e in events if e["pid"] == node and e["cat"] in ("cpu", "nic", "collective")]
        assert sum(e["dur"] for e in mine) == pytest.approx(total_us, rel=1e-6), node
    names = {e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
    assert {f"node {i}" for i in range(32)} <= names and "run" in names
    starts = [e["ts"] for e in trace["traceEvents"] if e["ph"] == "i"]
    assert len(starts) == 3 and starts[0] == 0 and starts == sorted(starts)
    assert any(e["ph"] == "C" and e["name"] == "frontier" for e in trace["traceEvents"])


def test_a_trace_never_changes_the_timing():
    plain = run(RunConfig(machine="tsubame2", nodes=16, scale=12, roots=2))
    traced = run(RunConfig(machine="tsubame2", nodes=16, scale=12, roots=2, recorder=TraceRecorder()))
    assert [r["time_s"] for r in plain["roots"]] == [r["time_s"] for r in traced["roots"]]


def test_every_paper_algorithm_traces_its_devices(tmp_path, capsys):
    for args, resources in ((("tsubame2", "--nodes", "16", "--scale", "12"), {"gpu", "pcie d2h", "network"}),
                            (("sunway_taihulight", "--nodes", "16", "--scale", "12"), {"cluster0", "mpe0"}),
                            (("cell_be", "--scale", "10"), {"dma", "cpu"}),
                            (("bluegene_q", "--nodes", "32", "--scale", "12"), {"nic", "node"})):
        events = _complete(_trace(tmp_path, *args, "--roots", "1"))
        assert resources <= {e["cat"] for e in events}, args
    capsys.readouterr()


def test_nodes_and_levels_can_be_chosen(tmp_path, capsys):
    trace = _trace(tmp_path, "bluegene_q", "--nodes", "32", "--scale", "12", "--roots", "1", "--algorithm",
                   "bsp1d-do", "--trace-nodes", "0,2-3", "--trace-levels", "1")
    capsys.readouterr()
    events = _complete(trace)
    assert {e["pid"] for e in events} == {0, 2, 3}
    assert {e["args"]["level"] for e in events} == {1}


def test_large_runs_keep_the_first_nodes_and_say_so():
    doc = run(RunConfig(machine="tsubame2", nodes=128, scale=12, roots=1, recorder=(recorder := TraceRecorder())))
    trace, notes = trace_document(doc, recorder, 3)
    assert {e["pid"] for e in _complete(trace)} == set(range(DEFAULT_NODES))
    assert notes and "--trace-nodes" in notes[0] and trace["otherData"]["notes"] == notes
    assert any(e["args"]["name"] == "process 4 (host 1)" for e in trace["traceEvents"] if e["name"] == "process_name")


def test_a_projection_traces_its_representative_node_and_says_so(tmp_path, capsys):
    trace = _trace(tmp_path, "tsubame2", "--nodes", "1024", "--scale", "20", "--mode", "project",
                   "--profile-scale", "14", "--roots", "2")
    capsys.readouterr()
    names = [e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"]
    assert "representative (busiest) node, PROJECTED" in names
    events = _complete(trace)
    assert sum(e["dur"] for e in events) == pytest.approx(trace["otherData"]["total_time_s"] * 1e6, rel=1e-6)


@pytest.mark.parametrize("args,message", [
    (["--trace-nodes", "0-3"], "add --trace"),
    (["--trace", "{tmp}/t.json", "--trace-nodes", "3-1"], "not a range"),
    (["--trace", "{tmp}/t.json", "--trace-levels", "x"], "numbers and ranges"),
    (["--trace", "{tmp}/no/such/dir/t.json"], "does not exist"),
    # a range beyond the run's nodes would leave the trace with no node
    (["--trace", "{tmp}/t.json", "--trace-nodes", "600-700"], "asks for node 600, but the run has 32 nodes, "
                                                              "numbered 0-31"),
    (["--trace", "{tmp}/t.json", "--trace-nodes", "0-3,32"], "asks for node 32"),
])
def test_bad_trace_options_are_refused_in_one_line(args, message, tmp_path, capsys):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(["run", "bluegene_q", "--nodes", "32", "--scale", "12", "--quiet", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "t.json").exists()


def test_selections_parse():
    assert parse_selection("0-3,8", "nodes") == {0, 1, 2, 3, 8}
    assert parse_selection("all", "nodes") is None and parse_selection(None, "levels") is None


@pytest.mark.parametrize("args", [("bluegene_q", "--nodes", "32", "--algorithm", "bsp1d-do"),
                                  ("bluegene_q", "--nodes", "32", "--algorithm", "cp1d-spi")])
def test_bytes_in_flight_count_every_byte_the_levels_send(tmp_path, capsys, args):
    """The bytes-in-flight counter is built from the spans that move bytes:
    with every node traced, their bytes add up to the bytes the level
    records say were sent, and the counter starts and ends at nothing.
    (cp1d-mpi also sends its 8-byte counts, which the level records leave
    out, so its sum is larger.)"""
    path = tmp_path / "trace.json"
    assert main(["run", *args, "--scale", "12", "--roots", "2", "--quiet", "--trace", str(path),
                 "--json", str(tmp_path / "run.json")]) == 0
    capsys.readouterr()
    trace, doc = json.loads(path.read_text()), json.loads((tmp_path / "run.json").read_text())
    moved = sum(e["args"].get("bytes", 0) for e in _complete(trace) if e["cat"] != "dma")
    assert moved == pytest.approx(sum(level["bytes"] for level in doc["levels"]), rel=1e-9)
    counter = [e for e in trace["traceEvents"] if e["name"] == "bytes in flight"]
    assert counter and counter[-1]["args"] == {"network": 0.0, "dma": 0.0}
    assert max(e["args"]["network"] for e in counter) > 0
    assert [e["ts"] for e in counter] == sorted(e["ts"] for e in counter)
