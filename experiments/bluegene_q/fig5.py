"""BlueGene/Q Fig. 5 (seed 000): graph properties at each exploration level.

Per BFS level, averaged over the search keys: the vertices in the frontier,
the edges a plain top-down BFS examines, the edges the direction-optimising
BFS examines, and the minimum of one edge per tree vertex (the vertices the
level discovers). The BFS is simbfs's reference BFS (`bfs_reference`,
GAP-style direction switching, alpha 15, beta 18) on Graph500 Kronecker
graphs (edgefactor 16); the paper's own heuristic and its edge slicing across
threads are not modelled. This is a graph-level experiment: no machine, no
time.

Levels are counted from 0: level 0 expands the root, level d expands the
vertices d hops from it. The paper's text ("the first two or three levels",
"a fourth level exploring the majority of the edges") probably counts from
1, so its level k is our level k - 1; both are printed.

Claims compared (../shared/reference/claims.yaml): `bgq.do_edge_reduction`
(mean over the roots of edges top-down / edges direction-optimising, value
20, tolerance 35%) at every scale; `bgq.central_levels` (trend: levels three
and four hold most of the edges) as the levels holding the most top-down
edges. The paper's Fig. 5 values are not in its text and its scales (34-40)
are far beyond these, so the figure itself cannot be compared.

    python experiments/bluegene_q/fig5.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402

from simbfs.bfs import bfs_reference  # noqa: E402
from simbfs.claims import claim, within_tolerance  # noqa: E402
from simbfs.graph import GraphSpec, load_graph, search_keys  # noqa: E402

SCALES = (16, 18, 20)  # every scale is checked against bgq.do_edge_reduction
FIGURE_SCALE = 20      # the scale drawn as Fig. 5
ROOTS = 16
SEED = 1
QUICK_SCALES = (10, 12)
QUICK_FIGURE_SCALE = 12
QUICK_ROOTS = 4


def profile(graph, roots) -> dict:
    """Per root: the per-level arrays of both BFS variants, padded to one depth."""
    lib.note_mode("executed")  # searches of the whole graph (edge counts, no timing)
    runs = []
    for root in roots:
        top_down = bfs_reference(graph, int(root), direction_optimising=False)
        optimised = bfs_reference(graph, int(root))
        assert [lv.frontier_vertices for lv in top_down.levels] == [lv.frontier_vertices for lv in optimised.levels]
        runs.append((int(root), top_down, optimised))
    depth = max(len(td.levels) for _, td, _ in runs)
    shape = (len(runs), depth)
    frontier, td_edges, do_edges, bottom_up = (np.zeros(shape) for _ in range(4))
    for i, (_, td, do) in enumerate(runs):
        k = len(td.levels)
        frontier[i, :k] = [lv.frontier_vertices for lv in td.levels]
        td_edges[i, :k] = [lv.edges_examined for lv in td.levels]
        do_edges[i, :k] = [lv.edges_examined for lv in do.levels]
        bottom_up[i, :k] = [lv.direction == "bottom-up" for lv in do.levels]
    # The minimum: one edge per vertex a level discovers (the next frontier).
    minimum = np.zeros(shape)
    minimum[:, :-1] = frontier[:, 1:]
    reached = np.array([int(np.count_nonzero(td.parent >= 0)) for _, td, _ in runs])
    component_entries = np.array([int(graph.degree[td.parent >= 0].sum()) for _, td, _ in runs])
    return {"roots": [r for r, _, _ in runs], "frontier": frontier, "td": td_edges, "do": do_edges,
            "bottom_up": bottom_up, "minimum": minimum, "reached": reached,
            "component_entries": component_entries}


def central_levels(mean_td: np.ndarray) -> tuple[int, list[int], float]:
    """(level with the most top-down edges, the two heaviest levels in order, their share)."""
    order = np.argsort(mean_td, kind="stable")[::-1]
    top_two = sorted(int(level) for level in order[:2])
    return int(order[0]), top_two, float(mean_td[top_two].sum() / mean_td.sum())


def plot(result: dict, scale: int, path: Path) -> None:
    plt = lib.pyplot()
    levels = np.arange(result["frontier"].shape[1])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, label, marker in (("frontier", "vertices in the frontier", "s"), ("td", "edges examined, top-down", "o"),
                               ("do", "edges examined, direction-optimising", "^"),
                               ("minimum", "minimum: one edge per tree vertex", "x")):
        mean = result[key].mean(axis=0)
        keep = mean > 0
        ax.plot(levels[keep], mean[keep], marker=marker, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("level (0 = the root's)")
    ax.set_ylabel(f"mean over {len(result['roots'])} roots")
    ax.set_title(f"Kronecker scale {scale}, edgefactor 16: graph properties per level (simbfs)")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    lib.save_figure(fig, path)


def main(argv=None) -> dict:
    args = B.parser(__doc__, "tiny scales (seconds), for the tests").parse_args(argv)
    out = lib.out_dir(args)
    scales = QUICK_SCALES if args.quick else SCALES
    figure_scale = QUICK_FIGURE_SCALE if args.quick else FIGURE_SCALE
    roots = QUICK_ROOTS if args.quick else ROOTS

    results, timings = {}, {}
    for scale in scales:
        start = time.perf_counter()
        graph = load_graph(GraphSpec("kronecker", scale, seed=SEED))
        results[scale] = profile(graph, search_keys(graph, roots, seed=SEED))
        timings[scale] = time.perf_counter() - start

    figure = results[figure_scale]
    level_rows = []
    for level in range(figure["frontier"].shape[1]):
        level_rows.append({
            "scale": figure_scale, "level": level, "paper_level": level + 1,
            "frontier_vertices": figure["frontier"][:, level].mean(),
            "edges_top_down": figure["td"][:, level].mean(),
            "edges_direction_optimising": figure["do"][:, level].mean(),
            "minimum_edges": figure["minimum"][:, level].mean(),
            "share_bottom_up": figure["bottom_up"][:, level].mean(),
            "roots_reaching_level": int(np.count_nonzero(figure["frontier"][:, level])),
        })
    root_rows = []
    for scale, result in results.items():
        td_total, do_total = result["td"].sum(axis=1), result["do"].sum(axis=1)
        for i, root in enumerate(result["roots"]):
            root_rows.append({
                "scale": scale, "root": root, "reached": int(result["reached"][i]),
                "edges_top_down": int(td_total[i]), "edges_direction_optimising": int(do_total[i]),
                "ratio": td_total[i] / do_total[i],
                "do_edges_per_tree_vertex": do_total[i] / (result["reached"][i] - 1),
                "component_csr_entries": int(result["component_entries"][i]),
                "heaviest_top_down_level": int(np.argmax(result["td"][i])),
            })
    for name, rows in (("fig5_levels.csv", level_rows), ("fig5_roots.csv", root_rows)):
        lib.write_csv(out / name, rows)
    plot(figure, figure_scale, out / "fig5_levels.png")

    print(f"Fig. 5: per level, Kronecker scale {figure_scale}, mean over {roots} roots "
          "(level counted from 0; the paper's count from 1 in brackets)")
    print(f"{'level':>8} {'frontier':>12} {'edges TD':>13} {'edges DO':>12} {'minimum':>12} {'bottom-up':>10}")
    for row in level_rows:
        print(f"{row['level']:>3} ({row['paper_level']:>2}) {row['frontier_vertices']:>12.5g}"
              f" {row['edges_top_down']:>13.5g} {row['edges_direction_optimising']:>12.5g}"
              f" {row['minimum_edges']:>12.5g} {row['share_bottom_up']:>10.0%}")

    reduction = claim("bgq.do_edge_reduction")
    print("\nComparison with the paper (000, IV-A, Fig. 5):")
    print(f"  bgq.do_edge_reduction: paper ~{reduction['value']}x fewer edges (tolerance {reduction['tolerance']:.0%})")
    summary = {"scales": {}, "levels": level_rows, "roots": root_rows}
    for scale, result in results.items():
        td_total, do_total = result["td"].sum(axis=1), result["do"].sum(axis=1)
        ratios = td_total / do_total
        mean_ratio = float(ratios.mean())
        ok = within_tolerance(mean_ratio, "bgq.do_edge_reduction")
        per_tree_vertex = float((do_total / (result["reached"] - 1)).mean())
        mean_td = result["td"].mean(axis=0)
        heaviest, top_two, share = central_levels(mean_td)
        heaviest_share = float(mean_td[heaviest] / mean_td.sum())
        reached_before = float(result["frontier"][:, :heaviest + 1].sum(axis=1).mean() / result["reached"].mean())
        do_heaviest = int(np.argmax(result["do"].mean(axis=0)))
        summary["scales"][scale] = {"mean_ratio": mean_ratio, "ratio_min": float(ratios.min()),
                                    "ratio_max": float(ratios.max()), "within_tolerance": ok,
                                    "do_edges_per_tree_vertex": per_tree_vertex,
                                    "heaviest_top_down_level": heaviest, "heaviest_share": heaviest_share,
                                    "reached_when_heaviest_starts": reached_before, "top_two_levels": top_two,
                                    "top_two_share": share, "heaviest_do_level": do_heaviest,
                                    "seconds": timings[scale]}
        lib.compare_claim("bgq.do_edge_reduction", mean_ratio, "x fewer", label=f"  scale {scale}, mean ratio")
        print(f"      per root {ratios.min():.1f}-{ratios.max():.1f}; DO examines {per_tree_vertex:.2f} edges per "
              f"tree vertex (minimum 1)")
    print("  bgq.central_levels (trend): paper: levels three and four hold most of the edges and of the time")
    for scale, s in summary["scales"].items():
        a, b = s["top_two_levels"]
        # graph-level, far below the paper's scales and without time: informs, does not decide the claim
        lib.trend("bgq.central_levels", [a, b] == [2, 3],
                  f"most top-down edges at level {s['heaviest_top_down_level']}"
                  f" ({s['heaviest_top_down_level'] + 1} counted from 1), {s['heaviest_share']:.0%} of them, with"
                  f" {s['reached_when_heaviest_starts']:.0%} of the component already reached;"
                  f" levels {a} and {b} ({a + 1} and {b + 1} from 1) hold {s['top_two_share']:.0%};"
                  f" most DO edges at level {s['heaviest_do_level']}",
                  label=f"bgq.central_levels, edges per level (graph only), scale {scale}", judged=False)
    print("    time per level is not part of this graph-level experiment (the simulated runs report it)")
    print("  the paper's Fig. 5 values are not in its text: the per-level numbers above cannot be compared")
    print("(" + ", ".join(f"scale {s}: {t:.1f} s" for s, t in timings.items()) + ")")
    return summary


if __name__ == "__main__":
    lib.exit_on_user_error(main)
