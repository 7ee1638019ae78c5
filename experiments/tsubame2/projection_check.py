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

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402

MACHINE = "tsubame2"
BAR = 0.10
# (algorithm, GPUs, scale, profile scale)
CASES = [
    ("ueno2d", 64, 18, 18), ("ueno2d", 64, 18, 16), ("ueno2d", 64, 20, 18),
    ("ueno2d", 256, 18, 18), ("ueno2d", 256, 20, 18), ("ueno2d", 256, 20, 16),
    ("ueno2d", 1024, 20, 18), ("ueno2d:device=cpu", 256, 20, 18),
    ("ueno2d:expand=bitmap,sv=atomic", 256, 20, 18),
]
QUICK_CASES = [("ueno2d", 64, 14, 14), ("ueno2d", 64, 14, 13)]

_EXECUTED: dict = {}


def compare(algorithm: str, nodes: int, scale: int, profile_scale: int, roots: int) -> dict:
    start = time.perf_counter()
    key = (algorithm, nodes, scale, roots)
    if key not in _EXECUTED:
        _EXECUTED[key] = lib.simulate(machine=MACHINE, algorithm=algorithm, nodes=nodes, scale=scale, roots=roots,
                                      validate=False)
    executed = lib.harmonic_mean(_EXECUTED[key], 1e9)
    projected = lib.harmonic_mean(lib.simulate(machine=MACHINE, algorithm=algorithm, nodes=nodes, scale=scale,
                                               roots=roots, mode="project", profile_scale=profile_scale), 1e9)
    error = projected / executed - 1
    row = {"mode": "executed vs projected", "algorithm": algorithm, "gpus": nodes, "scale": scale,
           "profile_scale": profile_scale, "roots": roots, "executed_gteps": executed, "projected_gteps": projected,
           "error": error, "within_bar": abs(error) <= BAR, "seconds": time.perf_counter() - start}
    print(f"{algorithm:32s} {nodes:5d} GPUs scale {scale} from {profile_scale}: executed {executed:8.3f}, "
          f"projected {projected:8.3f} GTEPS ({error:+.1%}){'' if abs(error) <= BAR else '  MISS'}")
    return row


def main(argv=None) -> list[dict]:
    p = lib.parser(__doc__, MACHINE)
    p.add_argument("--roots", type=int, default=16, help="search keys per run (default 16)")
    args = p.parse_args(argv)
    out = lib.out_dir(args)
    cases = QUICK_CASES if args.quick else CASES
    rows = [compare(*case, roots=4 if args.quick else args.roots) for case in cases]
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    labels = [f"{r['algorithm'].replace('ueno2d', 'u2d')}\n{r['gpus']} GPUs s{r['scale']}<-{r['profile_scale']}"
              for r in rows]
    ax.bar(range(len(rows)), [100 * r["error"] for r in rows],
           color=["tab:green" if r["within_bar"] else "tab:red" for r in rows])
    for bar in (-100 * BAR, 100 * BAR):
        ax.axhline(bar, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(rows)), labels, fontsize=6)
    ax.set_ylabel("projected / executed - 1 (%)")
    ax.set_title("ueno2d on tsubame2: projection against execution (harmonic-mean TEPS)")
    lib.save(fig, rows, out, "projection_check")
    hits = sum(row["within_bar"] for row in rows)
    print(f"{hits} of {len(rows)} within {BAR:.0%}; {out / 'projection_check.csv'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
