"""The one reading of a traveller row (xlbridge.core.travellerrow) on anything a cell can hold: a verdict, never an
exception. Text a member or a file gives is read as the file formats' readers read it: ASCII digits (at most 18) are
a number, anything else (``'²'``, Arabic-Indic digits, 5,000 digits) is text (a text pair id, or a board that is no
number, named)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

import xlbridge
from xlbridge.core.travellerrow import PairCheck, board_row_mistake, row_mistake

CELL = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=8), st.sampled_from(["²", "٣", "9" * 5000, " 12 ", "4S", "N", "NP", "A60/40"]))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(CELL, CELL, CELL), min_size=1, max_size=6), st.booleans())
def test_the_pairs_of_any_rows_get_a_verdict(rows, howell):
    check = PairCheck(howell=howell)
    for board, ns, ew in rows:
        mistake = check.row(board, ns, ew)
        assert mistake is None or (mistake.column in ("NS", "EW") and mistake.words)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(CELL, min_size=7, max_size=7))
def test_any_row_gets_a_verdict(cells):
    board, ns, ew, contract, declarer, tricks, typed = cells
    row_mistake(board, ns, ew, contract, declarer, tricks, typed)
    board_row_mistake(board, ns)


def test_digits_that_are_no_ascii_number_are_text():
    check = PairCheck(howell=False)
    assert check.row(1, "²", 2) is None and check.row(1, "²", 3) is not None   # '²' keyed as a text pair: twice
    assert check.row(2, "9" * 5000, 2) is None
    mistake = board_row_mistake(1, "٣")
    assert mistake.column == "Board" and mistake.words.startswith("board number must be a whole number from 1 to ")
    assert mistake.words.endswith("got '٣'")


@pytest.mark.parametrize("text", ["²", "٣", "9" * 5000])
def test_a_board_of_digits_that_are_no_number_is_refused_by_the_core(text):
    with pytest.raises(xlbridge.XlbridgeError, match="vulnerability must be"):
        xlbridge.vulnerability(text)
