"""The test suite leaves the user's graph cache alone (it would otherwise
write some 22 graphs, 38 MB, into ~/.cache/simbfs)."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from simbfs.graph.loading import default_cache_dir


def test_the_suite_caches_graphs_in_a_temporary_folder_of_its_own():
    users = Path.home() / ".cache" / "simbfs"
    cache = default_cache_dir().resolve()
    assert cache != users.resolve()
    assert cache.is_relative_to(Path(tempfile.gettempdir()).resolve())
    assert cache.name.startswith("simbfs-test-cache-")


def test_a_command_the_tests_start_inherits_the_suites_cache():
    code = "from simbfs.graph.loading import default_cache_dir; print(default_cache_dir())"
    printed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert Path(printed.strip()) == Path(os.environ["SIMBFS_CACHE"]) == default_cache_dir()
