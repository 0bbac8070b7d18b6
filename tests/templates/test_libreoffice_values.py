"""Issue 15: every shipped and every recalculated workbook shows its values in LibreOffice.

LibreOffice (default settings, a fresh profile; .ci/run installs it) opens each file and writes every
sheet as CSV (raw values, not as formatted). In each sheet in view, every formula cell must show the
value the file carries for it (openpyxl ``data_only``, i.e. the cached ``<v>``, which the template
tests check against the core, the seeds and hand-worked results), and no sheet in view may show
``#NAME?`` or ``Err:`` (the Instructions mention ``#NAME?`` in words). The hidden '(calc)' sheets
are not in view: LibreOffice recomputes array formulas without the xlbridge functions there.
"""

from __future__ import annotations

import csv
import math
import shutil
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import get_column_letter
from recalc_helpers import cells, recalculated

from xlbridge.templates.mirror import CALC_SUFFIX

ROOT = Path(__file__).resolve().parents[2]
SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
pytestmark = pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed (.ci/run installs it)")
NAMES = ["pairs.xlsx", "teams.xlsx", "handicap.xlsx", "lehman.xlsx", "instant.xlsx"]
# every sheet as CSV: comma, double quotes, UTF-8, raw values (not as shown), all sheets (-1)
CSV_ALL = "csv:Text - txt - csv (StarCalc):44,34,UTF8,1,,0,false,true,false,false,false,-1"


def _libreoffice_sheets(book: Path, libreoffice) -> dict[str, list[list[str]]]:
    out = libreoffice(book, CSV_ALL)  # (one conversion per run and content, shared by the tests)
    sheets = {}
    for sheet in openpyxl.load_workbook(book, read_only=True).sheetnames:
        with open(out / f"{book.stem}-{sheet}.csv", newline="", encoding="utf-8") as fh:
            sheets[sheet] = list(csv.reader(fh))
    return sheets


def _same(cached, shown: str) -> bool:
    if cached is None or cached == "":
        return shown == ""
    if isinstance(cached, bool):
        return shown.upper() == str(cached).upper()
    if isinstance(cached, (int, float)):
        try:
            return math.isclose(float(shown), cached, rel_tol=1e-12, abs_tol=1e-12)
        except ValueError:
            return False
    return shown == str(cached)


def _check(book: Path, libreoffice) -> int:
    shown = _libreoffice_sheets(book, libreoffice)
    # (read-only readings: a third of the time of full loads for the 10,000-row sheets)
    formulas, cached = cells(book), cells(book, data_only=True)
    book_states = openpyxl.load_workbook(book, read_only=True)
    states = {ws.title: ws.sheet_state for ws in book_states.worksheets}
    book_states.close()
    checked = 0
    for title, sheet in formulas.items():
        if states[title] != "visible":  # the hidden sheets: the '(calc)' ones and xlwings.conf (nothing to print)
            assert title.endswith(CALC_SUFFIX) or title == "xlwings.conf", title
            continue
        rows = shown[title]
        if title != "Instructions":
            assert not any("#NAME?" in v or "Err:" in v for row in rows for v in row), (book.name, title)
        values = cached[title]
        for (r, col), formula in sheet.items():
            if not (isinstance(formula, str) and formula.startswith("=")):
                continue
            want = values.get((r, col))
            got = rows[r - 1][col - 1] if r <= len(rows) and col <= len(rows[r - 1]) else ""
            assert _same(want, got), (book.name, title, f"{get_column_letter(col)}{r}", want, got)
            checked += 1
    return checked


@pytest.mark.parametrize("name", NAMES + [f"examples/{n}" for n in NAMES])
def test_shipped_workbook_shows_its_values(name, libreoffice):
    assert _check(ROOT / "workbooks" / name, libreoffice) > 100


@pytest.mark.parametrize("name", NAMES)
def test_recalculated_example_shows_its_values(name, tmp_path, libreoffice):
    out = tmp_path / name
    shutil.copyfile(recalculated(ROOT / "workbooks" / "examples" / name), out)  # (recalc: no cell errs)
    assert _check(out, libreoffice) > 100
