"""The teaching timeline of docs/background/lin1d-level.md: one BFS level
of lin1d on one SW26010 node, drawn from the simulator's timeline recorder:
which module runs on which CPE cluster, what the MPEs do, how long the port
is busy, where the node waits for the others and for the closing gather;
once with relay and once without.

EXECUTED at a size this computer runs: 64 nodes, scale 20, in relay groups
of 16 (the machine's groups are supernodes of 256; with 64 nodes they would
be one group and relay would change nothing, so the groups are shrunk with
--set lin1d.group_size=16 to show it).

    python experiments/sunway_taihulight/timeline.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from simbfs.engine import TimelineRecorder  # noqa: E402
from simbfs.runner import RunConfig  # noqa: E402

MACHINE = "sunway_taihulight"
NODES, SCALE, GROUP = 64, 20, 16
QUICK = {"nodes": 16, "scale": 14, "group": 4}
NODE = 0
LANES = ("cluster0", "cluster1", "cluster2", "cluster3", "mpe0", "mpe1", "mpe2", "mpe3", "port", "cpu", "collective")
LABELS = {"cluster0": "CPE cluster C0", "cluster1": "CPE cluster C1", "cluster2": "CPE cluster C2",
          "cluster3": "CPE cluster C3", "mpe0": "M0 (send)", "mpe1": "M1 (receive)", "mpe2": "M2", "mpe3": "M3",
          "port": "network port", "cpu": "node: busy / wait", "collective": "hub claims / gather"}
COLOURS = {"backward generator": "tab:blue", "forward generator": "tab:cyan", "backward handler": "tab:orange",
           "forward handler": "tab:green", "backward relay": "tab:purple", "forward relay": "tab:pink",
           "send (M0)": "tab:olive", "receive (M1)": "tab:brown", "network": "tab:grey", "wait": "tab:red",
           "reduce_scatter": "dimgrey", "allgather": "black"}


def level_spans(variant: str, nodes: int, scale: int, group: int, level: int | None = None):
    """The spans of node NODE in the root's ``level`` (default: its longest),
    from the level's start. Relay changes no search, so a level index means
    the same level in both variants."""
    recorder = TimelineRecorder()
    doc = lib.simulate(RunConfig(machine=MACHINE, algorithm=variant, nodes=nodes, scale=scale, roots=1, seed=1,
                                 overrides=[f"lin1d.group_size={group}"], recorder=recorder))
    levels = [lv for lv in doc["levels"]]
    longest = (max(levels, key=lambda lv: lv["time_s"]) if level is None
               else next(lv for lv in levels if lv["level"] == level))
    start = sum(lv["time_s"] for lv in levels if lv["level"] < longest["level"])
    spans = [s for s in recorder.spans if s.node == NODE and s.detail.get("level") == longest["level"]]
    return doc, longest, start, spans


def main(argv=None):
    args = lib.parse_args(__doc__, MACHINE, argv)
    out = lib.out_dir(args)
    size = QUICK if args.quick else {"nodes": NODES, "scale": SCALE, "group": GROUP}
    plt = lib.pyplot()
    fig, axes = plt.subplots(2, 1, figsize=(10, 7.5))
    rows = []
    shown = None  # the longest level without relay, shown for both
    for ax, (variant, title) in zip(axes[::-1], (("lin1d:relay=off", "relay off (Direct_CPE)"),
                                                 ("lin1d", "relay on (Relay_CPE)"))):
        doc, level, start, spans = level_spans(variant, size["nodes"], size["scale"], size["group"], shown)
        shown = level["level"]
        used = [lane for lane in LANES if any(s.resource == lane for s in spans)]
        for s in spans:
            y = len(used) - 1 - used.index(s.resource)
            what = "wait" if s.what == "wait" else s.what
            colour = COLOURS.get(what, "tab:blue" if s.resource == "cpu" else "tab:grey")
            ax.broken_barh([((s.start_s - start) * 1e6, (s.end_s - s.start_s) * 1e6)], (y - 0.4, 0.8),
                           color=colour, edgecolor="black", linewidth=0.3)
            rows.append({"mode": "executed", "variant": variant, "level": level["level"],
                         "direction": level["direction"], "node": NODE, "resource": s.resource, "what": s.what,
                         "start_us": (s.start_s - start) * 1e6, "end_us": (s.end_s - start) * 1e6})
        ax.set_yticks(range(len(used)), [LABELS[lane] for lane in reversed(used)], fontsize=8)
        ax.set_title(f"{title}: level {level['level']} ({level['direction']}), node {NODE} of {doc['nodes']}, "
                     f"scale {doc['scale']}, level time {level['time_s'] * 1e6:,.0f} us", fontsize=9)
        print(f"{title}: level {level['level']} ({level['direction']}) takes {level['time_s'] * 1e6:,.1f} us; "
              f"node {NODE}: " + ", ".join(f"{s.resource} {s.what} {(s.end_s - s.start_s) * 1e6:,.1f} us"
                                          for s in spans if s.resource != "collective"))
        ax.set_xlabel("time from the level's start (us)", fontsize=8)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    axes[0].legend(handles, list(COLOURS), fontsize=7, ncol=3, loc="upper right")
    lib.save(fig, rows, out, "timeline")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
