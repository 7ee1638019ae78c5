"""What every experiment script shares: its command line (``--quick``,
``--out``), its output folder (results/<machine>/), its runs (through
simbfs.runner, as the CLI runs them), its comparison with the papers'
claims, and the plotting tail (Agg backend, PNG + CSV).

Scripts live in one folder per machine (experiments/bluegene_q/,
experiments/cell_be/). They run as ``python experiments/<machine>/<name>.py``
and are imported by the tests as ``experiments.<machine>.<name>``; each has
a ``main(argv)`` that returns its rows. A script starts with

    if not __package__:  # run as a file: make `experiments` importable
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

and a per-machine helper module may sit beside the scripts (bluegene_q/bgq.py,
cell_be/cell.py).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from simbfs.claims import claim  # noqa: E402
from simbfs.errors import UserError  # noqa: E402
from simbfs.runner import RunConfig, run  # noqa: E402


def results_dir(machine: str) -> Path:
    """Where a machine's scripts write by default: results/<machine>/."""
    return ROOT / "results" / machine


def parser(doc: str, machine: str, quick_help: str = "tiny sizes (seconds), for the tests") -> argparse.ArgumentParser:
    """The shared options; a script may add its own before parsing."""
    result = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0] if doc else None)
    result.add_argument("--quick", action="store_true", help=quick_help)
    result.add_argument("--out", default=str(results_dir(machine)),
                        help=f"directory for the PNG and CSV (default {results_dir(machine)})")
    return result


def parse_args(doc: str, machine: str, argv=None):
    return parser(doc, machine).parse_args(argv)


def out_dir(args) -> Path:
    path = Path(args.out)
    path.mkdir(parents=True, exist_ok=True)
    return path


def simulate(config: RunConfig | None = None, **fields) -> dict:
    """One `simbfs run` (a RunConfig, or its fields): the result document.
    Graphs are cached in $SIMBFS_CACHE when it is set; an executed run
    whose BFS trees do not validate is an error, not a data point."""
    if config is None:
        fields.setdefault("cache_dir", os.environ.get("SIMBFS_CACHE"))
        config = RunConfig(**fields)
    doc = run(config)
    MODES.add(doc["mode"])
    if doc.get("calibrated_on"):
        if doc["calibrated_on"] not in _calibrated:
            print(f"CALIBRATED: {doc['machine']} is calibrated on {doc['calibrated_on']}; "
                  f"its numbers are calibrated, not predicted")
        _calibrated.add(doc["calibrated_on"])
    if doc["mode"] == "executed" and doc["validated"] and not doc["all_valid"]:
        raise AssertionError(f"{doc['algorithm']} on {doc['machine']} produced an invalid BFS tree")
    return doc


def harmonic_mean(doc: dict, unit: float = 1.0) -> float:
    """The Graph500 ranking figure (harmonic mean of the roots' TEPS), in ``unit``s."""
    return doc["teps"]["harmonic_mean"] / unit


# Every comparison this process printed, in order (`simbfs reproduce`
# collects them per script for its claims table).
COMPARISONS: list[dict] = []

# How this process's numbers were obtained (`simbfs reproduce` gives them per
# claim, in its mode column): "executed" or "projected", the mode of each
# `simbfs run` (simulate adds it), and "modelled" for a part of the machine
# model evaluated on its own, with no search run (a DMA stream, an exchange,
# a formula); a script that computes without simulate says which with
# note_mode. Kept in this order.
MODE_ORDER = ("executed", "projected", "modelled")
MODES: set[str] = set()


def note_mode(mode: str) -> None:
    """Record that this process computed numbers in ``mode`` (one of
    MODE_ORDER) without simulate: "modelled" for a part of the machine
    model on its own, "executed" or "projected" for a search done outside
    the runner (a reference BFS counting edges on the whole graph, a
    projection re-done level by level)."""
    if mode not in MODE_ORDER:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODE_ORDER)}")
    MODES.add(mode)


def _modes(mode: str | None) -> list[str]:
    """The modes behind a comparison: ``mode`` if the script says (a
    script whose runs mix modes compares each set on its own), else every
    mode this process has computed in so far."""
    if mode is None:
        return [m for m in MODE_ORDER if m in MODES]
    if mode not in MODE_ORDER:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODE_ORDER)}")
    if mode != "modelled" and mode not in MODES:
        raise ValueError(f"a comparison said to be {mode}, but no run of this script was {mode}")
    return [mode]


def compare(label: str, simbfs: float, paper: float, tolerance: float | None = None, unit: str = "",
            quiet: bool = False, claim_id: str | None = None, mode: str | None = None) -> dict:
    """Paper against simbfs: prints one line (paper, simbfs, relative error,
    tolerance and verdict) and returns them. Without a tolerance there is
    no verdict, only the error. ``mode`` says how simbfs's number was
    obtained when this process's modes so far would say more (see MODES)."""
    error = simbfs / paper - 1
    verdict = "" if tolerance is None else ("within" if abs(error) <= tolerance else "MISS")
    if not quiet:
        tol = "" if tolerance is None else f" tolerance {tolerance:4.0%} -> {verdict}"
        print(f"  {label:<28} paper {paper:>10.6g}  simbfs {simbfs:>10.6g} {unit:<10} error {error:+8.1%}{tol}")
    result = {"paper": paper, "simbfs": simbfs, "error": error, "tolerance": tolerance, "verdict": verdict}
    COMPARISONS.append({"label": label, "claim": claim_id, "unit": unit, **result, "modes": _modes(mode),
                        "calibrated_on": sorted(_calibrated)})
    return result


def trend(claim_id: str, holds: bool, detail: str, label: str | None = None, judged: bool = True,
          quiet: bool = False, mode: str | None = None) -> dict:
    """A trend claim (claims.yaml kind ``trend``, or an exact one checked by
    its rule) checked as a yes/no: prints ``label: detail -> verdict`` and
    records it for `simbfs reproduce`. The verdict is ``reproduced`` or
    ``NOT reproduced``; ``judged=False`` marks a check that does not decide
    the claim (a reduced size the paper did not run), which is shown
    without a verdict; ``mode`` as in compare."""
    verdict = ("reproduced" if holds else "NOT reproduced") if judged else ""
    if not quiet:
        print(f"  {label or claim_id}: {detail}" + (f" -> {verdict}" if verdict else " (does not decide the claim)"))
    result = {"label": label or claim_id, "claim": claim_id, "unit": "", "paper": None, "simbfs": None,
              "error": None, "tolerance": None, "verdict": verdict, "detail": detail}
    COMPARISONS.append({**result, "modes": _modes(mode), "calibrated_on": sorted(_calibrated)})
    return result


def compare_claim(claim_id: str, simbfs: float, unit: str = "", label: str | None = None, quiet: bool = False,
                  mode: str | None = None) -> dict:
    """``compare`` with the value and tolerance claims.yaml gives ``claim_id``."""
    c = claim(claim_id)
    return compare(label or claim_id, simbfs, c["value"], c.get("tolerance"), unit, quiet, claim_id=claim_id,
                   mode=mode)


# What the runs of this process were calibrated on (machine files written by
# `simbfs calibrate`): every CSV row then says so.
_calibrated: set[str] = set()


# --------------------------------------------------- projection checks
PROJECTION_BAR = 0.10  # the validation's bar: projected within 10% of executed
_EXECUTED: dict = {}


def projection_case(machine: str, algorithm: str, nodes: int, scale: int, profile_scale: int, roots: int,
                    count_key: str = "nodes", unit: str = "nodes") -> dict:
    """One check of a projection against execution: the run executed at
    (nodes, scale) and projected to it from a profile at ``profile_scale``,
    compared by Graph500 harmonic-mean TEPS. An executed run is kept for
    the cases that project it from other profile scales. Prints the case,
    marking a miss of ``PROJECTION_BAR``."""
    start = time.perf_counter()
    key = (machine, algorithm, nodes, scale, roots)
    if key not in _EXECUTED:
        _EXECUTED[key] = simulate(machine=machine, algorithm=algorithm, nodes=nodes, scale=scale, roots=roots,
                                  validate=False)
    executed = harmonic_mean(_EXECUTED[key], 1e9)
    projected = harmonic_mean(simulate(machine=machine, algorithm=algorithm, nodes=nodes, scale=scale, roots=roots,
                                       mode="project", profile_scale=profile_scale), 1e9)
    error = projected / executed - 1
    within = abs(error) <= PROJECTION_BAR
    print(f"{algorithm:32s} {nodes:5d} {unit} scale {scale} from {profile_scale}: executed {executed:8.3f}, "
          f"projected {projected:8.3f} GTEPS ({error:+.1%}){'' if within else '  MISS'}", flush=True)
    return {"mode": "executed vs projected", "algorithm": algorithm, count_key: nodes,
            "scale": scale, "profile_scale": profile_scale, "roots": roots, "executed_gteps": executed,
            "projected_gteps": projected, "error": error, "within_bar": within,
            "seconds": time.perf_counter() - start}


def plot_projection_check(rows: list[dict], out: Path, title: str, short: tuple, count_key: str, unit: str) -> None:
    """The errors of projection_case rows as bars, the bar's band dashed;
    prints the hits."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4))
    labels = [f"{r['algorithm'].replace(short[0], short[1])}\n{r[count_key]} {unit} "
              f"s{r['scale']}<-{r['profile_scale']}" for r in rows]
    ax.bar(range(len(rows)), [100 * r["error"] for r in rows],
           color=["tab:green" if r["within_bar"] else "tab:red" for r in rows])
    for bar in (-100 * PROJECTION_BAR, 100 * PROJECTION_BAR):
        ax.axhline(bar, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(rows)), labels, fontsize=6)
    ax.set_ylabel("projected / executed - 1 (%)")
    ax.set_title(title)
    save(fig, rows, out, "projection_check")
    hits = sum(row["within_bar"] for row in rows)
    print(f"{hits} of {len(rows)} within {PROJECTION_BAR:.0%}; {out / 'projection_check.csv'}")


def write_csv(path: Path, rows: list[dict]) -> None:
    if _calibrated:
        label = "; ".join(sorted(_calibrated))
        rows = [{"calibrated_on": label, **row} for row in rows]
    fields: list[str] = []
    for row in rows:  # every key of every row, in first-seen order
        fields.extend(key for key in row if key not in fields)
    with open(path, "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def pyplot():
    """matplotlib.pyplot on the Agg backend (files only, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: Path) -> None:
    """Lay out, write (PNG, 120 dpi) and close a matplotlib figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def save(fig, rows: list[dict], out: Path, name: str) -> None:
    """The plotting tail: ``name``.png and ``name``.csv in ``out``."""
    write_csv(out / f"{name}.csv", rows)
    save_figure(fig, out / f"{name}.png")


def exit_on_user_error(main) -> None:
    """Run a script's ``main``; a user's error (a missing claims file, an
    impossible size) is one line on stderr and exit status 2, as in the CLI."""
    try:
        main()
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(UserError.exit_status)
