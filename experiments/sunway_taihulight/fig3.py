"""Sunway TaihuLight Fig. 3 (seed 003, 3.2): the DMA bandwidth of one CPE
cluster against chunk size, 8 B to 16 KiB, beside the MPE's 9.4 GB/s
(claim sunway.dma: a cluster reaches 28.9 GB/s with chunks of 256 B or
more; an MPE reaches 9.4 GB/s with 256 B batches).

This is a CALIBRATION claim: simbfs/machines/sunway_taihulight.yaml sets
cpe_cluster.dma_curve and cpe_cluster.mpe_bandwidth from these very
numbers, so the script shows that the model (CPEClusterModel.dma_seconds and
mpe_seconds, simbfs/engine/devices/cpe_cluster.py) reproduces its inputs,
not a prediction. Below 256 B the paper gives no numbers: the curve there is
the shape of the swCandle measurement (hardware-sources.md B, SWC) scaled to
28.9 GB/s at 256 B, an estimate, plotted with the points it came from.

    python experiments/sunway_taihulight/fig3.py [--quick] [--out DIR]
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
CHUNKS = tuple(2**k for k in range(3, 15))  # 8 B .. 16 KiB
QUICK_CHUNKS = (8, 64, 256, 16384)
STREAM_BYTES = 1 << 30  # bytes streamed per point
# The paper's numbers (003, 3.2) and the component measurement of another
# benchmark that shapes the curve below 256 B (hardware-sources.md B, SWC:
# DMA STREAM Triad, one core group, 64 CPEs; GB/s against block size)
CLUSTER_GB_S, MPE_GB_S = 28.9, 9.4
SWC_GB_S = {8: 0.56, 64: 2.37, 128: 4.01, 256: 8.28}


def main(argv=None) -> list[dict]:
    args = lib.parse_args(__doc__, MACHINE, argv)
    out = lib.out_dir(args)
    lib.note_mode("modelled")  # the CPE cluster's model on its own, no search
    model = load_machine(MACHINE).section("cpe_cluster")
    chunks = QUICK_CHUNKS if args.quick else CHUNKS
    mpe = STREAM_BYTES / model.mpe_seconds(STREAM_BYTES) / 1e9
    rows = []
    for chunk in chunks:
        cluster = STREAM_BYTES / model.dma_seconds(STREAM_BYTES, chunk) / 1e9
        swc = SWC_GB_S.get(chunk)
        rows.append({"chunk_B": chunk, "cluster_GB_s": cluster, "mpe_GB_s": mpe,
                     "paper_cluster_GB_s": CLUSTER_GB_S if chunk >= 256 else "",
                     "swc_scaled_GB_s": swc * CLUSTER_GB_S / SWC_GB_S[256] if swc else ""})

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.plot([r["chunk_B"] for r in rows], [r["cluster_GB_s"] for r in rows], marker="o",
            label="CPE cluster, simbfs (cpe_cluster.dma_curve)")
    big = [c for c in chunks if c >= 256]
    ax.plot(big, [CLUSTER_GB_S] * len(big), "k--", label="paper: 28.9 GB/s at >= 256 B (003, 3.2)")
    ax.plot(list(SWC_GB_S), [v * CLUSTER_GB_S / SWC_GB_S[256] for v in SWC_GB_S.values()], "x", color="C2",
            label="swCandle, scaled to 28.9 at 256 B (estimate's input)")
    ax.axhline(mpe, color="C1", label=f"MPE, simbfs ({mpe:.3g} GB/s, one value)")
    ax.plot([256], [MPE_GB_S], "s", color="C1", mfc="none", label="paper: MPE 9.4 GB/s, 256 B batches")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("DMA chunk size (bytes)")
    ax.set_ylabel("bandwidth (GB/s)")
    ax.set_title("Fig. 3: DMA bandwidth of one CPE cluster (calibration)")
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    lib.save(fig, rows, out, "fig3_dma")

    tolerance = claim("sunway.dma")["tolerance"]
    print("Fig. 3, DMA bandwidth of one CPE cluster (GB/s; calibration: the model's inputs reproduced)")
    print("  " + "  ".join(f"{r['chunk_B']}B {r['cluster_GB_s']:.3g}" for r in rows))
    print("Comparison with sunway.dma (003, 3.2, kind calibration):")
    at_256 = next(r["cluster_GB_s"] for r in rows if r["chunk_B"] == 256)
    lib.compare("cluster, 256 B chunks", at_256, CLUSTER_GB_S, tolerance, "GB/s", claim_id="sunway.dma")
    lib.compare("cluster, slowest >= 256 B", min(r["cluster_GB_s"] for r in rows if r["chunk_B"] >= 256),
                CLUSTER_GB_S, tolerance, "GB/s")
    lib.compare("MPE, 256 B batches", mpe, MPE_GB_S, tolerance, "GB/s", claim_id="sunway.dma")
    print(f"  cluster / MPE at 256 B: {at_256 / mpe:.2f}x (Fig. 3's caption says '10 times faster'; "
          f"the text's own numbers give {CLUSTER_GB_S / MPE_GB_S:.2f}x)")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
