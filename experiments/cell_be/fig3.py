"""Fig. 3 of 001: aggregate main-memory DMA bandwidth versus block size, for
1 to 8 SPEs streaming at once (claims cell.dma.large_blocks, cell.dma.64B_blocks).
The curve is a calibration input (simbfs/machines/cell_be.yaml, dma.bandwidth_curve);
this script checks that the engine reproduces it, including main-memory
contention and the 128 B alignment charge.

    python experiments/cell_be/fig3.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.cell_be import cell as C  # noqa: E402
from experiments.cell_be.fig2 import dma_stream_rate  # noqa: E402

BLOCKS = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 16384)
SPE_COUNTS = (1, 2, 4, 8)


def main(argv=None):
    args = C.parse_args(__doc__, argv)
    out = lib.out_dir(args)
    count = 32 if args.quick else 256
    rows = []
    for spes in SPE_COUNTS:
        for block in BLOCKS:
            rate = dma_stream_rate(block, spes, count=count)
            rows.append({"spes": spes, "block_B": block, "aggregate_GB_s": rate * spes / 1e9,
                         "per_spe_GB_s": rate / 1e9})
    lib.write_csv(out / "fig3_dma.csv", rows)
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for spes in SPE_COUNTS:
        pts = [r for r in rows if r["spes"] == spes]
        ax.plot([r["block_B"] for r in pts], [r["aggregate_GB_s"] for r in pts], marker="o", label=f"{spes} SPEs")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("block size (B)")
    ax.set_ylabel("aggregate GB/s")
    ax.set_title("Fig. 3: DMA bandwidth from main memory (simulated)")
    ax.legend()
    lib.save_figure(fig, out / "fig3_dma.png")
    large = next(r for r in rows if r["spes"] == 8 and r["block_B"] == 1024)["aggregate_GB_s"]
    small = next(r for r in rows if r["spes"] == 8 and r["block_B"] == 64)["per_spe_GB_s"]
    print("Fig. 3 DMA bandwidth (calibration claims):")
    lib.compare_claim("cell.dma.large_blocks", large, "GB/s")
    lib.compare_claim("cell.dma.64B_blocks", small, "GB/s/SPE")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
