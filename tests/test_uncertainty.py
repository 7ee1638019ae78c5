"""Prediction intervals (simbfs/uncertainty.py): the range rule over every
bundled parameter, the seeded design, the summary against closed forms,
and a run's interval end to end."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from simbfs import uncertainty as U
from simbfs.cli import main
from simbfs.errors import UserError
from simbfs.machine import bundled_machines, load_machine
from simbfs.machine.loader import build_machine, read_with_bases, resolve_machine_path


@pytest.mark.parametrize("source, kind", [
    ("estimate: a few hundred cycles", "estimate"),
    ("estimate (bsp1d only): one random write", "estimate"),
    ("component: SHOC DeviceMemory on a Tesla M2070", "component"),
    ("derived from 001, 4 (Dispatch): 42.34 ME/s", "component"),
    ("calibrated on a component measurement, 003, 4.4", "component"),
    ("spec sheet: 16 GB DDR3 per node", "exact"),
    ("000, III-B: uncompressed edges take 6 bytes", "exact"),
    ("seeds README: packets of up to 512 B payload", "exact"),
    ("calibrated: `simbfs calibrate` fitted this value", "calibrated"),
    ("command-line override (--set)", "set"),
    ("what-if: doubled links", "unclassified"),
])
def test_a_source_s_kind_is_read_from_how_it_begins(source, kind):
    assert U.source_kind(source) == kind


@pytest.mark.parametrize("name", bundled_machines())
def test_every_bundled_parameter_follows_the_rule_or_states_its_reason(name):
    """docs/reference/machine-files.md, "Uncertainty ranges": exact for a
    spec sheet or the paper's statement, +-10% uniform for one component
    measurement, a factor of 2 log-uniform for an estimate; anything else
    is stated in the file with its reason. No bundled parameter is left
    unclassified, and only the calibrated file's fitted one is held."""
    machine = load_machine(name)
    for r in U.parameter_ranges(machine):
        kind = U.source_kind(machine.sources[r.key])
        stated = machine.ranges.get(r.key)
        if kind == "calibrated":
            assert name.endswith("_calibrated") and r.distribution == "fixed", r
            continue
        assert kind != "unclassified" or (stated and "follows" in stated), \
            f"{name}: {r.key}'s source names no kind of the rule: {machine.sources[r.key][:60]!r}"
        if stated is not None:
            assert stated["reason"].strip() and r.basis.startswith("stated"), r
            if "low" in stated:
                assert r.low == stated["low"] and r.high == stated["high"] and r.low <= r.value <= r.high
            continue
        v = r.value
        distribution, low, high = {"exact": ("fixed", v, v), "component": ("uniform", 0.9 * v, 1.1 * v),
                                   "estimate": ("log-uniform", v / 2, 2 * v)}[kind]
        assert r.distribution == distribution and (r.low, r.high) == pytest.approx((low, high), rel=1e-12), r.key


def test_a_stated_range_must_hold_the_value_and_give_its_reason():
    raw = read_with_bases(resolve_machine_path("bluegene_q"))
    raw["network"]["hop_latency"]["range"] = {"low": "50 ns", "high": "80 ns", "reason": "x"}
    with pytest.raises(UserError, match="must hold the value"):
        build_machine(raw)
    raw["network"]["hop_latency"]["range"] = {"low": "30 ns", "high": "80 ns"}
    with pytest.raises(UserError, match="reason is required"):
        build_machine(raw)
    raw["network"]["hop_latency"]["range"] = {"follows": "network.nothing", "reason": "x"}
    with pytest.raises(UserError, match="not another numeric parameter"):
        build_machine(raw)
    raw["network"]["hop_latency"]["range"] = {"low": "30 ns", "high": "80 ns", "reason": "a measured spread"}
    stated = build_machine(raw).ranges["network.hop_latency"]
    assert (stated["low"], stated["high"]) == pytest.approx((30e-9, 80e-9)) and stated["reason"] == "a measured spread"


def test_the_design_is_seeded_and_a_latin_hypercube():
    """The same seed gives the same points; each parameter's range is cut
    into n equal slices with exactly one point in each."""
    a, b, c = U.design(16, 5, seed=3), U.design(16, 5, seed=3), U.design(16, 5, seed=4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    for column in a.T:
        assert sorted(np.floor(column * 16).astype(int)) == list(range(16))


def _uniform(key, low, high):
    return U.ParameterRange(key=key, value=(low + high) / 2, low=low, high=high, distribution="uniform",
                            basis="test", kind="ratio")


def test_the_shares_are_the_first_order_indices_of_a_linear_model():
    """log Y = 1 X1 + 2 X2 + 0 X3 with X_i uniform on [0, 1] drawn
    independently: the first-order Sobol index of X_i is a_i^2 / sum a^2,
    1/5, 4/5 and 0."""
    ranges = [_uniform(f"x{i}", 0.0, 1.0) for i in (1, 2, 3)]
    x = U.design(512, 3, seed=1)
    y = np.exp(x @ np.array([1.0, 2.0, 0.0]))
    summary = U.summarise(y, ranges, x)
    shares = {item["key"]: item["index"] for item in summary["parameters"]}
    assert shares["x1"] == pytest.approx(0.2, abs=0.02)
    assert shares["x2"] == pytest.approx(0.8, abs=0.02)
    assert shares["x3"] == pytest.approx(0.0, abs=0.01)
    assert [item["key"] for item in summary["parameters"]][:2] == ["x2", "x1"]


def test_the_interval_of_a_sum_of_two_uniforms_is_the_triangular_one():
    """log Y = X1 + X2, X_i uniform on [0, 1]: the sum is triangular, with
    P(S <= s) = s^2 / 2 below 1, so its 5% and 95% points are sqrt(0.1)
    and 2 - sqrt(0.1), and its median 1 (the sample's quantiles within
    about 3 standard errors: sqrt(p (1 - p) / n) / density, 0.005 at the
    tails for n = 16,384)."""
    ranges = [_uniform("x1", 0.0, 1.0), _uniform("x2", 0.0, 1.0)]
    x = U.design(16384, 2, seed=7)
    summary = U.summarise(np.exp(x.sum(axis=1)), ranges, x)
    assert math.log(summary["p5"]) == pytest.approx(math.sqrt(0.1), abs=0.016)
    assert math.log(summary["median"]) == pytest.approx(1.0, abs=0.016)
    assert math.log(summary["p95"]) == pytest.approx(2 - math.sqrt(0.1), abs=0.016)
    assert summary["ratio_p95_p5"] == pytest.approx(summary["p95"] / summary["p5"])


def test_a_sample_s_overrides_load_as_the_sampled_values():
    """The --set texts of a row give the machine those values exactly; a
    follower moves in proportion with its leader; a curve is scaled."""
    machine = load_machine("sunway_taihulight")
    ranges = U.parameter_ranges(machine)
    varied = [r for r in ranges if r.varies]
    row = U.design(1, len(varied), seed=5)[0]
    values = U.sampled_values(ranges, row, machine)
    sampled = load_machine("sunway_taihulight", U.sample_overrides(ranges, row, machine))
    for r, u in zip(varied, row):
        if r.kind is None:
            xs, ys = machine.values[r.key]
            assert sampled.values[r.key][0] == xs and values[r.key] == r.at(float(u))
            assert np.allclose(np.array(sampled.values[r.key][1]) / np.array(ys), r.at(float(u)), rtol=1e-12)
        elif r.key in U.WHOLE_MULTIPLE_OF:
            granule = machine.values[U.WHOLE_MULTIPLE_OF[r.key]]
            assert sampled.values[r.key] == values[r.key] == granule * math.floor(r.at(float(u)) / granule)
        else:
            assert sampled.values[r.key] == values[r.key] == r.at(float(u)), r.key
    ratio = sampled.values["network.link_bandwidth"] / machine.values["network.link_bandwidth"]
    assert sampled.values["network.injection_bandwidth"] == pytest.approx(
        machine.values["network.injection_bandwidth"] * ratio, rel=1e-12)


def test_a_run_with_uncertainty_reports_its_interval_the_same_for_the_same_seed(tmp_path, capsys):
    command = ["run", "tsubame2", "--nodes", "16", "--scale", "10", "--roots", "2", "--uncertainty", "4",
               "--jobs", "1", "--quiet"]
    sections = []
    for name in ("a", "b"):
        assert main([*command, "--json", str(tmp_path / f"{name}.json")]) == 0
        sections.append(json.loads((tmp_path / f"{name}.json").read_text())["uncertainty"])
    out = capsys.readouterr().out
    assert sections[0] == sections[1]
    teps = sections[0]["teps_harmonic_mean"]
    assert sections[0]["samples"] == 4 and not sections[0]["failed"]
    assert teps["p5"] <= teps["median"] <= teps["p95"] and teps["ratio_p95_p5"] >= 1
    assert {item["key"] for item in teps["parameters"]} >= {"gpu.launch_overhead", "messaging.send_overhead"}
    assert "Uncertainty: 4 samples" in out and "90% interval" in out


def test_sample_seed_without_uncertainty_is_refused(capsys):
    assert main(["run", "bluegene_q", "--nodes", "64", "--scale", "12", "--sample-seed", "3"]) == 2
    assert "apply to --uncertainty" in capsys.readouterr().err


def test_the_interval_on_a_machine_whose_answer_is_closed_form(tmp_path):
    """On one node of the hand-checkable machine (tests/conftest.py) every
    cost is cycles at the clock, so TEPS is proportional to it (checked
    here: 2 GHz gives twice 1 GHz's TEPS). Made the one estimate, the clock
    is log-uniform over [0.5, 2] GHz: log TEPS is uniform over
    log T0 +- ln 2, so the 90% interval is T0 x 2^-0.9 .. T0 x 2^0.9, the
    median T0, the clock's share of the variance 1, and TEPS at the ends
    of its range T0 / 2 and 2 T0 (T0: the nominal run's). A Latin
    hypercube of 40 puts one sample in each 40th of the range, so its
    quantiles are within 2 ln 2 / 40 (3.5%) of those in log."""
    from tests.conftest import tiny_machine_file

    path = tiny_machine_file(tmp_path, **{"node.clock": {"value": "1 GHz", "source": "estimate: the test's one"}})
    base = ["run", str(path), "--nodes", "1", "--scale", "10", "--roots", "2", "--algorithm", "bsp1d-topdown",
            "--quiet", "--no-validate"]
    teps = []
    for clock in ("1 GHz", "2 GHz"):
        assert main([*base, "--set", f"node.clock={clock}", "--json", str(tmp_path / "one.json")]) == 0
        teps.append(json.loads((tmp_path / "one.json").read_text())["teps"]["harmonic_mean"])
    assert teps[1] == pytest.approx(2 * teps[0], rel=1e-12)
    assert main([*base, "--uncertainty", "40", "--jobs", "1", "--json", str(tmp_path / "u.json")]) == 0
    doc = json.loads((tmp_path / "u.json").read_text())
    t0, section = doc["teps"]["harmonic_mean"], doc["uncertainty"]
    interval = section["teps_harmonic_mean"]
    assert [r["key"] for r in section["ranges"] if r["distribution"] != "fixed"] == ["node.clock"]
    tolerance = math.exp(2 * math.log(2) / 40) - 1
    assert interval["median"] == pytest.approx(t0, rel=tolerance)
    assert interval["p5"] == pytest.approx(t0 * 2 ** -0.9, rel=tolerance)
    assert interval["p95"] == pytest.approx(t0 * 2 ** 0.9, rel=tolerance)
    (clock,) = interval["parameters"]
    assert clock["key"] == "node.clock" and clock["index"] == pytest.approx(1.0, abs=1e-9)
    assert clock["at_low"] == pytest.approx(t0 / 2, rel=tolerance)
    assert clock["at_high"] == pytest.approx(2 * t0, rel=tolerance)


def test_a_sweep_with_uncertainty_gives_each_point_its_interval(tmp_path, capsys):
    """Each point is its run and its samples; the table gains the
    interval's columns, and a point run without samples is not taken for
    one with them (another key)."""
    import csv

    from simbfs import sweep

    command = ["sweep", "tsubame2", "--nodes", "16", "--scale", "10", "--roots", "1", "--no-validate",
               "--grid", "network.hop_latency=100 ns,1 us", "--jobs", "1", "--quiet"]
    assert main([*command, "--out", str(tmp_path / "plain")]) == 0
    assert main([*command, "--uncertainty", "3", "--out", str(tmp_path / "u")]) == 0
    with open(tmp_path / "u" / sweep.RESULTS) as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2
    for row in rows:
        low, high = float(row["harmonic_mean_teps_p5"]), float(row["harmonic_mean_teps_p95"])
        assert 0 < low <= float(row["harmonic_mean_teps_samples_median"]) <= high
    with open(tmp_path / "plain" / sweep.RESULTS) as handle:
        plain = list(csv.DictReader(handle))
    assert {row["key"] for row in plain}.isdisjoint(row["key"] for row in rows)
    assert [row["harmonic_mean_teps"] for row in plain] == [row["harmonic_mean_teps"] for row in rows]
