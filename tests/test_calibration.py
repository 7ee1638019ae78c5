"""One-point calibration (simbfs/calibration.py): the search against closed
forms, and `simbfs calibrate` on a machine whose answer is known in closed
form (the fixture machine of tests/conftest.py, written to a file)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from simbfs.bfs import bfs_reference
from simbfs.calibration import CannotCalibrate, solve
from simbfs.cli import main
from simbfs.graph import GraphSpec, generate_graph
from simbfs.machine import load_machine
from tests.conftest import tiny_machine_file


# ------------------------------------------------------------ the search
def test_a_decreasing_response_is_solved_to_the_closed_form_root():
    """TEPS = 1e9 / (1 + v): the measured 2e8 needs v = 4 exactly."""
    solution = solve(lambda v: 1e9 / (1 + v), start=0.5, target=2e8, rtol=1e-6)
    assert solution.value == pytest.approx(4.0, rel=1e-5)
    # doubling from the start brackets it, and lands on it
    assert [step.value for step in solution.steps] == [0.5, 1.0, 2.0, 4.0]


def test_between_doublings_the_search_bisects_in_log_space():
    """TEPS = 1e9 / v, measured 1e9 / 3: bracketed by 2 and 4, then bisected."""
    solution = solve(lambda v: 1e9 / v, start=1.0, target=1e9 / 3, rtol=1e-6)
    assert solution.value == pytest.approx(3.0, rel=1e-5)
    assert [step.value for step in solution.steps][:4] == [1.0, 2.0, 4.0, math.sqrt(8.0)]


def test_an_increasing_response_is_followed_downwards():
    """TEPS = 1e6 v: the measured 3e6 needs v = 3, below the start of 64."""
    solution = solve(lambda v: 1e6 * v, start=64.0, target=3e6, rtol=1e-6)
    assert solution.value == pytest.approx(3.0, rel=1e-5)


def test_the_start_is_kept_when_it_already_predicts_the_measurement():
    solution = solve(lambda v: 1e9 / v, start=2.0, target=5e8 * (1 + 1e-4))
    assert solution.value == 2.0 and len(solution.steps) == 1


def test_a_parameter_that_does_not_matter_is_refused():
    with pytest.raises(CannotCalibrate, match="does not change the prediction"):
        solve(lambda v: 7e9, start=1.0, target=1e9, name="x")


def test_a_measurement_out_of_reach_is_refused_with_the_range_seen():
    """TEPS = 1e9 + 1e9 / v never goes below 1e9: 5e8 cannot be reached."""
    with pytest.raises(CannotCalibrate, match="cannot reach the measured 0.5 GTEPS"):
        solve(lambda v: 1e9 + 1e9 / v, start=1.0, target=5e8, name="x")


def test_a_cost_hidden_behind_another_term_is_raised_until_it_binds():
    """TEPS = 1e9 / max(v, 10): a cost of 1 is hidden behind the fixed 10,
    so doubling and halving move nothing (1e8 TEPS); a slower measurement
    (5e7) needs v = 20, found by raising the cost until it binds."""
    solution = solve(lambda v: 1e9 / max(v, 10.0), start=1.0, target=5e7, rtol=1e-6, slower_when_raised=True)
    assert solution.value == pytest.approx(20.0, rel=1e-5)
    # a faster measurement cannot come from lowering a hidden cost
    with pytest.raises(CannotCalibrate, match="does not change the prediction"):
        solve(lambda v: 1e9 / max(v, 10.0), start=1.0, target=2e8, slower_when_raised=True)


def test_a_non_monotone_response_is_refused():
    """A response that rises, then falls back past its start, is not a
    function the measurement can be read from."""
    with pytest.raises(CannotCalibrate, match="not monotone"):
        solve(lambda v: 1e9 * (1 + math.sin(math.log2(v) * 1.3)), start=1.0, target=2.05e9, name="x")


def test_a_zero_start_is_refused():
    with pytest.raises(CannotCalibrate, match="positive"):
        solve(lambda v: 1e9, start=0.0, target=1e9)


# ------------------------------------------------------- simbfs calibrate
RUN = ["--nodes", "1", "--scale", "10", "--algorithm", "bsp1d-topdown", "--roots", "1",
       "--set", "network.topology=crossbar"]
ONE_NODE = ["bluegene_q", *RUN]


def _tiny_one_node(tmp_path) -> list:
    """The one-node run on the fixture machine's file (a crossbar already:
    the --set stands for a what-if, which the calibrated file must keep)."""
    return [str(tiny_machine_file(tmp_path)), *RUN]


def _one_node_closed_form(edge_scan: float) -> float:
    """On one node a top-down BFS has no exchange and no collective: it scans
    every edge of the root's component (edge_scan cycles), checks each as
    received (message_unpack) and claims every reached vertex but the root
    (vertex_visit), all spread over the node's cores: TEPS is
    edges / ((edge_scan S + unpack S + visit (V - 1)) / (clock x cores)),
    at the fixture machine's 7 unpack and 20 visit cycles, one core at 1 GHz."""
    graph = generate_graph(GraphSpec("kronecker", 10, seed=1))
    root = 1011  # the first search key of seed 1 (the run's own roots record says so)
    reached = bfs_reference(graph, root, direction_optimising=False).parent >= 0
    scanned = float(graph.degree[reached].sum())
    cycles = (edge_scan + 7) * scanned + 20 * (reached.sum() - 1)
    return float(graph.input_edges_in_component(reached) / (cycles / (1e9 * 1)))


def test_calibrate_recovers_the_parameter_a_closed_form_machine_was_measured_with(tmp_path, capsys):
    measured = _one_node_closed_form(20.0)
    out = tmp_path / "calibrated.yaml"
    one_node = _tiny_one_node(tmp_path)
    assert main(["calibrate", *one_node, "--measured-teps", repr(measured), "--fit", "node.compute.edge_scan",
                 "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "node.compute.edge_scan" in printed and "was 10" in printed
    fitted = load_machine(str(out))
    assert fitted.node.compute.edge_scan_cycles == pytest.approx(20.0, rel=0.01)
    assert fitted.calibrated_on.startswith("tiny, 1 nodes, kronecker scale 10, bsp1d-topdown")
    assert "calibrated:" in fitted.sources["node.compute.edge_scan"]
    # a run on the calibrated file says so, in the JSON and the report
    doc_path = tmp_path / "r.json"
    assert main(["run", str(out), *one_node[1:], "--json", str(doc_path), "--quiet"]) == 0
    doc = json.loads(doc_path.read_text())
    assert doc["calibrated_on"] == fitted.calibrated_on
    assert doc["teps"]["harmonic_mean"] == pytest.approx(measured, rel=1e-3)
    assert "CALIBRATED on tiny" in capsys.readouterr().out


def test_an_uncalibrated_run_says_calibrated_on_null(tmp_path):
    doc_path = tmp_path / "r.json"
    assert main(["run", *ONE_NODE, "--json", str(doc_path), "--quiet"]) == 0
    assert json.loads(doc_path.read_text())["calibrated_on"] is None


@pytest.mark.parametrize("extra,words", [
    (["--measured-teps", "1e20", "--fit", "node.compute.edge_scan"], ["cannot reach", "--fit another"]),
    (["--measured-teps", "1e9", "--fit", "node.compute.egde_scan"], ["not a hardware parameter"]),
    (["--measured-teps", "1e9", "--fit", "network.link_bandwidth"], ["does not change the prediction"]),
    # bluegene_q's own least certain parameter is cp1d's: a bsp1d run does not depend on it
    (["--measured-teps", "1e9"], ["cp1d.cycles.vertex_header does not change the prediction"]),
    (["--machine", "sunway_taihulight", "--measured-teps", "1e9"], ["declares no parameter", "--fit KEY"]),
])
def test_what_cannot_be_calibrated_is_one_line_and_exit_2(tmp_path, capsys, extra, words):
    out = tmp_path / "c.yaml"
    args = list(ONE_NODE)
    if extra[0] == "--machine":
        args[0], extra = extra[1], extra[2:]
    assert main(["calibrate", *args, *extra, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("simbfs: error:"), err
    assert all(word in err for word in words), err
    assert not out.exists()


def test_a_measurement_of_a_run_that_cannot_be_simulated_is_refused_before_searching(tmp_path, capsys):
    out = tmp_path / "c.yaml"
    assert main(["calibrate", "bluegene_q", "--nodes", "1000", "--scale", "12", "--measured-teps", "1e9",
                 "--fit", "node.compute.edge_scan", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "cannot be simulated" in err and "no partition of 1000 nodes" in err and not out.exists()


def test_the_output_must_be_a_yaml_file(tmp_path, capsys):
    assert main(["calibrate", *ONE_NODE, "--measured-teps", "1e9", "--out", str(tmp_path / "c.txt")]) == 2
    assert ".yaml" in capsys.readouterr().err


def test_the_closed_form_matches_the_engine(tmp_path):
    """The closed form the calibration test relies on is the engine's own
    timeline (so a change of either shows here first): the fixture
    machine's own 10 edge_scan cycles."""
    from simbfs.runner import RunConfig, run

    doc = run(RunConfig(machine=str(tiny_machine_file(tmp_path)), nodes=1, scale=10, algorithm="bsp1d-topdown",
                        roots=1, overrides=["network.topology=crossbar"]))
    assert doc["roots"][0]["root"] == 1011
    assert doc["teps"]["harmonic_mean"] == pytest.approx(_one_node_closed_form(10.0), rel=1e-9)
    assert np.isfinite(doc["teps"]["harmonic_mean"])


@pytest.mark.parametrize("key,words", [("node.bogus", "not a hardware parameter"),
                                       ("dma.latency", "not set in this machine file")])
def test_a_machine_file_must_declare_a_parameter_it_has_as_its_calibration_key(tmp_path, key, words):
    from simbfs.errors import UserError

    path = tmp_path / "m.yaml"
    path.write_text(f"extends: bluegene_q\nname: m\ncalibration: {{key: {key}, reason: because}}\n")
    with pytest.raises(UserError, match=words):
        load_machine(str(path))


def test_the_measured_runs_set_overrides_go_into_the_calibrated_file(tmp_path, capsys):
    """Calibrated with a what-if on top (faster clock), the file alone must
    reproduce the measurement: the --set is written into it."""
    measured = _one_node_closed_form(20.0) * 2  # the closed form at twice the fixture's 1 GHz
    out = tmp_path / "c.yaml"
    one_node = _tiny_one_node(tmp_path)
    assert main(["calibrate", *one_node, "--set", "node.clock=2GHz", "--measured-teps", repr(measured),
                 "--fit", "node.compute.edge_scan", "--out", str(out), "--quiet"]) == 0
    fitted = load_machine(str(out))
    assert fitted.node.clock_hz == 2e9 and "--set" in fitted.sources["node.clock"]
    assert fitted.node.compute.edge_scan_cycles == pytest.approx(20.0, rel=0.01)
    assert "with --set network.topology=crossbar, node.clock=2GHz" in fitted.calibrated_on
    doc_path = tmp_path / "r.json"
    plain = [a for a in one_node[1:]]  # the crossbar --set is written into the file too
    assert main(["run", str(out), *plain[:plain.index("--set")], "--json", str(doc_path), "--quiet"]) == 0
    assert json.loads(doc_path.read_text())["teps"]["harmonic_mean"] == pytest.approx(measured, rel=1e-3)


def test_the_calibrated_file_cannot_overwrite_the_machine_it_calibrates(tmp_path, capsys):
    machine = tmp_path / "mine.yaml"
    machine.write_text("extends: bluegene_q\nname: mine\n")
    assert main(["calibrate", str(machine), *ONE_NODE[1:], "--measured-teps", "1e9", "--fit",
                 "node.compute.edge_scan", "--out", str(machine), "--quiet"]) == 2
    assert "is the machine file being calibrated" in capsys.readouterr().err
    assert machine.read_text() == "extends: bluegene_q\nname: mine\n"


def test_a_whole_number_parameter_is_refused_up_front(tmp_path, capsys):
    assert main(["calibrate", *ONE_NODE, "--measured-teps", "1e9", "--fit", "node.cores",
                 "--out", str(tmp_path / "c.yaml"), "--quiet"]) == 2
    assert "whole-number parameter" in capsys.readouterr().err
