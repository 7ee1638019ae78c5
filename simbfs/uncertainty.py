"""Prediction intervals: sample the machine file's uncertain parameters and
report the spread of the prediction and what drives it.

The rule (docs/reference/machine-files.md, "Uncertainty ranges") gives
every parameter a range from the kind of its source, and nothing else:

* a spec-sheet value, the seed paper's statement of its own design (a
  format, a thread count), or the seeds README: **exact**;
* a component measurement (``component:``, ``derived ...`` from one, or
  ``calibrated on a component ...``): **uniform over +-10%**, or over the
  spread of its measurements where the file states it (``range:``);
* an ``estimate:``: **log-uniform over a factor of 2 either way**, unless
  the file states another range and its reason (``range:``).

A file may also say a parameter ``follows`` another (a port's bandwidth
that *is* its link's) or is ``fixed`` (a format's size), each with its
reason. A value set on the command line (``--set``) or fitted by
``simbfs calibrate`` is held: it is the user's question, or the fit.

:func:`parameter_ranges` applies the rule to a machine; :func:`design`
draws a seeded Latin hypercube over the varied parameters
(``scipy.stats.qmc``); :func:`sample_overrides` turns a row of it into
``--set`` values; :func:`summarise` gives the median, the 5-95% interval
and each parameter's share of the variance of the log of the prediction
(its squared correlation with it, which for independent inputs is the
first-order Sobol index of a model linear in them); :func:`run` does all of
it for a run, each sample a re-pricing of the nominal run's work where the
work does not change (projection/profile_cache.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .errors import UserError
from .machine.loader import OVERRIDE_SOURCE
from .machine.schema import Curve, Param, walk
from .units import exact_text

RULE_DOC = "docs/reference/machine-files.md#uncertainty-ranges"
ESTIMATE_FACTOR = 2.0  # an estimate spans [value / 2, 2 x value], log-uniform
COMPONENT_SHARE = 0.10  # a single component measurement: +-10%, uniform
PERCENTILES = (5.0, 50.0, 95.0)
NOT_HARDWARE = ("nodes.",)  # which node counts a machine has: the run's question, not a hardware parameter
# a sampled value that must be a whole number of another parameter's (a packet's payload of granules),
# rounded down to one, at least one
WHOLE_MULTIPLE_OF = {"network.packet_payload": "network.packet_granule"}
# the source kinds of the rule, by how a source begins (lower case)
ESTIMATE_PREFIXES = ("estimate",)
COMPONENT_PREFIXES = ("component", "derived", "calibrated on a component")
EXACT_PREFIXES = ("spec", "seeds readme", "graph500 specification", "000", "001", "002", "003", "004")


def source_kind(source: str) -> str:
    """The rule's kind of a parameter's source: ``estimate``,
    ``component``, ``exact`` (a spec sheet, a seed paper's statement of
    its design, the seeds README), ``calibrated`` (fitted by simbfs
    calibrate), ``set`` (--set), or ``unclassified`` (none of these: held,
    and said so)."""
    text = source.strip().lower()
    if text == OVERRIDE_SOURCE.lower():
        return "set"
    if text.startswith(ESTIMATE_PREFIXES):
        return "estimate"
    if text.startswith(COMPONENT_PREFIXES):
        return "component"
    if text.startswith("calibrated"):
        return "calibrated"
    if text.startswith(EXACT_PREFIXES):
        return "exact"
    return "unclassified"


@dataclass(frozen=True)
class ParameterRange:
    """One parameter's range under the rule: ``low`` to ``high`` around
    ``value`` (SI units; for a curve, factors on its values), drawn
    ``distribution`` (``uniform``, ``log-uniform``, ``fixed``, or
    ``follows`` ``followed``), and why (``basis``)."""

    key: str
    value: float
    low: float
    high: float
    distribution: str
    basis: str
    kind: str | None = None  # the unit kind (simbfs.units.KINDS); None for a curve
    integer: bool = False
    followed: str | None = None

    @property
    def varies(self) -> bool:
        return self.distribution in ("uniform", "log-uniform")

    def at(self, u: float) -> float:
        """The value at quantile ``u`` in [0, 1) of the distribution."""
        if self.distribution == "log-uniform":
            value = self.low * (self.high / self.low) ** u
        elif self.distribution == "uniform":
            value = self.low + (self.high - self.low) * u
        else:
            value = self.value
        return self.allowed(value)

    def allowed(self, value: float) -> float:
        """``value`` as this parameter can take it: a whole number, at least 1, if it is one."""
        return float(max(1, round(value))) if self.integer else float(value)

    def as_dict(self) -> dict:
        return {"key": self.key, "value": self.value, "low": self.low, "high": self.high,
                "distribution": self.distribution + (f" {self.followed}" if self.followed else ""),
                "basis": self.basis}


def parameter_ranges(machine, held: Callable[[str], str | None] = lambda key: None) -> list[ParameterRange]:
    """Every numeric hardware parameter of ``machine`` with its range
    under the rule (module docstring), in the schema's order. ``held(key)``
    gives a reason to hold a parameter at its value (a projection's work
    parameter), or None."""
    declared = dict(walk())
    ranges = []
    for key, spec in declared.items():
        if key not in machine.sources or key.startswith(NOT_HARDWARE) or not isinstance(spec, (Param, Curve)):
            continue
        is_curve = isinstance(spec, Curve)
        value = 1.0 if is_curve else float(machine.values[key])
        common = {"key": key, "value": value, "kind": None if is_curve else spec.kind,
                  "integer": (not is_curve) and spec.integer}
        ranges.append(_range(machine, key, common, held(key)))
    return ranges


def _range(machine, key: str, common: dict, held_reason: str | None) -> ParameterRange:
    value = common["value"]
    kind = source_kind(machine.sources[key])
    # a stated range speaks for the file's value; not for one set or fitted since
    stated = machine.ranges.get(key) if kind not in ("set", "calibrated") else None

    def fixed(basis: str) -> ParameterRange:
        return ParameterRange(low=value, high=value, distribution="fixed", basis=basis, **common)

    if held_reason is not None:
        return fixed(f"held: {held_reason}")
    if kind == "set":
        return fixed("held: set on the command line (the question asked)")
    if kind == "calibrated":
        return fixed("held: fitted by simbfs calibrate")
    if kind == "unclassified" and not (stated and "follows" in stated):
        return fixed("held: its source names no kind of the rule (spec sheet, paper, component, estimate)")
    if stated is not None:
        if stated.get("fixed"):
            return fixed(f"stated: fixed ({stated['reason']})")
        if "follows" in stated:
            return ParameterRange(low=value, high=value, distribution="follows", followed=stated["follows"],
                                  basis=f"stated: follows {stated['follows']} ({stated['reason']})", **common)
        distribution = "log-uniform" if kind == "estimate" else "uniform"
        return ParameterRange(low=stated["low"], high=stated["high"], distribution=distribution,
                              basis=f"stated ({kind}): {stated['reason']}", **common)
    if kind == "exact":
        return fixed("rule: a spec sheet's or the paper's value is exact")
    if kind == "component":
        return ParameterRange(low=value * (1 - COMPONENT_SHARE), high=value * (1 + COMPONENT_SHARE),
                              distribution="uniform", basis="rule: one component measurement, +-10%", **common)
    return ParameterRange(low=value / ESTIMATE_FACTOR, high=value * ESTIMATE_FACTOR, distribution="log-uniform",
                          basis="rule: an estimate, a factor of 2 either way", **common)


def design(count: int, dimensions: int, seed: int) -> np.ndarray:
    """``count`` points of a scrambled Latin hypercube in [0, 1)^dimensions
    (scipy.stats.qmc): each parameter's range cut into ``count`` equal
    slices, one point in each. The same seed gives the same points."""
    from scipy.stats import qmc

    if dimensions == 0:
        return np.zeros((count, 0))
    return qmc.LatinHypercube(d=dimensions, rng=np.random.default_rng(seed)).random(count)


def sampled_values(ranges: list[ParameterRange], row: np.ndarray, machine) -> dict[str, float]:
    """The values of one design row: the varied parameters at their
    quantiles, the followers moved in proportion, a packet's payload a
    whole number of granules (a curve's: the factor on its values)."""
    varied = [r for r in ranges if r.varies]
    sampled = {r.key: r.at(float(u)) for r, u in zip(varied, row)}
    by_key = {r.key: r for r in ranges}
    for r in ranges:
        if r.distribution == "follows" and r.followed in sampled:
            leader = by_key.get(r.followed)
            ratio = sampled[r.followed] / leader.value if leader is not None else 1.0
            sampled[r.key] = r.allowed(r.value * ratio)
    for key, unit_key in WHOLE_MULTIPLE_OF.items():
        if key in sampled:
            unit = machine.values[unit_key]
            sampled[key] = max(1, math.floor(sampled[key] / unit)) * unit
    return sampled


def sample_overrides(ranges: list[ParameterRange], row: np.ndarray, machine) -> list[str]:
    """The ``--set KEY=VALUE`` texts of one design row (:func:`sampled_values`)."""
    by_key = {r.key: r for r in ranges}
    declared = dict(walk())
    texts = []
    for key, value in sampled_values(ranges, row, machine).items():
        r, spec = by_key[key], declared[key]
        if r.kind is None:  # a curve: its values scaled by the factor
            points = ", ".join(f"[{exact_text(x, spec.x)}, {exact_text(y * value, spec.y)}]"
                               for x, y in zip(*machine.values[key]))
            texts.append(f"{key}={{points: [{points}], source: \"sampled\"}}")
        else:
            texts.append(f"{key}={exact_text(int(value) if r.integer else value, r.kind)}")
    return texts


def _interval(values) -> tuple[float, float, float]:
    """The 5th, 50th and 95th percentiles of ``values``."""
    low, median, high = np.percentile(np.asarray(values, dtype=np.float64), PERCENTILES)
    return float(low), float(median), float(high)


def summarise(values: np.ndarray, ranges: list[ParameterRange], samples: np.ndarray) -> dict:
    """The median and 5-95% interval of ``values`` (one per sample), and
    each varied parameter's share of the variance of log(values): the
    squared correlation of log(values) with the parameter (with its log,
    for a log-uniform one), largest first. For inputs drawn independently
    and a prediction linear in them (in those logs), the shares are the
    first-order Sobol indices and add up to 1; ``explained``, their sum,
    says how far that holds. A parameter with no effect shows a share of
    ``noise_index`` = 1/(n-1) on average, by chance: with few samples and
    many parameters the shares of the small ones, and their sum, are noise."""
    values = np.asarray(values, dtype=np.float64)
    low, median, high = _interval(values)
    result = {"median": median, "p5": low, "p95": high, "ratio_p95_p5": high / low if low > 0 else math.inf}
    varied = [r for r in ranges if r.varies]
    shares = []
    y = np.log(values)
    for r, column in zip(varied, np.asarray(samples, dtype=np.float64).T):
        x = np.log(column) if r.distribution == "log-uniform" else column
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            share, slope = 0.0, 0.0
        else:
            correlation = float(np.corrcoef(x, y)[0, 1])
            share = correlation ** 2
            slope = correlation * float(np.std(y)) / float(np.std(x))  # d log(value) / d x
        ends = (np.log(r.low), np.log(r.high)) if r.distribution == "log-uniform" else (r.low, r.high)
        nominal = np.log(r.value) if r.distribution == "log-uniform" else r.value
        shares.append({"key": r.key, "index": share,
                       # the regression's prediction at each end of the range, others at the median
                       "at_low": median * math.exp(slope * (ends[0] - nominal)),
                       "at_high": median * math.exp(slope * (ends[1] - nominal))})
    shares.sort(key=lambda item: (-item["index"], item["key"]))
    result["parameters"] = shares
    result["explained"] = float(sum(item["index"] for item in shares))
    # the squared correlation of two independent samples of n has mean 1/(n-1):
    # what a parameter with no effect shows, by chance
    result["noise_index"] = 1.0 / (len(values) - 1)
    return result


@dataclass(frozen=True)
class Plan:
    """The samples of one run: its machine, its ranges, the design's rows,
    and one configuration per row (the run's, with the row's ``--set``
    values, unvalidated)."""

    machine: object
    ranges: list
    rows: np.ndarray
    seed: int
    samples: list

    def attach(self, nominal: dict, results: list) -> dict:
        """The nominal run's document with the ``uncertainty`` section of
        the samples' ``results`` (sweep.run_point's, in the samples' order)."""
        nominal["uncertainty"] = _section(nominal, results, self.ranges, self.rows, self.seed, self.machine)
        return nominal


def check_count(count: int) -> None:
    """Refuse a number of samples too small for an interval."""
    if count < 2:
        raise UserError(f"--uncertainty {count}: give at least 2 samples (64 is a good start)")


def plan(config, count: int, seed: int = 1) -> Plan:
    """``count`` samples of ``config``'s machine's ranges (module
    docstring); a projection's work parameters held. Checked before
    anything runs."""
    from .algorithms import get_algorithm
    from .machine import load_machine

    check_count(count)
    machine = load_machine(config.machine, config.overrides)
    algorithm = get_algorithm(config.algorithm or machine.algorithm)
    projected = config.mode == "project"

    def held(key: str) -> str | None:
        if projected and algorithm.projection is not None and algorithm.projection.changes_work(key):
            return ("it changes the projection's work: each value would need a new executed profile; "
                    "sweep it instead (simbfs sweep --grid)")
        return None

    ranges = parameter_ranges(machine, held)
    varied = [r for r in ranges if r.varies]
    rows = design(count, len(varied), seed)
    samples = [replace(config, overrides=[*config.overrides, *sample_overrides(ranges, row, machine)],
                       validate=False) for row in rows]
    return Plan(machine=machine, ranges=ranges, rows=rows, seed=seed, samples=samples)


def run(config, count: int, seed: int = 1, jobs: int = 1, scheduler: str | None = None,
        progress: Callable[[str], None] = lambda message: None, bar=None) -> dict:
    """The nominal run's document, with an ``uncertainty`` section from
    ``count`` samples of the machine's ranges (module docstring), run on
    the sweep's machinery (sweep.run_configs)."""
    from . import sweep
    from .runner import run as run_once

    samples = plan(config, count, seed)
    projected = config.mode == "project"
    nominal = run_once(replace(config, reuse_work=projected), progress)
    varied = sum(r.varies for r in samples.ranges)
    progress(f"{count} samples of {varied} uncertain parameters "
             f"({'re-pricing the work profile' if projected else 'each executed'})")
    results: list = [None] * count
    advance = bar(count, "samples") if bar is not None else None

    def done(index: int, result: dict) -> None:
        results[index] = result
        if advance is not None:
            advance(f"sample {index + 1}")
        else:
            progress(f"sample {sum(r is not None for r in results)}/{count}")

    sweep.run_configs(samples.samples, done, jobs=jobs, scheduler=scheduler)
    if advance is not None:
        advance(None)
    return samples.attach(nominal, results)


def _section(nominal: dict, results: list, ranges: list[ParameterRange], rows: np.ndarray, seed: int,
             machine) -> dict:
    ok = [i for i, result in enumerate(results) if result["status"] == "ok"]
    failed = [{"sample": i, "error": result["error"]} for i, result in enumerate(results) if result["status"] != "ok"]
    varied = [r for r in ranges if r.varies]
    section = {
        "samples": len(results), "failed": failed, "seed": seed,
        "design": "scrambled Latin hypercube (scipy.stats.qmc.LatinHypercube)", "rule": RULE_DOC,
        "index": "share of the variance of log(TEPS): squared correlation with the parameter (its log if "
                 "log-uniform); the first-order Sobol index for a prediction linear in independent inputs",
        "ranges": [r.as_dict() for r in ranges if r.distribution != "fixed" or r.basis.startswith(("held", "stated"))],
    }
    if len(ok) < 2:
        section["teps_harmonic_mean"] = None
        return section
    documents = [results[i]["document"] for i in ok]
    values = [sampled_values(ranges, rows[i], machine) for i in ok]
    samples = np.array([[sample[r.key] for r in varied] for sample in values]).reshape(len(ok), -1)
    teps = np.array([doc["teps"]["harmonic_mean"] for doc in documents])
    section["teps_harmonic_mean"] = summarise(teps, ranges, samples)
    section["levels"] = _level_intervals(documents)
    section["paper_claims"] = [_claim_interval(match, documents) for match in nominal.get("paper_claims", ())]
    return section


def _claim_interval(match: dict, documents: list[dict]) -> dict:
    """A claim whose setup the run is (claims.paper_comparisons), with the
    samples' 90% interval of the TEPS statistic it reports, and whether
    the paper's value lies inside it."""
    low, median, high = _interval([doc["teps"][match["statistic"]] for doc in documents])
    return {"claim": match["claim"], "statistic": match["statistic"], "paper_teps": match["paper_teps"],
            "median": median, "p5": low, "p95": high, "inside": bool(low <= match["paper_teps"] <= high)}


def _level_intervals(documents: list[dict]) -> list[dict]:
    """Per BFS level (its depth), the median and 5-95% interval over the
    samples of the level's time, averaged over the roots that reach it."""
    per_sample = []
    for doc in documents:
        by_level: dict[int, list[float]] = {}
        for record in doc["levels"]:
            by_level.setdefault(record["level"], []).append(record["time_s"])
        per_sample.append({level: float(np.mean(times)) for level, times in by_level.items()})
    levels = sorted(set().union(*per_sample))
    out = []
    for level in levels:
        low, median, high = _interval([sample[level] for sample in per_sample if level in sample])
        out.append({"level": level, "median_s": median, "p5_s": low, "p95_s": high})
    return out
