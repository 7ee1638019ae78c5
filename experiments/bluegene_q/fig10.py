"""BlueGene/Q Fig. 10 (seed 000, IV-C): weak scaling of cp1d-spi from 1 rack
(1,024 nodes, scale 34) to 64 racks (65,536 nodes, scale 40), 2^24 vertices
per node: box plots of TEPS over the search keys, and their harmonic mean.

PROJECTED, every point: these runs are far too large to execute here. Each
is predicted by `simbfs run ... --mode project` (simbfs/algorithms/cp1d/project_spi.py,
docs/background/projection.md) from real BFS runs on a scale-18 profile
graph; docs/validation.md checks the method against executions where both
are possible. Claims compared: `bgq.headline.65536` (15,363 GTEPS at 64
racks) and `bgq.weak_scaling` (close to ideal up to 16 racks, worse beyond;
the minimum over roots drags the harmonic mean; roots whose third level
explores many edges are the worst).

    python experiments/bluegene_q/fig10.py [--quick] [--roots 16] [--profile-scale 18]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402


RACKS = (1, 2, 4, 8, 16, 32, 64)
PER_NODE_SCALE = 24  # 2^24 vertices per node: scale 34 on 1,024 nodes ... 40 on 65,536
QUICK = {"racks": (1, 4), "roots": 2, "profile_scale": 14}
THIRD_LEVEL = 2  # the paper counts levels from 1; simbfs from 0
CLOSE = 0.8  # what we call "close to ideal" weak scaling (the paper gives no number)


def project(nodes: int, scale: int, roots: int, profile_scale: int) -> dict:
    return B.project("cp1d-spi", nodes, scale, roots, profile_scale)


def main(argv=None):
    options = B.parser(__doc__)
    options.add_argument("--roots", type=int, default=16, help="search keys per point (default 16)")
    options.add_argument("--profile-scale", type=int, default=18, help="scale of the executed profile (default 18)")
    args = options.parse_args(argv)
    out = lib.out_dir(args)
    racks = QUICK["racks"] if args.quick else RACKS
    roots = QUICK["roots"] if args.quick else args.roots
    profile_scale = QUICK["profile_scale"] if args.quick else args.profile_scale
    started = time.time()
    rows, per_root = [], []
    for count in racks:
        nodes = 1024 * count
        scale = PER_NODE_SCALE + nodes.bit_length() - 1
        doc = project(nodes, scale, roots, profile_scale)
        teps = doc["teps"]
        worst = min(doc["roots"], key=lambda r: r["teps"])
        worst_third = _third_level(doc, worst["root"])
        rows.append({"mode": "projected", "racks": count, "nodes": nodes, "scale": scale, "roots": len(doc["roots"]),
                     "profile_scale": profile_scale,
                     "harmonic_mean_gteps": teps["harmonic_mean"] / 1e9, "min_gteps": teps["min"] / 1e9,
                     "q1_gteps": teps["q1"] / 1e9, "median_gteps": teps["median"] / 1e9,
                     "q3_gteps": teps["q3"] / 1e9, "max_gteps": teps["max"] / 1e9,
                     "worst_root_third_level_edges": worst_third["edges_examined"] if worst_third else 0})
        for r in doc["roots"]:
            third = _third_level(doc, r["root"])
            per_root.append({"mode": "projected", "racks": count, "root": r["root"], "gteps": r["teps"] / 1e9,
                             "third_level_edges_examined": third["edges_examined"] if third else 0})
        print(f"  {count:>2} racks ({nodes:>6} nodes, scale {scale}): harmonic mean "
              f"{rows[-1]['harmonic_mean_gteps']:9.1f} GTEPS (projected)", flush=True)
    lib.write_csv(out / "fig10_weak_scaling.csv", rows)
    lib.write_csv(out / "fig10_roots.csv", per_root)
    _plot(rows, per_root, out / "fig10_weak_scaling.png", profile_scale)
    _compare(rows, per_root)
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig10_weak_scaling.csv'}")
    return rows, per_root


def _third_level(doc: dict, root: int) -> dict | None:
    return next((lv for lv in doc["levels"] if lv["root"] == root and lv["level"] == THIRD_LEVEL), None)


def _compare(rows, per_root):
    print(f"Fig. 10, PROJECTED from scale-{rows[0]['profile_scale']} profiles (weak scaling, 2^24 vertices per node)")
    base = rows[0]
    for row in rows:
        ideal = base["harmonic_mean_gteps"] * row["racks"] / base["racks"]
        row["efficiency"] = row["harmonic_mean_gteps"] / ideal
        print(f"  {row['racks']:>2} racks: {row['harmonic_mean_gteps']:9.1f} GTEPS, "
              f"{row['efficiency']:.0%} of ideal from {base['racks']} rack(s)")
    top = next((r for r in rows if r["nodes"] == 65536), None)
    if top:
        lib.compare_claim("bgq.headline.65536", top["harmonic_mean_gteps"], "GTEPS", label="bgq.headline.65536 (proj.)")
    # "close to ideal": at least CLOSE of ideal weak scaling from one rack
    close_up_to = 0
    for row in rows:
        if row["efficiency"] < CLOSE:
            break
        close_up_to = row["racks"]
    # up to 16 racks and beyond can be told apart only with more than 16 racks (not with --quick's 1-4)
    lib.trend("bgq.weak_scaling", close_up_to == 16,
              f"efficiency >= {CLOSE:.0%} up to {close_up_to} racks, {rows[-1]['efficiency']:.0%} at "
              f"{rows[-1]['racks']} (the paper: close to ideal up to 16 racks, worse beyond)"
              + ("" if rows[-1]["racks"] > 16 else f"; not testable up to {rows[-1]['racks']} racks"),
              label="bgq.weak_scaling, close to ideal up to 16 racks", judged=rows[-1]["racks"] > 16)
    heavy_third = 0
    for row in rows:
        mine = [p for p in per_root if p["racks"] == row["racks"]]
        median = sorted(p["third_level_edges_examined"] for p in mine)[len(mine) // 2]
        heavy_third += row["worst_root_third_level_edges"] > median
    # the paper states these two as what happens in general: they hold when they do at most points
    lib.trend("bgq.weak_scaling", heavy_third > len(rows) / 2,
              f"the slowest root's third level examines more edges than the median root's at {heavy_third} of "
              f"{len(rows)} points (most points needed)", label="bgq.weak_scaling, heavy third level is the worst")
    drags = sum(r["harmonic_mean_gteps"] < r["median_gteps"] for r in rows)
    lib.trend("bgq.weak_scaling", drags > len(rows) / 2,
              f"harmonic mean below the median at {drags} of {len(rows)} points (most points needed)",
              label="bgq.weak_scaling, minimum drags the harmonic mean")


def _plot(rows, per_root, path, profile_scale):
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    racks = [r["racks"] for r in rows]
    data = [[p["gteps"] for p in per_root if p["racks"] == count] for count in racks]
    positions = list(range(len(racks)))
    ax.boxplot(data, positions=positions, widths=0.5)
    ax.plot(positions, [r["harmonic_mean_gteps"] for r in rows], "o-", color="C3", label="harmonic mean")
    ideal = [rows[0]["harmonic_mean_gteps"] * count / racks[0] for count in racks]
    ax.plot(positions, ideal, ":", color="grey", label="ideal weak scaling")
    ax.set_xticks(positions)
    ax.set_xticklabels([f"{count}\n({1024 * count} nodes)" for count in racks], fontsize=8)
    ax.set_yscale("log")
    ax.set_xlabel("racks")
    ax.set_ylabel("GTEPS")
    ax.set_title(f"Weak scaling, cp1d-spi, 2^24 vertices/node - PROJECTED from scale {profile_scale}")
    ax.legend()
    lib.save_figure(fig, path)


if __name__ == "__main__":
    lib.exit_on_user_error(main)
