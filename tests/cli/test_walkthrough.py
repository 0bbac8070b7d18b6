"""The README's workflow, run line by line as the README writes it, on the sample session it ships
(workbooks/examples/club-session.pbn), in a fresh folder: every command exits 0 and leaves what the README
says, and the published ranking has every pair of the file (issue 40: the walkthrough runs on shipped files)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import openpyxl

from xlbridge.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _walkthrough() -> list[list[str]]:
    """The ``xlbridge ...`` lines of the README's block that uses the sample session, comments cut."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```bash\n(.*?)```", text, re.S) if "club-session.pbn" in b)
    return [shlex.split(line.split("#")[0])[1:] for line in block.splitlines() if line.startswith("xlbridge ")]


def test_the_readme_workflow_runs_on_the_shipped_sample(tmp_path, monkeypatch):
    (tmp_path / "workbooks" / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "workbooks" / "examples" / "club-session.pbn", tmp_path / "workbooks" / "examples")
    monkeypatch.chdir(tmp_path)
    lines = _walkthrough()
    assert [line[0] for line in lines] == ["import", "recalc", "export", "publish"]
    for argv in lines:
        assert main(argv) == 0, argv
    book = openpyxl.load_workbook(tmp_path / "thursday.xlsx", data_only=True)
    from xlbridge.formats.sheets import find_parameter

    assert find_parameter(book["Travellers"], "Event").value == "Thursday Pairs"
    assert (tmp_path / "thursday.xlsx.bak").exists()  # --in-place keeps the book as it was
    assert b"<EVENT_DESCRIPTION>Thursday Pairs</EVENT_DESCRIPTION>" in (tmp_path / "thursday.xml").read_bytes()
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "<h1>Thursday Pairs</h1>" in index and "2026-11-26" in index  # the event's name and date on the page
    # a 13-table Mitchell: 13 N-S and 13 E-W pairs ranked, 26 boards
    assert len(re.findall(r'href="pair-NS-\d+\.html"', index)) == 13
    assert len(re.findall(r'href="pair-EW-\d+\.html"', index)) == 13
    assert len(list((tmp_path / "site").glob("board-*.html"))) == 26
