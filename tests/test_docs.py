"""The documentation stays true to the code: its commands parse, its links resolve.

* Every `simbfs ...` command line in a ```sh or ```console block of the
  tutorial and the how-tos must be accepted by the real argument parser
  (lines using shell variables, pipes or command substitution are skipped;
  a trailing redirection is ignored).
* Every relative Markdown link in docs/**/*.md and README.md must point to
  an existing file, and a `#anchor` into a Markdown file must name one of
  its headings.

Fast: nothing is simulated.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from simbfs.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
COMMAND_PAGES = sorted([DOCS / "tutorial.md", *(DOCS / "howto").glob("*.md")])
LINK_PAGES = sorted([ROOT / "README.md", *DOCS.rglob("*.md")])

FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+\1")
REDIRECTION = re.compile(r"^\d*[<>]")


def _code_blocks(text: str):
    """(language, [lines]) of every fenced code block."""
    fence, language, lines = None, "", []
    for line in text.splitlines():
        match = FENCE.match(line.strip())
        if fence is None:
            if match:
                fence, language, lines = match.group(1), match.group(2).lower(), []
        elif match and line.strip().startswith(fence) and not match.group(2):
            yield language, lines
            fence = None
        else:
            lines.append(line)


def _logical_lines(lines: list[str]):
    """Join backslash continuations."""
    pending = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield pending + line
        pending = ""
    if pending:
        yield pending


def simbfs_commands(page: Path) -> list[str]:
    commands = []
    for language, lines in _code_blocks(page.read_text()):
        if language not in ("sh", "console", "shell", "bash"):
            continue
        for line in _logical_lines(lines):
            line = line.strip()
            if language == "console":
                if not line.startswith("$ "):
                    continue  # output, not a command
                line = line[2:].strip()
            for part in line.split(" && "):  # `pip install -e . && simbfs run ...`
                part = part.strip()
                if part.startswith("simbfs "):
                    commands.append(part)
    return commands


def _argv(command: str) -> list[str] | None:
    """The arguments after `simbfs`, or None for lines the shell would expand."""
    if any(c in command for c in "$|`"):
        return None
    words = shlex.split(command, comments=True)
    for i, word in enumerate(words):
        if REDIRECTION.match(word) or word in ("&&", "||", ";", "&"):
            words = words[:i]
            break
    return words[1:]


COMMANDS = [(page, command) for page in COMMAND_PAGES for command in simbfs_commands(page)]


def test_the_pages_have_commands_to_check():
    assert len(COMMAND_PAGES) >= 3, COMMAND_PAGES
    checked = [c for _, c in COMMANDS if _argv(c) is not None]
    assert len(checked) >= 10, checked


@pytest.mark.parametrize(
    "page, command", COMMANDS,
    ids=[f"{p.relative_to(ROOT)}#{i}: {' '.join(c.split())[:70]}" for i, (p, c) in enumerate(COMMANDS)],
)
def test_documented_command_parses(page, command):
    argv = _argv(command)
    if argv is None:
        pytest.skip("uses shell expansion")
    parser = build_parser()
    try:
        parser.parse_args(argv)
    except SystemExit as exc:  # argparse reports errors by exiting
        pytest.fail(f"{page.relative_to(ROOT)}: `{command}` does not parse (exit {exc.code})")


def test_a_misspelt_command_would_be_caught():
    assert _argv("simbfs run bluegene_q --nodes 512 --scale 14 > out.txt") == [
        "run", "bluegene_q", "--nodes", "512", "--scale", "14"]
    assert _argv('simbfs run x --set messaging.send_overhead="$ns ns"') is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(_argv("simbfs run bluegene_q --sacle 14"))


# ------------------------------------------------------------------ links
def _prose(text: str, strip_inline_code: bool = True) -> str:
    """The text outside fenced code blocks (by default with inline code removed)."""
    out, fence = [], None
    for line in text.splitlines():
        match = FENCE.match(line.strip())
        if fence is None and match:
            fence = match.group(1)
            continue
        if fence is not None:
            if line.strip().startswith(fence) and not (match and match.group(2)):
                fence = None
            continue
        out.append(INLINE_CODE.sub("", line) if strip_inline_code else line)
    return "\n".join(out)


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|__", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found, seen = set(), {}
    for line in _prose(page.read_text(), strip_inline_code=False).splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        slug = github_anchor(match.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(page: Path) -> list[str]:
    targets = []
    for target in LINK.findall(_prose(page.read_text())):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue  # http:, https:, mailto:
        targets.append(target)
    return targets


def test_link_pattern_finds_links():
    assert relative_links(ROOT / "README.md"), "README.md should link the docs"


@pytest.mark.parametrize("page", LINK_PAGES, ids=[str(p.relative_to(ROOT)) for p in LINK_PAGES])
def test_relative_links_resolve(page):
    broken = []
    for target in relative_links(page):
        path_part, _, anchor = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page
        if not destination.exists():
            shown = destination.relative_to(ROOT) if destination.is_relative_to(ROOT) else destination
            broken.append(f"{target} (no file {shown})")
            continue
        if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target} (no heading #{anchor} in {destination.relative_to(ROOT)})")
    assert not broken, f"{page.relative_to(ROOT)} has broken links:\n  " + "\n  ".join(broken)


def test_machine_file_reference_lists_every_key_the_schema_accepts():
    """The key table of docs/reference/machine-files.md is what
    `simbfs machines --keys` prints: the core schema plus every registered
    section and topology parameter, so a new key cannot go undocumented."""
    from simbfs.machine.schema import reference_table

    page = (DOCS / "reference" / "machine-files.md").read_text()
    assert reference_table() in page, "run `simbfs machines --keys` and paste it over the table"


@pytest.mark.parametrize("command", ["run", "calibrate", "sweep", "reproduce", "machines", "algorithms"])
def test_the_cli_reference_shows_each_commands_help_as_it_is(command, monkeypatch, capsys):
    """docs/reference/cli.md quotes `simbfs COMMAND --help` at 80 columns;
    a changed option must change the page too."""
    from simbfs.cli import main

    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main([command, "--help"])
    shown = capsys.readouterr().out.rstrip("\n")
    page = (DOCS / "reference" / "cli.md").read_text()
    marker = f"$ simbfs {command} --help\n"
    assert marker in page
    start = page.index(marker) + len(marker)
    assert page[start:page.index("\n```", start)] == shown
