"""Wall time of a simbfs run against scipy's BFS on the same graph.

The bars: `simbfs run bluegene_q --nodes 1024 --scale 20 --roots 1
--algorithm bsp1d-do` (the generic direction-optimising 1D code) takes at
most 3x the time of `scipy.sparse.csgraph.breadth_first_order` on the same
graph, in the same process (issue 2), and at most 2x (issue 16). The graph
is generated (and cached) first, so neither side pays for
generation; the simbfs side is the whole command as a user runs it: loading
the cached graph, choosing the search key, simulating 1,024 node processes,
validating the tree and writing the report. The parts are timed separately
too.

    python benchmarks/bench_engine.py [--scale 20] [--nodes 1024] [--repeats 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order

from _common import best_time, describe_computer

from simbfs.algorithms import get_algorithm
from simbfs.bfs import validate_bfs_tree
from simbfs.cli import main as simbfs_main
from simbfs.engine import Simulation
from simbfs.graph import GraphSpec, load_graph, search_keys
from simbfs.machine import load_machine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=1024)
    parser.add_argument("--machine", default="bluegene_q")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--algorithm", default="bsp1d-do",
                        help="the algorithm of the command and of the parts (default bsp1d-do, which the bars name; "
                             "the machine's own default may be another)")
    args = parser.parse_args()

    spec = GraphSpec("kronecker", args.scale)
    start = time.perf_counter()
    graph = load_graph(spec)  # generates and caches on the first call
    print(f"graph ready (generate or load): {time.perf_counter() - start:.2f} s")
    root = int(search_keys(graph, 1)[0])
    matrix = csr_matrix((np.ones(len(graph.indices), dtype=np.int8), graph.indices, graph.indptr),
                        shape=(graph.num_vertices, graph.num_vertices))

    scipy_s = best_time(lambda: breadth_first_order(matrix, root, directed=True, return_predecessors=True),
                        args.repeats)
    command = ["run", args.machine, "--nodes", str(args.nodes), "--scale", str(args.scale),
               "--roots", "1", "--quiet", "--algorithm", args.algorithm]

    def whole_command():
        with contextlib.redirect_stdout(io.StringIO()):
            assert simbfs_main(command) == 0

    command_s = best_time(whole_command, args.repeats)

    def without_validation():
        with contextlib.redirect_stdout(io.StringIO()):
            assert simbfs_main(command + ["--no-validate"]) == 0

    unvalidated_s = best_time(without_validation, args.repeats)
    load_s = best_time(lambda: load_graph(spec), args.repeats)
    sim = Simulation(load_machine(args.machine), args.nodes)
    algorithm = get_algorithm(args.algorithm)
    result = algorithm.run(sim, graph, root)
    simulate_s = best_time(lambda: algorithm.run(sim, graph, root), args.repeats)
    validate_s = best_time(lambda: validate_bfs_tree(graph, root, result.parent), args.repeats)

    print(f"# {describe_computer()}")
    print(f"workload: kronecker scale {args.scale} ({graph.num_vertices:,} vertices, "
          f"{len(graph.indices):,} CSR entries), {args.machine} with {args.nodes} nodes, {args.algorithm}, "
          f"root {root}, "
          f"{len(result.levels)} levels; best of {args.repeats}")
    print(f"{'part':<34}{'seconds':>9}{'x scipy':>9}")
    rows = [
        ("scipy breadth_first_order", scipy_s),
        ("simbfs run (whole command)", command_s),
        ("simbfs run --no-validate", unvalidated_s),
        ("  load cached graph", load_s),
        ("  simulate (1 root, all nodes)", simulate_s),
        ("  validate (5 Graph500 rules)", validate_s),
    ]
    for name, seconds in rows:
        print(f"{name:<34}{seconds:>9.3f}{seconds / scipy_s:>9.2f}")
    for name, seconds, bar in (("whole command", command_s, 3), ("whole command", command_s, 2),
                               ("simulation alone", simulate_s, 3)):
        verdict = "meets" if seconds / scipy_s <= bar else "MISSES"
        print(f"bar (<= {bar}x scipy), {name}: {seconds / scipy_s:.2f}x, {verdict} it")


if __name__ == "__main__":
    main()
