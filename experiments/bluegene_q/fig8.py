"""BlueGene/Q Fig. 8 (seed 000, IV-B): bytes per edge sent, per level, with
and without compression.

Executed with cp1d-spi (direction optimisation on) with and without
compression. Per level: payload bytes / edges sent, over all roots.
PROJECTED: the compressed code at the paper's size (1,024 nodes, scale 34,
2^24 vertices per node) by `--mode project`. Claim compared:
`bgq.compression_bytes_per_edge` - uncompressed edges cost 6 B; compressed
ones 4-5 B on average in the heavy central levels (here: a level carrying
at least HEAVY of the edges sent), while in light levels (below LIGHT of
them) the 8 B header dominates and compression can cost more than none.
--quick executes scale 14 on 32 nodes, the smallest size at which
compression works in the heavy levels (at scale 12, 128 vertices per node,
consecutive edges' sources are too far apart: 5.6 B/edge).

    python experiments/bluegene_q/fig8.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402

VARIANTS = {"compressed": "cp1d-spi", "uncompressed": "cp1d-spi:compression=off"}
NODES, SCALE, ROOTS = 64, 18, 8
QUICK = (32, 14, 2)
# projected at the paper's size: (nodes, scale, roots, profile scale)
PROJECTED, QUICK_PROJECTED = (1024, 34, 8, 16), (1024, 34, 2, 14)
HEAVY, LIGHT = 0.10, 0.01  # shares of a run's edges sent that make a level heavy, light
PAPER_HEAVY = (4.0, 5.0)  # B per edge in the heavy levels (000, IV-B)
UNCOMPRESSED = 6.0  # B per edge without compression


def heavy_and_light(rows: list[dict], mode: str) -> tuple[list[dict], list[dict]]:
    """The compressed levels of ``mode`` carrying at least HEAVY, and less
    than LIGHT, of the edges sent."""
    mine = [r for r in rows if r["mode"] == mode and r["variant"] == "compressed" and r["edges_sent"] > 0]
    total = sum(r["edges_sent"] for r in mine)
    return ([r for r in mine if r["edges_sent"] >= HEAVY * total],
            [r for r in mine if r["edges_sent"] < LIGHT * total])


def main(argv=None):
    args = B.parser(__doc__).parse_args(argv)
    out = lib.out_dir(args)
    nodes, scale, roots = QUICK if args.quick else (NODES, SCALE, ROOTS)
    started = time.time()
    rows = []
    for label, algorithm in VARIANTS.items():
        _add(rows, B.simulate(algorithm, nodes, scale, roots), label)
    p_nodes, p_scale, p_roots, profile_scale = QUICK_PROJECTED if args.quick else PROJECTED
    _add(rows, B.project(VARIANTS["compressed"], p_nodes, p_scale, p_roots, profile_scale), "compressed")
    lib.write_csv(out / "fig8_bytes_per_edge.csv", rows)
    _plot(rows, out / "fig8_bytes_per_edge.png", nodes, scale)
    print(f"Fig. 8, {B.reduced_size_note(nodes, scale)}; PROJECTED at {p_nodes} nodes, scale {p_scale} "
          f"(scale-{profile_scale} profiles)")
    for mode in ("executed", "projected"):
        for r in (r for r in rows if r["mode"] == mode and r["variant"] == "compressed" and r["edges_sent"] > 0):
            print(f"  {mode:>9} level {r['level']} ({r['direction']:9s}) {r['edges_sent']:15,.0f} edges  "
                  f"{r['bytes_per_edge']:.2f} B/edge compressed")
        heavy, light = heavy_and_light(rows, mode)
        low, high = PAPER_HEAVY
        lib.trend("bgq.compression_bytes_per_edge", all(low <= r["bytes_per_edge"] <= high for r in heavy),
                  "levels " + ", ".join(f"{r['level']}: {r['bytes_per_edge']:.2f}" for r in heavy)
                  + f" B/edge (paper: {low:g}-{high:g})", label=f"bgq.compression_bytes_per_edge, {mode}, heavy levels",
                  mode=mode)
        lib.trend("bgq.compression_bytes_per_edge", all(r["bytes_per_edge"] > UNCOMPRESSED for r in light),
                  "levels " + ", ".join(f"{r['level']}: {r['bytes_per_edge']:.2f}" for r in light)
                  + f" B/edge (paper: header-dominated, above the {UNCOMPRESSED:g} B of no compression)",
                  label=f"bgq.compression_bytes_per_edge, {mode}, light levels", mode=mode)
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig8_bytes_per_edge.csv'}")
    return rows


def _add(rows: list[dict], doc: dict, label: str) -> None:
    for row in B.level_means(doc, "bytes", "edges_sent"):
        row["bytes_per_edge"] = row["bytes"] / row["edges_sent"] if row["edges_sent"] else float("nan")
        rows.append({"mode": doc["mode"], "variant": label, **row})


def _plot(rows, path, nodes, scale):
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for mode, label in (("executed", "compressed"), ("executed", "uncompressed"), ("projected", "compressed")):
        mine = [r for r in rows if r["mode"] == mode and r["variant"] == label and r["edges_sent"] > 0]
        ax.plot([r["level"] for r in mine], [r["bytes_per_edge"] for r in mine], marker="o",
                linestyle="--" if mode == "projected" else "-",
                label=f"{label}, executed (scale {scale}, {nodes} nodes)" if mode == "executed" else
                f"{label}, PROJECTED (scale {PROJECTED[1]}, {PROJECTED[0]} nodes)")
    ax.axhline(UNCOMPRESSED, color="grey", linestyle=":", linewidth=1)
    ax.axhspan(*PAPER_HEAVY, color="grey", alpha=0.15, label="paper: heavy levels")
    ax.set_xlabel("BFS level")
    ax.set_ylabel("payload bytes per edge sent")
    ax.set_title("Bytes per edge, cp1d-spi")
    ax.legend(fontsize=7)
    lib.save_figure(fig, path)


if __name__ == "__main__":
    lib.exit_on_user_error(main)
