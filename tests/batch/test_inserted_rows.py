"""``xlbridge recalc`` gives the rows inserted into a template's table the formulas of their result cells
(issue 38; :mod:`xlbridge.batch.write.inserted`).

A row inserted by a member has empty result cells: here made by emptying the result cells of a row of the
small pairs example (its ``Travellers`` H, N and O hold the same formula in every row). The book is then
recalculated and compared with the same book recalculated untouched: the row shows the same values, its
cells hold the table's formula again, one warning names it. LibreOffice's own insertions are in
tests/templates/test_row_edits.py.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest

from recalc_helpers import recalc_here, small_build
from xlbridge.batch.write.inserted import position_free

PART = "xl/worksheets/sheet2.xml"  # Travellers (checked below)


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    src = small_build("examples/pairs.xlsx", rows=100)
    with zipfile.ZipFile(src) as zf:
        assert b'name="Travellers"' in zf.read("xl/workbook.xml")
        assert b'<c r="H7"' in zf.read(PART) and b"ROW()" in zf.read(PART)
    return src


@pytest.fixture(scope="module")
def untouched(book, tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("untouched") / "out.xlsx"
    report = recalc_here(book, out)
    assert report.ok and not report.warnings
    ws = openpyxl.load_workbook(out, data_only=True)["Travellers"]
    return {f"{c}{r}": ws[f"{c}{r}"].value for c in "HNO" for r in range(5, 23)}


def _edited(book: Path, folder: Path, change) -> Path:
    """A copy of ``book`` whose Travellers part is ``change(xml)``."""
    out = folder / "book.xlsx"
    with zipfile.ZipFile(book) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            zout.writestr(item, change(data.decode()).encode() if item.filename == PART else data)
    return out


def _cell(xml: str, ref: str) -> re.Match:
    m = re.search(rf'<c r="{ref}"( s="\d+")?[^>]*>.*?</c>', xml)
    assert m is not None, ref
    return m


def _empty(xml: str, ref: str) -> str:
    """The cell as LibreOffice leaves it in an inserted row: its style only."""
    m = _cell(xml, ref)
    return xml[:m.start()] + f'<c r="{ref}"{m.group(1) or ""}/>' + xml[m.end():]


def test_an_inserted_row_is_given_its_formulas_and_computed(book, untouched, tmp_path):
    path = _edited(book, tmp_path, lambda x: _empty(_empty(_empty(x, "H7"), "N7"), "O7"))
    report = recalc_here(path, tmp_path / "out.xlsx")
    assert report.ok, report.errors
    (warning,) = report.warnings
    assert warning.startswith("Travellers!H7: the result cells of row 7 (inserted into the table) had no formulas")
    values = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Travellers"]
    assert {k: values[k].value for k in untouched} == untouched
    assert values["H7"].value == 400  # (row 7: board 1, none vulnerable, 3NT by S making 9: 100 + 300, Law 77)
    formulas = openpyxl.load_workbook(tmp_path / "out.xlsx")["Travellers"]
    for c in "HNO":
        assert formulas[f"{c}7"].value == formulas[f"{c}8"].value and formulas[f"{c}7"].value.startswith("=IFERROR(")
        assert formulas[f"{c}7"].style_id == formulas[f"{c}8"].style_id  # (the cell's own style kept)
    assert re.search(rb'<c r="H7" s="[0-9]+"/>', zipfile.ZipFile(path).read(PART))  # (the input as it was)


def test_a_value_typed_into_a_result_cell_is_kept_and_named(book, untouched, tmp_path):
    def change(x: str) -> str:  # (its own score typed over the formula: the matchpoints stay as they were)
        m = _cell(x, "H7")
        typed = f'<c r="H7"{m.group(1) or ""}><v>{untouched["H7"]}</v></c>'
        return _empty(_empty(x[:m.start()] + typed + x[m.end():], "N7"), "O7")

    report = recalc_here(_edited(book, tmp_path, change), tmp_path / "out.xlsx")
    assert [(e.sheet, e.cell, e.code) for e in report.errors] == [("Travellers", "H7", "layout")]
    assert "Travellers!N7: the result cells of row 7" in report.warnings[0]
    ws = openpyxl.load_workbook(tmp_path / "out.xlsx")["Travellers"]
    assert ws["H7"].value == untouched["H7"] and ws["N7"].value.startswith("=")


def test_excel_shared_formulas_give_their_text(book, untouched, tmp_path):
    """Excel writes a column of one formula as a shared formula: its text in the first cell only."""
    def change(x: str) -> str:
        text = re.search(r'<c r="H5"[^>]*><f>(.*?)</f>', x).group(1)
        for r in range(5, 105):
            m = _cell(x, f"H{r}")
            f = f'<f t="shared" ref="H5:H104" si="0">{text}</f>' if r == 5 else '<f t="shared" si="0"/>'
            x = x[:m.start()] + f'<c r="H{r}"{m.group(1) or ""}>{f}</c>' + x[m.end():]
        return _empty(x, "H20")

    report = recalc_here(_edited(book, tmp_path, change), tmp_path / "out.xlsx")
    assert report.ok and report.warnings[0].startswith("Travellers!H20: ")
    values = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Travellers"]
    assert {k: values[k].value for k in untouched} == untouched


def test_a_formula_naming_its_own_row_is_not_copied(book, tmp_path):
    """Result cells reading their row's own address (a relative reference) differ from row to row: no
    formula is written, and the row is named as before."""
    def change(x: str) -> str:
        for r in range(5, 105):
            m = _cell(x, f"H{r}")
            x = x[:m.start()] + f"<c r=\"H{r}\"{m.group(1) or ''}><f>'Travellers (calc)'!H{r}</f></c>" + x[m.end():]
        return _empty(x, "H7")

    report = recalc_here(_edited(book, tmp_path, change), tmp_path / "out.xlsx")
    assert not report.warnings
    assert [(e.cell, e.code) for e in report.errors] == [("H7", "layout")]
    assert "copy the result cells of another row" in report.errors[0].message


@pytest.mark.parametrize("formula, same", [
    ("INDEX('T (calc)'!$H$5:$H$104,ROW()-ROW($A$5:$A$104)+1)", True),
    ("'Week 12'!$A$1+LOG10(2)+ATAN2(1,1)", True),
    ('"A5 and B$6"&$C$7', True),
    ("SUM($A:$A)+SUM($3:$3)", True),
    ("A5", False), ("$A5", False), ("A$5", False), ("SUM(A:A)", False), ("SUM(3:$3)", False),
    ("'T (calc)'!H5", False), ("Sheet2!$A$1+B2", False),
])
def test_position_free(formula, same):
    assert position_free(formula) is same


def test_a_formula_typed_over_one_row_is_not_taken_for_the_tables(book, untouched, tmp_path):
    """A member's own formula over one result cell (``=420``) next to an inserted row: the row gets the
    formula most rows hold, not the neighbour's."""
    def change(x: str) -> str:
        m = _cell(x, "H6")
        x = x[:m.start()] + f'<c r="H6"{m.group(1) or ""}><f>{untouched["H6"]}</f></c>' + x[m.end():]
        return _empty(_empty(_empty(x, "H7"), "N7"), "O7")

    report = recalc_here(_edited(book, tmp_path, change), tmp_path / "out.xlsx")
    formulas = openpyxl.load_workbook(tmp_path / "out.xlsx")["Travellers"]
    assert formulas["H7"].value == formulas["H8"].value and "ROW()" in formulas["H7"].value
    values = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Travellers"]
    assert {k: values[k].value for k in untouched} == untouched and report.ok


def test_a_row_whose_inputs_are_formulas_is_given_its_results_too(book, untouched, tmp_path):
    """The formulas counted are the result cells' own: a row typed as formulas (``=1+0``) is not skipped."""
    inputs = openpyxl.load_workbook(book)["Travellers"]

    def change(x: str) -> str:
        for col in "ABC":
            m = _cell(x, f"{col}7")
            x = x[:m.start()] + f'<c r="{col}7"{m.group(1) or ""}><f>{inputs[f"{col}7"].value}+0</f></c>' + x[m.end():]
        return _empty(_empty(_empty(x, "H7"), "N7"), "O7")

    report = recalc_here(_edited(book, tmp_path, change), tmp_path / "out.xlsx")
    assert report.ok and report.warnings and report.warnings[0].startswith("Travellers!H7: ")
    values = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Travellers"]
    assert {k: values[k].value for k in untouched} == untouched


def test_past_the_bound_nothing_is_filled_and_the_first_row_is_named(book, tmp_path, monkeypatch):
    from xlbridge.batch.write import inserted

    monkeypatch.setattr(inserted, "MAX_FILLED_ROWS", 1)  # (1,000 rows: the work stays small whatever the upload)
    path = _edited(book, tmp_path, lambda x: _empty(_empty(x, "H7"), "H9"))
    report = recalc_here(path, tmp_path / "out.xlsx")
    assert not report.warnings and [(e.cell, e.code) for e in report.errors] == [("H7", "layout")]
