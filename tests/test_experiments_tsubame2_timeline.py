"""The teaching timeline of docs/background/ueno2d-level.md
(experiments/tsubame2/timeline.py) at its --quick size, checked against
what holds whatever the prices: every unit has spans, a span does not end
before it starts, a portion of the fold crosses its stages in the order of
004, V-A (gathered and filtered, copied out, sent, copied in at the
receiver, task 8), each unit does one thing at a time, the fold's
transfers overlap the kernels (the point of 004, V-A's pipeline), and
every span of the level lies inside the level as the run's level record
times it."""

from __future__ import annotations

import csv
import re
from itertools import pairwise

import pytest

from experiments.tsubame2 import timeline

UNITS = ("gpu", "pcie d2h", "pcie h2d", "network")
EPS = 1e-12  # seconds: float rounding of sums of microsecond spans


@pytest.fixture(scope="module")
def level():
    """(result document, level record, level start, process 0's spans in that level)."""
    return timeline.run_level(**timeline.QUICK)


def _portion(span, prefix):
    match = re.fullmatch(re.escape(prefix) + r" (\d+)(?: .*)?", span.what)
    return int(match.group(1)) if match else None


def _by_portion(spans, resource, prefix):
    out = {}
    for s in spans:
        k = _portion(s, prefix) if s.resource == resource else None
        if k is not None:
            assert k not in out, f"two spans for {prefix} {k}"
            out[k] = s
    return out


def test_quick_run_writes_png_and_csv_with_every_lane(quick_experiment):
    out, rows = quick_experiment("experiments.tsubame2.timeline")
    assert (out / "timeline.png").stat().st_size > 0
    with open(out / "timeline.csv") as stream:
        written = list(csv.DictReader(stream))
    assert len(written) == len(rows) > 0
    assert {r["lane"] for r in written if r["source"] == "recorded"} == set(UNITS)
    assert all(r["mode"] == "executed" for r in written)


def test_spans_on_every_unit_and_none_ends_before_it_starts(level):
    doc, _, _, spans = level
    assert doc["mode"] == "executed"
    assert {s.resource for s in spans} >= set(UNITS)
    assert all(s.end_s >= s.start_s for s in spans)


def test_the_quick_level_is_a_pipeline_of_several_portions(level):
    _, _, _, spans = level
    gathers = _by_portion(spans, "gpu", "gather+filter portion")
    assert len(gathers) >= 3
    assert sorted(gathers) == list(range(1, len(gathers) + 1))


def test_each_portion_crosses_its_stages_in_order(level):
    # 004, V-A: a portion is sent once it is gathered and filtered; task 8
    # runs on received edges, which come over the network and PCIe
    _, _, _, spans = level
    stages = [("gpu", "gather+filter portion"), ("pcie d2h", "copy portion"), ("network", "fold portion"),
              ("pcie h2d", "copy received"), ("gpu", "receive (task 8)")]
    chains = [_by_portion(spans, resource, prefix) for resource, prefix in stages]
    portions = sorted(chains[0])
    for chain in chains[1:]:
        assert sorted(chain) == portions
    for k in portions:
        for (before, after), (b_name, a_name) in zip(pairwise(chains), pairwise(stages)):
            assert after[k].start_s >= before[k].end_s - EPS, (
                f"portion {k}: {a_name[1]} starts at {after[k].start_s * 1e6:.3f} us, before "
                f"{b_name[1]} ends at {before[k].end_s * 1e6:.3f} us")


def test_each_unit_does_one_thing_at_a_time(level):
    # one kernel at a time on the GPU (pricing.py: gpu = gather + filter +
    # receive), one copy at a time each way, one port
    _, _, _, spans = level
    for unit in UNITS:
        lane = sorted((s for s in spans if s.resource == unit), key=lambda s: s.start_s)
        for a, b in pairwise(lane):
            assert b.start_s >= a.end_s - EPS, f"{unit}: {a.what!r} and {b.what!r} overlap"


def test_fold_transfers_overlap_kernels(level):
    # the pipeline's point (004, V-A): while one portion is copied or sent,
    # the GPU works on another
    _, _, _, spans = level
    kernels = [s for s in spans if s.resource == "gpu" and _portion(s, "gather+filter portion")]
    transfers = [s for s in spans if _portion(s, "copy portion") or _portion(s, "fold portion")
                 or _portion(s, "copy received")]
    overlap = sum(max(0.0, min(k.end_s, t.end_s) - max(k.start_s, t.start_s)) for k in kernels for t in transfers)
    assert overlap > 0


def test_every_span_lies_within_the_level_as_its_record_times_it(level):
    _, record, start, spans = level
    end = start + record["time_s"]
    outside = [s for s in spans if s.start_s < start - EPS or s.end_s > end + EPS]
    assert not outside, (
        f"level {record['level']} runs {start * 1e6:.3f}-{end * 1e6:.3f} us; {len(outside)} spans of process "
        f"{timeline.PROCESS} leave it, the last ending at {max(s.end_s for s in outside) * 1e6:.3f} us "
        f"({outside[-1].what!r})")
