"""Algorithm options are declared once (simbfs/algorithms/options.py) and
every algorithm's declaration agrees with the dataclass that holds them."""

from __future__ import annotations

from dataclasses import fields

import pytest

from simbfs.algorithms import ALGORITHMS, get_algorithm, options_help, projectable
from simbfs.errors import UserError

WITH_OPTIONS = sorted(name for name, algorithm in ALGORITHMS.items() if algorithm.OPTIONS)


def test_the_algorithms_with_options_are_the_papers_with_switches():
    # seed 000 (Fig. 9), seed 003 (Fig. 11) and seed 004 (Figs. 9, 13) switch their optimisations
    assert WITH_OPTIONS == ["cp1d-mpi", "cp1d-spi", "lin1d", "ueno2d"]


@pytest.mark.parametrize("name", WITH_OPTIONS)
def test_declared_options_are_the_dataclass_fields_with_its_defaults(name):
    algorithm = ALGORITHMS[name]
    held = {f.name: f.default for f in fields(algorithm.options)}
    assert {option.field: option.default for option in algorithm.OPTIONS} == held
    assert algorithm.options == type(algorithm.options)()  # the registered variant is the default one


@pytest.mark.parametrize("name", WITH_OPTIONS)
def test_each_options_example_parses_to_a_value_other_than_the_default(name):
    algorithm = ALGORITHMS[name]
    for option in algorithm.OPTIONS:
        variant = get_algorithm(f"{name}:{option.example()}")
        assert getattr(variant.options, option.field) != option.default
        assert variant.name == f"{name}:{option.example()}"
        # the rest stays at its default
        others = [o for o in algorithm.OPTIONS if o is not option]
        assert all(getattr(variant.options, o.field) == o.default for o in others)


def test_switches_accept_the_usual_words_and_counts_positive_integers():
    assert get_algorithm("cp1d-spi:compression=No").options.compression is False
    assert get_algorithm("cp1d-spi:compression=true").options.compression is True
    assert get_algorithm("cp1d-spi:threads=16").options.threads == 16
    for bad in ("threads=0", "threads=-2", "threads=1.5", "compression=maybe", "representation=csr"):
        with pytest.raises(UserError, match="takes"):
            get_algorithm(f"cp1d-spi:{bad}")


def test_an_algorithm_without_options_refuses_them():
    with pytest.raises(UserError, match="bsp1d-do takes no options; use --algorithm bsp1d-do"):
        get_algorithm("bsp1d-do:relay=off")


def test_the_help_lists_every_declared_option_and_every_projection():
    text = options_help()
    for name in WITH_OPTIONS:
        assert name in text
        for option in ALGORITHMS[name].OPTIONS:
            assert f"{option.name}={option.accepted()}" in text
    assert projectable() == sorted(name for name, a in ALGORITHMS.items() if a.projection is not None)
    assert "cell-bsp" not in projectable()  # the Cell code is executed only
