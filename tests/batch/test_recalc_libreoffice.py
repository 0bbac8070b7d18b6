"""xlbridge recalc agrees with LibreOffice's headless recalculation on cells without xlbridge functions.

LibreOffice runs through the shared ``libreoffice`` fixture (tests/conftest.py; .ci/run installs it).
The workbook is a committee-style pairs sheet (COUNTIFS matchpointing, SUMIF totals, RANK, IFERROR, INDEX/MATCH, text) plus cells using a custom
function, which LibreOffice does not know and which are left out of the comparison. Matchpoints are
also checked against a brute-force count written here.
"""

import random
import re
import shutil
from pathlib import Path

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula
from recalc_helpers import recalculated

from xlbridge.batch.recalc import recalc_workbook
from xlbridge.batch.cells import parse_range
from xlbridge.templates.mirror import CALC_SUFFIX

ROOT = Path(__file__).resolve().parents[2]


def libreoffice_recalc(libreoffice, src):
    """``src`` opened in headless LibreOffice with 'always recalculate on load' and saved as .xlsx (the
    shared ``libreoffice`` fixture: once per run and content, on one profile)."""
    return libreoffice(src, "xlsx", recalc=True) / (Path(src).stem + ".xlsx")


def test_libreoffice_recalculates_what_it_is_asked_to(tmp_path, libreoffice):
    """The comparisons below mean something only if LibreOffice computes the formulas itself: a formula whose
    stored value is stale (``=A1*21`` stored as 7) shows 42 when LibreOffice recalculates on load, and the
    stored 7 when it shows the file's values (the ``libreoffice`` fixture's two modes)."""
    import zipfile

    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["A2"] = 2, "=A1*21"
    wb.save(tmp_path / "made.xlsx")
    with zipfile.ZipFile(tmp_path / "made.xlsx") as zin, zipfile.ZipFile(tmp_path / "stale.xlsx", "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                assert data.count(b"<f>A1*21</f><v></v>") == 1, data  # (openpyxl stores no value)
                data = data.replace(b"<f>A1*21</f><v></v>", b"<f>A1*21</f><v>7</v>")
            zout.writestr(info, data)
    shown = openpyxl.load_workbook(libreoffice(tmp_path / "stale.xlsx", "xlsx") / "stale.xlsx", data_only=True)
    assert shown.active["A2"].value == 7
    assert openpyxl.load_workbook(libreoffice_recalc(libreoffice, tmp_path / "stale.xlsx"),
                                  data_only=True).active["A2"].value == 42


def build_pairs(path, rows=60, boards=6, seed=7):
    rnd = random.Random(seed)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Travellers"
    ws.append(["Board", "NS", "EW", "Score NS", "MP NS", "MP EW", "Double"])
    pairs = 10
    data = []
    for i in range(rows):
        board = i % boards + 1
        ns, ew = rnd.sample(range(1, pairs + 1), 2)
        score = rnd.choice([-200, -100, -50, 50, 110, 140, 170, 420, 450, 620, 650])
        data.append((board, ns, ew, score))
    n = rows + 1
    for r, (board, ns, ew, score) in enumerate(data, start=2):
        ws.append([board, ns, ew, score])
        ws[f"E{r}"] = (f"=2*COUNTIFS($A$2:$A${n},A{r},$D$2:$D${n},\"<\"&D{r})"
                       f"+COUNTIFS($A$2:$A${n},A{r},$D$2:$D${n},D{r})-1")
        ws[f"F{r}"] = f"=2*(COUNTIF($A$2:$A${n},A{r})-1)-E{r}"
    ws["G2"] = ArrayFormula(f"G2:G{n}", f"=DOUBLE(E2:E{n})")
    rk = wb.create_sheet("Ranking")
    rk.append(["Pair", "Total MP", "Top", "Percentage", "Rank", "Label", "Best", "Safe", "Custom"])
    for p in range(1, pairs + 1):
        r = p + 1
        rk.append([p])
        rk[f"B{r}"] = f"=SUMIF(Travellers!$B$2:$B${n},A{r},Travellers!$E$2:$E${n})" \
                      f"+SUMIF(Travellers!$C$2:$C${n},A{r},Travellers!$F$2:$F${n})"
        rk[f"C{r}"] = f"=SUMPRODUCT(((Travellers!$B$2:$B${n}=A{r})+(Travellers!$C$2:$C${n}=A{r}))" \
                      f"*2*(COUNTIF(Travellers!$A$2:$A${n},Travellers!$A$2:$A${n})-1))"
        rk[f"D{r}"] = f"=IFERROR(ROUND(100*B{r}/C{r},2),\"\")"
        rk[f"E{r}"] = f"=RANK(D{r},$D$2:$D${pairs + 1})"
        rk[f"F{r}"] = f"=\"Pair \"&A{r}&IF(E{r}=1,\" (winner)\",\"\")"
        rk[f"H{r}"] = f"=IF(C{r}>0,B{r}/C{r},0)"
        rk[f"I{r}"] = f"=SUM(Travellers!G2:G{n})+A{r}"
    rk["G2"] = f"=INDEX($A$2:$A${pairs + 1},MATCH(MAX($D$2:$D${pairs + 1}),$D$2:$D${pairs + 1},0))"
    # as in the templates outside xlbridge functions (pairs' count of boards, teams' won-lost count)
    rk["J2"] = f"=COUNT(B2:B{pairs + 5})"
    rk["J3"] = f"=SUMPRODUCT(B2:B{pairs + 1},SIGN(D2:D{pairs + 1}-D5))"
    wb.save(path)
    return data


def values(path):
    wb = openpyxl.load_workbook(path, data_only=True)
    return {(ws.title, c.coordinate): c.value for ws in wb for row in ws.iter_rows() for c in row}


def test_matches_libreoffice(tmp_path, libreoffice):
    src = tmp_path / "pairs.xlsx"
    data = build_pairs(src)
    ours = values(recalc_workbook(str(src), functions={"DOUBLE": lambda col: [[2 * v] for (v,) in col]}).output)
    theirs = values(libreoffice_recalc(libreoffice, src))
    compared = 0
    for key, value in ours.items():
        sheet, cell = key
        if (sheet == "Travellers" and cell[0] == "G") or (sheet == "Ranking" and cell[0] == "I"):
            continue  # depends on the custom function
        other = theirs.get(key)
        if isinstance(value, float) or isinstance(other, float):
            assert other == pytest.approx(value, rel=1e-12, abs=1e-12), key
        else:
            assert other == value, key
        compared += 1
    assert compared > 400
    # and the matchpoints are right (brute force: 2 per score beaten, 1 per tie)
    ws = openpyxl.load_workbook(tmp_path / "pairs-recalculated.xlsx", data_only=True)["Travellers"]
    for r, (board, _, _, score) in enumerate(data, start=2):
        others = [s for j, (b, _, _, s) in enumerate(data, start=2) if b == board and j != r]
        assert ws[f"E{r}"].value == sum(2 if score > s else 1 if score == s else 0 for s in others)
        assert ws[f"G{r}"].value == 2 * ws[f"E{r}"].value


# Of the templates' formulas, those that neither call an xlbridge function nor read (through other
# formulas) a cell that one fills: handicap.xlsx 412 cells (its played-matches table); pairs.xlsx and
# teams.xlsx one cell each (a COUNT, a SUMPRODUCT of SIGN: both in build_pairs's sheet above);
# instant.xlsx and lehman.xlsx none. So LibreOffice recalculates handicap.xlsx here.
TEMPLATES = ["handicap.xlsx"]
MIN_COMPARED = {"handicap.xlsx": 400}
REF = re.compile(r"(?:('[^']+'|[A-Za-z_][\w.]*)!)?\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?")


def formula_nodes(path):
    """[(sheet, (r1, c1, r2, c2), formula text, [(sheet, r1, c1, r2, c2) referenced])]: one node per
    formula cell or array formula (an array's whole range), so dependence is decided per formula."""
    from openpyxl.utils import column_index_from_string as col

    nodes = []
    for ws in openpyxl.load_workbook(path):
        for row in ws.iter_rows():
            for c in row:
                v = c.value
                if isinstance(v, ArrayFormula):
                    nodes.append((ws.title, parse_range(v.ref), v.text))
                elif isinstance(v, str) and v.startswith("="):
                    nodes.append((ws.title, (c.row, c.column, c.row, c.column), v))
    out = []
    for sheet, area, text in nodes:
        refs = []
        for m in REF.finditer(re.sub(r'"[^"]*"', "", text)):
            other = m.group(1).strip("'") if m.group(1) else sheet
            r1, c1 = int(m.group(3)), col(m.group(2))
            r2, c2 = (int(m.group(5)), col(m.group(4))) if m.group(4) else (r1, c1)
            refs.append((other, r1, c1, r2, c2))
        out.append((sheet, area, text, refs))
    return out


def _dependent_on(nodes, calls):
    """The indexes of the formula nodes that call a function (``calls(text)``) or refer, directly or
    through other formulas, to a cell such a formula fills: a fixpoint over a grid of marked cells per
    sheet, each reference tested as one slice of it."""
    import numpy as np

    size = {}
    for sheet, (_, _, r2, c2), _, refs in nodes:
        rows, cols = size.get(sheet, (0, 0))
        size[sheet] = (max(rows, r2), max(cols, c2))
    grid = {sheet: np.zeros((rows + 1, cols + 1), dtype=bool) for sheet, (rows, cols) in size.items()}
    dependent = set()
    new = {i for i, (_, _, text, _) in enumerate(nodes) if calls(text)}
    while new:
        dependent |= new
        for i in new:
            sheet, (r1, c1, r2, c2), _, _ = nodes[i]
            grid[sheet][r1:r2 + 1, c1:c2 + 1] = True
        new = {i for i, (_, _, _, refs) in enumerate(nodes) if i not in dependent
               and any(s in grid and grid[s][r1:r2 + 1, c1:c2 + 1].any() for s, r1, c1, r2, c2 in refs)}
    return dependent


def test_dependence_follows_references_through_formulas():
    # A1 calls the function; B1 refers to A1; C5 to a range holding B1; D1 refers to E1 only (not dependent)
    nodes = [("S", (1, 1, 1, 1), "=PAIRS(1)", []),
             ("S", (1, 2, 1, 2), "=A1+1", [("S", 1, 1, 1, 1)]),
             ("T", (5, 3, 5, 3), "=SUM(S!B1:B9)", [("S", 1, 2, 9, 2)]),
             ("S", (1, 4, 1, 4), "=E1", [("S", 1, 5, 1, 5)]),
             ("S", (2, 4, 2, 4), "=T!C5*2", [("T", 5, 3, 5, 3)]),
             ("S", (3, 4, 3, 4), "=Z!A1", [("Z", 1, 1, 1, 1)])]
    assert _dependent_on(nodes, lambda text: "PAIRS(" in text) == {0, 1, 2, 4}


@pytest.mark.parametrize("name", TEMPLATES)
def test_templates_match_libreoffice_where_no_xlbridge_function(tmp_path, name, libreoffice):
    from xlbridge import udfs

    src = ROOT / "workbooks" / "examples" / name
    if not src.exists():
        pytest.skip(f"workbooks/{name} not built")
    ours = values(recalculated(src))  # (made once per run, shared with the template tests)
    theirs = values(libreoffice_recalc(libreoffice, src))
    nodes = formula_nodes(src)
    names = re.compile(r"\b(" + "|".join(map(re.escape, udfs.EXCEL_FUNCTIONS)) + r")\(")
    dependent = _dependent_on(nodes, lambda text: bool(names.search(text.upper())))
    from openpyxl.utils import get_column_letter

    compared = 0
    cells = [(sheet, r, c) for i, (sheet, (r1, c1, r2, c2), _, _) in enumerate(nodes) if i not in dependent
             for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]
    for sheet, r, c in cells:
        cell = (sheet, f"{get_column_letter(c)}{r}")
        a, b = ours.get(cell), theirs.get(cell)
        if a is None and sheet.endswith(CALC_SUFFIX):  # a hidden array's value is kept where it shows
            a = ours.get((sheet[: -len(CALC_SUFFIX)], cell[1]))
        if isinstance(a, float) or isinstance(b, float):
            assert b == pytest.approx(a, rel=1e-12, abs=1e-12), cell
        else:
            assert (a if a != "" else None) == (b if b != "" else None), cell
        compared += 1
    assert compared >= MIN_COMPARED[name], f"{name}: only {compared} formula cells compared with LibreOffice"


def test_row_positions_as_a_transposed_row_give_what_the_column_constant_gives(tmp_path, libreoffice):
    """The templates lay a table into a fixed range by ``IFERROR(INDEX(F(...), rows, cols), "")`` with
    the row positions written ``TRANSPOSE({1,2,...,n})`` (templates.styling.seq_column): LibreOffice
    gives what it gives for the column constant ``{1;2;...;n}``, and so does xlbridge recalc, with a value
    array as INDEX's first argument (as an xlbridge function's result is): values, blanks past the
    table's end, #N/A past the positions (written out by hand below)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, (a, b) in enumerate([(1, 2), (3, 4), (5, 6)], start=1):
        ws.cell(r, 1, a), ws.cell(r, 2, b)
    ws["D1"] = ArrayFormula("D1:E6", '=IFERROR(INDEX(A1:B3*1,{1;2;3;4;5},{1,2}),"")')
    ws["G1"] = ArrayFormula("G1:H6", '=IFERROR(INDEX(A1:B3*1,TRANSPOSE({1,2,3,4,5}),{1,2}),"")')
    book = tmp_path / "positions.xlsx"
    wb.save(book)
    theirs = openpyxl.load_workbook(libreoffice_recalc(libreoffice, book), data_only=True)["S"]
    ours = openpyxl.load_workbook(recalc_workbook(str(book)).output, data_only=True)["S"]
    expected = [[1, 2], [3, 4], [5, 6], ["", ""], ["", ""], ["#N/A", "#N/A"]]

    def block(sheet, first):
        got = [[sheet.cell(r, c).value for c in (first, first + 1)] for r in range(1, 7)]
        return [["" if v is None else v for v in row] for row in got]

    for sheet in (theirs, ours):
        assert block(sheet, 4) == block(sheet, 7) == expected


def test_index_with_arrays_of_positions_gives_the_cells_values(tmp_path, libreoffice):
    """``INDEX(range, {rows}, ...)`` picks several cells of a reference: Excel gives their values (a
    blank one as 0), which a formula around it adds, joins or tests. formulas 1.3.4 gave one-cell
    references instead (written as their Python text, summed as 0, refused by + and &): corrected in the
    registry (``xlbridge.batch.evaluate.registry.CORRECTIONS``). Worked by hand, and LibreOffice gives the same.
    A1:A3 = 1, 2, 3, A4 = "x", B1:B3 = 10, 20, 30, column C blank. Positions with a 0 (whole rows,
    which LibreOffice spreads) give #VALUE!: formulas took the first column there, a wrong number."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in (1, 2, 3):
        ws.cell(r, 1, r), ws.cell(r, 2, 10 * r)
    ws["A4"] = "x"
    ws["D1"] = ArrayFormula("D1:D3", "=INDEX(A1:C3,{1;2;3},3)")
    ws["E1"] = ArrayFormula("E1:E3", "=INDEX(A1:B3,{1;2;3},2)")
    ws["F1"], ws["F2"] = "=SUM(E1:E3)", "=SUM(INDEX(A1:B3,{1;2;3},2))"
    ws["F3"] = ArrayFormula("F3", "=SUM(INDEX(A1:B3,{1;2;3},2)*2)")
    ws["G1"] = ArrayFormula("G1:G4", '=INDEX(A1:A4,{1;2;3;4})&"!"')
    ws["H1"] = ArrayFormula("H1:H4", "=ISNUMBER(INDEX(A1:A4,{1;2;3;4}))")
    ws["I1"] = ArrayFormula("I1:I3", "=INDEX(A1:B3,{1;2;3},{2;1;2})+1")
    ws["J1"] = ArrayFormula("J1:K3", '=IFERROR(INDEX(A1:B3,{1;2;3},{1,2}),"")')
    ws["L1"], ws["L2"] = "=INDEX(A1:B3,2,2)", "=SUM(A1:INDEX(A1:A3,2))"  # one reference: as before
    # a blank cell picked stays blank for the formula around it (a cell showing it shows 0, column D)
    ws["M1"], ws["M2"] = "=COUNT(INDEX(A1:C3,{1;2;3},3))", "=COUNT(INDEX(A1:B3,{1;2;3},2))"
    ws["M3"] = ArrayFormula("M3", "=SUM(ISBLANK(INDEX(A1:C3,{1;2;3},3))*1)")
    ws["N1"] = ArrayFormula("N1:N3", '=INDEX(A1:C3,{1;2;3},3)&"y"')
    ws["O1"] = "=IFERROR(AVERAGE(INDEX(A1:C3,{1;2;3},3)),\"none\")"
    # an array of positions with a 0 (a whole row for each): #VALUE!, not formulas' first column
    ws["P1"] = ArrayFormula("P1:Q2", "=INDEX(A1:B3,{1;2},0)")
    book = tmp_path / "index.xlsx"
    wb.save(book)
    expected = {
        "D": [0, 0, 0], "E": [10, 20, 30], "F": [60, 60, 120], "G": ["1!", "2!", "3!", "x!"],
        "H": [True, True, True, False], "I": [11, 3, 31], "J": [1, 2, 3], "K": [10, 20, 30], "L": [20, 3],
        "M": [0, 3, 3], "N": ["y", "y", "y"], "O": ["none"],
    }
    theirs = openpyxl.load_workbook(libreoffice_recalc(libreoffice, book), data_only=True)["S"]
    report = recalc_workbook(str(book))
    assert {(e.cell, e.code) for e in report.errors} == {(c, "#VALUE!") for c in ("P1", "Q1", "P2", "Q2")}
    ours = openpyxl.load_workbook(report.output, data_only=True)["S"]
    for sheet in (ours, theirs):
        got = {col: [sheet[f"{col}{r}"].value for r in range(1, len(want) + 1)] for col, want in expected.items()}
        assert got == expected  # (LibreOffice writes TRUE after the first cell as 1: equal in Python)
    assert [type(ours[f"H{r}"].value) for r in range(1, 5)] == [bool] * 4
    assert [[theirs.cell(r, c).value for c in (16, 17)] for r in (1, 2)] == [[1, 10], [2, 20]]  # (whole rows)
