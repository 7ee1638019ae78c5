"""Pictures of a run: where the time goes, level by level, and the spread of
TEPS over roots. Rendered with matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (backend must be chosen first)

from .report import levels_of, representative_root  # noqa: E402

_PARTS = (("compute_s", "compute", "#4c72b0"),
          ("communication_s", "communication", "#dd8452"),
          ("synchronisation_s", "synchronisation", "#8c8c8c"))


def plot_run(doc: dict, path: Path) -> None:
    """Two panels: the middle root's per-level time split, and TEPS per root;
    with an uncertainty section, a third: the tornado of what drives it."""
    root = representative_root(doc)
    levels = levels_of(doc, root)
    teps_interval = (doc.get("uncertainty") or {}).get("teps_harmonic_mean")
    if teps_interval:
        fig, (left, right, tornado) = plt.subplots(1, 3, figsize=(16, 4.6),
                                                   gridspec_kw={"width_ratios": [3, 1, 2.4]})
        _tornado(tornado, teps_interval)
    else:
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [3, 1]})

    x = [lv["level"] for lv in levels]
    bottom = [0.0] * len(levels)
    for key, label, colour in _PARTS:
        heights = [lv[key] * 1e6 for lv in levels]
        left.bar(x, heights, bottom=bottom, label=label, color=colour)
        bottom = [b + h for b, h in zip(bottom, heights)]
    for xi, lv, top in zip(x, levels, bottom):
        left.annotate("TD" if lv["direction"] == "top-down" else "BU", (xi, top),
                      ha="center", va="bottom", fontsize=8)
    left.set_xlabel("BFS level (TD top-down, BU bottom-up)")
    left.set_ylabel("simulated time (us)")
    left.set_title(f"root {root} (middle of the TEPS ranking): where the time goes")
    left.set_xticks(x)
    left.legend(frameon=False)

    teps = sorted(r["teps"] / 1e9 for r in doc["roots"])
    stats = doc["teps"]
    # Draw the box from Graph500's own quartiles (those printed), not matplotlib's.
    right.bxp([{"whislo": stats["min"] / 1e9, "q1": stats["q1"] / 1e9, "med": stats["median"] / 1e9,
                "q3": stats["q3"] / 1e9, "whishi": stats["max"] / 1e9, "fliers": []}],
              widths=0.5, showfliers=False)
    right.plot([1] * len(teps), teps, "o", color="#4c72b0", alpha=0.6, markersize=4)
    right.axhline(doc["teps"]["harmonic_mean"] / 1e9, color="#c44e52", linestyle="--", label="harmonic mean")
    if teps_interval:
        right.axhspan(teps_interval["p5"] / 1e9, teps_interval["p95"] / 1e9, color="#c44e52", alpha=0.12,
                      label="90% interval")
    right.set_xticks([])
    right.set_ylabel("GTEPS")
    right.set_title(f"{len(teps)} root{'s' if len(teps) != 1 else ''}")
    right.legend(frameon=False, fontsize=8, loc="lower center")

    fig.suptitle(f"{doc['machine']}, {doc['nodes']} nodes, {doc['graph']['kind']} scale {doc['scale']}, "
                 f"{doc['algorithm']} ({doc['mode']}, simulated)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


TORNADO_BARS = 10


def _tornado(ax, interval: dict) -> None:
    """The parameters that drive the prediction, largest share first: each
    bar spans the harmonic-mean TEPS the samples' regression gives at the
    two ends of the parameter's range, the others at their median."""
    # (those within 2x what a parameter with no effect shows by chance are left out)
    items = [item for item in interval["parameters"] if item["index"] > 2 * interval["noise_index"]]
    items = items[:TORNADO_BARS][::-1]
    median = interval["median"] / 1e9
    for y, item in enumerate(items):
        low, high = item["at_low"] / 1e9, item["at_high"] / 1e9
        ax.barh(y, high - low, left=low, color="#4c72b0" if high >= low else "#dd8452", height=0.6)
    ends = [value / 1e9 for item in items for value in (item["at_low"], item["at_high"])] + [median]
    margin = 0.05 * (max(ends) - min(ends) or median)
    ax.set_xlim(min(ends) - margin, max(ends) + margin)
    ax.axvline(median, color="black", linewidth=0.8)
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color="#4c72b0", label="faster as it grows"),
                       Patch(color="#dd8452", label="slower as it grows")], fontsize=7, frameon=False)
    ax.set_yticks(range(len(items)), [f"{item['key']} ({item['index']:.2f})" for item in items], fontsize=7)
    ax.set_xlabel("GTEPS (harmonic mean) over the parameter's range")
    ax.set_title(f"what drives it (90%: {interval['p5'] / 1e9:.3g} .. {interval['p95'] / 1e9:.3g} GTEPS)", fontsize=9)
