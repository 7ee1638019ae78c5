"""One-command reproduction of the papers' figures (`simbfs reproduce`).

For a paper's machine (or all four), run every figure script of
``experiments/<machine>/`` (those a user runs: the ones with a
``__main__`` guard), each into its own folder ``DIR/<machine>/<script>/``
(emptied first, so that the files there are exactly the ones the script
wrote, whatever runs beside it), in parallel on a local Dask cluster like a
sweep, and write:

* ``DIR/index.html``: a self-contained page (pictures embedded) with, per
  machine, a table of every claim of its paper (paper's value, simbfs's
  value, error, tolerance, verdict, and how the numbers behind it were
  obtained: ``mode_text``), then each script's pictures and the
  comparisons it printed;
* ``DIR/claims.csv``: the claims table.

A script's result (what it printed, its comparisons with the modes of the
runs behind each, its files and its modes) is stored in ``DIR/scripts/``
under a key of the script's source, the shared experiment library, the
claims file, ``--quick``, the simbfs version and the stored result's format
(FORMAT), as soon as it finishes: an interrupted reproduction re-run runs
only what is missing, and a finished one nothing.

Verdicts come from the scripts' own comparisons with the claims
(``experiments/lib.py``'s ``compare_claim``, and ``trend`` for a claim
checked as a yes/no: reproduced or NOT reproduced); a claim a script only
discusses shows the lines the script printed about it; a claim no script compares in this run (the headlines are
compared only at full size) is looked up in the tests, which assert the
exact claims; else it says so and points to docs/validation.md. A miss is a verdict, not a failure: the command fails
only when a script could not run.
"""

from __future__ import annotations

from collections import Counter

import base64
import contextlib
import csv
import hashlib
import html
import importlib
import io
import json
import os
import shutil
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

from . import __version__
from .claims import claims_data, claims_path
from .dirlock import check_output_folder
from .errors import UserError

MACHINES = ("bluegene_q", "cell_be", "sunway_taihulight", "tsubame2")
PREFIX = {"bluegene_q": "bgq.", "cell_be": "cell.", "sunway_taihulight": "sunway.", "tsubame2": "tsubame."}
PAPER = {"bluegene_q": "000, Checconi & Petrini (IPDPS 2014)", "cell_be": "001, Villa et al. (2007)",
         "sunway_taihulight": "003, Lin et al. (IPDPS 2017)", "tsubame2": "004, Ueno & Suzumura (HiPC 2013)"}
MAIN_GUARD = 'if __name__ == "__main__":'
VALIDATION_MARK = "\nVALIDATION = True"
SCRIPTS_DIR = "scripts"
LOCK = ".reproduce.lock"  # held (simbfs/dirlock.py) by the reproduction writing into DIR
# The format of a stored script result, part of its key: a result stored in
# another format is run again. In format 2 each script's files are those of
# its own folder, and each comparison carries the modes of the runs behind
# it. Format 1 (no "format" field) guesses them from their times in a folder
# shared with the scripts running beside it, so it can list theirs.
FORMAT = 2


def experiments_dir() -> Path:
    """The experiment scripts of a source checkout (beside the package)."""
    path = Path(__file__).resolve().parents[1] / "experiments"
    if not (path / "lib.py").exists():
        raise UserError(f"simbfs reproduce runs the figure scripts of a source checkout, and there are none at "
                        f"{path}; run it from the simbfs repository (pip install -e .)")
    return path


def check(machines: list[str], out: Path, include_validation: bool = False) -> int:
    """Everything a reproduction needs, checked before anything is created:
    the experiment scripts, the claims file, and an --out that is a
    directory or can be made one. Returns the number of scripts to run;
    creates nothing."""
    total = sum(len(scripts(machine, include_validation)) for machine in machines)  # experiments_dir() checks
    if not total:
        raise UserError(f"there are no figure scripts of {', '.join(machines)} in {experiments_dir()}")
    claims_data()
    check_output_folder(out)
    return total


def scripts(machine: str, include_validation: bool = False) -> list[Path]:
    """The figure scripts of ``machine``'s paper (the runnable ones); with
    ``include_validation``, also the checks of simbfs itself (projection
    against execution, sensitivity), which say ``VALIDATION = True``."""
    found = []
    for path in sorted((experiments_dir() / machine).glob("*.py")):
        text = path.read_text()
        if MAIN_GUARD in text and (include_validation or VALIDATION_MARK not in text):
            found.append(path)
    return found


def script_key(path: Path, quick: bool) -> str:
    parts = [path.read_text(), (experiments_dir() / "lib.py").read_text(), __version__, str(quick), f"format {FORMAT}"]
    helper = [p.read_text() for p in sorted(path.parent.glob("*.py")) if MAIN_GUARD not in p.read_text()]
    try:
        parts.append(claims_path().read_text())
    except OSError:
        raise UserError(f"cannot read the papers' claims at {claims_path()}; set SIMBFS_CLAIMS to claims.yaml") \
            from None
    return hashlib.sha256("\x00".join(parts + helper).encode()).hexdigest()[:20]


def script_dir(out: Path, machine: str, name: str) -> Path:
    """The folder of one script's files in a report: DIR/<machine>/<script>/."""
    return out / machine / name


def run_script(machine: str, name: str, out: str, quick: bool) -> dict:
    """Run one figure script (in this process) with ``--out out``, its own
    folder, which is emptied first: what it printed, its comparisons, the
    files it wrote (every file of the folder, relative to it), how its
    numbers were obtained, or the error that stopped it."""
    root = str(experiments_dir().parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    lib = importlib.import_module("experiments.lib")
    module = importlib.import_module(f"experiments.{machine}.{name}")
    lib.COMPARISONS.clear()
    lib.MODES.clear()
    lib._calibrated.clear()
    folder = Path(out)
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)  # a previous run's files, which this run may not write again
    elif folder.exists() or folder.is_symlink():
        folder.unlink()
    folder.mkdir(parents=True)
    printed = io.StringIO()
    started = time.perf_counter()
    argv = ["--out", out] + (["--quick"] if quick else [])
    try:
        with contextlib.redirect_stdout(printed):
            module.main(argv)
        error = None
    except BaseException as exc:  # a script that cannot run is reported, not fatal to the others
        if isinstance(exc, KeyboardInterrupt):
            raise
        error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    comparisons = list(lib.COMPARISONS)
    modes = set(lib.MODES).union(*(c.get("modes", ()) for c in comparisons))
    doc = (module.__doc__ or "").strip()
    return {"machine": machine, "name": name, "title": doc.splitlines()[0] if doc else name,
            "output": printed.getvalue(), "comparisons": comparisons, "files": files,
            "modes": [m for m in lib.MODE_ORDER if m in modes], "calibrated": sorted(lib._calibrated),
            "error": error, "seconds": time.perf_counter() - started}


def _store_path(out: Path, machine: str, name: str) -> Path:
    return out / SCRIPTS_DIR / f"{machine}.{name}.json"


def _stored(out: Path, machine: str, name: str, key: str) -> dict | None:
    path = _store_path(out, machine, name)
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):  # missing, or not a stored result: run the script
        return None
    if not isinstance(record, dict):
        return None
    if record.get("format", 1) < 2:
        _drop_format_1_files(out, machine, record)
    # a script that could not run is tried again
    return record if record.get("key") == key and not record.get("error") else None


def _drop_format_1_files(out: Path, machine: str, record: dict) -> None:
    """Format 1 wrote every script's files straight into DIR/<machine>/;
    those its stored result lists are stale beside the scripts' folders
    that replace them."""
    for name in record.get("files", ()):
        path = out / machine / str(name)
        if "/" not in str(name) and path.is_file() and not path.is_symlink():
            path.unlink()


def _store(out: Path, record: dict) -> None:
    path = _store_path(out, record["machine"], record["name"])
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(record, sort_keys=True, indent=1) + "\n")
    os.replace(temporary, path)


def reproduce(machines: list[str], out: Path, quick: bool, jobs: int = 1,
              on_done: Callable[[dict], None] = lambda record: None, include_validation: bool = False) -> list[dict]:
    """Run (or reuse) every script of ``machines``; return their records."""
    (out / SCRIPTS_DIR).mkdir(parents=True, exist_ok=True)
    todo, records = [], {}
    for machine in machines:
        for path in scripts(machine, include_validation):
            key = script_key(path, quick)
            record = _stored(out, machine, path.stem, key)
            if record is None:
                todo.append((machine, path.stem, key))
            records[(machine, path.stem)] = record

    def keep(machine, name, key, record):
        record["key"], record["format"] = key, FORMAT
        _store(out, record)
        records[(machine, name)] = record
        on_done(record)

    if jobs <= 1 or len(todo) <= 1:
        for machine, name, key in todo:
            keep(machine, name, key, run_script(machine, name, str(script_dir(out, machine, name)), quick))
    elif todo:
        from dask.distributed import as_completed

        from .dask_cluster import local_client  # quiet on Ctrl-C, no dashboard port

        with local_client(min(jobs, len(todo))) as client:
            futures = {client.submit(run_script, machine, name, str(script_dir(out, machine, name)), quick, pure=False,
                                     key=f"reproduce-{machine}-{name}-{key}"): (machine, name, key)
                       for machine, name, key in todo}
            try:
                for future in as_completed(futures):
                    machine, name, key = futures[future]
                    keep(machine, name, key, future.result())
            except BaseException:
                client.cancel(list(futures))
                raise
    return [records[k] for k in sorted(records, key=lambda k: (machines.index(k[0]), k[1]))]


def _claims(machine: str) -> list[dict]:
    return [c for c in claims_data()["claims"] if c["id"].startswith(PREFIX[machine])]


def claim_rows(machine: str, records: list[dict]) -> list[dict]:
    """One row per claim of the machine's paper: the scripts' comparisons
    with it (the last one a script printed counts), else the lines the
    scripts printed about it, else 'not compared'."""
    rows = []
    mine = [r for r in records if r["machine"] == machine]
    for c in _claims(machine):
        row = {"claim": c["id"], "kind": c.get("kind", ""), "paper": c.get("value", c.get("statement", "")),
               "simbfs": "", "error": "", "tolerance": c.get("tolerance", ""), "verdict": "", "mode": "",
               "script": "", "note": ""}
        compared = [(r, cmp) for r in mine for cmp in r["comparisons"] if cmp.get("claim") == c["id"]]
        mentioned = [(r, line.strip()) for r in mine for line in r["output"].splitlines() if c["id"] in line]
        if compared:
            # every comparison with the claim (one per case: arity 16 and 512, say); the worst verdict counts
            numeric = [cmp for _, cmp in compared if cmp.get("simbfs") is not None]
            row.update(simbfs="; ".join(f"{cmp['simbfs']:.4g}" for cmp in numeric),
                       error="; ".join(f"{cmp['error']:+.1%}" for cmp in numeric),
                       verdict=worst_verdict([cmp["verdict"] for _, cmp in compared],
                                             trends_only=all(cmp.get("simbfs") is None for _, cmp in compared)),
                       script=", ".join(sorted({f"{machine}/{r['name']}" for r, _ in compared})),
                       mode=mode_text([m for _, cmp in compared for m in cmp.get("modes", ())],
                                      any(cmp.get("calibrated_on") for _, cmp in compared)),
                       note="; ".join(_described(cmp) for _, cmp in compared
                                      if len(compared) > 1 or cmp.get("detail"))[:600])
        elif mentioned:
            record, line = mentioned[-1]
            following = record["output"].splitlines()
            at = [i for i, text in enumerate(following) if c["id"] in text][-1]
            detail = " ".join(text.strip() for text in following[at + 1:at + 3] if text.strip())
            verdict = "see note"
            for word in ("NOT reproduced", "reproduced", "MISS", "within"):
                if word in detail or word in line:
                    verdict = word
                    break
            row.update(verdict=verdict, script=f"{machine}/{record['name']}", mode=_mode(record),
                       note=(line + " " + detail)[:400])
        else:
            tests = _tests_naming(c["id"])
            if tests:
                row.update(verdict="checked by the tests" if c.get("kind") != "exact" else "tested exactly",
                           mode=NOT_RUN_TESTS, note="asserted in " + ", ".join(tests) + "; see docs/validation.md")
            else:
                row.update(verdict="not compared in this run", mode=NOT_RUN,
                           note="no script compared it at these sizes (some compare only at full size, "
                                "without --quick); see docs/validation.md")
        rows.append(row)
    return rows


# verdicts from the worst down: a numeric miss, a trend not reproduced, then the good ones
VERDICT_ORDER = ("MISS", "NOT reproduced", "within", "reproduced", "compared (no tolerance)")


# how the command's closing line groups the claims' verdicts: every verdict
# falls in exactly one group, so the counts add up to the claims
VERDICT_GROUPS = (
    ("within tolerance or reproduced", ("within", "reproduced")),
    ("missed", ("MISS", "NOT reproduced")),
    ("compared without a tolerance", ("compared (no tolerance)",)),
    ("not decided at these sizes", ("not decided at these sizes",)),
    ("checked by the tests", ("tested exactly", "checked by the tests")),
)


def verdict_summary(verdicts: list[str]) -> str:
    """'N claims (a within tolerance or reproduced, b missed, ...)': the
    groups of VERDICT_GROUPS that occur, then those not compared in this
    run and any other verdict, so that the counts add up to N."""
    def group(verdict: str) -> str:
        for name, members in VERDICT_GROUPS:
            if verdict in members:
                return name
        return "not compared in this run" if verdict.startswith("not compared") else "other"
    counts = Counter(group(v) for v in verdicts)
    order = [name for name, _ in VERDICT_GROUPS] + ["not compared in this run", "other"]
    parts = [f"{counts[name]} {name}" for name in order if counts[name]]
    return f"{len(verdicts)} claims ({', '.join(parts)})" if parts else f"{len(verdicts)} claims"


def worst_verdict(verdicts: list[str], trends_only: bool = False) -> str:
    """The claim's verdict from all its comparisons: the worst of them
    (a comparison without a verdict, e.g. at a reduced size, only informs;
    if no comparison has one, a trend was not decided at these sizes)."""
    for verdict in VERDICT_ORDER:
        if verdict in verdicts:
            return verdict
    return "not decided at these sizes" if trends_only else "compared (no tolerance)"


def _described(comparison: dict) -> str:
    if comparison.get("simbfs") is None:  # a trend: what was checked, and its verdict
        verdict = comparison["verdict"] or "does not decide the claim"
        return f"{comparison['label']}: {comparison['detail']} ({verdict})"
    return f"{comparison['label']}: paper {comparison['paper']:.4g}"


def _tests_naming(claim_id: str) -> list[str]:
    """The test files (of a source checkout) that name ``claim_id``."""
    tests = experiments_dir().parent / "tests"
    return sorted(f"tests/{p.name}" for p in tests.glob("test_*.py") if claim_id in p.read_text())


# The mode column of a claim no run of this reproduction compares: the tests
# assert it (their runs are not this reproduction's), or it is compared
# only at other sizes.
NOT_RUN_TESTS = "not run (tests)"
NOT_RUN = "not run"


def mode_text(modes, calibrated: bool = False) -> str:
    """How the numbers behind a row were obtained: its modes in the order of
    experiments/lib.py's MODE_ORDER (executed, projected, modelled) joined
    by " + ", and ", calibrated" when a run was on a machine calibrated by
    `simbfs calibrate`; "not recorded" if the script said nothing."""
    order = ("executed", "projected", "modelled")
    known = set(modes)
    text = " + ".join([m for m in order if m in known] + sorted(known - set(order))) or "not recorded"
    return text + (", calibrated" if calibrated else "")


def _mode(record: dict) -> str:
    return mode_text(record["modes"], bool(record.get("calibrated")))


def write_claims_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]) if rows else ["machine"])
        writer.writeheader()
        writer.writerows(rows)


def _cell(value) -> str:
    return f"{value:.4g}" if isinstance(value, float) else html.escape(str(value))


def write_html(path: Path, machines: list[str], records: list[dict], claims: dict[str, list[dict]],
               quick: bool) -> None:
    sizes = "QUICK sizes (a check, not the papers' sizes)" if quick else "Full sizes"
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>simbfs reproduction</title><style>",
             "body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
             "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;"
             "vertical-align:top}th{background:#eee}.MISS,.NOT{background:#fdd}.within,.reproduced{background:#dfd}"
             "pre{background:#f6f6f6;font-size:12px;overflow-x:auto;padding:6px}img{max-width:100%}",
             "</style></head><body>",
             f"<h1>simbfs {html.escape(__version__)}: reproduction of the papers' figures</h1>",
             f"<p>{sizes}. "
             "Every number is simbfs's: executed on the real graph, projected from a smaller one, or modelled "
             "(a part of the machine model on its own, with no search), as each row's mode says; 'not run' means "
             "no run of this reproduction is behind the row. A miss is reported, not tuned. How well simbfs "
             "predicts, and why it misses where it does: docs/validation.md; the mode column: "
             "docs/reference/cli.md.</p>"]
    for machine in machines:
        parts.append(f"<h2 id='{machine}'>{machine}: seed {html.escape(PAPER[machine])}</h2>")
        parts.append("<table><tr><th>claim</th><th>kind</th><th>paper</th><th>simbfs</th><th>error</th>"
                     "<th>tolerance</th><th>verdict</th><th>mode</th><th>script</th><th>note</th></tr>")
        for row in claims[machine]:
            error = html.escape(str(row["error"]))
            tolerance = f"{row['tolerance']:.0%}" if isinstance(row["tolerance"], (int, float)) else ""
            css = str(row["verdict"]).split()[0] if row["verdict"] else ""
            parts.append(f"<tr><td>{html.escape(row['claim'])}</td><td>{html.escape(str(row['kind']))}</td>"
                         f"<td>{_cell(row['paper'])}</td><td>{_cell(row['simbfs'])}</td><td>{error}</td>"
                         f"<td>{tolerance}</td><td class='{html.escape(css)}'>{html.escape(str(row['verdict']))}"
                         f"</td><td>{html.escape(row['mode'])}</td><td>{html.escape(row['script'])}</td>"
                         f"<td>{html.escape(row['note'])}</td></tr>")
        parts.append("</table>")
        for record in (r for r in records if r["machine"] == machine):
            parts.append(f"<h3 id='{machine}-{record['name']}'>{machine}/{record['name']}.py: "
                         f"{html.escape(record['title'])}</h3>")
            if record["error"]:
                parts.append(f"<p class='MISS'>could not run: {html.escape(record['error'])}</p>")
            folder = script_dir(path.parent, machine, record["name"])
            for name in record["files"]:
                if name.endswith(".png"):
                    data = base64.b64encode((folder / name).read_bytes()).decode()
                    parts.append(f"<p><img alt='{html.escape(name)}' src='data:image/png;base64,{data}'></p>")
            parts.append(f"<p>mode: {html.escape(_mode(record))}; {record['seconds']:.0f} s; files in "
                         f"{html.escape(machine)}/{html.escape(record['name'])}/: "
                         f"{html.escape(', '.join(record['files']))}</p>")
            parts.append(f"<pre>{html.escape(record['output'][-6000:])}</pre>")
    parts.append("</body></html>")
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text("\n".join(parts))
    os.replace(temporary, path)


def report(out: Path, machines: list[str], records: list[dict], quick: bool) -> dict[str, list[dict]]:
    claims = {machine: claim_rows(machine, records) for machine in machines}
    write_claims_csv(out / "claims.csv", [{"machine": m, **row} for m in machines for row in claims[m]])
    write_html(out / "index.html", machines, records, claims, quick)
    return claims
