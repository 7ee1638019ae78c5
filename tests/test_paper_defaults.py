"""Each machine runs its paper's own code by default, and every run says
whether its algorithm is the paper's code."""

import pytest

from simbfs.runner import RunConfig, run

@pytest.mark.parametrize("machine,algorithm", [("bluegene_q", "cp1d-spi"), ("cell_be", "cell-overlap"),
                                               ("sunway_taihulight", "lin1d"), ("tsubame2", "ueno2d")])
def test_each_machine_runs_its_papers_code_by_default(machine, algorithm):
    """`simbfs run MACHINE` runs the paper's algorithm (on the Cell, on the
    paper's uniform graph), and the header says so."""
    from simbfs.report import format_run

    doc = run(RunConfig(machine=machine, roots=1, scale=12 if machine != "cell_be" else None))
    assert doc["algorithm"] == algorithm and doc["algorithm_origin"] == "paper"
    assert machine != "cell_be" or doc["graph"]["kind"] == "uniform"
    assert f"algorithm  {algorithm} (the paper's own code)" in format_run(doc)


def test_the_header_says_when_the_code_is_generic():
    doc = run(RunConfig(machine="tsubame2", algorithm="bsp1d-do", nodes=64, scale=12, roots=1))
    assert doc["algorithm_origin"] == "generic"


def test_the_document_records_the_resolved_machine(tmp_path):
    """The JSON names every parameter as resolved, after extends
    (bluegene_q_calibrated extends bluegene_q) and --set, with its source,
    and the simbfs version."""
    from simbfs import __version__
    from simbfs.machine import load_machine

    doc = run(RunConfig(machine="bluegene_q_calibrated", nodes=64, scale=12, roots=1,
                        overrides=["network.link_bandwidth=4 GB/s"]))
    params = doc["machine_parameters"]
    assert doc["simbfs_version"] == __version__
    assert params["network.link_bandwidth"] == {"value": 4e9, "unit": "B/s", "source": "command-line override (--set)"}
    calibrated = load_machine("bluegene_q_calibrated")
    assert params["cp1d.cycles.vertex_header"]["value"] == calibrated.values["cp1d.cycles.vertex_header"]
    assert params["node.clock"] == {"value": 1.6e9, "unit": "Hz", "source": calibrated.sources["node.clock"]}
