"""Projection checked against execution on BlueGene/Q.

For (nodes, scale) pairs small enough to execute here, run the simulation
(mode "executed") and the projection from a BFS profile at a smaller scale
(mode "projected"), and compare their Graph500 harmonic-mean TEPS. The bar:
projected within 10% of executed. Every case is printed and written to
CSV, hits and misses alike; docs/validation.md quotes the table.

    python experiments/bluegene_q/projection_check.py [--quick] [--far] [--roots 64]
"""

from __future__ import annotations

# Not a figure of the paper: a check of simbfs itself, run by hand or with
# `simbfs reproduce --include-validation` (simbfs/reproduce.py reads this line).
VALIDATION = True

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402


BAR = 0.10
# (algorithm, nodes, scale, profile scale)
CASES = [
    ("bsp1d-do", 64, 16, 14),
    ("bsp1d-do", 256, 18, 16),
    ("bsp1d-do", 512, 18, 14),
    ("bsp1d-do", 1024, 20, 18),
    ("bsp1d-do", 4096, 20, 18),
    ("bsp1d-do", 2048, 21, 19),
    ("bsp1d-topdown", 1024, 18, 16),
    ("bsp1d-topdown", 256, 20, 18),
    # the paper's own code (simbfs/algorithms/cp1d/project_spi.py); 32 roots each (--cp1d-roots),
    # as executing it costs 1-2 s per root at these sizes
    ("cp1d-spi", 64, 18, 16),
    ("cp1d-spi", 256, 18, 16),
    ("cp1d-spi", 1024, 18, 16),
    ("cp1d-spi", 256, 20, 18),
    # the bulk-synchronous MPI code (simbfs/algorithms/cp1d/project_mpi.py), 32 roots
    ("cp1d-mpi", 64, 18, 16),
    ("cp1d-mpi", 256, 18, 16),
    ("cp1d-mpi", 1024, 18, 16),
    ("cp1d-mpi", 256, 20, 18),
    # the previous-generation 2D code (simbfs/algorithms/cp2d/project.py)
    ("cp2d", 64, 18, 16),
    ("cp2d", 256, 18, 16),
    ("cp2d", 1024, 18, 16),
    ("cp2d", 256, 20, 18),
]
CP1D_ROOTS = 32
# Small enough for a test; 32 roots, because with few roots the sampling of
# the roots (their degrees decide the first levels) dominates the error. One
# scale of extrapolation: at these tiny scales a search gains levels quickly
# with scale (5.34 levels per root at scale 13, 5.62 at 14), and the levels a
# profile does not have are the projection's largest error (see
# docs/validation.md).
QUICK_CASES = [("bsp1d-do", 64, 14, 13), ("bsp1d-topdown", 64, 14, 13), ("cp1d-spi", 32, 14, 13),
               ("cp1d-mpi", 32, 14, 13), ("cp2d", 64, 14, 13)]
QUICK_ROOTS = 32
# --far: extrapolations over 4 to 6 scales (docs/background/projection.md),
# where a profile's share of reached vertices differs most from the
# target's (71% of the vertices have an edge at scale 16, 77% at 14, 62% at 20)
FAR_CASES = [
    ("bsp1d-do", 1024, 20, 14), ("bsp1d-do", 1024, 20, 15), ("bsp1d-do", 1024, 20, 16),
    ("cp1d-spi", 256, 20, 14), ("cp1d-spi", 256, 20, 16),
    ("cp1d-mpi", 256, 20, 14), ("cp1d-mpi", 256, 20, 16),
    ("cp2d", 256, 20, 14), ("cp2d", 256, 20, 16),
]


_EXECUTED: dict = {}


def compare(algorithm: str, nodes: int, scale: int, profile_scale: int, roots: int) -> dict:
    """One case; an executed run is reused by the cases that project it
    from several profile scales."""
    start = time.perf_counter()
    key = (algorithm, nodes, scale, roots)
    if key not in _EXECUTED:
        _EXECUTED[key] = B.simulate(algorithm, nodes, scale, roots, validate=False)
    executed = _EXECUTED[key]
    middle = time.perf_counter()
    projected = B.project(algorithm, nodes, scale, roots, profile_scale)
    end = time.perf_counter()
    e, p = executed["teps"]["harmonic_mean"], projected["teps"]["harmonic_mean"]
    return {"algorithm": algorithm, "nodes": nodes, "scale": scale, "profile_scale": profile_scale,
            "roots": roots, "executed_GTEPS": e / 1e9, "projected_GTEPS": p / 1e9, "error": p / e - 1,
            "within_bar": abs(p / e - 1) <= BAR, "execute_s": middle - start, "project_s": end - middle}


def main(argv=None) -> list[dict]:
    options = B.parser(__doc__, "two tiny cases (seconds), for the tests")
    options.add_argument("--roots", type=int, default=64, help="search keys per run (default 64, as Graph500)")
    options.add_argument("--cp1d-roots", type=int, default=CP1D_ROOTS,
                         help=f"search keys per cp1d-* run (default {CP1D_ROOTS})")
    options.add_argument("--only", help="run only the cases of this algorithm (e.g. cp1d-spi)")
    options.add_argument("--far", action="store_true",
                         help="the extrapolations over 4 to 6 scales instead (executed at scale 20)")
    args = options.parse_args(argv)
    out = lib.out_dir(args)
    rows = []
    print(f"{'algorithm':<14}{'nodes':>6}{'scale':>6}{'from':>5}{'executed':>11}{'projected':>11}{'error':>8}")
    cases = QUICK_CASES if args.quick else (FAR_CASES if args.far else CASES)
    for algorithm, nodes, scale, profile_scale in cases:
        if args.only and algorithm != args.only:
            continue
        roots = QUICK_ROOTS if args.quick else (args.cp1d_roots if algorithm.startswith("cp1d") else args.roots)
        row = compare(algorithm, nodes, scale, profile_scale, roots)
        rows.append(row)
        print(f"{algorithm:<14}{nodes:>6}{scale:>6}{profile_scale:>5}{row['executed_GTEPS']:>11.4g}"
              f"{row['projected_GTEPS']:>11.4g}{row['error']:>+8.1%}{'' if row['within_bar'] else '  MISS'}",
              flush=True)
    _plot(rows, out, f"projection_check{'_far' if args.far else ''}{'_' + args.only if args.only else ''}")
    hits = sum(row["within_bar"] for row in rows)
    print(f"{hits} of {len(rows)} cases within {BAR:.0%} of the executed TEPS")
    return rows


def _plot(rows, out, name):
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    for algorithm in dict.fromkeys(r["algorithm"] for r in rows):
        mine = [r for r in rows if r["algorithm"] == algorithm]
        ax.plot([r["executed_GTEPS"] for r in mine], [r["projected_GTEPS"] for r in mine], "o", label=algorithm)
    low = min(min(r["executed_GTEPS"], r["projected_GTEPS"]) for r in rows) / 1.5
    high = max(max(r["executed_GTEPS"], r["projected_GTEPS"]) for r in rows) * 1.5
    ax.plot([low, high], [low, high], "k-", lw=0.8, label="projected = executed")
    ax.fill_between([low, high], [low * (1 - BAR), high * (1 - BAR)], [low * (1 + BAR), high * (1 + BAR)],
                    color="grey", alpha=0.2, label=f"within {BAR:.0%}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("executed GTEPS (harmonic mean)")
    ax.set_ylabel("projected GTEPS (harmonic mean)")
    ax.set_title("BlueGene/Q: projection against execution", fontsize=9)
    ax.legend(fontsize=7)
    lib.save(fig, rows, out, name)


if __name__ == "__main__":
    lib.exit_on_user_error(main)
