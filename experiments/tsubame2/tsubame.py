"""What the TSUBAME 2.0 figure scripts (seed 004, Ueno & Suzumura) share
beyond experiments/lib.py: the machine, the paper's weak-scaling sizes
(scale 23 per GPU, 64 to 4,096 GPUs = MPI processes), one projected run
through the runner (``project``), sums over a result document's levels, and
``project_levels``: the same projection through
simbfs.algorithms.ueno2d.project.Projector, keeping what the document does
not hold (each level's counts, kernel times and expand seconds)."""

from __future__ import annotations

import math
import os
from functools import lru_cache

from experiments import lib
from simbfs.algorithms import get_algorithm
from simbfs.algorithms.ueno2d.project import Projector
from simbfs.algorithms.ueno2d.work import grid_shape
from simbfs.engine import Simulation
from simbfs.graph import GraphSpec, load_graph, search_keys
from simbfs.machine import load_machine

MACHINE = "tsubame2"
SEED = 1
EDGEFACTOR = 16  # Graph500's, 004 VI-C
GPUS = (64, 128, 256, 512, 1024, 2048, 4096)  # 004, Table 1 and Figs. 6-13 (MPI processes, one GPU each)
SCALE_PER_GPU = 23  # 004, VI-C: "the maximum problem size we can solve on GPU memory is Scale 23 per GPU"
# --quick: every size of the paper, profiled at scale 12 with 2 roots (a tenth of a second a point)
QUICK = {"gpus": GPUS, "roots": 2, "profile_scale": 12}
TWO_PER_HOST = "network.processes_per_host=2"  # 004, Fig. 13's 2 GPUs per node


def scale_for(gpus: int) -> int:
    """The paper's weak-scaling size: scale 23 per GPU, 23 + log2(GPUs)."""
    if gpus < 1 or gpus & (gpus - 1):
        raise ValueError(f"the paper's GPU counts are powers of two, got {gpus}")
    return SCALE_PER_GPU + int(math.log2(gpus))


def grid(gpus: int) -> tuple[int, int]:
    """(R, C) of the model's process grid (ueno2d's grid_shape)."""
    return grid_shape(gpus)


def project(algorithm: str, gpus: int, scale: int, roots: int, profile_scale: int, overrides=()) -> dict:
    """One `simbfs run tsubame2 --mode project`; the result document."""
    doc = lib.simulate(machine=MACHINE, nodes=gpus, scale=scale, roots=roots, seed=SEED, algorithm=algorithm,
                       mode="project", profile_scale=profile_scale, overrides=list(overrides))
    assert doc["mode"] == "projected"
    return doc


def level_sums(doc: dict, field: str) -> dict:
    """{root: sum over that root's levels of ``field``} of a result document."""
    sums: dict = {}
    for level in doc["levels"]:
        sums[level["root"]] = sums.get(level["root"], 0.0) + level[field]
    return sums


def level_sum(doc: dict, field: str, root: int | None = None) -> float:
    """Sum of ``field`` over one root's levels, or (``root`` None) the mean
    over the roots of that sum: a value "per BFS"."""
    sums = level_sums(doc, field)
    if root is not None:
        return sums[root]
    return sum(sums.values()) / len(sums)


def figure_options(doc: str, argv=None, profile_scale: int = 18, roots: int = 4):
    """The shared options (--quick, --out) and a projected figure's --roots
    and --profile-scale, parsed."""
    options = lib.parser(doc, MACHINE)
    options.add_argument("--roots", type=int, default=roots, help=f"search keys per point (default {roots})")
    options.add_argument("--profile-scale", type=int, default=profile_scale,
                         help=f"scale of the executed profile (default {profile_scale})")
    return options.parse_args(argv)


def sizes(args) -> tuple[tuple[int, ...], int, int]:
    """(GPU counts, roots, profile scale) of a weak-scaling figure."""
    if args.quick:
        return QUICK["gpus"], QUICK["roots"], QUICK["profile_scale"]
    return GPUS, args.roots, args.profile_scale


@lru_cache(maxsize=2)
def profile_graph(profile_scale: int):
    """The profile graph the runner loads for a projection (runner._project)."""
    spec = GraphSpec(kind="kronecker", scale=profile_scale, edgefactor=EDGEFACTOR, seed=SEED)
    return load_graph(spec, os.environ.get("SIMBFS_CACHE"))


def project_levels(algorithm: str, gpus: int, scale: int, roots: int, profile_scale: int, overrides=()) -> dict:
    """The projection of `simbfs run tsubame2 --mode project` (runner._project
    and ueno2d's Projector.root), keeping through the walk's ``on_level``
    what each level's Projector.level returns beside its record: the mean
    and busiest process's Counts, and the busiest process's LevelTimes and
    expand seconds (its pricing.LevelPrice). Returns {"gpus", "hosts", "R",
    "C", "scale", "roots": [{"root", "edges", "time_s", "teps", "levels":
    [{"record", "mean", "busiest", "times", "expand_s"}]}]}; the roots'
    times are those of the runner's document (tests check)."""
    lib.note_mode("projected")
    machine = load_machine(MACHINE, list(overrides))
    algo = get_algorithm(algorithm)
    algo.check(machine, 2**scale, gpus)
    sim = Simulation(machine, gpus)
    graph = profile_graph(profile_scale)
    keys = search_keys(graph, roots, seed=SEED)
    projector = Projector(graph, machine, sim.topology, algo.options, gpus, profile_scale, scale, EDGEFACTOR)
    out = []
    for root in (int(k) for k in keys):
        levels = []

        def keep(step, record, details, levels=levels):
            price = details["price"]
            levels.append({"record": record, "mean": details["mean"], "busiest": details["busiest"],
                           "times": price.times, "expand_s": float(price.expand_s)})

        walk = projector.root(root, on_level=keep)
        edges = walk.target_edges(graph, EDGEFACTOR, projector.n)
        out.append({"root": root, "edges": edges, "time_s": walk.time_s, "teps": edges / walk.time_s,
                    "levels": levels})
    return {"gpus": gpus, "hosts": machine.network.hosts(gpus), "R": projector.R, "C": projector.C, "scale": scale,
            "roots": out}


def per_bfs(projection: dict, value) -> float:
    """Mean over the roots of ``value(level)`` summed over the root's levels
    (``level`` an entry of project_levels' "levels")."""
    sums = [sum(value(level) for level in r["levels"]) for r in projection["roots"]]
    return sum(sums) / len(sums)
