"""The A2's work priced per kind of access (cp1d/pricing.py: ACCESSES,
miss_lines, miss_parallelism, scattered_seconds), and BlueGene/Q's model
set against the measurements of hardware-sources.md, section E, as checks
(experiments/bluegene_q/network_check.py prints them)."""

import json

import numpy as np
import pytest

from simbfs.algorithms.cp1d import pricing
from simbfs.cli import main
from simbfs.engine import Simulation
from simbfs.engine.costs import link_seconds
from simbfs.engine.messaging import MPIMessages
from simbfs.machine import load_machine
from tests.conftest import tiny_machine

MiB = 2**20


def four_threads_on_four_cores(**changes):
    """The fixture machine with 4 cores and the cp1d section, 4 threads: k = 1."""
    given = {"node.cores": 4, "node.threads_per_core": 4, "cp1d.threads": 4, **changes}
    return tiny_machine("node.memory_hierarchy", "cp1d",
                        **{key: {"value": value, "source": "test"} for key, value in given.items()})


# ------------------------------------------------------ kinds of access
def test_a_claim_waits_for_its_visited_word_but_not_for_its_parent_store():
    """The fixture: a hit 10 cycles, a miss 100, claim issues 9. Bitmaps that
    fit the 1 MiB cache, parents 64 times its size: the Vis word's read
    stalls the thread (9 cycles and its expected latency at k = 1: 10 on a
    hit, 100 on a miss, the bitmaps hitting h of the time as the parents'
    lines pass through the cache), the parent's store goes to the store
    queue and adds nothing (the parents hit about 1/64 of the time)."""
    machine = four_threads_on_four_cores()
    residents = pricing.Residents(bitmaps=MiB / 4, parents=64 * MiB, buffers=0.0)
    counts = {"claim": 1e6}
    h = pricing.hit_rates(machine, residents, counts)
    assert h["bitmaps"] > 0.9 and h["parents"] < 0.05
    costs = pricing.op_cycles(machine, 4, residents, counts, compression=False)
    assert costs["claim"] == pytest.approx(9 + 10 * h["bitmaps"] + 100 * (1 - h["bitmaps"]))


def test_a_scattered_store_that_misses_moves_its_line_in_and_out():
    """n parent stores alone into parents of 64 cache sizes hit C/S = 1/64
    of the time (Che, one structure); each miss fills its 64 B line and
    writes it back dirty: n x 63/64 x 2 lines at 1 GB/s. A bit test into
    the same bytes moves one line per miss."""
    machine = four_threads_on_four_cores()
    n = 1e6
    parents = pricing.Residents(bitmaps=0.0, parents=64 * MiB, buffers=0.0)
    hits = pricing.hit_rates(machine, parents, {"claim": n})
    assert hits["parents"] == pytest.approx(1 / 64, rel=1e-6)
    assert pricing.memory_seconds(machine, parents, {"claim": n}) == pytest.approx(n * 63 / 64 * 2 * 64 / 1e9,
                                                                                   rel=1e-6)
    bitmaps = pricing.Residents(bitmaps=64 * MiB, parents=0.0, buffers=0.0)
    assert pricing.memory_seconds(machine, bitmaps, {"bitmap_test": n}) == pytest.approx(n * 63 / 64 * 64 / 1e9,
                                                                                         rel=1e-6)


def test_scattered_reads_wait_at_the_cores_miss_parallelism():
    """cp1d.load_misses_per_core = 2 on 4 cores: 8 reads outstanding. n bit
    tests into bitmaps of twice the cache hit 1/2 of the time and wait
    (10 + 100) / 2 = 55 cycles each: n x 55 / 8 ns at 1 GHz, more than
    their lines need at 100 GB/s (n / 2 x 64 B: 0.32 n ns); with no limit
    given, only the bandwidth bounds."""
    n = 1e6
    residents = pricing.Residents(bitmaps=2 * MiB, parents=0.0, buffers=0.0)
    limited = four_threads_on_four_cores(**{"cp1d.load_misses_per_core": 2, "node.memory_bandwidth": "100 GB/s"})
    assert pricing.miss_parallelism(limited) == 8
    assert pricing.scattered_seconds(limited, residents, {"bitmap_test": n}) == pytest.approx(n * 55 / 8 * 1e-9)
    assert pricing.memory_seconds(limited, residents, {"bitmap_test": n}) == pytest.approx(n * 55 / 8 * 1e-9)
    unlimited = four_threads_on_four_cores(**{"node.memory_bandwidth": "100 GB/s"})
    assert pricing.miss_parallelism(unlimited) is None
    assert pricing.memory_seconds(unlimited, residents, {"bitmap_test": n}) == pytest.approx(n * 0.32e-9)


def test_on_bluegene_q_the_cores_miss_parallelism_does_not_bind_the_threads_do():
    """16 cores x 8 outstanding load misses (A2 manual, p. 174) = 128;
    64 threads, each stalled on its own miss, keep at most 64 waiting, so
    a node's scattered reads take at least their latency over 64, which
    the threads' own time already holds: scattered_seconds is half of it."""
    machine = load_machine("bluegene_q")
    assert pricing.miss_parallelism(machine) == 128
    residents = pricing.Residents(bitmaps=6 * MiB, parents=128 * MiB, buffers=2 * MiB)
    counts = {"unpack": 1e7, "bitmap_test": 1e7, "claim": 1e6, "pack": 1e7, "edge_entry": 1e7}
    costs = pricing.op_cycles(machine, 64, residents, counts, compression=False)
    per_thread_s = sum(counts[k] * costs[k] for k in counts) / 64 / machine.node.clock_hz
    assert pricing.scattered_seconds(machine, residents, counts) < per_thread_s / 2 + 1e-12


# ------------------------------------------------------- section E, checked
RANDOM_ACCESS_PER_NODE = 858e9 / 16384  # Chen et al., SC12: 858 GUPS on 16K nodes


def test_the_model_node_does_random_updates_about_twice_as_fast_as_randomaccess_measured():
    """A check, not an input. An HPCC update is a read-modify-write of an 8
    B word at random in a table of half the node's memory: priced as a
    bitmap test-and-set, it misses the 32 MiB L2 (1 - 1/256 of the time)
    and moves two 128 B lines at 27.8 GB/s: 27.8e9 / (256 x 255/256) =
    109.0 M/s, below the 64 threads (249 M/s at 412 cycles) and the miss
    parallelism (128 x 1.6 GHz / 398.8 cycles = 514 M/s). The measured 52.4 M/s
    (network included) is 2.08x slower: the model's node is optimistic on
    random work by about that factor, which no component source here places."""
    machine = load_machine("bluegene_q")
    table = machine.node.memory_bytes / 2
    residents = pricing.Residents(bitmaps=table, parents=0.0, buffers=0.0)
    n = 1e6
    memory_rate = n / pricing.memory_seconds(machine, residents, {"claim": n})
    assert memory_rate == pytest.approx(27.8e9 / (256 * 255 / 256), rel=1e-3)
    cycles = pricing.op_cycles(machine, 64, residents, {"claim": n}, compression=False)["claim"]
    thread_rate = 64 * 1.6e9 / cycles
    assert thread_rate == pytest.approx(64 * 1.6e9 / (12 + 82 / 256 + 400 * 255 / 256), rel=1e-6)
    model = min(memory_rate, thread_rate, n / pricing.scattered_seconds(machine, residents, {"claim": n}))
    assert model / RANDOM_ACCESS_PER_NODE == pytest.approx(2.08, abs=0.02)


@pytest.mark.parametrize("nodes", [512, 1024])
def test_a_uniform_all_to_all_runs_within_the_measured_85_to_95_percent_of_peak(nodes):
    """Chen et al. (SC12): 85-95% of peak for all-to-all traffic. The
    engine's exchange (no software overhead) against the same link loads
    carried raw: 512 of 552 B a packet, 92.75%."""
    machine = load_machine("bluegene_q")
    network = Simulation(machine, nodes).context().network
    payload = np.full((nodes, nodes), 65536.0)
    np.fill_diagonal(payload, 0.0)
    cost = network.exchange_cost(payload, messaging=MPIMessages(0.0))
    raw = network.traffic_loads(payload).link_s * 512 / 552
    assert 0.85 <= raw / cost.time_s <= 0.95
    assert raw / cost.time_s == pytest.approx(512 / 552, rel=1e-3)


def test_a_large_neighbour_transfer_is_within_5_percent_of_the_measured_rdma_get():
    """Vishnu et al. (IPDPSW 2013): 1,775 MB/s for an adjacent-node RDMA get;
    the model's link carries 1 MiB of payload at 2 GB/s x 512/552 = 1,855
    MB/s (4.5% faster), and a zero-byte MPI message takes 2.8 us one way,
    the same order as the get's 2.89 us round trip over PAMI."""
    machine = load_machine("bluegene_q")
    net = machine.network
    rate = 2**20 / link_seconds(net.wire_bytes(2**20), net)
    assert rate == pytest.approx(1775e6, rel=0.05)
    assert rate == pytest.approx(2e9 * 512 / 552, rel=1e-3)
    one_way = 2 * machine.section("cp1d").mpi_message_overhead_s + net.hop_latency_s + link_seconds(
        net.wire_bytes(0.0, 1), net)
    assert one_way == pytest.approx(2.8e-6, rel=0.01)


# ------------------------------------------- the MPI code's passes and memory
def _mpi_gteps(tmp_path, name, *extra):
    out = tmp_path / f"{name}.json"
    assert main(["run", "bluegene_q", "--nodes", "32", "--scale", "14", "--algorithm", "cp1d-mpi", "--roots", "2",
                 "--quiet", "--json", str(out), *extra]) == 0
    return json.loads(out.read_text())["teps"]["harmonic_mean"]


def test_the_mpi_codes_passes_wait_for_their_memory_traffic_executed_and_projected(tmp_path):
    """cp1d-mpi's counting and writing passes sweep the same headers and
    entries as the SPI code's level, so they pay the same memory time
    (pricing.memory_seconds): with the memory a thousand times slower, both
    the executed and the projected run slow down."""
    for mode in ("execute", "project"):
        extra = ["--mode", mode]
        fast = _mpi_gteps(tmp_path, f"fast-{mode}", *extra)
        slow = _mpi_gteps(tmp_path, f"slow-{mode}", *extra, "--set", "node.memory_bandwidth=27.8MB/s")
        assert slow < fast / 2, (mode, fast, slow)
