"""TSUBAME 2.0 Figs. 11 and 12 (seed 004, VI-E): communication data per GPU
of the expand and fold phases (Fig. 11) and the data copied between CPU and
GPU (Fig. 12) per BFS, weak scaling at scale 23 per GPU on 64 to 4,096
GPUs (R x C of Table 1), final code (`ueno2d`).

PROJECTED, every point (through ueno2d's Projector level by level,
tsubame.py's project_levels). Per BFS = summed over a root's levels,
averaged over the roots; per GPU = the mean process:
- expand data: the record's collective_bytes / GPUs (received in the
  column and row allgathers);
- fold data: the record's bytes / GPUs (fold edges sent to other processes);
- CPU-GPU transfer: the mean process's own expand bytes (GPU to host) +
  received expand bytes (host to GPU) + fold bytes sent (GPU to host) +
  fold bytes received (host to GPU), from the projector's Counts.
Claim tsubame.comm_growth (trend): expand data per GPU grows with R and C;
fold data grows with C (more SV copies filter less); the CPU-GPU volume
follows the communication volume.

    python experiments/tsubame2/fig11_fig12.py [--quick] [--roots 4] [--profile-scale 18] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.tsubame2 import tsubame as T  # noqa: E402
from simbfs.claims import claim  # noqa: E402

ALGORITHM = "ueno2d"


def transfer_bytes(level) -> float:
    """The mean process's PCIe bytes in one level (both directions)."""
    c = level["mean"]
    return c.own_bytes + c.column_bytes + c.row_bytes + c.sent_bytes + c.received_bytes



def main(argv=None) -> list[dict]:
    args = T.figure_options(__doc__, argv)
    out = lib.out_dir(args)
    gpus_list, roots, profile_scale = T.sizes(args)
    started = time.time()
    rows = []
    for gpus in gpus_list:
        scale = T.scale_for(gpus)
        p = T.project_levels(ALGORITHM, gpus, scale, roots, profile_scale)
        expand = T.per_bfs(p, lambda level: level["record"].collective_bytes) / gpus
        fold = T.per_bfs(p, lambda level: level["record"].bytes) / gpus
        transfer = T.per_bfs(p, transfer_bytes)
        rows.append({"mode": "projected", "algorithm": ALGORITHM, "gpus": gpus, "hosts": p["hosts"], "R": p["R"],
                     "C": p["C"], "scale": scale, "roots": len(p["roots"]), "profile_scale": profile_scale,
                     "expand_MB_per_gpu": expand / 1e6, "fold_MB_per_gpu": fold / 1e6,
                     "communication_MB_per_gpu": (expand + fold) / 1e6, "cpu_gpu_MB_per_gpu": transfer / 1e6,
                     "transfer_over_communication": transfer / (expand + fold)})
        print(f"  {gpus:>5} GPUs ({p['R']}x{p['C']}), scale {scale}: expand {expand / 1e6:8.2f} MB, fold "
              f"{fold / 1e6:8.2f} MB, CPU-GPU {transfer / 1e6:8.2f} MB per GPU (projected)", flush=True)

    plt = lib.pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    x = [r["gpus"] for r in rows]
    left.plot(x, [r["expand_MB_per_gpu"] for r in rows], "o-", label="expand")
    left.plot(x, [r["fold_MB_per_gpu"] for r in rows], "s-", label="fold")
    right.plot(x, [r["cpu_gpu_MB_per_gpu"] for r in rows], "o-", color="C2", label="CPU-GPU (both ways)")
    right.plot(x, [r["communication_MB_per_gpu"] for r in rows], "s--", color="grey",
               label="network (expand + fold)")
    for ax, title in ((left, "Fig. 11: communication data per GPU"), (right, "Fig. 12: CPU-GPU transfer per GPU")):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs (scale 23 per GPU)")
        ax.set_ylabel("MB per BFS")
        ax.set_title(f"{title} - PROJECTED from scale {profile_scale}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    lib.save(fig, rows, out, "fig11_fig12_data")

    print(f"Figs. 11 and 12, PROJECTED from scale-{profile_scale} profiles ({roots} roots; MB per GPU per BFS)")
    print(f"  {'GPUs':>5} {'grid':>6} {'expand':>9} {'fold':>9} {'CPU-GPU':>9} {'CPU-GPU/network':>16}")
    for r in rows:
        print(f"  {r['gpus']:>5} {r['R']:>2}x{r['C']:<3} {r['expand_MB_per_gpu']:9.2f} {r['fold_MB_per_gpu']:9.2f} "
              f"{r['cpu_gpu_MB_per_gpu']:9.2f} {r['transfer_over_communication']:16.3f}")
    c = claim("tsubame.comm_growth")
    print(f"Comparison with tsubame.comm_growth ({c['paper']}, trend: {c['statement']}):")
    pairs = list(zip(rows, rows[1:]))
    expand_up = sum(b["expand_MB_per_gpu"] > a["expand_MB_per_gpu"] for a, b in pairs)
    lib.trend("tsubame.comm_growth", expand_up == len(pairs),
              f"expand data per GPU grows from one size to the next at {expand_up} of {len(pairs)} steps "
              f"({rows[0]['expand_MB_per_gpu']:.4g} -> {rows[-1]['expand_MB_per_gpu']:.4g} MB)",
              label="tsubame.comm_growth, expand grows with R and C")
    c_steps = [(a, b) for a, b in pairs if b["C"] > a["C"]]
    r_steps = [(a, b) for a, b in pairs if b["C"] == a["C"]]
    fold_c = sum(b["fold_MB_per_gpu"] > a["fold_MB_per_gpu"] for a, b in c_steps)
    lib.trend("tsubame.comm_growth", fold_c == len(c_steps),
              f"fold data per GPU grows where C grows at {fold_c} of {len(c_steps)} steps ("
              + ", ".join(f"C {a['C']}->{b['C']}: {b['fold_MB_per_gpu'] / a['fold_MB_per_gpu']:.3f}x"
                          for a, b in c_steps)
              + "); where only R grows: "
              + ", ".join(f"R {a['R']}->{b['R']}: {b['fold_MB_per_gpu'] / a['fold_MB_per_gpu']:.3f}x"
                          for a, b in r_steps),
              label="tsubame.comm_growth, fold grows with C", judged=bool(c_steps))
    ratios = [r["transfer_over_communication"] for r in rows]
    network = [r["cpu_gpu_MB_per_gpu"] / r["transfer_over_communication"] for r in rows]
    together = sum((b["cpu_gpu_MB_per_gpu"] > a["cpu_gpu_MB_per_gpu"]) == (n_b > n_a)
                   for (a, b), n_a, n_b in zip(pairs, network, network[1:]))
    lib.trend("tsubame.comm_growth", together == len(pairs),
              f"CPU-GPU volume moves with the network volume at {together} of {len(pairs)} steps; their ratio per "
              f"GPU is {min(ratios):.3f} to {max(ratios):.3f} over the sizes",
              label="tsubame.comm_growth, CPU-GPU follows communication")
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig11_fig12_data.csv'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
