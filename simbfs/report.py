"""Human-readable text for run results and machine models."""

from __future__ import annotations

import re

from .machine import schema
from .machine.model import Machine
from .units import SI_UNITS, format_quantity


def teps_table_rows(doc: dict) -> list[tuple[str, float]]:
    t = doc["teps"]
    return [(k, t[k]) for k in ("harmonic_mean", "min", "q1", "median", "q3", "max")]


def representative_root(doc: dict) -> int:
    """The root in the middle of the TEPS ranking (rank ceil(K/2) from the
    slowest); the per-level table and plot show it."""
    ordered = sorted(doc["roots"], key=lambda r: (r["teps"], r["root"]))
    return ordered[(len(ordered) - 1) // 2]["root"]


def levels_of(doc: dict, root: int) -> list[dict]:
    return [level for level in doc["levels"] if level["root"] == root]


def _teps(value: float) -> str:
    for unit, scale in (("TTEPS", 1e12), ("GTEPS", 1e9), ("MTEPS", 1e6), ("kTEPS", 1e3)):
        if value >= scale:
            return f"{value / scale:.4g} {unit}"
    return f"{value:.4g} TEPS"


def _time(seconds: float) -> str:
    return format_quantity(seconds, "time")


ORIGIN_TEXT = {"paper": " (the paper's own code)",
               "other paper": " (another paper's code, not this machine's paper's)",
               "generic": " (generic level-synchronous BFS, not the paper's code)"}


def topology_text(label: str) -> str:
    """The document's topology label for people: a fat tree's shape spelled
    out (``fat_tree 1x18+4 1:1`` is 1 full supernode of 18 hosts, a
    partial one of 4, and 1:1 oversubscription into the central network)."""
    match = re.fullmatch(r"fat_tree (\d+)x(\d+)(?:\+(\d+))? 1:(\S+)", label)
    if not match:
        return label
    full, size, last, ratio = match.groups()
    supernodes = f"{full} supernode{'s' if full != '1' else ''} of {size} hosts" + (
        f" + 1 of {last}" if last else "")
    return f"fat tree: {supernodes}, oversubscribed 1:{ratio} into the central network"


def format_run(doc: dict) -> str:
    graph = doc["graph"]
    shape = f"edgefactor {graph['edgefactor']}" if graph["kind"] == "kronecker" else f"arity {graph['arity']:g}"
    if graph.get("directed"):
        shape += ", directed"
    lines = [
        f"simbfs {doc['simbfs_version']}  mode: {doc['mode']}",
        f"machine    {doc['machine']} ({topology_text(doc['topology'])}), " + (
            f"{doc['nodes']} nodes" if doc.get("hosts", doc["nodes"]) == doc["nodes"] else
            f"{doc['nodes']} nodes (MPI processes, one per GPU) on {doc['hosts']} hosts"),
        f"algorithm  {doc['algorithm']}" + ORIGIN_TEXT.get(doc.get("algorithm_origin"), ""),
        f"graph      {graph['kind']} scale {graph['scale']}, {shape}, seed {graph['seed']}: "
        f"{graph['vertices']:,} vertices, {graph['input_edges']:,} input edges",
    ]
    if doc["overrides"]:
        lines.append("overrides  " + ", ".join(doc["overrides"]))
    if doc.get("calibrated_on"):
        lines.append(f"CALIBRATED on {doc['calibrated_on']} (one-point calibration: these numbers are fitted "
                     f"to that measurement, not predicted)")
    for warning in doc.get("warnings", ()):
        lines.append(f"WARNING    {warning}")
    roots = doc["roots"]
    projection = doc.get("projection")
    if projection:
        lines.append(f"PROJECTED  not executed: predicted from a BFS profile at scale {projection['profile_scale']} "
                     f"({projection['method']})")
    if projection:
        lines.append(f"validation the profile's BFS runs at scale {projection['profile_scale']}; no tree exists "
                     f"at the projected size")
    elif doc["validated"]:
        bad = [r["root"] for r in roots if not r["valid"]]
        verdict = "all valid" if not bad else f"INVALID for roots {bad}"
        rules = "the 5 Graph500 rules (directed form)" if doc["graph"].get("directed") else "the 5 Graph500 rules"
        trees = f"{len(roots)} BFS tree{'s' if len(roots) != 1 else ''}"
        lines.append(f"validation {trees} checked against {rules}: {verdict}")
    else:
        lines.append("validation SKIPPED (--no-validate): the BFS trees were not checked")
    if "wall_time_s" in doc:
        lines.append(f"wall time  {_time(doc['wall_time_s'])} on this computer")
    lines.append("")
    kind = "Projected" if projection else "Simulated"
    lines.append(f"{kind} TEPS over {len(roots)} root{'s' if len(roots) != 1 else ''} (Graph500 statistics):")
    for name, value in teps_table_rows(doc):
        lines.append(f"  {name:<14} {_teps(value):>14}")
    times = [r["time_s"] for r in roots]
    lines.append(f"  {'BFS time':<14} {_time(min(times)):>14} .. {_time(max(times))}")
    for match in doc.get("paper_claims", ()):
        lines.append(format_paper_comparison(match, bool(doc["overrides"]), bool(projection)))
    lines.append("")
    root = representative_root(doc)
    lines.append(f"{'Projected per' if projection else 'Per'} level, root {root} "
                 f"(middle of the TEPS ranking; --json and --csv have every root):")
    lines.append(format_levels(levels_of(doc, root)))
    lines.append("  compute: mean over nodes; busiest: the busiest node; messages: network packets (Cell: queue puts);")
    lines.append("  time = compute + comm + sync (waiting for the slowest node)")
    if doc.get("uncertainty"):
        lines.append("")
        lines.extend(format_uncertainty(doc["uncertainty"]))
    return "\n".join(lines)


UNCERTAINTY_TOP = 8  # parameters listed by the text report (the JSON has all)


def format_uncertainty(section: dict) -> list[str]:
    """The text report's lines for an ``uncertainty`` section (simbfs/uncertainty.py)."""
    varied = sum(1 for r in section["ranges"] if r["distribution"] in ("uniform", "log-uniform"))
    lines = [f"Uncertainty: {section['samples']} samples of {varied} parameters' ranges ({section['rule']}), "
             f"{section['design']}, seed {section['seed']}"]
    if section["failed"]:
        lines.append(f"  {len(section['failed'])} samples failed, first: {section['failed'][0]['error']}")
    teps = section.get("teps_harmonic_mean")
    if not teps:
        lines.append("  too few samples finished for an interval")
        return lines
    lines.append(f"  harmonic-mean TEPS: median {_teps(teps['median'])}, 90% interval {_teps(teps['p5'])} .. "
                 f"{_teps(teps['p95'])} (95th/5th percentile {teps['ratio_p95_p5']:.3g})")
    lines.append(f"  what drives it (share of the variance of log TEPS; the shares sum to {teps['explained']:.2f}; "
                 f"a parameter with no effect shows {teps['noise_index']:.2f} by chance at {section['samples']} "
                 f"samples):")
    for item in teps["parameters"][:UNCERTAINTY_TOP]:
        lines.append(f"    {item['key']:<40} {item['index']:6.3f}   TEPS {_teps(item['at_low'])} .. "
                     f"{_teps(item['at_high'])} over its range")
    for claim in section.get("paper_claims", ()):
        where = "inside" if claim["inside"] else "OUTSIDE"
        lines.append(f"  paper {claim['claim']}: {_teps(claim['paper_teps'])} ({claim['statistic']}), {where} the "
                     f"90% interval {_teps(claim['p5'])} .. {_teps(claim['p95'])} of the samples' {claim['statistic']}")
    held = [r for r in section["ranges"] if r["basis"].startswith("held")]
    for r in held:
        lines.append(f"  held {r['key']}: {r['basis'][len('held: '):]}")
    lines.append("  per level (median and 90% interval of its time, mean over roots): " + "; ".join(
        f"{lv['level']}: {_time(lv['median_s'])} [{_time(lv['p5_s'])}, {_time(lv['p95_s'])}]"
        for lv in section["levels"]))
    return lines


def format_paper_comparison(match: dict, overridden: bool, projected: bool) -> str:
    """The paper's value of a claim whose setup the run is, beside simbfs's."""
    verdict = "" if match.get("within") is None else \
        f", {'within' if match['within'] else 'outside'} its {match['tolerance']:.0%}"
    caveat = " (with your --set overrides: not the paper's machine)" if overridden else ""
    what = "projected" if projected else "simbfs"
    return (f"  {'paper':<14} {_teps(match['paper_teps']):>14} {match['statistic'].replace('_', ' ')} "
            f"({match['claim']}; paper {match['paper']}): {what} {match['error']:+.1%}{verdict}{caveat}")


def format_levels(levels: list[dict]) -> str:
    header = ("level", "direction", "frontier", "edges", "messages", "bytes",
              "time", "compute", "busiest", "comm", "sync")
    rows = [header]
    for lv in levels:
        rows.append((
            str(lv["level"]), lv["direction"], f"{lv['frontier_vertices']:,}", f"{lv['edges_examined']:,}",
            f"{lv['messages']:,}", format_quantity(lv["bytes"], "size"), _time(lv["time_s"]),
            _time(lv["compute_s"]), _time(lv["compute_max_s"]), _time(lv["communication_s"]),
            _time(lv["synchronisation_s"]),
        ))
    total = sum(lv["time_s"] for lv in levels)
    rows.append(("total", "", "", f"{sum(lv['edges_examined'] for lv in levels):,}",
                 f"{sum(lv['messages'] for lv in levels):,}",
                 format_quantity(sum(lv["bytes"] for lv in levels), "size"), _time(total),
                 _time(sum(lv["compute_s"] for lv in levels)),
                 _time(sum(lv["compute_max_s"] for lv in levels)),
                 _time(sum(lv["communication_s"] for lv in levels)),
                 _time(sum(lv["synchronisation_s"] for lv in levels))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    out = []
    for i, row in enumerate(rows):
        cells = [row[0].rjust(widths[0]), row[1].ljust(widths[1])]
        cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:])]
        out.append("  " + "  ".join(cells))
        if i == 0 or i == len(rows) - 2:
            out.append("  " + "  ".join("-" * w for w in widths))
    return "\n".join(out)


def describe_machine(machine: Machine) -> str:
    """Every declared parameter with its value and source."""
    lines = [f"{machine.name}: {machine.description}", f"file: {machine.origin}"]
    if machine.paper:
        lines.append(f"paper: {machine.paper}")
    if machine.algorithm:
        lines.append(f"default algorithm: {machine.algorithm} (another with --algorithm; `simbfs run --help` "
                     f"lists them)")
    if machine.calibrated_on:
        lines.append(f"CALIBRATED on {machine.calibrated_on}")
    if machine.calibration_key:
        lines.append(f"least certain parameter: {machine.calibration_key} (what `simbfs calibrate` fits without "
                     f"--fit): {machine.values.get('calibration.reason', '')}")
    lines.append("")
    rows = []
    for path, declaration in schema.walk():
        if path not in machine.sources:
            continue
        value = _lookup(machine, path)
        if isinstance(declaration, schema.Param):
            shown = format_quantity(value, declaration.kind)
            if declaration.kind == "cycles":
                shown += " cycles"
        else:
            shown = str(value)
        rows.append((path, shown, machine.sources[path]))
    # columns as wide as their longest entry, so long dotted keys stay aligned
    key_width = max((len(path) for path, _, _ in rows), default=0)
    value_width = max((len(shown) for _, shown, _ in rows), default=0)
    lines.extend(f"  {path:<{key_width}} {shown:<{value_width}} {source}" for path, shown, source in rows)
    partitions = machine.network.topology_params.get("partitions")
    if partitions:
        lines.append("")
        lines.append("  torus partitions: " + ", ".join(
            f"{n}={'x'.join(map(str, s))}" for n, s in sorted(partitions.items())))
    if machine.non_effects:
        lines.append("")
        lines.append("  what does not change an algorithm's time on this machine (non_effects):")
        for key, reasons in machine.non_effects.items():
            for algorithm, reason in reasons.items():
                lines.append(f"    {key} ({algorithm}): {reason}")
    return "\n".join(lines)




def _plain(value):
    """A validated value as JSON data: tuples as lists, mapping keys as text."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def machine_parameters(machine: Machine) -> dict:
    """Every parameter of the machine as it was resolved (after ``extends``
    and ``--set``), by dotted path: its value in SI units, the unit, and
    its source, so that a result document says exactly what produced it."""
    out = {}
    for path, declaration in schema.walk():
        if path not in machine.values:
            continue
        entry = {"value": _plain(machine.values[path])}
        if isinstance(declaration, schema.Param) and declaration.kind in SI_UNITS:
            entry["unit"] = SI_UNITS[declaration.kind]
        if path in machine.sources:
            entry["source"] = machine.sources[path]
        out[path] = entry
    return out


def _lookup(machine: Machine, path: str):
    """The machine's validated value for a schema path, in SI units."""
    value = machine.values[path]
    if path == "dma.bandwidth_curve":
        return ", ".join(f"{format_quantity(b, 'size')}: {format_quantity(w, 'bandwidth')}" for b, w in zip(*value))
    return value


def levels_csv(doc: dict) -> str:
    """Per-level records of every root as CSV, with the run's identity columns."""
    import csv
    import io

    from .records import LevelRecord

    identity = {"machine": doc["machine"], "nodes": doc["nodes"], "scale": doc["scale"],
                "algorithm": doc["algorithm"], "mode": doc["mode"]}
    fields = list(identity) + list(LevelRecord.__dataclass_fields__)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for level in doc["levels"]:
        writer.writerow({**identity, **level})
    return out.getvalue()
