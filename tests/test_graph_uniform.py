"""Uniform-arity graphs (Villa et al., IPDPS 2007, section 5)."""

import numpy as np
import pytest

from simbfs.errors import UserError
from simbfs.graph import uniform_edges
from simbfs.graph.uniform import uniform_arities


def test_arity_range_and_mean():
    scale, arity = 14, 10.0
    arities = uniform_arities(scale, arity, seed=3)
    assert arities.min() == 0 and arities.max() == 20
    # Discrete uniform on [0, K]: mean K/2, variance ((K+1)^2 - 1)/12.
    k = 20
    standard_error = np.sqrt(((k + 1) ** 2 - 1) / 12 / arities.size)
    assert abs(arities.mean() - arity) < 5 * standard_error
    counts = np.bincount(arities, minlength=k + 1)
    expected = arities.size / (k + 1)
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))


def test_tuples_follow_arities():
    scale, arity = 10, 4.5
    edges = uniform_edges(scale, arity, seed=9)
    arities = uniform_arities(scale, arity, seed=9)
    assert len(edges) == arities.sum()
    assert np.array_equal(np.bincount(edges.src, minlength=2**scale), arities)
    assert edges.dst.min() >= 0 and edges.dst.max() < 2**scale
    assert np.array_equal(edges.dst, uniform_edges(scale, arity, seed=9).dst)


def test_neighbours_are_uniform():
    edges = uniform_edges(12, 8.0, seed=1)
    counts = np.bincount(edges.dst, minlength=2**12)
    expected = len(edges) / 2**12
    # Chi-square with 4095 degrees of freedom: mean 4095, sd ~ 90.
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert abs(chi2 - 4095) < 6 * np.sqrt(2 * 4095)


def test_arity_must_have_integer_range():
    with pytest.raises(UserError, match="multiple of 0.5"):
        uniform_edges(5, 3.3)
