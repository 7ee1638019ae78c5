"""The `simbfs` command line.

    simbfs run MACHINE [options]     simulate Graph500 BFS on a machine model
    simbfs calibrate MACHINE [options] --measured-teps X --out FILE.yaml
                                     fit one parameter to one measurement
    simbfs machines [--describe M | --keys]
                                     list the bundled machine models, or their keys
    simbfs algorithms                list the BFS algorithms and their options

A user's mistake (a bad file, option or size) prints a message starting with
"simbfs: error:" (one line, or one line per problem in a machine file) and
exits with status 2; no traceback, no output file.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from .errors import UserError

EPILOG_RUN = """\
examples:
  simbfs run bluegene_q --nodes 512 --scale 16
      BlueGene/Q midplane, Graph500 Kronecker graph of 2^16 vertices, 8 roots
  simbfs run bluegene_q --nodes 512 --scale 16 --set network.link_bandwidth="4 GB/s"
      what if the torus links were twice as fast?
  simbfs run cell_be --graph uniform --arity 16 --scale 14 --json cell.json --csv cell.csv
      the Cell BE on a uniform-arity graph, results as JSON and a per-level CSV table
  simbfs run bluegene_q --nodes 1024 --scale 18 --plot levels.png
      a picture of where the time goes, level by level
  simbfs run tsubame2 --nodes 64 --scale 16 --roots 2 --trace run.json
      the run as a timeline: open run.json in https://ui.perfetto.dev
  simbfs run bluegene_q --nodes 65536 --scale 40 --algorithm cp1d-spi --mode project
      the paper's headline run, far too large for this computer, projected from
      real BFS runs on a scale-20 graph (under a minute on 2 cores: docs/performance.md)
  simbfs run my_machine.yaml --nodes 64 --scale 14
      your own machine file (start from a bundled one: see `simbfs machines`)

The TEPS printed are *simulated*: edges of the root's component divided by
the simulated BFS time on the modelled machine. Every BFS tree is checked
with the five Graph500 validation rules unless --no-validate is given.
Generated graphs are cached in $SIMBFS_CACHE (default ~/.cache/simbfs).
"""


# The examples' --measured-teps values are a user's measurements, the input
# of a one-point calibration (here the paper's 4,096-node result, as
# docs/validation.md uses it), not values of any model.
EPILOG_CALIBRATE = """\
examples:
  simbfs calibrate bluegene_q --nodes 4096 --scale 36 --algorithm cp1d-spi --mode project \\
      --measured-teps 1.4e12 --out bgq_calibrated.yaml
      fit bluegene_q's least certain parameter to the paper's 4,096-node run
  simbfs calibrate bluegene_q --nodes 512 --scale 16 --measured-teps 9e9 \\
      --fit node.compute.edge_scan --out mine.yaml
      fit a named parameter to an executed run
  simbfs run bgq_calibrated.yaml --nodes 65536 --scale 40 --algorithm cp1d-spi --mode project
      predict another size with the calibrated file (the output says so)

The search steps the parameter by factors of 2 until the prediction passes the
measurement, then bisects (in log space) to within 0.1%; every step is a full
run, printed on stderr. It stops with an error if the parameter cannot reach
the measurement within a factor of 4096, or if the prediction is not monotone
in it. See docs/howto/calibrate.md.
"""


EPILOG_SWEEP = """\
examples:
  simbfs sweep bluegene_q --nodes 64 --scale 16 --grid network.link_bandwidth=1GB/s,2GB/s,4GB/s --out links
      what if the torus links were half or twice as fast? (3 runs, in parallel)
  simbfs sweep tsubame2 --scale 20 --grid nodes=64,256,1024 --grid algorithm=ueno2d,ueno2d:sv=atomic --out sv
      a 3 x 2 grid of run options
  simbfs sweep sunway_taihulight --mode project --grid scale=30,34,38 --grid nodes=1024,4096 --out big
      projected points sweep like executed ones
  simbfs sweep bluegene_q --file study.yaml --out study --scheduler tcp://head:8786
      a grid from a file (grid: {KEY: [values]}) on a Dask cluster

Re-run the same command to finish an interrupted sweep (Ctrl-C): finished
points are kept; only the missing and the failed ones run again. results.csv
loads straight into pandas: pandas.read_csv("links/results.csv").
One sweep at a time writes into a DIR: a second one is refused while the
first runs. The local cluster has no dashboard; for Dask's, start a cluster
yourself and give --scheduler. See docs/howto/what-if.md.

exit status: 0 every point finished; 1 a point failed (its row in results.csv
and a line on stderr say why; the rest of the sweep ran); 2 a user's error,
before anything is created; 130 interrupted.
"""


def _number(kind: type, lowest: float, strictly_above: bool, what: str):
    """An argparse type: a number of ``kind`` that must be >= (or >) ``lowest``."""

    def parse(text: str):
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
        if value < lowest or (strictly_above and value == lowest):
            bound = "greater than" if strictly_above else "at least"
            raise argparse.ArgumentTypeError(f"must be {bound} {lowest:g}, got {text}")
        return value

    return parse


_positive_int = _number(int, 1, False, "a whole number")
_non_negative_int = _number(int, 0, False, "a whole number")
_positive_float = _number(float, 0, True, "a number")


def _add_simulation_options(parser: argparse.ArgumentParser) -> None:
    """What `run` and `calibrate` share: the machine, the graph, the
    algorithm and how the run is simulated."""
    from .algorithms import ALGORITHMS, options_help, projectable

    parser.add_argument("machine", metavar="MACHINE",
                     help="a bundled machine name (see `simbfs machines`) or the path of a machine YAML file")
    parser.add_argument("--nodes", type=_positive_int, metavar="N",
                     help="simulated nodes (default: the machine's nodes.default); a torus needs a partition size; "
                          "on tsubame2 a node is an MPI process driving one GPU, 3 per host")
    parser.add_argument("--scale", type=_positive_int, metavar="S",
                     help="graph of 2^S vertices (default: the machine's graph: scale, else 16)")
    parser.add_argument("--graph", choices=("kronecker", "uniform"),
                     help="Graph500 Kronecker graph, or the uniform-arity graph of the Cell paper (default: the "
                          "machine's; cell_be: uniform, the others: kronecker)")
    parser.add_argument("--edgefactor", type=_positive_int, metavar="E",
                     help="Kronecker edges per vertex (default 16, as Graph500)")
    parser.add_argument("--arity", type=_positive_float, metavar="A",
                     help="uniform graph: each vertex's arity is uniform in [0, 2A] (default: the machine's, else 16)")
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument("--directed", dest="directed", action="store_const", const=True, default=None,
                           help="uniform graph: keep each generated pair (v, w) as the edge v->w only "
                                "(the Cell paper's graphs; the default for the cell-* algorithms)")
    direction.add_argument("--undirected", dest="directed", action="store_const", const=False,
                           help="uniform graph: every pair is an edge both ways (the default otherwise)")
    parser.add_argument("--roots", type=_positive_int, default=8, metavar="K",
                     help="search keys to run (default 8; Graph500 uses 64)")
    parser.add_argument("--seed", type=_non_negative_int, default=1, metavar="X",
                     help="seed of the graph and of the search keys (default 1)")
    parser.add_argument("--algorithm", metavar="NAME",
                     help="BFS variant: " + ", ".join(sorted(ALGORITHMS)) + " (default: the machine's). "
                          "Options follow a colon, e.g. cp1d-spi:compression=off,threads=16; "
                          + options_help())
    parser.add_argument("--mode", choices=("execute", "project"), default="execute",
                     help="execute the BFS on the generated graph (default), or project a run too large "
                          "for this computer from a BFS profile at a smaller scale ("
                          + ", ".join(projectable()) + " on Kronecker graphs; every output then says "
                          "'projected')")
    parser.add_argument("--profile-scale", type=_positive_int, metavar="S",
                     help="--mode project: scale of the executed BFS profile (default: min(--scale, 20))")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                     help="override a machine parameter for a what-if study, e.g. "
                          "--set network.link_bandwidth='4 GB/s' (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simbfs",
        description="Discrete-event simulation of supercomputers running the Graph500 breadth-first search.",
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"simbfs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    run = sub.add_parser(
        "run",
        help="simulate BFS on a machine model and report predicted TEPS",
        description="Generate (or load from cache) a Graph500 graph, run the BFS of the chosen\n"
                    "algorithm as simulated processes on the machine model, validate every BFS tree,\n"
                    "and report Graph500-style TEPS statistics and a per-level breakdown of the\n"
                    "simulated time.",
        epilog=EPILOG_RUN,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_simulation_options(run)
    run.add_argument("--json", type=Path, metavar="PATH",
                     help="also write the result as a JSON document (- for standard output; the report then goes "
                          "to stderr)")
    run.add_argument("--csv", type=Path, metavar="PATH",
                     help="also write the per-level records of every root as CSV (one row per root and level; - for "
                          "standard output)")
    run.add_argument("--trace", type=Path, metavar="PATH",
                     help="also write the run as a timeline trace (Trace Event Format JSON) that Perfetto "
                          "(ui.perfetto.dev) and chrome://tracing open: a process per node, a thread per resource, "
                          "the roots one after another (docs/howto/timeline.md)")
    run.add_argument("--trace-nodes", metavar="LIST",
                     help="--trace: the nodes to keep, e.g. 0-3,63 or all (default: the first 64)")
    run.add_argument("--trace-levels", metavar="LIST",
                     help="--trace: the BFS levels to keep, e.g. 2-3 (default: all)")
    run.add_argument("--plot", type=Path, metavar="PATH",
                     help="also draw the middle root's per-level time split and the TEPS of every root (PNG)")
    run.add_argument("--no-validate", dest="validate", action="store_false",
                     help="skip Graph500 validation of the BFS trees (the output says so)")
    run.add_argument("--uncertainty", type=_positive_int, metavar="N",
                     help="also run N samples of the machine's uncertain parameters (ranges by the rule of "
                          "docs/reference/machine-files.md) and report the median and 90%% interval of the TEPS "
                          "and of each level's time, and the parameters that drive them (a tornado with --plot)")
    run.add_argument("--sample-seed", type=_non_negative_int, default=1, metavar="X",
                     help="--uncertainty: seed of the Latin hypercube of samples (default 1)")
    run.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1, metavar="N",
                     help="--uncertainty: samples run at once on a local Dask cluster (default: the cores)")
    run.add_argument("--scheduler", metavar="ADDRESS",
                     help="--uncertainty: run the samples on the Dask cluster at ADDRESS instead")
    run.add_argument("--quiet", action="store_true", help="no progress messages on stderr")

    calibrate = sub.add_parser(
        "calibrate",
        help="fit one machine parameter to one measured TEPS and write a calibrated machine file",
        description="One-point calibration. Given one measurement of your machine (the harmonic-mean TEPS\n"
                    "of N nodes at scale S), find the value of one parameter (--fit, default the machine\n"
                    "file's least certain one, its calibration.key) that makes simbfs predict it, and\n"
                    "write a machine file that extends MACHINE with that value. Every run on that file\n"
                    "says 'calibrated on ...': its predictions are fitted, not predicted.",
        epilog=EPILOG_CALIBRATE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_simulation_options(calibrate)
    calibrate.add_argument("--measured-teps", type=_positive_float, required=True, metavar="X",
                           # an example of a user's measurement (the input), not a model value
                           help="the measured harmonic-mean TEPS of that run (e.g. 1.4e12)")
    calibrate.add_argument("--fit", metavar="KEY",
                           help="the parameter to fit, as a dotted machine-file key (default: the machine "
                                "file's calibration.key)")
    calibrate.add_argument("--out", type=Path, required=True, metavar="FILE.yaml",
                           help="where to write the calibrated machine file")
    calibrate.add_argument("--quiet", action="store_true", help="no progress messages on stderr")

    sweep = sub.add_parser(
        "sweep",
        help="run a grid of runs in parallel (Dask), resumable, into a table and a plot",
        description="Run one simulation per point of a grid of run options and machine parameters, in\n"
                    "parallel on a Dask cluster (a local one by default), and collect DIR/results.csv (one\n"
                    "row per point) and DIR/results.png. Each point's result is stored under a key of its\n"
                    "complete configuration as soon as it finishes: an interrupted sweep re-run computes\n"
                    "only what is missing, a finished one nothing. A point that fails (a size that does not\n"
                    "fit) is recorded with its message and does not stop the sweep.",
        epilog=EPILOG_SWEEP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_simulation_options(sweep)
    sweep.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                       help="a swept key and its values (repeatable): a run option (nodes, scale, algorithm, "
                            "roots, seed, mode, profile-scale, graph, edgefactor, arity) or a machine parameter "
                            "(network.link_bandwidth)")
    sweep.add_argument("--file", type=Path, metavar="SWEEP.yaml",
                       help="a YAML file with grid: {KEY: [values]} (for values that contain commas)")
    sweep.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory of the results")
    sweep.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1, metavar="N",
                       help="worker processes on this computer (default: its cores); 1 runs the points here, "
                            "in turn")
    sweep.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786) "
                            "instead of on this computer")
    sweep.add_argument("--uncertainty", type=_positive_int, metavar="N",
                       help="also run N samples of the machine's uncertain parameters at every point (as run "
                            "--uncertainty) and add each point's 90%% interval to the table and the plot")
    sweep.add_argument("--sample-seed", type=_non_negative_int, default=1, metavar="X",
                       help="--uncertainty: seed of the Latin hypercube of samples (default 1)")
    sweep.add_argument("--no-validate", dest="validate", action="store_false",
                       help="skip Graph500 validation of the BFS trees")
    sweep.add_argument("--quiet", action="store_true", help="no progress on stderr")

    reproduce = sub.add_parser(
        "reproduce",
        help="run every figure script of a paper (or all four) and write an HTML report of its claims",
        description="Run every figure script of a paper's experiments (experiments/MACHINE/, in a source\n"
                    "checkout) in parallel, and write DIR/index.html (every claim of the paper with the\n"
                    "paper's value, simbfs's, the error and the verdict, then each figure) and\n"
                    "DIR/claims.csv. Finished scripts are kept: a re-run runs only what is missing. A miss\n"
                    "is a verdict; the command fails only when a script could not run.",
        epilog="examples:\n  simbfs reproduce cell_be --quick --out report\n"
               "  simbfs reproduce all --out report --jobs 2\n\n"
               "Full sizes take minutes per paper (docs/performance.md); --quick runs every script at\n"
               "tiny sizes in about a minute per paper. The checks of simbfs itself (projection against\n"
               "execution, sensitivity) are not figures: add --include-validation to run them too.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    reproduce.add_argument("paper", choices=("bluegene_q", "cell_be", "sunway_taihulight", "tsubame2", "all"),
                           metavar="MACHINE", help="bluegene_q, cell_be, sunway_taihulight, tsubame2 or all")
    reproduce.add_argument("--quick", action="store_true", help="tiny sizes (a check in about a minute a paper)")
    reproduce.add_argument("--out", type=Path, required=True, metavar="DIR", help="directory of the report")
    reproduce.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1, metavar="N",
                           help="scripts run at once (default: the cores)")
    reproduce.add_argument("--include-validation", action="store_true",
                           help="also run the checks of simbfs itself (projection against execution, "
                                "sensitivity): tens of minutes more at full size")
    reproduce.add_argument("--quiet", action="store_true", help="no progress on stderr")

    machines = sub.add_parser("machines", help="list the bundled machine models",
                              description="List the bundled machine models, or describe one parameter by parameter.")
    machines.add_argument("--describe", metavar="MACHINE",
                          help="print every parameter of MACHINE with its value and source")
    machines.add_argument("--keys", action="store_true",
                          help="print every key a machine file may contain, as a Markdown table "
                               "(the one in docs/reference/machine-files.md)")
    sub.add_parser("algorithms", help="list the BFS algorithms and their options",
                   description="List the BFS algorithms: where each comes from, whether it can be projected "
                               "(--mode project), and its options (--algorithm NAME:key=value,...) with their "
                               "defaults.")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            return _cmd_run(args)
        if args.command == "calibrate":
            return _cmd_calibrate(args)
        if args.command == "sweep":
            return _cmd_sweep(args)
        if args.command == "reproduce":
            return _cmd_reproduce(args)
        if args.command == "algorithms":
            return _cmd_algorithms()
        return _cmd_machines(args)
    except UserError as exc:
        print(f"simbfs: error: {exc}", file=sys.stderr)
        return UserError.exit_status
    except KeyboardInterrupt:
        print("simbfs: interrupted", file=sys.stderr)
        if argv is None:  # the command itself, not a caller in Python
            _exit_now(130)
        return 130
    except BrokenPipeError:
        # The reader went away (`simbfs machines | head`): stop quietly, as cat does.
        _silence_stdout()
        return 0
    except OSError as exc:
        # Output that passed the checks but could not be written (a full disk, say).
        target = exc.filename or "the report to standard output"
        print(f"simbfs: error: cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return UserError.exit_status


def _exit_now(status: int) -> None:
    """Leave without waiting for work still running on threads (a
    projection's roots, bfs/parallel.py): Python's exit would join them,
    which took 11-40 s after Ctrl-C. Outputs are safe: none is written
    before the run ends, and a half-made one is a temporary file removed
    on the way out."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's exit flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _cmd_run(args) -> int:
    from . import outputs
    from .report import format_run, levels_csv
    from .runner import run

    targets = outputs.check_all({flag: path for flag, path in (("--json", args.json), ("--csv", args.csv),
                                                                 ("--plot", args.plot), ("--trace", args.trace))
                                 if path is not None})
    # data on standard output: the text report goes to stderr, so the two never mix
    report_stream = sys.stderr if outputs.writes_stdout(targets) else sys.stdout
    recorder = None
    if args.trace is not None:
        from .trace import TraceRecorder, parse_selection

        recorder = TraceRecorder(parse_selection(args.trace_nodes, "nodes"),
                                 parse_selection(args.trace_levels, "levels"))
    elif args.trace_nodes is not None or args.trace_levels is not None:
        raise UserError("--trace-nodes and --trace-levels choose what --trace writes; add --trace FILE.json")
    config = _run_config(args, validate=args.validate, **({"recorder": recorder} if recorder else {}))

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    # a bar with an ETA over the roots on a terminal; plain lines otherwise
    bar = (lambda total, unit: _progress(total, 0, unit, args.quiet)) if sys.stderr.isatty() and not args.quiet \
        else None
    if args.uncertainty is not None:
        from . import uncertainty

        if recorder is not None:
            raise UserError("--trace records one run; drop it, or --uncertainty, which runs many")
        doc = uncertainty.run(config, args.uncertainty, seed=args.sample_seed, jobs=args.jobs,
                              scheduler=args.scheduler, progress=progress, bar=bar)
    elif args.scheduler is not None or args.sample_seed != 1:
        raise UserError("--sample-seed and --scheduler apply to --uncertainty N; add it, or drop them")
    else:
        doc = run(config, progress, bar=bar)
    status = 1 if doc["validated"] and not doc["all_valid"] else 0
    # Files first: a closed stdout (`| head`) must not cost the user the
    # results. Every file is written to a temporary name before any is
    # put in place, so a failure leaves none of them behind.
    writers = {"--json": lambda tmp: Path(tmp).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n"),
               "--csv": lambda tmp: Path(tmp).write_text(levels_csv(doc)),
               "--plot": lambda tmp: _plot(doc, tmp),
               "--trace": lambda tmp: _trace(doc, recorder, tmp, args.quiet)}
    try:
        outputs.write_all({target: writers[flag] for flag, target in targets.items()})
    except Exception:
        # checked before simulating, and failed anyway (a full disk, say):
        # the results are still shown, and the error said once
        _print_report(format_run(doc), report_stream)
        raise
    _print_report(format_run(doc), report_stream)
    return status


def _run_config(args, **extra):
    from .runner import RunConfig

    return RunConfig(
        machine=args.machine, nodes=args.nodes, scale=args.scale, graph=args.graph,
        edgefactor=args.edgefactor, arity=args.arity, roots=args.roots, seed=args.seed,
        algorithm=args.algorithm, overrides=list(args.overrides), directed=args.directed, mode=args.mode,
        profile_scale=args.profile_scale, **extra)


def _cmd_sweep(args) -> int:
    from . import sweep

    # the grid, every point and --out, checked before anything is created
    grid = sweep.parse_grid(args.grid, args.file)
    if args.uncertainty is None and args.sample_seed != 1:
        raise UserError("--sample-seed applies to --uncertainty N; add it, or drop --sample-seed")
    samples = None if args.uncertainty is None else (args.uncertainty, args.sample_seed)
    if samples is not None:
        from .uncertainty import check_count

        check_count(args.uncertainty)
    points = sweep.expand(_run_config(args, validate=args.validate), grid, samples)
    store = sweep.SweepStore(args.out)
    store.check()
    with store:  # DIR is created and locked: a second sweep into it is refused
        return _sweep_points(args, sweep, grid, points, store)


def _sweep_points(args, sweep, grid, points, store) -> int:
    done = sum(store.done(point) for point in points)
    progress = _progress(len(points), done, "points", args.quiet)
    if not args.quiet:
        print(f"  {len(points)} points, {done} already done; running {len(points) - done} with "
              + (f"the Dask cluster at {args.scheduler}" if args.scheduler else f"{args.jobs} job(s)"),
              file=sys.stderr, flush=True)

    def stored(point, result):
        label = ", ".join(f"{k}={v}" for k, v in point.values)
        progress(label + ("" if result["status"] == "ok" else f": {result['error']}"))

    try:
        computed = sweep.compute(points, store, jobs=args.jobs, scheduler=args.scheduler, on_stored=stored,
                                 uncertainty=None if args.uncertainty is None else (args.uncertainty, args.sample_seed))
    finally:
        table = sweep.finish(points, grid, store)
        progress(None)
    failed = [row for row in table if row["status"] != "ok"]
    print(f"{len(table)} of {len(points)} points in {args.out / sweep.RESULTS} ({computed} computed now, "
          f"{len(failed)} failed)" + (f"; plot {args.out / sweep.PLOT}" if len(table) > len(failed) else ""))
    for row in failed:
        values = ", ".join(f"{key}={row[key]}" for key in grid)
        print(f"simbfs: error: point {values} failed: {row['error']}", file=sys.stderr)
    return 1 if failed else 0


def _cmd_reproduce(args) -> int:
    from . import reproduce
    from .dirlock import DirectoryLock

    machines = list(reproduce.MACHINES) if args.paper == "all" else [args.paper]
    out = args.out
    # the scripts, the claims file and --out, checked before anything is created
    total = reproduce.check(machines, out, args.include_validation)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create --out {out}: {exc.strerror or exc}") from None
    # one reproduction at a time in DIR: a second one would empty the first's script folders
    with DirectoryLock(out, reproduce.LOCK, "simbfs reproduce", "it reuses the scripts already done"):
        return _reproduce_into(args, reproduce, machines, out, total)


def _reproduce_into(args, reproduce, machines: list[str], out: Path, total: int) -> int:
    progress = _progress(total, 0, "scripts", args.quiet)

    def done(record):
        progress(f"{record['machine']}/{record['name']}" + (" FAILED" if record["error"] else ""))

    try:
        records = reproduce.reproduce(machines, out, args.quick, jobs=args.jobs, on_done=done,
                                      include_validation=args.include_validation)
    finally:
        progress(None)
    claims = reproduce.report(out, machines, records, args.quick)
    failed = [f"{r['machine']}/{r['name']}: {r['error']}" for r in records if r["error"]]
    verdicts = [row["verdict"] for rows in claims.values() for row in rows]
    print(f"{len(records)} scripts, {reproduce.verdict_summary(verdicts)}: {out / 'index.html'}, {out / 'claims.csv'}")
    for line in failed:
        print(f"simbfs: error: could not run {line}", file=sys.stderr)
    return 1 if failed else 0


def _progress(total: int, done: int, unit: str, quiet: bool):
    """A progress report for ``total`` items: a bar with an ETA (tqdm) when
    stderr is a terminal, else a plain line per item; nothing when quiet.
    Call it with a label per finished item, and with None at the end."""
    if quiet:
        return lambda label: None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total, initial=done, unit=unit[:-1] if unit.endswith("s") else unit, file=sys.stderr,
                   dynamic_ncols=True)

        def advance(label):
            if label is None:
                bar.close()
            else:
                bar.set_postfix_str(label[:60])
                bar.update(1)

        # what is happening inside the current item (a root's levels)
        advance.note = lambda text: bar.set_postfix_str(text[:70])
        return advance
    count = [done]

    def line(label):
        if label is not None:
            count[0] += 1
            print(f"  {unit[:-1] if unit.endswith('s') else unit} {count[0]}/{total}: {label}", file=sys.stderr,
                  flush=True)

    return line


def _cmd_calibrate(args) -> int:
    from . import outputs
    from .calibration import calibrate
    from .machine.loader import resolve_machine_path
    from .units import format_quantity

    out = args.out
    if out.suffix.lower() not in (".yaml", ".yml"):
        raise UserError(f"--out {out}: a machine file ends in .yaml (e.g. --out {out.with_suffix('.yaml')})")
    target = outputs.check("--out", out)
    if out.resolve() == resolve_machine_path(args.machine).resolve():
        raise UserError(f"--out {out} is the machine file being calibrated; the calibrated file extends it, so "
                        f"write it beside it under another name")

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    result = calibrate(_run_config(args), args.measured_teps, args.fit, progress)
    machine_arg = Path(args.machine)
    if machine_arg.suffix.lower() in (".yaml", ".yml") or machine_arg.exists():  # a file: extend it by its path
        parent = out.parent if str(out.parent) else Path(".")
        extends = os.path.relpath(machine_arg.resolve(), parent.resolve())
    else:
        extends = result.machine
    text = result.machine_file(out.stem, extends)
    outputs.write_all({target: lambda tmp: Path(tmp).write_text(text)})
    solution = result.solution
    print(f"calibrated {result.key} on {result.measurement}")
    def shown(value: float) -> str:
        return format_quantity(value, result.kind, 6) + (" cycles" if result.kind == "cycles" else "")

    print(f"  {result.key}: {shown(solution.value)} (was {shown(result.start)}, "
          f"x{solution.value / result.start:.4g})")
    print(f"  predicted {solution.teps / 1e9:.6g} GTEPS against the measured {result.measured_teps / 1e9:.6g} "
          f"({solution.teps / result.measured_teps - 1:+.2%}) after {len(solution.steps)} runs")
    print(f"  wrote {out}: runs on it say 'calibrated on ...'; report them next to {result.machine}'s")
    return 0


def _print_report(text: str, stream=None) -> None:
    try:
        print(text, file=stream or sys.stdout)
    except BrokenPipeError:
        _silence_stdout()  # the reader went away; the exit status still tells


def _trace(doc: dict, recorder, path: str, quiet: bool) -> None:
    from .trace import trace_document

    per_host = int(doc["machine_parameters"].get("network.processes_per_host", {}).get("value", 1))
    trace, notes = trace_document(doc, recorder, per_host)
    if not quiet:
        for note in notes:
            print(f"  trace: {note}", file=sys.stderr, flush=True)
    Path(path).write_text(json.dumps(trace, separators=(",", ":")) + "\n")


def _plot(doc: dict, path: str) -> None:
    from .plots import plot_run

    plot_run(doc, Path(path))


def _cmd_machines(args) -> int:
    from .machine import bundled_machines, load_machine
    from .report import describe_machine

    if args.describe:
        print(describe_machine(load_machine(args.describe)))
        return 0
    if args.keys:
        from .machine.schema import reference_table

        print(reference_table())
        return 0
    names = bundled_machines()
    width = max((len(n) for n in names), default=0)
    for name in names:
        try:
            description = load_machine(name).description
        except UserError as exc:  # list the rest; say what is wrong with this one
            description = f"(cannot be loaded: {str(exc).splitlines()[-1].strip()})"
        print(f"{name:<{width}}  {description}")
    print("\n`simbfs machines --describe NAME` shows every parameter with its source.", file=sys.stderr)
    return 0


def _cmd_algorithms() -> int:
    from .algorithms import ALGORITHMS

    for name in sorted(ALGORITHMS):
        algorithm = ALGORITHMS[name]
        source = f"seed {algorithm.paper}" if algorithm.paper else "generic"
        modes = "executed and projected" if algorithm.projection is not None else "executed only"
        print(f"{name}: {algorithm.summary}")
        print(f"    {source}; {modes}")
        for option in algorithm.OPTIONS:
            default = option.default
            shown = ("on" if default else "off") if isinstance(default, bool) else default
            print(f"    {option.name}={option.accepted()}" + ("" if shown is None else f"  (default {shown})")
                  + f": {option.help}")
    print(f"\ne.g. simbfs run bluegene_q --nodes 64 --scale 14 --algorithm "
          f"cp1d-spi:{ALGORITHMS['cp1d-spi'].option_example}", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
