"""TSUBAME 2.0 Fig. 10 (seed 004, VI-E): the breakdown of a BFS's time into
GPU kernel time and wait time (CPU work and communication waits), weak
scaling at scale 23 per GPU on 64 to 4,096 GPUs, final code (`ueno2d`:
expand compression, SV update (B)).

PROJECTED, every point (`simbfs run tsubame2 --mode project`). Per BFS,
averaged over the roots: kernel time = the level records' compute_s (the
mean process's kernel seconds) summed over the levels; wait time = the
BFS's time minus that. Claim tsubame.comm_share (tolerance 20%, relative):
kernel time 71% of the total at 256 GPUs and 42% at 4,096; 58% of the time
is network communication at 4,096 (compared with the wait share, which the
paper says is mostly communication wait).

    python experiments/tsubame2/fig10.py [--quick] [--roots 16] [--profile-scale 18] [--out DIR]

16 roots by default, not the other figures' 4: the kernel share at 4,096
GPUs moves by several points with the roots (54.4% with 4, 46.9% with 8,
49.7% with 16), across the claim's 20% tolerance.
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

ALGORITHM = "ueno2d"
# 004, VI-E: (GPUs, what, paper share)
PAPER = ((256, "kernel", 0.71), (4096, "kernel", 0.42), (4096, "wait", 0.58))


def main(argv=None) -> list[dict]:
    args = T.figure_options(__doc__, argv, roots=16)
    out = lib.out_dir(args)
    gpus_list, roots, profile_scale = T.sizes(args)
    started = time.time()
    rows = []
    for gpus in gpus_list:
        scale = T.scale_for(gpus)
        R, C = T.grid(gpus)
        doc = T.project(ALGORITHM, gpus, scale, roots, profile_scale)
        total = T.level_sum(doc, "time_s")
        kernel = T.level_sum(doc, "compute_s")
        rows.append({"mode": doc["mode"], "algorithm": ALGORITHM, "gpus": gpus, "hosts": doc["hosts"], "R": R, "C": C,
                     "scale": scale, "roots": len(doc["roots"]), "profile_scale": profile_scale,
                     "bfs_s": total, "kernel_s": kernel, "wait_s": total - kernel, "kernel_share": kernel / total,
                     "wait_share": 1 - kernel / total, "median_gteps": doc["teps"]["median"] / 1e9})
        print(f"  {gpus:>5} GPUs, scale {scale}: BFS {total * 1e3:8.1f} ms, kernels {kernel / total:5.1%} (projected)",
              flush=True)

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    x = range(len(rows))
    ax.bar(x, [r["kernel_s"] for r in rows], color="C0", label="GPU kernel time (mean process)")
    ax.bar(x, [r["wait_s"] for r in rows], bottom=[r["kernel_s"] for r in rows], color="C1",
           label="wait time (rest of the BFS)")
    for i, r in enumerate(rows):
        ax.annotate(f"{r['kernel_share']:.0%}", (i, r["kernel_s"] / 2), ha="center", fontsize=7, color="white")
    ax.set_xticks(list(x), [str(r["gpus"]) for r in rows])
    ax.set_xlabel("GPUs (scale 23 per GPU)")
    ax.set_ylabel("seconds per BFS")
    ax.set_title(f"Fig. 10: kernel and wait time - PROJECTED from scale {profile_scale}", fontsize=10)
    ax.legend(fontsize=8)
    lib.save(fig, rows, out, "fig10_breakdown")

    print(f"Fig. 10, PROJECTED from scale-{profile_scale} profiles ({roots} roots; per BFS)")
    print(f"  {'GPUs':>5} {'BFS ms':>9} {'kernel ms':>10} {'wait ms':>9} {'kernel':>7}")
    for r in rows:
        print(f"  {r['gpus']:>5} {r['bfs_s'] * 1e3:9.1f} {r['kernel_s'] * 1e3:10.1f} {r['wait_s'] * 1e3:9.1f} "
              f"{r['kernel_share']:7.1%}")
    c = claim("tsubame.comm_share")
    print(f"Comparison with tsubame.comm_share ({c['paper']}: {c['statement']}):")
    by = {r["gpus"]: r for r in rows}
    for gpus, what, share in PAPER:
        if gpus in by:
            lib.compare(f"{what} share, {gpus} GPUs", by[gpus][f"{what}_share"], share, c["tolerance"],
                        claim_id="tsubame.comm_share")
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig10_breakdown.csv'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
