"""BlueGene/Q Fig. 11 (seed 000, IV-C): performance against threads per node.

Executed: cp1d-spi with 1 to 64 threads per node (threads are spread over
the 16 A2 cores first, so hardware multithreading starts beyond 16).
Random accesses wait on the node memory hierarchy; a core's threads hide
each other's latency until its issue slots are full. Claim compared:
`bgq.thread_scaling` (trend: performance grows with threads, and beyond 16
threads hardware multithreading still helps). The paper's run is scale 34
on 1,024 nodes; this one is far smaller.

    python experiments/bluegene_q/fig11.py [--quick] [--out DIR]
"""

from __future__ import annotations
import sys
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402
from experiments.bluegene_q.sweep import sweep  # noqa: E402

THREADS = (1, 2, 4, 8, 16, 32, 64)
NODES, SCALE, ROOTS = 64, 18, 4
QUICK = (32, 12, 1)


def main(argv=None):
    args = B.parser(__doc__).parse_args(argv)
    out = lib.out_dir(args)
    nodes, scale, roots = QUICK if args.quick else (NODES, SCALE, ROOTS)
    threads = (1, 16, 64) if args.quick else THREADS
    print(f"Fig. 11, {B.reduced_size_note(nodes, scale)}")
    rows = sweep("fig11_threads", f"Threads per node, cp1d-spi, {nodes} nodes, scale {scale} (simulated)",
                 [(f"{t} threads", f"cp1d-spi:threads={t}", nodes, scale, ()) for t in threads], roots, out)
    teps = [r["harmonic_mean_gteps"] for r in rows]
    grows = all(b >= a for a, b in zip(teps, teps[1:]))
    smt = teps[-1] > teps[threads.index(16)]
    lib.trend("bgq.thread_scaling", grows,
              ", ".join(f"{value:.3f}" for value in teps) + f" GTEPS at {', '.join(map(str, threads))} threads",
              label="bgq.thread_scaling, grows with threads")
    lib.trend("bgq.thread_scaling", smt,
              f"{teps[-1]:.3f} GTEPS at {threads[-1]} threads against {teps[threads.index(16)]:.3f} at 16",
              label="bgq.thread_scaling, beyond 16 threads still helps")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
