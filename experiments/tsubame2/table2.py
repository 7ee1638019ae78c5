"""TSUBAME 2.0 Table 2 (seed 004, VI-C, abstract): the Graph500 June 2012
submission, scale 35 on 4,096 GPUs (1,366 nodes): minimum 74.9, first
quartile 300, median 317, third quartile 326, maximum 334 GTEPS over 64
searches; and beside it the CPU implementation on the same nodes (VI-F:
211 GTEPS).

PROJECTED (`simbfs run tsubame2 --nodes 4096 --scale 35 --mode project`,
`ueno2d`, the final code, and `ueno2d:device=cpu`), from a scale-20 profile
with 16 roots (the paper ran 64; 16 keeps this script near three minutes).
Claims: tsubame.headline (median 317 GTEPS, tolerance 15%) and tsubame.cpu
(211 GTEPS, tolerance 20%); the other quartiles are compared without a
tolerance.

    python experiments/tsubame2/table2.py [--quick] [--roots 16] [--profile-scale 20] [--out DIR]
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

GPUS, SCALE = 4096, 35
# 004, Table 2: GTEPS over 64 runs
PAPER = {"min": 74.9, "q1": 300.0, "median": 317.0, "q3": 326.0, "max": 334.0}
VARIANTS = (("GPU (3 per node)", "ueno2d"), ("CPU", "ueno2d:device=cpu"))
QUICK = {"roots": 4, "profile_scale": 12}


def main(argv=None) -> list[dict]:
    args = T.figure_options(__doc__, argv, profile_scale=20, roots=16)
    out = lib.out_dir(args)
    roots = QUICK["roots"] if args.quick else args.roots
    profile_scale = QUICK["profile_scale"] if args.quick else args.profile_scale
    assert T.scale_for(GPUS) == SCALE
    R, C = T.grid(GPUS)
    started = time.time()
    rows = []
    for variant, algorithm in VARIANTS:
        doc = T.project(algorithm, GPUS, SCALE, roots, profile_scale)
        teps = doc["teps"]
        row = {"mode": doc["mode"], "variant": variant, "algorithm": algorithm, "gpus": GPUS, "hosts": doc["hosts"],
               "R": R, "C": C, "scale": SCALE, "roots": len(doc["roots"]), "profile_scale": profile_scale}
        row.update({f"{key}_gteps": teps[key] / 1e9 for key in ("min", "q1", "median", "q3", "max", "harmonic_mean")})
        rows.append(row)
        print(f"  {variant}: {teps['median'] / 1e9:.2f} GTEPS median (projected, {time.time() - started:.0f} s)",
              flush=True)

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    keys = list(PAPER)
    x = range(len(keys))
    ax.bar([i - 0.27 for i in x], [PAPER[k] for k in keys], width=0.27, color="grey", label="paper, GPU (64 runs)")
    for index, row in enumerate(rows):
        ax.bar([i + 0.27 * index for i in x], [row[f"{k}_gteps"] for k in keys], width=0.27, color=f"C{index}",
               label=f"simbfs {row['variant']} ({row['roots']} roots)")
    ax.axhline(claim("tsubame.cpu")["value"], color="C1", ls=":", label="paper, CPU (211)")
    ax.set_xticks(list(x), keys)
    ax.set_ylabel("GTEPS")
    ax.set_title(f"Table 2: 4,096 GPUs, scale 35 - PROJECTED from scale {profile_scale}", fontsize=10)
    ax.legend(fontsize=7)
    lib.save(fig, rows, out, "table2_headline")

    gpu, cpu = rows
    print(f"Table 2, PROJECTED from a scale-{profile_scale} profile ({roots} roots; GTEPS; {GPUS} GPUs on "
          f"{gpu['hosts']} hosts, {R}x{C})")
    print(f"  {'':<18}" + "".join(f"{k:>9}" for k in keys) + f"{'harmonic':>10}")
    print(f"  {'paper (GPU)':<18}" + "".join(f"{PAPER[k]:>9.1f}" for k in keys))
    for row in rows:
        print(f"  {row['variant']:<18}" + "".join(f"{row[f'{k}_gteps']:>9.1f}" for k in keys)
              + f"{row['harmonic_mean_gteps']:>10.1f}")
    c = claim("tsubame.headline")
    print(f"Comparison with tsubame.headline ({c['paper']}: {c['statement']}):")
    for key in keys:
        if key == "median":
            lib.compare_claim("tsubame.headline", gpu["median_gteps"], "GTEPS", label="GPU median")
        else:
            lib.compare(f"GPU {key}", gpu[f"{key}_gteps"], PAPER[key], unit="GTEPS")
    print(f"Comparison with tsubame.cpu ({claim('tsubame.cpu')['paper']}):")
    lib.compare_claim("tsubame.cpu", cpu["median_gteps"], "GTEPS", label="CPU median")
    lib.compare("GPU / CPU median", gpu["median_gteps"] / cpu["median_gteps"], 317 / 211, unit="x")
    print(f"  {time.time() - started:.0f} s; wrote {out / 'table2_headline.csv'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
