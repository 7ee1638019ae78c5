"""What the BlueGene/Q figure scripts share beyond experiments/lib.py:
running simbfs on the bluegene_q model and averaging per-level records over
roots.

Executed sizes are what this 2-core machine can run (scale 12-20 on 32-1,024
nodes), far below the paper's scale 34-40 on 1,024-65,536 nodes; every
script says so in its output. Projected points (``--mode project``) are
labelled as such wherever they appear."""

from __future__ import annotations

import argparse
from collections import defaultdict

from experiments import lib

MACHINE = "bluegene_q"
RESULTS = lib.results_dir(MACHINE)
SEED = 1
# The machine file the scripts run on: bluegene_q unless --machine names
# another (bluegene_q_calibrated, or a user's what-if file). Set afresh by
# every parser(), so one script's choice does not leak into the next.
_machine = {"name": MACHINE}


class _UseMachine(argparse.Action):
    def __call__(self, parser, namespace, value, option_string=None):
        _machine["name"] = value
        setattr(namespace, self.dest, value)


def parser(doc: str, quick_help: str = "tiny sizes (seconds), for the tests"):
    _machine["name"] = MACHINE
    result = lib.parser(doc, MACHINE, quick_help)
    result.add_argument("--machine", default=MACHINE, action=_UseMachine,
                        help=f"machine file to run on (default {MACHINE}; e.g. bluegene_q_calibrated, whose "
                             f"predictions are calibrated on bgq.1d.4096: give it its own --out)")
    return result


def machine() -> str:
    """The machine file this script runs on (see parser)."""
    return _machine["name"]


def simulate(algorithm: str, nodes: int, scale: int, roots: int, overrides=(), **fields) -> dict:
    """One executed `simbfs run` on the script's machine (bluegene_q unless
    --machine says otherwise); the result document."""
    return lib.simulate(machine=machine(), nodes=nodes, scale=scale, roots=roots, seed=SEED, algorithm=algorithm,
                        overrides=list(overrides), **fields)


def project(algorithm: str, nodes: int, scale: int, roots: int, profile_scale: int) -> dict:
    """One `simbfs run --mode project` on bluegene_q; the result document."""
    doc = simulate(algorithm, nodes, scale, roots, mode="project", profile_scale=profile_scale)
    assert doc["mode"] == "projected"
    return doc


def gteps(doc: dict, statistic: str = "harmonic_mean") -> float:
    return doc["teps"][statistic] / 1e9


def level_means(doc: dict, *fields: str) -> list[dict]:
    """Per level: the mean over roots of each field (roots without the
    level count as zero), plus how many roots reached it."""
    roots = {level["root"] for level in doc["levels"]}
    sums = defaultdict(lambda: defaultdict(float))
    reached = defaultdict(int)
    directions = defaultdict(lambda: defaultdict(int))
    for level in doc["levels"]:
        k = level["level"]
        reached[k] += 1
        directions[k][level["direction"]] += 1
        for field in fields:
            sums[k][field] += level[field]
    rows = []
    for k in sorted(sums):
        row = {"level": k, "roots_reaching": reached[k],
               "direction": max(directions[k], key=directions[k].get)}
        row.update({field: sums[k][field] / len(roots) for field in fields})
        rows.append(row)
    return rows


def reduced_size_note(nodes, scale) -> str:
    return (f"executed at scale {scale} on {nodes} nodes; the paper measured scale 34-40 on 1,024-65,536 "
            f"nodes, so compare trends, not values")
