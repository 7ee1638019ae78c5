"""BlueGene/Q Fig. 9 (seed 000, IV-B): the impact of each optimisation on
1,024 nodes.

Executed: cp1d-spi on a 1,024-node partition (4x4x4x8x2, twice the bisection
of larger partitions) with every optimisation off, then direction
optimisation, compression and load balancing added one at a time, and all
together. Claim compared: `bgq.optimisation_impact.1024` (trend: direction
optimisation gives by far the largest speedup, about an order of magnitude
more than compression or load balancing).

    python experiments/bluegene_q/fig9.py [--quick] [--out DIR]
"""

from __future__ import annotations
import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402
from experiments.bluegene_q.sweep import sweep  # noqa: E402

OFF = "direction-optimising=off,compression=off,load-balancing=off"
CONFIGS = [
    ("no optimisation", f"cp1d-spi:{OFF}"),
    ("+ direction optimisation", "cp1d-spi:compression=off,load-balancing=off"),
    ("+ compression", "cp1d-spi:direction-optimising=off,load-balancing=off"),
    ("+ load balancing", "cp1d-spi:direction-optimising=off,compression=off"),
    ("all three", "cp1d-spi"),
]
NODES, SCALE, ROOTS = 1024, 20, 4
QUICK = (32, 12, 2)


def main(argv=None):
    args = B.parser(__doc__).parse_args(argv)
    out = lib.out_dir(args)
    nodes, scale, roots = QUICK if args.quick else (NODES, SCALE, ROOTS)
    print(f"Fig. 9, {B.reduced_size_note(nodes, scale)}")
    rows = sweep("fig9_optimisations", f"Optimisations, cp1d-spi, {nodes} nodes, scale {scale} (simulated)",
                 [(label, algorithm, nodes, scale, ()) for label, algorithm in CONFIGS], roots, out)
    base = rows[0]["harmonic_mean_gteps"]
    gains = {r["configuration"]: r["harmonic_mean_gteps"] / base - 1 for r in rows[1:4]}
    for label, gain in gains.items():
        print(f"  {label:28s} speedup over none: {gain + 1:.2f}x")
    do = gains["+ direction optimisation"]
    others = max(gains["+ compression"], gains["+ load balancing"], 1e-9)
    print(f"  bgq.optimisation_impact.1024: direction optimisation's gain is {do / others:.0f}x the larger of the "
          f"other two -> {'as the paper says' if do > 3 * others else 'NOT as the paper says'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
