"""One-point calibration: fit one machine parameter to one measured TEPS.

A user who has measured their machine once (N nodes, scale S, algorithm A:
X TEPS) asks which value of one uncertain parameter makes simbfs predict X.
``calibrate`` finds it and writes a machine file that extends the original
with that value, whose source names the measurement, and that says
``calibrated_on``: every run on it reports "calibrated on ..." in its text
and its JSON, so a calibrated prediction is never mistaken for an
uncalibrated one (docs/howto/calibrate.md).

The search (:func:`solve`) works on the parameter's logarithm, since
hardware parameters are positive and act multiplicatively:

1. **Direction.** Predict at the current value and at twice it. If doubling
   does not move the prediction, try half. If neither does, the parameter
   is hidden behind another term (time = max(cpu, network)): when the
   measured run is slower than predicted, the search raises a cost (lowers
   a bandwidth) until it binds; otherwise it cannot be fitted.
2. **Bracket.** Step by factors of 2 towards the measurement until the
   prediction passes it, at most ``LIMIT`` times away from the start (a
   parameter that must move further cannot explain the miss).
3. **Bisect** in log space until the prediction is within ``rtol`` of X.

Every prediction is checked against the monotone response the search
assumes: a point that falls outside its neighbours by more than
``MONOTONE_SLACK`` (the simulations' own jitter: event order, claim timing)
stops the search with an error naming the points. Each step is one full
simpy run (or projection), so a calibration costs 10 to 20 runs; a
projection's work profile is computed at the first and re-priced at the
others when the fitted parameter only changes prices (runner.RunConfig's
``reuse_work``).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, replace
from typing import Callable

from .errors import UserError

LIMIT = 2.0**12  # the furthest the search moves a parameter, either way
MONOTONE_SLACK = 0.005
RTOL = 1e-3
MAX_STEPS = 40


@dataclass(frozen=True)
class Step:
    value: float
    teps: float


@dataclass(frozen=True)
class Solution:
    value: float
    teps: float
    steps: tuple[Step, ...]


class CannotCalibrate(UserError):
    """The parameter cannot reach the measurement, or does not respond monotonically."""


def solve(predict: Callable[[float], float], start: float, target: float, *, rtol: float = RTOL,
          limit: float = LIMIT, max_steps: int = MAX_STEPS, name: str = "the parameter",
          slower_when_raised: bool | None = None) -> Solution:
    """The value ``v`` with ``predict(v)`` within ``rtol`` of ``target``
    (module docstring). ``predict`` must be positive and monotone in v.

    ``slower_when_raised``: what the parameter's kind says of the response
    (a cost or a latency slows a run down as it grows, a bandwidth or a
    clock speeds it up; None: unknown). When neither doubling nor halving
    moves the prediction, the parameter is hidden behind another term
    (time = max(cpu, network)); if the measurement lies on the side where
    a hidden term can come out (a slower run: raise a cost, lower a
    bandwidth), the search walks that way until it does."""
    if start <= 0 or not math.isfinite(start):
        raise CannotCalibrate(f"{name} is {start:g}; calibration searches positive values: --set a positive "
                              f"starting value, or --fit another parameter")
    steps: list[Step] = []

    def close(teps: float) -> bool:
        return abs(teps / target - 1) <= rtol

    def at(value: float) -> float:
        if len(steps) >= max_steps:
            raise CannotCalibrate(f"{name}: no value within {rtol:.1%} of the measurement after {max_steps} runs "
                                  f"({_trail(steps)})")
        teps = float(predict(value))
        steps.append(Step(value, teps))
        return teps

    f0 = at(start)
    if close(f0):
        return Solution(start, f0, tuple(steps))
    factor = 2.0
    f1 = at(start * factor)
    if _same(f0, f1):
        factor = 0.5
        f1 = at(start * factor)
        if _same(f0, f1):
            if slower_when_raised is None or target >= f0:
                raise CannotCalibrate(f"{name} does not change the prediction of this run ({_trail(steps)}): the "
                                      f"run is bound by something else; --fit a parameter of what bounds it")
            # a slower run than predicted: make the hidden term bind
            factor = 2.0 if slower_when_raised else 0.5
            v = start * factor * factor  # one step was already seen to be flat
            f1 = at(v)
            while _same(f0, f1):
                if max(v / start, start / v) >= limit:
                    raise CannotCalibrate(f"{name} does not change the prediction of this run from x1/{limit:g} "
                                          f"to x{limit:g} ({_trail(steps[:3])}, ...): the run is bound by "
                                          f"something else; --fit a parameter of what bounds it")
                v *= factor
                f1 = at(v)
            # restart the walk from the last flat value, where the term binds
            start = v / factor
            factor = 2.0 if slower_when_raised else 0.5
    increasing = (f1 > f0) == (factor > 1)
    # step towards the measurement: up if (target above) == (increasing)
    up = (target > f0) == increasing
    lo_v, lo_f = start, f0  # the bracket's near end
    v = start * factor if (factor > 1) == up else start
    f = f1 if (factor > 1) == up else f0
    while not _between(target, lo_f, f) and not close(f):
        if (v / start if up else start / v) >= limit:
            low, high = sorted((steps[0].teps, f))
            raise CannotCalibrate(
                f"{name} cannot reach the measured {_teps(target)}: from {_value(start)} to {_value(v)} "
                f"(x{'' if up else '1/'}{limit:g}) the prediction only moves between {_teps(low)} and "
                f"{_teps(high)}; the miss lies elsewhere: --fit another parameter")
        lo_v, lo_f = v, f
        v = v * 2 if up else v / 2
        f = at(v)
        _check_monotone(lo_f, f, increasing == up, name, steps)
    if close(f):
        return Solution(v, f, tuple(steps))
    # bisect in log space between (lo_v, lo_f) and (v, f)
    hi_v, hi_f = v, f
    while True:
        mid = math.sqrt(lo_v * hi_v)
        f = at(mid)
        if not (_between(f, lo_f, hi_f) or _near(f, lo_f) or _near(f, hi_f)):
            raise _not_monotone(name, steps)
        if close(f):
            return Solution(mid, f, tuple(steps))
        if _between(target, lo_f, f):
            hi_v, hi_f = mid, f
        else:
            lo_v, lo_f = mid, f


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= MONOTONE_SLACK * max(abs(a), abs(b))


def _between(x: float, a: float, b: float) -> bool:
    return min(a, b) <= x <= max(a, b)


def _check_monotone(before: float, after: float, rising: bool, name: str, steps) -> None:
    """Walking away from the start, the prediction must keep its direction."""
    if (after < before * (1 - MONOTONE_SLACK)) if rising else (after > before * (1 + MONOTONE_SLACK)):
        raise _not_monotone(name, steps)


def _not_monotone(name: str, steps) -> CannotCalibrate:
    return CannotCalibrate(f"{name}: the prediction is not monotone in it ({_trail(steps)}), so one value "
                           f"cannot be read as the calibrated one; --fit another parameter")


def _teps(value: float) -> str:
    return f"{value / 1e9:.4g} GTEPS"


def _value(value: float) -> str:
    return f"{value:.4g}"


def _trail(steps) -> str:
    return ", ".join(f"{_value(s.value)} -> {_teps(s.teps)}" for s in steps)


# ------------------------------------------------------------ with simbfs
@dataclass(frozen=True)
class Calibration:
    """A finished calibration: what was fitted, to what, and how."""

    machine: str
    key: str
    kind: str
    start: float
    solution: Solution
    measured_teps: float
    measurement: str  # "4096 nodes, scale 36, cp1d-spi, projected: 1.4 TTEPS"
    overrides: tuple[str, ...] = ()  # the --set of the measured run, kept in the file

    def machine_file(self, name: str, base: str) -> str:
        """The calibrated machine file's YAML text: the measured run's
        ``--set`` overrides (so that the file alone reproduces it) and the
        fitted value."""
        import yaml

        from .machine import schema as S
        from .machine.loader import _apply_override

        entry: dict = {}
        for override in self.overrides:
            path = override.partition("=")[0].strip()
            if path == self.key:
                continue
            _apply_override(entry, override)
            if isinstance(S.declaration(path), S.Param):
                node = entry
                for part in path.split("."):
                    node = node[part]
                node["source"] = f"set with --set ({override}) for the calibrated run"
        source = (f"calibrated: `simbfs calibrate` fitted this value so that the predicted harmonic-mean TEPS "
                  f"of {self.measurement} equals the measured {_teps(self.measured_teps)} (one-point "
                  f"calibration; uncalibrated value {_quantity(self.start, self.kind)})")
        node = entry
        *parents, leaf = self.key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = {"value": _quantity(self.solution.value, self.kind), "source": source}
        header = {
            "name": name,
            "description": f"{self.machine} with {self.key} calibrated on one measurement: "
                           f"{_teps(self.measured_teps)} ({self.measurement.split(', ', 1)[-1]})",
            "extends": base,
            "calibrated_on": f"{self.measurement}: measured {_teps(self.measured_teps)}, fitting {self.key}",
        }
        text = yaml.safe_dump(header, sort_keys=False, width=10_000) + yaml.safe_dump(entry, sort_keys=False,
                                                                                       width=10_000)
        return (f"# Written by `simbfs calibrate`: {self.machine} with {self.key} fitted to one measurement.\n"
                f"# Its predictions are calibrated, not predicted: report them next to {self.machine}'s.\n"
                + text)


_SI_UNIT = {"time": "s", "bandwidth": "B/s", "frequency": "Hz", "size": "B"}


def _quantity(value: float, kind: str) -> str | float:
    """A value as the machine file writes it: SI units, full precision."""
    unit = _SI_UNIT.get(kind)
    return f"{value!r} {unit}" if unit else float(value)


def calibrate(config, measured_teps: float, key: str | None = None, progress=lambda message: None) -> Calibration:
    """Fit ``key`` (default: the machine file's ``calibration.key``) so
    that ``run(config)`` predicts ``measured_teps``."""
    from .machine import load_machine
    from .machine import schema as S
    from .runner import run

    if not (measured_teps > 0 and math.isfinite(measured_teps)):
        raise UserError(f"--measured-teps must be a positive number of TEPS, got {measured_teps!r}")
    machine = load_machine(config.machine, config.overrides)
    if key is None:
        key = machine.calibration_key
        if key is None:
            raise UserError(f"{machine.name} declares no parameter to calibrate (calibration.key); name one with "
                            f"--fit KEY (`simbfs machines --describe {machine.name}` lists its parameters)")
        progress(f"fitting {key}, {machine.name}'s least certain parameter: "
                 f"{machine.values.get('calibration.reason', '')}")
    spec = S.declaration(key)
    if not isinstance(spec, S.Param):
        params = [path for path, declared in S.walk() if isinstance(declared, S.Param)]
        close = difflib.get_close_matches(key, params, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UserError(f"--fit {key}: not a hardware parameter of a machine file{hint}; `simbfs machines --keys` "
                        f"lists them, those of kind time, bandwidth, frequency, size, count, cycles or ratio")
    if spec.integer:
        raise UserError(f"--fit {key}: a whole-number parameter cannot be fitted continuously; fit a cost, "
                        f"a latency, a bandwidth or a size")
    if key not in machine.values:
        raise UserError(f"--fit {key}: {machine.name} does not set it; fit a parameter the machine has")
    start = float(machine.values[key])
    measurement = _measurement(config, machine)

    def predict(value: float) -> float:
        override = f"{key}={_quantity(value, spec.kind)}"
        # the first run's BFS trees are validated (if asked); the search's
        # other runs differ only in a cost, not in the trees. A projection's
        # work is computed once and re-priced at every step when the fitted
        # key only changes prices (projection/profile_cache.py)
        trial = replace(config, overrides=[*config.overrides, override],
                        validate=config.validate and value == start, reuse_work=True)
        try:
            doc = run(trial)
        except UserError as error:
            if value == start:
                raise UserError(f"the measured run ({measurement}) cannot be simulated: {error}") from None
            raise UserError(f"the search tried {key} = {_value(value)}, which this machine does not allow: "
                            f"{error}") from None
        if value == start:
            for warning in doc["warnings"]:
                progress(f"WARNING {warning}")
        teps = doc["teps"]["harmonic_mean"]
        progress(f"{key} = {_value(value)}: {_teps(teps)} (measured {_teps(measured_teps)})")
        return teps

    # a cost or latency slows a run as it grows, a bandwidth or clock speeds it up
    slower_when_raised = {"time": True, "cycles": True, "bandwidth": False, "frequency": False}.get(spec.kind)
    solution = solve(predict, start, measured_teps, name=key, slower_when_raised=slower_when_raised)
    return Calibration(machine=machine.name, key=key, kind=spec.kind, start=start, solution=solution,
                       measured_teps=measured_teps, measurement=measurement, overrides=tuple(config.overrides))


def _measurement(config, machine) -> str:
    """The measured run in words: enough to run it again."""
    nodes = config.nodes if config.nodes is not None else machine.default_nodes
    algorithm = config.algorithm or machine.algorithm or "bsp1d-do"
    graph = machine.graph
    kind = config.graph or (graph.kind if graph else "kronecker")
    scale = config.scale if config.scale is not None else (graph.scale if graph else 16)
    words = [machine.name, f"{nodes} nodes", f"{kind} scale {scale}"]
    if config.edgefactor is not None:
        words.append(f"edgefactor {config.edgefactor}")
    if config.arity is not None:
        words.append(f"arity {config.arity:g}")
    words += [algorithm, f"{config.roots} roots, seed {config.seed}"]
    if config.mode == "project":
        from .runner import DEFAULT_PROFILE_SCALE

        words.append(f"projected from scale {config.profile_scale or min(scale, DEFAULT_PROFILE_SCALE)}")
    else:
        words.append("executed")
    if config.overrides:
        words.append("with --set " + ", ".join(config.overrides))
    return ", ".join(words)
