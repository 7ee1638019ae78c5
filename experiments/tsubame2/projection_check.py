"""ueno2d's projection checked against execution on TSUBAME 2.0 (issue 14).

For (GPUs, scale) pairs small enough to execute here, run the simulation
("executed") and the projection from a BFS profile at the same or a
smaller scale ("projected"), and compare their Graph500 harmonic-mean
TEPS. The bar: projected within 10% of executed. Every case is printed and
written to CSV, hits and misses alike; docs/validation.md quotes the table.

    python experiments/tsubame2/projection_check.py [--quick] [--roots 16]
"""

from __future__ import annotations

# Not a figure of the paper: a check of simbfs itself, run by hand or with
# `simbfs reproduce --include-validation` (simbfs/reproduce.py reads this line).
VALIDATION = True

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402

MACHINE = "tsubame2"
# (algorithm, GPUs, scale, profile scale)
CASES = [
    ("ueno2d", 64, 18, 18), ("ueno2d", 64, 18, 16), ("ueno2d", 64, 20, 18),
    ("ueno2d", 256, 18, 18), ("ueno2d", 256, 20, 18), ("ueno2d", 256, 20, 16),
    ("ueno2d", 1024, 20, 18), ("ueno2d:device=cpu", 256, 20, 18),
    ("ueno2d:expand=bitmap,sv=atomic", 256, 20, 18),
]
QUICK_CASES = [("ueno2d", 64, 14, 14), ("ueno2d", 64, 14, 13)]


def main(argv=None) -> list[dict]:
    p = lib.parser(__doc__, MACHINE)
    p.add_argument("--roots", type=int, default=16, help="search keys per run (default 16)")
    args = p.parse_args(argv)
    out = lib.out_dir(args)
    cases = QUICK_CASES if args.quick else CASES
    rows = [lib.projection_case(MACHINE, *case, roots=4 if args.quick else args.roots, count_key="gpus", unit="GPUs")
            for case in cases]
    lib.plot_projection_check(rows, out, "ueno2d on tsubame2: projection against execution (harmonic-mean TEPS)",
                              ("ueno2d", "u2d"), "gpus", "GPUs")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
