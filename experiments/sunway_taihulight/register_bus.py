"""Sunway TaihuLight register-bus shuffle (seed 003, 4.3): the rate of one
CPE cluster's producer/router/consumer shuffle, and of a whole reaction
module built on it, against the producers' read chunk size (claim
sunway.register_bus: 10 GB/s register to register, out of a theoretical
14.5 GB/s, "half of peak bandwidth in Figure 3 for both read and write").

This is a CALIBRATION claim: simbfs/machines/sunway_taihulight.yaml sets
cpe_cluster.register_bus = 10 GB/s from it, so the shuffle's rate here
(CPEClusterModel.shuffle_seconds) reproduces its input. The theoretical
14.5 GB/s is not an input: it follows from the DMA curve (28.9 GB/s at
256 B) and the model's rule that a reaction module's reads and writes share
the cluster's DMA bandwidth (CPEClusterModel.reaction_seconds), checked
with the register bus taken as unbounded. Each module moves N bytes: read
by the producers in chunks of the given size, shuffled, written by the
consumers in 256 B batches.

    python experiments/sunway_taihulight/register_bus.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from simbfs.claims import claim  # noqa: E402
from simbfs.machine import load_machine  # noqa: E402

MACHINE = "sunway_taihulight"
CHUNKS = tuple(2**k for k in range(3, 15))  # producers' read chunk, 8 B .. 16 KiB
QUICK_CHUNKS = (8, 64, 256, 16384)
MODULE_BYTES = 1 << 30  # N: bytes each module reads, shuffles and writes
REGISTER_BUS_GB_S, THEORETICAL_GB_S = 10.0, 14.5  # 003, 4.3


def main(argv=None) -> list[dict]:
    args = lib.parse_args(__doc__, MACHINE, argv)
    out = lib.out_dir(args)
    lib.note_mode("modelled")  # the CPE cluster's model on its own, no search
    model = load_machine(MACHINE).section("cpe_cluster")
    unbounded = replace(model, register_bus_Bps=float("inf"))  # the DMA bound alone
    n = MODULE_BYTES
    shuffle = n / model.shuffle_seconds(n) / 1e9
    chunks = QUICK_CHUNKS if args.quick else CHUNKS
    rows = []
    for chunk in chunks:
        rows.append({"read_chunk_B": chunk, "write_batch_B": model.batch_bytes, "shuffle_GB_s": shuffle,
                     "reaction_GB_s": n / model.reaction_seconds(n, chunk, n, n) / 1e9,
                     "dma_bound_GB_s": n / unbounded.reaction_seconds(n, chunk, n, n) / 1e9})

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    x = [r["read_chunk_B"] for r in rows]
    ax.plot(x, [r["reaction_GB_s"] for r in rows], marker="o", label="reaction module, simbfs")
    ax.plot(x, [r["dma_bound_GB_s"] for r in rows], "--", label="reads + writes sharing the DMA (bus unbounded)")
    ax.plot(x, [r["shuffle_GB_s"] for r in rows], ":", label="register-bus shuffle, simbfs")
    ax.plot([256, 256], [REGISTER_BUS_GB_S, THEORETICAL_GB_S], "ks", mfc="none",
            label="paper: 10 GB/s measured, 14.5 theoretical (003, 4.3)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("producers' DMA read chunk (bytes); writes in 256 B batches")
    ax.set_ylabel("GB/s read, shuffled and written")
    ax.set_title("Contention-free shuffle on one CPE cluster (calibration)")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, alpha=0.3)
    lib.save(fig, rows, out, "register_bus")

    tolerance = claim("sunway.register_bus")["tolerance"]
    at_256 = next(r for r in rows if r["read_chunk_B"] == 256)
    print("Register-bus shuffle of one CPE cluster (GB/s; calibration: the model's input reproduced)")
    print("  reaction module by read chunk: " + "  ".join(f"{r['read_chunk_B']}B {r['reaction_GB_s']:.3g}"
                                                         for r in rows))
    print("Comparison with sunway.register_bus (003, 4.3, kind calibration):")
    lib.compare("shuffle, register to register", shuffle, REGISTER_BUS_GB_S, tolerance, "GB/s",
                claim_id="sunway.register_bus")
    lib.compare("reaction module, 256 B chunks", at_256["reaction_GB_s"], REGISTER_BUS_GB_S, tolerance, "GB/s")
    lib.compare("DMA bound (theoretical)", at_256["dma_bound_GB_s"], THEORETICAL_GB_S, tolerance, "GB/s")
    print(f"  consumers' SPM: {model.consumer_destinations()} destinations with one 256 B buffer each, "
          f"{model.consumer_destinations(4)} with four (the paper: 'up to 1024 destinations in practice')")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
