"""The compiled loops' cache follows every source file of the package."""

from pathlib import Path

from simbfs.bfs.compiled import PACKAGE_ROOT, cache_stamp, source_fingerprint


def test_the_fingerprint_changes_with_any_source_file(tmp_path: Path):
    (tmp_path / "kernels.py").write_text("def loop(): return formula()\n")
    (tmp_path / "pricing").mkdir()
    (tmp_path / "pricing" / "work.py").write_text("def formula(): return 1\n")
    before = source_fingerprint(tmp_path)
    assert source_fingerprint(tmp_path) == before
    (tmp_path / "pricing" / "work.py").write_text("def formula(): return 2\n")  # not the loop's own file
    assert source_fingerprint(tmp_path) != before


def test_a_kernel_cache_is_stamped_with_the_package_fingerprint():
    """numba compares this stamp with the one stored beside the machine
    code, so an edit to a formula compiled into a loop from another file
    (cp1d's claim_delay_s, say) makes the loop compile again."""
    from simbfs.algorithms.cp1d import kernels
    assert cache_stamp(kernels.bottom_up_walk)[1] == source_fingerprint(PACKAGE_ROOT)
