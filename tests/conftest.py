"""Shared fixtures: tiny hand-checkable machines, and the --runslow flag."""

from __future__ import annotations

import copy
import os
import shutil
import tempfile

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
    return {"value": value, "source": "test: chosen so the timeline can be worked out by hand"}


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


def tiny_machine(**changes):
    """The TINY machine with dotted-path changes, e.g. {"network.topology": "torus"}."""
    raw = copy.deepcopy(TINY)
    for path, value in changes.items():
        node = raw
        *sections, leaf = path.split("__") if "__" in path else path.split(".")
        for key in sections:
            node = node.setdefault(key, {})
        node[leaf] = value
    return build_machine(raw, origin="tiny")


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
