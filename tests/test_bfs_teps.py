"""TEPS statistics as Graph500's output_results.c computes them."""

import pytest

from simbfs.bfs import teps_statistics


def test_harmonic_mean_hand_worked():
    stats = teps_statistics([1.0, 2.0, 4.0])
    # 3 / (1 + 1/2 + 1/4) = 12/7
    assert stats["harmonic_mean"] == pytest.approx(12 / 7)
    assert stats["min"] == 1.0 and stats["max"] == 4.0


def test_quartiles_of_64_runs_follow_reference_formula():
    # n = 64: t = 65/4 = 16.25 -> 0.75*x[16] + 0.25*x[17] (0-based, sorted);
    # median t = 32.5 -> (x[32] + x[33]) / 2; q3 t = 48.75 -> 0.25*x[48] + 0.75*x[49].
    values = [float(v) for v in range(64, 0, -1)]  # x[i] = i + 1 once sorted
    stats = teps_statistics(values)
    assert stats["q1"] == pytest.approx(0.75 * 17 + 0.25 * 18)
    assert stats["median"] == pytest.approx((33 + 34) / 2)
    assert stats["q3"] == pytest.approx(0.25 * 49 + 0.75 * 50)
    assert set(stats) >= {"harmonic_mean", "min", "q1", "median", "q3", "max"}


def test_integral_position_takes_single_element():
    # n = 7: t = 2 -> x[2]; median t = 4 -> x[4]; q3 t = 6 -> x[6].
    stats = teps_statistics([10, 20, 30, 40, 50, 60, 70])
    assert (stats["q1"], stats["median"], stats["q3"]) == (30, 50, 70)


def test_equal_rates():
    stats = teps_statistics([5.0] * 64)
    assert stats["harmonic_mean"] == pytest.approx(5.0)
    assert stats["harmonic_stddev"] == pytest.approx(0.0)
