"""TSUBAME 2.0 Fig. 13 (seed 004, VI-F): GTEPS with 3 GPUs per node, 2 GPUs
per node and the CPU implementation of the same algorithm, by number of
nodes (hosts), at scale 23 per process.

PROJECTED, every point (`simbfs run tsubame2 --mode project`). The paper
plots against nodes, and its GPU counts per point are not in the text; this
script runs the SAME process counts, 64 to 4,096 (Table 1's grids, scale =
23 + log2(processes)), for all three and puts each at its host count:
- 3 GPUs/node: `ueno2d`, ceil(P / 3) hosts (4,096 GPUs on 1,366 nodes);
- 2 GPUs/node: `ueno2d` with --set network.processes_per_host=2, P / 2 hosts
  (its 4,096-process point, 2,048 hosts, is more hosts than TSUBAME 2.0 had);
- CPU: `ueno2d:device=cpu`, 3 processes per host as the GPU code, each on a
  third of the host's two Xeons (4,096 processes on 1,366 nodes: the
  paper's "same problem size and the same number of nodes").
GTEPS: median of the roots (the paper's statistic, VI-C). Claims:
tsubame.cpu (the CPU code reaches 211 GTEPS at scale 35 on 1,366 nodes,
tolerance 20%) and the paper's "only about 1.5 times" GPU over CPU there
(no tolerance given).

    python experiments/tsubame2/fig13.py [--quick] [--roots 4] [--profile-scale 18] [--out DIR]
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

# (label, algorithm, machine overrides)
VARIANTS = (("3 GPUs/node", "ueno2d", ()), ("2 GPUs/node", "ueno2d", (T.TWO_PER_HOST,)),
            ("CPU", "ueno2d:device=cpu", ()))
PAPER_PROCESSES = 4096  # 004, VI-F: scale 35, 1,366 nodes (4,096 GPUs; 2,732 CPUs)
PAPER_GPU_OVER_CPU = 1.5  # 004, VI-F: "The performance gain of the GPU implementation is only about 1.5 times"


def main(argv=None) -> list[dict]:
    args = T.figure_options(__doc__, argv)
    out = lib.out_dir(args)
    gpus_list, roots, profile_scale = T.sizes(args)
    started = time.time()
    rows = []
    for processes in gpus_list:
        scale = T.scale_for(processes)
        R, C = T.grid(processes)
        for variant, algorithm, overrides in VARIANTS:
            doc = T.project(algorithm, processes, scale, roots, profile_scale, overrides)
            teps = doc["teps"]
            rows.append({"mode": doc["mode"], "variant": variant, "algorithm": algorithm,
                         "overrides": " ".join(overrides), "processes": processes, "hosts": doc["hosts"],
                         "processes_per_host": -(-processes // doc["hosts"]), "R": R, "C": C, "scale": scale,
                         "roots": len(doc["roots"]), "profile_scale": profile_scale,
                         "median_gteps": teps["median"] / 1e9, "harmonic_mean_gteps": teps["harmonic_mean"] / 1e9})
            print(f"  {processes:>5} processes on {doc['hosts']:>5} hosts, scale {scale}: {variant:<12} "
                  f"{teps['median'] / 1e9:9.2f} GTEPS median (projected)", flush=True)

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for index, (variant, _, _) in enumerate(VARIANTS):
        mine = [r for r in rows if r["variant"] == variant]
        ax.plot([r["hosts"] for r in mine], [r["median_gteps"] for r in mine], "o-", color=f"C{index}",
                label=f"{variant} (64..4,096 processes)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("nodes (hosts)")
    ax.set_ylabel("GTEPS (median of the roots)")
    ax.set_title(f"Fig. 13: GPUs per node and CPU - PROJECTED from scale {profile_scale}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    lib.save(fig, rows, out, "fig13_gpu_cpu")

    by = {(r["variant"], r["processes"]): r for r in rows}
    print(f"Fig. 13, PROJECTED from scale-{profile_scale} profiles ({roots} roots; GTEPS median, by processes, "
          f"each variant at its host count)")
    print(f"  {'procs':>5} " + " ".join(f"{v + ' (hosts)':>24}" for v, _, _ in VARIANTS) + f" {'3GPU/CPU':>9}")
    for processes in gpus_list:
        cells = [by[(v, processes)] for v, _, _ in VARIANTS]
        ratio = cells[0]["median_gteps"] / cells[2]["median_gteps"]
        print(f"  {processes:>5} " + " ".join(f"{c['median_gteps']:>15.2f} ({c['hosts']:>5})" for c in cells)
              + f" {ratio:9.2f}")
    if PAPER_PROCESSES in gpus_list:
        gpu, cpu = by[("3 GPUs/node", PAPER_PROCESSES)], by[("CPU", PAPER_PROCESSES)]
        c = claim("tsubame.cpu")
        print(f"Comparison with tsubame.cpu ({c['paper']}: {c['statement']}):")
        lib.compare_claim("tsubame.cpu", cpu["median_gteps"], "GTEPS",
                          label=f"CPU, {PAPER_PROCESSES} procs, {cpu['hosts']} hosts")
        lib.compare("GPU (3/node) / CPU there", gpu["median_gteps"] / cpu["median_gteps"], PAPER_GPU_OVER_CPU,
                    unit="x")
    print(f"  {time.time() - started:.0f} s; wrote {out / 'fig13_gpu_cpu.csv'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
