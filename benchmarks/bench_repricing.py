"""Re-pricing a cached work profile (issue 34, item 4): calibrate and sweep, cold and warm.

A projection's work (the level functions on the profile graph) is kept in
$SIMBFS_CACHE/work-profiles and re-priced when only prices change
(simbfs/projection/profile_cache.py). This times the two commands of the
issue's acceptance, each as a fresh ``simbfs`` process:

* the one-point calibration
  ``simbfs calibrate bluegene_q --nodes 4096 --scale 36 --algorithm cp1d-spi
  --mode project --measured-teps 1.4e12``;
* a 16-point sweep of ``network.link_bandwidth`` (0.5 to 8 GB/s) on
  ``bluegene_q --nodes 65536 --scale 40 --mode project`` with ``--jobs 2``.

*Cold*: no work profile cached (the directory emptied first; the scale-20
profile graph itself is cached, as after any earlier run). *Warm*: the same
command again, its work profile on disk (a new sweep directory, so that no
point is reused from the sweep's own store). The cache is ``--cache``
(default a directory under /tmp, never the user's).

    python benchmarks/bench_repricing.py [--only calibrate,sweep] [--cache DIR]
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

CALIBRATE = ["calibrate", "bluegene_q", "--nodes", "4096", "--scale", "36", "--algorithm", "cp1d-spi",
             "--mode", "project", "--measured-teps", "1.4e12", "--quiet"]
BANDWIDTHS = ",".join(f"{0.5 * (i + 1):g} GB/s" for i in range(16))
SWEEP = ["sweep", "bluegene_q", "--nodes", "65536", "--scale", "40", "--mode", "project", "--jobs", "2",
         "--grid", f"network.link_bandwidth={BANDWIDTHS}", "--quiet"]


def timed_command(arguments: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simbfs", *arguments], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="calibrate,sweep", help="calibrate, sweep or both (default)")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "simbfs-bench-repricing"),
                        help="the SIMBFS_CACHE of the runs (default: a directory under /tmp)")
    args = parser.parse_args()
    env = dict(os.environ, SIMBFS_CACHE=args.cache)
    profiles = Path(args.cache) / "work-profiles"
    out = Path(tempfile.mkdtemp(prefix="simbfs-bench-repricing-"))
    print(f"# {describe_computer()}; {os.cpu_count()} cores")
    print(f"# SIMBFS_CACHE={args.cache}; wall seconds of each command as a fresh process")
    print(f"{'command':<12}{'cold s':>9}{'warm s':>9}")
    try:
        for name in args.only.split(","):
            if name == "calibrate":
                command = [*CALIBRATE, "--out", str(out / "cal.yaml")]
                again = command
            elif name == "sweep":
                command, again = [*SWEEP, "--out", str(out / "cold")], [*SWEEP, "--out", str(out / "warm")]
            else:
                parser.error(f"unknown command {name}; choose calibrate or sweep")
            shutil.rmtree(profiles, ignore_errors=True)
            cold = timed_command(command, env)
            warm = timed_command(again, env)
            print(f"{name:<12}{cold:9.1f}{warm:9.1f}", flush=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
