"""BlueGene/Q Fig. 13 (seed 000, IV-E): level breakdown, the time each
phase of the visit takes per BFS level.

Executed with cp1d-spi (every optimisation on) on two partitions at one
scale: 64 nodes, where every level is CPU-bound, and 512 nodes (a midplane),
where the per-node share of the graph is so small that the busiest torus link
bounds the central levels. Per level, the mean over the roots of the level
time and of the three phases the cp1d records carry: ``scan_s`` (the busiest
thread's sweep and packing), ``receive_s`` (its decoding and claiming) and
``flush_s`` (from a node's last computation to its last packet delivered).
The three overlap, so they are drawn side by side, not stacked. Levels are
counted from 0 (the root's); the paper's text probably counts from 1, so
both are printed.

Claims compared (../shared/reference/claims.yaml):
`bgq.level_breakdown` - edge scanning takes most time in both top-down and
bottom-up levels; receive time overlaps scan time; flush time shows in
communication-bound levels. `bgq.central_levels` - levels three and four
hold most of the edges and most of the time; the first two or three levels
touch few vertices. The figure's values are not in the paper's text.

    python experiments/bluegene_q/fig13.py [--quick] [--out DIR]
"""

from __future__ import annotations

import time
from collections import defaultdict
from statistics import median
import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402

ALGORITHM = "cp1d-spi"
SIZES, ROOTS = ((64, 18), (512, 18)), 8
QUICK = (((32, 12), (256, 12)), 2)
FIELDS = ("time_s", "scan_s", "receive_s", "flush_s", "compute_s", "edges_examined", "edges_sent",
          "frontier_vertices")
NETWORK = ("injection", "ejection", "link")  # a level bounded by one of these is communication-bound
CENTRAL = (2, 3)  # the paper's "levels three and four", counted from 1


def main(argv=None):
    args = B.parser(__doc__).parse_args(argv)
    out = lib.out_dir(args)
    sizes, roots = QUICK if args.quick else (SIZES, ROOTS)
    started = time.time()
    rows, docs = [], {}
    for nodes, scale in sizes:
        doc = B.simulate(ALGORITHM, nodes, scale, roots)
        docs[nodes, scale] = doc
        bound, upward = defaultdict(int), defaultdict(int)
        for level in doc["levels"]:
            bound[level["level"]] += level["bottleneck"] in NETWORK
            upward[level["level"]] += level["direction"] == "bottom-up"
        for row in B.level_means(doc, *FIELDS):
            rows.append({"nodes": nodes, "scale": scale, "paper_level": row["level"] + 1, **row,
                         "bottom_up_roots": upward[row["level"]], "network_bound_roots": bound[row["level"]]})
    lib.write_csv(out / "fig13_level_breakdown.csv", rows)
    _plot(rows, out / "fig13_level_breakdown.png", sizes)

    for (nodes, scale), doc in docs.items():
        print(f"Fig. 13, {B.reduced_size_note(nodes, scale)}; mean over {roots} roots, times in us")
        print(f"  {'level':>7s} {'direction':9s} {'time':>8s} {'scan':>8s} {'receive':>8s} {'flush':>8s} "
              f"{'edges examined':>15s} {'frontier':>9s}  bottom-up / network-bound roots")
        for r in rows:
            if (r["nodes"], r["scale"]) != (nodes, scale):
                continue
            print(f"  {r['level']:>2d} ({r['paper_level']:>2d}) {r['direction']:9s} {r['time_s'] * 1e6:8.2f} "
                  f"{r['scan_s'] * 1e6:8.2f} {r['receive_s'] * 1e6:8.2f} {r['flush_s'] * 1e6:8.2f} "
                  f"{r['edges_examined']:15,.0f} {r['frontier_vertices']:9,.0f}  "
                  f"{r['bottom_up_roots']} / {r['network_bound_roots']} of {r['roots_reaching']}")
        _level_breakdown(doc["levels"], f"{nodes} nodes")
        _central_levels(doc["levels"], f"{nodes} nodes")
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig13_level_breakdown.csv'}")
    return rows


def _sums(levels, *fields):
    return {f: sum(level[f] for level in levels) for f in fields}


def _level_breakdown(levels, where):
    """bgq.level_breakdown, its three parts, over every level record of every
    root (``where``: the partition, named in each part's label)."""
    print("  bgq.level_breakdown (trend):")
    claim_id = "bgq.level_breakdown"
    for direction in ("top-down", "bottom-up"):
        label = f"{claim_id}, {direction} scan ({where})"
        mine = [lv for lv in levels if lv["direction"] == direction]
        if not mine:
            lib.trend(claim_id, False, "no level ran in this direction", label=label, judged=False)
            continue
        s = _sums(mine, "scan_s", "receive_s", "flush_s", "time_s")
        largest = max(("scan_s", "receive_s", "flush_s"), key=s.get)
        lib.trend(claim_id, largest == "scan_s",
                  f"{len(mine)} records: scan {s['scan_s'] * 1e6:.1f} us, receive {s['receive_s'] * 1e6:.1f} us, "
                  f"flush {s['flush_s'] * 1e6:.1f} us (scan {s['scan_s'] / s['time_s']:.0%} of their time): the most "
                  f"time goes to {largest[:-2]}", label=label)
    # Receive overlapping scan: if it did, the busiest thread's busy time
    # (compute_s) would be well below scan + receive.
    s = _sums(levels, "scan_s", "receive_s", "compute_s")
    hidden = max(0.0, s["scan_s"] + s["receive_s"] - s["compute_s"]) / s["receive_s"] if s["receive_s"] else 0.0
    lib.trend(claim_id, hidden > 0.5,
              f"scan + receive {(s['scan_s'] + s['receive_s']) * 1e6:.1f} us against the threads' busy time "
              f"{s['compute_s'] * 1e6:.1f} us: {hidden:.0%} of the receive time is hidden under the scan (the model "
              f"decodes on the sweeping threads, so receiving adds to them; what it overlaps is the network transfer)",
              label=f"{claim_id}, receive vs scan ({where})")
    network = [lv for lv in levels if lv["bottleneck"] in NETWORK]
    cpu = [lv for lv in levels if lv["bottleneck"] not in NETWORK]
    c = _sums(cpu, "flush_s", "time_s")
    cpu_share = c["flush_s"] / c["time_s"] if c["time_s"] else 0.0
    label = f"{claim_id}, flush ({where})"
    if not network:
        lib.trend(claim_id, False,
                  f"no level is communication-bound here (bounded by a torus link or port); flush is the last "
                  f"packets' flight only, {cpu_share:.0%} of the level time: not testable at this size",
                  label=label, judged=False)
        return
    n = _sums(network, "flush_s", "time_s", "scan_s")
    share = n["flush_s"] / n["time_s"]
    lib.trend(claim_id, share > cpu_share,
              f"{len(network)} of {len(levels)} level records communication-bound; flush is {share:.0%} of their "
              f"time (scan {n['scan_s'] / n['time_s']:.0%}) against {cpu_share:.0%} in the CPU-bound ones",
              label=label)


def _central_levels(levels, where):
    """bgq.central_levels: per root, the share of edges and time in the two
    central levels and the vertices the first levels touch (``where``: the
    partition, named in each part's label)."""
    per_root = defaultdict(list)
    for level in levels:
        per_root[level["root"]].append(level)
    a, b = CENTRAL
    print(f"  bgq.central_levels (trend): levels {a} and {b} ({a + 1} and {b + 1} counted from 1)")
    holds, edge_shares, time_shares, first_two, first_three = [], [], [], [], []
    for root, mine in per_root.items():
        total = _sums(mine, "edges_examined", "time_s", "frontier_vertices")
        central = _sums([lv for lv in mine if lv["level"] in CENTRAL], "edges_examined", "time_s")
        edges = central["edges_examined"] / total["edges_examined"]
        share = central["time_s"] / total["time_s"]
        reached = total["frontier_vertices"]  # every reached vertex is in exactly one frontier
        two = sum(lv["frontier_vertices"] for lv in mine if lv["level"] < 2) / reached
        three = sum(lv["frontier_vertices"] for lv in mine if lv["level"] < 3) / reached
        edge_shares.append(edges)
        time_shares.append(share)
        first_two.append(two)
        first_three.append(three)
        holds.append(edges > 0.5 and share > 0.5)
        if not holds[-1]:
            heavy = max(mine, key=lambda lv: lv["time_s"])
            print(f"    root {root}: levels {a}-{b} hold {edges:.0%} of its edges and {share:.0%} of its time; its "
                  f"heaviest level is {heavy['level']} ({heavy['direction']}, {heavy['edges_examined']:,} edges, "
                  f"{heavy['time_s'] * 1e6:.1f} us)")
    total = _sums(levels, "edges_examined", "time_s")
    central = _sums([lv for lv in levels if lv["level"] in CENTRAL], "edges_examined", "time_s")
    mean_edges = central["edges_examined"] / total["edges_examined"]
    mean_time = central["time_s"] / total["time_s"]
    together = mean_edges > 0.5 and mean_time > 0.5
    claim_id = "bgq.central_levels"
    lib.trend(claim_id, sum(holds) > len(holds) / 2,
              f"per root {min(edge_shares):.0%}-{max(edge_shares):.0%} of the edges examined and "
              f"{min(time_shares):.0%}-{max(time_shares):.0%} of the time; most of both in {sum(holds)} of "
              f"{len(holds)} roots", label=f"{claim_id}, most edges and time, most roots ({where})")
    lib.trend(claim_id, together, f"all roots together {mean_edges:.0%} of the edges and {mean_time:.0%} of the time",
              label=f"{claim_id}, most edges and time, all roots together ({where})")
    few = max(first_two) < 0.1
    lib.trend(claim_id, few,
              f"the first two levels hold at most {max(first_two):.2%} of a root's reached vertices; the first three "
              f"a median {median(first_three):.1%}, at most {max(first_three):.1%}",
              label=f"{claim_id}, first levels touch few vertices ({where})")


def _plot(rows, path, sizes):
    plt = lib.pyplot()
    fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4), squeeze=False)
    width = 0.27
    for ax, (nodes, scale) in zip(axes[0], sizes):
        mine = [r for r in rows if (r["nodes"], r["scale"]) == (nodes, scale)]
        x = [r["level"] for r in mine]
        for i, (field, label) in enumerate((("scan_s", "scan"), ("receive_s", "receive"), ("flush_s", "flush"))):
            ax.bar([k + (i - 1) * width for k in x], [r[field] * 1e6 for r in mine], width, label=label)
        ax.plot(x, [r["time_s"] * 1e6 for r in mine], "k_", markersize=18, markeredgewidth=2, label="level time")
        ax.set_xticks(x, [f"{r['level']}\n{'BU' if r['direction'] == 'bottom-up' else 'TD'}" for r in mine])
        ax.set_xlabel("BFS level (0 = the root's); direction of most roots")
        ax.set_ylabel("us (mean over roots)")
        ax.set_title(f"Level breakdown, cp1d-spi, scale {scale}, {nodes} nodes (simulated)", fontsize=9)
        ax.legend(fontsize=7)
    lib.save_figure(fig, path)


if __name__ == "__main__":
    lib.exit_on_user_error(main)
