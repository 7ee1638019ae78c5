"""Machine YAML -> validated :class:`~simbfs.machine.model.Machine`.

The pipeline (after Ciw): read the file with ``yaml.safe_load``; merge the
base file named by ``extends``; apply ``--set`` overrides; check every key
against :mod:`simbfs.machine.schema` (unknown and missing keys, units, signs,
integers, a ``source`` for every hardware number); cross-field checks; build
the frozen dataclasses. Every problem is reported as a :class:`UserError`
naming the file and the dotted key path, all problems at once.
"""

from __future__ import annotations

import copy
import difflib
import math
import os
from importlib import resources
from pathlib import Path
from types import MappingProxyType

import yaml

from ..errors import UserError
from ..units import UnitError, example, parse_quantity
from . import schema as S
from .model import (
    CollectiveModel,
    ComputeCosts,
    GraphDefaults,
    Machine,
    MemoryHierarchy,
    MessagingModel,
    NetworkModel,
    NodeModel,
)
from .sections import SectionValues, registered_sections

OVERRIDE_SOURCE = "command-line override (--set)"


def machines_dir() -> Path:
    """Where the bundled machine files live: the package data directory
    ``simbfs/machines/``, found with :mod:`importlib.resources` so that an
    installed wheel has them too; ``SIMBFS_MACHINES`` replaces it."""
    env = os.environ.get("SIMBFS_MACHINES")
    if env:
        return Path(env)
    # A package installed as files (a wheel, or an editable checkout) is a
    # directory on disk, which the loader reads with pathlib like any file.
    return Path(str(resources.files("simbfs") / "machines"))


def bundled_machines() -> list[str]:
    return sorted(p.stem for p in machines_dir().glob("*.yaml"))


def resolve_machine_path(name_or_path: str) -> Path:
    candidate = Path(name_or_path)
    if candidate.is_dir():
        raise UserError(f"{name_or_path} is a directory; give a machine YAML file inside it, or a bundled name "
                        f"({', '.join(bundled_machines())})")
    if candidate.suffix in (".yaml", ".yml") or os.sep in name_or_path:
        if not candidate.is_file():
            raise UserError(f"machine file {name_or_path} does not exist; give a bundled name "
                            f"({', '.join(bundled_machines())}) or the path of a YAML file")
        return candidate
    bundled = machines_dir() / f"{name_or_path}.yaml"
    if bundled.is_file():
        return bundled
    close = difflib.get_close_matches(name_or_path, bundled_machines(), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise UserError(f"unknown machine {name_or_path!r}{hint}; bundled machines are "
                    f"{', '.join(bundled_machines())} (see `simbfs machines`), or give a path to a YAML file")


def load_machine(name_or_path: str, overrides: list[str] | tuple[str, ...] = ()) -> Machine:
    """Load, merge, override and validate a machine file."""
    path = resolve_machine_path(name_or_path)
    _refuse_repeated_keys(overrides)
    raw = read_with_bases(path)
    for override in overrides:
        _apply_override(raw, override)
    return build_machine(raw, origin=str(path))


def _read_yaml(path: Path) -> dict:
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UserError(f"cannot read machine file {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise UserError(f"{path} is not UTF-8 text (byte {exc.start}, line {line}: {exc.object[exc.start:exc.end]!r}); "
                        f"save it as UTF-8") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UserError(f"{path}: malformed YAML{where}: {problem}; fix the syntax "
                        f"(indentation, a missing ':' or an unclosed quote)") from None
    if data is None:
        raise UserError(f"{path} is empty; a machine file is a mapping of sections (name:, node:, network:, ...): "
                        f"start from a bundled one (see `simbfs machines`)")
    if not isinstance(data, dict):
        raise UserError(f"{path}: a machine file must be a mapping of sections (name:, node:, network:, ...), "
                        f"not a {type(data).__name__}")
    return data


def read_with_bases(path: Path) -> dict:
    """The machine file at ``path`` as a plain mapping, with the files it
    ``extends`` merged under it, before ``--set`` and validation: what the
    file and its bases write, e.g. to check that each value names a source."""
    return _read_with_bases(path, seen=())


def _read_with_bases(path: Path, seen: tuple[Path, ...]) -> dict:
    resolved = path.resolve()
    if resolved in seen:
        chain = " -> ".join(str(p) for p in (*seen, resolved))
        raise UserError(f"machine files extend each other in a loop: {chain}; remove one `extends`")
    data = _read_yaml(path)
    base_name = data.get("extends")
    if base_name is None:
        return data
    if not isinstance(base_name, str):
        raise UserError(f"{path}: extends: must be the name or path of a machine file")
    base_path = Path(base_name)
    if not base_path.is_absolute() and (path.parent / base_name).is_file():
        base_path = path.parent / base_name
    elif not base_path.is_file():
        try:
            base_path = resolve_machine_path(base_name)
        except UserError as exc:
            raise UserError(f"{path}: extends: {exc}") from None
    base = _read_with_bases(base_path, seen + (resolved,))
    merged = _deep_merge(base, data)
    merged.pop("extends", None)
    return merged


def _deep_merge(base: dict, top: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in top.items():
        if (isinstance(value, dict) and isinstance(out.get(key), dict)
                and not {"value", "points", "source"} & value.keys()):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _refuse_repeated_keys(overrides) -> None:
    """A key set twice is refused: which value was meant is not ours to
    guess, and letting the last one win would drop the other silently."""
    given: dict[str, str] = {}
    for override in overrides:
        key, eq, value = override.partition("=")
        key = key.strip()
        if not eq:
            continue  # _apply_override explains the form
        if key in given:
            raise UserError(f"--set {key} is given twice ({given[key]!r} and {value.strip()!r}); give it once")
        given[key] = value.strip()


def _apply_override(raw: dict, override: str) -> None:
    if "=" not in override:
        raise UserError(f"--set {override!r}: write it as dotted.key=value, e.g. --set network.link_bandwidth='4 GB/s'")
    path, _, text = override.partition("=")
    path = path.strip()
    declared = dict(S.walk())
    if path not in declared:
        close = [p for p in declared if p.split(".")[-1] == path.split(".")[-1]]
        close = close or difflib.get_close_matches(path, list(declared), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else " (`simbfs machines --describe` lists them)"
        raise UserError(f"--set {path}: no such machine parameter{hint}")
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        value = text
    if value is None:
        value = text
    node = raw
    keys = path.split(".")
    for key in keys[:-1]:
        node = node.setdefault(key, {})
        if not isinstance(node, dict):
            raise UserError(f"--set {path}: {key} is not a section in this machine file")
    if isinstance(declared[path], (S.Param,)):
        node[keys[-1]] = {"value": value, "source": OVERRIDE_SOURCE}
    else:
        node[keys[-1]] = value


class _Problems:
    """Collects validation problems so the user sees them all at once."""

    def __init__(self, origin: str):
        self.origin = origin
        self.items: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.items.append(f"{path}: {message}")

    def note_overrides(self, sources: dict[str, str]) -> None:
        """Say which problems are in values given with --set, not in the file."""
        from_command_line = {p for p, s in sources.items() if s == OVERRIDE_SOURCE}
        self.items = [item + (" (value from --set)" if item.split(":")[0] in from_command_line else "")
                      for item in self.items]

    def raise_if_any(self) -> None:
        if self.items:
            shown = self.items[:12]
            more = f"\n  ... and {len(self.items) - 12} more" if len(self.items) > 12 else ""
            raise UserError(f"{self.origin}: invalid machine file:\n  " + "\n  ".join(shown) + more)


def build_machine(raw: dict, origin: str = "<machine>") -> Machine:
    problems = _Problems(origin)
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    ranges: dict[str, dict] = {}
    _check_section(raw, S.machine_schema(), "", values, sources, problems, ranges)
    problems.note_overrides(sources)
    problems.raise_if_any()
    _cross_checks(values, problems)
    problems.note_overrides(sources)
    problems.raise_if_any()
    _check_followed_ranges(ranges, values, problems)
    problems.raise_if_any()
    return _construct(values, sources, origin, ranges)


def _check_section(data, section: S.Section, prefix: str, values, sources, problems: _Problems,
                   ranges: dict | None = None) -> None:
    ranges = {} if ranges is None else ranges
    where = prefix.rstrip(".") or "top level"
    if not isinstance(data, dict):
        problems.add(where, f"must be a mapping with keys {', '.join(section.fields)}")
        return
    for key in data:
        if key not in section.fields:
            known = ", ".join(section.fields)
            close = difflib.get_close_matches(str(key), list(section.fields), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            problems.add(f"{prefix}{key}", f"unknown key; {hint}{where} accepts: {known}")
    for key, spec in section.fields.items():
        path = f"{prefix}{key}"
        if key not in data:
            if not spec.optional:
                problems.add(path, f"missing; required ({spec.doc})")
            continue
        item = data[key]
        if isinstance(spec, S.Section):
            values[path] = True
            _check_section(item, spec, path + ".", values, sources, problems, ranges)
        elif isinstance(spec, S.Param):
            _check_param(item, spec, path, values, sources, problems)
            _check_range(item, spec.kind, path, values, ranges, problems)
        elif isinstance(spec, S.Choice):
            if item not in spec.choices:
                problems.add(path, f"{item!r} is not one of {', '.join(spec.choices)}")
            else:
                values[path] = item
        elif isinstance(spec, S.Number):
            if isinstance(item, bool) or not isinstance(item, (int, float)) or not item > 0 \
                    or (spec.integer and item != int(item)) or not math.isfinite(item):
                problems.add(path, f"must be a {'whole ' if spec.integer else ''}number greater than zero, "
                                   f"got {item!r}")
            else:
                values[path] = int(item) if spec.integer else float(item)
        elif isinstance(spec, S.Text):
            if not isinstance(item, str) or not item.strip():
                problems.add(path, "must be a non-empty string")
            else:
                values[path] = item
        elif isinstance(spec, S.IntList):
            if not _is_int_list(item):
                problems.add(path, f"must be a list of positive integers such as [4, 4, 2], got {item!r}")
            else:
                values[path] = tuple(item)
        elif isinstance(spec, S.ShapeTable):
            _check_shape_table(item, path, values, sources, problems)
        elif isinstance(spec, S.Curve):
            _check_curve(item, spec, path, values, sources, problems)
            _check_range(item, None, path, values, ranges, problems)
        elif isinstance(spec, S.NonEffects):
            _check_non_effects(item, path, values, problems)


def _check_non_effects(item, path, values, problems) -> None:
    """``KEY: {ALGORITHM: reason}``: every key a declared parameter, every
    algorithm a known one, every reason a sentence."""
    from ..algorithms import ALGORITHMS

    if not isinstance(item, dict):
        problems.add(path, "must be a mapping KEY: {ALGORITHM: reason}, e.g. "
                           "network.link_bandwidth: {lin1d: \"its messages are priced by ...\"}")
        return
    declared = dict(S.walk())
    kept = {}
    for key, by_algorithm in item.items():
        where = f"{path}.{key}"
        if key not in declared:
            close = difflib.get_close_matches(str(key), list(declared), n=1)
            problems.add(where, "is not a machine parameter" + (f"; did you mean {close[0]}?" if close else ""))
            continue
        if not isinstance(by_algorithm, dict) or not by_algorithm:
            problems.add(where, "must map each algorithm to the reason its time does not depend on this key")
            continue
        for algorithm, reason in by_algorithm.items():
            if algorithm not in ALGORITHMS:
                problems.add(f"{where}.{algorithm}",
                             f"unknown algorithm; choose one of {', '.join(sorted(ALGORITHMS))}")
            elif not isinstance(reason, str) or not reason.strip():
                problems.add(f"{where}.{algorithm}", "must be a sentence saying why the time does not depend on it")
        kept[key] = dict(by_algorithm)
    values[path] = kept


def _is_int_list(item) -> bool:
    return (isinstance(item, list) and len(item) > 0
            and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in item))


def _check_source(item, path, sources, problems) -> bool:
    source = item.get("source")
    if not isinstance(source, str) or not source.strip():
        problems.add(path, "needs a `source:` naming where the value comes from "
                           "(paper section or figure, spec sheet, or 'estimate: how')")
        return False
    sources[path] = source.strip()
    return True


def _check_param(item, spec: S.Param, path, values, sources, problems) -> None:
    if not isinstance(item, dict):
        first_example = example(spec.kind).split(", ")[0]
        problems.add(path, f"write it as {{value: {first_example}, source: \"...\"}}")
        return
    extra = set(item) - {"value", "source", "note", "range"}
    if extra:
        problems.add(path, f"unknown key(s) {', '.join(sorted(extra))}; "
                           "a parameter has value, source and an optional note and range")
    if "value" not in item:
        problems.add(path, f"missing value, e.g. value: {example(spec.kind)}")
        return
    _check_source(item, path, sources, problems)
    try:
        number = parse_quantity(item["value"], spec.kind)
    except UnitError as exc:
        problems.add(path, str(exc))
        return
    if number != number or number in (float("inf"), float("-inf")):
        problems.add(path, "must be a finite number")
        return
    if spec.positive and number <= 0:
        problems.add(path, f"must be greater than zero, got {item['value']!r}")
        return
    if not spec.positive and number < 0:
        problems.add(path, f"cannot be negative, got {item['value']!r}")
        return
    if spec.integer:
        if number != int(number):
            problems.add(path, f"must be a whole number, got {item['value']!r}")
            return
        number = int(number)
    values[path] = number


RANGE_FORMS = ("range: {low: ..., high: ..., reason: \"...\"}, range: {fixed: true, reason: \"...\"} or "
               "range: {follows: other.key, reason: \"...\"}")


def _check_range(item, kind: str | None, path: str, values: dict, ranges: dict, problems) -> None:
    """A parameter's stated uncertainty range (docs/reference/machine-files.md,
    "Uncertainty ranges"), where its source gives one other than the rule's:
    ``{low, high, reason}`` (in the parameter's units, around its value),
    ``{fixed: true, reason}`` or ``{follows: KEY, reason}`` (moves with
    another parameter, in proportion). Kept in ``ranges`` by path."""
    if not isinstance(item, dict) or "range" not in item:
        return
    stated = item["range"]
    if not isinstance(stated, dict) or not isinstance(stated.get("reason"), str) or not stated["reason"].strip():
        problems.add(f"{path}.range", f"write it as {RANGE_FORMS}; the reason is required")
        return
    forms = [form for form in (("low", "high"), ("fixed",), ("follows",)) if set(form) <= stated.keys()]
    if len(forms) != 1 or set(stated) - {*forms[0], "reason"}:
        problems.add(f"{path}.range", f"give exactly one of low and high, fixed or follows: {RANGE_FORMS}")
        return
    reason = stated["reason"].strip()
    if forms[0] == ("fixed",):
        if stated["fixed"] is not True:
            problems.add(f"{path}.range.fixed", "must be true (or leave range out to follow the rule)")
            return
        ranges[path] = {"fixed": True, "reason": reason}
    elif forms[0] == ("follows",):
        ranges[path] = {"follows": str(stated["follows"]), "reason": reason}
    else:
        if kind is None:
            problems.add(f"{path}.range", "a curve's range is a factor: write it as {fixed: true, reason} or "
                                          "leave it to the rule")
            return
        try:
            low, high = (parse_quantity(stated[end], kind) for end in ("low", "high"))
        except UnitError as exc:
            problems.add(f"{path}.range", str(exc))
            return
        value = values.get(path)
        if value is not None and not 0 < low <= value <= high:
            problems.add(f"{path}.range", f"must hold the value: 0 < low <= value <= high, got low {stated['low']!r}, "
                                          f"value {item.get('value')!r}, high {stated['high']!r}")
            return
        ranges[path] = {"low": low, "high": high, "reason": reason}


def _check_followed_ranges(ranges: dict, values: dict, problems) -> None:
    """A ``follows`` names another parameter of the file that is not itself a follower."""
    for path, stated in ranges.items():
        followed = stated.get("follows")
        if followed is None:
            continue
        if followed == path or not isinstance(values.get(followed), (int, float)) or isinstance(values[followed], bool):
            problems.add(f"{path}.range.follows", f"{followed!r} is not another numeric parameter of this machine")
        elif "follows" in ranges.get(followed, {}):
            problems.add(f"{path}.range.follows", f"{followed} follows {ranges[followed]['follows']} itself; name "
                                                  f"that one")


def _check_shape_table(item, path, values, sources, problems) -> None:
    if not isinstance(item, dict):
        problems.add(path, "must map node counts to {shape: [..], source: ...}")
        return
    table = {}
    for count, entry in item.items():
        entry_path = f"{path}.{count}"
        if not isinstance(count, int) or count <= 0:
            problems.add(entry_path, "keys must be positive node counts")
            continue
        if not isinstance(entry, dict) or not _is_int_list(entry.get("shape")):
            problems.add(entry_path, "write it as {shape: [4, 4, 4, 8, 2], source: \"...\"}")
            continue
        extra = set(entry) - {"shape", "source", "note"}
        if extra:
            problems.add(entry_path, f"unknown key(s) {', '.join(sorted(extra))}")
        if not _check_source(entry, entry_path, sources, problems):
            continue
        shape = tuple(entry["shape"])
        if math.prod(shape) != count:
            problems.add(entry_path, f"shape {list(shape)} holds {math.prod(shape)} nodes, not {count}")
            continue
        table[count] = shape
    values[path] = table


def _check_curve(item, spec: S.Curve, path, values, sources, problems) -> None:
    if not isinstance(item, dict) or not isinstance(item.get("points"), list) or not item["points"]:
        problems.add(path, f"write it as {{points: [[{example(spec.x)}, {example(spec.y)}], ...], source: \"...\"}}")
        return
    _check_source(item, path, sources, problems)
    xs, ys = [], []
    for i, point in enumerate(item["points"]):
        if not isinstance(point, list) or len(point) != 2:
            problems.add(f"{path}.points[{i}]", f"must be a pair [{spec.x_name}, {spec.y_name}]")
            return
        try:
            x, y = parse_quantity(point[0], spec.x), parse_quantity(point[1], spec.y)
        except UnitError as exc:
            problems.add(f"{path}.points[{i}]", str(exc))
            return
        if x <= 0 or y <= 0:
            problems.add(f"{path}.points[{i}]", "values must be greater than zero")
            return
        xs.append(x)
        ys.append(y)
    if any(b <= a for a, b in zip(xs, xs[1:])):
        problems.add(path, f"points must be sorted by increasing {spec.x_name}")
        return
    values[path] = (tuple(xs), tuple(ys))


def _cross_checks(values: dict, problems: _Problems) -> None:
    if values["nodes.default"] > values["nodes.max"]:
        problems.add("nodes.default", f"{values['nodes.default']} exceeds nodes.max {values['nodes.max']}")
    _check_topology(values, problems)
    for name, section in registered_sections().items():
        if name not in values:
            continue
        for needed in section.requires:
            if needed not in values:
                problems.add(name, f"needs a `{needed}:` section as well; add one "
                                   f"(docs/reference/machine-files.md)")
        section.check(SectionValues(values, name), problems.add)
    key = values.get("calibration.key")
    if key is not None:
        if not isinstance(S.declaration(key), S.Param):
            problems.add("calibration.key", f"{key!r} is not a hardware parameter of the schema; name one "
                                            f"with a value and a source, e.g. node.memory_hierarchy.memory_latency")
        elif key not in values:
            problems.add("calibration.key", f"{key!r} is not set in this machine file; calibrate a parameter it has")
    kind = values.get("graph.kind")
    for key, belongs in (("edgefactor", "kronecker"), ("arity", "uniform")):
        if kind is not None and f"graph.{key}" in values and kind != belongs:
            problems.add(f"graph.{key}", f"applies to {belongs} graphs, and graph.kind is {kind}; remove it")
    if values["messaging.edge_bytes"] > values["network.packet_payload"]:
        problems.add("messaging.edge_bytes", "an edge must fit in one packet payload")
    payload, granule = values["network.packet_payload"], values["network.packet_granule"]
    if payload % granule:
        problems.add("network.packet_payload", f"{payload:.0f} B is not a whole number of {granule:.0f} B granules; "
                                               f"packets occupy the wire in granules, so make it a multiple")
    if values["network.packet_granule"] > values["network.packet_payload"]:
        problems.add("network.packet_granule", "cannot exceed network.packet_payload")


def _topology_params(values: dict) -> dict:
    """The chosen topology's own parameters: name -> validated value."""
    from ..engine.topology import TOPOLOGIES

    declared = TOPOLOGIES[values["network.topology"]].PARAMETERS
    return {key: values[f"network.{key}"] for key in declared if f"network.{key}" in values}


def _check_topology(values: dict, problems: _Problems) -> None:
    """The chosen topology's own checks of its parameters. Another
    topology's parameters are validated but not used: a file keeps its real
    torus partitions when a what-if swaps in a crossbar with --set."""
    from ..engine.topology import TOPOLOGIES

    chosen = values.get("network.topology")
    if chosen in TOPOLOGIES:  # else already reported as not one of the choices
        TOPOLOGIES[chosen].check(_topology_params(values), problems.add)


def _construct(v: dict, sources: dict, origin: str, ranges: dict | None = None) -> Machine:
    compute = ComputeCosts(
        edge_scan_cycles=v["node.compute.edge_scan"],
        bitmap_probe_cycles=v["node.compute.bitmap_probe"],
        vertex_visit_cycles=v["node.compute.vertex_visit"],
        message_pack_cycles=v["node.compute.message_pack"],
        message_unpack_cycles=v["node.compute.message_unpack"],
    )
    node = NodeModel(
        clock_hz=v["node.clock"],
        cores=v["node.cores"],
        threads_per_core=v["node.threads_per_core"],
        memory_bytes=v["node.memory"],
        memory_bandwidth_Bps=v["node.memory_bandwidth"],
        compute=compute,
        memory_hierarchy=_memory_hierarchy(v),
    )
    network = NetworkModel(
        topology=v["network.topology"],
        topology_params=MappingProxyType(_topology_params(v)),
        link_bandwidth_Bps=v["network.link_bandwidth"],
        hop_latency_s=v["network.hop_latency"],
        injection_bandwidth_Bps=v["network.injection_bandwidth"],
        packet_payload_bytes=v["network.packet_payload"],
        packet_header_bytes=v["network.packet_header"],
        packet_granule_bytes=v["network.packet_granule"],
        processes_per_host=int(v.get("network.processes_per_host", 1)),
    )
    messaging = MessagingModel(
        edge_bytes=v["messaging.edge_bytes"],
        send_overhead_s=v["messaging.send_overhead"],
        receive_overhead_s=v["messaging.receive_overhead"],
    )
    collectives = CollectiveModel(
        stage_latency_s=v["collectives.stage_latency"],
        bandwidth_Bps=v["collectives.bandwidth"],
        algorithm=v.get("collectives.algorithm", "log-stages"),
    )
    sections = {name: section.build(SectionValues(v, name))
                for name, section in registered_sections().items() if name in v}
    return Machine(
        name=v["name"],
        description=v["description"],
        paper=v.get("paper"),
        algorithm=v.get("algorithm"),
        calibration_key=v.get("calibration.key"),
        calibrated_on=v.get("calibrated_on"),
        non_effects=v.get("non_effects", {}),
        graph=GraphDefaults(kind=v["graph.kind"], scale=v["graph.scale"], edgefactor=v.get("graph.edgefactor"),
                            arity=v.get("graph.arity")) if "graph.kind" in v else None,
        default_nodes=v["nodes.default"],
        max_nodes=v["nodes.max"],
        node=node,
        network=network,
        messaging=messaging,
        collectives=collectives,
        sources=sources,
        ranges=ranges or {},
        origin=origin,
        sections=sections,
        values={path: value for path, value in v.items()
                if path != "non_effects" and (path in sources or not isinstance(value, bool))},
    )


def _memory_hierarchy(v: dict) -> MemoryHierarchy | None:
    if "node.memory_hierarchy.cache_size" not in v:
        return None
    return MemoryHierarchy(**{f"{key}_{unit}": v[f"node.memory_hierarchy.{key}"] for key, unit in (
        ("cache_size", "bytes"), ("cache_latency", "cycles"), ("memory_latency", "cycles"), ("cache_line", "bytes"))})
