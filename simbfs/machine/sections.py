"""Machine-file sections that a package brings with it.

The core schema (schema.py) knows only the roles every machine has: node,
network, messaging, collectives. A paper algorithm's data formats and costs
(``cp1d:``, ``spe:``) and a node-internal device's parameters (``dma:``)
belong to the package that reads them. Such a package declares its section
as a :class:`MachineSection` and registers it; the loader then validates it
like any core section, runs its cross-checks, and builds its frozen model,
which the engine and algorithms reach with ``machine.section(name)``.

A section is optional in every machine file: a machine without ``cp1d:``
simply cannot run the cp1d codes, and the runner says so before any work
starts (an algorithm names the sections it reads in ``requires``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from .schema import Section


class SectionValues(Mapping):
    """The validated values of one section, keyed relative to it
    (``threads``, ``cycles.claim``), with the whole machine's values one call
    away for checks that span sections."""

    def __init__(self, values: Mapping[str, object], name: str):
        self._values = values
        self._prefix = f"{name}."

    def __getitem__(self, key: str):
        return self._values[self._prefix + key]

    def __iter__(self) -> Iterator[str]:
        return (path[len(self._prefix):] for path in self._values if path.startswith(self._prefix))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def machine(self, path: str, default=None):
        """A value anywhere in the machine file, by its dotted path."""
        return self._values.get(path, default)


def _no_checks(values: SectionValues, problem: Callable[[str, str], None]) -> None:
    return None


@dataclass(frozen=True)
class MachineSection:
    """A top-level machine-file section owned by a package.

    ``name``: its key in the machine file. ``schema``: what it may contain
    (a :class:`~simbfs.machine.schema.Section`; every hardware number in it
    names its source, as everywhere). ``build(values)``: the frozen model the
    package reads, from the validated values (:class:`SectionValues`, in SI
    units). ``check(values, problem)``: cross-field checks beyond what the
    schema can say, each reported as ``problem(dotted_path, message)`` so
    the user sees all of them at once. ``requires``: other top-level
    sections that must be present with it.
    """

    name: str
    schema: Section
    build: Callable[[SectionValues], object]
    check: Callable[[SectionValues, Callable[[str, str], None]], None] = _no_checks
    requires: tuple[str, ...] = field(default=())


SECTIONS: dict[str, MachineSection] = {}


def register_section(section: MachineSection) -> MachineSection:
    """Add ``section`` to every machine file's schema (once per name)."""
    known = SECTIONS.get(section.name)
    if known is not None and known is not section:
        raise ValueError(f"machine section {section.name!r} is registered twice")
    SECTIONS[section.name] = section
    return section


def registered_sections() -> dict[str, MachineSection]:
    """Every registered section. The packages that own sections are
    imported here, at call time, so that importing the machine package
    needs nothing from the engine or the algorithms."""
    from .. import algorithms  # noqa: F401  (registers cp1d:, spe:)
    from ..engine import devices  # noqa: F401  (registers dma:)

    return SECTIONS
