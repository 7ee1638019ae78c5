"""A what-if on the network gets the same answer from a projection as from
execution, and an answer at all: for every algorithm that projects, on every
bundled machine where it runs, every ``network.*`` and ``collectives.*``
key moved 16-fold (a bandwidth or a packet payload cut, a latency, header,
granule or oversubscription raised, a supernode made smaller) moves the
projected TEPS in the same direction as the executed TEPS, by a comparable
amount, or moves neither. The projection runs at the executed size (target
scale = profile scale), so the two are comparable.

A key that moves neither path may simply not bind at that size. So each
algorithm also has a communication-heavy case (top-down levels, many edges
per node): there a 16-fold bandwidth cut that moves neither path fails,
unless the machine file's ``non_effects`` says why the algorithm's time does
not depend on that key on that machine. A declared non-effect that does move
a path fails too: the declaration is then wrong.
"""

from __future__ import annotations

import pytest

from simbfs.machine.loader import load_machine
from simbfs.runner import RunConfig, run

FACTOR = 16
SCALE = 12
MOVES = 0.1  # percent: a smaller change of both paths is "does not move"
FLOOR = 0.01  # percent: one path moving less than this while the other moves is "one path only"
RATIO = 0.1  # the smaller move is at least this share of the larger

# (label, machine, algorithm, nodes, base overrides, scale, communication-heavy)
CASES = [
    ("bgq/bsp1d-do", "bluegene_q", "bsp1d-do", 64, [], SCALE, False),
    ("bgq/bsp1d-topdown", "bluegene_q", "bsp1d-topdown", 64, [], 14, True),
    ("bgq/cp1d-spi", "bluegene_q", "cp1d-spi", 64, [], SCALE, False),
    ("bgq/cp1d-spi-td", "bluegene_q", "cp1d-spi:direction-optimising=off", 64, [], SCALE, True),
    ("bgq/cp1d-mpi", "bluegene_q", "cp1d-mpi", 64, [], SCALE, False),
    ("bgq/cp1d-mpi-td", "bluegene_q", "cp1d-mpi:direction-optimising=off", 64, [], 14, True),
    ("bgq/cp2d", "bluegene_q", "cp2d", 64, [], SCALE, True),
    ("sw/bsp1d-do", "sunway_taihulight", "bsp1d-do", 64, [], SCALE, False),
    ("sw/bsp1d-topdown", "sunway_taihulight", "bsp1d-topdown", 64, [], SCALE, False),
    ("sw/lin1d", "sunway_taihulight", "lin1d", 64, [], SCALE, False),
    # 64 nodes fit one 256-node supernode and one relay group: these put 4 of each under them
    ("sw16/bsp1d-do", "sunway_taihulight", "bsp1d-do", 64, ["network.supernode_size=16"], SCALE, False),
    ("sw16/bsp1d-topdown", "sunway_taihulight", "bsp1d-topdown", 64, ["network.supernode_size=16"], 14, True),
    ("sw16/lin1d", "sunway_taihulight", "lin1d", 64, ["network.supernode_size=16", "lin1d.group_size=16"], SCALE,
     False),
    # top-down only, lin1d's pairs fill its messages and the network can bind
    ("sw/lin1d-td", "sunway_taihulight", "lin1d:direction-optimising=off", 64, [], SCALE, False),
    ("sw16/lin1d-td", "sunway_taihulight", "lin1d:direction-optimising=off", 64,
     ["network.supernode_size=16", "lin1d.group_size=16"], SCALE, False),
    ("sw1024/lin1d-td", "sunway_taihulight", "lin1d:direction-optimising=off", 1024, [], 16, False),
    # 1,024 pairs per node and level at the busiest levels: the network binds
    ("sw4/lin1d-td", "sunway_taihulight", "lin1d:direction-optimising=off", 16,
     ["network.supernode_size=4", "lin1d.group_size=4"], 14, True),
    ("ts/ueno2d", "tsubame2", "ueno2d", 64, [], SCALE, False),
    ("ts16/ueno2d", "tsubame2", "ueno2d", 16, [], 14, True),
    ("cell/bsp1d-do", "cell_be", "bsp1d-do", 8, [], SCALE, False),
    ("cell/bsp1d-topdown", "cell_be", "bsp1d-topdown", 8, [], 14, True),
]
# what a communication-heavy case must move, unless the machine file explains why not
BANDWIDTHS = ("network.link_bandwidth", "network.injection_bandwidth", "collectives.bandwidth")


def variants(machine_name: str, base: list[str]) -> list[tuple[str, list[str]]]:
    """(key, overrides) for every network.* and collectives.* key with a
    16-fold move on this machine."""
    machine = load_machine(machine_name, base)
    net, coll = machine.network, machine.collectives
    out = [
        ("network.link_bandwidth", [f"network.link_bandwidth={net.link_bandwidth_Bps / FACTOR!r} B/s"]),
        ("network.injection_bandwidth", [f"network.injection_bandwidth={net.injection_bandwidth_Bps / FACTOR!r} B/s"]),
        ("network.hop_latency", [f"network.hop_latency={net.hop_latency_s * FACTOR!r} s"]),
        ("network.packet_payload", [f"network.packet_payload={net.packet_payload_bytes / FACTOR:.0f} B"]),
        ("network.packet_header", [f"network.packet_header={max(net.packet_header_bytes, 1) * FACTOR:.0f} B"]),
        ("network.packet_granule", [f"network.packet_granule={net.packet_granule_bytes * FACTOR:.0f} B"]),
    ]
    params = net.topology_params
    if "oversubscription" in params:
        size, ratio = int(params["supernode_size"]), float(params["oversubscription"])
        out.append(("network.oversubscription", [f"network.oversubscription={min(ratio * FACTOR, size):g}"]))
        smaller = max(1, size // FACTOR)
        out.append(("network.supernode_size", [f"network.supernode_size={smaller}"]
                    + ([f"network.oversubscription={smaller}"] if ratio > smaller else [])))  # keep the pair valid
    if net.processes_per_host > 1:
        out.append(("network.processes_per_host", ["network.processes_per_host=1"]))
    out += [
        ("collectives.stage_latency", [f"collectives.stage_latency={coll.stage_latency_s * FACTOR!r} s"]),
        ("collectives.bandwidth", [f"collectives.bandwidth={coll.bandwidth_Bps / FACTOR!r} B/s"]),
        ("collectives.algorithm",
         ["collectives.algorithm=" + ("mpich" if coll.algorithm != "mpich" else "log-stages")]),
    ]
    return out


def _params():
    for label, machine, algorithm, nodes, base, scale, heavy in CASES:
        for key, overrides in variants(machine, base):
            yield pytest.param((label, machine, algorithm, nodes, tuple(base), scale), key, tuple(overrides), heavy,
                               id=f"{label}-{key}")


_TEPS: dict = {}


def teps(case, overrides, mode) -> float:
    label, machine, algorithm, nodes, base, scale = case
    keys = {o.split("=")[0] for o in overrides}
    merged = [b for b in base if b.split("=")[0] not in keys] + list(overrides)
    tag = (label, tuple(merged), mode)
    if tag not in _TEPS:
        config = RunConfig(machine=machine, algorithm=algorithm, nodes=nodes, scale=scale, roots=1,
                           graph="kronecker", overrides=merged, validate=False, mode=mode,
                           profile_scale=scale if mode == "project" else None)
        _TEPS[tag] = run(config)["teps"]["harmonic_mean"]
    return _TEPS[tag]


def verdict(executed: float, projected: float) -> str | None:
    """None when the two moves (percent) agree, else what is wrong."""
    big, small = max(abs(executed), abs(projected)), min(abs(executed), abs(projected))
    if big < MOVES:
        return None
    if small < FLOOR:
        return "one path only"
    if (executed > 0) != (projected > 0):
        return "opposite directions"
    if small < RATIO * big:
        return "magnitudes more than 10x apart"
    return None


@pytest.mark.parametrize("case, key, overrides, heavy", list(_params()))
def test_a_network_key_moves_execution_and_projection_alike(case, key, overrides, heavy):
    moves = {mode: 100 * (teps(case, overrides, mode) / teps(case, (), mode) - 1) for mode in ("execute", "project")}
    shown = f"{case[0]} {' '.join(overrides)}: executed {moves['execute']:+.3f}%, projected {moves['project']:+.3f}%"
    problem = verdict(moves["execute"], moves["project"])
    assert problem is None, f"{shown}: {problem}"
    label, machine, algorithm, nodes, base, scale = case
    neither = max(abs(moves["execute"]), abs(moves["project"])) < MOVES
    declared = load_machine(machine, list(base)).non_effect(key, algorithm)
    if declared:
        assert neither, f"{shown}, but {machine}.yaml's non_effects says it does not: {declared}"
    elif heavy and key in BANDWIDTHS:
        assert not neither, (f"{shown} at a communication-heavy size: price the traffic where this key reaches "
                             f"it, or say why not in {machine}.yaml's non_effects")


def test_every_declared_non_effect_is_checked_by_a_case():
    from simbfs.machine import bundled_machines

    tried = {(machine, algorithm.partition(":")[0], key)
             for label, machine, algorithm, nodes, base, scale, heavy in CASES
             for key, _ in variants(machine, base)}
    for machine in bundled_machines():
        for key, reasons in load_machine(machine).non_effects.items():
            for algorithm in reasons:
                assert (machine, algorithm, key) in tried, f"{machine}: non_effects {key} ({algorithm}) is not tried"


def test_the_verdicts():
    assert verdict(-5.0, -4.0) is None
    assert verdict(0.05, -0.05) is None  # neither moves
    assert verdict(-5.0, 0.0) == "one path only"
    assert verdict(-5.0, 2.0) == "opposite directions"
    assert verdict(-5.0, -0.2) == "magnitudes more than 10x apart"
