"""One command at a time writes into an output folder (``sweep --out``,
``reproduce --out``).

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
