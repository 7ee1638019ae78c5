"""Projections reach the network only through the Topology contract: a
network key moves a projection the way it moves the executed run, and
leaves it alone where execution does not move."""

import pytest

from simbfs.machine.loader import load_machine
from simbfs.runner import RunConfig, run


def teps(machine, algorithm, nodes, scale, mode, overrides=()):
    config = RunConfig(machine=machine, algorithm=algorithm, nodes=nodes, scale=scale, roots=1, graph="kronecker",
                       overrides=list(overrides), validate=False, mode=mode,
                       profile_scale=scale if mode == "project" else None)
    return run(config)["teps"]["harmonic_mean"]


def test_lin1d_projection_ignores_a_header_that_execution_ignores():
    # Top-down lin1d at 1,024 nodes: the executed run is bound by its
    # modules, not the wire, so 16-fold headers must not move the
    # projection either. Pricing the busiest port at the mean node's packets
    # times the load would multiply one packet's header by the load, and
    # cost the projection 3%.
    header = f"network.packet_header={max(load_machine('sunway_taihulight').network.packet_header_bytes, 1) * 16:.0f} B"
    algorithm = "lin1d:direction-optimising=off"
    for mode in ("execute", "project"):
        base = teps("sunway_taihulight", algorithm, 1024, 16, mode)
        assert teps("sunway_taihulight", algorithm, 1024, 16, mode, [header]) == pytest.approx(base, rel=1e-9), mode


@pytest.mark.parametrize("override", ["network.oversubscription=18", "network.link_bandwidth=0.35GB/s"])
def test_ueno2d_projection_sees_the_links_that_execution_sees(override):
    # TSUBAME2 at 64 processes: the executed run prices the fat tree's
    # links, and so does the projection. Pricing the hosts' ports alone, it
    # would stay at 445.3 MTEPS under an oversubscribed core that moves the
    # executed run (one root) from 452.3 to 449.4.
    moves = {}
    for mode in ("execute", "project"):
        base = teps("tsubame2", "ueno2d", 64, 14, mode)
        moves[mode] = teps("tsubame2", "ueno2d", 64, 14, mode, [override]) / base - 1
    assert moves["execute"] < -0.005 and moves["project"] < -0.005, moves
    assert moves["project"] == pytest.approx(moves["execute"], rel=0.5), moves
