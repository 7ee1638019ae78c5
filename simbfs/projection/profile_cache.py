"""Work profiles: a projection's work, kept so that a change of prices re-prices it.

A projection (docs/background/projection.md) walks a profile graph root by
root and, level by level, *works* (the algorithm's level functions on the
virtual layout: operation counts, streams, claims) and *prices* (the
machine's cost formulas). The work depends on the graph, the profile and
target sizes, the roots, the algorithm and its options, and the few machine
parameters each algorithm declares (``Projection.work_parameters``); the
price on every other parameter. So a sweep over link bandwidths, a
calibration of an operation's cycles or an uncertainty sample keeps the
work of its first run and only prices it again.

* :class:`WorkLog` holds one projection's work items, keyed by (root,
  level, what). A projection asks it for each item (:meth:`WorkLog.get`),
  computing the item only when the log does not hold it; a fresh projection
  fills an empty log, a re-priced one reads a full one. The pricing is the
  same code either way, so a re-priced projection gives the fresh one's
  numbers (tests/test_repricing.py).
* :class:`WorkProfileCache` keeps logs on disk like the graph cache keeps
  graphs (simbfs/graph/loading.py): one directory per key under
  ``<cache>/work-profiles/``, written into a temporary directory renamed
  into place, holding a JSON tree, the arrays (one ``.npz``, no pickles) and
  the key; a missing, unreadable or mismatching entry is computed again,
  and a directory that cannot be written only costs the caching. An
  in-process memo of the last few logs spares a calibration or a sweep
  worker the reading. Processes that want the same profile at once (a
  sweep's workers) take turns by a lock file: the second reads what the
  first wrote.
* :func:`work_key`: the hash of everything that changes the work, and of
  simbfs's own source (a changed level function must not reuse old work).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Callable

import numpy as np

from ..cache_entry import publish

FORMAT = 1  # of a stored work profile; a new layout of the files bumps it
DIRECTORY = "work-profiles"
_TREE, _ARRAYS, _KEY = "work.json", "arrays.npz", "key.txt"
MEMO_ENTRIES = 4  # work logs kept in this process (a calibration uses one, a sweep worker a few)


class WorkLog:
    """One projection's work items, by (root, level, what).

    ``get(key, compute)`` gives the item the log holds, else ``compute()``
    (kept for next time). A log read from the cache is *replaying*: an item
    it lacks is computed (counted in ``missed``), and a projection that
    finds the cached work inconsistent with its walk (cp1d-spi: a bottom-up
    level's claims under its claim timing) sets ``diverged``, and the runner
    computes the profile afresh. ``transient`` holds price-independent
    objects that are rebuilt rather than stored (a layout), for the memo."""

    def __init__(self, items: dict | None = None):
        self.items: dict = dict(items or {})
        self.replaying = items is not None
        self.missed = 0
        self.diverged = False
        self.transient: dict = {}
        self._lock = threading.Lock()

    def get(self, key: tuple, compute: Callable):
        item = self.items.get(key, _MISSING)
        if item is not _MISSING:
            return item
        item = compute()
        with self._lock:
            if self.replaying:
                self.missed += 1
            self.items[key] = item
        return item

    def transient_get(self, key, build: Callable):
        """A price-independent object built once per log (not stored on disk)."""
        with self._lock:
            if key not in self.transient:
                self.transient[key] = build()
            return self.transient[key]

    def replay(self) -> "WorkLog":
        """A log that replays these items (shared, never copied) and this log's transients."""
        log = WorkLog(self.items)
        log.transient = self.transient
        return log


_MISSING = object()


# ------------------------------------------------------------------ key
_SOURCE_HASH: list[str] = []


def source_fingerprint() -> str:
    """A hash of simbfs's Python source: work computed by other code is not reused."""
    if not _SOURCE_HASH:
        root = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
        _SOURCE_HASH.append(digest.hexdigest()[:16])
    return _SOURCE_HASH[0]


def work_key(identity: dict) -> str:
    """The cache key of a work profile: a hash of ``identity`` (everything
    that changes the work: runner._work_identity), the format and the source."""
    text = json.dumps({"identity": identity, "format": FORMAT, "source": source_fingerprint()},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


# ------------------------------------------------------- serialisation
def _encode(value, arrays: list):
    """A JSON tree for ``value``; numpy arrays go to ``arrays`` (by index)."""
    if isinstance(value, np.ndarray):
        arrays.append(_packed(value))
        return {"$a": len(arrays) - 1, "dtype": value.dtype.str}
    if isinstance(value, (bool, str)) or value is None:
        return value
    if isinstance(value, (int, np.integer)):
        return {"$i": int(value)}
    if isinstance(value, (float, np.floating)):
        return {"$f": float(value).hex()}  # exact
    if isinstance(value, (list, tuple)):
        return {"$l" if isinstance(value, list) else "$t": [_encode(v, arrays) for v in value]}
    if isinstance(value, dict):
        return {"$d": [[_encode(k, arrays), _encode(v, arrays)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        return {"$c": f"{cls.__module__}:{cls.__qualname__}",
                "fields": {f.name: _encode(getattr(value, f.name), arrays) for f in dataclasses.fields(value)}}
    raise TypeError(f"a work profile cannot hold a {type(value).__name__}")


def _packed(array: np.ndarray) -> np.ndarray:
    """Counts held as floats are stored as the smallest integers that hold
    them exactly (the tree keeps the dtype to restore): a cp1d profile's
    per-thread operation counts shrink eightfold."""
    if array.dtype == np.float64 and array.size:
        if np.all(np.isfinite(array)) and np.array_equal(array, np.trunc(array)):
            low, high = float(array.min()), float(array.max())
            for kind in (np.uint8, np.int16, np.int32, np.int64):
                info = np.iinfo(kind)
                if info.min <= low and high <= info.max and max(-low, high) < 2**53:
                    return array.astype(kind)
    return array


def _decode(tree, arrays):
    if isinstance(tree, dict):
        if "$a" in tree:
            array = arrays[f"a{tree['$a']}"]
            return array.astype(np.dtype(tree["dtype"]), copy=False)
        if "$i" in tree:
            return tree["$i"]
        if "$f" in tree:
            return float.fromhex(tree["$f"])
        if "$l" in tree:
            return [_decode(v, arrays) for v in tree["$l"]]
        if "$t" in tree:
            return tuple(_decode(v, arrays) for v in tree["$t"])
        if "$d" in tree:
            return {_decode(k, arrays): _decode(v, arrays) for k, v in tree["$d"]}
        if "$c" in tree:
            return _dataclass(tree["$c"])(**{name: _decode(v, arrays) for name, v in tree["fields"].items()})
        raise ValueError("not a work-profile tree")
    return tree


def _dataclass(name: str):
    """The dataclass a stored item names: only simbfs's own dataclasses."""
    module, _, qualname = name.partition(":")
    if not module.startswith("simbfs."):
        raise ValueError(f"{name} is not a simbfs class")
    cls = importlib.import_module(module)
    for part in qualname.split("."):
        cls = getattr(cls, part)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise ValueError(f"{name} is not a dataclass")
    return cls


# ---------------------------------------------------------------- cache
_MEMO: OrderedDict = OrderedDict()
_MEMO_LOCK = threading.Lock()


def clear_memo() -> None:
    """Forget the logs kept in this process (the benchmark's cold runs, tests)."""
    with _MEMO_LOCK:
        _MEMO.clear()


class WorkProfileCache:
    """Work logs by key: in this process's memo, then under ``directory``
    (``<graph cache>/work-profiles``); ``directory`` None keeps the memo only."""

    def __init__(self, directory: Path | None, progress: Callable[[str], None] = lambda message: None):
        self.directory = Path(directory) if directory is not None else None
        self.progress = progress

    def path(self, key: str) -> Path | None:
        return self.directory / key if self.directory is not None else None

    def load(self, key: str) -> WorkLog | None:
        """A replaying log of the work stored under ``key``, or None."""
        with _MEMO_LOCK:
            log = _MEMO.get(key)
            if log is not None:
                _MEMO.move_to_end(key)
                return log.replay()
        path = self.path(key)
        if path is None or not path.exists():
            return None
        log = _read(path, key)
        if log is None:
            self.progress(f"cached work profile {path} is unreadable or stale; computing it again")
            return None
        self.progress(f"re-pricing the cached work profile {path}")
        self._remember(key, log)
        return log.replay()

    def store(self, key: str, log: WorkLog) -> None:
        """Keep ``log`` in the memo and, if it can be written, on disk."""
        kept = log.replay()
        kept.transient = log.transient
        self._remember(key, kept)
        path = self.path(key)
        if path is None:
            return
        try:
            _write(path, key, log)
            self.progress(f"cached the work profile in {path}")
        except (OSError, TypeError, ValueError) as error:
            # A read-only or full cache directory should not stop a run.
            self.progress(f"could not write the work profile cache {path}: {error}")

    def lock(self, key: str):
        """A lock held while the profile ``key`` is computed, so that a second
        process that wants it waits and reads it (a no-op lock where the
        directory cannot be written)."""
        return _FileLock(self.directory / f".{key}.lock" if self.directory is not None else None)

    @staticmethod
    def _remember(key: str, log: WorkLog) -> None:
        with _MEMO_LOCK:
            _MEMO[key] = log
            _MEMO.move_to_end(key)
            while len(_MEMO) > MEMO_ENTRIES:
                _MEMO.popitem(last=False)


class _FileLock:
    def __init__(self, path: Path | None):
        self.path, self._file = path, None

    def __enter__(self):
        if self.path is None:
            return self
        try:
            import fcntl

            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a")
            fcntl.flock(self._file, fcntl.LOCK_EX)
        except (OSError, ImportError):
            self._file = None  # no lock where none can be taken: both compute, one rename wins
        return self

    def __exit__(self, *exc_info):
        if self._file is not None:
            self._file.close()  # releases the flock


def _write(path: Path, key: str, log: WorkLog) -> None:
    arrays: list = []
    tree = _encode(log.items, arrays)

    def write(directory: Path) -> None:
        np.savez(directory / _ARRAYS, **{f"a{i}": array for i, array in enumerate(arrays)})
        (directory / _TREE).write_text(json.dumps(tree, separators=(",", ":")))
        (directory / _KEY).write_text(f"{key}\n")  # written last: a directory with a key file is complete

    publish(path, write, lambda entry: _read(entry, key) is not None)


def _read(path: Path, key: str) -> WorkLog | None:
    """The stored log, or None if it is missing, corrupt or for another key."""
    try:
        if (path / _KEY).read_text().strip() != key:
            return None
        tree = json.loads((path / _TREE).read_text())
        with np.load(path / _ARRAYS, allow_pickle=False) as arrays:
            items = _decode(tree, arrays)
    except Exception:  # any unreadable entry is just a cache miss
        return None
    return WorkLog(items) if isinstance(items, dict) else None
