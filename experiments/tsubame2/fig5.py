"""TSUBAME 2.0 Fig. 5 (seed 004, VI-B): the throughput of SIMD-VLQ encoding
and decoding of uniform random values 0..N (N = 2^7 to 2^32) on one GPU,
against a sequential CPU VLQ (claim tsubame.simd_vlq_speed: the GPU is
11-25x faster; a calibration claim whose figure values are not in the text).

MODELLED, not executed or projected: nothing here runs a BFS. Three series:

- GPU SIMD-VLQ, modelled: the price simbfs gives the codec inside ueno2d
  (pricing.processor(machine, "gpu").kernel_seconds with the ueno2d
  section's vlq_ops per byte), for a batch of COUNT values: the kernel
  streams each value (VALUE_BYTES, 64-bit ids: 004 V-G) and its VLQ bytes
  and runs vlq_ops lane operations per byte. Encode and decode move the
  same bytes and ops, so the model gives them the same rate.
- sequential CPU VLQ, modelled (an estimate made for this figure only, not
  a machine-file parameter): one Xeon X5670 core at node.clock runs, per
  value, CPU_CYCLES_PER_VALUE cycles plus CPU_CYCLES_PER_BYTE per VLQ byte,
  plus MISPREDICT_CYCLES per mispredicted loop-exit branch (Agner Fog's
  microarchitecture manual: Nehalem's misprediction penalty is "at least 17
  clock cycles"; Westmere is its shrink). The predictor is assumed to know
  the byte position (loop iteration) but not the value, so at position j it
  guesses the likelier outcome and mispredicts min(q, 1 - q) of the values
  still there (q: share of them ending at j). The paper names branch
  mispredictions as what makes the CPU's speed depend on N (VI-B).
- host numpy, MEASURED: wall-clock rate of simbfs's own numpy
  vlq.vlq_encode / vlq_decode (classic VLQ) on the computer running this
  script. It is not the paper's CPU and enters no comparison.

Compared: the ratio GPU model / CPU model over N against the paper's 11-25x
(no tolerance: the claim gives a range, not a value).

    python experiments/tsubame2/fig5.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.tsubame2 import tsubame as T  # noqa: E402
from simbfs.algorithms.ueno2d import pricing, vlq  # noqa: E402
from simbfs.claims import claim  # noqa: E402
from simbfs.machine import load_machine  # noqa: E402

NS = tuple(2**k for k in range(7, 33))  # Fig. 5's x axis: 2^7 .. 2^32
COUNT = 2**24  # values per modelled batch (the paper gives no length; launch costs vanish at this size)
VALUE_BYTES = 8  # 004, V-G: the implementation's ids are 64-bit
CPU_CYCLES_PER_VALUE = 2.0  # estimate: load the value, advance the pointers, loop
CPU_CYCLES_PER_BYTE = 2.0  # estimate: shift/mask/or/store and the loop test, a 2-cycle dependency chain per byte
MISPREDICT_CYCLES = 17.0  # Agner Fog, microarchitecture manual: Nehalem's misprediction penalty >= 17 cycles
HOST_VALUES = 2**20  # values per host numpy measurement
PAPER_LOW, PAPER_HIGH = 11.0, 25.0  # 004, VI-B: "11-25 times faster"
QUICK = {"ns": (2**7, 2**8, 2**14, 2**32), "host_values": 2**12}


def length_distribution(n: int) -> np.ndarray:
    """P(a value uniform in 0..n takes L VLQ bytes), L = 1..10 (index L - 1)."""
    probabilities = np.zeros(vlq.MAX_VLQ_BYTES)
    for length in range(1, vlq.MAX_VLQ_BYTES + 1):
        low, high = (0 if length == 1 else 128 ** (length - 1)), 128**length - 1
        if low > n:
            break
        probabilities[length - 1] = (min(high, n) - low + 1) / (n + 1)
    return probabilities


def mispredicts_per_value(probabilities: np.ndarray) -> float:
    """Loop-exit mispredictions per value of a predictor that knows the
    byte position: sum over j of P(L >= j) x min(q_j, 1 - q_j)."""
    total, remaining = 0.0, 1.0
    for p in probabilities:
        if remaining <= 1e-15:
            break
        q = p / remaining
        total += remaining * min(q, 1 - q)
        remaining -= p
    return total


def gpu_seconds(machine, bytes_per_value: float, count: int) -> tuple[float, float]:
    """Modelled (encode, decode) seconds of ``count`` values on one GPU."""
    lib.note_mode("modelled")
    proc = pricing.processor(machine, "gpu")
    section = machine.section("ueno2d")
    encoded = count * bytes_per_value
    streamed = count * VALUE_BYTES + encoded  # read the values, write the bytes (decode: the reverse)
    encode = proc.kernel_seconds(streamed_bytes=streamed, ops=encoded * section.vlq_ops)
    decode = proc.kernel_seconds(streamed_bytes=streamed, ops=encoded * section.vlq_ops)
    return float(encode), float(decode)


def host_rates(n: int, count: int, rng) -> tuple[float, float]:
    """Measured values/s of vlq_encode and vlq_decode here (best of 3)."""
    values = rng.integers(0, n, size=count, dtype=np.uint64, endpoint=True)
    best_encode = best_decode = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        stream = vlq.vlq_encode(values)
        middle = time.perf_counter()
        decoded = vlq.vlq_decode(stream, count)
        end = time.perf_counter()
        best_encode, best_decode = min(best_encode, middle - start), min(best_decode, end - middle)
    assert np.array_equal(decoded, values)
    return count / best_encode, count / best_decode


def main(argv=None) -> list[dict]:
    args = lib.parse_args(__doc__, T.MACHINE, argv)
    out = lib.out_dir(args)
    ns = QUICK["ns"] if args.quick else NS
    host_values = QUICK["host_values"] if args.quick else HOST_VALUES
    machine = load_machine(T.MACHINE)
    clock = machine.node.clock_hz
    rng = np.random.default_rng(T.SEED)
    rows = []
    for n in ns:
        probabilities = length_distribution(n)
        bytes_per_value = float((probabilities * np.arange(1, vlq.MAX_VLQ_BYTES + 1)).sum())
        mispredicts = mispredicts_per_value(probabilities)
        encode_s, decode_s = gpu_seconds(machine, bytes_per_value, COUNT)
        cycles = CPU_CYCLES_PER_VALUE + CPU_CYCLES_PER_BYTE * bytes_per_value + MISPREDICT_CYCLES * mispredicts
        cpu_rate = clock / cycles
        gpu_encode, gpu_decode = COUNT / encode_s, COUNT / decode_s
        common = {"N": n, "log2_N": int(np.log2(n)), "bytes_per_value": bytes_per_value}
        rows.append({"mode": "modelled", "series": "GPU SIMD-VLQ (simbfs pricing)", **common,
                     "encode_Mvalues_s": gpu_encode / 1e6, "decode_Mvalues_s": gpu_decode / 1e6,
                     "mispredicts_per_value": "", "cpu_cycles_per_value": "",
                     "gpu_over_cpu_model_encode": gpu_encode / cpu_rate,
                     "gpu_over_cpu_model_decode": gpu_decode / cpu_rate})
        rows.append({"mode": "modelled", "series": "sequential CPU VLQ (estimate, X5670 core)", **common,
                     "encode_Mvalues_s": cpu_rate / 1e6, "decode_Mvalues_s": cpu_rate / 1e6,
                     "mispredicts_per_value": mispredicts, "cpu_cycles_per_value": cycles,
                     "gpu_over_cpu_model_encode": "", "gpu_over_cpu_model_decode": ""})
        host_encode, host_decode = host_rates(n, host_values, rng)
        rows.append({"mode": "measured", "series": "host numpy vlq_encode/decode (this computer)", **common,
                     "encode_Mvalues_s": host_encode / 1e6, "decode_Mvalues_s": host_decode / 1e6,
                     "mispredicts_per_value": "", "cpu_cycles_per_value": "",
                     "gpu_over_cpu_model_encode": "", "gpu_over_cpu_model_decode": ""})

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = {"GPU": ("C0", "o-"), "sequential": ("C1", "s--"), "host": ("C2", "^:")}
    for key, (colour, style) in styles.items():
        mine = [r for r in rows if r["series"].startswith(key)]
        label = mine[0]["series"] + (" [MEASURED]" if mine[0]["mode"] == "measured" else " [MODELLED]")
        ax.plot([r["N"] for r in mine], [r["encode_Mvalues_s"] for r in mine], style, color=colour,
                label=label + (", encode" if key == "host" else ""), markersize=4)
        if key == "host":
            ax.plot([r["N"] for r in mine], [r["decode_Mvalues_s"] for r in mine], "v:", color=colour,
                    label="host numpy, decode [MEASURED]", markersize=4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("N (values uniform in 0..N)")
    ax.set_ylabel("million values per second")
    ax.set_title("Fig. 5: SIMD-VLQ throughput (GPU and CPU modelled; host numpy measured)", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    lib.save(fig, rows, out, "fig5_simd_vlq")

    gpu = [r for r in rows if r["series"].startswith("GPU")]
    print("Fig. 5, SIMD-VLQ throughput (million values/s; GPU and CPU MODELLED, host numpy MEASURED here)")
    print(f"  {'N':>6} {'B/value':>8} {'GPU model':>10} {'CPU model':>10} {'ratio':>7} {'host enc':>9} {'host dec':>9}")
    for n in ns:
        g, c, h = (next(r for r in rows if r["N"] == n and r["series"].startswith(k))
                   for k in ("GPU", "sequential", "host"))
        print(f"  2^{int(np.log2(n)):<4} {g['bytes_per_value']:8.3f} {g['encode_Mvalues_s']:10.0f} "
              f"{c['encode_Mvalues_s']:10.1f} {g['gpu_over_cpu_model_encode']:6.1f}x {h['encode_Mvalues_s']:9.1f} "
              f"{h['decode_Mvalues_s']:9.1f}")
    c = claim("tsubame.simd_vlq_speed")
    ratios = [r["gpu_over_cpu_model_encode"] for r in gpu]
    print(f"Comparison with tsubame.simd_vlq_speed ({c['paper']}, kind {c['kind']}: GPU {PAPER_LOW:g}-"
          f"{PAPER_HIGH:g}x faster than sequential CPU VLQ; encode and decode priced alike by the model). "
          f"Both rates are MODELLED; the CPU one is an estimate of this script ({CPU_CYCLES_PER_VALUE:g} cycles/value "
          f"+ {CPU_CYCLES_PER_BYTE:g}/byte + {MISPREDICT_CYCLES:g}/misprediction):")
    lib.compare("GPU/CPU smallest over N", min(ratios), PAPER_LOW, unit="x", claim_id="tsubame.simd_vlq_speed")
    lib.compare("GPU/CPU largest over N", max(ratios), PAPER_HIGH, unit="x", claim_id="tsubame.simd_vlq_speed")
    inside = sum(PAPER_LOW <= r <= PAPER_HIGH for r in ratios)
    print(f"  {inside} of {len(ratios)} values of N give a ratio inside {PAPER_LOW:g}-{PAPER_HIGH:g}x")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
