"""What the Sunway figure scripts share beyond experiments/lib.py: the
machine, the scale that gives a number of vertices per node, one projected
run, and the options of a projected figure."""

from __future__ import annotations

import math

from experiments import lib

MACHINE = "sunway_taihulight"
SEED = 1


def scale_for(nodes: int, per_node: float) -> int:
    """The Graph500 scale closest to ``per_node`` vertices on each of ``nodes``."""
    return round(math.log2(nodes * per_node))


def project(algorithm: str, nodes: int, scale: int, roots: int, profile_scale: int) -> dict:
    """One `simbfs run sunway_taihulight --mode project`; the result document."""
    doc = lib.simulate(machine=MACHINE, nodes=nodes, scale=scale, roots=roots, seed=SEED, algorithm=algorithm,
                       mode="project", profile_scale=profile_scale)
    assert doc["mode"] == "projected"
    return doc


def projected_figure_options(doc: str, argv=None, profile_scale: int = 18, roots: int = 4):
    """The shared options (--quick, --out) and a projected figure's
    --roots and --profile-scale, parsed."""
    options = lib.parser(doc, MACHINE)
    options.add_argument("--roots", type=int, default=roots, help=f"search keys per point (default {roots})")
    options.add_argument("--profile-scale", type=int, default=profile_scale,
                         help=f"scale of the executed profile (default {profile_scale})")
    return options.parse_args(argv)
