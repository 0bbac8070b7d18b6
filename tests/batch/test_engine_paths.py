"""The range-level path of the engine gives exactly the values of the stock formulas path.

``xlbridge.batch.evaluate.engine.evaluate_workbook`` normally hands the formulas engine each column's constants
as a few range blocks read from the streamed sheet XML (``streamed=True``); the stock path lets
openpyxl read the workbook and gives the engine one node per cell (``streamed=False``), which is what
the engine computed before issue 14. Random small workbooks (hypothesis) with constants of every
kind openpyxl writes (numbers, text as shared strings, booleans, error values, dates, blanks),
single-cell formulas and legacy array formulas mixing Excel's functions and xlbridge's, chains
between them (a formula reading an array's result, an array reading formula cells, a second sheet
reading the first) are evaluated both ways: the values, and the messages the functions report, must
be equal. The expected values are the stock engine's own, an independent program here.
"""

from __future__ import annotations

import datetime
import os

import openpyxl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from openpyxl.worksheet.formula import ArrayFormula

from xlbridge.batch.evaluate.engine import evaluate_workbook
from xlbridge.batch.recalc import xlbridge_excel_functions
from xlbridge.batch.guard.safety import check_workbook
from xlbridge.batch.cells import cell_ref

FUNCTIONS = xlbridge_excel_functions()
ROWS = 6
CONST_COLS = 3  # A..C hold constants; formulas start at column D

constants = st.one_of(
    st.none(), st.none(),
    st.integers(-1000, 1000),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 3)),
    st.sampled_from(["4S", "N", "x", "", "=not a formula", "NP", "A60/40"]),
    st.booleans(),
    st.sampled_from(["#N/A", "#DIV/0!"]),
    st.just(datetime.date(2026, 11, 23)),
)


def _ref(col: int, row: int) -> str:
    return cell_ref(row, col)


def _rng(col: int, r1: int, r2: int) -> str:
    return f"{cell_ref(r1, col)}:{cell_ref(r2, col)}"


@st.composite
def formulas(draw, col: int):
    """A formula for a cell of column ``col``, reading only columns to its left (no cycles)."""
    src = draw(st.integers(1, col - 1))
    src2 = draw(st.integers(1, col - 1))
    r1 = draw(st.integers(1, ROWS))
    r2 = draw(st.integers(r1, ROWS))
    cell, cell2 = _ref(src, draw(st.integers(1, ROWS))), _ref(src2, draw(st.integers(1, ROWS)))
    rng, rng2 = _rng(src, r1, r2), _rng(src2, r1, r2)
    single = [
        f"=SUM({rng})", f"=COUNT({rng})", f"=COUNTA({rng})", f'=IF({cell}>1,{cell}*2,"small")',
        f"={cell}+{cell2}", f"=MAX({rng})", f'=IFERROR(1/{cell},"div")', f"=NEUBERG({cell},8,10)",
        f"=SUMPRODUCT({rng},{rng2})", f'=COUNTIF({rng},">1")', f"=INDEX({rng},1)", f"=ROUND({cell},1)",
        f'={cell}&"-"', f"=IMPS({cell})", f"={cell}",
    ]
    array = [f"{rng}*2", f'IF({rng}>1,{rng},"")', f"{rng}+{rng2}", f"IMPS({rng})", f"ISNUMBER({rng})",
             f"{rng}"]
    if draw(st.booleans()):
        return ("cell", draw(st.sampled_from(single)))
    return ("array", draw(st.sampled_from(array)), r2 - r1 + 1)


@st.composite
def workbooks(draw):
    n_formula_cols = draw(st.integers(1, 3))
    sheets = []
    for _ in range(2):
        grid = {(r, c): draw(constants) for r in range(1, ROWS + 1) for c in range(1, CONST_COLS + 1)}
        fcells, cached = {}, {}
        for col in range(CONST_COLS + 1, CONST_COLS + 1 + n_formula_cols):
            row = 1
            while row <= ROWS:
                f = draw(formulas(col))
                if f[0] == "array" and row + f[2] - 1 > ROWS:
                    f = ("cell", f"={_ref(1, row)}")
                fcells[(row, col)] = f
                if f[0] == "array":  # values cached in the range's other cells, as LibreOffice saves them
                    for r in range(row + 1, row + f[2]):
                        cached[(r, col)] = draw(constants)
                row += f[2] if f[0] == "array" else 1
                row += draw(st.integers(0, 1))  # a blank row now and then
        sheets.append((grid, fcells, cached))
    cross = draw(st.sampled_from(["=SUM(S1!D1:D3)", "=S1!A1", '=IFERROR(S1!E2*2,"no")', "=COUNT(S1!A1:C6)"]))
    return sheets, cross, draw(st.booleans())


def _build(path, spec):
    sheets, cross, iso_dates = spec
    wb = openpyxl.Workbook(iso_dates=iso_dates)  # dates as numbers, or as t="d" cells
    wb.remove(wb.active)
    for i, (grid, fcells, cached) in enumerate(sheets, start=1):
        ws = wb.create_sheet(f"S{i}")
        for (r, c), v in {**grid, **cached}.items():
            if v is not None:
                ws.cell(r, c).value = v
        for (r, c), f in fcells.items():
            if f[0] == "cell":
                ws.cell(r, c).value = f[1]
            else:
                ref = _rng(c, r, r + f[2] - 1)
                ws.cell(r, c).value = ArrayFormula(ref, "=" + f[1])
    wb["S2"]["H1"] = cross
    wb.save(path)


def _both(path, taken="ranges"):
    """The streamed and the stock evaluation of the book at ``path``; the streamed one took path ``taken``."""
    import zipfile

    from xlbridge.batch.read.sheetxml import read_sheet

    info = check_workbook(str(path))
    with zipfile.ZipFile(path) as zf:  # the range-level path is the one taken (nothing openpyxl reads otherwise)
        vouched = [read_sheet(zf.read(part), values=True, shared_strings=[""] * 50).unusual is None
                   for _, part in info.sheets]
    assert all(vouched) if taken == "ranges" else any(vouched) and not all(vouched)
    kw = dict(cell_formats=info.cell_formats, functions=FUNCTIONS, external_links=info.external_links)
    fast = evaluate_workbook(str(path), info.sheets, streamed=True, **kw)
    stock = evaluate_workbook(str(path), info.sheets, streamed=False, **kw)
    assert (fast[1].engine_path, stock[1].engine_path) == (taken, "cells")
    fast[1].engine_path = stock[1].engine_path = ""
    return fast, stock


def _messages(messages):
    return {k: ({f: sorted(set(v)) for f, v in found.items()} if k == "by_function" else found)
            for k, found in vars(messages).items()}


def assert_paths_agree(path, taken="ranges"):
    """Both paths give the same values, messages and layouts; return the fast path's values."""
    (values, messages, layouts), (stock_values, stock_messages, stock_layouts) = _both(path, taken)
    assert values == stock_values
    assert _messages(messages) == _messages(stock_messages)
    assert layouts == stock_layouts
    return values


@settings(max_examples=int(os.environ.get("XLB_PATH_EXAMPLES", 25)), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=workbooks())
def test_range_blocks_give_the_stock_engines_values(tmp_path, spec):
    path = tmp_path / "book.xlsx"
    _build(path, spec)
    values = assert_paths_agree(path)
    assert values["S2"][(1, 8)] is not None  # the cross-sheet formula got a value


def _unvouched(path, sheet):
    """Declare a namespace on the first row of ``sheet``'s part: openpyxl reads its cells as before, and the
    streamed reader cannot vouch for that (it sends the sheet to openpyxl)."""
    _edit_part(path, sheet, b"<row ", b'<row xmlns:q="urn:q" ')


def _edit_part(path, sheet, old: bytes, new: bytes):
    """Replace the first ``old`` of ``sheet``'s worksheet part by ``new``, in place (server_helpers.rebuild)."""
    from server_helpers import read_member, rebuild

    part = dict(check_workbook(str(path)).sheets)[sheet]
    data = read_member(path, part)
    assert old in data
    copy = path.with_name(path.name + ".edited")
    rebuild(path, copy, replace={part: data.replace(old, new, 1)})
    copy.replace(path)


@settings(max_examples=int(os.environ.get("XLB_PATH_EXAMPLES", 25)) // 2, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=workbooks(), sheet=st.sampled_from(["S1", "S2"]))
def test_a_sheet_the_reader_cannot_vouch_for_is_read_by_openpyxl_the_others_as_range_blocks(tmp_path, spec, sheet):
    """The other sheet stays at range level ("mixed"): the same values, messages and layouts as the stock path,
    whichever sheet it is (the one that the other's formula reads, or the one holding that formula)."""
    path = tmp_path / "book.xlsx"
    _build(path, spec)
    _unvouched(path, sheet)
    values = assert_paths_agree(path, taken="mixed")
    assert values["S2"][(1, 8)] is not None


def _one_two_three():
    """A workbook whose sheet S1 holds 1, 2, 3 in A1:A3 (the hand-worked books below start from it)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S1"
    for r, v in ((1, 1), (2, 2), (3, 3)):
        ws.cell(r, 1).value = v
    return wb, ws


def test_an_array_results_kinds_are_written_as_excel_shows_them(tmp_path):
    """Each kind of value an array formula's cells can hold, worked by hand: numbers (int and float),
    TRUE/FALSE, text, error values, and a blank cell read through (0 in Excel), in a result that fills
    its range and in one that must be spread (a single column over two columns)."""
    from xlbridge.batch.cells import ExcelErrorValue

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S1"
    for r, v in enumerate([1, 2.5, "x", None, 0], start=1):
        ws.cell(r, 1, v)
    ws["B1"] = ArrayFormula("B1:B5", "=A1:A5")
    ws["C1"] = ArrayFormula("C1:C5", "=A1:A5>1")
    ws["D1"] = ArrayFormula("D1:D5", "=1/A1:A5")
    ws["E1"] = ArrayFormula("E1:F5", "=A1:A5&\"!\"")
    path = tmp_path / "kinds.xlsx"
    wb.save(path)
    (values, _, _), (stock, _, _) = _both(path)
    assert values == stock
    got = values["S1"]
    assert [got[(r, 2)] for r in range(1, 6)] == [1, 2.5, "x", 0, 0]
    assert [got[(r, 3)] for r in range(1, 6)] == [False, True, True, False, False]
    assert [type(got[(r, 3)]) for r in range(1, 6)] == [bool] * 5
    assert got[(1, 4)] == 1 and got[(2, 4)] == 0.4
    assert [got[(r, 4)].code for r in (3, 4, 5)] == ["#VALUE!", "#DIV/0!", "#DIV/0!"]
    assert all(isinstance(got[(r, 4)], ExcelErrorValue) for r in (3, 4, 5))
    assert [got[(r, 5)] for r in range(1, 6)] == ["1!", "2.5!", "x!", "!", "0!"]
    assert [got[(r, 6)] for r in range(1, 6)] == [got[(r, 5)] for r in range(1, 6)]


def test_both_paths_on_a_chain_worked_by_hand(tmp_path):
    # A1:A3 = 1, 2, 3; B1:B3 {=A1:A3*2} (2, 4, 6); C1 =SUM(B1:B3) (12); D1:D3 {=B1:B3+C1} (14, 16, 18);
    # S2!A1 =SUM(S1!D1:D3)-S1!C1 (36); a blank inside the block of column A (A5 empty, A6 = 10).
    wb, ws = _one_two_three()
    ws["A6"] = 10
    ws["B1"] = ArrayFormula("B1:B3", "=A1:A3*2")
    ws["C1"] = "=SUM(B1:B3)"
    ws["D1"] = ArrayFormula("D1:D3", "=B1:B3+C1")
    ws["E1"] = "=SUM(A1:A6)"
    wb.create_sheet("S2")["A1"] = "=SUM(S1!D1:D3)-S1!C1"
    path = tmp_path / "chain.xlsx"
    wb.save(path)
    (values, _, _), (stock, _, _) = _both(path)
    assert values == stock
    assert [values["S1"][(r, 2)] for r in (1, 2, 3)] == [2, 4, 6]
    assert values["S1"][(1, 3)] == 12
    assert [values["S1"][(r, 4)] for r in (1, 2, 3)] == [14, 16, 18]
    assert values["S1"][(1, 5)] == 16 and values["S2"][(1, 1)] == 36


def test_cached_error_and_date_values_inside_an_array_are_skipped_unread(tmp_path):
    """LibreOffice saves an array formula's cached value in every cell of its range, as the error
    values and dates it shows too (``t="e"``, ``t="d"``; ``#NAME?`` for an xlbridge function it does
    not know). They are not handed to the engine (a 10,000-row season saved by LibreOffice holds 30,000
    such cells: compiled one by one they took minutes), and a formula reading one cell of the range
    gets the array's value, not the cached one. By hand (LibreOffice gives the same): B1:B3
    {=A1:A3*2} is 2, 4, 6 whatever was cached in B2 and B3; C2 =B2+1 is 5; D1 {=B2:B2*2} is 8; E1
    holds an error value outside any array: it stays a cell of the sheet, and E2 =ISNA(E1) is TRUE.
    The stock path, openpyxl's reading of every cell, skips them too (it gave C2 and D1 the cached
    #NAME? before)."""
    import zipfile

    from xlbridge.batch.read.sheetxml import read_sheet

    wb, ws = _one_two_three()
    wb.iso_dates = True
    ws["B1"] = ArrayFormula("B1:B3", "=A1:A3*2")
    ws["B2"], ws["B3"] = "#NAME?", datetime.datetime(2026, 11, 26)
    ws["C2"], ws["D1"] = "=B2+1", ArrayFormula("D1", "=B2:B2*2")
    ws["E1"], ws["E2"] = "#N/A", "=ISNA(E1)"
    path = tmp_path / "cached.xlsx"
    wb.save(path)
    with zipfile.ZipFile(path) as zf:
        xml = zf.read("xl/worksheets/sheet1.xml")
    assert b'<c r="B2" t="e"><v>#NAME?</v></c>' in xml and b'<c r="B3" s="1" t="d">' in xml
    assert read_sheet(xml, values=True, shared_strings=[]).special == {(1, 5): ("#N/A", "e")}
    (values, _, _), (stock, _, _) = _both(path)
    got = values["S1"]
    assert [got[(r, 2)] for r in (1, 2, 3)] == [2, 4, 6]
    assert (got[(2, 3)], got[(1, 4)], got[(2, 5)]) == (5, 8, True)
    assert stock == values


def test_a_union_range_and_the_cell_set_reading_give_the_stock_values(tmp_path, monkeypatch):
    """Ranges assembled from a block of constants, a formula cell, an array and blank cells, one of them
    in a union reference: the streamed path's assemblers give the stock engine's values; and a cell
    node of several rectangles (never met in a workbook) sends the whole model to formulas' own reading
    of cell sets, with the same values. By hand: A1:A3 = 1, 2, 3, A4 =A1*10 (10), A5 blank: SUM 16;
    C1:C2 = 10, 20, C3 =C1+1 (11): the union SUM 57; B1:B3 {=A1:A3*2} (2, 4, 6), B4 blank: SUM 12."""
    from xlbridge.batch.evaluate.model import model_class

    wb, ws = _one_two_three()
    ws["A4"] = "=A1*10"
    ws["C1"], ws["C2"], ws["C3"] = 10, 20, "=C1+1"
    ws["D1"] = "=SUM(A1:A5)"
    ws["D2"] = "=SUM((A1:A5,C1:C3))"
    ws["B1"] = ArrayFormula("B1:B3", "=A1:A3*2")
    ws["E1"] = "=SUM(B1:B4)"
    path = tmp_path / "union.xlsx"
    wb.save(path)
    values = assert_paths_agree(path)
    assert (values["S1"][(1, 4)], values["S1"][(2, 4)], values["S1"][(1, 5)]) == (16, 57, 12)
    cls = model_class()
    streamed_assemble = cls.assemble

    def as_if_a_cell_had_two_rectangles(self, compact=1):
        self.xlbridge.cell_sets = True
        return streamed_assemble(self, compact)

    monkeypatch.setattr(cls, "assemble", as_if_a_cell_had_two_rectangles)
    assert assert_paths_agree(path) == values


def test_long_ranges_over_blank_cells_worked_by_hand(tmp_path):
    # A1:A3 = 1, 2, 3 and A4:A500 blank, C1:C500 blank (the engine keeps such cells as one list of
    # pairs on the range path): SUM 6, COUNTBLANK 497 and 500, COUNT 3, an array over the blank column
    # {=C1:C4+1} gives 1 four times, INDEX of a blank cell 0 (Excel's =C400 of a blank).
    wb, ws = _one_two_three()
    ws["E1"] = "=SUM(A1:A500)"
    ws["E2"] = "=COUNTBLANK(A1:A500)"
    ws["E3"] = "=COUNTBLANK(C1:C500)"
    ws["E4"] = "=COUNT(A1:A500,C1:C500)"
    ws["E5"] = "=INDEX(C1:C500,400)"
    ws["F1"] = ArrayFormula("F1:F4", "=C1:C4+1")
    path = tmp_path / "blanks.xlsx"
    wb.save(path)
    (values, _, _), (stock, _, _) = _both(path)
    assert values == stock
    assert [values["S1"][(r, 5)] for r in range(1, 6)] == [6, 497, 500, 3, 0]
    assert [values["S1"][(r, 6)] for r in range(1, 5)] == [1, 1, 1, 1]


@pytest.mark.parametrize("xml_cell, why", [
    ('<c r="A1"><v>1</v><v>2</v></c>', "a cell with two values"),
    ('<c r="a1"><v>1</v></c>', "not written plainly"),
    ('<c r="A1"><f t="dataTable" ref="A1:A2" dt2D="0" dtr="0" r1="B1"/></c>', "a data-table formula"),
    ('<c r="A1"><x:v xmlns:x="urn:other">1</x:v></c>', "outside the spreadsheet namespace"),
    ('<c r="A1"><v>1</v><row r="five"/></c>', "element 'row' in a cell"),  # (bench_fuzz.py, seed 2, case 396)
    ('<c r="A1"><v>1</v><extLst/></c>', "element 'extLst' in a cell"),
])
def test_what_the_streamed_reading_cannot_vouch_for_goes_to_openpyxl(xml_cell, why):
    from xlbridge.batch.read.sheetxml import read_sheet

    xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
           b'<row r="1">' + xml_cell.encode() + b"</row></sheetData></worksheet>")
    assert why in read_sheet(xml, values=True).unusual


@pytest.mark.parametrize("xml_cell, why", [
    ('<c r="A1" t="b"><v>TRUE</v></c>', "cell A1: a TRUE/FALSE cell holds 'TRUE', which Excel cannot read"),
    ('<c r="B1"><v>two</v></c>', "cell B1: a number cell holds 'two'"),
    ('<c r="C1" t="s"><v>7</v></c>', "cell C1: a shared-string cell holds the index '7'"),
    ('<c r="D1" t="d"><v>99999-99-99</v></c>', "cell D1: a date cell holds '99999-99-99'"),
])
def test_a_value_neither_reader_can_read_is_refused_naming_the_cell(xml_cell, why):
    """openpyxl (the stock path) fails on these too, with a Python exception; the refusal names the cell."""
    from xlbridge.batch.read.sheetxml import read_sheet
    from xlbridge.core.errors import WorkbookError

    xml = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
           b'<row r="1">' + xml_cell.encode() + b"</row></sheetData></worksheet>")
    with pytest.raises(WorkbookError, match="damaged workbook") as err:
        read_sheet(xml, values=True, shared_strings=["a"], sheet="S")
    assert why in str(err.value)


_REFS = st.sampled_from(["A1", "$A1", "A$1", "$A$1", "B2:C3", "S!H5", "'S (calc)'!H5", "'S (calc)'!$H5", "H:H", "5:5",
                         "XFD1048576", "Name1", "[1]S!A1", "A1:B2:C3"])


@settings(max_examples=200, deadline=None)
@given(refs=st.lists(_REFS, min_size=1, max_size=4), repeat=st.integers(1, 3),
       dests=st.lists(st.tuples(st.integers(1, 1048576), st.integers(1, 30)), min_size=1, max_size=6))
def test_a_shared_formula_read_for_many_cells_translates_as_openpyxl_does(refs, repeat, dests):
    # the streamed reader's translator works out each distinct reference once per cell: the same text
    # (or the same refusal) as openpyxl's own Translator, cell after cell of one group
    from openpyxl.formula.translate import Translator
    from openpyxl.utils import get_column_letter
    from xlbridge.batch.read.sheetxml import _translator

    formula = "=" + "+".join(f"SUM({r})" for r in refs * repeat)
    once, stock = _translator()(formula, "C3"), Translator(formula, "C3")

    def outcome(t, dest):
        try:
            return t.translate_formula(dest)
        except Exception as exc:  # (a reference moved off the sheet)
            return type(exc)

    for row, col in dests:
        dest = f"{get_column_letter(col)}{row}"
        assert outcome(once, dest) == outcome(stock, dest)


@pytest.fixture
def translations(monkeypatch):
    """The stream reader's shared-formula translator, and the list of every range openpyxl's ``Translator``
    translates for it: (range, row shift, column shift)."""
    from openpyxl.formula.translate import Translator
    from xlbridge.batch.read.sheetxml import _translator

    calls: list = []
    stock = Translator.translate_range.__func__
    monkeypatch.setattr(Translator, "translate_range",
                        classmethod(lambda cls, *a: (calls.append(a), stock(cls, *a))[1]))
    return _translator(), calls


def test_a_shared_showing_formula_translates_its_one_reference_once_per_cell(translations):
    # the guarded showing formula names one cell three times: one translation of it per cell
    translator, calls = translations
    ref = "'S (calc)'!H5"
    once = translator(f'=IFERROR({ref},IF(ERROR.TYPE({ref})=5,"",{ref}))', "H5")
    texts = [once.translate_formula(f"H{row}") for row in (6, 7, 8)]
    assert texts[2] == "=IFERROR('S (calc)'!H8,IF(ERROR.TYPE('S (calc)'!H8)=5,\"\",'S (calc)'!H8))"
    assert calls == [(ref, 1, 1), (ref, 1, 0), (ref, 2, 0), (ref, 3, 0)]  # (first: is it relative? it is)


def test_a_shared_formula_of_absolute_references_is_translated_once(translations):
    # a template's showing formula names its column absolutely and its row by ROW(): every cell of the group
    # holds the same text, worked out once (an Excel-saved book shares 10,000 of them per column)
    translator, calls = translations
    ref = "INDEX('S (calc)'!$H$4:$H$10104,ROW()-ROW(INDEX($A$4:$A$10004,1))+1)"
    text = f'=IFERROR({ref},IF(ERROR.TYPE({ref})=5,"",{ref}))'
    once = translator(text, "H5")
    assert once.translate_formula("H6") == text
    first = len(calls)  # (each range shifted once to tell, then translated at its own cell)
    assert [once.translate_formula(f"H{row}") for row in range(7, 1007)] == [text] * 1000
    assert 0 < first == len(calls)  # (and no translation for the 1,000 cells after)


def test_the_arguments_reach_an_xlbridge_function_as_xlwings_gives_them():
    """What the engine hands an xlbridge function, cell by cell: numbers as floats, TRUE/FALSE as bools,
    a blank as None, an error as its text (xlwings' err_to_str), text as text; a range as rows of cells.
    Random blocks of every kind of cell, against that rule written out here."""
    import random

    import numpy as np
    import schedula as sh
    from formulas.tokens.operand import Error

    from xlbridge.batch.evaluate.engine import EngineMessages, _adapt_function

    rnd = random.Random(3)
    kinds = [lambda: rnd.randint(-5, 5), lambda: rnd.random(), lambda: rnd.choice(["4S", "", " x"]),
             lambda: rnd.random() < 0.5, lambda: sh.EMPTY, lambda: Error.errors["#N/A"],
             lambda: np.int64(7), lambda: np.float64(2.5), lambda: None]

    def excel_view(v):
        if v is sh.EMPTY or v is None:
            return None
        if v is Error.errors["#N/A"]:
            return "#N/A"
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (int, float, np.integer, np.floating)):
            return float(v)
        return v

    def cells(x):
        return [c for row in x for c in row] if isinstance(x, list) else [x]

    got = []
    echo = _adapt_function("ECHO", lambda *args: got.append(args) or 1, EngineMessages())
    for _ in range(300):
        h, w = rnd.randint(1, 6), rnd.randint(1, 8)  # (wider than high too: converted row by row)
        block = np.empty((h, w), object)
        for i in range(h):
            for j in range(w):
                block[i, j] = rnd.choice(kinds)()
        got.clear()
        echo(block)
        want = [[excel_view(v) for v in row] for row in block.tolist()] if (h, w) != (1, 1) else excel_view(block[0, 0])
        assert got[0][0] == want
        assert [type(c) for c in cells(got[0][0])] == [type(c) for c in cells(want)]  # (TRUE is no 1.0)


def test_a_reference_left_in_an_array_result_is_written_as_its_cells_value():
    """Should a function still leave a reference inside an array result (INDEX no longer does:
    tests/batch/test_recalc_libreoffice.py), the cell shows the referenced cell's value, 0 for a blank one,
    and #VALUE! for a reference to several cells, never the reference's Python text."""
    import numpy as np
    import schedula as sh

    from xlbridge.batch.evaluate.engine import _value_out, engine_modules
    from xlbridge.batch.cells import ExcelErrorValue

    names = engine_modules()

    def out(ref, cells):
        return _value_out(names.Ranges().push(ref, np.array(cells, object)), names, np)

    assert out("A1", [[5]]) == 5 and out("A1", [["x"]]) == "x" and out("A1", [[sh.EMPTY]]) == 0
    assert out("A1:A2", [[1], [2]]) == ExcelErrorValue("#VALUE!")


_T_ATTRS = st.sampled_from(["", ' xml:space="preserve"', ' foo="1"'])
_TEXT = st.text(st.sampled_from(list("aS4 &<>\"'\t\n\u00e9")), max_size=6).map(
    lambda t: t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


@st.composite
def _inline_strings(draw) -> str:
    """An ``<is>`` element as the readers meet them: plain, rich runs, phonetic runs, odd attributes or
    namespaces, an element inside the text."""
    kind = draw(st.sampled_from(["plain", "plain", "empty", "runs", "phonetic", "is_attr", "other_ns", "nested",
                                 "two_t", "cdata", "comment", "pi", "around", "prefixed"]))
    text, t_attrs = draw(_TEXT), draw(_T_ATTRS)
    if kind == "plain":
        return f"<is><t{t_attrs}>{text}</t></is>"
    if kind == "empty":
        return draw(st.sampled_from(["<is><t/></is>", "<is><t></t></is>", "<is/>", "<is></is>"]))
    if kind == "runs":
        return f"<is><r><t>{text}</t></r><r><rPr><b/></rPr><t{t_attrs}>{draw(_TEXT)}</t></r></is>"
    if kind == "phonetic":
        return f"<is><t>{text}</t><rPh sb=\"0\" eb=\"1\"><t>{draw(_TEXT)}</t></rPh></is>"
    if kind == "is_attr":
        return "<is" + (t_attrs or ' x="1"') + f"><t>{text}</t></is>"
    if kind == "other_ns":
        return f"<is><o:t>{text}</o:t></is>"
    if kind == "nested":
        return f"<is><t>{text}<b/>{draw(_TEXT)}</t></is>"
    if kind == "two_t":
        return f"<is><t>{text}</t><t>{draw(_TEXT)}</t></is>"
    if kind == "comment":  # (ElementTree drops comments and processing instructions, for both readings)
        return draw(st.sampled_from([f"<is><t>{text}<!--c-->x</t></is>", f"<is><!--c--><t>{text}</t></is>"]))
    if kind == "pi":
        return draw(st.sampled_from([f"<is><?p q?><t>{text}</t></is>", f"<is><t>{text}<?p q?></t></is>"]))
    if kind == "around":  # text around the <t>, inside the <is>
        return f"<is> {draw(_TEXT)}<t>{text}</t>{draw(_TEXT)} </is>"
    if kind == "prefixed":  # the spreadsheet namespace under a prefix
        return f"<is><m:t>{text}</m:t></is>"
    return f"<is><t><![CDATA[{text}]]></t></is>"


@settings(max_examples=300, deadline=None)
@given(_inline_strings())
def test_an_inline_string_reads_as_openpyxl_reads_it(snippet):
    """The streamed reading's inline string (a fast path for ``<is><t>...</t></is>``, openpyxl for the
    rest) against openpyxl's own reading of the same ``<is>`` (``Text.from_tree(...).content``; a
    failure there is a note sending the book to openpyxl's whole reading)."""
    import defusedxml.ElementTree as DET
    from openpyxl.cell.text import Text

    from xlbridge.batch.read.sheetxml import MAIN_NS, read_sheet

    xml = (f'<worksheet xmlns="{MAIN_NS}" xmlns:o="urn:other" xmlns:m="{MAIN_NS}"><sheetData><row r="1"><c r="A1" t="inlineStr">{snippet}</c></row>'
           f"</sheetData></worksheet>").encode()
    try:
        root = DET.fromstring(xml)
        inline = root[0][0][0][0]
        expected = str(Text.from_tree(inline).content)
    except Exception:
        expected = None
    got = read_sheet(xml, values=True)
    if expected is None:
        assert got.unusual is not None and "inline string" in got.unusual
    else:
        assert got.unusual is None
        assert got.columns.get(1, ([], []))[1] == [expected]


def test_a_row_inside_a_cell_is_refused_as_openpyxl_refuses_it(tmp_path, capsys):
    """``<row r="five"/>`` inside a cell (benchmarks/bench_fuzz.py, seed 2, cases 396 and 943): the streamed reading
    used to vouch for the sheet and the engine's openpyxl never saw its rows, so the run ended with exit 0 and an
    output openpyxl cannot open. openpyxl, the independent reader, refuses the book: so does recalc, in one line,
    writing nothing."""
    from xlbridge.cli import main

    wb, ws = _one_two_three()
    ws["B1"] = "=SUM(A1:A3)"
    path, out = tmp_path / "nested.xlsx", tmp_path / "out.xlsx"
    wb.save(path)
    _edit_part(path, "S1", b"<v>3</v></c>", b'<v>3</v><row r="five"/></c>')
    with pytest.raises(ValueError):
        openpyxl.load_workbook(path)
    assert main(["recalc", str(path), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "damaged workbook" in err[0] and "nested.xlsx" in err[0], err
    assert not out.exists()


_RESULT_CELLS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-2 ** 60, 2 ** 60),
    st.sampled_from([2 ** 53, -2 ** 53, 2 ** 53 + 1, -0.0, True, False, None, "", "#N/A", "#DIV/0!", "4S"]),
    st.text(max_size=3))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_RESULT_CELLS, min_size=1, max_size=4), min_size=1, max_size=5))
@example([[float("nan")]]).via("NaN: #NUM!")
@example([[2.5, float("-inf")], [None, ""]]).via("an infinity: #NUM!")
@example([[2 ** 53 + 1, 1]]).via("a whole number past 2**53: a float")
@example([[True, 1.0]]).via("a logical")
@example([["#N/A", "x"]]).via("an error's code")
@example([[None, 1.5], ["", -0.0]]).via("blanks: empty texts")
@example([[1, 2], [3]]).via("a short row: #N/A")
def test_a_result_taken_at_once_is_what_the_cell_by_cell_conversion_gives(rows):
    """A function's result whose cells need no conversion (engine._all_plain) is taken without a call per cell:
    the engine gets the same cells, of the same types, as when each cell is converted (the expected values)."""
    from unittest import mock

    import xlbridge.batch.evaluate.engine as engine

    engine.engine_modules()

    def result(messages):
        return engine._adapt_function("F", lambda: [list(r) for r in rows], messages)()

    fast = result(engine.EngineMessages())
    with mock.patch.object(engine, "_all_plain", lambda *_a: None):
        slow = result(engine.EngineMessages())
    assert fast.shape == slow.shape
    for got, want in zip(fast.ravel().tolist(), slow.ravel().tolist()):
        assert type(got) is type(want) and (got == want or (got != got and want != want) or str(got) == str(want))
