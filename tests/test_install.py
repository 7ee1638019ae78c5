"""simbfs as a user installs it: a wheel in a fresh virtual environment has
the bundled machines (package data), and ``python -m simbfs`` is ``simbfs``.

The wheel test stays offline: the wheel is built without build isolation
(setuptools comes with the test extras), installed with ``--no-deps``, and
the fresh environment reaches the dependencies through a ``.pth`` file naming
this environment's site-packages. A directory named in a ``.pth`` file does
not get its own ``.pth`` files processed, so this environment's editable
install of simbfs does not leak in: the test checks that simbfs is imported
from the fresh environment's site-packages, from a working directory outside
the source tree.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from simbfs.cli import main

ROOT = Path(__file__).resolve().parents[1]
MACHINE_FILES = ROOT / "simbfs" / "machines"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "SIMBFS_MACHINES", "VIRTUAL_ENV")}
    env["SIMBFS_CACHE"] = str(tmp_path / "cache")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def _run(command, cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=timeout)


def _listed(stdout: str) -> list[str]:
    """The machine names `simbfs machines` lists (its lines `NAME  description`)."""
    return sorted(m.group(1) for m in re.finditer(r"^(\w+)  ", stdout, re.MULTILINE))


def test_python_m_simbfs_is_the_simbfs_command(tmp_path, capsys):
    env = _env(tmp_path)
    done = _run([sys.executable, "-m", "simbfs", "machines"], cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert main(["machines"]) == 0
    assert done.stdout == capsys.readouterr().out
    usage = _run([sys.executable, "-m", "simbfs", "--help"], cwd=tmp_path, env=env)
    assert usage.returncode == 0 and usage.stdout.startswith("usage: simbfs ")
    refused = _run([sys.executable, "-m", "simbfs", "run", "no_such_machine"], cwd=tmp_path, env=env)
    assert refused.returncode == 2
    assert refused.stderr.startswith("simbfs: error: unknown machine 'no_such_machine'")


def test_a_wheel_in_a_fresh_environment_has_every_bundled_machine_and_runs_one(tmp_path):
    env = _env(tmp_path)
    # Build from a copy of what goes into the wheel, so build/ and *.egg-info
    # stay out of the source tree.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "simbfs", source / "simbfs", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                  "-w", tmp_path / "dist", source], cwd=tmp_path, env=env)
    assert built.returncode == 0, ("building the wheel failed (the test extras bring setuptools>=70.1: "
                                   f"pip install -e '.[test]'):\n{built.stdout}\n{built.stderr}")
    wheel, = (tmp_path / "dist").glob("simbfs-*.whl")

    fresh = tmp_path / "fresh"
    venv.EnvBuilder(with_pip=False).create(fresh)
    python = fresh / ("Scripts" if os.name == "nt" else "bin") / ("python.exe" if os.name == "nt" else "python")
    installed = _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q",
                      wheel], cwd=tmp_path, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    fresh_site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                           cwd=tmp_path, env=env).stdout.strip())
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (fresh_site / "_simbfs_test_dependencies.pth").write_text("".join(f"{path}\n" for path in ours))

    work = tmp_path / "work"  # not the source tree, which would be importable from the working directory
    work.mkdir()
    where = _run([python, "-c", "import simbfs; print(simbfs.__file__)"], cwd=work, env=env)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).parent == fresh_site / "simbfs"

    script = python.parent / ("simbfs.exe" if os.name == "nt" else "simbfs")
    listing = _run([script, "machines"], cwd=work, env=env)
    assert listing.returncode == 0, listing.stderr
    bundled = sorted(p.stem for p in MACHINE_FILES.glob("*.yaml"))
    assert {"bluegene_q", "cell_be", "sunway_taihulight", "tsubame2"} <= set(bundled)
    assert _listed(listing.stdout) == bundled
    assert "cannot be loaded" not in listing.stdout  # each one loads, `extends:` included

    # bsp1d-do: no numba, so nothing to compile in the fresh environment.
    ran = _run([python, "-m", "simbfs", "run", "bluegene_q", "--algorithm", "bsp1d-do", "--nodes", "64",
                "--scale", "10", "--roots", "1", "--quiet", "--json", work / "run.json"], cwd=work, env=env)
    assert ran.returncode == 0, ran.stderr
    assert "all valid" in ran.stdout
    assert '"machine_file": "machines/bluegene_q.yaml"' in (work / "run.json").read_text()

    # `reproduce` needs the experiment scripts of a source checkout: one line, exit 2.
    refused = _run([script, "reproduce", "cell_be", "--quick", "--out", work / "report"], cwd=work, env=env)
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("simbfs: error: "), refused.stderr
