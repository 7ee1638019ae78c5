"""BlueGene/Q's network and node model against section E's measurements
(../shared/reference/hardware-sources.md), as checks, not inputs.

    python experiments/bluegene_q/network_check.py

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

import numpy as np

from simbfs.algorithms.cp1d import pricing
from simbfs.engine import Simulation
from simbfs.engine.costs import link_seconds
from simbfs.engine.messaging import MPIMessages
from simbfs.machine import load_machine

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


def main() -> None:
    machine = load_machine("bluegene_q")
    net = machine.network
    print("all-to-all, 64 KiB a pair (Chen et al.: 85-95% of peak)")
    for nodes in (512, 1024, 4096):
        print(f"  {nodes:6d} nodes: {uniform_alltoall_efficiency(machine, nodes):.1%} of the raw peak")
    overhead = machine.section("cp1d").mpi_message_overhead_s
    print("MPI all-to-all with cp1d.mpi_message_overhead (Kumar et al.: over 90% at 65,536 ranks)")
    for nodes in (1024, 4096):
        for pair in (4 * KIB, 64 * KIB, 1024 * KIB):
            eff = uniform_alltoall_efficiency(machine, nodes, pair, overhead)
            print(f"  {nodes:6d} nodes, {pair // KIB:5d} KiB a pair: {eff:.1%}")
    big = 1 << 20
    print("adjacent-node transfer (Vishnu et al.: RDMA get 2.89 us, 1,775 MB/s)")
    print(f"  1 MiB payload rate on one link: {big / link_seconds(net.wire_bytes(big), net) / 1e6:,.0f} MB/s")
    one_way = 2 * overhead + net.hop_latency_s + link_seconds(net.wire_bytes(0.0, 1), net)
    print(f"  zero-byte MPI message one way: {one_way * 1e6:.2f} us (Kerbyson et al. measured 2.8 us)")
    print("RandomAccess (Chen et al.: 52 M updates/s a node at 16,384 nodes, network included)")
    rates = random_access_rates(machine, machine.node.memory_bytes / 2)
    for name, rate in rates.items():
        print(f"  node, {name}: {rate / 1e6:,.1f} M/s")
    node_rate = min(rates.values())
    print(f"  node: {node_rate / 1e6:,.1f} M/s")
    for nodes in (512, 4096):
        print(f"  torus at {nodes} nodes, 8 B updates: {torus_update_rate(machine, nodes) / 1e6:,.1f} M/s a node")


if __name__ == "__main__":
    main()
