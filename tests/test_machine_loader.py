"""simbfs.machine.loader: bundled machine files load, and bad files fail
with a UserError that names the file and the key path.

Expected values come from the public spec sheets (BG/Q: 2 GB/s links, about
40 ns per hop, a rack is a 4x4x4x8x2 torus), not from earlier runs.
"""

from pathlib import Path

import pytest
import yaml

from simbfs.errors import UserError
from simbfs.machine import bundled_machines, load_machine, machines_dir
from simbfs.machine import schema as S
from simbfs.machine.loader import OVERRIDE_SOURCE, read_with_bases

BGQ_FILE = machines_dir() / "bluegene_q.yaml"


# ------------------------------------------------------------------ helpers
def bgq_raw() -> dict:
    """The bundled BG/Q file as a plain dict, to mutate into bad variants."""
    return yaml.safe_load(BGQ_FILE.read_text())


def write(tmp_path: Path, data, name: str = "machine.yaml") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    return path


def load_error(path_or_name, overrides=()) -> str:
    with pytest.raises(UserError) as info:
        load_machine(str(path_or_name), overrides=overrides)
    return str(info.value)


# ------------------------------------------------------- bundled machines
def test_the_four_seed_machines_are_bundled():
    assert {"bluegene_q", "cell_be", "sunway_taihulight", "tsubame2"} <= set(bundled_machines())


@pytest.mark.parametrize("name", bundled_machines())
def test_bundled_machine_loads_and_is_named_after_its_file(name):
    machine = load_machine(name)
    assert machine.name == name
    assert Path(machine.origin).stem == name
    assert machine.default_nodes <= machine.max_nodes


@pytest.mark.parametrize("name", bundled_machines())
def test_bundled_machine_sources_every_number(name):
    """Every Param (and Curve) the file sets has a non-empty source."""
    machine = load_machine(name)
    # the file with its `extends` bases merged in (a calibrated file extends a bundled one)
    raw = read_with_bases(machines_dir() / f"{name}.yaml")
    checked = 0
    schema = S.machine_schema()
    for path, spec in S.walk(schema):
        if not isinstance(spec, (S.Param, S.Curve)):
            continue
        *parents, leaf = path.split(".")
        section = raw
        for key in parents:
            section = section.get(key) or {}
        if leaf not in section:
            # only optional keys (another topology's parameters) and members
            # of optional sections (dma, cp1d, ...) may be absent
            declared, optional = schema, spec.optional
            for key in parents:
                declared = declared.fields[key]
                optional = optional or declared.optional
            assert optional, f"{name}: {path} missing"
            continue
        assert machine.sources.get(path, "").strip(), f"{name}: {path} has no source"
        checked += 1
    required = [p for p, spec in S.walk()
                if isinstance(spec, S.Param) and not spec.optional
                and not p.startswith(("dma.", "cpe_cluster.", "spe.", "cp1d.", "lin1d.", "gpu.", "ueno2d.",
                                       "node.memory_hierarchy."))]
    assert checked >= len(required)
    for count in machine.network.topology_params.get("partitions", {}):
        assert machine.sources[f"network.partitions.{count}"].strip()


@pytest.mark.parametrize("name", bundled_machines())
def test_bundled_sources_are_not_system_results(name):
    """Parameters may cite component measurements, never a full-run TEPS
    figure; the one exception is a declared one-point calibration: a file
    with calibrated_on may have exactly one parameter fitted to a TEPS, and
    its source says so."""
    machine = load_machine(name)
    fitted = [path for path, source in machine.sources.items() if "TEPS" in source]
    if machine.calibrated_on is None:
        assert not fitted, f"{name}: {fitted} cite a system-level result"
    else:
        assert len(fitted) == 1 and machine.sources[fitted[0]].startswith("calibrated:"), fitted
        assert fitted[0] in machine.calibrated_on


def test_bluegene_q_matches_the_spec_sheet():
    m = load_machine("bluegene_q")
    assert m.network.topology == "torus"
    assert m.network.link_bandwidth_Bps == 2e9  # 2 GB/s per link per direction
    assert m.network.hop_latency_s == pytest.approx(40e-9)  # about 40 ns per hop
    assert m.network.topology_params["partitions"][1024] == (4, 4, 4, 8, 2)  # one rack
    assert m.network.topology_params["partitions"][512] == (4, 4, 4, 4, 2)  # one midplane
    assert m.network.packet_payload_bytes == 512
    assert m.network.packet_header_bytes == 32 + 8  # header and link-level trailer (Chen et al.)
    assert m.node.clock_hz == 1.6e9
    assert m.node.cores == 16
    assert m.node.threads_per_core == 4
    assert m.node.memory_bytes == 16 * 2**30
    assert m.section("dma") is None


def test_cell_be_matches_paper_and_spec_sheet():
    m = load_machine("cell_be")
    assert m.max_nodes == 8  # 8 SPEs
    assert m.node.clock_hz == 3.2e9
    assert m.network.topology == "crossbar"
    assert m.network.packet_payload_bytes == 16384  # largest single DMA, 16 KB
    assert m.network.packet_granule_bytes == 128  # 001, 3: 128 B alignment
    assert m.messaging.edge_bytes == 4  # 32-bit vertex codes
    assert m.node.compute.message_unpack_cycles == 26  # 001, 4 (Bitmap)
    # Fig. 3: 22.06 GB/s aggregate over 8 SPEs for blocks >= 1 KiB, 1.36 GB/s per SPE at 64 B.
    assert m.section("dma").bandwidth(1024) * 8 == pytest.approx(22.06e9, rel=0.01)
    assert m.section("dma").bandwidth(64) == pytest.approx(1.36e9)
    assert m.section("dma").max_outstanding == 16
    assert m.section("dma").shared_bandwidth_Bps == 25.6e9


def test_sunway_and_tsubame_match_spec_sheets():
    sw = load_machine("sunway_taihulight")
    assert sw.node.clock_hz == 1.45e9
    assert sw.node.memory_bytes == 32 * 2**30  # 4 x 8 GB DDR3
    assert sw.default_nodes == 256  # one supernode
    ts = load_machine("tsubame2")
    assert ts.max_nodes == 4096  # GPUs = MPI processes
    gpu = ts.section("gpu")
    assert gpu.memory_bandwidth_Bps == 148e9
    assert gpu.memory_bytes == pytest.approx(2.8e9, rel=0.01)  # "2.8 GB" with ECC
    assert gpu.multiprocessors * gpu.lanes == 448  # M2050: 448 CUDA cores
    assert ts.network.processes_per_host == 3  # 3 GPUs per node, a process each
    assert ts.network.hosts(4096) == 1366  # 004, Table 2: 4,096 GPUs on 1,366 nodes
    assert ts.node.cores == 12 and ts.node.clock_hz == 2.93e9  # 2 x Xeon X5670


# ------------------------------------------------------------ error cases
def test_malformed_yaml_names_file_and_line(tmp_path):
    path = write(tmp_path, "name: bad\ndescription: x\n  nodes: 3\n")
    message = load_error(path)
    assert str(path) in message
    assert "malformed YAML" in message
    assert "line 3" in message


def test_a_list_is_not_a_machine_file(tmp_path):
    path = write(tmp_path, "- name\n- description\n")
    message = load_error(path)
    assert str(path) in message and "mapping" in message


def test_unknown_top_level_key(tmp_path):
    raw = bgq_raw()
    raw["nodez"] = 3
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "nodez: unknown key" in message


def test_unknown_nested_key(tmp_path):
    raw = bgq_raw()
    raw["node"]["compute"]["edge_scann"] = {"value": 8, "source": "typo"}
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "node.compute.edge_scann: unknown key" in message
    assert "edge_scan" in message  # lists what the section accepts


def test_missing_required_key(tmp_path):
    raw = bgq_raw()
    del raw["network"]["hop_latency"]
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "network.hop_latency: missing" in message


def test_missing_source(tmp_path):
    raw = bgq_raw()
    raw["node"]["clock"] = {"value": "1.6 GHz"}
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "node.clock" in message and "source" in message


def test_missing_source_of_partition_entry(tmp_path):
    raw = bgq_raw()
    raw["network"]["partitions"][512] = {"shape": [4, 4, 4, 4, 2]}
    path = write(tmp_path, raw)
    message = load_error(path)
    assert "network.partitions.512" in message and "source" in message


def test_bad_unit_size_for_bandwidth(tmp_path):
    raw = bgq_raw()
    raw["network"]["link_bandwidth"]["value"] = "2 GB"
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "network.link_bandwidth" in message
    assert "2 GB/s" in message  # the example of a valid bandwidth


def test_negative_bandwidth(tmp_path):
    raw = bgq_raw()
    raw["node"]["memory_bandwidth"]["value"] = "-42.6 GB/s"
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "node.memory_bandwidth: must be greater than zero" in message


def test_zero_cores(tmp_path):
    raw = bgq_raw()
    raw["node"]["cores"]["value"] = 0
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "node.cores: must be greater than zero" in message


def test_non_integer_cores(tmp_path):
    raw = bgq_raw()
    raw["node"]["cores"]["value"] = 2.5
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "node.cores: must be a whole number" in message


def test_all_problems_reported_at_once(tmp_path):
    raw = bgq_raw()
    raw["node"]["cores"]["value"] = 0
    raw["network"]["link_bandwidth"]["value"] = "2 GB"
    path = write(tmp_path, raw)
    message = load_error(path)
    assert "node.cores" in message and "network.link_bandwidth" in message


def test_default_nodes_above_max(tmp_path):
    raw = bgq_raw()
    raw["nodes"]["default"]["value"] = 200000
    message = load_error(write(tmp_path, raw))
    assert "nodes.default" in message and "exceeds nodes.max" in message


def test_torus_partition_shape_must_multiply_to_its_count(tmp_path):
    raw = bgq_raw()
    raw["network"]["partitions"][1024]["shape"] = [4, 4, 4, 4, 2]  # 512 nodes
    path = write(tmp_path, raw)
    message = load_error(path)
    assert str(path) in message
    assert "network.partitions.1024" in message
    assert "holds 512 nodes, not 1024" in message


def test_unknown_machine_name():
    message = load_error("no_such_machine")
    assert "no_such_machine" in message and "bluegene_q" in message


def test_missing_machine_file(tmp_path):
    message = load_error(tmp_path / "absent.yaml")
    assert "absent.yaml" in message and "does not exist" in message


# ----------------------------------------------------------------- extends
def test_extends_overrides_one_value_and_keeps_the_rest(tmp_path):
    path = write(tmp_path, {
        "extends": "bluegene_q",
        "name": "bgq_fast_links",
        "network": {"link_bandwidth": {"value": "4 GB/s", "source": "what-if: doubled links"}},
    })
    base = load_machine("bluegene_q")
    variant = load_machine(str(path))
    assert variant.name == "bgq_fast_links"
    assert variant.network.link_bandwidth_Bps == 4e9
    assert variant.sources["network.link_bandwidth"] == "what-if: doubled links"
    # everything else is inherited
    assert variant.network.hop_latency_s == base.network.hop_latency_s
    assert variant.network.topology_params == base.network.topology_params
    assert variant.node == base.node
    assert variant.sources["network.hop_latency"] == base.sources["network.hop_latency"]


def test_extends_a_file_by_relative_path(tmp_path):
    write(tmp_path, BGQ_FILE.read_text(), name="base.yaml")
    path = write(tmp_path, {
        "extends": "base.yaml",
        "name": "child",
        "node": {"cores": {"value": 8, "source": "what-if: half the cores"}},
    }, name="child.yaml")
    child = load_machine(str(path))
    assert child.node.cores == 8
    assert child.node.clock_hz == 1.6e9


def test_extends_section_override_merges_key_by_key(tmp_path):
    """Overriding network.shape in a child keeps the base's other network keys."""
    path = write(tmp_path, {
        "extends": "bluegene_q",
        "name": "bgq_small",
        "network": {"shape": [2, 2, 2, 2, 2]},
    })
    m = load_machine(str(path))
    assert m.network.topology_params["shape"] == (2, 2, 2, 2, 2)
    assert m.network.link_bandwidth_Bps == 2e9


def test_extends_curve_override_needs_its_own_source(tmp_path):
    """New curve points must not inherit the base file's source."""
    path = write(tmp_path, {
        "extends": "cell_be",
        "name": "cell_fast_dma",
        "dma": {"bandwidth_curve": {"points": [["64 B", "2 GB/s"], ["1 KiB", "3 GB/s"]]}},
    })
    message = load_error(path)
    assert "dma.bandwidth_curve" in message and "source" in message


def test_extends_curve_override_with_source(tmp_path):
    path = write(tmp_path, {
        "extends": "cell_be",
        "name": "cell_fast_dma",
        "dma": {"bandwidth_curve": {"points": [["64 B", "2 GB/s"], ["1 KiB", "3 GB/s"]],
                                    "source": "what-if: faster DMA"}},
    })
    m = load_machine(str(path))
    assert m.section("dma").curve_bandwidth_Bps == (2e9, 3e9)
    assert m.sources["dma.bandwidth_curve"] == "what-if: faster DMA"
    assert m.section("dma").max_outstanding == 16  # inherited


def test_extends_loop(tmp_path):
    write(tmp_path, {"extends": "b.yaml", "name": "a"}, name="a.yaml")
    write(tmp_path, {"extends": "a.yaml", "name": "b"}, name="b.yaml")
    message = load_error(tmp_path / "a.yaml")
    assert "loop" in message
    assert "a.yaml" in message and "b.yaml" in message


def test_extends_itself(tmp_path):
    path = write(tmp_path, {"extends": "self.yaml", "name": "self"}, name="self.yaml")
    assert "loop" in load_error(path)


# ---------------------------------------------------------------- --set
def test_set_override_changes_value_and_source():
    m = load_machine("bluegene_q", overrides=["network.link_bandwidth=4 GB/s"])
    assert m.network.link_bandwidth_Bps == 4e9
    assert m.sources["network.link_bandwidth"] == OVERRIDE_SOURCE
    assert "command-line override" in m.sources["network.link_bandwidth"]
    assert m.network.hop_latency_s == pytest.approx(40e-9)  # untouched


def test_set_override_of_a_count_and_a_choice():
    m = load_machine("bluegene_q", overrides=["node.cores=8", "network.topology=crossbar"])
    assert m.node.cores == 8
    assert m.network.topology == "crossbar"


def test_set_override_is_validated():
    message = load_error("bluegene_q", overrides=["network.link_bandwidth=4 GB"])
    assert "network.link_bandwidth" in message
    assert "bluegene_q.yaml" in message


def test_set_unknown_key():
    message = load_error("bluegene_q", overrides=["network.bogus=3"])
    assert "network.bogus" in message
    assert "no such machine parameter" in message


def test_set_unknown_key_suggests_the_right_path():
    message = load_error("bluegene_q", overrides=["link_bandwidth=4 GB/s"])
    assert "network.link_bandwidth" in message  # "did you mean"


def test_set_without_equals_sign():
    message = load_error("bluegene_q", overrides=["network.link_bandwidth"])
    assert "dotted.key=value" in message


# ---------------------------------------------------------------- messages users meet

def test_an_empty_file_says_it_is_empty(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("")
    with pytest.raises(UserError, match="is empty"):
        load_machine(str(path))


def test_a_misspelt_base_is_traced_to_the_file_that_names_it(tmp_path):
    path = tmp_path / "child.yaml"
    path.write_text("extends: bluegene_qq\n")
    with pytest.raises(UserError) as error:
        load_machine(str(path))
    assert str(path) in str(error.value) and "did you mean bluegene_q" in str(error.value)


def test_a_misspelt_key_gets_a_suggestion(tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text("extends: bluegene_q\nnetwork:\n  link_bandwidht: {value: 2 GB/s, source: x}\n")
    with pytest.raises(UserError, match="did you mean link_bandwidth"):
        load_machine(str(path))


def test_a_bad_value_given_with_set_is_marked_as_such():
    with pytest.raises(UserError, match=r"hop_latency: .*bare number 3 \(value from --set\)"):
        load_machine("bluegene_q", overrides=["network.hop_latency=3"])


def test_packets_must_be_whole_granules():
    with pytest.raises(UserError, match="not a whole number of 32 B granules"):
        load_machine("bluegene_q", overrides=["network.packet_payload=500 B"])


# ------------------------------------------------------------ non_effects
def test_declared_non_effects_are_read_and_told_by_algorithm(tmp_path):
    raw = bgq_raw()
    raw["non_effects"] = {"network.packet_granule": {"cp2d": "every cp2d packet is a whole number of granules"}}
    machine = load_machine(str(write(tmp_path, raw)))
    assert machine.non_effect("network.packet_granule", "cp2d") == "every cp2d packet is a whole number of granules"
    assert machine.non_effect("network.packet_granule", "cp2d:anything") == machine.non_effect(
        "network.packet_granule", "cp2d")  # options do not matter
    assert machine.non_effect("network.packet_granule", "cp1d-spi") is None
    assert machine.non_effect("network.link_bandwidth", "cp2d") is None


@pytest.mark.parametrize("non_effects, message", [
    ({"network.link_bandwith": {"cp2d": "x"}}, "non_effects.network.link_bandwith: is not a machine parameter; "
                                               "did you mean network.link_bandwidth?"),
    ({"network.link_bandwidth": {"cp3d": "x"}}, "non_effects.network.link_bandwidth.cp3d: unknown algorithm"),
    ({"network.link_bandwidth": {"cp2d": ""}}, "must be a sentence saying why"),
    ({"network.link_bandwidth": "cp2d"}, "must map each algorithm to the reason"),
    (["network.link_bandwidth"], "non_effects: must be a mapping KEY: {ALGORITHM: reason}"),
])
def test_malformed_non_effects_are_refused_in_one_line_each(tmp_path, non_effects, message):
    raw = bgq_raw()
    raw["non_effects"] = non_effects
    assert message in load_error(write(tmp_path, raw))
