"""Regression documents: the --json output of a fixed list of commands.

Every algorithm, executed and projected, on every machine where it runs
(tests/regression/cases.txt), must give exactly the document stored in
tests/regression/expected/. Restructuring the cost model moves code, not
results: a number that changes is a change of behaviour. A change meant
to alter a document regenerates it with ``--regenerate`` and says why in its
commit (tests/regression/compare.py lists what moved, and by how much).

On the machine that stored them the documents come back byte for byte,
but for the run's wall time (``wall_time_s``), which is left out (test_cli
checks that the same command twice gives the same bytes otherwise). Another
CPU may move the last bit of a few numbers: numpy dispatches its dot
products (BLAS) and its exp and log to kernels chosen for the CPU
(AVX2, AVX-512), which round differently. So every string, integer and key
must be equal, and every real number equal to within
``FLOAT_NOISE`` (relative). That is a thousand times finer than a change of
the model: one as small as the Cell's DMA set-up cycles moves TEPS by
7e-4.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from simbfs.cli import main

sys.path.insert(0, str(Path(__file__).parent / "regression"))
from compare import differences  # noqa: E402

FLOAT_NOISE = 1e-12
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
    # the run's wall time is the one field that is not reproducible: stored and compared without it
    document = json.loads(out.read_text())
    assert document.pop("wall_time_s") >= 0
    out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    expected = HERE / "expected" / f"{name}.json"
    if request.config.getoption("--regenerate"):
        expected.write_bytes(out.read_bytes())
        return
    assert expected.exists(), f"no stored document for {name}: run pytest {__file__} --regenerate"
    if out.read_bytes() == expected.read_bytes():
        return
    moved = [(path, old, new, rel) for path, old, new, rel in
             differences(json.loads(expected.read_text()), json.loads(out.read_text()))
             if rel is None or rel > FLOAT_NOISE or isinstance(old, int) or isinstance(new, int)]
    assert not moved, (
        f"{name}: the --json document differs from {expected} in {len(moved)} fields, e.g. "
        + "; ".join(f"{path}: {old!r} -> {new!r}" for path, old, new, _ in moved[:5])
        + ". If the change is meant, regenerate with --regenerate and say why in the commit")
