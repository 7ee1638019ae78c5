"""BlueGene/Q Fig. 4 (seed 000): network bandwidth as a function of packet size.

The paper's Fig. 4 ("Network bandwidth as a function of packet size, for
various torus dimensions") is the measurement behind its packing of edges
into 512 B packets (III-B: sending edges individually "proves to be
extremely inefficient, due to the high overhead it imposes on the networking
subsystem"). Its values are not in the paper's text, so nothing here is
compared with numbers: this is a prediction from the `bluegene_q` machine
file (spec-sheet link, port and packet parameters plus its estimated
per-packet software overheads) through the engine's flow-level exchange
model, `Network.exchange_cost`.

The experiment: a uniform all-to-all in which every ordered pair of distinct
nodes exchanges PAIR_BYTES of payload, cut into packets of p payload bytes
(the packet count matrix ceil(bytes / p) is passed explicitly), on torus
partitions of increasing size and dimensionality. The per-node delivered
bandwidth is the payload a node sends, (N - 1) x PAIR_BYTES, divided by the
exchange time. Packet sizes are multiples of the 32 B granule: the engine
pads only a buffer's total payload to the granule, so for other sizes it
would under-count padding when the packet count is given (see
docs/validation.md).

    python experiments/bluegene_q/fig4.py [--quick] [--out DIR]
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
import simpy  # noqa: E402

from experiments import lib  # noqa: E402
from experiments.bluegene_q import bgq as B  # noqa: E402

from simbfs.engine import Network, make_topology  # noqa: E402
from simbfs.machine import load_machine  # noqa: E402


PAIR_BYTES = 64 * 1024  # payload every ordered pair exchanges
PACKET_SIZES = (32, 64, 96, 128, 192, 256, 384, 512)  # payload bytes per packet, multiples of the granule
# Torus partitions of simbfs/machines/bluegene_q.yaml, 2x2x2x2x2 up to 4x4x8x16x2.
# 4096 is the largest whose N x N matrices (128 MiB each, a few at once)
# fit comfortably; 8192 would need about 4 GiB of temporaries per exchange.
PARTITIONS = (32, 128, 512, 1024, 2048, 4096)
QUICK_PARTITIONS = (32, 128)
QUICK_PACKET_SIZES = (32, 64, 128, 256, 512)


def closed_form_bound(p: float, shape: tuple[int, ...], machine) -> float:
    """An upper bound on the per-node payload bandwidth (B/s) of the uniform
    all-to-all with p-byte packets, independent of the engine's routing code.

    * injection: a node's port carries (p + header) wire bytes per p payload
      bytes, so at most injection_bandwidth x p / (p + header);
    * bisection: cutting the longest ring (extent n) in half cuts 2 N / n
      links per direction, which must carry the (N/2)^2 pair buffers that
      cross; this gives at most 8 x link_bandwidth / n x p / (p + header)
      (for n = 2 the two links joining the pair are both cut);
    * software: every packet costs one node send_overhead and another
      receive_overhead, and in the uniform exchange every node sends and
      receives as many packets, so at most p / (send + receive overhead).
    p must divide PAIR_BYTES and be a multiple of the granule (no padding).
    """
    net, msg = machine.network, machine.messaging
    efficiency = p / (p + net.packet_header_bytes)
    injection = net.injection_bandwidth_Bps * efficiency
    bisection = 8 * net.link_bandwidth_Bps / max(shape) * efficiency
    software = p / (msg.send_overhead_s + msg.receive_overhead_s)
    return min(injection, bisection, software)


def measure(nodes: int, packet_sizes, machine) -> list[dict]:
    lib.note_mode("modelled")  # the network model's exchange on its own, no search
    topology = make_topology(machine.network, nodes)
    network = Network(simpy.Environment(), topology, machine.network, machine.messaging)
    payload = np.full((nodes, nodes), float(PAIR_BYTES))
    np.fill_diagonal(payload, 0.0)
    sent = (nodes - 1) * PAIR_BYTES
    rows = []
    for p in packet_sizes:
        packets = np.ceil(payload / p)
        cost = network.exchange_cost(payload, packets)
        bandwidth = sent / cost.time_s
        pair_wire = float(machine.network.wire_bytes(PAIR_BYTES, math.ceil(PAIR_BYTES / p)))
        link_time = topology.uniform_max_link_load(pair_wire) / machine.network.link_bandwidth_Bps
        rows.append({
            "nodes": nodes, "shape": "x".join(str(x) for x in topology.shape), "packet_payload_B": p,
            "bandwidth_GBps": bandwidth / 1e9,
            "fraction_of_link": bandwidth / machine.network.link_bandwidth_Bps,
            "busiest_link_utilisation": link_time / cost.time_s,
            "bound_GBps": closed_form_bound(p, topology.shape, machine) / 1e9,
            "time_s": cost.time_s, "serialisation_s": cost.serialisation_s, "overhead_s": cost.overhead_s,
            "latency_s": cost.latency_s, "bottleneck": cost.bottleneck,
            "wire_over_payload": cost.wire_bytes / cost.payload_bytes,
        })
    return rows


def plot(rows: list[dict], path: Path, link_Bps: float) -> None:
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for nodes in sorted({row["nodes"] for row in rows}):
        mine = [row for row in rows if row["nodes"] == nodes]
        ax.plot([r["packet_payload_B"] for r in mine], [r["bandwidth_GBps"] for r in mine], marker="o",
                label=f"{nodes} nodes ({mine[0]['shape']})")
    ax.axhline(link_Bps / 1e9, color="grey", linestyle=":", label="one link, 2 GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("packet payload (bytes)")
    ax.set_ylabel("per-node delivered bandwidth (GB/s)")
    ax.set_title("BlueGene/Q uniform all-to-all, simbfs flow model (predicted)")
    ax.legend(fontsize=8, title="partitions with the same longest ring coincide", title_fontsize=8)
    ax.grid(True, alpha=0.3)
    lib.save_figure(fig, path)


def main(argv=None) -> list[dict]:
    args = B.parser(__doc__, "two small partitions (seconds), for the tests").parse_args(argv)
    out = lib.out_dir(args)
    machine = load_machine(B.machine())
    partitions = QUICK_PARTITIONS if args.quick else PARTITIONS
    sizes = QUICK_PACKET_SIZES if args.quick else PACKET_SIZES
    start = time.perf_counter()
    rows = []
    for nodes in partitions:
        rows.extend(measure(nodes, sizes, machine))
    elapsed = time.perf_counter() - start

    lib.write_csv(out / "fig4_bandwidth.csv", rows)
    plot(rows, out / "fig4_bandwidth.png", machine.network.link_bandwidth_Bps)

    print(f"Fig. 4: per-node bandwidth (GB/s) of a uniform all-to-all, {PAIR_BYTES // 1024} KiB per pair, "
          f"on {B.machine()} (predicted)")
    print(f"{'nodes':>6} {'shape':>11} " + "".join(f"{p:>7}B" for p in sizes))
    for nodes in partitions:
        mine = [row for row in rows if row["nodes"] == nodes]
        print(f"{nodes:>6} {mine[0]['shape']:>11} " + "".join(f"{r['bandwidth_GBps']:>8.3f}" for r in mine))
    print(f"\nAt {sizes[-1]} B packets (the machine's largest):")
    print(f"{'nodes':>6} {'GB/s':>7} {'of 2 GB/s link':>15} {'busiest link busy':>18} {'bottleneck':>11}"
          f" {'x of 32 B rate':>15}")
    for nodes in partitions:
        mine = [row for row in rows if row["nodes"] == nodes]
        last = mine[-1]
        print(f"{nodes:>6} {last['bandwidth_GBps']:>7.3f} {last['fraction_of_link']:>15.1%}"
              f" {last['busiest_link_utilisation']:>18.1%} {last['bottleneck']:>11}"
              f" {last['bandwidth_GBps'] / mine[0]['bandwidth_GBps']:>15.2f}")
    rising = all(
        all(b["bandwidth_GBps"] >= a["bandwidth_GBps"] for a, b in zip(mine, mine[1:]))
        for mine in ([r for r in rows if r["nodes"] == n] for n in partitions))
    print("\nComparison with the paper (000, III-B, Fig. 4):")
    print("  Fig. 4's values are not in the paper's text and claims.yaml has no Fig. 4 claim:"
          " only the shape can be discussed.")
    print(f"  shape: bandwidth rises with packet size on every partition: {'yes' if rising else 'NO'}"
          " (40 B of header and trailer per packet and per-packet software overhead,"
          " the paper's reason for packing edges)")
    by_ring = {}
    for nodes in partitions:
        last = [r for r in rows if r["nodes"] == nodes][-1]
        by_ring.setdefault(max(int(x) for x in last["shape"].split("x")), []).append(last["bandwidth_GBps"])
    rings = sorted(by_ring)
    falling = all(min(by_ring[a]) >= max(by_ring[b]) for a, b in zip(rings, rings[1:]))
    print(f"  at {sizes[-1]} B the rate depends on the longest ring: "
          + ", ".join(f"longest ring {n}: {min(v):.3f}-{max(v):.3f} GB/s" for n, v in by_ring.items())
          + f"; {'falls' if falling else 'does NOT fall'} as the longest ring grows (bisection per node ~ 1/ring)")
    print(f"({elapsed:.1f} s)")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
