"""How much each unsourced BlueGene/Q parameter moves a prediction: every
parameter of simbfs/machines/bluegene_q.yaml whose source is an estimate (and the
memory bandwidth, whose sustained fraction no public measurement gives) is
halved and doubled in turn, and the harmonic-mean TEPS is compared with the
unchanged machine's.

PROJECTED by default: the paper's 4,096 nodes at scale 36 (cp1d-spi), from
a scale-18 profile; --nodes/--scale/--algorithm choose another run. A
parameter that moves nothing is listed as such (it belongs to another
algorithm, or its term is hidden behind a larger one).

    python experiments/bluegene_q/sensitivity.py [--quick] [--nodes 4096 --scale 36 --algorithm cp1d-spi]
"""

from __future__ import annotations

# Not a figure of the paper: a check of simbfs itself, run by hand or with
# `simbfs reproduce --include-validation` (simbfs/reproduce.py reads this line).
VALIDATION = True

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402
from simbfs.calibration import _quantity  # noqa: E402
from simbfs.machine import load_machine  # noqa: E402
from simbfs.machine import schema as S  # noqa: E402

FACTORS = (0.5, 2.0)
# sourced, but its sustained fraction is unknown (docs/background/cp1d.md)
ALSO = ("node.memory_bandwidth",)
QUICK = {"nodes": 64, "scale": 16, "roots": 2, "profile_scale": 12, "keys": 3}


def uncertain_keys(machine) -> list[str]:
    """The parameters whose source is an estimate, and ALSO."""
    keys = [key for key, source in machine.sources.items() if str(source).startswith("estimate")]
    return keys + [key for key in ALSO if key in machine.values and key not in keys]


def override(key: str, value: float) -> str:
    spec = S.declaration(key)
    if spec.integer:
        return f"{key}={max(1, round(value))}"
    return f"{key}={_quantity(value, spec.kind)}"


def main(argv=None):
    options = B.parser(__doc__)
    options.add_argument("--nodes", type=int, default=4096)
    options.add_argument("--scale", type=int, default=36)
    options.add_argument("--algorithm", default="cp1d-spi")
    options.add_argument("--roots", type=int, default=4)
    options.add_argument("--profile-scale", type=int, default=18)
    args = options.parse_args(argv)
    out = lib.out_dir(args)
    nodes, scale, roots, profile = args.nodes, args.scale, args.roots, args.profile_scale
    if args.quick:
        nodes, scale, roots, profile = QUICK["nodes"], QUICK["scale"], QUICK["roots"], QUICK["profile_scale"]
    machine = load_machine(B.machine())
    keys = uncertain_keys(machine)[:QUICK["keys"]] if args.quick else uncertain_keys(machine)

    def teps(overrides=()) -> float:
        doc = B.simulate(args.algorithm, nodes, scale, roots, overrides, mode="project", profile_scale=profile)
        return lib.harmonic_mean(doc)

    started = time.time()
    base = teps()
    print(f"PROJECTED {args.algorithm} on {nodes:,} nodes at scale {scale} (profile scale {profile}, {roots} roots): "
          f"{base / 1e9:,.1f} GTEPS with the machine as shipped")
    rows = []
    for key in keys:
        value = float(machine.values[key])
        row = {"mode": "projected", "algorithm": args.algorithm, "nodes": nodes, "scale": scale, "key": key,
               "value": value, "source": machine.sources[key]}
        for factor in FACTORS:
            row[f"teps_x{factor:g}"] = teps([override(key, value * factor)])
            row[f"change_x{factor:g}"] = row[f"teps_x{factor:g}"] / base - 1
        rows.append(row)
        print(f"  {key:40s} x0.5: {row['change_x0.5']:+7.1%}   x2: {row['change_x2']:+7.1%}")
    rows.sort(key=lambda r: -max(abs(r["change_x0.5"]), abs(r["change_x2"])))
    lib.save(tornado(rows, f"PROJECTED {args.algorithm}, {nodes:,} nodes, scale {scale}: "
                           f"{base / 1e9:,.0f} GTEPS as shipped"),
             rows, out, f"sensitivity_{args.algorithm}_{nodes}_{scale}")
    print(f"({time.time() - started:.0f} s)")
    return rows


def tornado(rows: list[dict], title: str):
    """One bar pair per parameter: the TEPS change when it is halved and
    when it is doubled, the most influential at the top."""
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.5))
    labels = [r["key"] for r in rows][::-1]
    y = range(len(labels))
    ax.barh(y, [100 * r["change_x0.5"] for r in rows][::-1], color="tab:blue", label="halved")
    ax.barh(y, [100 * r["change_x2"] for r in rows][::-1], color="tab:orange", label="doubled", alpha=0.8)
    ax.set_yticks(list(y), labels, fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("change of the harmonic-mean TEPS (%)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    return fig


if __name__ == "__main__":
    lib.exit_on_user_error(main)
