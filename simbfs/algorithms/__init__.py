"""BFS algorithms that run inside the simulation, by name.

One package per paper algorithm family (bsp1d, cp1d, cp2d, cell, lin1d, ueno2d), each with
its level work, pricing, executed run and projection, and an ``ALGORITHMS``
dict of its variants; base.py states the contract every algorithm
implements. Register a new family's variants here
(docs/howto/add-an-algorithm.md).
"""

from __future__ import annotations

import difflib

from ..errors import UserError
from . import bsp1d, cell, cp1d, cp2d, lin1d, ueno2d
from .options import describe
from .base import GENERIC, OTHER_PAPER, PAPER_CODE, Algorithm, Projection, origin

ALGORITHMS: dict[str, Algorithm] = {**bsp1d.ALGORITHMS, **cell.ALGORITHMS, **cp1d.ALGORITHMS, **cp2d.ALGORITHMS,
                                    **lin1d.ALGORITHMS, **ueno2d.ALGORITHMS}


def projectable() -> list[str]:
    """The algorithms that can be projected (--mode project), sorted."""
    return sorted(name for name, algorithm in ALGORITHMS.items() if algorithm.projection is not None)


def options_help() -> str:
    """Every algorithm's options in one sentence, for --help: algorithms
    that share their options are named together."""
    families: dict[tuple, list[str]] = {}
    for name in sorted(ALGORITHMS):
        if ALGORITHMS[name].OPTIONS:
            families.setdefault(ALGORITHMS[name].OPTIONS, []).append(name)
    return "; ".join(f"{' and '.join(names)} {'take' if len(names) > 1 else 'takes'} {describe(declared)}"
                     for declared, names in families.items())


def get_algorithm(name: str):
    """The algorithm called ``name``, or ``name:key=value,...`` for a variant
    with options (``cp1d-spi:compression=off,representation=skip-list``)
    when the algorithm takes options."""
    base, colon, options = name.partition(":")
    try:
        algorithm = ALGORITHMS[base]
    except KeyError:
        close = difflib.get_close_matches(base, list(ALGORITHMS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UserError(f"unknown algorithm {base!r}{hint}; choose one of {', '.join(sorted(ALGORITHMS))}") from None
    if not colon:
        return algorithm
    if not algorithm.takes_options:
        raise UserError(f"{base} takes no options; use --algorithm {base}")
    example = f"{base}:{algorithm.option_example}"
    if not options:
        raise UserError(f"no options after {base}:; write {base}:key=value,... (e.g. {example}) or just {base}")
    settings = {}
    for item in options.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            named = [option for option in algorithm.OPTIONS if option.name == key.strip()]
            if named:  # the example of the option the user meant
                example = f"{base}:{named[0].example()}"
            raise UserError(f"algorithm option {item!r} must be written key=value, e.g. {example}")
        if key.strip() in settings:  # which one was meant is not ours to guess
            raise UserError(f"algorithm option {key.strip()!r} is given twice in {name!r}; give it once")
        settings[key.strip()] = value.strip()
    return algorithm.with_options(name, settings)


__all__ = ["ALGORITHMS", "Algorithm", "GENERIC", "OTHER_PAPER", "PAPER_CODE", "Projection", "get_algorithm", "origin",
           "options_help", "projectable"]
