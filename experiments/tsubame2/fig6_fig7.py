"""TSUBAME 2.0 Figs. 6 and 7 (seed 004, VI-D): the expand phase with and
without expand compression, weak scaling at scale 23 per GPU on 64 to
4,096 GPUs (Table 1's grids). Base: every expand sends bitmaps
(`ueno2d:expand=bitmap`); compressed: a SIMD-VLQ vertex list when the
frontier holds at most n/16 vertices (`ueno2d`, expand=auto). Fig. 6 is the
expand phase's time per BFS, Fig. 7 its data per GPU per BFS.

PROJECTED, every point (`simbfs run tsubame2 --mode project`, through
simbfs.algorithms.ueno2d.project.Projector level by level; tsubame.py's
project_levels). Per BFS = summed over a root's levels, averaged over the
roots.
- expand time: the busiest process's expand seconds of each level
  (pricing.expand_seconds: encode, copy to the host, column and row
  allgathers, copy to the GPU, decode), as the projection charges them.
- expand data per GPU: the level record's collective_bytes (what all
  processes receive in the expand) / GPUs.
Both variants use the default SV update (ttas): the expand does not depend
on it. Claims: none with a number; the paper says compression "can reduce
both communication data size and execution time of the expand phase
dramatically" (VI-D), checked here as a reduction at every size.

    python experiments/tsubame2/fig6_fig7.py [--quick] [--roots 4] [--profile-scale 18] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.tsubame2 import tsubame as T  # noqa: E402

VARIANTS = (("base (bitmap)", "ueno2d:expand=bitmap"), ("compressed (auto)", "ueno2d"))


def main(argv=None) -> list[dict]:
    args = T.figure_options(__doc__, argv)
    out = lib.out_dir(args)
    gpus_list, roots, profile_scale = T.sizes(args)
    started = time.time()
    rows = []
    for gpus in gpus_list:
        scale = T.scale_for(gpus)
        for variant, algorithm in VARIANTS:
            p = T.project_levels(algorithm, gpus, scale, roots, profile_scale)
            expand_s = T.per_bfs(p, lambda level: level["expand_s"])
            data = T.per_bfs(p, lambda level: level["record"].collective_bytes) / gpus
            lists = T.per_bfs(p, lambda level: level["mean"].expand_mode == "list")
            levels = T.per_bfs(p, lambda level: 1)
            rows.append({"mode": "projected", "variant": variant, "algorithm": algorithm, "gpus": gpus,
                         "hosts": p["hosts"], "R": p["R"], "C": p["C"], "scale": scale, "roots": len(p["roots"]),
                         "profile_scale": profile_scale, "expand_s_per_bfs": expand_s,
                         "expand_MB_per_gpu_per_bfs": data / 1e6, "levels_per_bfs": levels,
                         "list_levels_per_bfs": lists})
            print(f"  {gpus:>5} GPUs ({p['R']}x{p['C']}), scale {scale}: {variant:<18} expand "
                  f"{expand_s * 1e3:8.2f} ms, {data / 1e6:8.2f} MB/GPU (projected)", flush=True)

    plt = lib.pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    for index, (variant, _) in enumerate(VARIANTS):
        mine = [r for r in rows if r["variant"] == variant]
        x = [r["gpus"] for r in mine]
        left.plot(x, [r["expand_s_per_bfs"] * 1e3 for r in mine], "o-", color=f"C{index}", label=variant)
        right.plot(x, [r["expand_MB_per_gpu_per_bfs"] for r in mine], "o-", color=f"C{index}", label=variant)
    for ax, title, unit in ((left, "Fig. 6: expand time per BFS", "ms (busiest process)"),
                            (right, "Fig. 7: expand data per GPU per BFS", "MB received")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs (scale 23 per GPU)")
        ax.set_ylabel(unit)
        ax.set_title(f"{title} - PROJECTED from scale {profile_scale}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    lib.save(fig, rows, out, "fig6_fig7_expand")

    print(f"Figs. 6 and 7, PROJECTED from scale-{profile_scale} profiles ({roots} roots; per BFS, scale 23 per GPU)")
    print(f"  {'GPUs':>5} {'grid':>6} {'time base':>10} {'time comp':>10} {'ratio':>6} "
          f"{'MB base':>9} {'MB comp':>9} {'ratio':>6}")
    by = {(r["variant"], r["gpus"]): r for r in rows}
    fewer_time = fewer_data = 0
    for gpus in gpus_list:
        base, comp = by[(VARIANTS[0][0], gpus)], by[(VARIANTS[1][0], gpus)]
        t = comp["expand_s_per_bfs"] / base["expand_s_per_bfs"]
        d = comp["expand_MB_per_gpu_per_bfs"] / base["expand_MB_per_gpu_per_bfs"]
        fewer_time += t < 1
        fewer_data += d < 1
        print(f"  {gpus:>5} {base['R']:>2}x{base['C']:<3} {base['expand_s_per_bfs'] * 1e3:8.2f}ms "
              f"{comp['expand_s_per_bfs'] * 1e3:8.2f}ms {t:6.3f} {base['expand_MB_per_gpu_per_bfs']:9.2f} "
              f"{comp['expand_MB_per_gpu_per_bfs']:9.2f} {d:6.3f}")
    print("Comparison with 004, VI-D (no claim id with a number: compression 'can reduce both communication data "
          "size and execution time of the expand phase dramatically'; trend):")
    print(f"  compressed/base expand time below 1 at {fewer_time} of {len(gpus_list)} sizes, expand data below 1 at "
          f"{fewer_data} of {len(gpus_list)} sizes")
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig6_fig7_expand.csv'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
