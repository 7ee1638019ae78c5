"""What every experiment script shares: its command line (``--quick``,
``--out``), its output directory and its CSV tables.

Scripts run as ``python experiments/<name>.py`` and are imported by the
tests as ``experiments.<name>``; both find the project through ROOT."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def exit_on_user_error(main) -> None:
    """Run a script's ``main``; a user's error (a missing claims file, an
    impossible size) is one line on stderr and exit status 2, as in the CLI."""
    from simbfs.errors import UserError

    try:
        main()
    except UserError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(UserError.exit_status)


def parser(doc: str, default_out: Path, quick_help: str = "tiny sizes (seconds), for the tests"):
    """The shared options; a script may add its own before parsing."""
    result = argparse.ArgumentParser(description=doc)
    result.add_argument("--quick", action="store_true", help=quick_help)
    result.add_argument("--out", default=str(default_out), help="directory for the PNG and CSV")
    return result


def out_dir(args) -> Path:
    path = Path(args.out)
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def pyplot():
    """matplotlib.pyplot on the Agg backend (files only, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: Path) -> None:
    """Lay out, write (PNG, 120 dpi) and close a matplotlib figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
