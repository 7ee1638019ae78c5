"""Every experiment script (experiments/<machine>/<name>.py, found by
globbing, so a new script is covered without being listed) runs at its
--quick size through experiments/lib.py and writes its PNG and CSV. What the
scripts find is tested in test_experiments_<machine>.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
MAIN_GUARD = 'if __name__ == "__main__":'


def _scripts() -> list[Path]:
    """Every file a user runs: those with a __main__ guard (the per-machine
    helpers, bluegene_q/bgq.py, bluegene_q/sweep.py, cell_be/cell.py, have none)."""
    return sorted(p for p in EXPERIMENTS.glob("*/*.py") if MAIN_GUARD in p.read_text())


def _module(path: Path) -> str:
    return ".".join(("experiments", *path.relative_to(EXPERIMENTS).with_suffix("").parts))


SCRIPTS = _scripts()


def test_every_machine_folder_has_scripts():
    assert {p.parent.name for p in SCRIPTS} == {"bluegene_q", "cell_be", "sunway_taihulight", "tsubame2"}
    # scripts live in experiments/<machine>/; the top holds only the shared library
    assert sorted(p.name for p in EXPERIMENTS.glob("*.py")) == ["__init__.py", "lib.py"]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_script_runs_quick_and_writes_png_and_csv(path, quick_experiment):
    out, rows = quick_experiment(_module(path))
    assert rows
    pngs, csvs = list(out.glob("*.png")), list(out.glob("*.csv"))
    assert pngs and all(p.stat().st_size > 0 for p in pngs), pngs
    assert csvs and all(p.read_text().count("\n") >= 2 for p in csvs), csvs  # a header and at least one row


def test_a_script_without_the_claims_file_says_so_in_one_line_and_exits_2(tmp_path):
    # run as a user runs it (as a file, not a module); a user's error is
    # answered as the CLI answers it: one line naming the fix, exit 2, no traceback
    script = EXPERIMENTS / "bluegene_q" / "fig5.py"
    env = dict(os.environ, SIMBFS_CLAIMS=str(tmp_path / "missing" / "claims.yaml"), SIMBFS_CACHE=str(tmp_path))
    done = subprocess.run([sys.executable, str(script), "--quick", "--out", str(tmp_path)], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("error: cannot read the papers' claims") and "SIMBFS_CLAIMS" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_a_cell_script_runs_as_a_file_and_writes_to_results_cell_be_by_default():
    done = subprocess.run([sys.executable, str(EXPERIMENTS / "cell_be" / "calibration.py"), "--help"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "--quick" in done.stdout and str(Path("results") / "cell_be") in done.stdout.replace("\n", "")


def test_a_bluegene_q_script_on_a_calibrated_machine_says_so_in_its_output_and_csv(tmp_path):
    """--machine runs a BlueGene/Q script on another machine file; on the
    shipped calibrated one, the printout and every CSV row say
    'calibrated' (the principle: label what is calibrated, in every
    output), and the next script's parser is back on bluegene_q."""
    env = dict(os.environ, SIMBFS_CACHE=str(tmp_path))
    done = subprocess.run([sys.executable, str(EXPERIMENTS / "bluegene_q" / "fig8.py"), "--quick", "--machine",
                           "bluegene_q_calibrated", "--out", str(tmp_path)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "CALIBRATED: bluegene_q_calibrated is calibrated on bluegene_q, 4096 nodes" in done.stdout
    rows = next(tmp_path.glob("*.csv")).read_text().splitlines()
    assert rows[0].startswith("calibrated_on,") and all("measured 1400 GTEPS" in row for row in rows[1:])
    from experiments.bluegene_q import bgq

    bgq.parser("doc").parse_args([])
    assert bgq.machine() == "bluegene_q"
