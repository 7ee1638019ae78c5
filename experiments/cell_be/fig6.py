"""Fig. 6 of 001: aggregate throughput versus SPEs (1-8) for arity 16 to 512
(claim cell.spe_scaling, a trend: virtually linear at high arity, limited
saturation at small arity). Graph sizes: about 2^22 edges per arity, and
within the bitmap limit of 1 SPE (1.31 M vertices).

    python experiments/cell_be/fig6.py [--quick] [--out DIR]
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.cell_be import cell as C  # noqa: E402

ARITIES = (16, 32, 64, 128, 256, 512)
SPE_COUNTS = (1, 2, 4, 8)
EDGES_LOG2 = 22
QUICK_EDGES_LOG2 = 15
ROOTS = 2


def scale_for(arity: float, edges_log2: int) -> int:
    return max(8, min(20, edges_log2 - int(round(math.log2(arity)))))


# cell.spe_scaling read as numbers: "virtually linear" is at least this parallel efficiency at
# 8 SPEs; "a limited saturation" keeps at least LIMITED_SATURATION, and no more than at high arity
VIRTUALLY_LINEAR = 0.90
LIMITED_SATURATION = 0.50


def main(argv=None):
    args = C.parse_args(__doc__, argv)
    out = lib.out_dir(args)
    edges_log2 = QUICK_EDGES_LOG2 if args.quick else EDGES_LOG2
    arities = ARITIES[::5] if args.quick else ARITIES
    rows = []
    for arity in arities:
        scale = scale_for(arity, edges_log2)
        for spes in SPE_COUNTS:
            r = C.run(arity, scale, spes, roots=1 if args.quick else ROOTS)
            rows.append({"arity": arity, "scale": scale, "spes": spes, "ME_s": r.teps / 1e6})
    for row in rows:
        one = next(r for r in rows if r["arity"] == row["arity"] and r["spes"] == 1)["ME_s"]
        row["efficiency"] = row["ME_s"] / (one * row["spes"])
    lib.write_csv(out / "fig6_scaling.csv", rows)
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for arity in arities:
        pts = [r for r in rows if r["arity"] == arity]
        ax.plot([r["spes"] for r in pts], [r["ME_s"] for r in pts], marker="o", label=f"a = {arity}")
    ax.set_xlabel("SPEs")
    ax.set_ylabel("ME/s (aggregate)")
    ax.set_title("Fig. 6: throughput scaling (simulated, cell-overlap)")
    ax.legend(fontsize=7)
    lib.save_figure(fig, out / "fig6_scaling.png")
    print("Fig. 6 (claim cell.spe_scaling, trend): parallel efficiency at 8 SPEs")
    at8 = {arity: next(r for r in rows if r["arity"] == arity and r["spes"] == 8) for arity in arities}
    for arity, r8 in at8.items():
        print(f"  a = {arity:>4}: {r8['ME_s']:8.1f} ME/s at 8 SPEs, efficiency {r8['efficiency']:.0%}")
    high, low = at8[max(arities)], at8[min(arities)]
    lib.trend("cell.spe_scaling", high["efficiency"] >= VIRTUALLY_LINEAR,
              f"efficiency {high['efficiency']:.0%} at 8 SPEs, arity {max(arities)} (at least {VIRTUALLY_LINEAR:.0%})",
              label="cell.spe_scaling, virtually linear at high arity")
    lib.trend("cell.spe_scaling", LIMITED_SATURATION <= low["efficiency"] <= high["efficiency"],
              f"efficiency {low['efficiency']:.0%} at 8 SPEs, arity {min(arities)} (between "
              f"{LIMITED_SATURATION:.0%} and the high arity's {high['efficiency']:.0%})",
              label="cell.spe_scaling, limited saturation at small arity")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
