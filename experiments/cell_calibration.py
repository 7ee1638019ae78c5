"""Cell BE calibration: solve the Dispatch and Bitmap per-edge and per-portion
cycle costs from the two per-SPE rates of 001, 4 (Fig. 2) at arity 16 and 512
(claims cell.step.dispatch, cell.step.bitmap: kind calibration).

A portion is the non-empty part of an adjacency list bound for one SPE. With
arity k uniform in [0, 2a] and 8 SPEs, a list has on average
E[8 (1 - (7/8)^k)] portions. cycles/edge(a) = c_edge + c_portion * P(a) / a
through both points gives the values in machines/cell_be.yaml."""

from __future__ import annotations

import numpy as np

# Parameters: the paper's rates (ME/s per SPE, 3.2 GHz, 8 SPEs contending).
CLOCK = 3.2e9
SPES = 8
RATES = {"dispatch": {16: 42.34e6, 512: 984.23e6}, "bitmap": {16: 35.17e6, 512: 113.73e6}}


def portions_per_list(arity: float, spes: int = SPES) -> tuple[float, float]:
    k = np.arange(0, int(2 * arity) + 1)
    return float(np.mean(spes * (1 - (1 - 1 / spes) ** k))), float(np.mean(k))


def solve(step: str) -> tuple[float, float]:
    rows, rhs = [], []
    for arity, rate in RATES[step].items():
        portions, edges = portions_per_list(arity)
        rows.append([edges, portions])
        rhs.append(CLOCK / rate * edges)
    per_edge, per_portion = np.linalg.solve(rows, rhs)
    return float(per_edge), float(per_portion)


def main(argv=None):
    for step in RATES:
        per_edge, per_portion = solve(step)
        print(f"{step:<9} per_edge {per_edge:8.3f} cycles  per_portion {per_portion:8.2f} cycles")
    for arity in (10, 16, 512):
        print(f"arity {arity}: {portions_per_list(arity)[0]:.2f} portions per list")


if __name__ == "__main__":
    main()
