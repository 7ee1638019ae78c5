"""001, 5 / Fig. 7: the Cell BE (8 SPEs) at average arity 10 reaches 101.6 ME/s
(claim cell.arity10, a prediction), and throughput does not depend on the
graph size (claim cell.size_insensitive). Runs the overlapped schedule on the
paper's graphs at several sizes (the largest within what this computer
generates quickly; the paper's own size is limited by 1 GB and the bitmap).

    python experiments/cell_be/arity10.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.cell_be import cell as C  # noqa: E402
from simbfs.claims import claim  # noqa: E402

ARITY = 10
SCALES = (16, 18, 20, 22)
QUICK_SCALES = (10, 12)
ROOTS = 4


# "throughput does not depend on the graph size" (cell.size_insensitive): read as the
# sizes' throughputs spreading by at most this much
SIZE_SPREAD = 0.10


def main(argv=None):
    args = C.parse_args(__doc__, argv)
    out = lib.out_dir(args)
    scales = QUICK_SCALES if args.quick else SCALES
    rows = []
    for scale in scales:
        r = C.run(ARITY, scale, 8, roots=2 if args.quick else ROOTS)
        rows.append({"arity": ARITY, "scale": scale, "vertices": r.vertices, "ME_s": r.teps / 1e6})
    lib.write_csv(out / "arity10.csv", rows)
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot([r["vertices"] for r in rows], [r["ME_s"] for r in rows], marker="o", label="simbfs (cell-overlap)")
    ax.axhline(claim("cell.arity10")["value"], color="k", ls="--", label="paper, 8 SPEs")
    ax.set_xscale("log")
    ax.set_ylim(0, None)
    ax.set_xlabel("vertices")
    ax.set_ylabel("ME/s")
    ax.set_title("Arity 10 on one Cell (8 SPEs)")
    ax.legend()
    lib.save_figure(fig, out / "arity10.png")
    largest = rows[-1]["ME_s"]
    print("Arity 10 (claims cell.arity10, cell.size_insensitive):")
    lib.compare_claim("cell.arity10", largest, "ME/s")
    spread = max(r["ME_s"] for r in rows) / min(r["ME_s"] for r in rows) - 1
    sizes = ", ".join(f"{r['vertices']:,} v: {r['ME_s']:.1f}" for r in rows)
    lib.trend("cell.size_insensitive", spread <= SIZE_SPREAD, f"{sizes} ME/s; spread {spread:.1%} "
              f"(does not depend on the size: at most {SIZE_SPREAD:.0%})",
              label="cell.size_insensitive, throughput over sizes")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
