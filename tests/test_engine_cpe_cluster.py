"""The SW26010 CPE clusters (simbfs/engine/devices/cpe_cluster.py). Every
expected value is fixed by a source other than the code: on the bundled
sunway_taihulight machine, the paper's text (seed 003, claims sunway.dma,
sunway.cpes_needed, sunway.register_bus) and the swCandle measurements of
hardware-sources.md B (SWC); on the fixture machine (tests/conftest.py,
SECTIONS["cpe_cluster"]), arithmetic worked by hand in the test."""

from dataclasses import replace

import pytest
import simpy
import yaml

from simbfs.claims import claim
from simbfs.engine import TimelineRecorder
from simbfs.engine.devices import attach_devices
from simbfs.engine.devices.cpe_cluster import CPEClusters
from simbfs.errors import UserError
from simbfs.machine import load_machine
from tests.conftest import tiny_machine, tiny_raw

MACHINE = load_machine("sunway_taihulight")
CPE = MACHINE.section("cpe_cluster")
# the fixture's clusters: 2 of 8 CPEs; DMA 1 GB/s at 8 B, +1 GB/s per
# doubling of the chunk to 4 GB/s at 64 B and beyond, reached by 2 CPEs;
# shuffle 2 GB/s; 4 producers, 2 routers, 2 consumers of 1 KiB; 64 B batches
TINY = tiny_machine("cpe_cluster").section("cpe_cluster")
GB = 1e9


# ----------------------------------------------------------------- DMA curve
@pytest.mark.parametrize("chunk", [256, 512, 1024, 4096, 16384, 1 << 20])
def test_a_cluster_reaches_28_9_GB_s_with_chunks_of_256_B_or_more(chunk):
    # sunway.dma (003, 3.2, Fig. 3): 28.9 GB/s with chunks >= 256 B
    assert CPE.dma_bandwidth(chunk) == pytest.approx(28.9 * GB, rel=claim("sunway.dma")["tolerance"])
    assert CPE.dma_seconds(28.9 * GB, chunk) == pytest.approx(1.0, rel=claim("sunway.dma")["tolerance"])


def test_below_256_B_the_curve_has_the_shape_of_the_swcandle_measurements():
    # hardware-sources.md B, SWC (one core group, 64 CPEs): 8 B 0.56, 64 B 2.37,
    # 128 B 4.01, 256 B 8.28 GB/s; only the ratios to 256 B are used (1% for rounding)
    for chunk, swc in ((8, 0.56), (64, 2.37), (128, 4.01)):
        assert CPE.dma_bandwidth(chunk) / CPE.dma_bandwidth(256) == pytest.approx(swc / 8.28, rel=0.01)
    # and smaller chunks are never faster
    chunks = [8, 16, 32, 64, 96, 128, 192, 256, 1024]
    rates = [CPE.dma_bandwidth(c) for c in chunks]
    assert rates == sorted(rates)


def test_a_random_access_is_one_blocking_dma_at_swcandles_measured_rate():
    """swCandle's DMA STREAM copy on 64 CPEs (hardware-sources.md E): 465.8
    MB/s at 8 B, counted as STREAM counts it (the chunk read and the chunk
    written), is 58.2 M DMAs a second per cluster: 17.2 ns a random 8 B
    access when all 64 CPEs make them, 1.1 us per DMA per CPE."""
    per_cluster = CPE.random_access_seconds(8)
    assert per_cluster == pytest.approx(8 / 465.8e6)
    assert 64 * per_cluster == pytest.approx(1.1e-6, rel=0.01)
    # made by fewer CPEs (the 32 producers of a reaction module), each still
    # waiting on its own DMA: half the rate
    assert CPE.random_access_seconds(8, 32) == pytest.approx(2 * per_cluster)
    # at 256 B the blocking loop moves 5,985 MB/s, a fifth of the 28.9 GB/s
    # that the paper's batched streams reach (003, Fig. 3)
    assert 256 / CPE.random_access_seconds(256) == pytest.approx(5985.0e6)
    assert 256 / CPE.random_access_seconds(256) < CPE.dma_bandwidth(256) / 4


def test_the_fixtures_random_access_is_worked_by_hand():
    """Fixture: the blocking curve is 1 GB/s at 8 B and 4 GB/s at 64 B, log-
    linear between: 8 ns per 8 B access with all 8 CPEs, 16 ns with 4; a
    32 B access (two doublings of three) at 3 GB/s: 10.7 ns."""
    assert TINY.random_access_seconds(8) == pytest.approx(8e-9)
    assert TINY.random_access_seconds(8, 4) == pytest.approx(16e-9)
    assert TINY.random_access_seconds(32) == pytest.approx(32 / 3e9)
    # below the curve's first point an access still costs a whole 8 B DMA
    assert TINY.random_access_seconds(4) == TINY.random_access_seconds(8)
    with pytest.raises(ValueError):
        TINY.random_access_seconds(8, 9)


def test_an_mpe_moves_9_4_GB_s():
    # sunway.dma (003, 3.2): an MPE reaches 9.4 GB/s with 256 B batches
    assert CPE.mpe_seconds(9.4 * GB) == pytest.approx(1.0, rel=claim("sunway.dma")["tolerance"])


def test_16_cpes_reach_the_full_bandwidth_and_8_reach_half():
    # sunway.cpes_needed (003, 4.3, Fig. 5, 256 B chunks), linear below 16 as modelled
    full = CPE.dma_bandwidth(256)
    assert CPE.dma_bandwidth(256, cpes=16) == pytest.approx(full)
    assert CPE.dma_bandwidth(256, cpes=64) == pytest.approx(full)
    assert CPE.dma_bandwidth(256, cpes=8) == pytest.approx(full / 2)
    assert CPE.dma_bandwidth(256, cpes=15) < full
    assert CPE.dma_seconds(28.9 * GB, 256, cpes=8) == pytest.approx(2.0)


@pytest.mark.parametrize("cpes", [0, 65, 2.5])
def test_a_cluster_has_1_to_64_cpes(cpes):
    with pytest.raises(ValueError, match="1 to 64 CPEs"):
        CPE.dma_seconds(1e6, 256, cpes=cpes)


# ------------------------------------------------------------------- shuffle
def test_the_shuffle_carries_10_GB_in_one_second():
    # sunway.register_bus (003, 4.3): 10 GB/s register to register
    assert CPE.shuffle_seconds(10 * GB) == pytest.approx(1.0, rel=claim("sunway.register_bus")["tolerance"])


@pytest.mark.parametrize("buffers", [1, 2, 4, 8])
def test_consumers_buffer_32_destinations_over_the_buffers_each_needs(buffers):
    # by hand: 2 consumers x 1 KiB / 64 B batches = 32
    assert TINY.consumer_destinations(buffers) == 32 // buffers
    assert TINY.consumer_destinations() == 32


def test_four_buffers_per_destination_give_the_papers_1024_destinations():
    # 003, 4.3: "we can handle up to 1024 destinations in practice"
    assert CPE.consumer_destinations(buffers_per_destination=4) == 1024


def test_a_reaction_module_is_bounded_by_reads_and_writes_sharing_the_dma():
    # by hand: 4 GB read in 64 B chunks is 1 s of the cluster's DMA (4 GB/s),
    # and 4 GB written in 64 B batches another 1 s of the same port: 2 s;
    # the 2 GB shuffle alone would take 1 s and is hidden behind it
    assert TINY.reaction_seconds(4 * GB, 64, 2 * GB, 4 * GB) == pytest.approx(2.0)


def test_a_reaction_module_is_bounded_by_the_shuffle_when_it_is_slower():
    # by hand: 4 GB shuffled at 2 GB/s = 2 s, above 2 x 0.8 GB / 4 GB/s = 0.4 s of DMA
    assert TINY.reaction_seconds(0.8 * GB, 64, 4 * GB, 0.8 * GB) == pytest.approx(2.0)


def test_the_dma_bound_of_a_reaction_is_the_papers_theoretical_14_5_GB_s():
    # 003, 4.3: 14.5 GB/s is "half of peak bandwidth in Figure 3 for both read
    # and write": with a register bus that never limits, N bytes read, shuffled
    # and written in 256 B chunks move at 28.9 / 2 GB/s
    unbounded = replace(CPE, register_bus_Bps=1e30)
    n = 1 * GB
    assert n / unbounded.reaction_seconds(n, 256, n, n) == pytest.approx(14.5 * GB, rel=0.01)
    # with the measured bus, the shuffle's 10 GB/s is the module's rate
    assert n / CPE.reaction_seconds(n, 256, n, n) == pytest.approx(10 * GB)


def test_a_reaction_module_reads_small_chunks_at_the_curves_rate():
    # by hand: 32 B chunks are 2 of the 3 doublings from 8 B (1 GB/s) to
    # 64 B (4 GB/s), so 3 GB/s: 3 GB read in them take 1 s
    assert TINY.reaction_seconds(3 * GB, 32, 0, 0) == pytest.approx(1.0)


def test_too_few_producers_bound_a_reaction_module_by_their_own_dma_rate():
    # by hand: 1 producer reaches 1/2 of 4 GB/s = 2 GB/s, so reading 2 GB
    # takes it 1 s while the cluster's port would need 0.5 s
    few = replace(TINY, layout=replace(TINY.layout, producers=1))
    assert few.reaction_seconds(2 * GB, 64, 0, 0) == pytest.approx(1.0)


# ------------------------------------------------------------ other values
def test_the_memory_latency_is_one_hundred_cycles_and_a_notification_two():
    # 003, 3.1: "around one hundred cycles" at 1.45 GHz
    assert CPE.memory_latency_s * MACHINE.node.clock_hz == pytest.approx(100, rel=0.01)
    assert CPE.notify_latency_s == pytest.approx(2 * CPE.memory_latency_s)
    assert CPE.interrupt_s == pytest.approx(10e-6)  # 003, 3.1


def test_the_shuffle_layout_fills_the_8x8_mesh_by_columns():
    # 003, 4.3, Fig. 6: four columns of producers, two of routers, two of consumers
    layout = CPE.layout
    assert (layout.producers, layout.routers, layout.consumers) == (4 * 8, 2 * 8, 2 * 8)
    assert layout.producers + layout.routers + layout.consumers == CPE.cpes == 64
    assert CPE.clusters == 4 and CPE.spm_bytes == 64 * 1024


# --------------------------------------------------------------- bad values
def _refused(tmp_path, change) -> str:
    """The fixture machine's file with ``change`` made to its cpe_cluster
    section: the loader's message, which names the file."""
    raw = tiny_raw("cpe_cluster")
    change(raw["cpe_cluster"])
    path = tmp_path / "machine.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    with pytest.raises(UserError) as info:
        load_machine(str(path))
    message = str(info.value)
    assert str(path) in message
    return message


def test_a_layout_with_more_cpes_than_the_cluster_is_refused(tmp_path):
    def change(section):
        section["shuffle_layout"]["producers"]["value"] = 8

    # 8 producers + 2 routers + 2 consumers, in a cluster of 8 CPEs
    message = _refused(tmp_path, change)
    assert "cpe_cluster.shuffle_layout" in message and "12 CPEs" in message and "the 8 of a cluster" in message


def test_a_bandwidth_without_its_unit_is_refused(tmp_path):
    def change(section):
        section["register_bus"]["value"] = "10 GB"

    message = _refused(tmp_path, change)
    assert "cpe_cluster.register_bus" in message and "2 GB/s" in message  # the example of a bandwidth


def test_zero_cpes_to_saturate_is_refused(tmp_path):
    def change(section):
        section["cpes_to_saturate"]["value"] = 0

    assert "cpe_cluster.cpes_to_saturate: must be greater than zero" in _refused(tmp_path, change)


def test_an_unsorted_curve_is_refused(tmp_path):
    def change(section):
        section["dma_curve"]["points"].reverse()

    assert "cpe_cluster.dma_curve: points must be sorted by increasing chunk" in _refused(tmp_path, change)


def test_a_value_without_a_source_is_refused(tmp_path):
    def change(section):
        del section["batch"]["source"]

    message = _refused(tmp_path, change)
    assert "cpe_cluster.batch" in message and "source" in message


# -------------------------------------------------------------- simpy side
def test_every_sunway_node_gets_its_four_clusters_and_other_machines_none():
    env = simpy.Environment()
    devices = attach_devices(env, MACHINE, 3, TimelineRecorder())
    assert len(devices["cpe_cluster"]) == 3
    assert all(len(node.clusters) == 4 for node in devices["cpe_cluster"])
    assert "cpe_cluster" not in attach_devices(env, load_machine("bluegene_q"), 2, TimelineRecorder())


def test_modules_take_the_first_free_cluster_first_come_first_served():
    # three 1 us modules, 1 ns apart, on the fixture node's two clusters: two
    # start at once, the third waits for the first cluster to come free; a
    # module asking for cluster 1 waits behind the one holding it
    env = simpy.Environment()
    recorder = TimelineRecorder()
    node = CPEClusters(env, TINY, owner=7, recorder=recorder)
    done = []

    def module(name, delay, cluster=None):
        yield env.timeout(delay)
        index = yield env.process(node.work(1e-6, name, cluster))
        done.append((name, index, round(env.now * 1e9)))

    for i in range(3):
        env.process(module(f"m{i}", i * 1e-9))
    env.process(module("c1", 10e-9, cluster=1))
    env.run()
    assert done[:2] == [("m0", 0, 1000), ("m1", 1, 1001)]
    # m2 came before c1 and takes the first cluster to free (0); c1 waits for cluster 1
    assert sorted(done[2:]) == [("c1", 1, 2001), ("m2", 0, 2000)]
    spans = {span.what: span for span in recorder.spans}
    assert spans["m2"].resource == "cpe_cluster0" and spans["m2"].node == 7
    assert (spans["m2"].start_s, spans["m2"].end_s) == pytest.approx((1000e-9, 2000e-9))
    assert spans["c1"].resource == "cpe_cluster1"
    assert all(resource.count == 0 and not resource.queue for resource in node.clusters)
