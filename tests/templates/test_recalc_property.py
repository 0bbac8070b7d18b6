"""Property: any travellers typed into pairs.xlsx (its 400-row build; random boards, scores, ties, blank rows
anywhere) recalculate to the matchpoints and ranking of an obviously-right brute force.

Brute force (Law 78A, seed 001): on a board, a result scores 2 for every other result it beats
and 1 for every tie; a board with A results when E are expected is Neuberg-factored,
(M + 1) E / A - 1; a pair's percentage is 100 x its total over the sum of the tops 2(E - 1) of
the boards it played; equal percentages share the rank ("2="). In a Mitchell (N-S pairs 1 to 6 against
E-W pairs 11 to 16 here) each field is ranked on its own, N-S first; in a Howell all pairs are one field.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

recalc = pytest.importorskip("xlbridge.batch.recalc", reason="needs xlbridge.batch.recalc (the headless recalc engine)")
pytest.importorskip("xlbridge.udfs", reason="needs xlbridge.udfs (the Excel functions)")

#: the Travellers rows of the test book: examples/pairs.xlsx built with 400 instead of 10,000
#: (``recalc_helpers.small_build``: the same formulas over ranges of 400 rows; a result on the shipped
#: template's last row is tests/templates/test_recalc_pairs.py::test_new_travellers_and_scale)
ROWS = 400
LAST = 4 + ROWS
LEGAL = {1: [-50, 110, 140, 400, 420, 450], 2: [-100, 110, 140, 600, 620, 650], 3: [-100, -50, 110, 140, 420, 450]}


@st.composite
def sessions(draw):
    boards = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=3, unique=True))
    rows = []
    for b in boards:
        k = draw(st.integers(2, 6))
        scores = draw(st.lists(st.sampled_from(LEGAL[b][:4]), min_size=k, max_size=k))  # few values: ties
        rows += [(b, i + 1, 11 + i, s) for i, s in enumerate(scores)]
    places = draw(st.lists(st.integers(5, LAST), min_size=len(rows), max_size=len(rows), unique=True))
    return list(zip(places, rows))


def brute_force(rows, mitchell=False):
    by_board = {}
    for b, n, e, s in rows:
        by_board.setdefault(b, []).append(s)
    E = max(len(v) for v in by_board.values())
    mp = []
    for b, n, e, s in rows:
        others = by_board[b]
        A = len(others)
        m = sum(2 if s > o else 1 if s == o else 0 for o in others) - 1  # minus the tie with itself
        mp_ns = (Fraction(m) + 1) * E / A - 1
        mp.append((mp_ns, 2 * (E - 1) - mp_ns))
    total, top = {}, {}
    for (b, n, e, s), (x, y) in zip(rows, mp):
        for p, v in ((n, x), (e, y)):
            total[p] = total.get(p, 0) + v
            top[p] = top.get(p, 0) + 2 * (E - 1)
    pct = {p: 100 * total[p] / top[p] for p in total}
    ranks = {}
    field = (lambda p: "NS" if p < 10 else "EW") if mitchell else (lambda p: "")
    for p in pct:
        better = sum(1 for q in pct if field(q) == field(p) and pct[q] > pct[p])
        tied = sum(1 for q in pct if field(q) == field(p) and pct[q] == pct[p]) > 1
        ranks[p] = f"{better + 1}{'=' if tied else ''}"
    return mp, total, pct, ranks


@pytest.mark.parametrize("movement", ["Mitchell", "Howell"])  # (one test a movement, four sessions each)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(session=sessions())
def test_random_travellers_match_brute_force(tmp_path, session, movement):
    from recalc_helpers import recalc_here, small_build

    wb = openpyxl.load_workbook(small_build("examples/pairs.xlsx", rows=ROWS))
    ws = wb["Travellers"]
    for r in range(5, 41):  # the sample rows
        for c in (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13):
            ws.cell(row=r, column=c).value = None
    for r, (b, n, e, s) in session:
        for c, v in ((1, b), (2, n), (3, e), (7, s)):
            ws.cell(row=r, column=c, value=v)
    ws["R5"] = "EBU"
    ws["R7"] = movement
    src = tmp_path / "pairs.xlsx"
    wb.save(src)
    out = tmp_path / "out.xlsx"
    report = recalc_here(src, out)
    assert report.errors == ()
    vals = openpyxl.load_workbook(out, data_only=True, read_only=True)
    t = vals["Travellers"]
    rows = [row for _, row in session]
    mitchell = movement == "Mitchell"
    mp, total, pct, ranks = brute_force(rows, mitchell)
    used = {r for r, _ in session}
    shown = {}  # row -> (Score NS (H), MP NS (N), MP EW (O))
    cols = t.iter_rows(min_row=5, max_row=LAST, min_col=8, max_col=15, values_only=True)
    for r, row in enumerate(cols, start=5):
        row = tuple(row) + (None,) * (8 - len(row))
        shown[r] = (row[0], row[6], row[7])
    for (r, _), (x, y) in zip(session, mp):
        assert shown[r][1:] == (float(x), float(y)), r
    for r in range(5, LAST + 1):  # Score NS (H) and MP NS (N) blank on every unused row
        if r not in used:
            h, n = shown.get(r, (None, None, None))[:2]
            assert n in (None, "") and h in (None, ""), r
    rk = vals["Ranking"]
    got, order = {}, []
    for d, p, _names, tot, pc, rank in rk.iter_rows(min_row=5, max_row=404, max_col=6, values_only=True):
        if p not in (None, ""):
            got[p] = (tot, pc, rank)
            order.append((d or "", pc))
    assert got == {p: (float(total[p]), float(pct[p]), ranks[p]) for p in total}
    if mitchell:  # the N-S field first, each pair in its own field
        assert [d for d, _ in order] == sorted((d for d, _ in order), key=lambda d: d != "NS")
        assert all((d == "NS") == (p < 10) for (d, _), p in zip(order, got))
    else:
        assert all(d == "" for d, _ in order)
    for field in {d for d, _ in order}:
        shown = [pc for d, pc in order if d == field]
        assert shown == sorted(shown, reverse=True)  # best first
