"""Edges/second of simbfs's Kronecker generator against a plain numpy loop.

The baseline is the straightforward vectorisation of the Graph500 reference
(octave kronecker_generator.m): for each of `scale` bit levels draw one
random array for the row bit and one for the column bit, and accumulate.
It neither scrambles labels nor is chunk-independent; simbfs's generator
does both and is still timed end to end (labels scrambled, int32 output).

    python benchmarks/bench_generator.py [--scales 20 22] [--repeats 1]
"""

from __future__ import annotations

import argparse

import numpy as np

from _common import best_time, describe_computer

from simbfs.graph import kronecker_edges
from simbfs.graph.kronecker import GRAPH500_A, GRAPH500_B, GRAPH500_C, GRAPH500_D


def plain_numpy_kronecker(scale: int, edgefactor: int = 16, seed: int = 1) -> np.ndarray:
    num_edges = edgefactor << scale
    rng = np.random.default_rng(seed)
    ab = GRAPH500_A + GRAPH500_B
    c_norm = GRAPH500_C / (GRAPH500_C + GRAPH500_D)
    a_norm = GRAPH500_A / ab
    endpoints = np.zeros((2, num_edges), dtype=np.int64)
    for level in range(scale):
        row_bit = rng.random(num_edges) > ab
        col_bit = rng.random(num_edges) > np.where(row_bit, c_norm, a_norm)
        endpoints[0] += row_bit.astype(np.int64) << level
        endpoints[1] += col_bit.astype(np.int64) << level
    return endpoints


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=int, nargs="+", default=[20, 22])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()

    print(f"# {describe_computer()}")
    print(f"{'scale':>5} {'edges':>12} {'baseline s':>11} {'simbfs s':>9} "
          f"{'baseline Me/s':>14} {'simbfs Me/s':>12} {'ratio':>6}")
    for scale in args.scales:
        edges = 16 << scale
        kronecker_edges(10)  # warm tables and imports outside the timing
        ours = best_time(lambda: kronecker_edges(scale), args.repeats)
        baseline = best_time(lambda: plain_numpy_kronecker(scale), args.repeats)
        print(f"{scale:>5} {edges:>12} {baseline:>11.2f} {ours:>9.2f} "
              f"{edges / baseline / 1e6:>14.1f} {edges / ours / 1e6:>12.1f} "
              f"{baseline / ours:>6.1f}x", flush=True)


if __name__ == "__main__":
    main()
