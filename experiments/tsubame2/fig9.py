"""TSUBAME 2.0 Fig. 9 (seed 004, VI-D): overall GTEPS of the base code
(every expand a bitmap, SV updated with atomics: `ueno2d:expand=bitmap,sv=atomic`),
with expand compression (`ueno2d:expand=auto,sv=atomic`) and with the SV
update (B) as well (`ueno2d:expand=auto,sv=ttas`, the final code); weak
scaling at scale 23 per GPU on 64 to 4,096 GPUs.

PROJECTED, every point (`simbfs run tsubame2 --mode project`). GTEPS:
median (the paper's statistic: "the median of 16 BFS executions", VI-C) and
harmonic mean (Graph500's) of the roots. Claim tsubame.optimisations:
expand compression improves performance by up to 25%, the SV update (B) or
(C) adds up to 58%: compared here as the largest improvement over the GPU
counts (median TEPS; no tolerance, the claim gives none).

    python experiments/tsubame2/fig9.py [--quick] [--roots 4] [--profile-scale 18] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.tsubame2 import tsubame as T  # noqa: E402
from simbfs.claims import claim  # noqa: E402

VARIANTS = (("Base", "ueno2d:expand=bitmap,sv=atomic"), ("+ expand compression", "ueno2d:expand=auto,sv=atomic"),
            ("+ SV update (B)", "ueno2d:expand=auto,sv=ttas"))
PAPER_COMPRESSION, PAPER_SV = 0.25, 0.58  # 004, VI-D: "up to 25%", "up to 58%"


def main(argv=None) -> list[dict]:
    args = T.figure_options(__doc__, argv)
    out = lib.out_dir(args)
    gpus_list, roots, profile_scale = T.sizes(args)
    started = time.time()
    rows = []
    for gpus in gpus_list:
        scale = T.scale_for(gpus)
        R, C = T.grid(gpus)
        for variant, algorithm in VARIANTS:
            doc = T.project(algorithm, gpus, scale, roots, profile_scale)
            teps = doc["teps"]
            rows.append({"mode": doc["mode"], "variant": variant, "algorithm": algorithm, "gpus": gpus,
                         "hosts": doc["hosts"], "R": R, "C": C, "scale": scale, "roots": len(doc["roots"]),
                         "profile_scale": profile_scale, "median_gteps": teps["median"] / 1e9,
                         "harmonic_mean_gteps": teps["harmonic_mean"] / 1e9, "min_gteps": teps["min"] / 1e9,
                         "max_gteps": teps["max"] / 1e9})
            print(f"  {gpus:>5} GPUs, scale {scale}: {variant:<22} {teps['median'] / 1e9:9.2f} GTEPS median "
                  f"(projected)", flush=True)

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for index, (variant, _) in enumerate(VARIANTS):
        mine = [r for r in rows if r["variant"] == variant]
        ax.plot([r["gpus"] for r in mine], [r["median_gteps"] for r in mine], "o-", color=f"C{index}", label=variant)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("GPUs (scale 23 per GPU)")
    ax.set_ylabel("GTEPS (median of the roots)")
    ax.set_title(f"Fig. 9: effect of the optimisations - PROJECTED from scale {profile_scale}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    lib.save(fig, rows, out, "fig9_optimisations")

    by = {(r["variant"], r["gpus"]): r for r in rows}
    base, comp, sv = (v for v, _ in VARIANTS)
    print(f"Fig. 9, PROJECTED from scale-{profile_scale} profiles ({roots} roots; GTEPS, median / harmonic mean)")
    print(f"  {'GPUs':>5} {'Base':>17} {'+compression':>17} {'+SV (B)':>17} {'comp gain':>9} {'SV gain':>8}")
    gains = []
    for gpus in gpus_list:
        b, c, s = by[(base, gpus)], by[(comp, gpus)], by[(sv, gpus)]
        compression = c["median_gteps"] / b["median_gteps"] - 1
        update = s["median_gteps"] / c["median_gteps"] - 1
        gains.append((gpus, compression, update))
        cells = " ".join(f"{r['median_gteps']:8.2f}/{r['harmonic_mean_gteps']:<8.2f}" for r in (b, c, s))
        print(f"  {gpus:>5} {cells} {compression:+9.1%} {update:+8.1%}")
    c_ = claim("tsubame.optimisations")
    print(f"Comparison with tsubame.optimisations ({c_['paper']}: {c_['statement']}; largest gain over the GPU "
          f"counts, median TEPS):")
    best_c = max(gains, key=lambda g: g[1])
    best_s = max(gains, key=lambda g: g[2])
    lib.compare(f"compression, max ({best_c[0]} GPUs)", best_c[1], PAPER_COMPRESSION, claim_id="tsubame.optimisations")
    lib.compare(f"SV update (B), max ({best_s[0]} GPUs)", best_s[2], PAPER_SV, claim_id="tsubame.optimisations")
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig9_optimisations.csv'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
