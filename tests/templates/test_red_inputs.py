"""Issue 52: the pairs template turns red the input of a half-filled traveller row that ``publish`` and ``export``
name (xlbridge.core.travellerrow): its conditional formats (``RED_WHEN``, Excel's words) and ``row_mistake`` (the
readers' words) are one reading. Each rule is computed as a formula of a sheet, by the formula engine of
``xlbridge recalc``, on rows a member might type; a row is red somewhere exactly when it is a mistake, and red at
the cell the readers name."""

from __future__ import annotations

import re

import openpyxl
import pytest
from recalc_helpers import recalc_here

from xlbridge.core.template_contract import TRAVELLER_COLUMNS
from xlbridge.core.travellerrow import RED_WHEN, row_mistake

# Board, NS, EW, Contract, Declarer, Tricks, Typed Score (None: left empty)
ROWS = [
    (1, 1, 11, "4S", "N", 10, None),     # a result
    (1, 2, 12, None, None, None, 420),   # a typed score
    (1, 3, 13, "PASS", None, None, None),  # passed out: no declarer, no tricks
    (1, 4, 14, None, None, None, None),  # pairs but no result
    (1, 4, 14, "4S", "N", None, None),   # no tricks
    (1, 4, 14, "4S", None, 10, None),    # no declarer
    (1, 4, 14, None, "N", 10, None),     # declarer and tricks, no contract
    (None, 4, 14, "4S", "N", 10, None),  # no board
    ("one", 4, 14, "4S", "N", 10, None),  # a board that is no number
    ("3", 4, 14, "4S", "N", 10, None),   # a board typed as text that is a number
    (1, None, 14, "4S", "N", 10, None),  # no N-S pair
    (1, 4, None, "4S", "N", 10, None),   # no E-W pair
    (None, None, None, None, None, None, None),  # blank
    (2, 5, 15, " pass ", None, None, None),  # passed out, typed loosely
    (2, 5, 15, "3NT", "S", 0, None),     # no tricks taken is 0, not blank
    # cells holding what they cannot (issue 52: red at the cell typed)
    (1, 4, 14, "4S", "N", 14, None),     # tricks 14
    (1, 4, 14, "4S", "N", "ten", None),  # tricks as text
    (1, 4, 14, "4S", "N", 9.5, None),    # tricks 9.5
    (1, 4, 14, "4S", "X", 10, None),     # declarer X
    (1, 4, 14, "4S", " north ", 10, None),  # declarer as a word: a seat
    (0, 4, 14, "4S", "N", 10, None),     # board 0
    (-3, 4, 14, "4S", "N", 10, None),    # a negative board
    (2.5, 4, 14, "4S", "N", 10, None),   # board 2.5
    (10_001, 4, 14, "4S", "N", 10, None),  # board 10001: past the Board column's 1 to 10,000
    (10_000, 4, 14, "4S", "N", 10, None),  # board 10000: the last
    (1, 4, 14, "4S", "N", 10, "A60/40"),  # a contract and a typed score: which one counts?
    (1, 4, 14, "PASS", None, None, 0),   # passed out, and 0 typed too
]


def test_red_inputs_are_the_mistakes_the_readers_name(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Travellers"
    rules = list(RED_WHEN.items())
    for r, row in enumerate(ROWS, start=5):
        for c, v in enumerate(row, start=1):
            if v is not None:
                ws.cell(r, c, v)
        for k, (_column, rule) in enumerate(rules):  # each rule as a formula of its row, right of the inputs
            ws.cell(r, 10 + k, "=" + re.sub(r"(\$[A-G])5\b", rf"\g<1>{r}", rule))
    src, out = tmp_path / "red.xlsx", tmp_path / "red-out.xlsx"
    wb.save(src)
    report = recalc_here(src, out)
    assert report.ok, [str(e) for e in report.errors]
    values = openpyxl.load_workbook(out, data_only=True)["Travellers"]
    for r, row in enumerate(ROWS, start=5):
        red = {column for k, (column, _rule) in enumerate(rules) if values.cell(r, 10 + k).value is True}
        mistake = row_mistake(*row)
        if mistake is None:
            assert red == set(), (r, row, red)
        else:
            assert mistake.column in red, (r, row, mistake, red)
            assert mistake.column in TRAVELLER_COLUMNS


@pytest.mark.parametrize("column", sorted(RED_WHEN))
def test_each_rule_is_an_input_column(column):
    assert column in TRAVELLER_COLUMNS
