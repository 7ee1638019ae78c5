"""Fig. 7 of 001: the Cell BE compared with other processors. The Cell bars
are SIMULATED (cell-overlap, 8 SPEs, the paper's graphs). The other bars are
NOT simulated: they are the simulated Cell value divided by the ratio the
paper's text states (section 5), and are labelled "quoted".

    python experiments/cell_be/fig7.py [--quick] [--out DIR]
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.cell_be import cell as C  # noqa: E402

EDGES_LOG2 = 22
QUICK_EDGES_LOG2 = 14
# (arity, processor, how many times slower than one Cell, as stated in 001, 5)
QUOTED = [
    (10, "MTA-2 (1 processor)", 7.0),
    (10, "conventional (average)", 9.0),
    (50, "BlueGene/L (1 processor)", 325.0),
    (200, "Pentium 4", 22.0),
    (200, "Woodcrest (1 core)", 22.0),
    (200, "Woodcrest (2 cores)", 12.0),
    (200, "AMD Opteron", 26.0),
    (200, "BlueGene/L (1 processor)", 128.0),
    (200, "MTA-2 (1 processor)", 23.0),
]
ARITIES = (10, 50, 200)


def main(argv=None):
    args = C.parse_args(__doc__, argv)
    out = lib.out_dir(args)
    edges_log2 = QUICK_EDGES_LOG2 if args.quick else EDGES_LOG2
    cell = {}
    for arity in ARITIES:
        scale = max(8, edges_log2 - int(round(math.log2(arity))))
        cell[arity] = C.run(arity, scale, 8, roots=1 if args.quick else 2).teps / 1e6
    rows = [{"arity": a, "processor": "Cell BE, 8 SPEs", "ME_s": cell[a], "source": "simulated"} for a in ARITIES]
    rows += [{"arity": a, "processor": p, "ME_s": cell[a] / ratio, "source": f"quoted: Cell / {ratio:g} (001, 5)"}
             for a, p, ratio in QUOTED]
    lib.write_csv(out / "fig7_comparison.csv", rows)
    plt = lib.pyplot()
    fig, axes = plt.subplots(1, len(ARITIES), figsize=(11, 4), sharey=True)
    for ax, arity in zip(axes, ARITIES):
        pts = [r for r in rows if r["arity"] == arity]
        colours = ["tab:blue" if r["source"] == "simulated" else "lightgrey" for r in pts]
        ax.barh([r["processor"] + ("" if r["source"] == "simulated" else " (quoted)") for r in pts],
                [r["ME_s"] for r in pts], color=colours)
        ax.set_xscale("log")
        ax.set_title(f"a = {arity}")
        ax.set_xlabel("ME/s")
    fig.suptitle("Fig. 7: Cell BE simulated (blue); others quoted from the paper's ratios, not simulated (grey)")
    lib.save_figure(fig, out / "fig7_comparison.png")
    print("Fig. 7: simulated Cell BE (8 SPEs); other processors are quoted ratios, not simulated")
    for a in ARITIES:
        print(f"  a = {a:>3}: Cell {cell[a]:8.1f} ME/s (simulated)")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
