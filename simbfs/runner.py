"""One `simbfs run`: machine + graph + algorithm -> a validated, Graph500-style result.

The harness (after GAP's benchmark.h): the algorithm, the validator and the
statistics are separate pieces handed to one loop over search keys. Every
size is checked before anything large is allocated, so an impossible run
fails in a second with a message, not after minutes with a MemoryError.

The result is a plain dict (the `--json` document): stable keys, flat
per-root and per-level records, no wall-clock times or dates, so the same
command and seed give a byte-identical document.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable


from . import __version__
from .algorithms import get_algorithm, origin
from .algorithms.base import ROOT_DONE
from .bfs import teps_statistics, validate_bfs_tree
from .claims import paper_comparisons
from .engine import NULL_RECORDER, Simulation
from .engine.recorder import LevelWatcher
from .errors import UserError
from .graph import GraphSpec, load_graph, search_keys
from .graph.memory import check_memory
from .machine import load_machine, machines_dir
from .machine.model import GraphDefaults
from .projection.profile_cache import DIRECTORY as PROFILE_DIRECTORY
from .projection.profile_cache import WorkLog, WorkProfileCache, work_key
from .records import RootRecord
from .report import machine_parameters
from .units import distinct_sizes

DEFAULT_ALGORITHM = "bsp1d-do"
# the graph of a machine file without graph: (Graph500's edge factor)
DEFAULT_GRAPH = GraphDefaults(kind="kronecker", scale=16, edgefactor=16, arity=16.0)
MAX_ROOTS = 64
# Without a progress bar, a level's end is a line only this long (wall
# clock) after the previous line: long roots show their levels, short ones
# one line per root.
LEVEL_LINE_AFTER_S = 5.0


@dataclass
class RunConfig:
    machine: str
    nodes: int | None = None
    # None: the machine file's graph: default, else DEFAULT_GRAPH
    scale: int | None = None
    graph: str | None = None
    edgefactor: int | None = None
    arity: float | None = None
    roots: int = 8
    seed: int = 1
    algorithm: str | None = None
    overrides: list[str] = field(default_factory=list)
    validate: bool = True
    cache_dir: str | None = None
    mode: str = "execute"  # or "project"
    profile_scale: int | None = None  # project: the scale of the executed BFS profile
    # Uniform graphs only: None lets the algorithm choose (the cell-*
    # algorithms run on the Cell paper's directed graphs, the others on
    # undirected ones).
    directed: bool | None = None
    # --mode project: keep the projection's work profile (in this process
    # and in the cache directory) and re-price it when only prices change
    # (projection/profile_cache.py); the document then says whether its work
    # was "computed" or "cached". Calibrations and sweeps set it.
    reuse_work: bool = False
    # Observes every algorithm's activity as spans (engine/recorder.py);
    # never changes timing, never enters the document.
    recorder: object = field(default=NULL_RECORDER, compare=False, repr=False)


def _nothing(_message: str) -> None:
    pass


def run(config: RunConfig, progress: Callable[[str], None] = _nothing, bar=None) -> dict:
    """Execute ``config`` and return the result document. ``progress``
    takes messages; ``bar(total, unit)``, when given, returns a callable
    that takes a label per finished item (a root) and None at the end (a
    progress bar), and replaces the per-root messages; if it has a
    ``note(text)`` method, each level's end is shown there.

    Two fields are added to what the simulation gives: ``paper_claims``,
    the claims whose setup this run is, with the paper's value beside the
    prediction; and ``wall_time_s``, how long the run took on this
    computer, the one field that differs between two runs of the same
    command."""
    started = time.perf_counter()
    doc = _simulate(config, progress, bar)
    doc["paper_claims"] = paper_comparisons(doc)
    doc["wall_time_s"] = round(time.perf_counter() - started, 3)
    return doc


def _simulate(config: RunConfig, progress: Callable[[str], None], bar) -> dict:
    if not 1 <= config.roots <= MAX_ROOTS:
        raise UserError(f"--roots must be between 1 and {MAX_ROOTS} (Graph500 uses 64), got {config.roots}")
    machine = load_machine(config.machine, config.overrides)
    nodes = config.nodes if config.nodes is not None else machine.default_nodes
    config.recorder.check_nodes(nodes)
    algorithm = get_algorithm(config.algorithm or machine.algorithm or DEFAULT_ALGORITHM)
    spec = _graph_spec(config, machine, algorithm)
    directed = spec.directed
    if directed and not algorithm.directed_graphs:
        raise UserError(f"{algorithm.name} needs an undirected graph (its bottom-up levels look for a parent "
                        f"among a vertex's neighbours, which a directed adjacency list does not hold); "
                        f"drop --directed, or use an algorithm that takes directed graphs (cell-bsp, cell-overlap)")
    projecting = config.mode == "project"
    if config.profile_scale is not None and not projecting:
        raise UserError("--profile-scale only applies to --mode project; drop it, or add --mode project")
    if projecting:
        _projection(algorithm)  # a clear error before anything is loaded
    _check_sections(machine, algorithm)
    sim = Simulation(machine, nodes)
    warnings = _check_fits_machine(spec, machine, nodes, algorithm) + _declared_non_effects(config, machine, algorithm)
    algorithm.check(machine, spec.num_vertices(), nodes)
    if projecting:
        return _project(config, machine, nodes, algorithm, spec, sim, progress, warnings, bar)

    graph = load_graph(spec, config.cache_dir, progress=progress)
    keys = search_keys(graph, config.roots, seed=config.seed)
    if len(keys) == 0:
        raise UserError("the graph has no vertex with an edge to start a search from; use a larger --scale or --arity")
    if len(keys) < config.roots:
        progress(f"only {len(keys)} vertices have an edge: running {len(keys)} roots, not {config.roots}")

    roots: list[RootRecord] = []
    levels: list[dict] = []
    elapsed = 0.0
    advance = bar(len(keys), "roots") if bar is not None else None
    last_line = [0.0]

    def level_done(record) -> None:
        text = (f"root {i}/{len(keys)}: level {record.level} ({record.direction}, "
                f"{record.frontier_vertices:,} frontier vertices) done")
        if advance is not None and hasattr(advance, "note"):
            advance.note(text)
        elif advance is None and time.monotonic() - last_line[0] >= LEVEL_LINE_AFTER_S:
            progress(text)
            last_line[0] = time.monotonic()

    recorder = LevelWatcher(config.recorder, level_done)
    for i, root in enumerate(keys, start=1):
        if advance is None:
            progress(f"root {i}/{len(keys)}: vertex {int(root)}")
            last_line[0] = time.monotonic()
        config.recorder.begin_root(int(root), elapsed)
        result = algorithm.run(sim, graph, int(root), recorder=recorder)
        elapsed += result.time_s
        edges = graph.input_edges_in_component(result.parent >= 0)
        valid, failures = None, []
        if config.validate:
            report = validate_bfs_tree(graph, int(root), result.parent)
            valid, failures = bool(report.ok), list(report.failures)
            if not report.ok:
                progress(f"root {int(root)}: BFS tree INVALID: {failures[0]}")
        teps = edges / result.time_s if result.time_s > 0 else 0.0
        roots.append(RootRecord(root=int(root), edges=int(edges), time_s=result.time_s, teps=teps,
                                valid=valid, levels=len(result.levels), validation_failures=failures))
        levels.extend(level.as_dict() for level in result.levels)
        if advance is not None:
            advance(f"vertex {int(root)}: {len(result.levels)} levels, {teps / 1e9:.4g} GTEPS")
    if advance is not None:
        advance(None)

    return _document(config, machine, nodes, algorithm, spec, sim, roots, levels,
                     vertices=graph.num_vertices, input_edges=int(graph.num_input_edges),
                     mode="executed", validated=config.validate, warnings=warnings)


def _document(config: RunConfig, machine, nodes: int, algorithm, spec: GraphSpec, sim: Simulation,
              roots: list[RootRecord], levels: list[dict], *, vertices: int, input_edges: int,
              mode: str, validated: bool, projection: dict | None = None,
              warnings: list[str] = ()) -> dict:
    """The result document: the same keys whether executed or projected.
    ``warnings``: what the user should know about the run's validity (a
    memory estimate within its uncertainty of a node's memory, say)."""
    doc = {
        "simbfs_version": __version__,
        "mode": mode,
        "machine": machine.name,
        "machine_file": _stable_origin(machine.origin),
        "overrides": list(config.overrides),
        "calibrated_on": machine.calibrated_on,
        # every parameter as resolved (extends and --set applied), with its source
        "machine_parameters": machine_parameters(machine),
        "nodes": nodes,
        # physical hosts: nodes / network.processes_per_host (TSUBAME: 3 GPU processes per host)
        "hosts": machine.network.hosts(nodes),
        "topology": sim.topology.describe(),
        "algorithm": algorithm.name,
        # "paper": the machine's paper's own code; "other paper"; "generic" (bsp1d-*)
        "algorithm_origin": origin(algorithm, machine),
        "scale": spec.scale,
        "graph": {
            "kind": spec.kind,
            "scale": spec.scale,
            "edgefactor": spec.edgefactor if spec.kind == "kronecker" else None,
            "arity": spec.arity if spec.kind == "uniform" else None,
            "directed": spec.directed,
            "seed": spec.seed,
            "vertices": vertices,
            "input_edges": input_edges,
        },
        "warnings": list(warnings),
        "validated": validated,
        "all_valid": all(r.valid for r in roots) if validated else None,
        "teps": teps_statistics([r.teps for r in roots]),
        "roots": [r.as_dict() for r in roots],
        "levels": levels,
    }
    if projection is not None:
        doc["projection"] = projection
    return doc


def _declared_non_effects(config: RunConfig, machine, algorithm) -> list[str]:
    """A --set that the machine file says cannot change this algorithm's
    time (its non_effects), with the file's reason: a what-if whose
    answer is "nothing moved" should say why."""
    keys = dict.fromkeys(override.partition("=")[0].strip() for override in config.overrides)
    return [f"--set {key} does not change {algorithm.name.partition(':')[0]}'s time on {machine.name}: {reason} "
            f"(the machine file's non_effects)"
            for key in keys if (reason := machine.non_effect(key, algorithm.name))]


DEFAULT_PROFILE_SCALE = 20
MIN_PROFILE_SCALE = 10


def _project(config: RunConfig, machine, nodes: int, algorithm, spec: GraphSpec, sim: Simulation,
             progress: Callable[[str], None], warnings: list[str] = (), bar=None) -> dict:
    """--mode project: predict the run from a BFS profile at a smaller scale."""
    if spec.kind != "kronecker":
        raise UserError("--mode project models how Graph500 Kronecker graphs change with scale; "
                        "use --graph kronecker, or execute the uniform graph")
    profile_scale = config.profile_scale or min(spec.scale, DEFAULT_PROFILE_SCALE)
    projection = _projection(algorithm)
    per_node = projection.profile_vertex_per_node
    if machine.network.processes_per_host > 1 and not projection.shared_hosts:
        raise UserError(f"{algorithm.name}'s projection prices one process per host, but {machine.name} runs "
                        f"{machine.network.processes_per_host} per host (network.processes_per_host); execute it, "
                        f"or project with --set network.processes_per_host=1")
    lowest = max(min(spec.scale, MIN_PROFILE_SCALE), (nodes - 1).bit_length() if per_node else 0)
    if profile_scale > spec.scale:
        raise UserError(f"--profile-scale {profile_scale} is larger than the target --scale {spec.scale}; the "
                        f"profile is a smaller graph whose search predicts the larger one: use --profile-scale "
                        f"{spec.scale} or less")
    if profile_scale < lowest:
        needs = f"{algorithm.name}'s profile needs at least as many vertices as nodes, and " if per_node else ""
        raise UserError(f"--profile-scale must be between {lowest} and the target --scale {spec.scale}, got "
                        f"{profile_scale}: {needs}below scale {MIN_PROFILE_SCALE} a graph's levels say little "
                        f"about a larger one")
    profile_spec = GraphSpec(kind=spec.kind, scale=profile_scale, edgefactor=spec.edgefactor, seed=spec.seed)
    check_memory(profile_spec, advice=f"use a smaller --profile-scale (the default is {DEFAULT_PROFILE_SCALE})")
    graph = _profile_graph(profile_spec, config, progress)
    keys = search_keys(graph, config.roots, seed=config.seed)
    progress(f"profiling {len(keys)} roots at scale {profile_scale} for {nodes} nodes at scale {spec.scale}")
    roots, levels = [], []
    hosts = {"processes": nodes} if projection.shared_hosts else {}
    advance = bar(len(keys), "roots") if bar is not None else None
    finished = [0]
    lock = threading.Lock()  # projections run their roots on threads

    def projection_progress(message: str) -> None:
        if not message.startswith(ROOT_DONE):
            progress(message)
            return
        with lock:
            finished[0] += 1
            if advance is not None:
                advance(f"vertex {message.split()[-1]}")
            else:
                progress(f"root {finished[0]}/{len(keys)} projected: vertex {message.split()[-1]}")

    def project(work: WorkLog) -> list:
        return projection.project(graph, keys, machine, sim.topology, algorithm, profile_scale, spec.scale,
                                  spec.edgefactor, projection_progress, work=work, **hosts)

    work_profile = None
    if config.reuse_work:
        identity = _work_identity(config, machine, nodes, algorithm, spec, profile_spec, keys, sim)
        projected, work_profile = _reusing_work(project, identity, config, progress)
    else:
        projected = project(WorkLog())
    if advance is not None:
        advance(None)
    for root, edges, time_s, records in projected:
        roots.append(RootRecord(root=root, edges=int(round(edges)), time_s=time_s,
                                teps=edges / time_s, valid=None, levels=len(records)))
        levels.extend(record.as_dict() for record in records)
    return _document(config, machine, nodes, algorithm, spec, sim, roots, levels,
                     vertices=spec.num_vertices(), input_edges=spec.num_input_edges_estimate(),
                     mode="projected", validated=False, warnings=warnings,
                     projection={"profile_scale": profile_scale, "profile_roots": "search keys of the profile graph",
                                 "method": "docs/background/projection.md",
                                 **({"work_profile": work_profile} if work_profile else {})})


# The profile graphs of this process's last projections: a calibration or
# a sweep worker projects the same profile again and again.
_PROFILE_GRAPHS: dict = {}
PROFILE_GRAPHS_KEPT = 2


def _profile_graph(profile_spec: GraphSpec, config: RunConfig, progress):
    """The profile graph, loaded once per process for runs that reuse work."""
    if not config.reuse_work:
        return load_graph(profile_spec, config.cache_dir, progress=progress)
    key = (profile_spec.cache_key(), str(config.cache_dir))
    graph = _PROFILE_GRAPHS.get(key)
    if graph is None:
        graph = load_graph(profile_spec, config.cache_dir, progress=progress)
        while len(_PROFILE_GRAPHS) >= PROFILE_GRAPHS_KEPT:
            _PROFILE_GRAPHS.pop(next(iter(_PROFILE_GRAPHS)))
        _PROFILE_GRAPHS[key] = graph
    return graph


def _work_identity(config: RunConfig, machine, nodes: int, algorithm, spec: GraphSpec, profile_spec: GraphSpec,
                   keys, sim: Simulation) -> dict:
    """Everything that changes a projection's work: the profile graph and
    its roots, the target's size, the algorithm and its options, and the
    machine parameters its projection declares as changing the work
    (Projection.work_parameters); not the others (the topology's shape and
    sizes among them), which only change prices (tests/test_repricing.py)."""
    projection = algorithm.projection
    return {
        "algorithm": algorithm.name.partition(":")[0], "options": repr(algorithm.options),
        "profile_graph": profile_spec.cache_key(), "roots": [int(k) for k in keys],
        "target": {"scale": spec.scale, "edgefactor": spec.edgefactor, "nodes": nodes},
        "machine": {key: machine.values[key] for key in sorted(machine.values) if projection.changes_work(key)},
    }


def _reusing_work(project: Callable, identity: dict, config: RunConfig, progress) -> tuple[list, str]:
    """``project(work_log)`` re-pricing the cached work of ``identity`` if
    there is one, else computing it and keeping it: (results, "cached" or
    "computed")."""
    from .graph.loading import default_cache_dir

    directory = Path(config.cache_dir) if config.cache_dir is not None else default_cache_dir()
    cache = WorkProfileCache(directory / PROFILE_DIRECTORY, progress)
    key = work_key(identity)
    log = cache.load(key)
    if log is None:
        with cache.lock(key):  # a sweep's other workers wait for it, then read it
            log = cache.load(key)
            if log is None:
                return _computing_work(project, cache, key), "computed"
    projected = project(log)
    if log.diverged:
        progress("the cached work profile does not apply to these prices (a claim timing claimed other "
                 "vertices); computing it afresh")
        return _computing_work(project, cache, key), "computed"
    return projected, "cached"


def _computing_work(project: Callable, cache, key: str) -> list:
    log = WorkLog()
    projected = project(log)
    if not log.diverged:
        cache.store(key, log)
    return projected


def _graph_spec(config: RunConfig, machine, algorithm) -> GraphSpec:
    """The graph to run: what the user gave, else the machine's default
    graph (its ``graph:``), else DEFAULT_GRAPH; options that do not apply to
    the graph's kind are refused rather than ignored."""
    default = machine.graph or DEFAULT_GRAPH
    kind = config.graph or default.kind
    same_kind = default.kind == kind
    scale = config.scale if config.scale is not None else (default.scale if same_kind else DEFAULT_GRAPH.scale)
    if kind == "kronecker":
        if config.arity is not None:
            raise UserError("--arity applies to uniform graphs (--graph uniform); the Graph500 Kronecker graph's "
                            "edges per vertex are set by --edgefactor; drop --arity, or add --graph uniform")
        if config.directed is not None:
            flag = "--directed" if config.directed else "--undirected"
            raise UserError(f"{flag} applies to uniform graphs (--graph uniform); the Graph500 Kronecker graph is "
                            f"always undirected; drop {flag}" + (", or add --graph uniform" if config.directed else ""))
    elif config.edgefactor is not None:
        raise UserError("--edgefactor applies to the Graph500 Kronecker graph; a uniform graph's size is set by "
                        "--arity (each vertex's arity is uniform in [0, 2A]); drop --edgefactor")
    fallback = default if same_kind else DEFAULT_GRAPH
    edgefactor = config.edgefactor or fallback.edgefactor or DEFAULT_GRAPH.edgefactor
    arity = config.arity or fallback.arity or DEFAULT_GRAPH.arity
    directed = config.directed
    if directed is None:
        directed = kind == "uniform" and algorithm.directed_graphs
    return GraphSpec(kind=kind, scale=scale, edgefactor=edgefactor, arity=arity, seed=config.seed,
                     directed=bool(directed))


def _projection(algorithm):
    """The algorithm's projection, or a UserError naming those that have one."""
    if algorithm.projection is None:
        from .algorithms import ALGORITHMS

        projectable = ", ".join(name for name, a in sorted(ALGORITHMS.items()) if a.projection is not None)
        raise UserError(f"--mode project is available for {projectable}, not for {algorithm.name}; execute it "
                        f"instead (--mode execute) at a size this computer can hold")
    return algorithm.projection


def _check_sections(machine, algorithm) -> None:
    """Refuse, before anything is generated, a machine without the sections
    the algorithm reads (a cp1d-* code on a machine with no ``cp1d:``)."""
    missing = [section for section in algorithm.requires if machine.section(section) is None]
    if missing:
        sections = " and ".join(f"`{s}:`" for s in missing)
        raise UserError(f"{algorithm.name.partition(':')[0]} needs the machine's {sections} section"
                        f"{'s' if len(missing) > 1 else ''}, which {machine.name} does not have; use "
                        f"{machine.algorithm or DEFAULT_ALGORITHM}, or add {'them' if len(missing) > 1 else 'it'} "
                        f"(see docs/reference/machine-files.md)")


def _stable_origin(origin: str) -> str:
    """Bundled machines by their name in machines/, so the document does
    not depend on where the project is checked out; user files as given."""
    path = Path(origin)
    if not os.environ.get("SIMBFS_MACHINES") and path.resolve().parent == machines_dir().resolve():
        return f"machines/{path.name}"
    return origin


def _check_fits_machine(spec: GraphSpec, machine, nodes: int, algorithm) -> list[str]:
    """Refuse graphs that the *simulated* machine could not hold; return a
    warning for one whose memory estimate is within the algorithm's stated
    uncertainty of a node's memory (it may or may not fit)."""
    n = spec.num_vertices()
    if nodes > n:
        raise UserError(f"{nodes} nodes for a graph of {n} vertices leaves nodes without a vertex; "
                        f"use --scale {max(1, (nodes - 1).bit_length())} or more, or fewer --nodes")

    def need(scale: int, count: int) -> float:
        at = replace(spec, scale=scale)
        return algorithm.node_memory_bytes(at.num_vertices(), 2 * at.num_input_edges_estimate(), count, machine,
                                           spec.kind)

    have = machine.node.memory_bytes
    needed = need(spec.scale, nodes)
    uncertainty = algorithm.memory_uncertainty
    if needed <= have * (1 - uncertainty):
        return []
    if needed <= have * (1 + uncertainty):
        need_text, have_text = distinct_sizes(needed, have)
        return [f"memory: scale {spec.scale} on {nodes} nodes needs about {need_text} per node with "
                f"{algorithm.name}, within the estimate's uncertainty ({uncertainty:.0%}) of a {machine.name} "
                f"node's {have_text}: the real run may not fit"]
    # advice that works: the fewest nodes (doubling) that hold it, else the
    # largest scale these nodes hold (some layouts replicate per-node data
    # that more nodes do not shrink)
    more = nodes * 2
    while more <= machine.max_nodes and need(spec.scale, more) > have:
        more *= 2
    if more <= machine.max_nodes:
        advice = f"use --nodes {more}{' or more' if more < machine.max_nodes else ''}, or a smaller --scale"
    else:
        smaller = _largest_fitting_scale(lambda scale: need(scale, nodes) <= have, spec.scale - 1)
        advice = (f"more nodes do not help (up to nodes.max = {machine.max_nodes}); "
                  + (f"use --scale {smaller} or less" if smaller else "no scale fits"))
    need_text, have_text = distinct_sizes(needed, have)
    margin = f" (an estimate good to {uncertainty:.0%})" if uncertainty else ""
    raise UserError(f"scale {spec.scale} on {nodes} nodes needs about {need_text} per node{margin} "
                    f"with {algorithm.name}, "
                    f"but a {machine.name} node has {have_text} (node.memory); {advice}")


def _largest_fitting_scale(fits: Callable[[int], bool], below: int) -> int | None:
    """The largest scale in 1..``below`` that ``fits`` (which is monotone:
    a larger graph never needs less), by bisection, so that a hopeless
    scale (99) is refused at once, not after trying every scale under it."""
    if below < 1 or not fits(1):
        return None
    low, high = 1, below  # fits(low); the answer is in low..high
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


