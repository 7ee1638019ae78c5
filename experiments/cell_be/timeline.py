"""The teaching timeline of docs/background/cell-timeline.md: one BFS level
on one SPE, drawn from the simulator's timeline recorder (which DMA overlaps
which computation, where the SPE waits), and what-ifs: the Bitmap's cycles
per edge (the paper's 96 -> 26 story) and the DMA block size (bG buffer).

    python experiments/cell_be/timeline.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.cell_be import cell as C  # noqa: E402

ARITY = 16
SCALE = 16
SPE = 0
WINDOW_ITERATIONS = 6  # iterations of the busiest level shown
BITMAP_CYCLES = (96, 60, 40, 26)
BG_BUFFERS = ("2 KiB", "4 KiB", "8 KiB", "16 KiB")
COLOURS = {"dispatch": "tab:blue", "bitmap": "tab:orange", "wait": "tab:red", "fetch": "tab:grey",
           "gather": "tab:green", "alltoall": "tab:purple", "commit": "tab:brown", "sync": "black",
           "alltoall-issue": "tab:cyan"}


def main(argv=None):
    args = C.parse_args(__doc__, argv)
    out = lib.out_dir(args)
    scale = 10 if args.quick else SCALE
    r = C.run(ARITY, scale, 8, roots=1, trace=True)
    levels = r.levels  # one root: its levels in order
    busiest = max(levels, key=lambda lv: lv["time_s"])
    start = sum(lv["time_s"] for lv in levels[:busiest["level"]])
    spans = [s for s in r.recorder.spans if s.node == SPE and start <= s.start_s < start + busiest["time_s"]]
    computes = [s for s in spans if s.what == "dispatch"]
    end = computes[min(WINDOW_ITERATIONS, len(computes) - 1)].start_s if computes else start + busiest["time_s"]
    window = [s for s in spans if s.start_s < end]
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(10, 3))
    lanes = {"SPU": 2, "MFC (main memory)": 1, "MFC (EIB puts)": 0}
    for s in window:
        if s.resource == "collective":  # a barrier or allreduce: the SPU waits in it
            s = replace(s, what="sync")
        lane = "SPU" if s.resource in ("cpu", "collective") else (
            "MFC (EIB puts)" if s.what == "alltoall" else "MFC (main memory)")
        y = lanes[lane]
        offset = {"fetch": 0.25, "gather": 0.0, "commit": -0.25}.get(s.what, 0.0)
        ax.barh(y + offset, (s.duration_s) * 1e6, left=(s.start_s - start) * 1e6,
                height=0.22 if offset or lane != "SPU" else 0.6,
                color=COLOURS.get(s.what, "k"), label=s.what)
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    fig.legend(unique.values(), unique.keys(), fontsize=7, ncol=len(unique), loc="lower center")
    ax.set_yticks(list(lanes.values()), list(lanes.keys()))
    ax.set_xlabel(f"microseconds into level {busiest['level']}")
    ax.set_title(f"SPE {SPE}, a = {ARITY}, {r.vertices:,} vertices, 8 SPEs, cell-overlap (simulated)")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(out / "timeline.png", dpi=120)
    plt.close(fig)
    rows = [{"time_us": (s.start_s - start) * 1e6, "kind": s.what, "duration_us": s.duration_s * 1e6} for s in window]
    lib.write_csv(out / "timeline.csv", rows)

    whatif = []
    for cycles in BITMAP_CYCLES:
        t = C.run(ARITY, scale, 8, overrides=(f"spe.cycles.bitmap.per_edge={cycles}",)).teps
        whatif.append({"change": f"bitmap {cycles} cycles/edge", "ME_s": t / 1e6})
    for size in BG_BUFFERS:
        t = C.run(ARITY, scale, 8, overrides=(f"spe.bg_buffer={size}",)).teps
        whatif.append({"change": f"bG {size}", "ME_s": t / 1e6})
    for arity in (10, 16):
        for size in ("1 KiB", "16 KiB"):
            t = C.run(arity, scale, 8, algorithm="cell-bsp", overrides=(f"spe.bg_buffer={size}",)).teps
            whatif.append({"change": f"cell-bsp a={arity} bG {size}", "ME_s": t / 1e6})
    lib.write_csv(out / "timeline_whatif.csv", whatif)
    print("Timeline of one level on one SPE written; what-ifs (8 SPEs, a = 16):")
    for w in whatif:
        print(f"  {w['change']:<32} {w['ME_s']:8.1f} ME/s")
    return whatif


if __name__ == "__main__":
    lib.exit_on_user_error(main)
