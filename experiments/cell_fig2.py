"""Fig. 2 of 001: the throughput each step can sustain per SPE, and the joint
bound Th35 of Dispatch and Bitmap (section 4).

Each step is measured in the simulator in isolation, with all 8 SPEs
contending as in the paper:
* Fetch, Commit: 8 DMA engines streaming 512 B / 1 KiB blocks (M vertices/s,
  4 B per vertex code);
* Gather: 8 engines streaming DMA lists of 64 B and of 1 KiB blocks
  (ME/s at 4 B per edge, the paper's accounting);
* All-to-all: 8 SPEs putting 36 KB x use of queues to the 7 others with
  guards, concurrently (ME/s at 4 B per edge);
* Dispatch, Bitmap: the busy time of the step in a simulated BFS on the
  paper's graphs (a = 16, 512), per edge; Th35 = edges / (Dispatch + Bitmap).
"""

from __future__ import annotations

import numpy as np
import simpy

try:
    from experiments import cell_common as C
except ImportError:  # run as a script
    import cell_common as C

from simbfs.engine import DMAEngine, Network, SharedMemoryPort, make_topology
from simbfs.claims import claim

SPES = 8
ARITIES = (16, 512)
SCALES = {16: 18, 512: 13}  # about 4 M edges each
QUICK_SCALES = {16: 12, 512: 9}
QUEUES = 36 * 1024
QUEUE_USE = (0.75, 0.992)
STREAM = 256  # transfers per engine


def dma_stream_rate(block: float, spes: int = SPES, lists: bool = False, count: int = STREAM) -> float:
    """Bytes/s per SPE when ``spes`` engines stream blocks of ``block`` B."""
    m = C.machine()
    env = simpy.Environment()
    memory = SharedMemoryPort(m.section("dma").shared_bandwidth_Bps)
    engines = [DMAEngine(env, m.section("dma"), memory, owner=i)
               for i in range(spes)]
    for engine in engines:
        if lists:
            per_list = min(m.section("spe").dma_list_max, max(1, int(16384 // block)))
            for _ in range(max(1, count // per_list)):
                env.process(engine.transfer_list(np.full(per_list, block)))
        else:
            for _ in range(count):
                env.process(engine.transfer(block))
    env.run()
    return engines[0].bytes_moved / env.now


def alltoall_rate(use: float) -> float:
    """Edges/s per SPE when all SPEs put their queues to all others at once."""
    m = C.machine()
    env = simpy.Environment()
    network = Network(env, make_topology(m.network, SPES), m.network, m.messaging)
    per_queue = QUEUES / 2 * use / SPES  # Qout half of the 36 KB, split per SPE
    end = 0.0
    for i in range(SPES):
        engine = DMAEngine(env, m.section("dma"), owner=i)
        others = [p for p in range(SPES) if p != i]
        end = max(end, engine.reserve_put_list(network, others, [per_queue] * len(others), m.section("spe").guard_bytes).max())
    edges = per_queue * (SPES - 1) / m.section("spe").vertex_code_bytes
    return edges / end


def compute_rates(arity: float, scale: int) -> dict:
    r = C.run_cell(arity, scale, SPES, "cell-bsp", roots=1, trace=True)
    edges = r["edges"]
    dispatch = r["busy"].get("dispatch", 0.0) / SPES
    bitmap = r["busy"].get("bitmap", 0.0) / SPES
    per_spe = edges / SPES
    return {"dispatch": per_spe / dispatch, "bitmap": per_spe / bitmap, "th35": per_spe / (dispatch + bitmap)}


def main(argv=None):
    args = C.parse_args(__doc__, argv)
    out = C.out_dir(args)
    scales = QUICK_SCALES if args.quick else SCALES
    code = C.machine().section("spe").vertex_code_bytes
    rows = []
    fetch = dma_stream_rate(512) / code
    commit = dma_stream_rate(1024) / code
    gather_small = dma_stream_rate(64, lists=True) / code
    gather_large = dma_stream_rate(1024, lists=True) / code
    a2a = [alltoall_rate(u) for u in QUEUE_USE]
    comp = {a: compute_rates(a, scales[a]) for a in ARITIES}
    rows += [
        {"step": "fetch", "case": "512 B bQ", "simbfs_ME_s": fetch / 1e6, "paper_ME_s": claim("cell.step.fetch")["value"], "tolerance": 0.05},
        {"step": "gather", "case": "64 B blocks", "simbfs_ME_s": gather_small / 1e6, "paper_ME_s": 341.76, "tolerance": 0.05},
        {"step": "gather", "case": "lists > 512 B", "simbfs_ME_s": gather_large / 1e6, "paper_ME_s": 689.38, "tolerance": 0.05},
        {"step": "dispatch", "case": "a=16", "simbfs_ME_s": comp[16]["dispatch"] / 1e6, "paper_ME_s": 42.34, "tolerance": 0.05},
        {"step": "dispatch", "case": "a=512", "simbfs_ME_s": comp[512]["dispatch"] / 1e6, "paper_ME_s": 984.23, "tolerance": 0.05},
        {"step": "alltoall", "case": "75% full", "simbfs_ME_s": a2a[0] / 1e6, "paper_ME_s": 853.3, "tolerance": 0.10},
        {"step": "alltoall", "case": "99.2% full", "simbfs_ME_s": a2a[1] / 1e6, "paper_ME_s": 1130.0, "tolerance": 0.10},
        {"step": "bitmap", "case": "a=16", "simbfs_ME_s": comp[16]["bitmap"] / 1e6, "paper_ME_s": 35.17, "tolerance": 0.05},
        {"step": "bitmap", "case": "a=512", "simbfs_ME_s": comp[512]["bitmap"] / 1e6, "paper_ME_s": 113.73, "tolerance": 0.05},
        {"step": "commit", "case": "> 512 B", "simbfs_ME_s": commit / 1e6, "paper_ME_s": claim("cell.step.commit")["value"], "tolerance": 0.05},
        {"step": "th35", "case": "a=16", "simbfs_ME_s": comp[16]["th35"] / 1e6, "paper_ME_s": 19.21, "tolerance": 0.05},
        {"step": "th35", "case": "a=512", "simbfs_ME_s": comp[512]["th35"] / 1e6, "paper_ME_s": 101.95, "tolerance": 0.05},
    ]
    for row in rows:
        row["error"] = row["simbfs_ME_s"] / row["paper_ME_s"] - 1
        row["verdict"] = "within" if abs(row["error"]) <= row["tolerance"] else "MISS"
    C.write_csv(out / "fig2_steps.csv", rows)
    plt = C.pyplot()
    fig, ax = plt.subplots(figsize=(9, 4))
    labels = [f"{r['step']}\n{r['case']}" for r in rows]
    x = np.arange(len(rows))
    ax.bar(x - 0.2, [r["paper_ME_s"] for r in rows], 0.4, label="paper (001, 4)")
    ax.bar(x + 0.2, [r["simbfs_ME_s"] for r in rows], 0.4, label="simbfs")
    ax.set_yscale("log")
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_ylabel("ME/s per SPE")
    ax.set_title("Fig. 2: throughput attainable by each step, per SPE (8 SPEs contending)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "fig2_steps.png", dpi=120)
    print("Fig. 2 per-step bounds, ME/s per SPE (claims cell.step.*, cell.th35):")
    for r in rows:
        print(C.claim_line(f"{r['step']} {r['case']}", r["simbfs_ME_s"], r["paper_ME_s"], r["tolerance"], "ME/s"))
    return rows


if __name__ == "__main__":
    C.exit_on_user_error(main)
