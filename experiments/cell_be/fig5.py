"""Fig. 5 of 001: time spent in computation (above) and data transfer (below)
per SPE, for several arities (claim cell.overlap: in the overlapped schedule
the Gather and Commit transfer times are below the computation, and one
all-to-all queue transfer is shorter than its Bitmap processing).
Reads the simulator's timeline recorder.

    python experiments/cell_be/fig5.py [--quick] [--out DIR]
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.cell_be import cell as C  # noqa: E402

ARITIES = (16, 64, 256, 512)
EDGES_LOG2 = 22
QUICK_EDGES_LOG2 = 14


def main(argv=None):
    args = C.parse_args(__doc__, argv)
    out = lib.out_dir(args)
    edges_log2 = QUICK_EDGES_LOG2 if args.quick else EDGES_LOG2
    rows = []
    for arity in ARITIES:
        scale = max(8, edges_log2 - int(round(math.log2(arity))))
        r = C.run(arity, scale, 8, roots=1, trace=True)
        b = r.busy
        spans = r.recorder.spans
        bitmaps = [s.duration_s for s in spans if s.what == "bitmap"]
        puts = [s.duration_s for s in spans if s.what == "alltoall"]
        rows.append({
            "arity": arity, "scale": scale,
            "compute_s": (b.get("dispatch", 0) + b.get("bitmap", 0)) / 8,
            "gather_commit_s": (b.get("gather", 0) + b.get("commit", 0) + b.get("fetch", 0)) / 8,
            "alltoall_s": b.get("alltoall", 0) / 8,
            "wait_s": b.get("wait", 0) / 8,
            "mean_put_s": sum(puts) / max(1, len(puts)),
            "mean_bitmap_s": sum(bitmaps) / max(1, len(bitmaps)),
        })
    lib.write_csv(out / "fig5_overlap.csv", rows)
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    x = range(len(rows))
    ax.bar(x, [r["compute_s"] * 1e3 for r in rows], label="computation (dispatch + bitmap)")
    ax.bar(x, [-r["gather_commit_s"] * 1e3 for r in rows], label="DMA in flight (fetch, gather, commit)")
    ax.bar(x, [-r["alltoall_s"] * 1e3 for r in rows], bottom=[-r["gather_commit_s"] * 1e3 for r in rows],
           label="all-to-all puts")
    ax.set_xticks(list(x), [f"a={r['arity']}" for r in rows])
    ax.axhline(0, color="k", lw=0.5)
    ax.set_ylabel("ms per SPE (one search)")
    ax.set_title("Fig. 5: computation (above) vs data transfer (below), simulated")
    ax.legend(fontsize=7)
    lib.save_figure(fig, out / "fig5_overlap.png")
    print("Fig. 5 (claim cell.overlap, trend): transfer vs computation per SPE")
    for r in rows:  # the claim holds for every arity and size: each arity's two parts must hold
        ok1 = r["gather_commit_s"] < r["compute_s"]
        ok2 = r["mean_put_s"] < r["mean_bitmap_s"]
        lib.trend("cell.overlap", ok1,
                  f"DMA {r['gather_commit_s']*1e3:.3f} ms against compute {r['compute_s']*1e3:.3f} ms",
                  label=f"cell.overlap, a = {r['arity']}, transfers below computation")
        lib.trend("cell.overlap", ok2,
                  f"one put {r['mean_put_s']*1e6:.2f} us against one bitmap {r['mean_bitmap_s']*1e6:.2f} us",
                  label=f"cell.overlap, a = {r['arity']}, one put below one bitmap")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
