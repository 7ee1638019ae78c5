"""Every algorithm package has the shape docs/howto/add-an-algorithm.md
lays out: work.py counts a level's work, pricing.py's price_level turns
counts into a named record, execute*.py runs the search on the root-search
harness, project*.py (when the algorithm projects) walks the profile, and
options are declared, not parsed by hand."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import typing

import pytest

import simbfs.algorithms as algorithms
from simbfs.algorithms import ALGORITHMS
from simbfs.algorithms.search import RootSearch

FAMILIES = PACKAGES = sorted(info.name for info in pkgutil.iter_modules(algorithms.__path__) if info.ispkg)


def modules_of(package: str) -> list[str]:
    path = importlib.import_module(f"simbfs.algorithms.{package}").__path__
    return sorted(info.name for info in pkgutil.iter_modules(path))


def test_the_six_families_are_packages():
    assert FAMILIES == ["bsp1d", "cell", "cp1d", "cp2d", "lin1d", "ueno2d"]


@pytest.mark.parametrize("package", PACKAGES)
def test_work_pricing_and_execution_live_in_their_modules(package):
    modules = modules_of(package)
    assert "work" in modules and "pricing" in modules
    assert [m for m in modules if m == "execute" or m.startswith("execute_")], modules


@pytest.mark.parametrize("package", PACKAGES)
def test_price_level_returns_a_frozen_record(package):
    pricing = importlib.import_module(f"simbfs.algorithms.{package}.pricing")
    hints = typing.get_type_hints(pricing.price_level)
    record = hints["return"]
    assert dataclasses.is_dataclass(record) and record.__dataclass_params__.frozen, record


@pytest.mark.parametrize("package", PACKAGES)
def test_each_executed_run_is_a_root_search(package):
    searches = []
    for name in modules_of(package):
        if name == "execute" or name.startswith("execute_"):
            module = importlib.import_module(f"simbfs.algorithms.{package}.{name}")
            searches += [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                         if issubclass(cls, RootSearch) and cls.__module__ == module.__name__]
    assert searches, f"{package} has no RootSearch subclass"


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_a_projection_lives_in_a_project_module(name):
    projection = ALGORITHMS[name].projection
    if projection is None:
        pytest.skip(f"{name} is executed only")
    module = projection.project.__module__.rsplit(".", 1)[-1]
    assert module == "project" or module.startswith("project_"), projection.project.__module__


@pytest.mark.parametrize("package", FAMILIES)
def test_no_package_parses_options_by_hand(package):
    for name in modules_of(package):
        module = importlib.import_module(f"simbfs.algorithms.{package}.{name}")
        assert not hasattr(module, "parse_options"), f"{module.__name__} parses options by hand"
