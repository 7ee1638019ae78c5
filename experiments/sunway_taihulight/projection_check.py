"""lin1d's projection checked against execution on Sunway TaihuLight
(issue 13).

For (nodes, scale) pairs small enough to execute here, run the simulation
("executed") and the projection from a BFS profile at a smaller scale
("projected"), and compare their Graph500 harmonic-mean TEPS. The bar:
projected within 10% of executed. Every case is printed and written to
CSV, hits and misses alike; docs/validation.md quotes the table.

    python experiments/sunway_taihulight/projection_check.py [--quick] [--roots 8]
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

MACHINE = "sunway_taihulight"
# (algorithm, nodes, scale, profile scale): two scales from the profile,
# the misses too
CASES = [
    ("lin1d", 64, 16, 14), ("lin1d", 128, 16, 14), ("lin1d", 256, 18, 16), ("lin1d", 256, 20, 18),
    ("lin1d", 512, 18, 16), ("lin1d", 1024, 20, 18), ("lin1d", 64, 14, 12),
    ("lin1d:modules=mpe", 256, 18, 16), ("lin1d:relay=off", 256, 18, 16),
]
QUICK_CASES = [("lin1d", 64, 14, 13), ("lin1d", 64, 14, 12)]


def main(argv=None) -> list[dict]:
    p = lib.parser(__doc__, MACHINE)
    p.add_argument("--roots", type=int, default=8, help="search keys per run (default 8)")
    args = p.parse_args(argv)
    out = lib.out_dir(args)
    cases = QUICK_CASES if args.quick else CASES
    rows = [lib.projection_case(MACHINE, *case, roots=4 if args.quick else args.roots) for case in cases]
    lib.plot_projection_check(rows, out, "lin1d on sunway_taihulight: projection against execution "
                              "(harmonic-mean TEPS)", ("lin1d", "lin1d"), "nodes", "nodes")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
