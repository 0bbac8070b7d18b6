"""A part of a formula written in several cells is computed once, with the values of computing it in each.

``xlbridge.batch.evaluate.subexpressions``: the expected values are the engine's own with the sharing
switched off (every part computed in every cell, as formulas does), and hand-worked values for the small
books; a worksheet function that counts its calls shows the sharing happens, and that it can fail.
"""

from __future__ import annotations

import math

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from recalc_helpers import small_build
from xlbridge.batch.evaluate import subexpressions
from xlbridge.batch.evaluate.engine import evaluate_workbook
from xlbridge.batch.guard.safety import check_workbook
from xlbridge.batch.recalc import xlbridge_excel_functions


@pytest.fixture
def unshared(monkeypatch):
    """The engine as formulas runs it: every part of every formula computed in its own cell."""
    monkeypatch.setattr(subexpressions.SharedSubexpressions, "install", lambda self: 0)


def _evaluate(path, functions=None, messages=False):
    info = check_workbook(str(path))
    values, said, _ = evaluate_workbook(str(path), info.sheets, functions=functions or {})
    return (values, said) if messages else values


def _counting_book(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, v in enumerate([3, 4, 5], start=1):
        ws.cell(r, 1, v)
    ws["B1"] = "=COUNTME(A1:A3)*2"
    ws["B2"] = "=COUNTME(A1:A3)+1"
    ws["B3"] = "=COUNTME(A1:A2)+1"  # another reference: its own call
    ws["C1"] = "=ROW()*10"  # the calling cell: never shared
    ws["C2"] = "=ROW()*10"
    ws["C3"] = "=SUM(ROW(A1:A3))+ROW()"  # ROW(ref) shared, ROW() not
    ws["D1"] = "=SUM(ROW(A1:A3))+ROW()"
    ws["E1"] = "=RAND()+0"  # volatile: each cell draws its own
    ws["E2"] = "=RAND()+0"
    ws["F1"] = ArrayFormula("F1:F3", "=A1:A3*2")
    ws["G1"] = ArrayFormula("G1:G3", "=A1:A3*2")
    ws["H1"] = '=IF(TRUE,"t","f")'
    ws["H2"] = '=IF(1,"one","zero")'
    path = tmp_path / "count.xlsx"
    wb.save(path)
    return path


def _counted(path):
    calls = []

    def countme(x):
        calls.append(x)
        return sum(v for row in x for v in row)

    return _evaluate(path, {"COUNTME": countme})["S"], calls


def test_a_part_written_in_two_formulas_is_computed_once(tmp_path):
    got, calls = _counted(_counting_book(tmp_path))
    # hand-worked: COUNTME(A1:A3) = 3 + 4 + 5 = 12; COUNTME(A1:A2) = 7
    assert (got[(1, 2)], got[(2, 2)], got[(3, 2)]) == (24, 13, 8)
    assert len(calls) == 2  # A1:A3 once (B1 and B2), A1:A2 once (B3)


def test_the_calling_cell_and_volatile_functions_are_never_shared(tmp_path):
    got, _ = _counted(_counting_book(tmp_path))
    assert (got[(1, 3)], got[(2, 3)]) == (10, 20)
    assert (got[(3, 3)], got[(1, 4)]) == (1 + 2 + 3 + 3, 1 + 2 + 3 + 1)
    assert got[(1, 5)] != got[(2, 5)] and all(0 <= got[(r, 5)] < 1 for r in (1, 2))
    assert [got[(r, 6)] for r in (1, 2, 3)] == [got[(r, 7)] for r in (1, 2, 3)] == [6, 8, 10]
    assert (got[(1, 8)], got[(2, 8)]) == ("t", "one")


def test_the_counting_fails_without_the_sharing(tmp_path, unshared):
    got, calls = _counted(_counting_book(tmp_path))
    assert (got[(1, 2)], got[(2, 2)], got[(3, 2)]) == (24, 13, 8)
    assert len(calls) == 3  # each formula its own call: what the test above tells apart


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", ["examples/pairs.xlsx", "examples/teams.xlsx", "examples/lehman.xlsx",
                                  "examples/handicap.xlsx", "examples/instant.xlsx"])
def test_the_templates_values_are_those_of_every_part_in_every_cell(name, monkeypatch):
    book = small_build(name, rows=100)  # (the size the template tests build: made once a run for all)
    functions = xlbridge_excel_functions()
    counted = []
    install = subexpressions.SharedSubexpressions.install
    monkeypatch.setattr(subexpressions.SharedSubexpressions, "install",
                        lambda self: counted.append(install(self)) or counted[-1])
    shared = _evaluate(book, functions)
    assert counted and counted[0] > 0  # the template does write parts in several formulas
    monkeypatch.setattr(subexpressions.SharedSubexpressions, "install", lambda self: 0)
    every = _evaluate(book, functions)
    assert shared.keys() == every.keys()
    for sheet in shared:
        assert shared[sheet].keys() == every[sheet].keys(), sheet
        differ = [(sheet, pos, shared[sheet][pos], every[sheet][pos]) for pos in shared[sheet]
                  if not _same(shared[sheet][pos], every[sheet][pos])]
        assert not differ, differ[:5]


def _what_is_said(said) -> dict:
    return {"by_function": said.by_function, "formula_reasons": said.formula_reasons, "cell_reasons": said.cell_reasons,
            "cut_rows": said.cut_rows, "call_errors": said.call_errors, "limit_calls": said.limit_calls}


def test_a_shared_part_says_its_reasons_at_every_formula(tmp_path, monkeypatch):
    """Rows with mistakes: the Score N-S computed once still gives its reasons at each formula reading it (the
    Score column, the matchpoints, the Ranking), as computing it in every formula does."""
    book = tmp_path / "mistakes.xlsx"
    wb = openpyxl.load_workbook(small_build("examples/pairs.xlsx", rows=100))
    ws = wb["Travellers"]
    ws["D5"], ws["E6"], ws["F7"] = "8NT", "Q", 14  # a contract, a declarer and tricks no one can read
    ws["B9"] = 99  # a pair the Pairs sheet does not list
    wb.save(book)
    functions = xlbridge_excel_functions()
    shared, said = _evaluate(book, functions, messages=True)
    monkeypatch.setattr(subexpressions.SharedSubexpressions, "install", lambda self: 0)
    every, said_every = _evaluate(book, functions, messages=True)
    assert shared == every
    assert said.formula_reasons and any("8NT" in r for rs in said.formula_reasons.values() for r in rs)
    assert _what_is_said(said) == _what_is_said(said_every)


def _both_ways(path, monkeypatch):
    shared = _evaluate(path, xlbridge_excel_functions())["S"]
    monkeypatch.setattr(subexpressions.SharedSubexpressions, "install", lambda self: 0)
    every = _evaluate(path, xlbridge_excel_functions())["S"]
    monkeypatch.undo()
    return shared, every


def test_what_looks_alike_but_is_not_is_never_shared(tmp_path, monkeypatch):
    """Found by an independent review: a zero of the other sign, ``ROW(x)`` of something that is no reference (formulas
    then reads the calling cell), a defined name holding ``RAND``: each cell its own value, as without the sharing."""
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["A2"] = 0, 0
    for r in range(2, 5):
        ws.cell(r, 2, "=ATAN2(-1,$A$1*(ROW()-3))")  # -0.0 in row 2, 0.0 below
        ws.cell(r, 3, '=TEXT($A$1*(ROW()-3),"0.0")')
    ws["A3"] = 2
    for r in range(3, 7):
        ws.cell(r, 4, "=ROW($A$2*0)")  # a number, not a reference: formulas reads the calling cell
        ws.cell(r, 5, "=MYR(1)")
        ws.cell(r, 6, "=SUM(MAP($A$2:$A$3,MYR))")  # a LAMBDA as an input (the second review)
        ws.cell(r, 7, "=TIRAGE_DÉ(1000000)")  # a name in another alphabet than A-Z
    wb.defined_names["MYR"] = DefinedName("MYR", attr_text="LAMBDA(x,x+RAND())")
    wb.defined_names["TIRAGE_DÉ"] = DefinedName("TIRAGE_DÉ", attr_text="LAMBDA(n,RANDBETWEEN(1,n))")
    path = tmp_path / "alike.xlsx"
    wb.save(path)
    shared, every = _both_ways(path, monkeypatch)
    for r in range(2, 5):
        for c in (2, 3):
            a, b = shared[(r, c)], every[(r, c)]
            assert a == b and (not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b)), (r, c)
    assert shared[(3, 2)] == shared[(4, 2)] == pytest.approx(math.pi)  # ATAN2(-1, 0): pi, worked by hand
    assert [shared[(r, 4)] for r in range(3, 7)] == [every[(r, 4)] for r in range(3, 7)] == [3, 4, 5, 6]
    draws = [shared[(r, 5)] for r in range(3, 7)]
    assert len(set(draws)) == 4 and all(1 <= d < 2 for d in draws)  # each cell draws its own
    mapped = [shared[(r, 6)] for r in range(3, 7)]
    assert len(set(mapped)) == 4 and all(2 <= d < 4 for d in mapped)  # 0 + 2 and two draws in [0, 1)
    assert len({shared[(r, 7)] for r in range(3, 7)}) == 4


def test_an_expression_whose_inputs_never_repeat_is_given_up(monkeypatch):
    """``$A$1*ROW()`` down a column: one text, another input in every cell. No call compares its inputs with more than
    ``MOST_KEPT`` answers (the review measured 10,000 rows in 292 s against 26 s before this bound)."""
    compared = []

    def counting_same(a, b):
        compared.append(1)
        return a == b

    monkeypatch.setattr(subexpressions, "same_value", counting_same)
    shared = subexpressions.SharedSubexpressions()
    calls = []
    nodes = [shared.answer("TIMES_ROW", lambda x: calls.append(x) or 2 * x, (), 1000) for _ in range(1000)]
    assert [node(x) for x, node in enumerate(nodes)] == [2 * x for x in range(1000)]
    assert len(calls) == 1000
    most = subexpressions.MOST_KEPT
    assert len(compared) <= most * most  # (quadratic: 499,500 comparisons)
    again = shared.answer("TWICE", lambda x: calls.append(x) or 2 * x, (), 3)
    assert again(5) == again(5) == again(5) == 10 and calls[1000:] == [5]  # repeated inputs are still shared
