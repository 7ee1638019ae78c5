"""Shared body of the BlueGene/Q scripts that compare harmonic-mean TEPS of
several executed configurations (Figs. 7, 9, 11): run each, write CSV and a
bar chart, print the table. Not a figure script itself."""

from __future__ import annotations

import time

from experiments import lib
from experiments.bluegene_q import bgq as B


def sweep(name: str, title: str, configs: list[tuple[str, str, int, int, tuple]], roots: int, out,
          profile_scale: int | None = None) -> list[dict]:
    """``configs``: (label, algorithm, nodes, scale, overrides); executed,
    or projected from ``profile_scale`` profiles when it is given."""
    started = time.time()
    rows = []
    for label, algorithm, nodes, scale, overrides in configs:
        if profile_scale is None:
            doc = B.simulate(algorithm, nodes, scale, roots, overrides)
        else:
            doc = B.simulate(algorithm, nodes, scale, roots, overrides, mode="project", profile_scale=profile_scale)
        rows.append({"mode": doc["mode"], "configuration": label, "algorithm": algorithm, "nodes": nodes,
                     "scale": scale,
                     "harmonic_mean_gteps": B.gteps(doc), "min_gteps": B.gteps(doc, "min"),
                     "median_gteps": B.gteps(doc, "median"), "max_gteps": B.gteps(doc, "max")})
    lib.write_csv(out / f"{name}.csv", rows)
    _plot(rows, out / f"{name}.png", title)
    for row in rows:
        print(f"  {row['configuration']:40s} {row['harmonic_mean_gteps']:9.3f} GTEPS (harmonic mean; "
              f"min {row['min_gteps']:.3f}, max {row['max_gteps']:.3f})")
    print(f"  {time.time() - started:.0f} s; wrote {out / (name + '.csv')}")
    return rows


def _plot(rows, path, title):
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    labels = [r["configuration"] for r in rows]
    ax.bar(range(len(rows)), [r["harmonic_mean_gteps"] for r in rows], color="tab:blue")
    ax.errorbar(range(len(rows)), [r["median_gteps"] for r in rows],
                yerr=[[r["median_gteps"] - r["min_gteps"] for r in rows],
                      [r["max_gteps"] - r["median_gteps"] for r in rows]], fmt="k.", capsize=3)
    ax.set_xticks(range(len(rows)), labels, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("GTEPS (bar: harmonic mean; dot: median, min-max)")
    ax.set_title(title, fontsize=9)
    lib.save_figure(fig, path)
