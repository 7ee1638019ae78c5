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
    """Two panels: the middle root's per-level time split, and TEPS per root."""
    root = representative_root(doc)
    levels = levels_of(doc, root)
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
    right.set_xticks([])
    right.set_ylabel("GTEPS")
    right.set_title(f"{len(teps)} root{'s' if len(teps) != 1 else ''}")
    right.legend(frameon=False, fontsize=8, loc="lower center")

    fig.suptitle(f"{doc['machine']}, {doc['nodes']} nodes, {doc['graph']['kind']} scale {doc['scale']}, "
                 f"{doc['algorithm']} ({doc['mode']}, simulated)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
