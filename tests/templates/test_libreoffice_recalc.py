"""Issue 52: after a full recalculation in LibreOffice (Ctrl+Shift+F9: every formula computed again, without the
xlbridge functions, which LibreOffice does not know), no sheet in view of the ten shipped books shows ``#NAME?``
or ``Err:``: the results blank out (the guards of xlbridge.templates.mirror), the worked examples included.
"""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pytest

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["pairs.xlsx", "teams.xlsx", "handicap.xlsx", "lehman.xlsx", "instant.xlsx"]
CSV_ALL = "csv:Text - txt - csv (StarCalc):44,34,UTF8,1,,0,false,true,false,false,false,-1"


@pytest.mark.parametrize("name", NAMES + [f"examples/{n}" for n in NAMES])
def test_no_name_error_after_libreoffice_recalculates(name, libreoffice):
    book = ROOT / "workbooks" / name
    out = libreoffice(book, CSV_ALL, recalc=True)
    wb = openpyxl.load_workbook(book, read_only=True)
    visible = [ws.title for ws in wb.worksheets if ws.sheet_state == "visible"]
    wb.close()
    bad = []
    for sheet in visible:
        if sheet == "Instructions":  # (it mentions #NAME? in words)
            continue
        with open(out / f"{book.stem}-{sheet}.csv", newline="", encoding="utf-8") as fh:
            for r, row in enumerate(csv.reader(fh), start=1):
                bad += [f"{sheet}!{openpyxl.utils.get_column_letter(c)}{r}: {v}"
                        for c, v in enumerate(row, start=1) if "#NAME?" in v or "Err:" in v]
    assert not bad, bad[:10]
