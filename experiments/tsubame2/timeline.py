"""The teaching timeline of docs/background/ueno2d-level.md: one BFS level
of ueno2d on one GPU of TSUBAME 2.0, drawn from the simulator's timeline
recorder: the kernels on the GPU, the PCIe copies each way, the expand's
allgathers and the fold's messages on the network, and where the GPU
waits (for the allgathers, for the other processes at the closing
allreduce).

EXECUTED at a size this computer runs in seconds: 64 GPUs (MPI processes,
an 8 x 8 grid on 22 hosts), scale 21, process 0, the root's longest level.
At this size process 0 gathers 4-5 MiB of edges in that level, less than
the machine's 64 MiB gather buffer, so the fold would be one portion and
nothing would overlap; the script shrinks the buffer to 1 MiB
(--set ueno2d.gather_buffer="1 MiB") so that the level runs as a pipeline
of several portions, as it does at the paper's sizes (scale 23 per GPU).

    python experiments/tsubame2/timeline.py [--quick] [--out DIR] [--docs]

Writes timeline.png and timeline.csv (every span of the level on process 0,
in microseconds from the level's start) to DIR; with --docs, a full-size
run also refreshes the docs' picture, docs/background/ueno2d-level.png
(never otherwise: `simbfs reproduce` runs this script and must not write
into the checkout).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from simbfs.engine import TimelineRecorder  # noqa: E402
from simbfs.runner import RunConfig  # noqa: E402

MACHINE = "tsubame2"
FULL = {"nodes": 64, "scale": 21, "gather_buffer": "1 MiB"}
QUICK = {"nodes": 16, "scale": 14, "gather_buffer": "32 KiB"}
PROCESS = 0
DOCS_PICTURE = lib.ROOT / "docs" / "background" / "ueno2d-level.png"

# lanes, top to bottom: the recorder's resources, then the closing allreduce
LANES = ("gpu", "pcie d2h", "pcie h2d", "network", "allreduce")
LABELS = {"gpu": "GPU (kernels)", "pcie d2h": "PCIe GPU -> host", "pcie h2d": "PCIe host -> GPU",
          "network": "network (host port)", "allreduce": "closing allreduce"}
# activity -> colour; an activity is named from a span's `what` by ACTIVITY
COLOURS = {"expand kernels": "tab:blue", "CQ list": "tab:cyan", "gather + filter": "tab:orange",
           "task 8 (receive)": "tab:green", "expand copies": "tab:purple", "fold copies": "tab:pink",
           "column allgather": "tab:olive", "row allgather (incl. wait)": "tab:brown",
           "fold messages": "tab:grey", "GPU idle": "white", "bound not filled by the spans": "lightgrey",
           "wait for the slowest process": "tab:red", "allreduce": "black"}
ACTIVITY = (("encode", "expand kernels"), ("decode", "expand kernels"), ("generate CQ list", "CQ list"),
            ("gather+filter", "gather + filter"), ("receive (task 8)", "task 8 (receive)"),
            ("copy NQ", "expand copies"), ("copy CQ", "expand copies"), ("copy portion", "fold copies"),
            ("copy received", "fold copies"), ("allgather NQ in column", "column allgather"),
            ("wait + allgather NQ in row", "row allgather (incl. wait)"), ("fold portion", "fold messages"))
UNITS = ("gpu", "pcie d2h", "pcie h2d", "network")  # what record_units reports


def activity(what: str) -> str:
    for prefix, name in ACTIVITY:
        if what.startswith(prefix):
            return name
    return what


def run_level(nodes: int, scale: int, gather_buffer: str):
    """One executed root; its longest level. Returns (result document, the
    level's record, the level's start in seconds, every recorded span of
    process PROCESS in that level)."""
    recorder = TimelineRecorder()
    doc = lib.simulate(RunConfig(machine=MACHINE, algorithm="ueno2d", nodes=nodes, scale=scale, roots=1, seed=1,
                                 overrides=[f"ueno2d.gather_buffer={gather_buffer}"], recorder=recorder))
    levels = doc["levels"]
    longest = max(levels, key=lambda lv: lv["time_s"])
    start = sum(lv["time_s"] for lv in levels if lv["level"] < longest["level"])
    spans = [s for s in recorder.spans if s.node == PROCESS and s.detail.get("level") == longest["level"]]
    return doc, longest, start, spans


def derived(spans, start: float, end: float) -> list[tuple[str, float, float, str]]:
    """(lane, start, end, activity) of what the picture adds to the recorded
    spans: the GPU's idle stretches, and on the allreduce lane the bound's
    part the unit spans do not fill (from the last unit span to the
    process's arrival), its wait for the last process, and the allreduce."""
    out = []
    clock = start
    for s in sorted((s for s in spans if s.resource == "gpu"), key=lambda s: s.start_s):
        if s.start_s > clock:
            out.append(("gpu", clock, s.start_s, "GPU idle"))
        clock = max(clock, s.end_s)
    arrival = next((s.end_s for s in spans if s.resource == "cpu" and s.what != "wait"), None)
    last = max(s.end_s for s in spans if s.resource in UNITS)
    if arrival is not None and arrival > last:
        out.append(("allreduce", last, arrival, "bound not filled by the spans"))
    stop = arrival if arrival is not None else last
    for s in spans:
        if s.resource == "cpu" and s.what == "wait":
            out.append(("allreduce", s.start_s, s.end_s, "wait for the slowest process"))
        elif s.resource == "collective":
            out.append(("allreduce", s.start_s, s.end_s, "allreduce"))
            stop = max(stop, s.end_s)
    if clock < stop:
        out.append(("gpu", clock, stop, "GPU idle"))
    return out


def summary(doc, level, start, spans) -> dict:
    """The level's numbers for process PROCESS, in microseconds."""
    us = 1e6
    gpu = [s for s in spans if s.resource == "gpu"]
    units_end = max(s.end_s for s in spans if s.resource in UNITS)
    decode = next((s.end_s for s in gpu if s.what.startswith("decode")), start)
    arrival = next((s.end_s for s in spans if s.resource == "cpu" and s.what != "wait"), units_end)
    wait = sum(s.end_s - s.start_s for s in spans if s.resource == "cpu" and s.what == "wait")
    allreduce = sum(s.end_s - s.start_s for s in spans if s.resource == "collective")
    kernels = sum(s.end_s - s.start_s for s in gpu)
    return {"level": level["level"], "level_time_us": level["time_s"] * us, "portions":
            sum(1 for s in gpu if s.what.startswith("gather+filter")),
            "expand_us": (decode - start) * us, "busy_us": (arrival - start) * us,
            "units_end_us": (units_end - start) * us, "kernels_us": kernels * us,
            "gpu_idle_us": (level["time_s"] - kernels) * us, "bound_margin_us": (arrival - units_end) * us,
            "wait_us": wait * us, "allreduce_us": allreduce * us,
            "fold_messages_us": sum(s.end_s - s.start_s for s in spans if s.what.startswith("fold portion")) * us,
            "compute_mean_us": level["compute_s"] * us, "compute_max_us": level["compute_max_s"] * us,
            "bottleneck": level.get("bottleneck")}


def main(argv=None):
    parser = lib.parser(__doc__, MACHINE)
    parser.add_argument("--docs", action="store_true",
                        help=f"also copy the picture to {DOCS_PICTURE.relative_to(lib.ROOT)} (full size only)")
    args = parser.parse_args(argv)
    out = lib.out_dir(args)
    size = QUICK if args.quick else FULL
    doc, level, start, spans = run_level(**size)
    end = start + level["time_s"]
    numbers = summary(doc, level, start, spans)
    us = 1e6
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(11, 4.2))
    rows = []
    y_of = {lane: len(LANES) - 1 - i for i, lane in enumerate(LANES)}
    bars = [(s.resource, s.start_s, s.end_s, activity(s.what), s.what, "recorded")
            for s in spans if s.resource in UNITS]
    bars += [(lane, a, b, what, what, "derived") for lane, a, b, what in derived(spans, start, end)]
    for lane, a, b, what, label, source in bars:
        y = y_of[lane]
        hatch = "//" if what in ("GPU idle", "bound not filled by the spans") else None
        ax.broken_barh([((a - start) * us, (b - a) * us)], (y - 0.38, 0.76), facecolor=COLOURS.get(what, "tab:grey"),
                       edgecolor="tab:red" if what == "GPU idle" else "black", linewidth=0.3, hatch=hatch)
        if label.split()[-1].isdigit() and (b - a) / level["time_s"] > 0.025:  # a portion's number
            ax.text(((a + b) / 2 - start) * us, y, label.split()[-1], ha="center", va="center", fontsize=6,
                    color="white" if what in ("fold messages", "task 8 (receive)") else "black")
        rows.append({"mode": doc["mode"], "level": level["level"], "process": PROCESS, "lane": lane,
                     "activity": what, "what": label, "source": source, "start_us": (a - start) * us,
                     "end_us": (b - start) * us, "level_time_us": level["time_s"] * us})
    ax.axvline(level["time_s"] * us, color="black", linestyle=":", linewidth=0.8)
    ax.set_yticks([y_of[lane] for lane in LANES], [LABELS[lane] for lane in LANES], fontsize=8)
    right = max([level["time_s"]] + [b - start for _, _, b, *_ in bars])  # a span past the level's end shows
    ax.set_xlim(0, right * us * 1.01)
    ax.set_xlabel("time from the level's start (us)", fontsize=8)
    ax.set_title(f"ueno2d, level {level['level']} (the root's longest), process {PROCESS} of {doc['nodes']} GPUs, "
                 f"scale {doc['scale']}, gather buffer {size['gather_buffer']} ({numbers['portions']} portions): "
                 f"level time {numbers['level_time_us']:,.0f} us", fontsize=9)
    used = [name for name in COLOURS if any(b[3] == name for b in bars)]
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=COLOURS[name], edgecolor="tab:red" if name == "GPU idle"
                             else "black", linewidth=0.3, hatch="//" if name in ("GPU idle",
                             "bound not filled by the spans") else None) for name in used]
    ax.legend(handles, used, fontsize=7, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.17), frameon=False)
    n = numbers
    print(f"{doc['mode']}: {doc['nodes']} GPUs, scale {doc['scale']}, gather buffer {size['gather_buffer']}; "
          f"level {n['level']} of {len(doc['levels'])} takes {n['level_time_us']:,.1f} us "
          f"(bottleneck: {n['bottleneck']}), {n['portions']} portions")
    print(f"process {PROCESS}: expand {n['expand_us']:,.1f} us, unit spans end at {n['units_end_us']:,.1f} us, "
          f"priced busy time (arrival at the allreduce) {n['busy_us']:,.1f} us, "
          f"of which not filled by the spans {n['bound_margin_us']:,.1f} us; "
          f"kernels {n['kernels_us']:,.1f} us, GPU idle {n['gpu_idle_us']:,.1f} us; "
          f"fold messages on the port {n['fold_messages_us']:,.1f} us; wait for the slowest {n['wait_us']:,.1f} us, "
          f"allreduce {n['allreduce_us']:,.1f} us; all processes' kernels: mean {n['compute_mean_us']:,.1f} us, "
          f"max {n['compute_max_us']:,.1f} us")
    late = [s for s in spans if s.end_s > end * (1 + 1e-12)]
    if late:
        print(f"WARNING: {len(late)} spans end after the level's end ({level['time_s'] * us:,.1f} us), the last at "
              f"{(max(s.end_s for s in late) - start) * us:,.1f} us: record_units lays out more than the level's bound")
    rows.sort(key=lambda r: (LANES.index(r["lane"]), r["start_us"]))
    lib.save(fig, rows, out, "timeline")
    if args.docs and not args.quick:
        shutil.copyfile(out / "timeline.png", DOCS_PICTURE)
        print(f"wrote {DOCS_PICTURE.relative_to(lib.ROOT)}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
