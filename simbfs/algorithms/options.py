"""Algorithm options, declared once and parsed by one parser.

An algorithm that has variants declares them as ``OPTIONS``, a tuple of
:class:`Option`, and holds their values in a frozen dataclass ``options``
whose fields are the options' names with ``_`` for ``-``. The command line
writes a variant as ``name:key=value,...`` (``cp1d-spi:compression=off``);
:func:`parse` turns the text into a new options dataclass, and
:func:`describe` is what the CLI's help and the error messages show. Nothing
else parses options.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace

from ..errors import UserError

SWITCH_WORDS = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}
SWITCH, CHOICE, COUNT = "on/off", "choice", "positive integer"


@dataclass(frozen=True)
class Option:
    """One option of an algorithm.

    ``name`` as written on the command line (``direction-optimising``);
    ``kind``: SWITCH (on/off; also true/false, yes/no), CHOICE (one of
    ``values``) or COUNT (a positive integer); ``default``: its value when
    not given, as the options dataclass holds it (None for a COUNT means
    "the machine's", which ``help`` then says); ``help``: one line."""

    name: str
    kind: str
    default: object
    help: str
    values: tuple[str, ...] = ()

    @property
    def field(self) -> str:
        """The options dataclass field that holds it."""
        return self.name.replace("-", "_")

    def accepted(self) -> str:
        """What may follow ``name=``, as the help shows it."""
        if self.kind == SWITCH:
            return "on|off"
        if self.kind == CHOICE:
            return "|".join(self.values)
        return "N"

    def value(self, algorithm: str, text: str):
        """The value ``text`` gives this option, or a UserError."""
        word = text.strip().lower()
        if self.kind == SWITCH and word in SWITCH_WORDS:
            return SWITCH_WORDS[word]
        if self.kind == CHOICE and word in self.values:
            return word
        if self.kind == COUNT and word.isdigit() and int(word) >= 1:
            return int(word)
        raise UserError(f"{algorithm} option {self.name}={text!r}: {self.name} takes {self.accepted_words()}")

    def accepted_words(self) -> str:
        if self.kind == SWITCH:
            return "on or off"
        if self.kind == CHOICE:
            return "one of " + ", ".join(self.values)
        return "a positive integer"

    def example(self) -> str:
        """``name=value`` with a value other than the default."""
        if self.kind == SWITCH:
            return f"{self.name}={'off' if self.default else 'on'}"
        if self.kind == CHOICE:
            other = [v for v in self.values if v != self.default]
            return f"{self.name}={other[0] if other else self.values[0]}"
        return f"{self.name}={(self.default or 1) * 2}"


def switch(name: str, default: bool, help: str) -> Option:
    return Option(name, SWITCH, default, help)


def choice(name: str, values: tuple[str, ...], default: str, help: str) -> Option:
    if default not in values:
        raise ValueError(f"option {name}: default {default!r} is not one of {values}")
    return Option(name, CHOICE, default, help, values)


def count(name: str, default: int | None, help: str) -> Option:
    return Option(name, COUNT, default, help)


def parse(algorithm: str, declared: tuple[Option, ...], base, settings: dict):
    """``base`` (an options dataclass) with ``settings`` (option name ->
    text) applied; a UserError names an unknown option (with the closest
    known one) or a bad value, and says what is accepted."""
    by_name = {option.name: option for option in declared}
    values = {}
    for key, text in settings.items():
        option = by_name.get(key) or by_name.get(key.replace("_", "-"))
        if option is None:
            close = difflib.get_close_matches(key, list(by_name), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise UserError(f"unknown {algorithm} option {key!r}{hint}; the options are {describe(declared)}")
        values[option.field] = option.value(algorithm, text)
    return replace(base, **values)


def describe(declared: tuple[Option, ...]) -> str:
    """``name=on|off, other=a|b, ...``: the options in one line."""
    return ", ".join(f"{option.name}={option.accepted()}" for option in declared)
