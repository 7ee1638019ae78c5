"""Every algorithm reports its activity to the runner's recorder, and a
recorder never changes timing (engine/recorder.py).

Independent facts checked: a traced run's document is the untraced one,
number for number; and in a bulk-synchronous code each node is at every
instant either working, waiting for the last node, or in a collective, so
its spans on those resources tile [0, BFS time] with no gap and no overlap
(the BFS time is the run's own, computed without the recorder).
"""

from __future__ import annotations

import json

import pytest

from simbfs.engine import TimelineRecorder
from simbfs.runner import RunConfig, run

BGQ = dict(machine="bluegene_q", nodes=32, scale=12, seed=1)
CELL = dict(machine="cell_be", graph="uniform", arity=8, scale=11, seed=1)
SUNWAY = dict(machine="sunway_taihulight", nodes=32, scale=12, seed=1, overrides=["lin1d.group_size=8"])
RUNS = {
    "bsp1d-do": BGQ, "bsp1d-topdown": BGQ, "cp1d-spi": BGQ, "cp1d-mpi": BGQ, "cp2d": BGQ,
    "cell-overlap": CELL, "cell-bsp": CELL, "lin1d": SUNWAY,
}
# the codes whose nodes alternate work, wait and collective: every span but
# these overlapped ones tiles the node's time
BULK_SYNCHRONOUS = {"bsp1d-do", "bsp1d-topdown", "cp1d-mpi", "cp2d", "cp1d-spi", "lin1d"}


def _traced(algorithm: str, roots: int = 1):
    recorder = TimelineRecorder()
    doc = run(RunConfig(**RUNS[algorithm], algorithm=algorithm, roots=roots, recorder=recorder))
    return doc, recorder


@pytest.mark.parametrize("algorithm", sorted(RUNS))
def test_a_recorder_never_changes_the_result(algorithm):
    traced, recorder = _traced(algorithm, roots=2)
    plain = run(RunConfig(**RUNS[algorithm], algorithm=algorithm, roots=2))
    # the run's wall time on this computer is the one field that may differ
    assert (json.dumps({**traced, "wall_time_s": 0}, sort_keys=True)
            == json.dumps({**plain, "wall_time_s": 0}, sort_keys=True))
    assert recorder.spans, f"{algorithm} reported nothing"
    longest = max(root["time_s"] for root in traced["roots"])
    for span in recorder.spans:
        assert 0 <= span.start_s <= span.end_s <= longest * (1 + 1e-12), span
        assert 0 <= span.node < traced["nodes"]
    # every span of the algorithm (not of a device) names its level
    assert all("level" in span.detail for span in recorder.spans if span.resource != "dma")


def test_lin1d_reports_its_modules_on_clusters_and_its_mpes():
    """A bottom-up level's modules run on the CPE clusters, at most one
    cluster each, and the MPEs send and receive; with relay the relays
    show too."""
    recorder = TimelineRecorder()  # large enough messages that the handlers run on clusters, not on M1
    run(RunConfig(machine="sunway_taihulight", nodes=16, scale=16, seed=1, roots=1,
                  overrides=["lin1d.group_size=4"], recorder=recorder))
    modules = {(s.node, s.detail["level"], s.what): s.resource for s in recorder.spans
               if s.resource.startswith("cluster")}
    assert {"backward generator", "backward handler", "forward handler"} <= {w for _, _, w in modules}
    assert any(w.endswith("relay") for _, _, w in modules)
    assert {s.resource for s in recorder.spans} >= {"mpe0", "mpe1", "port", "cpu", "collective"}


def _tiling(algorithm: str, spans):
    if algorithm == "cp1d-spi":  # the node's busy time overlaps its threads' and its port's
        return [s for s in spans if s.resource in ("node", "collective") or s.what == "wait"]
    if algorithm == "lin1d":  # the node's busy time ("cpu") overlaps its clusters', MPEs' and port's
        return [s for s in spans if s.resource in ("cpu", "collective")]
    return [s for s in spans if s.resource in ("cpu", "nic", "collective")]


@pytest.mark.parametrize("algorithm", sorted(BULK_SYNCHRONOUS))
def test_bulk_synchronous_spans_tile_every_nodes_time(algorithm):
    doc, recorder = _traced(algorithm)
    time_s = doc["roots"][0]["time_s"]
    for node in range(doc["nodes"]):
        spans = sorted(_tiling(algorithm, [s for s in recorder.spans if s.node == node]),
                       key=lambda s: (s.start_s, s.end_s))
        at = 0.0
        for span in spans:
            if span.end_s == span.start_s:
                continue
            assert span.start_s == pytest.approx(at, rel=1e-9, abs=1e-15), (node, span)
            at = span.end_s
        assert at == pytest.approx(time_s, rel=1e-12), node


def test_levels_and_directions_are_named():
    _, recorder = _traced("bsp1d-do")
    works = {(s.detail["level"], s.what) for s in recorder.spans if s.resource == "cpu" and s.what != "wait"}
    assert (0, "top-down") in works
    assert any(what == "bottom-up" for _, what in works)
