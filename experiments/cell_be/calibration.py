"""Cell BE calibration: solve the Dispatch and Bitmap per-edge and per-portion
cycle costs from the two per-SPE rates of 001, 4 (Fig. 2) at arity 16 and 512
(claims cell.step.dispatch, cell.step.bitmap: kind calibration).

A portion is the non-empty part of an adjacency list bound for one SPE. With
arity k uniform in [0, 2a] and 8 SPEs, a list has on average
E[8 (1 - (7/8)^k)] portions. cycles/edge(a) = c_edge + c_portion * P(a) / a
through both points gives the values in simbfs/machines/cell_be.yaml
(spe.cycles.dispatch, spe.cycles.bitmap), which this script prints beside
the solution. The clock is the machine file's (node.clock).

    python experiments/cell_be/calibration.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from experiments import lib  # noqa: E402
from experiments.cell_be import cell as C  # noqa: E402

SPES = 8
# The paper's rates (ME/s per SPE, 8 SPEs contending), 001, 4
RATES = {"dispatch": {16: 42.34e6, 512: 984.23e6}, "bitmap": {16: 35.17e6, 512: 113.73e6}}
CURVE_ARITIES = (4, 8, 10, 16, 32, 64, 128, 256, 512, 1024)


def portions_per_list(arity: float, spes: int = SPES) -> tuple[float, float]:
    """(mean portions, mean edges) of a list whose arity is uniform in [0, 2a]."""
    k = np.arange(0, int(2 * arity) + 1)
    return float(np.mean(spes * (1 - (1 - 1 / spes) ** k))), float(np.mean(k))


def solve(step: str, clock_hz: float) -> tuple[float, float]:
    """(cycles per edge, cycles per portion) through the paper's two rates."""
    rows, rhs = [], []
    for arity, rate in RATES[step].items():
        portions, edges = portions_per_list(arity)
        rows.append([edges, portions])
        rhs.append(clock_hz / rate * edges)
    per_edge, per_portion = np.linalg.solve(rows, rhs)
    return float(per_edge), float(per_portion)


def main(argv=None):
    args = C.parse_args(__doc__, argv)
    out = lib.out_dir(args)
    lib.note_mode("modelled")  # equations of the model's costs, no search
    machine = C.machine()
    clock = machine.node.clock_hz
    cycles = machine.section("spe").cycles
    rows = []
    print(f"Calibration of the SPU steps at {clock / 1e9:g} GHz (node.clock of {machine.name}):")
    for step in RATES:
        per_edge, per_portion = solve(step, clock)
        model = getattr(cycles, step)
        rows.append({"step": step, "per_edge_cycles": per_edge, "per_portion_cycles": per_portion,
                     "machine_per_edge_cycles": model.per_edge_cycles,
                     "machine_per_portion_cycles": model.per_portion_cycles})
        print(f"  {step:<9} per_edge {per_edge:8.3f} cycles (machine file {model.per_edge_cycles:g})  "
              f"per_portion {per_portion:8.2f} cycles (machine file {model.per_portion_cycles:g})")
    for arity in (10, 16, 512):
        print(f"  arity {arity}: {portions_per_list(arity)[0]:.2f} portions per list")

    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    arities = np.array(CURVE_ARITIES, dtype=float)
    for row in rows:
        rate = [clock / (row["per_edge_cycles"] + row["per_portion_cycles"] * portions_per_list(a)[0]
                         / portions_per_list(a)[1]) / 1e6 for a in arities]
        line, = ax.plot(arities, rate, label=f"{row['step']}: fitted cost")
        points = RATES[row["step"]]
        ax.plot(list(points), [r / 1e6 for r in points.values()], "o", color=line.get_color(),
                label=f"{row['step']}: paper (001, 4)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("average arity a")
    ax.set_ylabel("ME/s per SPE")
    ax.set_title("Dispatch and Bitmap rates from the calibrated cycle costs")
    ax.legend(fontsize=7)
    lib.save(fig, rows, out, "calibration")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
