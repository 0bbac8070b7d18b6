"""A book saved as .ods or .xls (by LibreOffice itself) is refused by every command that reads a workbook
(recalc, export, publish) with one line saying how to save it as .xlsx, in LibreOffice's and Excel's own words."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from xlbridge.cli import main

ROOT = Path(__file__).resolve().parents[2]

#: LibreOffice 7's and Excel's (365) own words under File > Save As (issue 52)
LIBREOFFICE = 'in LibreOffice File > Save As, file type "Excel 2007-365 (.xlsx)"'
EXCEL = 'in Excel File > Save As, "Excel Workbook (*.xlsx)"'

COMMANDS = {
    "recalc": lambda book, out: ["recalc", str(book), "-o", str(out / "r.xlsx"), "--no-progress"],
    "export pbn": lambda book, out: ["export", str(book), "--format", "pbn", "-o", str(out / "e.pbn")],
    "export usebio": lambda book, out: ["export", str(book), "--format", "usebio", "-o", str(out / "e.xml")],
    "publish": lambda book, out: ["publish", str(book), "-o", str(out / "site")],
}


@pytest.fixture(scope="module")
def saved_as(libreoffice):
    book = ROOT / "workbooks" / "examples" / "pairs.xlsx"  # (a filled book, as a member saves it)
    return {fmt: libreoffice(book, fmt) / f"{book.stem}.{fmt}" for fmt in ("ods", "xls")}


@pytest.mark.parametrize("fmt, kind", [("ods", "an OpenDocument spreadsheet (.ods)"),
                                       ("xls", "an Excel 97-2003 workbook (.xls)")])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_saved_as_other_format_is_refused_saying_how_to_save_as_xlsx(saved_as, fmt, kind, command, tmp_path,
                                                                      capsys):
    book = tmp_path / f"club.{fmt}"
    shutil.copy(saved_as[fmt], book)
    before = book.read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    assert main(COMMANDS[command](book, out)) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    line = lines[0]
    assert f"club.{fmt}" in line and kind in line
    assert LIBREOFFICE in line and EXCEL in line
    assert "Traceback" not in captured.err and str(tmp_path) not in line
    assert list(out.iterdir()) == [] and book.read_bytes() == before  # nothing written, the input untouched
