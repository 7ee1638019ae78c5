"""Sunway TaihuLight Fig. 5 (seed 003, 4.3): the DMA bandwidth of one CPE
cluster against the number of its CPEs that stream, 1 to 64, with 256 B
chunks (claim sunway.cpes_needed: at least 16 CPEs are needed to use the
memory bandwidth).

This is a CALIBRATION claim: simbfs/machines/sunway_taihulight.yaml sets
cpe_cluster.cpes_to_saturate = 16 from it, so the script shows that the
model (CPEClusterModel.dma_seconds with cpes = k, bandwidth
curve(256 B) x min(1, k / 16)) reproduces its input. The figure's shape
below 16 CPEs is not in the paper's text; linear is the machine file's
estimate, and the plot says so.

    python experiments/sunway_taihulight/fig5.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from simbfs.claims import claim  # noqa: E402
from simbfs.machine import load_machine  # noqa: E402

MACHINE = "sunway_taihulight"
CHUNK = 256  # bytes, as in Fig. 5
CPES = tuple(range(1, 65))
QUICK_CPES = (1, 2, 4, 8, 15, 16, 17, 32, 64)
STREAM_BYTES = 1 << 30
PAPER_CPES, CLUSTER_GB_S = 16, 28.9  # 003, 4.3 and 3.2


def main(argv=None) -> list[dict]:
    args = lib.parse_args(__doc__, MACHINE, argv)
    out = lib.out_dir(args)
    lib.note_mode("modelled")  # the CPE cluster's model on its own, no search
    model = load_machine(MACHINE).section("cpe_cluster")
    counts = QUICK_CPES if args.quick else CPES
    full = STREAM_BYTES / model.dma_seconds(STREAM_BYTES, CHUNK) / 1e9
    rows = []
    for cpes in counts:
        rate = STREAM_BYTES / model.dma_seconds(STREAM_BYTES, CHUNK, cpes=cpes) / 1e9
        rows.append({"cpes": cpes, "chunk_B": CHUNK, "cluster_GB_s": rate, "fraction_of_full": rate / full})
    saturating = min(r["cpes"] for r in rows if r["fraction_of_full"] >= 1 - 1e-12)

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.plot([r["cpes"] for r in rows], [r["cluster_GB_s"] for r in rows], marker=".",
            label="simbfs: curve(256 B) x min(1, k / 16); linear below 16 is an estimate")
    ax.axvline(PAPER_CPES, color="k", linestyle="--", label="paper: no less than 16 CPEs (003, 4.3)")
    ax.axhline(CLUSTER_GB_S, color="grey", linestyle=":", label="paper: 28.9 GB/s (003, 3.2)")
    ax.set_xlabel("CPEs of one cluster streaming")
    ax.set_ylabel("bandwidth (GB/s)")
    ax.set_title("Fig. 5: DMA bandwidth against CPEs, 256 B chunks (calibration)")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, alpha=0.3)
    lib.save(fig, rows, out, "fig5_cpes")

    print(f"Fig. 5, one cluster's DMA bandwidth with {CHUNK} B chunks (GB/s; calibration: the model's input "
          f"reproduced)")
    print("  " + "  ".join(f"{r['cpes']}:{r['cluster_GB_s']:.3g}" for r in rows))
    print("Comparison with sunway.cpes_needed (003, 4.3, Fig. 5, kind calibration):")
    lib.compare("fewest CPEs at full bandwidth", saturating, PAPER_CPES, 0.0, "CPEs", claim_id="sunway.cpes_needed")
    at_16 = next(r["cluster_GB_s"] for r in rows if r["cpes"] == PAPER_CPES)
    lib.compare("16 CPEs (sunway.dma)", at_16, CLUSTER_GB_S, claim("sunway.dma")["tolerance"], "GB/s")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
