"""The guard as a gate (issue 51): nothing reads an upload before the guard has scanned it, recalc's four stages
run once each and in order, and the ranges an upload declares are bounded by what its sheets hold.

Expected values: the issue's own cases (a 20 KB book declaring ``'S'!$A$1:$A$1048576`` and
``'S'!$B$1:$XFD$1048576`` over 2,000 values; a part of 20 million ``<row r="5"/>``), Excel's limits
(1,048,576 rows) and ECMA-376's tables (a table's ``tableColumns`` are its range's columns, one each).
"""

from __future__ import annotations

import os
import zipfile

import openpyxl
import pytest
from openpyxl.worksheet.table import Table, TableColumn
from server_helpers import read_member, rebuild

from xlbridge import WorkbookError
from xlbridge.batch import recalc
from xlbridge.batch.guard import gate
from xlbridge.batch.guard.gate import MAX_RESULT_COLUMNS, CheckedBook, check_upload
from xlbridge.batch.read import book as read_stage
from xlbridge.batch.read import capacity
from xlbridge.batch.recalc import recalc_workbook
from xlbridge.core.sheet import EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAIRS = os.path.join(ROOT, "workbooks", "examples", "pairs.xlsx")


def names_book(path, rows: int, results: str = "'S'!$B$1:$XFD$1048576", times: int = 1,
               capacity_ref: str = "'S'!$A$1:$A$1048576", extra_cells: str = "") -> str:
    """The issue's book: values in column A only, the template contract's names over the whole sheet."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, rows + 1):
        ws.cell(r, 1, r)
    if extra_cells:
        ws[extra_cells] = 1
    wb.save(path)
    names = (f'<definedNames><definedName name="XLBRIDGE_CAPACITY" localSheetId="0">{capacity_ref}</definedName>'
             f'<definedName name="XLBRIDGE_RESULTS" localSheetId="0">{",".join([results] * times)}</definedName>'
             f'</definedNames>')
    workbook = read_member(path, "xl/workbook.xml").decode()
    workbook = workbook.replace("<calcPr", names + "<calcPr", 1) if "<calcPr" in workbook else workbook.replace(
        "</workbook>", names + "</workbook>")
    return str(rebuild(path, str(path) + ".named.xlsx", replace={"xl/workbook.xml": workbook.encode()}))


def _check(path, tmp_path):
    import tempfile

    snapshot = os.path.join(tempfile.mkdtemp(dir=tmp_path), "snapshot.xlsx")
    return check_upload(path, snapshot, name=os.path.basename(path))[0]


# ----------------------------------------------------------------------------------------------- the gate


def test_a_checked_book_is_made_by_the_guard_only(tmp_path):
    book = _check(PAIRS, tmp_path)
    assert isinstance(book, CheckedBook) and book.name == "pairs.xlsx"
    with pytest.raises(TypeError, match="made by the guard only"):
        CheckedBook(PAIRS, "pairs.xlsx", book.info, book.areas)
    with pytest.raises(TypeError, match="made by the guard only"):
        CheckedBook(PAIRS, "pairs.xlsx", book.info, book.areas, object())
    with pytest.raises(TypeError, match="CheckedBook"):
        read_stage.read_book(PAIRS)  # a path: never read
    import dataclasses

    forged = dataclasses.replace(book, path=PAIRS)  # (the token copied along: a CheckedBook, but not one issued)
    with pytest.raises(TypeError, match="CheckedBook"):
        read_stage.read_book(forged)
    # a copy the run makes of it (the inserted rows' formulas) is the same checked book at another path, beside it
    beside = os.path.join(os.path.dirname(book.path), "filled.xlsx")
    assert book.replaced(beside).areas == book.areas and book.replaced(beside).issued
    with pytest.raises(ValueError, match="beside it"):
        book.replaced(PAIRS)
    with pytest.raises(ValueError, match="beside it"):
        forged.replaced(beside)


def test_the_template_areas_are_kept_as_declared(tmp_path):
    """The shipped pairs example: its tables hold formulas to their last row, so nothing is clipped."""
    book = _check(PAIRS, tmp_path)
    with zipfile.ZipFile(PAIRS) as zf:
        workbook = zf.read("xl/workbook.xml")
    order = [sheet for sheet, _ in book.sheets]
    assert book.areas.capacity == tuple(gate.declared_areas(workbook, order))
    assert book.areas.printed == tuple(gate.declared_areas(workbook, order, capacity.PRINT_NAME))
    assert set(book.areas.results) == set(gate.declared_areas(workbook, order, capacity.RESULTS_NAME))
    assert ("Travellers", 4, 1, 10004, 16) in book.areas.capacity  # (from the header row: issue 52)


def test_the_issues_defined_names_are_clipped_to_the_sheet(tmp_path):
    path = names_book(tmp_path / "names.xlsx", 2000, times=2)
    book = _check(path, tmp_path)
    assert book.info.extents == (("xl/worksheets/sheet1.xml", 2000, 1),)
    assert book.areas.capacity == (("S", 1, 1, 2000, 1),)
    assert book.areas.results == (("S", 1, 2, 2000, 2),)  # (named twice: once)


@pytest.mark.parametrize("kind", ["XLBRIDGE_CAPACITY", "XLBRIDGE_PRINT", "XLBRIDGE_HEADER"])
def test_a_table_name_declared_twice_for_a_sheet_is_refused(tmp_path, kind):
    """A template declares one table a sheet; a name over the same sheet declared again (2,000 times, in the
    review's case) would have each copy searched: refused, naming the name and the sheet."""
    path = names_book(tmp_path / "twice.xlsx", 20)
    workbook = read_member(path, "xl/workbook.xml").decode()
    again = f'<definedName name="{kind}" localSheetId="0">\'S\'!$A$2:$A$1048576</definedName>'
    workbook = workbook.replace("</definedNames>", again * 2 + "</definedNames>")
    bad = rebuild(path, tmp_path / "twice2.xlsx", replace={"xl/workbook.xml": workbook.encode()})
    with pytest.raises(WorkbookError) as exc:
        _check(bad, tmp_path)
    assert str(exc.value) == (f"twice2.xlsx: refused: defined name {kind} is declared more than once for sheet S "
                              f"(a template declares one table a sheet)")


def test_result_cells_wider_than_a_table_are_refused_naming_the_name(tmp_path):
    # a cell at XFD makes the sheet's extent the whole width: the results name is refused, not searched
    path = names_book(tmp_path / "wide.xlsx", 50, extra_cells="XFD1")
    with pytest.raises(WorkbookError) as exc:
        _check(path, tmp_path)
    assert str(exc.value) == (f"wide.xlsx.named.xlsx: refused: defined name XLBRIDGE_RESULTS of sheet S names "
                              f"{EXCEL_MAX_COLUMNS - 1:,} result columns, more than the {MAX_RESULT_COLUMNS} a "
                              f"table's result cells may have")
    assert MAX_RESULT_COLUMNS == 256


@pytest.mark.parametrize("cells, extent", [
    ('<row r="3"><c r="C3"><v>1</v></c></row><row r="9"><c r="B9"><v>1</v></c></row>', (9, 3)),
    ('<row r="3"><c r="AA3"><v>1</v></c><c r="B30"><v>1</v></c></row>', (30, 27)),  # (a cell's own row counts)
    ('<row r="3"><c r="$A$3"><v>1</v></c></row>', (EXCEL_MAX_ROWS, EXCEL_MAX_COLUMNS)),  # (not plain: the sheet)
    # (a cell not plain, or without its address, never sorting last: still the whole sheet)
    ('<row r="9"><c r="B9"><v>1</v></c><c><v>2</v></c></row>', (EXCEL_MAX_ROWS, EXCEL_MAX_COLUMNS)),
    ('<row r="9"><c r="Z9"><v>1</v></c><c r="$A$1"><v>2</v></c></row>', (EXCEL_MAX_ROWS, EXCEL_MAX_COLUMNS)),
    ('<row><c><v>1</v></c></row>', (EXCEL_MAX_ROWS, EXCEL_MAX_COLUMNS)),
    ('<row r="2"/><row/><row/>', (4, 0)),  # (a row without its number follows the one before)
])
def test_the_scan_counts_each_sheets_extent(good, tmp_path, cells, extent):
    from server_helpers import MAIN

    part = "xl/worksheets/sheet1.xml"
    sheet = f'<worksheet xmlns="{MAIN}"><sheetData>{cells}</sheetData></worksheet>'.encode()
    book = _check(rebuild(good, tmp_path / "x.xlsx", replace={part: sheet}), tmp_path)
    assert dict((p, (r, c)) for p, r, c in book.info.extents)[part] == extent


def _with_tables(tmp_path, refs_and_columns):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 12):
        for c in range(1, 8):
            ws.cell(r, c, f"h{c}" if r == 1 else r * c)
    for i, (ref, columns) in enumerate(refs_and_columns, 1):
        t = Table(displayName=f"T{i}", ref=ref)
        t.tableColumns = [TableColumn(id=k + 1, name=f"h{k + 1}") for k in range(columns)]
        ws.add_table(t)
    path = tmp_path / "tables.xlsx"
    wb.save(path)
    return path


def test_a_table_wider_than_its_columns_is_refused_naming_it(tmp_path):
    path = _with_tables(tmp_path, [("A1:G11", 3)])
    with pytest.raises(WorkbookError) as exc:
        _check(path, tmp_path)
    assert str(exc.value) == ("tables.xlsx: damaged workbook: table T1 of sheet S: its range A1:G11 is 7 columns wide "
                              "but it declares 3 columns")


def test_overlapping_tables_are_refused_naming_them(tmp_path):
    path = _with_tables(tmp_path, [("A1:C11", 3), ("C5:D11", 2)])
    with pytest.raises(WorkbookError) as exc:
        _check(path, tmp_path)
    assert str(exc.value) == ("tables.xlsx: damaged workbook: table T2 of sheet S (C5:D11) overlaps table T1 "
                              "(A1:C11)")
    _check(_with_tables(tmp_path, [("A1:C11", 3), ("D1:E11", 2)]), tmp_path)  # side by side: fine


# ----------------------------------------------------------------------------------------------- the stages


def test_recalc_runs_guard_read_evaluate_write_once_each_in_order(tmp_path, monkeypatch):
    """One run of a template with a row inserted into its table (so the read stage's rows feed the fill): the
    four stage entry points in order, once each; each template sheet's part searched once; and no zip of the
    run's copies opened before the guard passed it."""
    from recalc_helpers import typed

    entered: list = []
    opened: list = []
    passed: list = []

    def recording(stage, real):
        def run(*args, **kwargs):
            entered.append(stage)
            try:
                return real(*args, **kwargs)
            finally:
                if stage == "guard":
                    passed.append(True)
        return run

    monkeypatch.setattr(recalc, "check_upload", recording("guard", recalc.check_upload))
    monkeypatch.setattr(recalc, "read_book", recording("read", recalc.read_book))
    monkeypatch.setattr(recalc, "run_engine", recording("evaluate", recalc.run_engine))
    monkeypatch.setattr(recalc, "_write_results", recording("write", recalc._write_results))
    searched: list = []
    real_rows = capacity._rows
    monkeypatch.setattr(capacity, "_rows", lambda xml: searched.append(len(xml)) or real_rows(xml))
    real_init = zipfile.ZipFile.__init__

    def watching(self, file, *args, **kwargs):
        name = os.fspath(file) if isinstance(file, (str, os.PathLike)) else getattr(file, "name", None)
        if isinstance(name, str) and os.path.basename(name).startswith(("upload", "filled", "workbook")):
            opened.append((os.path.basename(name), "guard" in entered and not passed))
            assert passed or "guard" in entered, f"{name} opened before the guard"
        return real_init(self, file, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "__init__", watching)
    # two results typed into the table; row 6's result cells emptied, as in a row a member inserted (given their
    # formulas by the evaluate stage from the read stage's rows)
    book = typed(os.path.join(ROOT, "workbooks", "pairs.xlsx"), tmp_path / "in.xlsx",
                 {"Travellers": {"A5": 1, "B5": 1, "C5": 11, "D5": "4S", "E5": "N", "F5": 10, "A6": 1, "B6": 2,
                                 "C6": 12, "D6": "3NT", "E6": "S", "F6": 9, "H6": None, "N6": None, "O6": None}})
    report = recalc_workbook(book, tmp_path / "out.xlsx", isolate=False)
    assert [w.split(":")[0] for w in report.warnings if "inserted into the table" in w] == ["Travellers!H6"]
    assert entered == ["guard", "read", "evaluate", "write"], entered
    assert opened and opened[0] == ("upload.xlsx", True)  # (the first open is the guard's own scan)
    assert all(inside or passed for _n, inside in opened)
    sheets_with_areas = len({a[0] for a in gate.declared_areas(
        read_member(book, "xl/workbook.xml"), [s for s in openpyxl.load_workbook(book, read_only=True).sheetnames])
        + gate.declared_areas(read_member(book, "xl/workbook.xml"),
                              openpyxl.load_workbook(book, read_only=True).sheetnames, capacity.PRINT_NAME)})
    assert 0 < len(searched) <= sheets_with_areas, (searched, sheets_with_areas)
    assert report.formula_cells > 0


@pytest.mark.parametrize("times, rows", [(1, 2000), (2, 2000), (5, 20_000)])
def test_the_issues_defined_names_recalculate_in_small_work(tmp_path, times, rows):
    """The names over the whole sheet: the read stage searches the rows the sheet holds, each result column once."""
    path = names_book(tmp_path / "names.xlsx", rows, times=times)
    report = recalc_workbook(path, tmp_path / "out.xlsx", isolate=False)
    # (the one mistake: row 1 of the result column holds no formula, as the issue's run said)
    assert [(e.sheet, e.cell, e.code) for e in report.errors] == [("S", "B1", "layout")]
