"""xlbridge recalc: values, formulas kept, untouched members byte-identical, in-place, error report.

Workbooks are built here with openpyxl; expected values are worked out by hand in the test.
"""

import hashlib
import json
import os
import subprocess
import sys
import re
import zipfile

import numpy as np
import openpyxl
import pytest
from openpyxl.chart import BarChart, Reference
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.formula import ArrayFormula

from xlbridge import InputError, WorkbookError
from xlbridge.batch.recalc import default_output_path, recalc_workbook


def sha(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


# custom functions registered the way xlbridge.udfs.EXCEL_FUNCTIONS are: Excel-shaped arguments
def double(x):
    return x * 2


def squares(column):
    """n x 2: the value and its square, blank rows blank."""
    out = []
    for (v,) in column:
        out.append([None, None] if v is None else [v, v * v])
    return out


def picky(x):
    if x is None or x < 0:
        raise InputError(f"negative value: {x!r}", where="row 1")
    return x


FUNCS = {"DOUBLE": double, "SQUARES": squares, "PICKY": picky}


def build_book(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for i, (a, b) in enumerate([(1, 10), (2, 20), (3, 30), (None, None), (5, 50)], start=1):
        ws.cell(i, 1, a)
        ws.cell(i, 2, b)
    ws["C1"] = "=SUM(A1:A5)"
    ws["C2"] = '=IFERROR(1/0, "oops")'
    ws["C3"] = "=1/0"
    ws["C4"] = '=_xlfn.CONCAT("a", "b")'
    ws["C5"] = "=DOUBLE(A2)"
    ws["C6"] = "=A1>0"
    ws["C7"] = '=COUNTIF(A1:A5, ">"&A2)'
    ws["C8"] = "=PICKY(-1)"
    ws["C9"] = '=_xlfn.IFS(A1>0, "pos", TRUE, "neg")'
    ws["C10"] = "=AVERAGE(B1:B5)"
    ws["D1"] = ArrayFormula("D1:E5", "=SQUARES(A1:A5)")
    ws["F1"] = "plain text"
    ws["F2"] = 3.25
    dv = DataValidation(type="whole", operator="between", formula1="0", formula2="13")
    ws.add_data_validation(dv)
    dv.add("A1:A5")
    chart = BarChart()
    chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=5))
    ws.add_chart(chart, "H2")
    wb.defined_names["Scores"] = DefinedName("Scores", attr_text="Data!$B$1:$B$5")
    other = wb.create_sheet("Other Sheet")
    other["A1"] = "=Data!C1*2"
    other["A2"] = "=SUM(Data!D1:D5)"
    other["A3"] = "=SUM(Scores)"
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    d = tmp_path_factory.mktemp("recalc")
    src = build_book(str(d / "book.xlsx"))
    before = sha(src)
    report = recalc_workbook(src, functions=FUNCS)
    return src, before, report


def test_default_output_name_and_input_untouched(recalculated):
    src, before, report = recalculated
    assert report.output == src[: -len(".xlsx")] + "-recalculated.xlsx"
    assert default_output_path("workbooks/pairs.xlsx") == "workbooks/pairs-recalculated.xlsx"
    assert sha(src) == before
    assert report.backup is None


def test_cached_values_by_hand(recalculated):
    _, _, report = recalculated
    wb = openpyxl.load_workbook(report.output, data_only=True)
    ws, other = wb["Data"], wb["Other Sheet"]
    assert ws["C1"].value == 11  # 1+2+3+5
    assert ws["C2"].value == "oops"
    assert ws["C3"].value == "#DIV/0!"
    assert ws["C4"].value == "ab"
    assert ws["C5"].value == 4
    assert ws["C6"].value is True
    assert ws["C7"].value == 2  # 3 and 5 are > 2
    assert ws["C8"].value == "#VALUE!"
    assert ws["C9"].value == "pos"
    assert ws["C10"].value == 27.5  # (10+20+30+50)/4, blank ignored
    grid = [[ws.cell(r, c).value for c in (4, 5)] for r in range(1, 6)]
    assert grid == [[1, 1], [2, 4], [3, 9], [None, None], [5, 25]]
    assert other["A1"].value == 22
    assert other["A2"].value == 11
    assert other["A3"].value == 110
    assert ws["F1"].value == "plain text" and ws["F2"].value == 3.25


def test_formulas_still_there(recalculated):
    _, _, report = recalculated
    wb = openpyxl.load_workbook(report.output)
    ws = wb["Data"]
    assert ws["C1"].value == "=SUM(A1:A5)"
    assert ws["C5"].value == "=DOUBLE(A2)"
    assert isinstance(ws["D1"].value, ArrayFormula)
    assert ws["D1"].value.ref == "D1:E5" and ws["D1"].value.text == "=SQUARES(A1:A5)"
    assert wb["Other Sheet"]["A3"].value == "=SUM(Scores)"
    assert "Scores" in wb.defined_names


def test_other_members_byte_identical(recalculated):
    src, _, report = recalculated
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(report.output) as b:
        assert a.namelist() == b.namelist()
        changed = []
        for info in a.infolist():
            other = b.getinfo(info.filename)
            assert other.compress_type == info.compress_type
            assert other.date_time == info.date_time
            if a.read(info) != b.read(other):
                changed.append(info.filename)
        # the workbook part changes in its calcPr tag only (the values are current: issue 15)
        assert sorted(changed) == ["xl/workbook.xml", "xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"]
        calcpr = re.compile(rb"<calcPr[^>]*>")
        assert calcpr.sub(b"", a.read("xl/workbook.xml")) == calcpr.sub(b"", b.read("xl/workbook.xml"))
        assert any(n.startswith("xl/charts/") for n in a.namelist())
        # inside the worksheets, everything outside <sheetData> is unchanged
        for part in (p for p in changed if p.startswith("xl/worksheets/")):
            x, y = a.read(part), b.read(part)
            cut = lambda s: s[: s.index(b"<sheetData")] + s[s.index(b"</sheetData>"):]  # noqa: E731
            assert cut(x) == cut(y)
            assert b"<dataValidation" not in x or cut(x).count(b"<dataValidation") == cut(y).count(b"<dataValidation")


def test_unchanged_cells_byte_identical(recalculated):
    """Every <c> element of a non-formula cell is byte for byte what it was."""
    import re

    src, _, report = recalculated
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(report.output) as b:
        x, y = a.read("xl/worksheets/sheet1.xml"), b.read("xl/worksheets/sheet1.xml")
    cells = lambda s: {m.group(1): m.group(0) for m in re.finditer(rb'<c r="([A-Z]+[0-9]+)".*?(?:/>|</c>)', s)}  # noqa
    cx, cy = cells(x), cells(y)
    for ref in (b"A1", b"A2", b"B5", b"F1", b"F2"):
        assert cx[ref] == cy[ref]
    assert cx[b"C1"] != cy[b"C1"]


def test_error_report(recalculated):
    _, _, report = recalculated
    listed = {f"{e.sheet}!{e.cell}": e for e in report.errors}
    assert set(listed) == {"Data!C3", "Data!C8"}
    assert listed["Data!C3"].code == "#DIV/0!"
    assert listed["Data!C8"].code == "#VALUE!"
    assert "negative value: -1" in listed["Data!C8"].message
    assert str(listed["Data!C3"]).startswith("Data!C3: #DIV/0!")
    assert not report.ok
    summary = json.loads(report.to_json())
    assert summary["error_count"] == 2 and summary["ok"] is False


def test_in_place_atomic_with_backup(tmp_path):
    src = build_book(str(tmp_path / "book.xlsx"))
    original = open(src, "rb").read()
    report = recalc_workbook(src, in_place=True, functions=FUNCS)
    assert report.output == src and report.backup == src + ".bak"
    assert open(src + ".bak", "rb").read() == original
    assert openpyxl.load_workbook(src, data_only=True)["Data"]["C1"].value == 11
    assert sorted(os.listdir(tmp_path)) == ["book.xlsx", "book.xlsx.bak"]  # no temporary file left behind


def test_refuses_to_overwrite_input_without_in_place(tmp_path):
    src = build_book(str(tmp_path / "book.xlsx"))
    before = sha(src)
    with pytest.raises(WorkbookError, match="--in-place"):
        recalc_workbook(src, src, functions=FUNCS)
    assert sha(src) == before


def test_recalc_after_changing_inputs(tmp_path):
    src = build_book(str(tmp_path / "book.xlsx"))
    wb = openpyxl.load_workbook(src)
    wb["Data"]["A4"] = 4
    wb.save(src)
    out = recalc_workbook(src, str(tmp_path / "out.xlsx"), functions=FUNCS).output
    ws = openpyxl.load_workbook(out, data_only=True)["Data"]
    assert ws["C1"].value == 15
    assert [ws.cell(4, c).value for c in (4, 5)] == [4, 16]


def test_array_result_smaller_than_range_filled_like_excel(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = ArrayFormula("A1:B3", "=ONE()")
    ws["D1"] = ArrayFormula("D1:E3", "=ROWVEC()")
    ws["G1"] = ArrayFormula("G1:G3", "=TWO_ROWS()")
    wb.save(tmp_path / "a.xlsx")
    funcs = {"ONE": lambda: 7.0, "ROWVEC": lambda: [[1.0, 2.0]], "TWO_ROWS": lambda: [[1.0], [2.0]]}
    out = recalc_workbook(str(tmp_path / "a.xlsx"), functions=funcs).output
    ws = openpyxl.load_workbook(out, data_only=True).active
    assert [[ws.cell(r, c).value for c in (1, 2)] for r in (1, 2, 3)] == [[7, 7]] * 3
    assert [[ws.cell(r, c).value for c in (4, 5)] for r in (1, 2, 3)] == [[1, 2]] * 3
    assert [ws.cell(r, 7).value for r in (1, 2, 3)] == [1, 2, "#N/A"]


def test_numpy_results_and_text_escaping(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = ArrayFormula("A1:A2", "=NP()")
    ws["B1"] = '="<b> & "&CHAR(34)'
    wb.save(tmp_path / "n.xlsx")
    funcs = {"NP": lambda: np.array([[np.float64(0.1)], [np.int64(3)]])}
    out = recalc_workbook(str(tmp_path / "n.xlsx"), functions=funcs).output
    ws = openpyxl.load_workbook(out, data_only=True).active
    assert ws["A1"].value == 0.1 and ws["A2"].value == 3
    assert ws["B1"].value == '<b> & "'


def test_python_m_xlbridge_refuses_with_one_line(tmp_path):
    (tmp_path / "junk.xlsx").write_bytes(b"hello")
    junk = subprocess.run([sys.executable, "-m", "xlbridge", "recalc", "junk.xlsx", "--no-progress"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert junk.returncode == 2
    assert "not an Excel workbook" in junk.stderr and "Traceback" not in junk.stderr
    assert len(junk.stderr.strip().splitlines()) == 1


def test_shared_formulas_and_dynamic_array_metadata(tmp_path):
    """Excel writes shared formulas (<f t="shared">) and dynamic arrays (cm="1"); both are handled."""
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 4):
        ws.cell(r, 1, r * 10)
    wb.save(tmp_path / "base.xlsx")
    sheet = (
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
        '<row r="1"><c r="A1" t="n"><v>10</v></c><c r="B1"><f t="shared" ref="B1:B3" si="0">A1*2</f><v>0</v></c>'
        '<c r="C1" cm="1"><f t="array" ref="C1:C3">A1:A3+1</f><v>0</v></c></row>'
        '<row r="2"><c r="A2" t="n"><v>20</v></c><c r="B2"><f t="shared" si="0"/><v>0</v></c></row>'
        '<row r="3"><c r="A3" t="n"><v>30</v></c><c r="B3"><f t="shared" si="0"/></c></row>'
        '</sheetData></worksheet>'
    )
    src = tmp_path / "excel.xlsx"
    with zipfile.ZipFile(tmp_path / "base.xlsx") as zin, zipfile.ZipFile(src, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = sheet.encode() if info.filename == "xl/worksheets/sheet1.xml" else zin.read(info)
            zout.writestr(info.filename, data)
    report = recalc_workbook(str(src), functions={})
    assert report.ok
    ws = openpyxl.load_workbook(report.output, data_only=True).active
    assert [ws.cell(r, 2).value for r in (1, 2, 3)] == [20, 40, 60]
    assert [ws.cell(r, 3).value for r in (1, 2, 3)] == [11, 21, 31]
    with zipfile.ZipFile(report.output) as z:
        out = z.read("xl/worksheets/sheet1.xml").decode()
    assert '<c r="C1" cm="1"><f t="array" ref="C1:C3">A1:A3+1</f><v>11</v></c>' in out
    assert '<c r="B2"><f t="shared" si="0"/><v>40</v></c>' in out
    assert '<c r="C2"><v>21</v></c>' in out  # inserted: the spill cell had no <c> element


def test_cli_templates_build_and_check(tmp_path, capsys, monkeypatch):
    from xlbridge.cli import main

    templates = pytest.importorskip("xlbridge.templates")
    # one template is enough to test the command (building all five is the templates' own test)
    monkeypatch.setattr(templates.build, "TEMPLATES", {"handicap.xlsx": templates.TEMPLATES["handicap.xlsx"]})
    out = tmp_path / "wb"
    assert main(["templates", "--out", str(out), "--check"]) == 1  # nothing built yet: differences
    assert "handicap.xlsx" in capsys.readouterr().out
    assert main(["templates", "--out", str(out)]) == 0
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.xlsx")) == ["examples/handicap.xlsx",
                                                                                  "handicap.xlsx"]
    assert main(["templates", "--out", str(out), "--check"]) == 0


def test_quoted_sheet_names_and_list_of_arrays(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Results (A&B)"
    ws["A1"] = 5
    ws["B1"] = ArrayFormula("B1:C2", "=GRID(A1)")
    other = wb.create_sheet("Sum")
    other["A1"] = "=SUM('Results (A&B)'!B1:C2)"
    wb.save(tmp_path / "q.xlsx")
    funcs = {"GRID": lambda x: [np.array([x, 2 * x]), np.array([3 * x, 4 * x])]}
    report = recalc_workbook(str(tmp_path / "q.xlsx"), functions=funcs)
    assert report.ok
    out = openpyxl.load_workbook(report.output, data_only=True)
    ws = out["Results (A&B)"]
    assert [[ws.cell(r, c).value for c in (2, 3)] for r in (1, 2)] == [[5, 10], [15, 20]]
    assert out["Sum"]["A1"].value == 50


def test_blank_cells_of_referenced_ranges(tmp_path):
    """Blank cells inside referenced ranges get no engine node but still read as blanks (values by hand)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A3"], ws["B2"] = 4, 6, "x"  # A2, B1, B3 blank; column Z empty
    ws["D1"] = "=SUM(Z1:Z10)"  # a range with no cell at all: 0
    ws["D2"] = "=COUNTBLANK(A1:B3)"  # A2, B1, B3: 3
    ws["D3"] = "=COUNTA(A1:B3)"  # A1, A3, B2: 3
    ws["D4"] = "=SUM(A1:A3)*10+ROWS(A1:A3)"  # 10*10 + 3 = 103
    ws["D5"] = "=A2"  # one blank cell: 0, as in Excel
    ws["D6"] = '=IF(ISBLANK(A2), "blank", "not")'
    ws["D7"] = "=SUM(A1:A100000)"  # a block larger than the sheet's contents: 10
    ws["D8"] = "=WIDTH(A1:B3)"  # the custom function sees blanks as None
    ws["D9"] = "=COUNT(A1:C3)"  # C is beyond the used columns: 2
    wb.save(tmp_path / "blanks.xlsx")
    width = {"WIDTH": lambda rows: "|".join(",".join("_" if v is None else str(v) for v in row) for row in rows)}
    report = recalc_workbook(str(tmp_path / "blanks.xlsx"), functions=width, isolate=False)
    assert report.ok, [str(e) for e in report.errors]
    out = openpyxl.load_workbook(report.output, data_only=True).active
    assert [out.cell(r, 4).value for r in range(1, 10)] == [
        0, 3, 3, 103, 0, "blank", 10, "4.0,_|_,x|6.0,_", 2]


@pytest.mark.parametrize("name", ["O'Brien", "Club's results"])
def test_sheet_name_with_an_apostrophe(tmp_path, name):
    """Formulas on, and pointing at, a sheet such as "O'Brien" (Excel writes it 'O''Brien'!A1);
    the formula engine used to turn each of them into #REF!. Hand-worked: 2 + 3 = 5, 2 x 2 = 4."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = name
    ws["A1"], ws["A2"], ws["C1"], ws["C2"] = 2, 3, "=SUM(A1:A2)", "=A1*2"
    quoted = "'" + name.replace("'", "''") + "'"
    main = wb.create_sheet("Main")
    main["A1"] = f"=SUM({quoted}!C1:C2)"
    main["A2"] = f'=INDIRECT("{quoted}!A2")'
    wb.save(tmp_path / "q.xlsx")
    report = recalc_workbook(str(tmp_path / "q.xlsx"), str(tmp_path / "out.xlsx"))
    assert report.errors == ()
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)
    assert [out[name]["C1"].value, out[name]["C2"].value, out["Main"]["A1"].value, out["Main"]["A2"].value] == [
        5, 4, 9, 3]


def test_each_error_cell_lists_the_reason_of_its_own_formula(tmp_path):
    """Excel shows only #VALUE!; the recalc lists why, per formula. Expected reasons by the rules:
    a VP scale exists for 1 to 1,000 boards (xlbridge.core.teams.vp), and on the EBU scale a board
    played 3 times tops at 4 matchpoints (2 per result beaten), so 7 and -1 are both out of range."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["B1"], ws["B2"], ws["B3"], ws["B4"] = 5, 1_000_000, 7, -1
    ws["A1"] = "=VP(B1,B2)"
    ws["A2"] = "=MP_PERCENT(B3,3)"
    ws["A3"] = "=MP_PERCENT(B4,3)"
    ws["A4"], ws["A5"] = "=VP(5,1000000)", "=VP(5,0)"  # constants only: evaluated while compiling
    wb.save(tmp_path / "why.xlsx")
    report = recalc_workbook(str(tmp_path / "why.xlsx"), str(tmp_path / "why-out.xlsx"))
    got = {e.cell: (e.code, e.message) for e in report.errors}
    assert got["A1"] == ("#VALUE!", "VP: number of boards must be a whole number from 1 to 1,000, got 1000000")
    assert got["A2"][0] == "#VALUE!" and "matchpoints 7 are outside 0..4" in got["A2"][1]
    assert got["A3"][0] == "#VALUE!" and "matchpoints -1 are outside 0..4" in got["A3"][1]
    assert "-1" not in got["A2"][1] and " 7 " not in got["A3"][1]  # each cell its own reason only
    assert got["A4"][1] == got["A1"][1]
    assert got["A5"][1] == "VP: number of boards must be a whole number from 1 to 1,000, got 0"
