"""Re-pricing a cached work profile (projection/profile_cache.py).

The reference is the fresh projection: for every key of every bundled
machine that an algorithm's projection does not declare as changing its
work (Projection.work_parameters), re-pricing the work of the unchanged
machine under the changed key gives the fresh projection's records; a
declared key changes the cache key. Small sizes: 64 nodes (16 on the Cell),
a profile of scale 10, one root.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from simbfs.algorithms import ALGORITHMS, get_algorithm
from simbfs.calibration import _quantity
from simbfs.engine import Simulation
from simbfs.errors import UserError
from simbfs.graph import GraphSpec, load_graph, search_keys
from simbfs.machine import load_machine, machines_dir
from simbfs.machine import schema as S
from simbfs.projection.profile_cache import WorkLog, WorkProfileCache, clear_memo, work_key
from simbfs.runner import RunConfig, run

PROFILE_SCALE, TARGET_SCALE, EDGEFACTOR = 10, 14, 16
RTOL = 1e-12
MACHINES = sorted(path.stem for path in machines_dir().glob("*.yaml"))


def _projectable():
    """(algorithm, machine, nodes): each projection once (bsp1d-do for
    both bsp1d variants), on every bundled machine it projects on."""
    seen, cases = set(), []
    for name, algorithm in sorted(ALGORITHMS.items()):
        projection = algorithm.projection
        if projection is None or id(projection.project) in seen and name == "bsp1d-topdown":
            continue
        seen.add(id(projection.project))
        for machine_name in MACHINES:
            machine = load_machine(machine_name)
            if any(machine.section(s) is None for s in algorithm.requires):
                continue
            if machine.network.processes_per_host > 1 and not projection.shared_hosts:
                continue
            cases.append((name, machine_name, min(64, machine.max_nodes)))
    return cases


CASES = _projectable()
# bluegene_q_calibrated is bluegene_q with one value changed, and cp1d-mpi
# and cp2d take 17 s each (the suite's 10 minutes): their cases run with
# --runslow; cp1d-spi, the one whose work the prices feed back into, runs always
SLOW = ("cp1d-mpi", "cp2d")
PARAMS = [pytest.param(*case, marks=[pytest.mark.slow] if case[1].endswith("_calibrated") or case[0] in SLOW
                       else [], id=f"{case[0]}-{case[1]}") for case in CASES]


def _perturbed(machine_name: str, key: str, value, algorithm, nodes: int) -> str | None:
    """A --set of ``key`` to another value the machine (and the algorithm)
    accepts, or None for a key that is not a number."""
    declared = S.declaration(key)
    if not isinstance(declared, S.Param) or isinstance(value, (str, dict, list, tuple, bool)) or value is None:
        return None
    candidates = ([value * 2, value // 2, value + 1] if declared.integer
                  else [value * 1.5, value * 0.6, value * 2, value * 0.5])
    for candidate in candidates:
        text = str(int(candidate)) if declared.integer else _quantity(candidate, declared.kind)
        override = f"{key}={text}"
        try:
            machine = load_machine(machine_name, [override])
            algorithm.check(machine, 2 ** TARGET_SCALE, nodes)
        except UserError:
            continue
        return override
    return None


def _close(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a == b or abs(a - b) <= RTOL * max(abs(a), abs(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


def _records(projected) -> list:
    return [(root, edges, time_s, [record.as_dict() for record in records])
            for root, edges, time_s, records in projected]


@pytest.fixture(scope="module")
def profile_graph():
    return load_graph(GraphSpec(kind="kronecker", scale=PROFILE_SCALE, edgefactor=EDGEFACTOR, seed=1))


@pytest.mark.parametrize("name,machine_name,nodes", PARAMS)
def test_repricing_a_cached_profile_gives_the_fresh_projection(name, machine_name, nodes, profile_graph):
    algorithm = get_algorithm(name)
    projection = algorithm.projection
    keys = search_keys(profile_graph, 1, seed=1)

    def project(machine, work: WorkLog):
        sim = Simulation(machine, nodes)
        hosts = {"processes": nodes} if projection.shared_hosts else {}
        return _records(projection.project(profile_graph, keys, machine, sim.topology, algorithm, PROFILE_SCALE,
                                           TARGET_SCALE, EDGEFACTOR, work=work, **hosts))

    base = load_machine(machine_name)
    cached = WorkLog()
    assert _close(project(base, cached), project(base, cached.replay()))
    tested = []
    for key, value in base.values.items():
        if projection.changes_work(key):
            continue
        override = _perturbed(machine_name, key, value, algorithm, nodes)
        if override is None:
            continue
        machine = load_machine(machine_name, [override])
        replaying = cached.replay()
        repriced = project(machine, replaying)
        assert not replaying.diverged and replaying.missed == 0, override
        assert _close(repriced, project(machine, WorkLog())), (
            f"--set {override} changes {name}'s work on {machine_name}: declare it in its WORK_PARAMETERS")
        tested.append(key)
    assert len(tested) >= 30  # the machine's numeric parameters, not a handful


def _config(tmp_path, **changes) -> RunConfig:
    fields = dict(machine="bluegene_q", nodes=64, scale=TARGET_SCALE, algorithm="cp1d-spi", mode="project",
                  profile_scale=PROFILE_SCALE, roots=2, cache_dir=str(tmp_path), reuse_work=True)
    return RunConfig(**{**fields, **changes})


def _numbers(doc: dict) -> tuple:
    return doc["teps"], doc["roots"], doc["levels"]


def test_a_run_reusing_work_says_so_and_keys_by_the_declared_parameters(tmp_path):
    clear_memo()
    first = run(_config(tmp_path))
    assert first["projection"]["work_profile"] == "computed"
    assert list(Path(tmp_path, "work-profiles").iterdir())  # kept on disk
    again = run(_config(tmp_path))
    assert again["projection"]["work_profile"] == "cached" and _numbers(again) == _numbers(first)
    clear_memo()  # from the disk, not this process's memo
    priced = run(_config(tmp_path, overrides=["network.link_bandwidth=1 GB/s"]))
    fresh = run(_config(tmp_path, overrides=["network.link_bandwidth=1 GB/s"], reuse_work=False))
    assert priced["projection"]["work_profile"] == "cached" and "work_profile" not in fresh["projection"]
    assert _close(_numbers(priced), _numbers(fresh))
    assert _numbers(priced) != _numbers(first)
    # every declared work parameter of the machine changes the key
    for key in ("cp1d.heavy_vertices", "cp1d.index_stride", "cp1d.threads"):
        value = load_machine("bluegene_q").values[key]
        changed = run(_config(tmp_path, overrides=[f"{key}={max(int(value) // 2, 1)}"]))
        assert changed["projection"]["work_profile"] == "computed", key


def test_declared_parameters_change_the_work_key():
    """The key of runner._work_identity holds every declared parameter's value."""
    from simbfs.runner import _work_identity

    spec = GraphSpec(kind="kronecker", scale=TARGET_SCALE, edgefactor=EDGEFACTOR, seed=1)
    profile = GraphSpec(kind="kronecker", scale=PROFILE_SCALE, edgefactor=EDGEFACTOR, seed=1)
    for name, machine_name, nodes in CASES:
        algorithm = get_algorithm(name)
        base = load_machine(machine_name)
        sim = Simulation(base, nodes)

        def key(machine):
            return work_key(_work_identity(RunConfig(machine=machine_name), machine, nodes, algorithm, spec, profile,
                                           [1, 2], sim))

        for parameter, value in base.values.items():
            if not algorithm.projection.changes_work(parameter) or not isinstance(value, (int, float)):
                continue
            declared = S.declaration(parameter)
            text = str(int(value) + 1) if declared.integer else _quantity(value * 1.5, declared.kind)
            try:
                changed = load_machine(machine_name, [f"{parameter}={text}"])
            except UserError:
                continue
            assert key(changed) != key(base), (name, parameter)


def test_an_unwritable_cache_only_costs_the_caching(tmp_path):
    clear_memo()
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    doc = run(_config(blocked))  # the cache directory is a file: nothing can be written under it
    assert doc["projection"]["work_profile"] == "computed" and math.isfinite(doc["teps"]["harmonic_mean"])


def test_a_corrupt_entry_is_computed_again(tmp_path):
    clear_memo()
    first = run(_config(tmp_path))
    (entry,) = (path for path in Path(tmp_path, "work-profiles").iterdir() if not path.name.startswith("."))
    (entry / "arrays.npz").write_bytes(b"garbage")
    clear_memo()
    again = run(_config(tmp_path))
    assert again["projection"]["work_profile"] == "computed" and _numbers(again) == _numbers(first)


def test_a_stored_profile_round_trips(tmp_path):
    """Every item comes back from the disk equal, dtype and all."""
    import numpy as np

    from simbfs.algorithms.cp1d.project_spi import StreamLoad

    log = WorkLog()
    log.get((1, 0, "x"), lambda: {"ops": np.array([[1.0, 2.0], [3.0, 0.0]]), "f": 0.1, "n": 3,
                                  "s": StreamLoad(np.array([0.5]), np.zeros(2), np.ones(2), "forward"),
                                  "t": (np.arange(3), None, "top-down")})
    cache = WorkProfileCache(tmp_path)
    cache.store("k", log)
    clear_memo()
    item = cache.load("k").items[(1, 0, "x")]
    assert item["ops"].dtype == np.float64 and np.array_equal(item["ops"], [[1.0, 2.0], [3.0, 0.0]])
    assert item["f"] == 0.1 and item["n"] == 3 and item["t"][1:] == (None, "top-down")
    assert np.array_equal(item["t"][0], np.arange(3)) and item["s"].channel == "forward"
    assert cache.load("other") is None
