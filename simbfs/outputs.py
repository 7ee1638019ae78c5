"""The files a command writes (``--json``, ``--csv``, ``--plot``,
``--trace``, ``calibrate --out``): checked before any work starts, then
written all or nothing.

What an output path means, as in other Unix tools:

* ``-`` is standard output (the text report then goes to standard error,
  so the two never mix);
* a regular file, or a name that does not exist yet, is written to a
  temporary file beside it and renamed into place: a failure leaves the old
  file as it was and no half-written one;
* a symbolic link is followed, and its target is written by these rules
  (the link stays a link);
* a device, a named pipe or a socket (``/dev/null``, ``/dev/stdout``, a
  FIFO), and anything under ``/dev`` or ``/proc``, is opened and written
  directly: it cannot be replaced, and renaming over it would destroy it;
* a directory is refused, and so is a path that cannot be written.

Every output is first written to a temporary file; only when all of them
are complete is any of them put in place, so a failure part-way (a full
disk, a plot that cannot be drawn) leaves none behind.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import UserError

STDOUT = "-"
PLOT_FORMATS = ("png", "pdf", "svg")
# name spaces whose entries are devices, not files: written in place, never renamed over
_DEVICE_TREES = ("/dev/", "/proc/")


@dataclass(frozen=True)
class OutputTarget:
    """One checked output: the flag and path as the user gave them, and how
    the finished bytes reach it."""

    flag: str
    given: Path
    # "stdout": standard output; "direct": opened and written in place;
    # "replace": a temporary file beside ``path`` renamed over it
    how: str
    path: Path  # where the bytes go (a link's target for "replace")
    suffix: str  # of the temporary file: what a writer such as matplotlib reads the format from

    def describe(self) -> str:
        return f"{self.flag} {self.given}"


def _is_stdout(path: Path) -> bool:
    """``-``, or a path naming the file that standard output already is
    (``/dev/stdout``, ``/proc/self/fd/1``)."""
    if str(path) == STDOUT:
        return True
    try:
        return os.path.samestat(os.stat(path), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):  # no such path, or stdout is not a real file
        return False


def _in_device_tree(path: Path) -> bool:
    """Whether ``path``, or any link on the way to its file, lies under
    /dev or /proc (``/dev/stderr`` -> ``/proc/self/fd/2`` -> a log file):
    such a name stands for an open file and is written, never replaced."""
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links followed
        if any(current.startswith(tree) for tree in _DEVICE_TREES):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.join(os.path.dirname(current), os.readlink(current))
        current = os.path.abspath(current)
    return False


def check(flag: str, given: Path) -> OutputTarget:
    """Decide how ``given`` is written, refusing (a :class:`UserError`) a
    path that cannot be: called before any work starts."""
    suffix = given.suffix.lower()
    if str(given) == STDOUT:
        return _with_format(OutputTarget(flag, given, "stdout", given, suffix))
    try:
        info = os.stat(given)  # follows links
    except (FileNotFoundError, NotADirectoryError):  # a new name (or a bad folder, refused below)
        info = None
    except OSError as exc:
        raise UserError(f"cannot write {flag} {given}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise UserError(f"{flag} {given} is a directory; give a file name inside it")
    if info is not None and (not stat.S_ISREG(info.st_mode) or _in_device_tree(given)):
        how = "stdout" if _is_stdout(given) else "direct"
        if how == "direct" and not os.access(given, os.W_OK):
            raise UserError(f"cannot write {flag} {given}: permission denied")
        return _with_format(OutputTarget(flag, given, how, given, suffix))
    # a regular file or a new name: written beside the real file, which a link names
    real = Path(os.path.realpath(given))
    linked = real != Path(os.path.abspath(given))
    # messages name the folders as the user wrote them, unless a link led elsewhere
    parent = real.parent if linked else (given.parent if str(given.parent) else Path("."))
    shown = f"{given} (a link to {real})" if linked else given
    blocker = next((p for p in (parent, *parent.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise UserError(f"cannot write {flag} {shown}: {blocker} is a file, not a directory")
    if not parent.is_dir():
        raise UserError(f"cannot write {flag} {shown}: directory {parent} does not exist; create it first")
    _try_creating_in(parent, flag, shown)
    return _with_format(OutputTarget(flag, given, "replace", real, suffix or real.suffix.lower()))


def _with_format(target: OutputTarget) -> OutputTarget:
    """A picture's format comes from its extension; a picture sent to
    standard output or a device, which has none, is a PNG."""
    if target.flag != "--plot":
        return target
    if target.suffix.lstrip(".") in PLOT_FORMATS:
        return target
    if target.how != "replace" and not target.suffix:
        return OutputTarget(target.flag, target.given, target.how, target.path, ".png")
    raise UserError(f"--plot {target.given}: the picture's format comes from its extension, which must be one "
                    f"of {', '.join('.' + f for f in PLOT_FORMATS)} (e.g. --plot "
                    f"{target.given.with_suffix('.png')})")


def _try_creating_in(parent: Path, flag: str, shown) -> None:
    """Create and remove a file beside the output: the only sure test that
    it can be written (permission bits say yes on /proc, or on a read-only
    file system)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".simbfs-", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UserError(f"cannot write {flag} {shown}: cannot create files in {parent} "
                        f"({exc.strerror or exc})") from None


def check_all(outputs: dict[str, Path]) -> dict[str, OutputTarget]:
    """Check every output (flag -> path); two flags may not name one file,
    nor two of them standard output (a device such as /dev/null may take
    several)."""
    targets: dict[str, OutputTarget] = {}
    seen: dict[str, str] = {}
    for flag, path in outputs.items():
        target = check(flag, path)
        targets[flag] = target
        if target.how == "direct" and stat.S_ISCHR(os.stat(target.path).st_mode):
            continue
        identity = STDOUT if target.how == "stdout" else str(target.path.resolve())
        if identity in seen:
            what = "standard output" if identity == STDOUT else str(path)
            raise UserError(f"{seen[identity]} and {flag} both name {what}; give each output its own file")
        seen[identity] = flag
    return targets


def writes_stdout(targets: dict[str, OutputTarget]) -> bool:
    return any(target.how == "stdout" for target in targets.values())


def write_all(writers: dict[OutputTarget, Callable[[str], None]]) -> None:
    """Run each writer on a temporary file (short names, so a long target
    name still fits), then put every finished file in place."""
    written: list[tuple[str, OutputTarget]] = []
    try:
        for target, write in writers.items():
            beside = target.path.parent if target.how == "replace" else None  # None: the system's temp dir
            fd, tmp = tempfile.mkstemp(prefix=".simbfs-", suffix=target.suffix, dir=beside)
            os.close(fd)
            written.append((tmp, target))
            write(tmp)
    except BaseException as exc:
        for tmp, _ in written:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            where = written[-1][1].given if written else "an output file"
            raise UserError(f"cannot write {where}: {exc.strerror or exc}") from None
        raise
    try:
        for tmp, target in written:
            _publish(tmp, target)
    finally:
        for tmp, _ in written:
            Path(tmp).unlink(missing_ok=True)


def _publish(tmp: str, target: OutputTarget) -> None:
    if target.how == "replace":
        # a normally created file's permissions (mkstemp makes it private), then in place
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target.path)
        return
    with open(tmp, "rb") as source:
        if target.how == "stdout":
            sys.stdout.flush()
            shutil.copyfileobj(source, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        else:
            try:
                with open(target.path, "wb") as sink:
                    shutil.copyfileobj(source, sink)
            except OSError as exc:
                raise UserError(f"cannot write {target.describe()}: {exc.strerror or exc}") from None
