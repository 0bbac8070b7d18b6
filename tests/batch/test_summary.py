"""What crosses from the engine's process to the parent: a summary and the places of the patched parts.

At 100,000 traveller rows the engine's whole result (every value, every shown cell, every formula's
text) held a second time in the parent, and the patched parts pickled through the pipe, made the run's
process tree 1.3 GiB (2026-11-27); the engine's process now sends only what the report reads
(:class:`xlbridge.batch.evaluate.splice.EngineSummary`) and writes the patched parts into a file the parent
reads one at a time. These tests check that the summary is small where the run is clean, complete
where it is not, and that a place outside the file is refused.
"""
from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path

import openpyxl
import pytest
from recalc_helpers import recalc_here
from openpyxl.worksheet.formula import ArrayFormula

from xlbridge.batch.evaluate.child import EngineJob, run_engine
from xlbridge.batch.recalc import _part_reader, recalc_workbook, xlbridge_excel_functions
from xlbridge.batch.guard.safety import DEFAULT_LIMITS, check_workbook
from xlbridge import WorkbookError

ROOT = Path(__file__).resolve().parents[2]


def _formula_cells(path) -> dict:
    """{sheet: number of formula cells}, counted by openpyxl (a formula's text, or an array formula's
    first cell): the independent count."""
    from recalc_helpers import cells

    return {title: n for title, sheet in cells(path).items()  # (openpyxl's read-only reader, once a process)
            if (n := sum(1 for v in sheet.values()
                         if isinstance(v, ArrayFormula) or (isinstance(v, str) and v.startswith("="))))}


def _engine(path: Path, tmp_path: Path, isolate: bool):
    info = check_workbook(str(path))
    got: list = []
    copy = tmp_path / "engine" / "workbook.xlsx"
    copy.parent.mkdir()
    shutil.copyfile(path, copy)
    with open(tmp_path / "parts", "xb+", buffering=0) as fh:
        job = EngineJob(str(copy), info, xlbridge_excel_functions(), DEFAULT_LIMITS, path.name,
                        {s.upper(): s for s, _ in info.sheets}, {}, isolate=isolate, out=fh.fileno())
        summary, places = run_engine(job, early=got.append)
        size = os.fstat(fh.fileno()).st_size
        parts = {part: os.pread(fh.fileno(), n, start) for part, (start, n) in places.items()
                 if isinstance(places[part], tuple)}
    assert len(got) == 1  # (the report's callback: called once, before the parts were written)
    return info, summary, places, size, parts


@pytest.mark.parametrize("isolate", [True, False])
def test_a_clean_season_sends_counts_not_values(tmp_path, isolate):
    """The filled pairs example evaluates without an error: the summary names no cell and carries no
    formula's text, only the counts (equal to openpyxl's count of the formula cells), and the patched
    parts are places in the file, which hold the parts whole (each a worksheet XML document)."""
    from defusedxml import ElementTree as DET

    src = ROOT / "workbooks" / "examples" / "pairs.xlsx"
    info, summary, places, size, parts_read = _engine(src, tmp_path, isolate)
    assert all(not cells for cells in summary.values.values())
    assert all(not layout.formula_cells and not layout.cells for layout in summary.layouts.values())
    counted = _formula_cells(src)
    assert {s: n for s, n in summary.formula_cells.items() if n} == counted
    assert len(pickle.dumps(summary)) < 20_000  # (the whole result: megabytes)
    parts = dict(info.sheets)
    assert set(places) == {parts[s] for s in summary.layouts}
    assert all(isinstance(p, tuple) and p[0] + p[1] <= size for p in places.values())
    assert sum(p[1] for p in places.values()) == size  # each part written once, nothing else
    assert all(DET.fromstring(xml).tag.endswith("}worksheet") for xml in parts_read.values())


def test_the_summary_keeps_every_error_with_its_formula(tmp_path):
    """Errors are what the report names: each error cell is in the summary with its formula's text (and
    nothing else of the sheet); the report lists them as Excel shows them (#DIV/0! and #N/A)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 201):
        ws.cell(row=r, column=1, value=r)
        ws.cell(row=r, column=2, value=f"=A{r}*2")
    ws["C7"] = "=1/0"
    ws["C9"] = '=NA()'
    wb.save(tmp_path / "e.xlsx")
    _info, summary, _places, _size, _parts = _engine(tmp_path / "e.xlsx", tmp_path, True)
    assert sorted(summary.values["S"]) == [(7, 3), (9, 3)]
    assert summary.layouts["S"].formula_cells == {(7, 3): "1/0", (9, 3): "NA()"}  # (as the part writes them)
    assert summary.formula_cells == {"S": 202} and summary.written == {"S": 202}
    report = recalc_workbook(tmp_path / "e.xlsx", tmp_path / "e-out.xlsx")
    assert [(e.cell, e.code) for e in report.errors] == [("C7", "#DIV/0!"), ("C9", "#N/A")]
    assert report.formula_cells == 202


@pytest.mark.parametrize("place", [(0, 10**9), (-1, 3), (5, -1), ("0", 3), (0,), None, (True, 1)])
def test_a_part_placed_outside_the_file_is_refused_in_one_line(tmp_path, place):
    """The engine's process says where in the file each patched part is; the parent believes no place
    outside the file (nor anything but two whole numbers)."""
    with open(tmp_path / "parts", "xb+", buffering=0) as fh:
        fh.write(b"<worksheet/>" * 10)
        with pytest.raises(WorkbookError) as exc:
            _part_reader(fh.fileno(), place, "season.xlsx")()
    text = str(exc.value)
    assert "\n" not in text and "season.xlsx" in text and "internal error" in text
    assert str(tmp_path) not in text


def test_a_part_placed_in_the_file_is_read_back_whole(tmp_path):
    with open(tmp_path / "parts", "xb+", buffering=0) as fh:
        fh.write(b"abc<worksheet/>def")
        assert _part_reader(fh.fileno(), (3, 12), "b.xlsx")() == b"<worksheet/>"
        assert _part_reader(fh.fileno(), (0, 0), "b.xlsx")() == b""


def test_a_cut_result_and_an_error_are_named_where_they_show(tmp_path):
    """A hidden calculation sheet's array gives 10 rows for 5 (cut) and an error, both shown on a sheet
    in view by plain references, as the templates do: the summary keeps the shown cells that the report
    needs, and the report names the cells in view (the cuts at View!A1 and B1, the error at View!B2, where
    a reader sees them)."""
    wb = openpyxl.Workbook()
    view = wb.active
    view.title = "View"
    calc = wb.create_sheet("Calc")
    calc.sheet_state = "hidden"
    calc["A1"] = ArrayFormula("A1:A5", "=TEN()")
    calc["B1"] = ArrayFormula("B1:B5", "=1/(TEN()-2)")
    for r in range(1, 6):
        view[f"A{r}"] = f"=Calc!A{r}"
        view[f"B{r}"] = f"=Calc!B{r}"
    wb.save(tmp_path / "shown.xlsx")
    report = recalc_workbook(tmp_path / "shown.xlsx", tmp_path / "shown-out.xlsx",
                             functions={"TEN": lambda: [[i] for i in range(1, 11)]})
    got = sorted((e.sheet, e.cell, e.code) for e in report.errors)
    assert got == [("View", "A1", "capacity"), ("View", "B1", "capacity"), ("View", "B2", "#DIV/0!")], got
    values = openpyxl.load_workbook(report.output, data_only=True)["View"]
    assert [values[f"A{r}"].value for r in range(1, 6)] == [1, 2, 3, 4, 5]


def test_recalculated_sheets_larger_than_the_memory_limit_are_refused(tmp_path):
    """The engine's process writes the patched sheets into a file: together they are bounded by the memory
    limit, as when it held them all. Four sheets of 100 cells each showing a 32,767-character text make
    four parts of more than 3.2 MB each (100 x 32,767 bytes), 13 MB together: refused at a limit of
    8 MiB while writing the third sheet (2 x 3.3 MB < 8 MiB < 3 x 3.3 MB), naming it; nothing written.
    (In this process, where the address-space limit is not set: the bound is the same in the engine's.)"""
    from xlbridge.batch.guard.safety import SafetyLimits
    from xlbridge import WorkbookLimitError

    wb = openpyxl.Workbook()
    src = wb.active
    src.title = "Src"
    src["A1"] = "x" * 32_767
    for i in range(4):
        ws = wb.create_sheet(f"S{i}")
        for r in range(1, 101):
            ws.cell(row=r, column=1, value="=Src!$A$1")
    wb.save(tmp_path / "big.xlsx")
    with pytest.raises(WorkbookLimitError) as exc:
        recalc_here(tmp_path / "big.xlsx", tmp_path / "out.xlsx", limits=SafetyLimits(max_memory=8 << 20))
    text = str(exc.value)
    assert text.startswith("big.xlsx: refused: memory limit of 8 MiB reached while writing sheet S2 ("), text
    assert "\n" not in text and not (tmp_path / "out.xlsx").exists()
    report = recalc_here(tmp_path / "big.xlsx", tmp_path / "out.xlsx",
                         limits=SafetyLimits(max_memory=16 << 20))  # (13 MB: within 16 MiB)
    assert report.ok and report.formula_cells == 400


def _raw_book(path, sheets):
    """A workbook whose sheets hold the given ``<sheetData>`` XML, each with a sheet-scoped XLBRIDGE_PRINT
    name over A1:C50 (openpyxl writes the package, the sheets' XML is replaced by hand)."""
    import io
    import zipfile

    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    for i, (title, _xml) in enumerate(sheets):
        ws = wb.active if i == 0 else wb.create_sheet(title)
        ws.title = title
        ws["Z1"] = 1
        ws.print_area = "A1:C50"
        ws.defined_names["XLBRIDGE_PRINT"] = DefinedName("XLBRIDGE_PRINT", attr_text=f"{title}!$A$1:$C$50")
    buf = io.BytesIO()
    wb.save(buf)
    ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item)
            for i, (_title, xml) in enumerate(sheets, start=1):
                if item.filename == f"xl/worksheets/sheet{i}.xml":
                    data = f'<?xml version="1.0" encoding="UTF-8"?>\n<worksheet {ns}><sheetData>{xml}</sheetData></worksheet>'.encode()
            zout.writestr(item, data)


def test_print_areas_follow_the_parts_arrays_not_their_look_alikes(tmp_path):
    """The print area ends at the last row holding a constant or a non-blank result (A1:C50 declared).
    The rows are found before the values by a search of the part's bytes, checked against the engine's
    arrays: an array formula's text inside a comment or a CDATA section is no array (the constant at
    C30 counts: rows 1-30), and ``t="&#97;rray"`` is one (its stale cached values in B3:B10 are results,
    blank now: rows 1 only). Worked by hand from the rule; found by an independent review."""
    import re
    import zipfile

    def sheet(t='t="array"', tail=""):
        rows = ['<row r="1"><c r="A1" t="inlineStr"><is><t>Title</t></is></c></row>',
                f'<row r="2"><c r="B2" t="str"><f {t} ref="B2:B10">IF(D2:D10="x",1,"")</f><v></v></c></row>']
        rows += [f'<row r="{r}"><c r="B{r}"><v>{r}</v></c></row>' for r in range(3, 11)]
        return "".join(rows) + tail

    _raw_book(tmp_path / "p.xlsx", [
        ("S0", sheet()),
        ("S1", sheet(t='t="&#97;rray"')),
        ("S2", sheet(tail='<row r="30"><c r="C30" t="inlineStr"><is><t><![CDATA[<f t="array" ref="C11:C40">]]>'
                          '</t></is></c></row>')),
        ("S3", sheet(tail='<!-- <f t="array" ref="C11:C40"> --><row r="30"><c r="C30"><v>7</v></c></row>')),
    ])
    report = recalc_workbook(tmp_path / "p.xlsx", tmp_path / "p-out.xlsx")
    assert report.ok, [str(e) for e in report.errors]
    with zipfile.ZipFile(report.output) as z:
        areas = re.findall(r'_xlnm.Print_Area"[^>]*>([^<]*)<', z.read("xl/workbook.xml").decode())
    assert areas == ["'S0'!$A$1:$C$1", "'S1'!$A$1:$C$1", "'S2'!$A$1:$C$30", "'S3'!$A$1:$C$30"]


def test_a_wide_table_prints_its_columns_in_use_and_a_sheet_with_a_drawing_all_of_them(tmp_path):
    """Issue 40 (the Lehman History: 52 weeks across, 10 in use): a print area 30 columns wide or wider
    (A1:AH40 here) is cut after its last column holding a constant or a non-blank result too. Sheet W: the
    header's constants reach E4, the results (an array formula over B5:AH8, as the templates write them, reading
    the sheet Data's B5:F8, and a formula in AJ6 giving "") are non-blank up to F: A1:F8. Sheet D: the same with a chart, which the
    columns do not bound: its columns are kept (A1:AH8). Worked by hand from the rule."""
    import re
    import zipfile

    from openpyxl.chart import BarChart, Reference
    from openpyxl.workbook.defined_name import DefinedName
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    data = wb.active
    data.title = "Data"
    for r in range(5, 9):
        for c in range(2, 7):
            data.cell(r, c, r * c)
    for title in ("W", "D"):
        ws = wb.create_sheet(title)
        ws["A1"] = "Title"
        for c, label in enumerate(("Player", "1", "2", "3", "4"), start=1):
            ws.cell(4, c, label)
        ws["B5"] = ArrayFormula("B5:AH8", '=IF(Data!B5:AH8="","",Data!B5:AH8)')
        ws["AJ6"] = '=""'
        ws.print_area = "A1:AH40"
        ws.defined_names["XLBRIDGE_PRINT"] = DefinedName("XLBRIDGE_PRINT", attr_text=f"'{title}'!$A$1:$AH$40")
    chart = BarChart()
    chart.add_data(Reference(wb["D"], min_col=2, min_row=5, max_row=8))
    wb["D"].add_chart(chart, "C12")
    wb.save(tmp_path / "wide.xlsx")
    report = recalc_workbook(tmp_path / "wide.xlsx", tmp_path / "wide-out.xlsx")
    assert report.ok, [str(e) for e in report.errors]
    with zipfile.ZipFile(report.output) as z:
        areas = re.findall(r'_xlnm.Print_Area"[^>]*>([^<]*)<', z.read("xl/workbook.xml").decode())
    assert areas == ["'W'!$A$1:$F$8", "'D'!$A$1:$AH$8"]
