"""Malformed numbers in a package are refused naming the attribute or cell, not with a Python exception,
and huge numbers in messages are shown short. Packages are edited by hand (zip members replaced)."""

from __future__ import annotations

import openpyxl
import pytest
from server_helpers import read_member, rebuild

from xlbridge.batch.recalc import recalc_workbook
from xlbridge.batch.guard.safety import check_workbook
from xlbridge.core.errors import WorkbookError


@pytest.fixture
def base(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.title = "S"
    wb.active["A1"] = 1
    wb.active.column_dimensions["B"].width = 12
    wb.save(tmp_path / "base.xlsx")
    return tmp_path / "base.xlsx"


@pytest.mark.parametrize("old, new, message", [
    (b'max="2"', b'max="99999999999"', "column record max='99999999999' is not a whole number from 1 to 16,384"),
    (b'width="12"', b'width="1e400"', "column width '1e400' is not a number from 0 to 255"),
])
def test_column_records_out_of_bounds(tmp_path, base, old, new, message):
    part = "xl/worksheets/sheet1.xml"
    xml = read_member(base, part)
    assert old in xml
    bad = rebuild(base, tmp_path / "bad.xlsx", replace={part: xml.replace(old, new)})
    with pytest.raises(WorkbookError, match="damaged workbook") as err:
        check_workbook(str(bad))
    assert message in str(err.value)


def test_sheet_id_not_a_number(tmp_path, base):
    xml = read_member(base, "xl/workbook.xml")
    bad = rebuild(base, tmp_path / "bad.xlsx", replace={"xl/workbook.xml": xml.replace(b'sheetId="1"', b'sheetId="x1"')})
    with pytest.raises(WorkbookError, match="sheet id 'x1' is not a whole number"):
        check_workbook(str(bad))


def test_a_huge_argument_is_shown_short(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=FORML_HANDICAP(1,1,2.75,1E+308)"
    wb.save(tmp_path / "h.xlsx")
    (err,) = recalc_workbook(str(tmp_path / "h.xlsx"), str(tmp_path / "o.xlsx")).errors
    assert "1e+308" in err.message and len(err.message) < 200
