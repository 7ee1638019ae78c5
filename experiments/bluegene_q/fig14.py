"""BlueGene/Q Fig. 14 (seed 000, IV-E): the graph representation's impact
on the level times, without direction optimisation.

Executed with cp1d-spi, direction optimisation off (as in the paper), with
the three representations of IV-E: the coarse index (one word per 64 source
vertices, the paper's choice), the skip list (the same structure without the
index: every source-vertex header is visited) and a plain edge list (every
stored pair is read every level). Per level, the mean over the roots of the
level time. The BFS itself is the same in all three (the representation
changes how the structure is read, not which edges are examined).

Claim compared (../shared/reference/claims.yaml): `bgq.representation` -
without direction optimisation, the coarse index is slightly slower than
the index-free skip list in the central levels but cheaper in the light
levels; both beat a plain edge list. Central levels here: the two levels
with the most edges examined; light levels: all others. The figure's values
are not in the paper's text.

    python experiments/bluegene_q/fig14.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402

BASE = "cp1d-spi:direction-optimising=off"
VARIANTS = {
    "coarse index": f"{BASE},representation=coarse-index",
    "skip list": f"{BASE},representation=skip-list",
    "edge list": f"{BASE},representation=edge-list",
}
NODES, SCALE, ROOTS = 64, 18, 8
QUICK = (32, 12, 2)
SAME = 0.005  # central-level times closer than this are "the same", not the paper's visible "slightly slower"


def main(argv=None):
    args = B.parser(__doc__).parse_args(argv)
    out = lib.out_dir(args)
    nodes, scale, roots = QUICK if args.quick else (NODES, SCALE, ROOTS)
    started = time.time()
    rows, teps = [], {}
    for label, algorithm in VARIANTS.items():
        doc = B.simulate(algorithm, nodes, scale, roots)
        teps[label] = B.gteps(doc)
        for row in B.level_means(doc, "time_s", "scan_s", "receive_s", "flush_s", "edges_examined",
                                 "frontier_vertices"):
            rows.append({"variant": label, "paper_level": row["level"] + 1, **row})
    lib.write_csv(out / "fig14_representations.csv", rows)
    _plot(rows, out / "fig14_representations.png", nodes, scale)

    by = {label: {r["level"]: r for r in rows if r["variant"] == label} for label in VARIANTS}
    coarse, skip, plain = (by[label] for label in VARIANTS)
    levels = sorted(coarse)
    print(f"Fig. 14, {B.reduced_size_note(nodes, scale)}; direction optimisation off, mean over {roots} roots")
    print(f"  {'level':>7s} {'edges examined':>15s} {'coarse index':>13s} {'skip list':>10s} {'edge list':>10s}  (us)")
    for k in levels:
        print(f"  {k:>2d} ({k + 1:>2d}) {coarse[k]['edges_examined']:15,.0f} {coarse[k]['time_s'] * 1e6:13.2f} "
              f"{skip[k]['time_s'] * 1e6:10.2f} {plain[k]['time_s'] * 1e6:10.2f}")
    print("  harmonic mean: " + ", ".join(f"{label} {value:.2f} GTEPS" for label, value in teps.items()))
    same = all([by[label][k]["edges_examined"] for k in levels] == [coarse[k]["edges_examined"] for k in levels]
               for label in VARIANTS)
    print(f"  the same BFS in all three (edges examined per level): {'yes' if same else 'NO'}")

    central = sorted(sorted(levels, key=lambda k: coarse[k]["edges_examined"])[-2:])
    light = [k for k in levels if k not in central]

    def total(variant, ks):
        return sum(variant[k]["time_s"] for k in ks)

    print(f"  bgq.representation (trend): central levels {central[0]} and {central[1]} ({central[0] + 1} and "
          f"{central[1] + 1} counted from 1), light levels {', '.join(map(str, light))}")
    per_level = ", ".join(f"level {k} {coarse[k]['time_s'] / skip[k]['time_s'] - 1:+.2%}" for k in central)
    slower = total(coarse, central) / total(skip, central) - 1
    same_time = abs(slower) < SAME  # no visible difference: not the paper's "slightly slower"
    lib.trend("bgq.representation", not same_time and 0 < slower < 0.1,
              f"coarse index {total(coarse, central) * 1e6:.2f} us against skip list {total(skip, central) * 1e6:.2f} "
              f"us, {slower:+.2%} ({per_level})" + (f"; within {SAME:.1%}: no visible difference" if same_time else ""),
              label="bgq.representation, coarse index slightly slower in the central levels")
    cheaper = total(coarse, light) / total(skip, light)
    lib.trend("bgq.representation", cheaper < 1,
              f"coarse index {total(coarse, light) * 1e6:.2f} us against skip list {total(skip, light) * 1e6:.2f} us "
              f"({cheaper:.2f}x)", label="bgq.representation, coarse index cheaper in the light levels")
    beaten = [k for k in levels if plain[k]["time_s"] > max(coarse[k]["time_s"], skip[k]["time_s"])]
    beat = total(plain, levels) > max(total(coarse, levels), total(skip, levels))
    lib.trend("bgq.representation", beat,
              f"{total(plain, levels) * 1e6:.1f} us per BFS against {total(coarse, levels) * 1e6:.1f} (coarse index) "
              f"and {total(skip, levels) * 1e6:.1f} (skip list), slower than both in {len(beaten)} of {len(levels)} "
              f"levels", label="bgq.representation, both beat the edge list")
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig14_representations.csv'}")
    return rows


def _plot(rows, path, nodes, scale):
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, marker in zip(VARIANTS, "os^"):
        mine = [r for r in rows if r["variant"] == label]
        ax.plot([r["level"] for r in mine], [r["time_s"] * 1e6 for r in mine], marker=marker, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("BFS level (0 = the root's)")
    ax.set_ylabel("level time, us (mean over roots)")
    ax.set_title(f"Representations, cp1d-spi without DO, scale {scale}, {nodes} nodes (simulated)", fontsize=9)
    ax.legend()
    lib.save_figure(fig, path)


if __name__ == "__main__":
    lib.exit_on_user_error(main)
