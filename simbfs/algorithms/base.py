"""The contract every BFS algorithm implements.

An algorithm is one paper's BFS (or the generic bsp1d) as it runs inside the
simulation. Its package (``algorithms/<family>/``) holds its level work, its
pricing (pure functions of counts, shared by execution and projection), its
executed run and, where it has one, its projection. The runner uses only what
is listed here, and never probes for anything else.

Attributes
    ``name``: as given on the command line, options included
    (``cp1d-spi:compression=off``).
    ``summary``: one line for reports.
    ``paper``: the seed paper whose own code this is ("000" for
    ../shared/seeds/000_*), or None for a generic algorithm; the report
    says whether a run uses its machine's paper's code (:func:`origin`).
    ``directed_graphs``: whether it runs on directed adjacency lists (the
    Cell paper's graphs); bottom-up algorithms need undirected ones.
    ``OPTIONS``: its options (options.py's :class:`Option`: name, values,
    default, help), declared once; ``options`` then holds their values in
    a frozen dataclass whose fields are the options' names. From them:
    ``takes_options`` (whether ``name:key=value,...`` variants exist) and
    ``option_example`` (one option, as error messages show it:
    ``compression=off``).
    ``requires``: the machine sections it reads (besides the core roles),
    e.g. ``("cp1d",)``; the runner refuses a machine without them before
    anything is generated.
    ``projection``: a :class:`Projection`, or None when the algorithm can
    only be executed.
    ``memory_uncertainty``: how far (relative) ``node_memory_bytes`` may be
    from what the real code needs; the runner refuses a run whose estimate
    exceeds a node's memory by more, and warns about one within it (0: the
    estimate is taken as exact).

Methods
    ``with_options(name, settings)``: the variant for ``settings`` (option
    name -> text), or a UserError naming the bad option. The base class
    parses them with ``OPTIONS`` and builds ``type(self)(name, options)``.
    ``check(machine, num_vertices, nodes)``: refuse, with a UserError, a run
    this algorithm cannot do on that machine (too many threads, buffers that
    do not fit); called before the graph is generated.
    ``node_memory_bytes(num_vertices, num_directed_edges, nodes, machine, graph_kind)``:
    peak bytes one node needs, for the runner's memory check
    (``graph_kind``: "kronecker" or "uniform", for estimates that use the
    Kronecker closed forms).
    ``run(sim, graph, root, recorder)``: one BFS from ``root`` on the
    simulation ``sim``; returns a RootRun (parent array, simulated time,
    one LevelRecord per level: records.py lists the fields every algorithm
    fills and those only some do). Activity is reported to ``recorder``
    (engine/recorder.py) as spans, and each level's record, once the level
    has ended, to ``recorder.level_done``; a recorder never changes timing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import UserError
from . import options as option_parsing
from .options import Option


@dataclass(frozen=True)
class Projection:
    """How an algorithm is projected (--mode project).

    ``project(graph, keys, machine, topology, algorithm, profile_scale,
    target_scale, edgefactor, progress)`` returns, per search key of the
    profile graph, ``(root, edges, time_s, level_records)`` at the target.
    A projection reports each finished root with ``progress(root_done(root))``
    (the runner turns these into a progress bar).
    ``profile_vertex_per_node``: whether the profile graph needs at least
    one vertex per target node. ``shared_hosts``: whether it prices
    processes that share a host (``network.processes_per_host`` > 1); such
    a projection is called with ``processes=`` the target's node count, since
    its topology joins hosts. The runner refuses the others on such a
    machine.

    Work, then price (docs/background/projection.md, "Re-pricing a cached
    work profile"): ``project`` also takes ``work=``, a
    projection/profile_cache.WorkLog, and asks it for every piece of its
    work (what the level functions count on the profile graph) instead of
    computing it, so that a log filled by one projection re-prices it under
    other prices. ``work_parameters``: the machine parameters (dotted keys;
    fnmatch patterns such as ``node.compute.*``) that change that work;
    every other parameter only changes prices. The runner keys the cached
    work by them (runner._work_identity); tests/test_repricing.py checks
    every other key of every bundled machine."""

    project: Callable
    profile_vertex_per_node: bool
    shared_hosts: bool = False
    work_parameters: tuple[str, ...] = ()

    def changes_work(self, key: str) -> bool:
        """Whether the machine parameter ``key`` changes this projection's work."""
        from fnmatch import fnmatchcase

        return any(fnmatchcase(key, pattern) for pattern in self.work_parameters)


class LayoutCache:
    """The layout of the last graph (and settings) an algorithm was asked
    for, built once and handed out again for the same graph object.

    It holds the graph itself and compares it by identity: a cache keyed by
    ``id(graph)`` hands a freed graph's layout to a new graph that Python
    gives the same id: a Cell run would get a layout for another vertex
    count."""

    def __init__(self):
        self._graph = None
        self._key = None
        self._layout = None

    def get(self, graph, key, build):
        """The layout of ``graph`` under the settings ``key``, from
        ``build()`` the first time."""
        if self._graph is not graph or self._key != key:
            self._graph, self._key, self._layout = graph, key, build()
        return self._layout


class Algorithm:
    """Base class; the module docstring states the whole contract."""

    name: str = "abstract"
    summary: str = ""
    paper: str | None = None
    directed_graphs: bool = False
    OPTIONS: tuple[Option, ...] = ()
    options = None
    requires: tuple[str, ...] = ()
    projection: Projection | None = None
    memory_uncertainty: float = 0.0

    def __init__(self, name: str, options=None):
        """``name`` as the command line gives it; ``options``: the variant's
        options dataclass (default: the class's ``options``). ``layouts``
        keeps the layout of the last graph it was asked for."""
        self.name = name
        if options is not None:
            self.options = options
        self.layouts = LayoutCache()

    @property
    def takes_options(self) -> bool:
        return bool(self.OPTIONS)

    @property
    def option_example(self) -> str:
        return self.OPTIONS[0].example() if self.OPTIONS else ""

    def with_options(self, name: str, settings: dict) -> "Algorithm":
        base = name.partition(":")[0]
        if not self.OPTIONS:
            raise UserError(f"{base} takes no options; use --algorithm {base}")
        return type(self)(name, option_parsing.parse(base, self.OPTIONS, self.options, settings))

    def check(self, machine, num_vertices: int, nodes: int) -> None:
        """Nothing to refuse by default."""

    def node_memory_bytes(self, num_vertices: int, num_directed_edges: int, nodes: int,
                          machine=None, graph_kind: str = "kronecker") -> float:  # pragma: no cover - interface
        raise NotImplementedError

    def run(self, sim, graph, root: int, recorder=None):  # pragma: no cover - interface
        raise NotImplementedError


ROOT_DONE = "projected root"


def root_done(root: int) -> str:
    """The progress message of a projection's finished root."""
    return f"{ROOT_DONE} {int(root)}"


PAPER_CODE, OTHER_PAPER, GENERIC = "paper", "other paper", "generic"


def origin(algorithm: Algorithm, machine) -> str:
    """Whether ``algorithm`` is ``machine``'s paper's own code (PAPER_CODE),
    another seed paper's (OTHER_PAPER) or generic (GENERIC). A machine
    file names its paper as "NNN: authors, title"."""
    if algorithm.paper is None:
        return GENERIC
    machine_paper = (machine.paper or "").partition(":")[0].strip()
    return PAPER_CODE if machine_paper == algorithm.paper else OTHER_PAPER
