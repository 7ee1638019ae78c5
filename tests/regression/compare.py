"""Compare two --json documents number by number.

    python tests/regression/compare.py OLD.json NEW.json

Prints every field whose value differs, with the relative difference of
numbers, and the largest relative difference. A regression document that is
deliberately regenerated is checked with this first, so that its commit can
say what moved and by how much (a reordered floating-point sum moves the
last digits; a changed cost moves more).
"""

from __future__ import annotations

import json
import sys


def differences(old, new, path: str = ""):
    """(path, old, new, relative difference or None) for every differing leaf."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            yield from differences(old.get(key), new.get(key), f"{path}.{key}" if path else key)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new)):
            yield from differences(a, b, f"{path}[{i}]")
    elif old != new or type(old) is not type(new):
        numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (old, new))
        relative = abs(new - old) / max(abs(old), abs(new)) if numeric and (old or new) else None
        yield path, old, new, relative


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    old, new = (json.load(open(p)) for p in argv)
    found = list(differences(old, new))
    for path, a, b, rel in found:
        print(f"{path}: {a!r} -> {b!r}" + (f"  ({rel:.2e})" if rel is not None else ""))
    relatives = [rel for *_, rel in found if rel is not None]
    print(f"{len(found)} fields differ; largest relative difference {max(relatives, default=0.0):.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
