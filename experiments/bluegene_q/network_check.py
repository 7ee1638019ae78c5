"""BlueGene/Q's network and node model against section E's measurements
(../shared/reference/hardware-sources.md), as checks, not inputs.

    python experiments/bluegene_q/network_check.py [--quick] [--out DIR]

Writes network_check.csv (one row per check: the measurement, the model's
value for the same operation, their ratio) and network_check.png.

Prints, for each measurement, what the model gives for the same operation:

* all-to-all efficiency (Chen et al., SC12: 85-95% of peak up to 16K
  nodes): a uniform all-to-all of 64 KiB a pair, executed by the engine
  (Network.exchange_cost) on 512, 1,024 and 4,096 nodes, against the
  torus's raw peak for that pattern (every link of the longest dimension
  busy with the bisection's share, at the raw 2 GB/s);
* MPI_Alltoall over 90% of peak at 65,536 ranks (Kumar et al.): the same
  closed form with cp1d-mpi's per-message overhead, which sets the message
  size above which the model reaches 90%;
* the adjacent-node RDMA get (Vishnu et al., IPDPSW 2013: 2.89 us,
  1,775 MB/s): a large message between neighbours, and a small one's
  latency with the MPI overhead;
* HPCC RandomAccess (Chen et al., SC12: 858 GUPS on 16,384 nodes, 52 M
  updates a second a node, network included): the model's per-node rate of
  random read-modify-writes of 8 B words in a table of half the memory,
  by the cp1d pricing (cp1d/pricing.py), and its torus's rate of 8 B
  updates at 16,384 nodes.

The closed forms are in tests/test_bgq_section_e.py too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

if not __package__:  # run as a file: make `experiments` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments import lib  # noqa: E402

from simbfs.algorithms.cp1d import pricing  # noqa: E402
from simbfs.engine import Simulation  # noqa: E402
from simbfs.engine.costs import link_seconds  # noqa: E402
from simbfs.engine.messaging import MPIMessages  # noqa: E402
from simbfs.machine import load_machine  # noqa: E402

KIB = 1024


def uniform_alltoall_efficiency(machine, nodes: int, pair_bytes: float = 64 * KIB, overhead_s: float = 0.0):
    """Payload a uniform all-to-all of ``pair_bytes`` a pair delivers, as a
    share of what the torus's links could carry raw: the busiest link's raw
    time over the exchange's time (engine: Network.exchange_cost), with
    ``overhead_s`` of software per message at each end (0: the network
    alone, as the measurement drives it)."""
    network = Simulation(machine, nodes).context().network
    payload = np.full((nodes, nodes), float(pair_bytes))
    np.fill_diagonal(payload, 0.0)
    layer = MPIMessages(overhead_s)
    cost = network.exchange_cost(payload, messaging=layer)
    loads = network.traffic_loads(payload)
    # the same link loads carried as raw bytes with no packet format
    raw_s = loads.link_s * machine.network.packet_payload_bytes / (
        machine.network.packet_payload_bytes + machine.network.packet_header_bytes)
    return raw_s / cost.time_s


def random_access_rates(machine, table_bytes: float) -> dict:
    """The model's per-node rate of HPCC RandomAccess updates: each a
    read-modify-write of an 8 B word at a random place in a table of
    ``table_bytes``, priced as cp1d prices a bitmap test-and-set ("rmw":
    the read stalls its thread, a miss moves the line in and, dirty, out),
    at the claim's issue cycles. Returns each bound in updates a second."""
    cp = machine.section("cp1d")
    threads = cp.threads
    residents = pricing.Residents(bitmaps=table_bytes, parents=0.0, buffers=0.0)
    counts = {"claim": 1.0e6}
    cycles = pricing.op_cycles(machine, threads, residents, counts, compression=False)["claim"]
    memory_s = pricing.memory_seconds(machine, residents, counts)
    scattered_s = pricing.scattered_seconds(machine, residents, counts)
    clock = machine.node.clock_hz
    return {"threads": threads * clock / cycles, "memory bandwidth": counts["claim"] / memory_s,
            "miss parallelism": counts["claim"] / scattered_s if scattered_s else float("inf")}


def torus_update_rate(machine, nodes: int, update_bytes: float = 8.0) -> float:
    """Updates a second a node the torus carries in a uniform all-to-all of
    ``update_bytes`` each (full packets), by the engine's link loads."""
    network = Simulation(machine, nodes).context().network
    pair = 64 * KIB
    payload = np.full((nodes, nodes), float(pair))
    np.fill_diagonal(payload, 0.0)
    loads = network.traffic_loads(payload)
    per_node = pair * (nodes - 1)
    return per_node / update_bytes / max(loads.link_s, float(loads.inject_s.max()))


def checks(quick: bool) -> list[dict]:
    """Every check as a row: what was measured, the model's value for the
    same operation, and the model over the measurement."""
    machine = load_machine("bluegene_q")
    net = machine.network
    sizes = (512,) if quick else (512, 1024, 4096)
    rows = []

    def row(check: str, measured: float, model: float, unit: str, source: str) -> None:
        rows.append({"check": check, "measured": measured, "model": model, "unit": unit,
                     "model_over_measured": model / measured, "source": source})
        print(f"  {check}: model {model:,.4g} {unit}, measured {measured:,.4g} ({model / measured:.2f}x)")

    print("all-to-all, 64 KiB a pair (Chen et al.: 85-95% of peak)")
    for nodes in sizes:
        row(f"all-to-all efficiency, {nodes} nodes", 0.90, uniform_alltoall_efficiency(machine, nodes), "of peak",
            "Chen et al., SC12: 85-95% (mid-range)")
    overhead = machine.section("cp1d").mpi_message_overhead_s
    print("MPI all-to-all with cp1d.mpi_message_overhead (Kumar et al.: over 90% at 65,536 ranks)")
    for nodes in sizes[-1:]:
        row(f"MPI all-to-all efficiency, {nodes} nodes, 1 MiB a pair", 0.90,
            uniform_alltoall_efficiency(machine, nodes, 1024 * KIB, overhead), "of peak",
            "Kumar et al.: over 90% at 65,536 ranks")
    big = 1 << 20
    print("adjacent-node transfer (Vishnu et al.: RDMA get 2.89 us, 1,775 MB/s)")
    row("neighbour bandwidth, 1 MiB", 1775.0, big / link_seconds(net.wire_bytes(big), net) / 1e6, "MB/s",
        "Vishnu et al., IPDPSW 2013: RDMA get")
    one_way = 2 * overhead + net.hop_latency_s + link_seconds(net.wire_bytes(0.0, 1), net)
    row("zero-byte MPI message, one way", 2.8, one_way * 1e6, "us", "Kerbyson et al., ICPADS 2012")
    print("RandomAccess (Chen et al.: 52 M updates/s a node at 16,384 nodes, network included)")
    rates = random_access_rates(machine, machine.node.memory_bytes / 2)
    row("RandomAccess updates a node", 858e9 / 16384 / 1e6, min(rates.values()) / 1e6, "M/s",
        "Chen et al., SC12: 858 GUPS on 16K nodes")
    return rows


def main(argv=None) -> list[dict]:
    args = lib.parse_args(__doc__, "bluegene_q", argv)
    out = lib.out_dir(args)
    rows = checks(args.quick)
    plt = lib.pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.5 + 0.45 * len(rows)))
    ax.barh([r["check"] for r in rows], [r["model_over_measured"] for r in rows], color="C0")
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel("model / measurement")
    ax.set_title("BlueGene/Q model against section E's measurements")
    ax.invert_yaxis()
    lib.save(fig, rows, out, "network_check")
    print(f"wrote {out / 'network_check.csv'}")
    return rows


if __name__ == "__main__":
    lib.exit_on_user_error(main)
