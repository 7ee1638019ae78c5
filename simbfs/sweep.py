"""Parameter sweeps (`simbfs sweep`): one run per point of a grid of run
options and machine parameters, in parallel on Dask, resumable.

A point is one :class:`~simbfs.runner.RunConfig`: the sweep's common run
options with the point's values applied, a value for a run option (nodes,
scale, algorithm, roots, ...) replacing it and a value for a machine
parameter (``network.link_bandwidth``) becoming a ``--set``. Each point is
stored under a key derived from its complete resolved configuration: the
run options, every machine parameter as resolved (after ``extends`` and the
overrides) and the simbfs version, so a changed machine file or version
never reuses an old result. A result is written atomically (a temporary
file renamed into place) as soon as it arrives, so an interrupted sweep
loses nothing it finished, and re-running it computes only the missing
points.

The engine is Dask (dask.distributed): a local cluster of ``jobs`` worker
processes by default, or the cluster whose scheduler ``--scheduler``
names, so a study outgrows one computer without changing its command. The
workers only compute; the process that runs the sweep writes every file,
so remote workers need no shared file system. A point that fails with a
user's error (a size that does not fit, say) is stored with its message
and does not stop the sweep.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Callable

import yaml

from . import __version__
from .dirlock import DirectoryLock, check_output_folder
from .errors import UserError
from .runner import RunConfig

# run options a grid may sweep: name as on the command line -> RunConfig field, type
RUN_OPTIONS = {"nodes": ("nodes", int), "scale": ("scale", int), "algorithm": ("algorithm", str),
               "roots": ("roots", int), "seed": ("seed", int), "mode": ("mode", str),
               "profile-scale": ("profile_scale", int), "graph": ("graph", str),
               "edgefactor": ("edgefactor", int), "arity": ("arity", float)}
KIND_NAMES = {int: "whole number", float: "number", str: "text"}
CHOICES = {"mode": ("execute", "project"), "graph": ("kronecker", "uniform")}
POINTS_DIR = "points"
LOCK = ".sweep.lock"  # held (flock) by the sweep writing into the directory
SCHEDULER_TIMEOUT = "10s"  # how long to try reaching a --scheduler
RESULTS = "results.csv"
PLOT = "results.png"


@dataclass(frozen=True)
class Point:
    """One run of the sweep: the swept values (as given) and its configuration."""

    values: tuple[tuple[str, str], ...]
    config: RunConfig
    key: str

    def as_dict(self) -> dict:
        return dict(self.values)


def parse_grid(items: list[str], sweep_file: Path | None = None) -> dict[str, list[str]]:
    """``KEY=V1,V2,...`` items (and a YAML sweep file's ``grid:`` mapping,
    for values that contain commas) -> {key: [values]}, in the given order."""
    grid: dict[str, list[str]] = {}
    if sweep_file is not None:
        try:
            data = yaml.safe_load(Path(sweep_file).read_text())
        except OSError as exc:
            raise UserError(f"cannot read the sweep file {sweep_file}: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise UserError(f"{sweep_file} is not valid YAML: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("grid"), dict) or set(data) - {"grid"}:
            raise UserError(f"{sweep_file}: a sweep file is a mapping with one key, grid:, whose keys are run "
                            f"options or machine parameters and whose values are lists, e.g. "
                            f"grid: {{nodes: [64, 128], network.link_bandwidth: ['2 GB/s', '4 GB/s']}}")
        for key, values in data["grid"].items():
            if not isinstance(values, list) or not values:
                raise UserError(f"{sweep_file}: grid: {key} must be a non-empty list of values")
            grid[str(key)] = [str(value) for value in values]
    for item in items:
        key, eq, text = item.partition("=")
        if not eq or not key.strip() or not text.strip():
            raise UserError(f"--grid {item!r}: write KEY=V1,V2,... (e.g. --grid nodes=64,128 or "
                            f"--grid network.link_bandwidth='2 GB/s,4 GB/s')")
        key = key.strip()
        if key in grid:
            raise UserError(f"--grid {key} is given twice; give each key once with all its values")
        grid[key] = [value.strip() for value in text.split(",")]
        if key == "algorithm":
            grid[key] = _join_option_lists(grid[key])
        if any(not value for value in grid[key]):
            raise UserError(f"--grid {item!r} has an empty value; remove the extra comma")
    if not grid:
        raise UserError("a sweep needs at least one --grid KEY=V1,V2,... (or a sweep file with a grid:)")
    return grid


def _join_option_lists(values: list[str]) -> list[str]:
    """``cp1d-spi:compression=off,threads=16,cp1d-mpi`` is two algorithms:
    a piece with ``=`` but no ``:`` is one more option of the variant
    before it (no algorithm's name holds an ``=``)."""
    joined: list[str] = []
    for value in values:
        if joined and "=" in value and ":" not in value and ":" in joined[-1]:
            joined[-1] += "," + value
        else:
            joined.append(value)
    return joined


def _apply(base: RunConfig, key: str, text: str) -> RunConfig:
    if key in RUN_OPTIONS:
        name, kind = RUN_OPTIONS[key]
        try:
            value = kind(text)
        except ValueError:
            raise UserError(f"--grid {key}: {text!r} is not a {KIND_NAMES[kind]}") from None
        if key in CHOICES and value not in CHOICES[key]:
            raise UserError(f"--grid {key}: {text!r} is not one of {', '.join(CHOICES[key])}")
        if key == "algorithm":
            from .algorithms import get_algorithm

            try:
                get_algorithm(value)
            except UserError as exc:
                raise UserError(f"--grid algorithm={text}: {exc}") from None
        return replace(base, **{name: value})
    return replace(base, overrides=[*base.overrides, f"{key}={text}"])


def _machine_problem(exc: UserError, where: str) -> UserError:
    """A machine file's list of problems, about a value the grid gave, as
    one line that names the grid's value."""
    head, sep, problems = str(exc).partition("invalid machine file:\n")
    if sep:
        text = "; ".join(line.strip().replace(" (value from --set)", "")
                         for line in problems.splitlines() if line.strip())
    else:
        text = str(exc)
    return UserError(f"{where}: {text}")


def config_key(config: RunConfig, uncertainty: tuple[int, int] | None = None) -> str:
    """The key a point's result is stored under: a hash of its run options,
    its machine's parameters as resolved (so a changed machine file gives a
    new key), the simbfs version, and (samples, seed) of its interval if it
    has one."""
    from .machine import load_machine
    from .report import machine_parameters

    machine = load_machine(config.machine, config.overrides)  # a bad parameter: a UserError now
    options = {f.name: getattr(config, f.name) for f in fields(config)
               if f.name not in ("recorder", "cache_dir", "reuse_work")}
    identity = {"options": options, "machine": machine_parameters(machine), "simbfs": __version__,
                **({"uncertainty": list(uncertainty)} if uncertainty else {})}
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def expand(base: RunConfig, grid: dict[str, list[str]], uncertainty: tuple[int, int] | None = None) -> list[Point]:
    """Every point of the grid (the product of its values, the last key
    varying fastest), each checked before anything runs or is created: the
    common options, then each value of the grid on its own (so an error
    names the value), then every combination."""
    from .machine import load_machine

    load_machine(base.machine, base.overrides)  # the sweep's own machine and --set, as `run` reports them
    for key, values in grid.items():
        for text in values:
            config = _apply(base, key, text)
            if key not in RUN_OPTIONS:
                try:
                    load_machine(config.machine, config.overrides)
                except UserError as exc:
                    raise _machine_problem(exc, f"--grid {key}={text}") from None
    points = []
    for combination in itertools.product(*grid.values()):
        values = tuple(zip(grid, combination))
        config = base
        for key, text in values:
            config = _apply(config, key, text)
        try:
            key = config_key(config, uncertainty)
        except UserError as exc:
            raise _machine_problem(exc, "--grid point " + ", ".join(f"{k}={v}" for k, v in values)) from None
        points.append(Point(values=values, config=config, key=key))
    return points


def run_point(config: RunConfig) -> dict:
    """What a worker computes for one point: the result document, or the
    user's error that stopped it. A projected point re-prices the work
    profile of an earlier point with the same work (only prices changed:
    projection/profile_cache.py), from this worker's memo or the cache
    directory that the workers share; its document says so."""
    from .runner import run

    try:
        return {"status": "ok", "document": run(replace(config, reuse_work=True))}
    except UserError as exc:
        return {"status": "error", "error": str(exc)}


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


class SweepStore:
    """The sweep's directory: one JSON file per point computed (finished or
    failed), the table and the plot. :meth:`prepare` creates it and locks
    it for this process's life, so a second sweep into the same directory
    is refused instead of overwriting the first one's table."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self.points = self.out / POINTS_DIR
        self._lock = DirectoryLock(self.out, LOCK, "simbfs sweep", "it reuses the points already done")

    def check(self) -> None:
        """Refuse a directory that cannot be used, creating nothing."""
        check_output_folder(self.out)

    def prepare(self) -> None:
        """Create the directory and take its lock (see :meth:`lock`)."""
        self.check()
        try:
            self.points.mkdir(parents=True, exist_ok=True)
            probe = self.points / f".probe.{os.getpid()}"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise UserError(f"cannot write the sweep's results in {self.out}: {exc.strerror or exc}") from None
        self.lock()

    def lock(self) -> None:
        """Hold DIR/.sweep.lock until :meth:`close` or this process ends; if
        another sweep holds it, refuse (simbfs/dirlock.py)."""
        self._lock.acquire()

    def close(self) -> None:
        """Release the directory's lock."""
        self._lock.release()

    def __enter__(self) -> "SweepStore":
        self.prepare()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def path(self, point: Point) -> Path:
        return self.points / f"{point.key}.json"

    def record(self, point: Point) -> dict | None:
        """The point's stored result (status ok or error), or None."""
        try:
            return json.loads(self.path(point).read_text())
        except (OSError, ValueError):
            return None

    def done(self, point: Point) -> bool:
        """Finished: stored with status ok. A failed point is run again."""
        record = self.record(point)
        return record is not None and record.get("status") == "ok"

    def store(self, point: Point, result: dict) -> None:
        record = {"values": point.as_dict(), "key": point.key, **result}
        _write_atomically(self.path(point), json.dumps(record, sort_keys=True) + "\n")


def compute(points: list[Point], store: SweepStore, jobs: int = 1, scheduler: str | None = None,
            on_stored: Callable[[Point, dict], None] = lambda point, result: None,
            uncertainty: tuple[int, int] | None = None) -> int:
    """Run the points not yet finished (never run, or failed before); store
    each as it finishes; return how many were computed (see
    :func:`run_configs`). With ``uncertainty`` (samples, seed), each point
    is its run and its samples (simbfs/uncertainty.py), all on the same
    workers, and is stored once the last of them finishes."""
    pending = [point for point in points if not store.done(point)]
    if uncertainty is not None:
        return _compute_with_samples(pending, store, jobs, scheduler, on_stored, *uncertainty)

    def stored(index: int, result: dict) -> None:
        store.store(pending[index], result)
        on_stored(pending[index], result)

    run_configs([point.config for point in pending], stored, jobs=jobs, scheduler=scheduler,
                names=[f"simbfs-{point.key}" for point in pending])
    return len(pending)


def _compute_with_samples(pending: list[Point], store: SweepStore, jobs: int, scheduler: str | None,
                          on_stored: Callable[[Point, dict], None], count: int, seed: int) -> int:
    from . import uncertainty

    plans = [uncertainty.plan(point.config, count, seed) for point in pending]
    runs = [(p, None) for p in range(len(pending))] + [(p, i) for p in range(len(pending)) for i in range(count)]
    configs = [pending[p].config if i is None else plans[p].samples[i] for p, i in runs]
    results: list[dict] = [{} for _ in pending]  # point -> {None: its run, i: sample i}

    def finished(index: int, result: dict) -> None:
        point, sample = runs[index]
        results[point][sample] = result
        if len(results[point]) < count + 1:
            return
        own = results[point].pop(None)
        if own["status"] == "ok":
            own = {"status": "ok", "document": plans[point].attach(own["document"],
                                                                  [results[point][i] for i in range(count)])}
        results[point] = {}
        store.store(pending[point], own)
        on_stored(pending[point], own)

    run_configs(configs, finished, jobs=jobs, scheduler=scheduler)
    return len(pending)


def run_configs(configs: list[RunConfig], on_result: Callable[[int, dict], None], jobs: int = 1,
                scheduler: str | None = None, names: list[str] | None = None) -> None:
    """:func:`run_point` of every config, ``on_result(index, result)`` as
    each finishes (in any order): on ``jobs`` worker processes of a local
    Dask cluster, or on the cluster at ``scheduler``; one job and no
    scheduler runs them here, in turn. A sweep's points and an uncertainty
    run's samples both run here."""
    if not configs:
        return
    if jobs <= 1 and scheduler is None:
        for index, config in enumerate(configs):
            on_result(index, run_point(config))
        return
    from dask.distributed import Client, as_completed

    from .dask_cluster import local_client

    if scheduler is None:
        connection = local_client(min(jobs, len(configs)))
    else:
        try:
            connection = Client(scheduler, timeout=SCHEDULER_TIMEOUT)  # closed when the block ends
        except OSError as exc:
            raise UserError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    with connection as client:
        by_future = {client.submit(run_point, config, pure=False,
                                   **({"key": names[index]} if names else {})): index
                     for index, config in enumerate(configs)}
        try:
            for future in as_completed(by_future):
                on_result(by_future[future], future.result())
        except BaseException:
            client.cancel(list(by_future))
            raise


def _level_split(document: dict) -> dict:
    """Mean over roots of each root's compute, communication and
    synchronisation seconds."""
    roots = max(len(document["roots"]), 1)
    return {part: sum(level[f"{part}_s"] for level in document["levels"]) / roots
            for part in ("compute", "communication", "synchronisation")}


def rows(points: list[Point], store: SweepStore) -> list[dict]:
    """One row per stored point (finished or failed), in grid order."""
    out = []
    for point in points:
        record = store.record(point)
        if record is None:
            continue
        row = {**point.as_dict(), "status": record["status"]}
        doc = record.get("document")
        if doc:
            teps = doc["teps"]
            fields_of_doc = {"mode": doc["mode"], "machine": doc["machine"], "algorithm": doc["algorithm"],
                        "nodes": doc["nodes"], "scale": doc["scale"], "roots": len(doc["roots"]),
                        "calibrated_on": doc.get("calibrated_on") or "",
                        **{f"{name}_teps": teps[name] for name in ("harmonic_mean", "min", "q1", "median", "q3",
                                                                  "max")},
                        **{f"{part}_s": value for part, value in _level_split(doc).items()},
                        **_interval_columns(doc),
                        "wall_time_s": doc.get("wall_time_s", ""), "error": ""}
            # a swept run option keeps its column as given (nodes=64 is the grid's "64")
            row.update({name: value for name, value in fields_of_doc.items() if name not in row})
        else:
            row["error"] = record.get("error", "")
        row["key"] = point.key
        out.append(row)
    return out


def _interval_columns(doc: dict) -> dict:
    """A point's interval (simbfs sweep --uncertainty): the samples'
    median and 5-95% range of the harmonic-mean TEPS."""
    interval = (doc.get("uncertainty") or {}).get("teps_harmonic_mean")
    if not interval:
        return {}
    return {"harmonic_mean_teps_p5": interval["p5"], "harmonic_mean_teps_samples_median": interval["median"],
            "harmonic_mean_teps_p95": interval["p95"]}


def results_csv(table: list[dict]) -> str:
    columns: list[str] = []
    for row in table:
        columns.extend(key for key in row if key not in columns)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    return buffer.getvalue()


def plot(table: list[dict], grid: dict[str, list[str]], path: Path) -> None:
    """Harmonic-mean TEPS against each swept key, one line per combination
    of the other keys' values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(grid)
    fig, axes = plt.subplots(1, len(keys), figsize=(5 * len(keys), 3.6), squeeze=False)
    for ax, key in zip(axes[0], keys):
        others = [k for k in keys if k != key]
        lines: dict = {}
        for row in table:
            if row["status"] != "ok":
                continue
            label = ", ".join(f"{k}={row[k]}" for k in others) or "teps"
            lines.setdefault(label, []).append((grid[key].index(row[key]), row["harmonic_mean_teps"] / 1e9,
                                                row.get("harmonic_mean_teps_p5"), row.get("harmonic_mean_teps_p95")))
        for label, xy in lines.items():
            xy.sort()
            (line,) = ax.plot([x for x, *_ in xy], [y for _, y, *_ in xy], marker="o", label=label)
            if all(low is not None for *_, low, _high in xy):  # each point's 90% interval (--uncertainty)
                ax.fill_between([x for x, *_ in xy], [low / 1e9 for *_, low, _high in xy],
                                [high / 1e9 for *_, high in xy], color=line.get_color(), alpha=0.15)
        ax.set_xticks(range(len(grid[key])), grid[key], rotation=20, fontsize=8)
        ax.set_xlabel(key)
        ax.set_ylabel("GTEPS (harmonic mean)")
        if 1 < len(lines) <= 8:
            ax.legend(fontsize=6)
    modes = {row.get("mode") for row in table if row["status"] == "ok"}
    fig.suptitle("simbfs sweep" + (" (PROJECTED)" if modes == {"projected"} else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def finish(points: list[Point], grid: dict[str, list[str]], store: SweepStore) -> list[dict]:
    """Write results.csv and results.png from every stored point."""
    table = rows(points, store)
    _write_atomically(store.out / RESULTS, results_csv(table))
    if any(row["status"] == "ok" for row in table):
        temporary = store.out / f".{PLOT}.{os.getpid()}.png"
        plot(table, grid, temporary)
        os.replace(temporary, store.out / PLOT)
    return table
