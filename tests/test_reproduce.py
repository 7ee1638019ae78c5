"""simbfs reproduce (issue 15, item 4): every figure script of a paper,
one HTML page with every claim of the paper and every figure, a claims
table, a miss as a verdict, and a re-run that runs nothing."""

import csv

import yaml

from simbfs import reproduce
from simbfs.claims import claims_path
from simbfs.cli import main


def test_the_cell_report_names_every_cell_claim_and_shows_every_figure(tmp_path, capsys):
    assert main(["reproduce", "cell_be", "--quick", "--out", str(tmp_path), "--jobs", "1", "--quiet"]) == 0
    capsys.readouterr()
    page = (tmp_path / "index.html").read_text()
    cell_claims = [c["id"] for c in yaml.safe_load(claims_path().read_text())["claims"] if c["id"].startswith("cell.")]
    assert cell_claims and all(f"<td>{claim_id}</td>" in page for claim_id in cell_claims)
    scripts = reproduce.scripts("cell_be")
    assert all(f"cell_be/{path.stem}.py" in page for path in scripts)
    assert page.count("<img ") >= len(scripts) and "data:image/png;base64," in page
    with open(tmp_path / "claims.csv") as stream:
        rows = list(csv.DictReader(stream))
    assert [row["claim"] for row in rows] == cell_claims
    # cell.arity10 (101.6 ME/s, tolerance 15%) is compared by arity10.py with the claim's own numbers
    arity10 = next(row for row in rows if row["claim"] == "cell.arity10")
    assert arity10["script"] == "cell_be/arity10" and arity10["verdict"] in ("within", "MISS")
    # a finished reproduction re-runs nothing
    ran = []
    reproduce.reproduce(["cell_be"], tmp_path, quick=True, on_done=ran.append)
    assert ran == []


def test_a_script_that_cannot_run_fails_the_command_but_not_the_report(tmp_path, capsys, monkeypatch):
    real = reproduce.run_script

    def broken(machine, name, out, quick):
        if name == "fig3":
            return {**real(machine, "fig3", out, quick), "error": "RuntimeError: broken on purpose"}
        return real(machine, name, out, quick)

    monkeypatch.setattr(reproduce, "run_script", broken)
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
    the claims, whatever verdicts occur (the 2026-11-27 run's seven kinds,
    which the old line counted as 48 of 50)."""
    from simbfs.reproduce import verdict_summary
    verdicts = (["within"] * 14 + ["MISS"] * 10 + ["reproduced"] * 8 + ["NOT reproduced"] * 8
                + ["tested exactly"] * 6 + ["not compared in this run"] * 2 + ["compared (no tolerance)"] * 2)
    assert verdict_summary(verdicts) == ("50 claims (22 within tolerance or reproduced, 18 missed, "
                                         "2 compared without a tolerance, 6 checked by the tests, "
                                         "2 not compared in this run)")
    assert verdict_summary(["not decided at these sizes", "something new"]) == (
        "2 claims (1 not decided at these sizes, 1 other)")
