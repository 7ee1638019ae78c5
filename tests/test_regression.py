"""Regression documents: the --json output of a fixed list of commands.

Every algorithm, executed and projected, on every machine where it runs
(tests/regression/cases.txt), must give exactly the document stored in
tests/regression/expected/. The restructure of the cost model moves code,
not results: a byte that changes is a change of behaviour. A change meant to
alter a document regenerates it with ``--regenerate`` and says why in its
commit.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from simbfs.cli import main

HERE = Path(__file__).parent / "regression"


def _cases() -> list[tuple[str, list[str]]]:
    cases = []
    for line in (HERE / "cases.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, args = line.partition(":")
            cases.append((name.strip(), shlex.split(args)))
    return cases


CASES = _cases()


def test_case_names_are_unique():
    names = [name for name, _ in CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("name,args", CASES, ids=[name for name, _ in CASES])
def test_document_is_unchanged(name, args, tmp_path, request):
    out = tmp_path / f"{name}.json"
    assert main(["run", *args, "--quiet", "--json", str(out)]) == 0
    expected = HERE / "expected" / f"{name}.json"
    if request.config.getoption("--regenerate"):
        expected.write_bytes(out.read_bytes())
        return
    assert expected.exists(), f"no stored document for {name}: run pytest {__file__} --regenerate"
    assert out.read_bytes() == expected.read_bytes(), (
        f"{name}: the --json document differs from {expected}; if the change is meant, regenerate with "
        f"--regenerate and say why in the commit")
