"""What users ask the output for: the run's wall time, and, when a run is
a claim's setup, the paper's value and the error beside the prediction."""

from __future__ import annotations

import json

import pytest

from simbfs.claims import PAPER_RUNS, claim, paper_comparisons
from simbfs.cli import main

CELL_ARITY10 = ["run", "cell_be", "--graph", "uniform", "--arity", "10", "--scale", "10", "--roots", "2", "--quiet"]


def test_a_run_of_a_claims_setup_shows_the_papers_value_and_the_error(tmp_path, capsys):
    """cell.arity10: 8 SPEs, the paper's directed graphs of arity 10, at any
    size (cell.size_insensitive), 101.6 ME/s."""
    out = tmp_path / "r.json"
    assert main([*CELL_ARITY10, "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    [match] = doc["paper_claims"]
    paper = claim("cell.arity10")["value"] * 1e6
    assert match["claim"] == "cell.arity10" and match["paper_teps"] == paper
    assert match["simbfs_teps"] == doc["teps"]["harmonic_mean"]
    assert match["error"] == pytest.approx(doc["teps"]["harmonic_mean"] / paper - 1, rel=1e-12)
    text = capsys.readouterr().out
    line = next(line for line in text.splitlines() if line.strip().startswith("paper"))
    assert "101.6 MTEPS harmonic mean (cell.arity10" in line and f"{match['error']:+.1%}" in line


def test_a_run_of_another_setup_gets_no_paper_value(tmp_path, capsys):
    out = tmp_path / "r.json"
    arity12 = [("12" if word == "10" and before == "--arity" else word)
               for before, word in zip([None, *CELL_ARITY10], CELL_ARITY10)]
    assert main([*arity12, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["paper_claims"] == []
    assert not any(line.strip().startswith("paper") for line in capsys.readouterr().out.splitlines())


def test_the_wall_time_is_in_the_document_and_the_report(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main([*CELL_ARITY10, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["wall_time_s"] > 0
    assert any(line.startswith("wall time  ") and line.endswith(" on this computer")
               for line in capsys.readouterr().out.splitlines())


@pytest.mark.parametrize("run", [r for r in PAPER_RUNS if "setup" in claim(r.claim_id)], ids=lambda r: r.claim_id)
def test_every_paper_run_is_its_claims_setup(run):
    """The machine, scale and node count of each run against claims.yaml's
    setup (TSUBAME's simbfs nodes are its MPI processes, one per GPU)."""
    setup = claim(run.claim_id)["setup"]
    assert run.machine == setup["machine"] and run.scale == setup["scale"]
    assert run.nodes == setup.get("gpus", setup["nodes"])


def test_a_calibrated_or_overridden_machine_is_told_apart():
    """Only the paper's machine matches; the comparison of a what-if run
    (--set) is shown with a caveat by the report."""
    from simbfs.report import format_paper_comparison

    doc = {"machine": "bluegene_q", "algorithm": "cp1d-spi", "nodes": 65536, "scale": 40,
           "graph": {"kind": "kronecker", "edgefactor": 16}, "teps": {"harmonic_mean": 2 * 15363e9}}
    [match] = paper_comparisons(doc)
    assert match["claim"] == "bgq.headline.65536" and match["error"] == pytest.approx(1.0)
    assert "outside its 15%" in format_paper_comparison(match, overridden=False, projected=True)
    assert "not the paper's machine" in format_paper_comparison(match, overridden=True, projected=True)
    assert paper_comparisons({**doc, "machine": "bluegene_q_calibrated"}) == []
    assert paper_comparisons({**doc, "graph": {"kind": "kronecker", "edgefactor": 8}}) == []
