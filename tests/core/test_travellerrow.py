"""The one reading of a traveller row (xlbridge.core.travellerrow) on anything a cell can hold: a verdict, never an
exception. Text a member or a file gives is read as the file formats' readers read it: ASCII digits (at most 18) are
a number, anything else (``'²'``, Arabic-Indic digits, 5,000 digits) is text (a text pair id, or a board that is no
number, named)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pytest

import xlbridge
from xlbridge.core.travellerrow import (PairCheck, board_row_mistake, leads_without_rows, listed_pairs, row_mistake,
                                       unlisted_pair)

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
@given(st.lists(st.tuples(CELL, CELL, CELL), min_size=1, max_size=6), st.booleans(), st.lists(CELL, max_size=6))
def test_the_pairs_of_any_rows_against_any_pairs_sheet_get_a_verdict(rows, howell, sheet):
    listed = listed_pairs(sheet)
    check = PairCheck(howell=howell, listed=listed)
    for board, ns, ew in rows:
        mistake = check.row(board, ns, ew)
        assert mistake is None or (mistake.column in ("NS", "EW") and mistake.words)


@pytest.mark.parametrize("sheet, typed, named", [
    # a Pairs sheet listing N-S 1, 2 and E-W 11, 12 (numbers as Excel holds them: floats, or text of digits)
    ([1.0, "2", 11, 12.0], (1, 11), None),
    ([1.0, "2", 11, 12.0], ("2", 12.0), None),
    ([1.0, "2", 11, 12.0], (7, 11), ("NS", "N-S pair 7 is not on the Pairs sheet")),
    ([1.0, "2", 11, 12.0], (1, 13), ("EW", "E-W pair 13 is not on the Pairs sheet")),
    ([1.0, "2", 11, 12.0], ("one", 11), ("NS", "the N-S pair must be a whole number 1 or more, or a pair on the "
                                               "Pairs sheet, not 'one'")),
    # an imported USEBIO book's text ids, listed: pairs; an empty Pairs sheet: any whole number, no text
    (["A1", "B1"], (" A1 ", "B1"), None),
    ([None, " "], (7, 99), None),
    ([], (7, 2.5), ("EW", "the E-W pair must be a whole number 1 or more, or a pair on the Pairs sheet, not 2.5")),
    ([], (0, 11), ("NS", "the N-S pair must be a whole number 1 or more, or a pair on the Pairs sheet, not 0")),
])
def test_a_pair_is_read_against_the_pairs_sheet(sheet, typed, named):
    got = PairCheck(howell=False, listed=listed_pairs(sheet)).row(3, *typed)
    assert (None if got is None else (got.column, got.words)) == named
    assert unlisted_pair("NS", typed[0], listed_pairs(sheet)) == (got if got and got.column == "NS" else None)


def test_a_lead_is_named_when_no_traveller_row_has_its_board_and_pairs():
    rows = [(1, 1, 11), (1.0, "2", 12.0), (2, "A1", 11)]
    leads = [("D5", 1, "1", 11), ("D6", 2.0, "A1", "11"), ("D7", 3, 1, 11), ("D8", 1, 11, 1)]
    got = leads_without_rows(leads, rows)
    assert [(w, m.column, m.words) for w, m in got] == [
        ("D7", "Lead", "a lead for a row the Travellers sheet does not have (board 3, 1 v 11)"),
        ("D8", "Lead", "a lead for a row the Travellers sheet does not have (board 1, 11 v 1)")]


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


class _Float(float):
    pass


SMALL = st.sampled_from([1, 2, 3, 1.0, 2.0, "1", " 2 ", "A1", "a1", 0.0, -0.0, float("nan"), True, 10_001, "x", None,
                         " ", "²", np.float64(-0.0), np.float64(0.0), np.int64(2), _Float(-0.0), _Float(0.0),
                         Decimal("1"), Decimal("1.0"), Decimal("-0"), 0j, complex(-0.0, 0), [1], 10**30])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(SMALL, SMALL, SMALL, st.booleans()), min_size=1, max_size=12), st.booleans(),
       st.one_of(st.none(), st.lists(SMALL, max_size=5)))
@example([(1, 0.0, 11, False), (1, -0.0, 12, False)], False, None)  # (-0.0 equals 0.0; read, it is another text)
@example([(1, np.float64(-0.0), 11, False), (1, np.float64(0.0), 12, False)], False, None)
@example([(1, Decimal("1"), 11, False), (1, Decimal("1.0"), 12, False)], False, None)
def test_pairs_read_once_per_distinct_cell_give_the_verdicts_of_each_cell_read_alone(rows, howell, sheet):
    """PairCheck reads each distinct board and pair cell once (a traveller repeats them): the same verdicts, in the
    same words, as reading every cell afresh (the readers' own functions), cells that compare equal but read apart
    included (-0.0 and 0.0 of every kind, Decimal("1") and Decimal("1.0"))."""
    from unittest import mock

    from xlbridge.core import travellerrow

    listed = None if sheet is None else listed_pairs(sheet)
    fields = travellerrow.listed_fields([(p, "NS" if i % 2 else "EW") for i, p in enumerate(sheet or ())])
    once = PairCheck(howell=howell, listed=listed, fields=fields)
    fresh = PairCheck(howell=howell, listed=listed, fields=fields)
    alone = (lambda self, kind, value: travellerrow._pair(value) if kind == "pair"
             else travellerrow._whole(value, "board number"))
    got = [once.row(b, n, e, switched) for b, n, e, switched in rows]
    with mock.patch.object(PairCheck, "_read", alone):
        want = [fresh.row(b, n, e, switched) for b, n, e, switched in rows]
    assert got == want


def test_a_mistake_of_the_n_s_pair_is_named_before_the_e_w_cell_is_read():
    # (an E-W cell whose words cannot be written, a whole number of 5,000 digits: the N-S mistake comes first)
    check = PairCheck(howell=False, listed=frozenset({1}))
    assert check.row(1, "x", -10**5000).words == ("the N-S pair must be a whole number 1 or more, or a pair on the "
                                                  "Pairs sheet, not 'x'")
