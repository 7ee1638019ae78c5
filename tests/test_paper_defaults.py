"""Issue 15, item 1: each machine runs its paper's own code by default,
and every run says whether its algorithm is the paper's code."""

import pytest

from simbfs.runner import RunConfig, run

@pytest.mark.parametrize("machine,algorithm", [("bluegene_q", "cp1d-spi"), ("cell_be", "cell-overlap"),
                                               ("sunway_taihulight", "lin1d"), ("tsubame2", "ueno2d")])
def test_each_machine_runs_its_papers_code_by_default(machine, algorithm):
    """Issue 15, item 1: `simbfs run MACHINE` runs the paper's algorithm (on
    the Cell, on the paper's uniform graph), and the header says so."""
    from simbfs.report import format_run

    doc = run(RunConfig(machine=machine, roots=1, scale=12 if machine != "cell_be" else None))
    assert doc["algorithm"] == algorithm and doc["algorithm_origin"] == "paper"
    assert machine != "cell_be" or doc["graph"]["kind"] == "uniform"
    assert f"algorithm  {algorithm} (the paper's own code)" in format_run(doc)


def test_the_header_says_when_the_code_is_generic():
    doc = run(RunConfig(machine="tsubame2", algorithm="bsp1d-do", nodes=64, scale=12, roots=1))
    assert doc["algorithm_origin"] == "generic"
