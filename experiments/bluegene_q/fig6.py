"""BlueGene/Q Fig. 6 (seed 000, IV-B): messages sent per level, and in which
direction, with and without edge compression and direction optimisation.

Executed with cp1d-spi on bluegene_q. Three variants: the full code
(direction optimisation + compression), direction optimisation without
compression, and neither. Per level, the mean over the roots of the packets
sent on the forward channel (top-down edges and bottom-up answers) and on
the backward channel (bottom-up probes). The figure's values are not in the
paper's text; its trend is: direction optimisation cuts messages
drastically (IV-A), and compression cuts them further in heavy levels.

    python experiments/bluegene_q/fig6.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402

VARIANTS = {
    "DO + compression": "cp1d-spi",
    "DO, no compression": "cp1d-spi:compression=off",
    "no DO, no compression": "cp1d-spi:compression=off,direction-optimising=off",
}
NODES, SCALE, ROOTS = 64, 18, 8
QUICK = (32, 12, 2)


def main(argv=None):
    args = B.parser(__doc__).parse_args(argv)
    out = lib.out_dir(args)
    nodes, scale, roots = QUICK if args.quick else (NODES, SCALE, ROOTS)
    started = time.time()
    rows, totals = [], {}
    for label, algorithm in VARIANTS.items():
        doc = B.simulate(algorithm, nodes, scale, roots)
        for row in B.level_means(doc, "messages", "backward_messages", "edges_sent"):
            row["forward_messages"] = row["messages"] - row["backward_messages"]
            rows.append({"variant": label, **row})
        totals[label] = sum(r["messages"] for r in rows if r["variant"] == label)
    lib.write_csv(out / "fig6_messages.csv", rows)
    _plot(rows, out / "fig6_messages.png", nodes, scale)
    print(f"Fig. 6, {B.reduced_size_note(nodes, scale)}")
    for label, total in totals.items():
        print(f"  {label:24s} {total:12,.0f} packets per BFS (mean over {roots} roots)")
    full, plain = totals["DO + compression"], totals["no DO, no compression"]
    # the trend of bgq.do_edge_reduction (IV-A: direction optimisation examines ~20x fewer edges), seen in the
    # packets sent; fewer packets (with compression too) cannot decide the claim's ~20x fewer edges examined
    lib.trend("bgq.do_edge_reduction", plain > full,
              f"direction optimisation + compression send {plain / max(full, 1):.1f}x fewer packets than neither",
              label="bgq.do_edge_reduction (trend, packets sent)", judged=False)
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig6_messages.csv'}")
    return rows


def _plot(rows, path, nodes, scale):
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.27
    for i, label in enumerate(VARIANTS):
        mine = [r for r in rows if r["variant"] == label]
        x = [r["level"] + (i - 1) * width for r in mine]
        ax.bar(x, [r["forward_messages"] for r in mine], width, label=f"{label}: forward")
        ax.bar(x, [r["backward_messages"] for r in mine], width, bottom=[r["forward_messages"] for r in mine],
               label=f"{label}: backward", hatch="//", alpha=0.6)
    ax.set_yscale("symlog")
    ax.set_xlabel("BFS level")
    ax.set_ylabel("packets per level (mean over roots)")
    ax.set_title(f"Messages per level, cp1d-spi, scale {scale}, {nodes} nodes (simulated)")
    ax.legend(fontsize=6)
    lib.save_figure(fig, path)


if __name__ == "__main__":
    lib.exit_on_user_error(main)
