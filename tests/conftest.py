"""Shared fixtures: the hand-checkable fixture machine (TINY and its
optional SECTIONS), and the --runslow flag."""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from dataclasses import dataclass

import numpy as np
import pytest

from simbfs.machine.loader import build_machine


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")
    parser.addoption("--regenerate", action="store_true", default=False,
                     help="rewrite the stored regression documents (tests/regression/expected) instead of "
                          "comparing with them; say why in the commit")


# The suite's graphs go to a cache of its own, removed at the end, so that
# the user's ~/.cache/simbfs (or $SIMBFS_CACHE) does not fill with some 22
# graphs (38 MB) of the suite's.
# Set here, before any test runs, so subprocesses inherit it too.
_SUITE_CACHE: list[str] = []


def pytest_configure(config):
    _SUITE_CACHE.append(tempfile.mkdtemp(prefix="simbfs-test-cache-"))
    os.environ["SIMBFS_CACHE"] = _SUITE_CACHE[-1]


def pytest_unconfigure(config):
    for path in _SUITE_CACHE:
        shutil.rmtree(path, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _p(value):
    return {"value": value, "source": "test: chosen so the expected values can be worked out by hand"}


# The fixture machine of every test whose expected value is worked out by
# hand from a machine's parameters: such a test takes them from here, not
# from a bundled machine (simbfs/machines/*.yaml), whose values change when
# they are re-sourced. Tests about a bundled machine (a paper's claim, a spec
# sheet) stay on it.
#
# Round numbers: 1 GB/s ports and links (1 byte per ns), 100 ns per hop,
# 1 GHz single-core nodes (1 cycle = 1 ns), 1000 B packets with a 24 B header
# on an 8 B granule, no software overheads unless a test sets them.
TINY = {
    "name": "tiny",
    "description": "hand-checkable test machine",
    "algorithm": "bsp1d-do",
    "nodes": {"default": _p(2), "max": _p(64)},
    "node": {
        "clock": _p("1 GHz"), "cores": _p(1), "threads_per_core": _p(1),
        "memory": _p("1 GiB"), "memory_bandwidth": _p("1 GB/s"),
        "compute": {"edge_scan": _p(10), "bitmap_probe": _p(5), "vertex_visit": _p(20),
                    "message_pack": _p(3), "message_unpack": _p(7)},
    },
    "network": {
        "topology": "crossbar",
        "link_bandwidth": _p("1 GB/s"), "hop_latency": _p("100 ns"), "injection_bandwidth": _p("1 GB/s"),
        "packet_payload": _p("1000 B"), "packet_header": _p("24 B"), "packet_granule": _p("8 B"),
    },
    "messaging": {"edge_bytes": _p("8 B"), "send_overhead": _p("0 s"), "receive_overhead": _p("0 s")},
    "collectives": {"stage_latency": _p("50 ns"), "bandwidth": _p("1 GB/s")},
    "dma": {
        "latency": _p("100 ns"),
        "bandwidth_curve": {"points": [["64 B", "0.5 GB/s"], ["1024 B", "2 GB/s"]], "source": "test"},
        "max_outstanding": _p(2),
        "shared_bandwidth": _p("3 GB/s"),
        "alignment": _p("1 B"),
    },
}

# Optional sections, added by name: tiny_machine("cpe_cluster", "lin1d").
# A section that needs another names it (lin1d needs cpe_cluster, ueno2d
# gpu, cp1d node.memory_hierarchy, spe the dma TINY has).
SECTIONS = {
    # 1 MiB cache; a hit waits 10 cycles, a miss 100 (10 ns and 100 ns at 1 GHz)
    "node.memory_hierarchy": {
        "cache_size": _p("1 MiB"), "cache_latency": _p(10), "memory_latency": _p(100), "cache_line": _p("64 B"),
    },
    # 2 clusters of 8 CPEs; a cluster's DMA gains 1 GB/s per doubling of the
    # chunk, 8 B: 1, 16 B: 2, 32 B: 3, 64 B and up: 4 GB/s, and 2 CPEs
    # reach it (1 CPE half); shuffle 2 GB/s; 4 producers, 2 routers, 2
    # consumers, so both DMA stages reach the full rate; 64 B batches
    "cpe_cluster": {
        "clusters": _p(2), "cpes": _p(8), "spm": _p("1 KiB"),
        "dma_curve": {"points": [["8 B", "1 GB/s"], ["64 B", "4 GB/s"]],
                      "source": "test: chosen so the expected values can be worked out by hand"},
        "blocking_dma_curve": {"points": [["8 B", "1 GB/s"], ["64 B", "4 GB/s"]],
                               "source": "test: as dma_curve, so random accesses cost 8 ns a cluster"},
        "cpes_to_saturate": _p(2), "mpe_bandwidth": _p("1 GB/s"), "memory_latency": _p("100 ns"),
        "register_bus": _p("2 GB/s"),
        "shuffle_layout": {"producers": _p(4), "routers": _p(2), "consumers": _p(2)},
        "batch": _p("64 B"), "notify_latency": _p("200 ns"), "interrupt": _p("10 us"),
    },
    # 10 B pairs, 8 B entries (different, so a price that takes one for the
    # other shows), 8 B random accesses (1 GB/s: 8 ns each), messages of at
    # most 4000 B, inputs under 1000 B on the MPE, 10 MPE cycles per pair
    "lin1d": {
        "hubs_top_down": _p(4), "hubs_bottom_up": _p(8), "group_size": _p(2), "small_input": _p("1000 B"),
        "pair": _p("10 B"), "adjacency_entry": _p("8 B"), "parent": _p("8 B"), "random_access": _p("8 B"),
        "message": _p("4000 B"), "buffers_per_destination": _p(2), "mpi_connection": _p("1000 B"),
        "mpi_processes": _p(1), "mpe_item_cycles": _p(10),
    },
    # PCIe 2 GB/s and 1 us a copy; 2 x 4 lanes at 1 GHz; 10 GB/s streamed
    "gpu": {
        "multiprocessors": _p(2), "lanes": _p(4), "clock": _p("1 GHz"), "memory": _p("1 GiB"),
        "memory_bandwidth": _p("20 GB/s"), "stream_bandwidth": _p("10 GB/s"), "stream_write_bandwidth": _p("5 GB/s"),
        "scattered_load_rate": _p("100 MHz"), "scattered_store_rate": _p("50 MHz"), "scattered_load": _p("32 B"),
        "sector": _p("32 B"), "l2_cache": _p("1 MiB"), "atomic_rate": _p("1 GHz"), "launch_overhead": _p("1 us"),
        "pcie_bandwidth": _p("2 GB/s"), "pcie_latency": _p("1 us"),
    },
    # 4 host threads per process, 5 misses in flight each
    "ueno2d": {
        "alpha": _p(0.25), "simd_width": _p(4), "adjacency_entry": _p("8 B"), "edge": _p("8 B"),
        "parent": _p("8 B"), "word": _p("4 B"), "index": _p("8 B"), "gather_buffer": _p("1 MiB"),
        "receive_threshold": _p("64 KiB"), "gather_ops": _p(10), "filter_ops": _p(10), "receive_ops": _p(10),
        "vlq_ops": _p(5), "host_threads": _p(4), "cpu_misses_in_flight": _p(5),
    },
    # 27 KiB of code, stack and double buffers in a 64 KiB local store; a
    # DMA command costs 10 cycles to issue; dispatch and bitmap pay per
    # edge, list (dispatch only), portion and quadword
    "spe": {
        "local_store": _p("64 KiB"), "code_and_stack": _p("8 KiB"), "bitmap_max": _p("16 KiB"),
        "bq_buffer": _p("512 B"), "bg_buffer": _p("4 KiB"), "qout": _p("4 KiB"), "qin": _p("4 KiB"),
        "bqnext_buffer": _p("1 KiB"), "vertex_code": _p("4 B"), "padding": _p("16 B"), "header_entry": _p("4 B"),
        "dma_list_max": _p(16), "guard": _p("16 B"),
        "cycles": {
            "fetch": {"per_transfer": _p(10)},
            "gather": {"per_list": _p(2), "per_transfer": _p(10)},
            "dispatch": {"per_edge": _p(1), "per_list": _p(3), "per_portion": _p(100), "per_quadword": _p(2)},
            "alltoall": {"per_transfer": _p(10)},
            "bitmap": {"per_edge": _p(20), "per_portion": _p(100), "per_quadword": _p(4)},
            "commit": {"per_transfer": _p(10)},
        },
    },
    # issue cycles all different, so a price that takes one for another shows
    "cp1d": {
        "threads": _p(4), "heavy_vertices": _p(0), "index_stride": _p(8), "adjacency_entry": _p("8 B"),
        "vertex_header": _p("8 B"), "edge_tuple": _p("16 B"), "uncompressed_entry": _p("8 B"),
        "compressed_short": _p("4 B"), "compressed_long": _p("8 B"), "compressed_header": _p("8 B"),
        "delta_max": _p(127), "in_flight": _p(2), "mpi_message_overhead": _p("1 us"),
        "cycles": {"index_word": _p(2), "vertex_header": _p(4), "edge_entry": _p(3), "pack": _p(5),
                   "compress": _p(6), "unpack": _p(7), "bitmap_test": _p(1), "claim": _p(9)},
    },
}


def _put(raw: dict, path: str, value) -> None:
    node = raw
    *sections, leaf = path.split("__") if "__" in path else path.split(".")
    for key in sections:
        node = node.setdefault(key, {})
    node[leaf] = value


def tiny_raw(*sections: str, **changes) -> dict:
    """The TINY machine's file contents with the named SECTIONS added and
    dotted-path changes made, e.g. {"network.topology": "torus"}."""
    raw = copy.deepcopy(TINY)
    for name in sections:
        _put(raw, name, copy.deepcopy(SECTIONS[name]))
    for path, value in changes.items():
        _put(raw, path, value)
    return raw


def tiny_machine(*sections: str, **changes):
    """The TINY machine with the named SECTIONS and dotted-path changes."""
    return build_machine(tiny_raw(*sections, **changes), origin="tiny")


def tiny_machine_file(directory, *sections: str, **changes):
    """The same machine written to ``directory``/tiny.yaml, for what takes a
    machine file (the command line, the loader's messages); its path."""
    import yaml

    path = directory / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_raw(*sections, **changes), sort_keys=False))
    return path


@pytest.fixture
def tiny():
    return tiny_machine


@pytest.fixture(scope="session")
def quick_experiment(tmp_path_factory):
    """Runs an experiment script (``experiments.<machine>.<name>``) at its
    ``--quick`` size once per session, into its own temporary folder, and
    gives (that folder, what its ``main`` returned): the test that every
    script runs and the tests of what a script finds share one run."""
    import importlib

    done = {}

    def run(module_name: str):
        if module_name not in done:
            module = importlib.import_module(module_name)
            out = tmp_path_factory.mktemp(module_name.replace(".", "_"))
            done[module_name] = (out, module.main(["--quick", "--out", str(out)]))
        return done[module_name]

    return run


def enumerated_link_loads(topology, traffic):
    """Bytes per link of ``topology`` from summing every pair's route, one
    message at a time: the independent count the closed forms are checked
    against (traffic[s, d] bytes from s to d)."""
    import numpy as np

    loads = np.zeros(topology.num_links)
    for s in range(topology.nodes):
        for d in range(topology.nodes):
            loads[topology.route(s, d)] += traffic[s, d]
    return loads


@dataclass
class DenseTraffic:
    """cp1d encode's pairs (encoding.Traffic) as N x N matrices, for worked
    examples on a few nodes."""

    payload: np.ndarray
    packets: np.ndarray
    edges: np.ndarray
    backward_packets: int


def dense_traffic(traffic) -> DenseTraffic:
    n, keys = traffic.pairs.nodes, traffic.pairs.keys

    def matrix(values):
        out = np.zeros(n * n)
        out[keys] = values
        return out.reshape(n, n)
    return DenseTraffic(matrix(traffic.pairs.payload), matrix(traffic.pairs.packets), matrix(traffic.edges),
                        traffic.backward_packets)
