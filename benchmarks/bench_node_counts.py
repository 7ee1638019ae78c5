"""Executed runs at the papers' node counts: wall time and peak memory.

Every case is one ``simbfs run`` in a child process, measured from outside:
its wall time, and its peak resident memory as the kernel counts it for
that child alone (``os.wait4``'s rusage, the figure ``/usr/bin/time -v``
prints as "Maximum resident set size"). Three tables:

* ``nodes``: cp1d-spi on bluegene_q at a fixed number of vertices per node
  (the graph grows with the machine), so that executed time and memory
  that grow no faster than linearly in the nodes show as a flat or falling
  column of seconds and MB per node;
* ``scale``: cp1d-spi on 4,096 nodes, scale by scale;
* ``edge``: each paper algorithm's bytes per input edge, from two runs of
  the same command at two scales, (peak at the larger - peak at the
  smaller) / (the difference of their input edges): the per-edge cost,
  without the interpreter and the libraries, which both runs pay alike.

The runs use the graph cache, so a graph is generated once (run the
benchmark twice to time runs that read it, as a user's second run does).

    python benchmarks/bench_node_counts.py [--tables nodes,scale,edge] [--quick]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from _common import describe_computer

# (label, simbfs run arguments)
NODES = [(nodes, ["bluegene_q", "--nodes", str(nodes), "--scale", str(scale), "--roots", "1"])
         for nodes, scale in ((1024, 16), (4096, 18), (16384, 20), (65536, 22))]
SCALE = [(scale, ["bluegene_q", "--nodes", "4096", "--scale", str(scale), "--roots", "1"])
         for scale in (18, 20, 22, 24)]
# algorithm -> its paper machine and nodes; the per-edge cost from scales 20 and 22
EDGE = {
    "cp1d-spi": ["bluegene_q", "--nodes", "1024"],
    "cp1d-mpi": ["bluegene_q", "--nodes", "1024"],
    "cp2d": ["bluegene_q", "--nodes", "1024"],
    "lin1d": ["sunway_taihulight", "--nodes", "1024"],
    "ueno2d": ["tsubame2", "--nodes", "1024"],
}
EDGE_SCALES = (20, 22)


def measure(arguments: list[str]) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one ``simbfs run`` child."""
    command = [sys.executable, "-m", "simbfs", "run", *arguments, "--quiet"]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return wall, usage.ru_maxrss / 1024.0  # Linux: kB


def input_edges(arguments: list[str]) -> float:
    scale = int(arguments[arguments.index("--scale") + 1])
    return 16.0 * 2**scale  # Graph500's edgefactor 16


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="nodes,scale,edge")
    parser.add_argument("--quick", action="store_true", help="the two smallest cases of each table")
    args = parser.parse_args(argv)
    tables = args.tables.split(",")
    print(f"# {describe_computer()}; {os.cpu_count()} cores")
    if "nodes" in tables:
        print("\n| nodes | scale | vertices per node | wall s | peak MB | peak kB per node |")
        print("|---|---|---|---|---|---|")
        for nodes, arguments in NODES[:2] if args.quick else NODES:
            wall, peak = measure(arguments)
            scale = int(arguments[arguments.index("--scale") + 1])
            print(f"| {nodes:,} | {scale} | {2**scale // nodes} | {wall:.1f} | {peak:,.0f} | "
                  f"{peak * 1024 / nodes:,.1f} |", flush=True)
    if "scale" in tables:
        print("\n| nodes | scale | input edges | wall s | peak MB | bytes per input edge |")
        print("|---|---|---|---|---|---|")
        for scale, arguments in SCALE[:2] if args.quick else SCALE:
            wall, peak = measure(arguments)
            edges = input_edges(arguments)
            print(f"| 4,096 | {scale} | {edges:,.0f} | {wall:.1f} | {peak:,.0f} | {peak * 2**20 / edges:.0f} |",
                  flush=True)
    if "edge" in tables:
        print(f"\n| algorithm | machine, nodes | peak MB at scale {EDGE_SCALES[0]} | at {EDGE_SCALES[1]} | "
              f"bytes per input edge |")
        print("|---|---|---|---|---|")
        for algorithm, base in list(EDGE.items())[:2] if args.quick else EDGE.items():
            peaks, edges = [], []
            for scale in EDGE_SCALES:
                arguments = [*base, "--scale", str(scale), "--roots", "1", "--algorithm", algorithm]
                peaks.append(measure(arguments)[1])
                edges.append(input_edges(arguments))
            per_edge = (peaks[1] - peaks[0]) * 2**20 / (edges[1] - edges[0])
            print(f"| {algorithm} | {base[0]}, {int(base[2]):,} | {peaks[0]:,.0f} | {peaks[1]:,.0f} | "
                  f"{per_edge:.0f} |", flush=True)


if __name__ == "__main__":
    main()
