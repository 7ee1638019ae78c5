"""Output folders (``sweep --out``, ``reproduce --out``): checked before
anything is created, and written by one command at a time.

The lock is a system lock (``flock``) on a file in the folder, held for the
command's life: the system drops it when the process ends, however it ends,
so a killed command leaves no stale lock. The file itself stays (removing a
lock file that another process may be waiting on is racy); it holds the
holder's process id, for the message a second command gets.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from .errors import UserError


def check_output_folder(out: Path) -> None:
    """Refuse, creating nothing, an ``--out`` that is not a directory and
    cannot be made one, or that this user cannot write into."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file; give a directory (it is created if missing)")
    existing = out.absolute()
    while not existing.exists() and existing != existing.parent:  # the deepest part that exists makes the rest
        existing = existing.parent
    if not existing.is_dir():
        raise UserError(f"cannot create --out {out}: {existing} is not a directory (it is a file); "
                        f"give another --out")
    if not os.access(existing, os.W_OK | os.X_OK):
        what = (f"--out {out} is not writable" if existing == out.absolute()
                else f"cannot create --out {out}: {existing} is not writable")
        raise UserError(f"{what}; give a directory you can write")


class DirectoryLock:
    """``DIR/<name>``, locked by :meth:`acquire` until :meth:`release`.

    ``command`` names what holds it in the refusal ("simbfs sweep"), and
    ``rerun`` says what running the refused command again later does."""

    def __init__(self, directory: Path, name: str, command: str, rerun: str):
        self.directory = Path(directory)
        self.path = self.directory / name
        self.command = command
        self.rerun = rerun
        self._stream = None

    def acquire(self) -> None:
        """Take the lock; if another process holds it, refuse (a UserError)."""
        if self._stream is not None:
            return
        try:
            stream = open(self.path, "a+")
        except OSError as exc:
            raise UserError(f"cannot write into {self.directory}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(stream, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            stream.seek(0)
            holder = stream.read().strip()
            stream.close()
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise UserError(f"cannot lock {self.path}: {exc.strerror or exc}") from None
            raise UserError(f"another {self.command}{f' (process {holder})' if holder.isdigit() else ''} is "
                            f"writing into {self.directory}; wait for it to finish (then re-run this one: "
                            f"{self.rerun}), or give another --out") from None
        stream.seek(0)
        stream.truncate()
        stream.write(f"{os.getpid()}\n")
        stream.flush()
        self._stream = stream

    def release(self) -> None:
        if self._stream is not None:
            self._stream.close()  # closing the file drops its flock
            self._stream = None

    def __enter__(self) -> "DirectoryLock":
        self.acquire()
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()
