"""Wall time of every BlueGene/Q figure script, one after another.

The bar (issue 3): all BG/Q experiments regenerate in at most 15 minutes on
this 2-core machine. Each script runs in its own process, as a user runs
it, with SIMBFS_CACHE shared so that each graph is generated once (the
first script to need a graph pays for it; run twice for warm-cache times).
The projection check (experiments/bluegene_q/projection_check.py) validates the
projection against long executions and is timed separately (--with-check).

    python benchmarks/bench_bgq_figures.py [--with-check] [--cache DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import describe_computer

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "experiments" / "bluegene_q"
SCRIPTS = [f"fig{n}" for n in range(4, 15)]
CHECK = "projection_check"
BAR_S = 15 * 60


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--with-check", action="store_true",
                         help="also time experiments/bluegene_q/projection_check.py")
    options.add_argument("--cache", default=os.environ.get("SIMBFS_CACHE", "/tmp/simbfs-cache"),
                         help="graph cache shared by the scripts")
    options.add_argument("--logs", default=str(ROOT / "results" / "bluegene_q" / "logs"),
                         help="where each script's printed comparison with the claims goes")
    args = options.parse_args()
    env = dict(os.environ, SIMBFS_CACHE=args.cache)
    print(describe_computer())
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    total = 0.0
    scripts = SCRIPTS + ([CHECK] if args.with_check else [])
    for name in scripts:
        start = time.perf_counter()
        with open(logs / f"{name}.txt", "w") as log:
            subprocess.run([sys.executable, str(FOLDER / f"{name}.py")], check=True, env=env, stdout=log)
        seconds = time.perf_counter() - start
        if name != CHECK:
            total += seconds
        print(f"  bluegene_q/{name:<18} {seconds:7.1f} s", flush=True)
    print(f"  figures total            {total:7.1f} s ({total / 60:.1f} min; bar {BAR_S / 60:.0f} min) -> "
          f"{'meets the bar' if total <= BAR_S else 'OVER the bar'}")


if __name__ == "__main__":
    main()
