"""Publishing one entry of an on-disk cache (graphs, work profiles).

An entry is a directory. It is written whole into a temporary directory
beside its place and renamed into place, so that a crash or a concurrent
run never leaves a half-written entry under the real name; the writer
writes the entry's key file last, so that a directory with a key file is
complete. Shared by simbfs/graph/loading.py and
simbfs/projection/profile_cache.py.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable


def publish(path: Path, write: Callable[[Path], None], complete: Callable[[Path], bool]) -> None:
    """Write an entry with ``write(directory)`` and rename it to ``path``.

    ``complete(path)`` says whether ``path`` holds a readable entry for the
    same key: one that a concurrent run finished first is kept (and this
    one dropped); a stale or corrupt one is replaced. The temporary
    directory gets the permissions of the user's umask (mkdtemp makes it
    private; a shared cache must not be)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o777 & ~umask)
    try:
        write(temporary)
        if path.exists():
            if complete(path):  # a concurrent run finished first
                shutil.rmtree(temporary, ignore_errors=True)
                return
            shutil.rmtree(path, ignore_errors=True)  # a stale or corrupt entry
        try:
            os.replace(temporary, path)
        except OSError:
            if not complete(path):
                raise
            shutil.rmtree(temporary, ignore_errors=True)  # a concurrent run won the race
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
