"""simbfs reproduce: every figure script of a paper, one HTML page with
every claim of the paper and every figure, a claims table, a miss as a
verdict, and a re-run that runs nothing. With scripts running at once,
each script's files are exactly those it wrote; every row of the claims
table says how its numbers were obtained; a refused command creates
nothing."""

import base64
import csv
import os
import json
import re
from pathlib import Path

import pytest
import yaml

from simbfs import reproduce
from simbfs.claims import claims_path
from simbfs.cli import main

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
# the cheapest Sunway scripts (a few seconds each at --quick), beside every Cell script
SUNWAY = ("fig3", "fig5", "register_bus", "timeline")
MODES = ("executed", "projected", "modelled")


def _some_scripts(real):
    def scripts(machine, include_validation=False):
        found = real(machine, include_validation)
        if machine == "cell_be":
            return found
        return [p for p in found if machine == "sunway_taihulight" and p.stem in SUNWAY]
    return scripts


@pytest.fixture(scope="module")
def two_papers(tmp_path_factory):
    """`simbfs reproduce all --quick --jobs 2`, as a user runs it, with every
    Cell script and four cheap Sunway scripts (the other papers' scripts
    left out to keep it short): two scripts at a time write at once, as
    with the default --jobs. Returns (DIR, exit status)."""
    out = tmp_path_factory.mktemp("report")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reproduce, "scripts", _some_scripts(reproduce.scripts))
        status = main(["reproduce", "all", "--quick", "--out", str(out), "--jobs", "2", "--quiet"])
    return out, status


def _records(out):
    return [json.loads(p.read_text()) for p in sorted((out / reproduce.SCRIPTS_DIR).glob("*.json"))]


def _files_under(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_with_two_jobs_each_script_lists_exactly_the_files_it_wrote(two_papers):
    """Each script writes into its own folder, DIR/<machine>/<script>/:
    deciding a script's files from their times in a folder shared by the
    scripts running at once would list (and show) the others' files too.
    What a script lists is exactly its folder, every file of which is one
    the script's own source names, under no other script; the page shows
    under each script exactly its pictures."""
    out, status = two_papers
    assert status == 0
    records = _records(out)
    expected = {("cell_be", p.stem) for p in reproduce.scripts("cell_be")} | {("sunway_taihulight", n) for n in SUNWAY}
    assert {(r["machine"], r["name"]) for r in records} == expected
    page = (out / "index.html").read_text()
    owner = {}
    for record in records:
        machine, name = record["machine"], record["name"]
        folder = out / machine / name
        assert record["files"] == _files_under(folder), (machine, name)
        assert any(f.endswith(".png") for f in record["files"]) and any(f.endswith(".csv") for f in record["files"])
        # a fact independent of the folders: the script's own source names each file it lists
        source = (EXPERIMENTS / machine / f"{name}.py").read_text()
        assert all(Path(f).stem in source for f in record["files"]), (machine, name, record["files"])
        for f in record["files"]:
            assert (machine, f) not in owner, f"{machine}/{f} listed under {owner[(machine, f)]} and {name}"
            owner[(machine, f)] = name
        # the page: this script's section embeds exactly its own pictures, byte for byte
        section = page.split(f"<h3 id='{machine}-{name}'>")[1].split("<h3 ")[0].split("<h2 ")[0]
        shown = dict(re.findall(r"<img alt='([^']*)' src='data:image/png;base64,([^']*)'>", section))
        pictures = [f for f in record["files"] if f.endswith(".png")]
        assert sorted(shown) == pictures, (machine, name)
        assert all(base64.b64decode(shown[f]) == (folder / f).read_bytes() for f in pictures)
    # and the scripts wrote nowhere else in a machine's folder
    for machine in ("cell_be", "sunway_taihulight"):
        assert {(machine, f.split("/", 1)[1]) for f in _files_under(out / machine)} == \
            {key for key in owner if key[0] == machine}


def test_the_cell_report_names_every_cell_claim_and_shows_every_figure(two_papers):
    out, _ = two_papers
    page = (out / "index.html").read_text()
    cell_claims = [c["id"] for c in yaml.safe_load(claims_path().read_text())["claims"] if c["id"].startswith("cell.")]
    assert cell_claims and all(f"<td>{claim_id}</td>" in page for claim_id in cell_claims)
    scripts = reproduce.scripts("cell_be")
    assert all(f"cell_be/{path.stem}.py" in page for path in scripts)
    assert page.count("<img ") >= len(scripts) and "data:image/png;base64," in page
    with open(out / "claims.csv") as stream:
        rows = [row for row in csv.DictReader(stream) if row["machine"] == "cell_be"]
    assert [row["claim"] for row in rows] == cell_claims
    # cell.arity10 (101.6 ME/s, tolerance 15%) is compared by arity10.py with the claim's own numbers
    arity10 = next(row for row in rows if row["claim"] == "cell.arity10")
    assert arity10["script"] == "cell_be/arity10" and arity10["verdict"] in ("within", "MISS")
    # a finished reproduction re-runs nothing
    ran = []
    reproduce.reproduce(["cell_be"], out, quick=True, on_done=ran.append)
    assert ran == []


MODE = re.compile(rf"({'|'.join(MODES)})( \+ ({'|'.join(MODES)}))*(, calibrated)?")


def test_every_row_of_the_claims_table_says_how_its_numbers_were_obtained(two_papers):
    """Every row's mode says executed, projected or modelled (or a
    combination, calibrated if so), from the runs behind its comparisons,
    or that no run of this reproduction is behind it: 'not run (tests)',
    'not run'; never "see the script", and never nothing, not even on the
    claims no script compared."""
    out, _ = two_papers
    with open(out / "claims.csv") as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == len(yaml.safe_load(claims_path().read_text())["claims"])
    for row in rows:
        if row["script"]:
            assert MODE.fullmatch(row["mode"]), row
        else:
            assert row["mode"] == ("not run (tests)" if row["verdict"] in ("tested exactly", "checked by the tests")
                                   else "not run"), row
    mode = {row["claim"]: row["mode"] for row in rows}
    # what the scripts do: arity10.py and fig2.py's Dispatch, Bitmap and Th35 run executed cell-overlap
    # and cell-bsp searches; fig3.py and fig2.py's Fetch stream the DMA engines alone; the bitmap's
    # capacity is asserted by a test
    assert mode["cell.arity10"] == mode["cell.step.dispatch"] == mode["cell.th35"] == "executed"
    assert mode["cell.dma.large_blocks"] == mode["cell.step.fetch"] == "modelled"
    assert mode["cell.bitmap_capacity"] == "not run (tests)"
    assert mode["sunway.dma"] == "modelled"


def test_a_stored_result_of_another_format_is_run_again(tmp_path, monkeypatch):
    """A result stored in another format (one whose files were guessed, say)
    is not reused: the stored result's format is part of its key. And a script
    run again starts from an empty folder: a file an earlier run left there
    is not listed as this run's."""
    calibration = [p for p in reproduce.scripts("cell_be") if p.stem == "calibration"]
    monkeypatch.setattr(reproduce, "scripts", lambda machine, include_validation=False: calibration)
    monkeypatch.setattr(reproduce, "FORMAT", reproduce.FORMAT - 1)
    ran = []
    reproduce.reproduce(["cell_be"], tmp_path, quick=True, on_done=ran.append)
    assert [r["files"] for r in ran] == [["calibration.csv", "calibration.png"]]
    stale = tmp_path / "cell_be" / "calibration" / "fig5_overlap.png"
    stale.write_bytes(b"another script's picture")
    monkeypatch.undo()
    monkeypatch.setattr(reproduce, "scripts", lambda machine, include_validation=False: calibration)
    ran = []
    reproduce.reproduce(["cell_be"], tmp_path, quick=True, on_done=ran.append)
    assert [r["files"] for r in ran] == [["calibration.csv", "calibration.png"]] and not stale.exists()
    ran = []
    reproduce.reproduce(["cell_be"], tmp_path, quick=True, on_done=ran.append)
    assert ran == []


def test_a_report_of_the_first_format_is_run_again_and_its_shared_folder_cleared(tmp_path, monkeypatch):
    """A result stored by the first format (no "format"; every script's
    files in DIR/<machine>/, listed by their times, others' included) is run
    again, and the files it lists there go: the script's folder replaces
    them. Other files of the folder stay."""
    calibration = [p for p in reproduce.scripts("cell_be") if p.stem == "calibration"]
    monkeypatch.setattr(reproduce, "scripts", lambda machine, include_validation=False: calibration)
    shared = tmp_path / "cell_be"
    shared.mkdir()
    for name in ("calibration.png", "calibration.csv", "fig3_dma.png", "mine.txt"):
        (shared / name).write_text("old")
    (tmp_path / reproduce.SCRIPTS_DIR).mkdir()
    (tmp_path / reproduce.SCRIPTS_DIR / "cell_be.calibration.json").write_text(json.dumps(
        {"machine": "cell_be", "name": "calibration", "key": "0" * 20, "error": None,
         "files": ["calibration.csv", "calibration.png", "fig3_dma.png"]}))
    ran = []
    reproduce.reproduce(["cell_be"], tmp_path, quick=True, on_done=ran.append)
    assert [r["files"] for r in ran] == [["calibration.csv", "calibration.png"]]
    assert sorted(p.name for p in shared.iterdir()) == ["calibration", "mine.txt"]


@pytest.mark.parametrize("claims, out, words", [
    ("missing.yaml", "new/report", "cannot read the papers' claims"),
    ("broken.yaml", "new/report", "not valid YAML"),
    ("empty.yaml", "new/report", "holds no list of claims"),
    (None, "a_file/report", "is not a directory"),
    (None, "a_file", "is a file"),
])
def test_a_refused_reproduction_creates_nothing(tmp_path, monkeypatch, capsys, claims, out, words):
    """Everything is checked before --out is created, a bad SIMBFS_CLAIMS
    too: one line, exit status 2, nothing created."""
    (tmp_path / "broken.yaml").write_text("claims: [\n")
    (tmp_path / "empty.yaml").write_text("a: 1\n")
    (tmp_path / "a_file").write_text("not a folder\n")
    if claims:
        monkeypatch.setenv("SIMBFS_CLAIMS", str(tmp_path / claims))
    before = sorted(tmp_path.rglob("*"))
    assert main(["reproduce", "cell_be", "--quick", "--out", str(tmp_path / out), "--jobs", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simbfs: error: ") and err.count("\n") == 1 and words in err, err
    assert "SIMBFS_CLAIMS" in err if claims else "--out" in err
    assert sorted(tmp_path.rglob("*")) == before


def test_a_script_that_cannot_run_fails_the_command_but_not_the_report(tmp_path, capsys, monkeypatch):
    real = reproduce.run_script

    def broken(machine, name, out, quick):
        if name == "fig3":
            return {**real(machine, "fig3", out, quick), "error": "RuntimeError: broken on purpose"}
        return real(machine, name, out, quick)

    monkeypatch.setattr(reproduce, "run_script", broken)
    # fig3 (broken) and one other: what the others would add is not in question
    chosen = [p for p in reproduce.scripts("cell_be") if p.stem in ("calibration", "fig3")]
    monkeypatch.setattr(reproduce, "scripts", lambda machine, include_validation=False: chosen)
    assert main(["reproduce", "cell_be", "--quick", "--out", str(tmp_path), "--jobs", "1", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "could not run cell_be/fig3: RuntimeError: broken on purpose" in err
    assert "could not run: RuntimeError" in (tmp_path / "index.html").read_text()


def test_a_trend_claim_gets_a_verdict_from_the_scripts_trend_records(tmp_path):
    """A trend claim a script checks with experiments/lib.py's trend() gets
    its verdict from the record (reproduced or NOT reproduced), not from
    scraping the printout; the cheapest such script, fig11, at --quick."""
    record = reproduce.run_script("bluegene_q", "fig11", str(tmp_path), quick=True)
    assert record["error"] is None
    assert {c["claim"] for c in record["comparisons"]} == {"bgq.thread_scaling"}
    row = next(r for r in reproduce.claim_rows("bluegene_q", [record]) if r["claim"] == "bgq.thread_scaling")
    assert row["verdict"] in ("reproduced", "NOT reproduced"), row
    assert row["script"] == "bluegene_q/fig11" and "beyond 16 threads" in row["note"]


def test_checks_of_simbfs_itself_run_only_when_asked():
    """The projection checks and the sensitivity study are not figures of a
    paper: `simbfs reproduce` leaves them out unless --include-validation."""
    figures = {p.name for p in reproduce.scripts("bluegene_q")}
    everything = {p.name for p in reproduce.scripts("bluegene_q", include_validation=True)}
    assert everything - figures == {"projection_check.py", "sensitivity.py"}
    assert "fig10.py" in figures
    for machine in ("tsubame2", "sunway_taihulight"):
        assert {p.name for p in reproduce.scripts(machine, True)} - {p.name for p in reproduce.scripts(machine)} \
            == {"projection_check.py"}


def test_the_closing_summary_counts_every_claim_once():
    """The command's last line groups the verdicts; the groups add up to
    the claims, whatever verdicts occur (here a full reproduction's seven
    kinds, of which a summary that leaves one out counts 48 of 50)."""
    from simbfs.reproduce import verdict_summary
    verdicts = (["within"] * 14 + ["MISS"] * 10 + ["reproduced"] * 8 + ["NOT reproduced"] * 8
                + ["tested exactly"] * 6 + ["not compared in this run"] * 2 + ["compared (no tolerance)"] * 2)
    assert verdict_summary(verdicts) == ("50 claims (22 within tolerance or reproduced, 18 missed, "
                                         "2 compared without a tolerance, 6 checked by the tests, "
                                         "2 not compared in this run)")
    assert verdict_summary(["not decided at these sizes", "something new"]) == (
        "2 claims (1 not decided at these sizes, 1 other)")


def test_a_second_reproduction_into_a_busy_folder_is_refused(tmp_path, capsys):
    """Two reproductions into one --out would empty each other's script
    folders; the second is refused while the first holds the folder."""
    from simbfs.dirlock import DirectoryLock

    with DirectoryLock(tmp_path, reproduce.LOCK, "simbfs reproduce", "it reuses the scripts already done"):
        assert main(["reproduce", "cell_be", "--quick", "--out", str(tmp_path), "--jobs", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"another simbfs reproduce (process {os.getpid()}) is writing into" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [reproduce.LOCK]  # nothing ran
