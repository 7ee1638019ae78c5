"""Shared helpers of the Cell BE experiments (seed 001): run the simulated
SPE BFS on the paper's directed uniform graphs and read the claims.

Every script writes PNG + CSV to results/cell/ and prints a comparison with
../shared/reference/claims.yaml. ``--quick`` runs a tiny size (tests)."""

from __future__ import annotations

from functools import lru_cache


try:
    from experiments.common import ROOT, exit_on_user_error, out_dir, parser, pyplot, write_csv  # noqa: F401  (re-exported)
except ImportError:
    from common import ROOT, exit_on_user_error, out_dir, parser, pyplot, write_csv  # noqa: F401  (re-exported)

from simbfs.algorithms import get_algorithm  # noqa: E402
from simbfs.bfs import validate_bfs_tree  # noqa: E402
from simbfs.engine import Simulation, TimelineRecorder  # noqa: E402
from simbfs.graph import GraphSpec, generate_graph, search_keys  # noqa: E402
from simbfs.machine import load_machine  # noqa: E402

RESULTS = ROOT / "results" / "cell"
CLOCK = 3.2e9


def parse_args(doc: str, argv=None):
    return parser(doc, RESULTS).parse_args(argv)


@lru_cache(maxsize=4)
def paper_graph(arity: float, scale: int, seed: int = 1):
    """The paper's graph (001, 5): arity uniform in [0, 2a], directed lists."""
    return generate_graph(GraphSpec("uniform", scale, arity=arity, seed=seed, directed=True))


def machine(overrides: tuple[str, ...] = ()):
    return load_machine("cell_be", list(overrides))


def run_cell(arity, scale, spes=8, algorithm="cell-overlap", roots=1, overrides=(), trace=False, seed=1):
    """Simulate ``roots`` searches; returns a dict with the harmonic-mean
    throughput (edges/s), per-kind busy seconds summed over SPEs, edges."""
    graph = paper_graph(arity, scale, seed)
    sim = Simulation(machine(tuple(overrides)), spes)
    alg = get_algorithm(algorithm)
    rates, busy, edges_total, time_total = [], {}, 0, 0.0
    recorder = None
    for root in search_keys(graph, roots, seed=seed):
        recorder = TimelineRecorder() if trace else None
        run = alg.run(sim, graph, int(root), **({"recorder": recorder} if trace else {}))
        report = validate_bfs_tree(graph, int(root), run.parent)
        if not report.ok:
            raise AssertionError(f"invalid BFS tree: {report.failures[0]}")
        edges = graph.input_edges_in_component(run.parent >= 0)
        rates.append(edges / run.time_s)
        edges_total += edges
        time_total += run.time_s
        if trace:
            for span in recorder.spans:
                busy[span.what] = busy.get(span.what, 0.0) + span.duration_s
    harmonic = len(rates) / sum(1.0 / r for r in rates)
    return {"teps": harmonic, "edges": edges_total, "time_s": time_total, "busy": busy,
            "vertices": graph.num_vertices, "recorder": recorder, "levels": run.levels}


def claim_line(claim_id: str, predicted: float, paper: float, tolerance: float | None, unit: str) -> str:
    error = (predicted - paper) / paper
    verdict = "" if tolerance is None else ("within tolerance" if abs(error) <= tolerance else "MISS")
    tol = "" if tolerance is None else f" (tolerance {tolerance:.0%})"
    return f"  {claim_id:<22} paper {paper:10.2f}  simbfs {predicted:10.2f} {unit:<10} error {error:+7.1%}{tol} {verdict}"
