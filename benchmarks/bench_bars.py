"""Issue 16's absolute bars, each a whole simbfs command in its own process.

Each is measured as a user meets it:

* peak memory of `simbfs run bluegene_q --nodes 1024 --scale 20
  --algorithm cp1d-spi --roots 1` at most 1.5 GB (the child's maximum
  resident set, as `/usr/bin/time -v` reports it);
* `simbfs run bluegene_q --nodes 65536 --scale 40 --mode project` in under
  30 s (wall time of the command, imports included);
* with --reproduce, `simbfs reproduce all --jobs 2` in under 20 minutes
  (9-10 minutes here; it needs both cores to itself, so nothing else
  should run beside it).

The ratios to scipy (per root, fixed part, the whole bsp1d-do command) are
bench_algorithms.py's and bench_engine.py's. The graph is cached first, in
a process of its own, so that no command pays for generating it and this
process stays small: a child's peak resident set as Linux reports it
starts from its parent's peak at the fork.

    python benchmarks/bench_bars.py [--repeats 2] [--reproduce --out DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import describe_computer

SIMBFS = [sys.executable, "-c", "import sys; from simbfs.cli import main; sys.exit(main(sys.argv[1:]))"]
MEMORY_BAR_BYTES = 1.5e9
PROJECTION_BAR_S = 30.0
REPRODUCE_BAR_S = 20 * 60.0


def run_child(arguments: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident bytes) of one simbfs command in a child
    process. The peak is read with wait4, for this child alone."""
    start = time.perf_counter()
    child = subprocess.Popen(SIMBFS + arguments, stdout=subprocess.DEVNULL)
    try:
        _, status, usage = os.wait4(child.pid, 0)
    except BaseException:  # interrupted: do not leave the command running
        child.kill()
        child.wait()
        raise
    seconds = time.perf_counter() - start
    code = child.returncode = os.waitstatus_to_exitcode(status)  # (reaped here, not by Popen)
    if code != 0:
        raise SystemExit(f"simbfs {' '.join(arguments)} failed with exit status {code}")
    return seconds, usage.ru_maxrss * 1024.0  # Linux reports kilobytes


def verdict(value: float, bar: float) -> str:
    return "meets" if value <= bar else "MISSES"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs of each command (the best is kept)")
    parser.add_argument("--reproduce", action="store_true", help="also time `simbfs reproduce all --jobs 2`")
    parser.add_argument("--out", help="--reproduce: where the reproduction goes, a new or empty directory "
                                      "(default: a temporary one, deleted after)")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.out and not args.reproduce:
        parser.error("--out only applies to --reproduce")
    out = Path(args.out) if args.out else None
    if out is not None and (out.is_file() or (out.is_dir() and any(out.iterdir()))):
        parser.error(f"--out {out} is a file or a directory that is not empty: give a new or empty directory, "
                     f"so that nothing of an earlier reproduction is reused")

    # generated and cached once, outside every timing, in a process of its own (module docstring)
    subprocess.run([sys.executable, "-c", "from simbfs.graph import GraphSpec, load_graph; "
                    "load_graph(GraphSpec('kronecker', 20))"], check=True)
    print(f"# {describe_computer()}; best of {args.repeats}")
    memory = ["run", "bluegene_q", "--nodes", "1024", "--scale", "20", "--algorithm", "cp1d-spi", "--roots", "1",
              "--quiet"]
    peak = min(run_child(memory)[1] for _ in range(args.repeats))
    print(f"peak memory, cp1d-spi scale 20 on 1,024 nodes, 1 root: {peak / 1e9:.2f} GB "
          f"(bar {MEMORY_BAR_BYTES / 1e9:.1f} GB): {verdict(peak, MEMORY_BAR_BYTES)}")
    projection = ["run", "bluegene_q", "--nodes", "65536", "--scale", "40", "--mode", "project", "--quiet"]
    seconds = min(run_child(projection)[0] for _ in range(args.repeats))
    print(f"projection, 65,536 nodes at scale 40: {seconds:.1f} s (bar {PROJECTION_BAR_S:.0f} s): "
          f"{verdict(seconds, PROJECTION_BAR_S)}")
    if args.reproduce:
        target = out or Path(tempfile.mkdtemp(prefix="simbfs-reproduce-"))
        try:
            seconds, _ = run_child(["reproduce", "all", "--out", str(target), "--jobs", "2"])
        finally:
            if out is None:
                shutil.rmtree(target, ignore_errors=True)
        where = f"; report in {out}" if out else " (its report was in a temporary directory, now deleted)"
        print(f"reproduce all, 2 jobs: {seconds:.0f} s = {seconds / 60:.1f} min "
              f"(bar {REPRODUCE_BAR_S / 60:.0f} min): {verdict(seconds, REPRODUCE_BAR_S)}{where}")


if __name__ == "__main__":
    main()
