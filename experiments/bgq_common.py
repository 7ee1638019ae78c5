"""What the BlueGene/Q figure scripts share: running simbfs on the
bluegene_q model, averaging per-level records over roots, and printing a
comparison with claims.yaml.

Sizes are what this 2-core machine can execute (scale 16-20 on 32-1,024
nodes), far below the paper's scale 34-40 on 1,024-65,536 nodes; every
script says so in its output, and none of them is a projection."""

from __future__ import annotations

import os
from collections import defaultdict

try:
    from experiments.common import ROOT, exit_on_user_error, out_dir, parser, pyplot, save_figure, write_csv  # noqa: F401
except ImportError:
    from common import ROOT, exit_on_user_error, out_dir, parser, pyplot, save_figure, write_csv  # noqa: F401

from simbfs.runner import RunConfig, run  # noqa: E402

RESULTS = ROOT / "results" / "bgq"
SEED = 1


def simulate(algorithm: str, nodes: int, scale: int, roots: int, overrides=()) -> dict:
    """One executed `simbfs run` on bluegene_q; the result document."""
    config = RunConfig(machine="bluegene_q", nodes=nodes, scale=scale, roots=roots, seed=SEED,
                       algorithm=algorithm, overrides=list(overrides),
                       cache_dir=os.environ.get("SIMBFS_CACHE"))
    doc = run(config)
    assert doc["all_valid"], f"{algorithm} produced an invalid BFS tree"
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
