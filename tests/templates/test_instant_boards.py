"""instant.xlsx with many boards: each result's award from its own board's chart (issue 15, seed 002).

Expected values are worked by hand, not read from xlbridge:

- board 1 is seed 002's board (180 results, vulnerability none): the seed's chart gives +420 45,
  +450 84, +500 (the gap +490..+790) 96, -100 1 (the smoothed bottom 2, 1, 0), +980 99, -150 (the
  bottom gap) 0, +400 12;
- board 2 (N-S vulnerable by its number) has ten historical results: +620 three times, +170 four
  times, -100 three times. With the mystery score (top 10): the gap above +620 beats all ten: 100 %;
  +620 beats 7 and ties 3: (7 + 1.5) / 10 = 85 %; the gap between +620 and +170: 70 %; +170 beats 3
  and ties 4: 50 %; the gap between +170 and -100: 30 %; -100: 1.5 / 10 = 15 %; below it 0 %. +420
  is no N-S score when N-S are vulnerable (4S= vulnerable is +620; Law 77), so it is refused.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
import pytest
from recalc_helpers import recalc_copy

from xlbridge.excel.cells import ExcelError
from xlbridge.udfs import EXCEL_FUNCTIONS as F

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "workbooks" / "examples" / "instant.xlsx"

SEED002 = [(980, 4), (800, 3), (480, 8), (450, 26), (420, 115), (400, 6), (-50, 17), (-100, 1)]
BOARD2 = [(620, 3), (170, 4), (-100, 3)]
HISTORY = [(1, s, f) for s, f in SEED002] + [(2, s, f) for s, f in BOARD2]
#: (board, N-S pair, E-W pair, N-S score, N-S award, E-W award): the example's rows, worked by hand
WANT = [(1, 1, 11, 420, 45, 55), (1, 2, 12, 450, 84, 16), (1, 3, 13, 500, 96, 4), (1, 4, 14, -100, 1, 99),
        (1, 5, 15, 980, 99, 1), (1, 6, 16, -150, 0, 100), (1, 7, 17, 400, 12, 88),
        (2, 1, 11, 650, 100, 0), (2, 2, 12, 620, 85, 15), (2, 3, 13, 170, 50, 50), (2, 4, 14, -100, 15, 85),
        (2, 5, 15, 140, 30, 70), (2, 6, 16, "A60/40", 60, 40), (2, 7, 17, "NP", None, None)]


def col(*values):
    """A column as xlwings delivers it (ndim=2): numbers as floats, blanks as None."""
    return [[float(v) if isinstance(v, int) else v] for v in values]


def call(boards, scores, history=HISTORY):
    return F["INSTANT_RESULTS"](col(*boards), col(*scores), col(*(b for b, _, _ in history)),
                                col(*(s for _, s, _ in history)), col(*(f for _, _, f in history)))


def test_awards_of_two_boards_by_hand():
    got = call([w[0] for w in WANT], [w[3] for w in WANT])
    assert [tuple(r) for r in got] == [w[4:] for w in WANT]


def test_results_in_any_order_and_history_rows_in_any_order():
    hist = list(reversed(HISTORY))
    got = call([2, 1, 2, 1], [620, 420, -100, 980], hist)
    assert got == [[85, 15], [45, 55], [15, 85], [99, 1]]


def test_a_score_no_contract_gives_and_a_board_without_history_are_value_errors_with_their_row():
    got = call([2, 3, 1, None], [420, 420, 420, None])
    assert got[0][0] == "#VALUE!" and "row 1" in got[0][0].reason and "420" in got[0][0].reason
    assert got[1][0] == "#VALUE!" and "row 2" in got[1][0].reason and "board 3" in got[1][0].reason
    assert got[2] == [45, 55] and got[3] == [None, None]
    assert isinstance(got[0][1], ExcelError)


def test_an_empty_event_is_blank_and_a_wrong_history_is_one_message():
    assert call([None, None], [None, None], [(None, None, None)]) == [[None, None], [None, None]]
    msg = call([1], [420], [(1, 420, 5), (None, 400, 3)])
    assert isinstance(msg, str) and "history row 2" in msg and "board" in msg


@pytest.fixture(scope="module")
def done(example_recalculated):
    _src, out, vals = example_recalculated("instant.xlsx")  # (conftest.py: recalculated once per run)
    return out, vals


def test_example_results_sheet(done):
    _, vals = done
    ws = vals["Results"]
    got = [tuple(c.value for c in row) for row in ws.iter_rows(min_row=5, max_row=5 + len(WANT) - 1, max_col=6)]
    assert got == WANT
    assert all(v in (None, "") for row in ws.iter_rows(min_row=5 + len(WANT), max_row=60, max_col=6, values_only=True)
               for v in row)
    hist = vals["History"]
    assert [tuple(c.value for c in row) for row in hist.iter_rows(min_row=5, max_row=15, max_col=3)] == HISTORY


def test_chart_sheet_shows_the_chosen_board(tmp_path):
    src = tmp_path / "instant.xlsx"
    wb = openpyxl.load_workbook(EXAMPLE)
    wb["Chart"]["G5"] = 2
    wb.save(src)
    _, vals = recalc_copy(src, tmp_path)
    got = [[c.value for c in row] for row in vals["Chart"].iter_rows(min_row=5, max_row=12, max_col=4)]
    assert [r[2:] for r in got[:7]] == [[100, 0], [85, 15], [70, 30], [50, 50], [30, 70], [15, 85], [0, 100]]
    assert [r[:2] for r in got[:7]][1::2] == [[620, 620], [170, 170], [-100, -100]]  # the historical scores
    assert got[7] == [None, None, None, None] or all(v in (None, "") for v in got[7])


def test_empty_template_is_blank(tmp_path):
    src = tmp_path / "instant.xlsx"
    shutil.copy(ROOT / "workbooks" / "instant.xlsx", src)
    _, vals = recalc_copy(src, tmp_path)
    for sheet, cols in (("Results", 6), ("Chart", 4)):
        assert all(v in (None, "") for row in vals[sheet].iter_rows(min_row=5, max_row=30, max_col=cols,
                                                                     values_only=True) for v in row), sheet


@pytest.mark.skipif(not (shutil.which("soffice") and shutil.which("pdftotext")), reason="needs LibreOffice and poppler")
def test_libreoffice_prints_the_awards(printed):
    """LibreOffice opens the recalculated values-only copy (what a member receives) and prints every award."""
    _pdf, texts = printed(EXAMPLE)  # (printed once per run, shared with tests/templates/test_print.py)
    (page,) = [t for t in texts if " Results " in t.rstrip().splitlines()[-1]]
    lines = [" ".join(line.split()) for line in page.splitlines()]
    for row in WANT:
        shown = " ".join(str(v) for v in row if v is not None)
        assert any(line.startswith(shown) for line in lines), shown
    (chart,) = [t for t in texts if " Chart " in t.rstrip().splitlines()[-1]]
    lines = [" ".join(line.split()) for line in chart.splitlines()]
    assert any(line.startswith("990 7000 100 0") for line in lines)  # seed 002: the top gap above +980
    assert "-100 -100 1 99" in lines and "-7000 -110 0 100" in lines  # the smoothed bottom
    assert all("#NAME?" not in t and "Err:" not in t and "#VALUE!" not in t for t in (page, chart))
