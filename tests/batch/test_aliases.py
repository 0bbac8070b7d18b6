"""Cells that only show a cell of an array (the templates' cells in view) are valued as the engine would.

``xlbridge.batch.read.aliases``: a formula ``=S!H5`` or ``=IFERROR(R,IF(ERROR.TYPE(R)=5,"",R))`` pointing into
an array range is valued after the engine from the array's value (and handed to the engine, one array
node per run of a column, when a formula reads it). Expected values: the stock formulas path
(``streamed=False``: openpyxl reads the book, the engine evaluates every cell itself), an independent
program here, on random workbooks (hypothesis) and on a hand-worked one (Law 78B: 420 points is 9
IMPs, 180 is 5). Also: the run reports an error once, at the cell in view, with its reason.
"""

from __future__ import annotations

import os

import openpyxl
import pytest
from recalc_helpers import recalc_here
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl.worksheet.formula import ArrayFormula

from test_engine_paths import _both, assert_paths_agree, constants
from xlbridge.batch.read.aliases import alias_of, alias_runs, alias_value, find_shown
from xlbridge.batch.cells import ExcelErrorValue, cell_ref
from xlbridge.templates.mirror import shows

ROWS = 6
ARRAYS = ["=IMPS(V!A1:A6)", '=IF(V!A1:A6>1,V!A1:A6,"")', "=V!A1:A6*2", "=ISNUMBER(V!B1:B6)", "=V!C1:C6",
          '=NEUBERG(V!A1:A6,8,"x")']


@st.composite
def books(draw):
    grid = {(r, c): draw(constants) for r in range(1, ROWS + 1) for c in range(1, 4)}
    arrays = draw(st.lists(st.sampled_from(ARRAYS), min_size=1, max_size=3))
    shown = []
    for r in range(1, ROWS + 1):
        for c in range(4, 7):
            if draw(st.integers(0, 3)):
                kind = draw(st.sampled_from(["plain", "guarded", "plain-here", "constant", "blank"]))
                col = draw(st.integers(1, len(arrays)))
                row = draw(st.integers(1, ROWS + 1))  # sometimes one past the array: a blank cell of C
                shown.append(((r, c), kind, (row, col)))
    readers = draw(st.lists(st.sampled_from(
        ["=SUM(D1:D6)", "=COUNTA(D1:F6)", '=IFERROR(E2*2,"e")', "=D3", "=COUNT(D2:D4)"]), max_size=2))
    return grid, arrays, shown, readers


def _build(path, spec):
    grid, arrays, shown, readers = spec
    wb = openpyxl.Workbook()
    v = wb.active
    v.title = "V"
    calc = wb.create_sheet("C calc")
    calc.sheet_state = "hidden"
    for (r, c), x in grid.items():
        if x is not None:
            v.cell(r, c).value = x
    for j, text in enumerate(arrays, start=1):
        calc.cell(1, j).value = ArrayFormula(f"{cell_ref(1, j)}:{cell_ref(ROWS, j)}", text)
    for (r, c), kind, (row, col) in shown:
        target = f"'C calc'!{cell_ref(row, col)}"
        v.cell(r, c).value = {"plain": f"={target}", "guarded": shows(target), "plain-here": f"=J{min(row, 3)}",
                              "constant": "=A1", "blank": "=Z9"}[kind]
    if any(kind == "plain-here" for _, kind, _ in shown):
        v["J1"] = ArrayFormula("J1:J3", "=A1:A3+1")  # an array on the sheet in view, shown next to it
    for i, text in enumerate(readers, start=1):
        v.cell(10 + i, 1).value = text
    v["K1"] = ArrayFormula("K1:K3", "='C calc'!A2")  # an array whose text is one reference: the engine's
    wb.save(path)


@settings(max_examples=int(os.environ.get("XLB_PATH_EXAMPLES", 25)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=books())
def test_showing_cells_get_the_stock_engines_values(tmp_path, spec):
    path = tmp_path / "book.xlsx"
    _build(path, spec)
    assert_paths_agree(path)


def test_hand_worked_scores_shown_from_a_hidden_sheet(tmp_path, monkeypatch):
    from xlbridge.batch.read import aliases

    added, taken = [], []
    add, take = aliases.AliasIndex.add, aliases.AliasIndex.take
    monkeypatch.setattr(aliases.AliasIndex, "add", lambda self, *a: (added.append(a[:2]), add(self, *a))[1])
    monkeypatch.setattr(aliases.AliasIndex, "take", lambda self, *a: (lambda got: (taken.extend(got), got)[1])(take(self, *a)))
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Scores"
    ws["A1"], ws["A2"] = 420, 180  # Law 78B: 9 and 5 IMPs
    calc = wb.create_sheet("Scores (calc)")
    calc["B1"] = ArrayFormula("B1:B3", '=IF(Scores!A1:A3="","",IMPS(Scores!A1:A3))')
    for r in (1, 2, 3):
        ws[f"B{r}"] = shows(f"'Scores (calc)'!B{r}")
        ws[f"C{r}"] = f"='Scores (calc)'!B{r}"
    ws["D1"] = "=SUM(B1:B3)"  # read by the engine: the cells of B go to it as one run
    path = tmp_path / "scores.xlsx"
    wb.save(path)
    (values, _, _), (stock, _, _) = _both(path)
    assert values == stock
    assert [values["Scores"][(r, 2)] for r in (1, 2, 3)] == [9, 5, ""]
    assert [values["Scores"][(r, 3)] for r in (1, 2, 3)] == [9, 5, ""]
    assert values["Scores"][(1, 4)] == 14
    # the fast path was taken: six cells valued after the engine, the three SUM reads handed to it
    assert sorted(added) == [("SCORES", (r, c)) for r in (1, 2, 3) for c in (2, 3)]
    assert sorted(pos for pos, _ in taken) == [(1, 2), (2, 2), (3, 2)]


def test_an_error_is_reported_once_where_it_shows(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Scores"
    ws["A1"], ws["A2"] = 420, "lots"
    calc = wb.create_sheet("Scores (calc)")
    calc.sheet_state = "hidden"
    calc["B1"] = ArrayFormula("B1:B2", "=IMPS(Scores!A1:A2)")
    for r in (1, 2):
        ws[f"B{r}"] = shows(f"'Scores (calc)'!B{r}")
    wb.save(tmp_path / "in.xlsx")
    report = recalc_here(tmp_path / "in.xlsx", tmp_path / "out.xlsx")
    assert [(e.sheet, e.cell, e.code) for e in report.errors] == [("Scores", "B2", "#VALUE!")]
    assert "lots" in report.errors[0].message  # the reason of the hidden array's cell
    out = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)["Scores"]
    assert out["B1"].value == 9 and out["B2"].value == "#VALUE!"


@pytest.mark.parametrize("formula, home, expected", [
    ("='T (calc)'!$H$5", "T", ("plain", "T (CALC)", (5, 8))),
    ("=h5", "Sheet1", ("plain", "SHEET1", (5, 8))),
    ("='O''Brien'!A1", "X", ("plain", "O'BRIEN", (1, 1))),
    ('=iferror(S!B2,if(error.type(S!B2)=5,"",S!B2))', "X", ("guarded", "S", (2, 2))),
    ('=IFERROR(S!B2,IF(ERROR.TYPE(S!B3)=5,"",S!B2))', "X", None),  # not the same cell three times
    ('=IFERROR(S!B2,IF(ERROR.TYPE(S!B2)=7,"",S!B2))', "X", None),
    ("=S!B2:B3", "X", None), ("=[1]S!B2", "X", None), ("='[a.xlsx]S'!B2", "X", None), ("=SUM(B2)", "X", None),
    ("=XFE1", "X", None), ("=A0", "X", None), ("=Name", "X", None),
])
def test_which_formulas_only_show_a_cell(formula, home, expected):
    assert alias_of(formula, home) == expected


@st.composite
def showing_columns(draw):
    """A sheet's formulas as a scorer's sheet has them: columns of formulas showing the cell one row on
    (as filled down), with breaks: absolute rows, leading zeros, another sheet, other formulas, rows
    past Excel's last, long names (past the 400 characters of a formula alias_of reads)."""
    sheets = st.sampled_from(["S", "'S (calc)'", "'O''Brien'", "s", "T", "'" + "L" * 393 + "'", ""])
    style = st.tuples(sheets, st.sampled_from(["H", "$H", "h", "XFD", "XFE"]), st.sampled_from([0, 0, 3, 1048570]),
                      st.sampled_from(["", "$", "0"]), st.sampled_from(["plain", "guarded", "odd", "other"]))
    cells = {}
    for col in draw(st.lists(st.integers(1, 5), min_size=1, max_size=3, unique=True)):
        row = draw(st.integers(1, 120))
        sheet, letters, offset, mark, kind = draw(style)
        for _ in range(draw(st.integers(1, 12))):
            row += draw(st.sampled_from([1, 1, 1, 2]))
            if draw(st.integers(0, 3)) == 0:  # the fill breaks here: another formula from this cell on
                sheet, letters, offset, mark, kind = draw(style)
            ref = (sheet + "!" if sheet else "") + letters
            target = row + offset
            digits = ("" if mark == "0" else mark) + ("0" if mark == "0" else "") + str(target)
            cells[(row, col)] = (f"={ref}{digits}" if kind == "plain" else
                                 f'=IFERROR({ref}{digits},IF(ERROR.TYPE({ref}{digits})=5,"",{ref}{digits}))'
                                 if kind == "guarded" else
                                 f'=IFERROR({ref}{digits},IF(ERROR.TYPE({ref}{digits})=5,"",{ref}{target + 1}))'
                                 if kind == "other" else f"={ref}{digits}+1")
    return dict(sorted(cells.items()))


@settings(max_examples=300, deadline=None)
@given(showing_columns())
def test_finding_showing_cells_column_by_column_gives_what_each_cell_gives_alone(cells):
    # find_shown reads a column's next formula as the last one one row on when it is: the same answer as
    # classifying every cell alone (alias_of), kept when the target is a cell of an array range
    arrays = {sheet: [(1, 8, 1048576, 8)] for sheet in ("S", "S (CALC)", "O'BRIEN", "HOME", "L" * 393)}
    expected = {}
    for pos, text in cells.items():
        alias = alias_of(text, "HOME")
        if alias is not None and alias[2][1] == 8 and alias[1] in arrays:
            expected[("HOME", pos)] = alias
    assert find_shown({"HOME": cells}, arrays) == expected


def test_a_column_whose_formulas_grow_past_what_alias_of_reads():
    # 393 letters: the formula showing row 99 has 400 characters, row 100's 401 (alias_of reads at most 400)
    long = "L" * 393
    cells = {(r, 1): f"='{long}'!H{r}" for r in (98, 99, 100, 101)}
    found = find_shown({"HOME": cells}, {long: [(1, 8, 200, 8)]})
    assert sorted(pos for _, pos in found) == [(98, 1), (99, 1)]


_RUN_VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**20, 10**20), st.booleans(),
    st.text(max_size=5), st.sampled_from(["#NAME?", "#N/A", "#DIV/0!", "#VALUE!", "#REF!", "#NULL!", "#NUM!",
                                          "#GETTING_DATA", "empty", "name", "none", "np", "token"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_RUN_VALUES, st.booleans()), min_size=1, max_size=12))
def test_a_guarded_run_read_by_a_formula_gets_what_the_stock_engine_gives(cells):
    # the run's one pass (model.guarded_run_class) against formulas' own ERROR.TYPE, =, IF and IFERROR
    import numpy as np
    import schedula as sh
    from formulas.cell import Cell
    from formulas.ranges import Ranges
    from formulas.tokens.operand import Error, XlError
    from xlbridge.batch.evaluate.model import guarded_run_class

    values = []
    for value, special in cells:  # special: a text naming an error is the error; "empty" the blank cell
        if special and isinstance(value, str) and value in Error.errors:
            value = Error.errors[value]
        elif special and value == "empty":
            value = sh.EMPTY
        elif special and value == "none":
            value = None
        elif special and value == "np":
            value = np.float64(2.5)
        elif special and value == "token":  # an error value of the engine's type that is not one of its own
            value = XlError("#NAME?")
        values.append(value)
    n = len(values)
    formula = f'=IFERROR(S!B1:B{n},IF(ERROR.TYPE(S!B1:B{n})=5,"",S!B1:B{n}))'
    stock, fast = Cell(f"S!A1:A{n}", formula).compile(), Cell(f"S!A1:A{n}", formula).compile()
    fast.func.__class__ = guarded_run_class()
    column = np.empty((n, 1), dtype=object)
    column[:, 0] = values
    expected, got = stock.func(Ranges().push(f"S!B1:B{n}", column)), fast.func(Ranges().push(f"S!B1:B{n}", column))
    def seen(x):
        return type(x), repr(x)  # (NaN != NaN; -0.0 == 0.0)

    assert [seen(x) for x in np.ravel(got)] == [seen(x) for x in np.ravel(expected)]


def test_only_a_guarded_run_read_by_a_formula_is_valued_in_one_pass(tmp_path, monkeypatch):
    # B shows the hidden array guarded (#NAME? shown blank), C plainly (#NAME? shown): COUNTIF reads each
    # column as one run; only B's run goes through the one pass, and both give the stock engine's values
    from xlbridge.batch.evaluate.model import guarded_run_class

    from formulas.cell import CellWrapper

    runs = guarded_run_class()
    calls, fallback = [], []
    call, stock_call = runs.__call__, CellWrapper.__call__
    monkeypatch.setattr(runs, "__call__", lambda self, *a, **k: (calls.append(self), call(self, *a, **k))[1])
    # the one pass must answer in the engine's own dispatch (which adds schedula's keywords to the
    # call): the stock evaluation of the run is not reached
    monkeypatch.setattr(CellWrapper, "__call__",
                        lambda self, *a, **k: (fallback.append(type(self)), stock_call(self, *a, **k))[1])
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Scores"
    ws["A1"], ws["A2"], ws["A3"] = 420, 180, -50
    calc = wb.create_sheet("Scores (calc)")
    calc["B1"] = ArrayFormula("B1:B3", "=IF(Scores!A1:A3>0,Scores!A1:A3,#NAME?)")  # #NAME? in B3
    for r in (1, 2, 3):
        ws[f"B{r}"] = shows(f"'Scores (calc)'!B{r}")
        ws[f"C{r}"] = f"='Scores (calc)'!B{r}"
    ws["D1"], ws["D2"] = '=COUNTIF(B1:B3,"")', '=COUNTIF(C1:C3,"")'
    path = tmp_path / "runs.xlsx"
    wb.save(path)
    (values, _, _), (stock, _, _) = _both(path)
    assert values == stock
    got = values["Scores"]
    assert (got[(3, 2)], got[(3, 3)].code, got[(1, 4)], got[(2, 4)]) == ("", "#NAME?", 1, 0)
    assert len(calls) == 1 and runs not in fallback and fallback  # (the other formulas: stock cells)


def test_values_shown():
    assert alias_value("plain", ExcelErrorValue("#NAME?")) == ExcelErrorValue("#NAME?")
    assert alias_value("guarded", ExcelErrorValue("#NAME?")) == ""
    assert alias_value("guarded", ExcelErrorValue("#VALUE!", "why")) == ExcelErrorValue("#VALUE!", "why")
    assert alias_value("guarded", None) == 0 and alias_value("guarded", "") == ""


def test_runs_break_where_the_targets_do():
    found = [("V", (r, 2), ("guarded", "C", (r, 2))) for r in (1, 2, 3)] + [
        ("V", (4, 2), ("guarded", "C", (9, 2))),  # not the next target row
        ("V", (5, 2), ("plain", "C", (5, 2))),  # another kind
        ("V", (1, 3), ("guarded", "D", (1, 3)))]  # another column, another sheet
    runs = [(s, a, b) for s, a, b, _ in alias_runs(found)]
    assert runs == [("V", (1, 2), (3, 2)), ("V", (4, 2), (4, 2)), ("V", (5, 2), (5, 2)), ("V", (1, 3), (1, 3))]
    assert alias_runs(found)[0][3] == "=IFERROR('C'!B1:B3,IF(ERROR.TYPE('C'!B1:B3)=5,\"\",'C'!B1:B3))"


def _scores(tmp_path, name, build):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "V"
    build(wb, ws)
    wb.save(tmp_path / name)
    report = recalc_here(tmp_path / name, tmp_path / ("out-" + name))
    return report, openpyxl.load_workbook(tmp_path / ("out-" + name), data_only=True)


def test_an_array_in_view_read_by_plain_references_keeps_its_values_and_errors(tmp_path):
    def build(wb, ws):
        ws["A1"], ws["A2"], ws["A3"] = 1, "x", 3
        ws["B1"] = ArrayFormula("B1:B3", "=A1:A3*2")
        ws["C1"], ws["D1"], ws["D3"] = "=B1", "=V!B3", "=B2"
    report, out = _scores(tmp_path, "view.xlsx", build)
    v = out["V"]
    assert [v[c].value for c in ("B1", "B2", "B3", "C1", "D1", "D3")] == [2, "#VALUE!", 6, 2, 6, "#VALUE!"]
    assert sorted((e.cell, e.code) for e in report.errors) == [("B2", "#VALUE!"), ("D3", "#VALUE!")]


def test_an_array_whose_formula_is_one_reference_is_evaluated_whole(tmp_path):
    def build(wb, ws):
        calc = wb.create_sheet("V (calc)")
        calc["B1"] = ArrayFormula("B1:B2", "=V!A1:A2*10")
        ws["A1"], ws["A2"] = 3, 4
        ws["F1"] = ArrayFormula("F1:F3", "='V (calc)'!B2")
    (values, _, _), (stock, _, _) = _both(_saved(tmp_path, build))
    assert values == stock and [values["V"][(r, 6)] for r in (1, 2, 3)] == [40, 40, 40]


def _saved(tmp_path, build):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "V"
    build(wb, ws)
    wb.save(tmp_path / "b.xlsx")
    return tmp_path / "b.xlsx"


def test_a_name_error_behind_a_blank_cell_in_view_is_still_reported(tmp_path):
    def build(wb, ws):
        calc = wb.create_sheet("V (calc)")
        calc.sheet_state = "hidden"
        calc["B1"] = ArrayFormula("B1:B2", "=NOSUCHFUNC(V!A1:A2)")
        ws["A1"], ws["A2"] = 1, 2
        for r in (1, 2):
            ws[f"B{r}"] = shows(f"'V (calc)'!B{r}")
    report, out = _scores(tmp_path, "name.xlsx", build)
    assert out["V"]["B1"].value in ("", None)  # blank in view (the guard), as in a program without xlbridge
    assert sorted((e.sheet, e.cell, e.code) for e in report.errors) == [("V (calc)", "B1", "#NAME?"),
                                                                        ("V (calc)", "B2", "#NAME?")]
