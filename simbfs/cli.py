"""The `simbfs` command line.

    simbfs run MACHINE [options]     simulate Graph500 BFS on a machine model
    simbfs machines [--describe M | --keys]
                                     list the bundled machine models, or their keys

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
import tempfile
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
  simbfs run bluegene_q --nodes 65536 --scale 40 --algorithm cp1d-spi --mode project
      the paper's headline run, far too large for this computer, projected from
      real BFS runs on a scale-20 graph (about 30 s on 2 cores)
  simbfs run my_machine.yaml --nodes 64 --scale 14
      your own machine file (start from a bundled one: see `simbfs machines`)

The TEPS printed are *simulated*: edges of the root's component divided by
the simulated BFS time on the modelled machine. Every BFS tree is checked
with the five Graph500 validation rules unless --no-validate is given.
Generated graphs are cached in $SIMBFS_CACHE (default ~/.cache/simbfs).
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


def build_parser() -> argparse.ArgumentParser:
    from .algorithms import ALGORITHMS

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
    run.add_argument("machine", metavar="MACHINE",
                     help="a bundled machine name (see `simbfs machines`) or the path of a machine YAML file")
    run.add_argument("--nodes", type=_positive_int, metavar="N",
                     help="simulated nodes (default: the machine's nodes.default); a torus needs a partition size")
    run.add_argument("--scale", type=_positive_int, metavar="S",
                     help="graph of 2^S vertices (default: the machine's graph: scale, else 16)")
    run.add_argument("--graph", choices=("kronecker", "uniform"),
                     help="Graph500 Kronecker graph, or the uniform-arity graph of the Cell paper (default: the "
                          "machine's; cell_be: uniform, the others: kronecker)")
    run.add_argument("--edgefactor", type=_positive_int, metavar="E",
                     help="Kronecker edges per vertex (default 16, as Graph500)")
    run.add_argument("--arity", type=_positive_float, metavar="A",
                     help="uniform graph: each vertex's arity is uniform in [0, 2A] (default: the machine's, else 16)")
    direction = run.add_mutually_exclusive_group()
    direction.add_argument("--directed", dest="directed", action="store_const", const=True, default=None,
                           help="uniform graph: keep each generated pair (v, w) as the edge v->w only "
                                "(the Cell paper's graphs; the default for the cell-* algorithms)")
    direction.add_argument("--undirected", dest="directed", action="store_const", const=False,
                           help="uniform graph: every pair is an edge both ways (the default otherwise)")
    run.add_argument("--roots", type=_positive_int, default=8, metavar="K",
                     help="search keys to run (default 8; Graph500 uses 64)")
    run.add_argument("--seed", type=_non_negative_int, default=1, metavar="X",
                     help="seed of the graph and of the search keys (default 1)")
    run.add_argument("--algorithm", metavar="NAME",
                     help="BFS variant: " + ", ".join(sorted(ALGORITHMS)) + " (default: the machine's). "
                          "cp1d-* take options after a colon, e.g. cp1d-spi:compression=off,threads=16 "
                          "(direction-optimising, compression, load-balancing: on/off; representation: "
                          "coarse-index, skip-list or edge-list; threads)")
    run.add_argument("--mode", choices=("execute", "project"), default="execute",
                     help="execute the BFS on the generated graph (default), or project a run too large "
                          "for this computer from a BFS profile at a smaller scale (bsp1d-*, cp1d-* and cp2d "
                          "on Kronecker graphs; every output then says 'projected')")
    run.add_argument("--profile-scale", type=_positive_int, metavar="S",
                     help="--mode project: scale of the executed BFS profile (default: min(--scale, 20))")
    run.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                     help="override a machine parameter for a what-if study, e.g. "
                          "--set network.link_bandwidth='4 GB/s' (repeatable)")
    run.add_argument("--json", type=Path, metavar="PATH", help="also write the result as a JSON document")
    run.add_argument("--csv", type=Path, metavar="PATH",
                     help="also write the per-level records of every root as CSV (one row per root and level)")
    run.add_argument("--plot", type=Path, metavar="PATH",
                     help="also draw the middle root's per-level time split and the TEPS of every root (PNG)")
    run.add_argument("--no-validate", dest="validate", action="store_false",
                     help="skip Graph500 validation of the BFS trees (the output says so)")
    run.add_argument("--quiet", action="store_true", help="no progress messages on stderr")

    machines = sub.add_parser("machines", help="list the bundled machine models",
                              description="List the bundled machine models, or describe one parameter by parameter.")
    machines.add_argument("--describe", metavar="MACHINE",
                          help="print every parameter of MACHINE with its value and source")
    machines.add_argument("--keys", action="store_true",
                          help="print every key a machine file may contain, as a Markdown table "
                               "(the one in docs/reference/machine-files.md)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            return _cmd_run(args)
        return _cmd_machines(args)
    except UserError as exc:
        print(f"simbfs: error: {exc}", file=sys.stderr)
        return UserError.exit_status
    except KeyboardInterrupt:
        print("simbfs: interrupted", file=sys.stderr)
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


def _silence_stdout() -> None:
    """Point stdout at /dev/null so Python's exit flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _cmd_run(args) -> int:
    from .report import format_run, levels_csv
    from .runner import RunConfig, run

    outputs = {flag: path for flag, path in (("--json", args.json), ("--csv", args.csv), ("--plot", args.plot))
               if path is not None}
    _check_outputs(outputs)
    config = RunConfig(
        machine=args.machine, nodes=args.nodes, scale=args.scale, graph=args.graph,
        edgefactor=args.edgefactor, arity=args.arity, roots=args.roots, seed=args.seed,
        algorithm=args.algorithm, overrides=list(args.overrides), validate=args.validate,
        directed=args.directed, mode=args.mode, profile_scale=args.profile_scale,
    )

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"  {message}", file=sys.stderr, flush=True)

    doc = run(config, progress)
    status = 1 if doc["validated"] and not doc["all_valid"] else 0
    # Files first: a closed stdout (`| head`) must not cost the user the
    # results. Every file is written to a temporary name before any is
    # renamed into place, so a failure leaves none of them behind.
    writers = {args.json: lambda tmp: Path(tmp).write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n"),
               args.csv: lambda tmp: Path(tmp).write_text(levels_csv(doc)),
               args.plot: lambda tmp: _plot(doc, tmp)}
    try:
        _write_all({path: write for path, write in writers.items() if path is not None})
    except Exception:
        # checked before simulating, and failed anyway (a full disk, say):
        # the results are still shown, and the error said once
        _print_report(format_run(doc))
        raise
    _print_report(format_run(doc))
    return status


def _print_report(text: str) -> None:
    try:
        print(text)
    except BrokenPipeError:
        _silence_stdout()  # the reader went away; the exit status still tells


def _plot(doc: dict, path: str) -> None:
    from .plots import plot_run

    plot_run(doc, Path(path))


def _write_all(writers: dict) -> None:
    """Write every output to a temporary file beside it (short names, so a
    long target name still fits), then rename them all into place."""
    written: list[tuple[str, Path]] = []
    try:
        for path, write in writers.items():
            parent = path.parent if str(path.parent) else Path(".")
            fd, tmp = tempfile.mkstemp(prefix=".simbfs-", suffix=path.suffix, dir=parent)
            os.close(fd)
            written.append((tmp, path))
            write(tmp)
    except BaseException as exc:
        for tmp, _ in written:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            target = written[-1][1] if written else "an output file"
            raise UserError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
    for tmp, path in written:
        _publish(tmp, path)


def _publish(tmp: str, path: Path) -> None:
    """Give the finished temporary file the permissions of a normally created
    file (mkstemp makes it private), then rename it into place."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, path)


PLOT_FORMATS = ("png", "pdf", "svg")


def _check_outputs(outputs: dict[str, Path]) -> None:
    """Refuse, before any work, output paths that could not be written."""
    seen: dict[Path, str] = {}
    for flag, path in outputs.items():
        parent = path.parent if str(path.parent) else Path(".")
        if path.resolve() in seen:
            raise UserError(f"{seen[path.resolve()]} and {flag} both name {path}; give each output its own file")
        seen[path.resolve()] = flag
        if flag == "--plot" and path.suffix.lower().lstrip(".") not in PLOT_FORMATS:
            raise UserError(f"--plot {path}: the picture's format comes from its extension, which must be one of "
                            f"{', '.join('.' + f for f in PLOT_FORMATS)} (e.g. --plot {path.with_suffix('.png')})")
        blocker = next((p for p in (parent, *parent.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            raise UserError(f"cannot write {flag} {path}: {blocker} is a file, not a directory")
        if not parent.is_dir():
            raise UserError(f"cannot write {flag} {path}: directory {parent} does not exist; create it first")
        if path.is_dir():
            raise UserError(f"{flag} {path} is a directory; give a file name inside it")
        _try_creating_in(parent, flag, path)


def _try_creating_in(parent: Path, flag: str, path: Path) -> None:
    """Create and remove a file beside the output: the only sure test that
    it can be written (permission bits say yes on /proc, or a read-only
    file system)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".simbfs-", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UserError(f"cannot write {flag} {path}: cannot create files in {parent} "
                        f"({exc.strerror or exc})") from None


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
    print("\n`simbfs machines --describe NAME` shows every parameter with its source.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
