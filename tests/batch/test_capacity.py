"""Rows typed below a template's capacity are never dropped in silence.

A sheet declares its input area with the sheet-scoped name XLBRIDGE_CAPACITY
(``xlbridge.templates.styling.capacity``); ``xlbridge recalc`` exits 1 with a line naming the
first cell below it. Expected values are hand-made: the books are built here cell by cell.
"""

from __future__ import annotations

import functools
from pathlib import Path

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from xlbridge.cli import main
from xlbridge.templates.styling import capacity
from recalc_helpers import sheet_parts, typed

ROOT = Path(__file__).resolve().parents[2]
SRC = Path(__file__).resolve().parents[2] / "workbooks" / "examples" / "pairs.xlsx"


def _book(path, sheet="Data", extra=None):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    for r in range(2, 6):
        ws[f"A{r}"] = r
    ws["C2"] = "=SUM(A2:A5)"
    capacity(ws, "A2:B5", "E2", "rows")
    for ref, v in (extra or {}).items():
        ws[ref] = v
    wb.save(path)
    return path


@pytest.mark.parametrize("sheet", ["Data", "Club's results"])
def test_value_below_the_area_exits_1_naming_the_cell(tmp_path, capsys, sheet):
    book = _book(tmp_path / "b.xlsx", sheet, {"B7": 3, "A9": "late row"})
    assert main(["recalc", str(book), "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 1
    out = capsys.readouterr().out
    shown = sheet if sheet.isalnum() else "'" + sheet.replace("'", "''") + "'"  # as Excel writes it
    assert f"{shown}!B7" in out and "rows 2 to 5" in out and "was not read" in out
    assert "A9" not in out  # one line per sheet: the first cell
    assert openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)[sheet]["C2"].value == 14


@pytest.mark.parametrize("extra", [{}, {"B5": 1}, {"D9": "a note beside, not below"}, {"F20": 1}])
def test_inside_the_area_or_beside_it_is_fine(tmp_path, capsys, extra):
    book = _book(tmp_path / "b.xlsx", extra=extra)
    assert main(["recalc", str(book), "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 0, \
        capsys.readouterr().out


def test_a_formatted_but_empty_cell_below_is_not_data(tmp_path, capsys):
    book = _book(tmp_path / "b.xlsx")
    wb = openpyxl.load_workbook(book)
    wb["Data"]["A8"].number_format = "0.00"  # a style, no value
    wb.save(book)
    assert main(["recalc", str(book), "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 0


def test_pairs_template_row_10005_is_reported(tmp_path, capsys):
    """The pairs template reads Travellers rows 5 to 10,004; a traveller typed on row 10,005 is named."""
    # (typed into the sheet's XML: an openpyxl load and save of the template takes seconds)
    src = typed(SRC, tmp_path / "pairs.xlsx", {"Travellers": {"A10005": 1, "B10005": 7, "C10005": 17, "G10005": 420}})
    assert main(["recalc", str(src), "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "Travellers!A10005" in out and "rows 5 to 10,004" in out


# every input table of every template (hand-listed from docs/templates.md): sheet -> its input area, from its header
# row (row 4: a row inserted directly below the header is inside it, issue 52)
DECLARED = {
    "pairs.xlsx": {"Travellers": "A4:P10004", "Pairs": "A4:E404"},  # (Pairs: A-E, its Private column included)
    "teams.xlsx": {"Boards": "A4:I5004", "Matches": "A4:D44", "Teams": "A4:E204"},  # (Teams: its Private column)
    "handicap.xlsx": {"Handicaps": "A4:C504", "NewTeams": "A4:D204", "Results": "A4:F1004"},
    "lehman.xlsx": {"Ledger": "A4:G10004", "Chart": "K4:K12"},
    "instant.xlsx": {"History": "A4:C5004", "Results": "A4:D10004"},
}


def test_every_input_table_declares_its_capacity():
    from openpyxl.utils.cell import range_boundaries

    import zipfile

    from lxml import etree

    from xlbridge.batch.read.sheetxml import MAIN_NS

    for name, sheets in DECLARED.items():
        path = SRC.parent / name
        wb = openpyxl.load_workbook(path, read_only=True)  # (the names; the rules from the sheets' XML)
        parts = sheet_parts(path)
        found = {}
        with zipfile.ZipFile(path) as z:
            for ws in wb.worksheets:
                dn = ws.defined_names.get("XLBRIDGE_CAPACITY")
                if dn is not None:
                    found[ws.title] = dn.attr_text.split("!")[1].replace("$", "")
                    _, _, c2, r2 = range_boundaries(found[ws.title])
                    root = etree.fromstring(z.read(parts[ws.title]))
                    rules = [f.text or "" for f in root.iterfind(
                        f"{{{MAIN_NS}}}conditionalFormatting/{{{MAIN_NS}}}cfRule/{{{MAIN_NS}}}formula")]
                    assert any(f"${r2 + 1}:" in r and r.startswith("COUNTA(") for r in rules), (name, ws.title)
        wb.close()
        assert found == sheets, name


@pytest.mark.parametrize("name", list(DECLARED))
def test_each_template_reports_a_row_below_its_capacity(tmp_path, capsys, name):
    """A value on the row below each input table of the template (every table at once, one line each; the pairs
    Travellers table has its own test above): each table's first cell below is named."""
    from openpyxl.utils.cell import range_boundaries

    from openpyxl.utils import get_column_letter

    below = {}
    for sheet, area in DECLARED[name].items():
        if (name, sheet) != ("pairs.xlsx", "Travellers"):
            c1, _, _, r2 = range_boundaries(area)
            below[sheet] = f"{get_column_letter(c1)}{r2 + 1}"
    src = typed(SRC.parent / name, tmp_path / name, {sheet: {ref: 1} for sheet, ref in below.items()})
    assert main(["recalc", str(src), "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert below and all(f"{sheet}!{ref}" in out for sheet, ref in below.items()), out  # the first cell below


# the filled examples, and one empty template (the others' empty sheets are the same shapes)
SHIPPED_SHEETS = sorted(p.relative_to(ROOT / "workbooks").as_posix() for p in (ROOT / "workbooks" / "examples").glob("*.xlsx"))
SHIPPED_SHEETS.append("pairs.xlsx")


def _sheet_parts(name):
    import zipfile

    with zipfile.ZipFile(ROOT / "workbooks" / name) as z:
        return [n for n in z.namelist() if n.startswith("xl/worksheets/sheet")]


#: (workbook, sheet part): one test each and half the areas (so that each takes seconds and they share the cores)
SHIPPED_PARTS = [(name, part) for name in SHIPPED_SHEETS for part in _sheet_parts(name)]
AREAS = 6


def test_the_byte_search_covers_every_example_and_an_empty_template():
    assert len(SHIPPED_SHEETS) >= 6 and "examples/pairs.xlsx" in SHIPPED_SHEETS
    assert all(any(n == name for n, _ in SHIPPED_PARTS) for name in SHIPPED_SHEETS)
    # the calculation sheets' array formulas are among the sheets searched
    import zipfile

    from xlbridge.batch.read import capacity as cap

    for name in SHIPPED_SHEETS:
        with zipfile.ZipFile(ROOT / "workbooks" / name) as z:
            assert sum(len(cap.array_ranges_in(z.read(p))) for p in _sheet_parts(name)) >= 2, name


@functools.lru_cache(maxsize=2)
def _parsed(book: str, part: str):
    """(the part's bytes, the parser's reading of them): both halves of a part's test read it once."""
    import zipfile

    from xlbridge.batch.read.sheetxml import scan_sheet

    with zipfile.ZipFile(book) as z:
        xml = z.read(part)
    return xml, scan_sheet(xml)


@pytest.mark.parametrize("half", [0, 1])
@pytest.mark.parametrize("name, part", SHIPPED_PARTS)
def test_the_byte_search_of_rows_agrees_with_the_parser_on_every_shipped_sheet(name, part, half):
    """first_overflow and last_used_row read a sheet's rows by a search of its bytes (fast) and fall
    back to the XML parser; both readings give the same answers on every sheet of the shipped workbooks,
    for areas and computed values drawn at random (the parser is the independent reading). One test a
    sheet part and half of its six areas."""
    import random

    from xlbridge.batch.read import capacity as cap

    rnd = random.Random(f"7 {name} {part} {half}")
    book = str(ROOT / "workbooks" / name)
    fast_rows = cap._rows
    checked = arrays = 0
    try:
        xml, layout = _parsed(book, part)  # the parser's reading, once per sheet (and process)
        assert cap.array_ranges_in(xml) == layout.array_ranges, (book, part)
        arrays += len(layout.array_ranges)
        formulas = sorted(layout.formula_cells) or [(1, 1)]
        once = cap.sheet_rows(xml)  # (the rows found once, as recalc shares them between both)
        byte_arrays = cap.array_ranges_in(xml)
        for _ in range(AREAS // 2):
            r1 = rnd.randint(1, 40)
            area = ("S", r1, rnd.randint(1, 5), rnd.choice([r1 + 5, r1 + 200, 10_004]), rnd.randint(5, 30))
            values = {k: rnd.choice([None, "", 1]) for k in rnd.sample(formulas, min(5, len(formulas)))}
            cap._rows = fast_rows
            fast = (cap.first_overflow(xml, area), cap.last_used_row(xml, area, values))
            assert (cap.first_overflow(once, area), cap.last_used_row(once, area, values)) == fast
            cap._rows = lambda _xml: None
            slow = (cap.first_overflow(xml, area, layout), cap.last_used_row(xml, area, values, layout))
            assert fast == slow, (book, part, area)
            # as recalc splits it (the constants' row found before the values, by the part's bytes;
            # the last non-blank result's row from the engine's process), and as cap.AreaResults
            # gives it: the row the values of every formula and array cell give, as the engine has them
            cap._rows = fast_rows
            every = {pos: rnd.choice([None, "", 1, "x"]) for pos in layout.formula_cells}
            every.update({(r, c): rnd.choice([None, "", 2]) for r1_, c1_, r2_, c2_ in layout.array_ranges
                          for r in range(r1_, r2_ + 1) for c in range(c1_, c2_ + 1)})
            whole = cap.last_used_row(once, area, every)
            split = max(cap.last_used_row(once, area, cap.AreaResults(0, byte_arrays)),
                        cap.last_result_row(every, area))
            results = cap.AreaResults.of(every, area, layout.array_ranges)
            assert split == cap.last_used_row(once, area, results) == whole, (book, part, area)
            checked += 1
    finally:
        cap._rows = fast_rows


def test_a_result_longer_than_its_array_range_is_reported_not_cut_in_silence(tmp_path):
    """An array formula over 5 rows whose function gives 10 (a session with more pairs than the Ranking
    has rows): Excel would show the first 5 and drop the rest; the run names the range and exits 1."""
    from openpyxl.worksheet.formula import ArrayFormula

    from xlbridge.batch.recalc import recalc_workbook

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = ArrayFormula("A1:A5", "=TEN()")
    ws["C1"] = ArrayFormula("C1:C10", "=TEN()")  # room for all: no report
    wb.save(tmp_path / "cut.xlsx")
    report = recalc_workbook(str(tmp_path / "cut.xlsx"), str(tmp_path / "cut-out.xlsx"),
                             functions={"TEN": lambda: [[i] for i in range(1, 11)]})
    assert not report.ok
    assert [(e.sheet, e.cell, e.code, e.message) for e in report.errors] == [
        ("Sheet", "A1", "capacity", "TEN gives 10 rows, more than the 5 rows of this range (A1:A5): the rest are "
                                     "not shown; give the table more rows")]
    values = openpyxl.load_workbook(report.output, data_only=True).active
    assert [values[f"A{r}"].value for r in range(1, 6)] == [1, 2, 3, 4, 5]
    assert [values[f"C{r}"].value for r in range(1, 11)] == list(range(1, 11))


@given(st.lists(st.sampled_from([b'<mergeCell ref="A1:B2"/>', b"<x:mergeCell ref='C3:D4'/>", b"mergeCell", b"<", b"x:",
                                 b"<ns12.long-prefix:mergeCell ref='G7:H8'/>", b"ns12.long-prefix:",
                                 b"<row r=\"1\">", b"<mergeCells>", b" ref=\"E5:F6\"/>", b"<mergeCell", b"a", b">"]),
                max_size=12))
def test_merged_ranges_searched_from_the_first_merge_are_those_of_the_whole_part(pieces):
    # the search starts at the "<" before the first "mergeCell": the matches of a search from the start
    from xlbridge.batch.read.capacity import _MERGE, _merged_ranges
    from xlbridge.batch.cells import parse_range

    data = b"".join(pieces)
    whole = [parse_range((m.group(1) or m.group(2) or b"").decode()) for m in _MERGE.finditer(data)]
    assert _merged_ranges(data) == whole


def test_a_book_whose_table_starts_below_its_header_names_a_row_between_them(tmp_path, capsys):
    """A book made before issue 52 declares its table from its first row, the header the row above: a row inserted
    directly below the header moved the table's ranges (and the declared area) down, outside them; ``xlbridge
    recalc`` names it (exit 1). A template now declares its table from the header row (:func:`capacity`), and
    reads the row below the header as any other (tests/templates/test_row_edits.py, in LibreOffice)."""
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws["A1"], ws["B1"] = "Board", "Score"
    ws["A2"] = 7  # (the inserted row: the table's ranges start at row 3 now)
    for r in range(3, 6):
        ws[f"A{r}"] = r
    ws["C3"] = "=SUM(A3:A6)"
    ws.defined_names["XLBRIDGE_CAPACITY"] = DefinedName("XLBRIDGE_CAPACITY", attr_text="'Data'!$A$3:$B$6")
    ws.defined_names["XLBRIDGE_HEADER"] = DefinedName("XLBRIDGE_HEADER", attr_text="'Data'!$A$1:$B$1")
    wb.save(tmp_path / "old.xlsx")
    assert main(["recalc", str(tmp_path / "old.xlsx"), "-o", str(tmp_path / "out.xlsx"), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "Data!A2" in out and "between the table's header (row 1) and its first row (3)" in out
    # declared from the header row, the same rows are one table: nothing between, nothing named
    ws.defined_names["XLBRIDGE_CAPACITY"] = DefinedName("XLBRIDGE_CAPACITY", attr_text="'Data'!$A$1:$B$6")
    wb.save(tmp_path / "new.xlsx")
    assert main(["recalc", str(tmp_path / "new.xlsx"), "-o", str(tmp_path / "out2.xlsx"), "--no-progress"]) == 0, \
        capsys.readouterr().out
