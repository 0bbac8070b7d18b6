"""lehman.xlsx (issue 15): a boards-played column, the History sheet (rating per player per week) and a
native line chart of it that survives ``xlbridge recalc``.

Expected values do not come from xlbridge: the weekly rule of REFERENCE.md (seed 003's formula,
R_new = (H R + sum of the week's pseudo-ratings, each counted once per board) / (H + boards), then
H = (H + boards) x (1 - 0.067) for every player already rated) is written out here with plain loops
and run on the example's rows; small cases are worked by hand.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest
from recalc_helpers import recalc_copy

from xlbridge.udfs import EXCEL_FUNCTIONS as F

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "workbooks" / "examples" / "lehman.xlsx"


def col(*values):
    return [[v] for v in values]


def brute_force_history(rows, decay=0.067):
    """{player: [rating after each week or None]}, weeks in order: REFERENCE.md's standard rule."""
    rating, hist, out = {}, {}, {}
    weeks = sorted({r[0] for r in rows})
    for k, w in enumerate(weeks):
        this = [r for r in rows if r[0] == w]
        qsum, n = {}, {}
        for _w, north, south, east, west, pct, boards in this:
            b = 1 if boards is None else boards
            r = {p: rating.get(p, 50.0) for p in (north, south, east, west)}
            r_ns, r_ew = (r[north] + r[south]) / 2, (r[east] + r[west]) / 2
            r_all = (r_ns + r_ew) / 2
            pred_ns, pred_ew = 50 * r_ns / r_all, 50 * r_ew / r_all
            for p, actual, pred in ((north, pct, pred_ns), (south, pct, pred_ns), (east, 100 - pct, pred_ew),
                                    (west, 100 - pct, pred_ew)):
                qsum[p] = qsum.get(p, 0.0) + b * r[p] * actual / pred
                n[p] = n.get(p, 0) + b
        for p in n:
            rating.setdefault(p, 50.0)
            hist.setdefault(p, 0.0)
            out.setdefault(p, [None] * k)
        new = {p: (hist[p] * rating[p] + qsum[p]) / (hist[p] + n[p]) for p in n}
        rating.update(new)
        for p in hist:
            hist[p] = (hist[p] + n.get(p, 0)) * (1 - decay)
            out[p].append(rating[p])
    return weeks, out


def test_brute_force_matches_a_hand_worked_week():
    # week 2: ed (new, 50) and di (40) against ann and bob (60 after week 1): predicted 50 x 60 / 52.5;
    # Q(ann) = 60 x 50 / 57.142857 = 52.5; (0.933 x 60 + 52.5) / 1.933 = 56.12; Q(ed) = 50 x 50 / 42.857 = 58.33
    _weeks, h = brute_force_history([(1, "ann", "bob", "cy", "di", 60, None), (2, "ann", "bob", "ed", "di", 50, None)])
    assert round(h["ann"][1], 2) == round((0.933 * 60 + 52.5) / 1.933, 2) == 56.12
    assert round(h["ed"][1], 2) == 58.33 and h["ed"][0] is None and h["cy"] == [40.0, 40.0]


def test_a_row_of_n_boards_counts_like_n_rows():
    one = F["LEHMAN_SEASON"](col(1), col("ann"), col("bob"), col("cy"), col("di"), col(60), col(2))
    # four newcomers, N-S 60 % on 2 boards: Q = 60 twice, (0 + 120) / 2 = 60; history 2 x 0.933
    assert one[0] == ["ann", 2, 60.0, pytest.approx(1.866), 1.0]
    rows = [(1, "n", "s", "e", "w", 60, 3), (1, "n", "e", "s", "w", 45, None), (2, "n", "s", "e", "w", 52, 2)]
    args = [col(*c) for c in zip(*rows)]
    expanded = [r[:6] for r in rows for _ in range(r[6] or 1)]
    flat = F["LEHMAN_SEASON"](*[col(*c) for c in zip(*expanded)], None)
    rows_n = F["LEHMAN_SEASON"](*args)
    assert [r[:2] for r in rows_n] == [r[:2] for r in flat]
    assert [r[2:] for r in rows_n] == [pytest.approx(r[2:]) for r in flat]
    got = {r[0]: r[2] for r in F["LEHMAN_SEASON"](*args)}
    _w, h = brute_force_history(rows)
    assert got == pytest.approx({p: v[-1] for p, v in h.items()})


def test_history_function_with_chosen_players_and_a_bad_name():
    args = (col(1, 2), col("ann", "ann"), col("bob", "bob"), col("cy", "ed"), col("di", "di"), col(60, 50), None,
            None, None)
    got = F["LEHMAN_HISTORY"](*args, col("ed", None, "ann"))
    assert got[0] == ["Player", 1, 2] and got[2] == [None, None, None]
    assert got[1][:2] == ["ed", None] and round(got[1][2], 2) == 58.33 and round(got[3][2], 2) == 56.12
    bad = F["LEHMAN_HISTORY"](*args, col("Edd"))
    assert isinstance(bad, str) and "'Edd'" in bad and "\n" not in bad and "players" in bad


# -- the template, recalculated ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def done(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lehman-history")
    src = tmp / "lehman.xlsx"
    shutil.copy(SRC, src)
    out, vals = recalc_copy(src, tmp)
    return src, out, vals


def _ledger_rows(src):
    ws = openpyxl.load_workbook(src)["Ledger"]
    rows = [tuple(ws.cell(row=r, column=c).value for c in range(1, 8)) for r in range(5, 200)]
    return [r for r in rows if r[0] is not None]


def test_history_sheet_equals_the_brute_force(done):
    src, _out, vals = done
    rows = _ledger_rows(src)
    assert any(r[6] not in (None, 1) for r in rows)  # the example uses the boards column
    weeks, want = brute_force_history(rows)
    ws = vals["History"]
    assert [ws.cell(row=4, column=c).value for c in range(1, 2 + len(weeks))] == ["Player", *weeks]
    got = {}
    for r in range(5, 5 + len(want)):
        got[ws.cell(row=r, column=1).value] = [ws.cell(row=r, column=c).value for c in range(2, 2 + len(weeks))]
    assert sorted(got) == sorted(want) == [ws.cell(row=r, column=1).value for r in range(5, 5 + len(want))]
    for p in want:
        assert [None if v in (None, "") else v for v in got[p]] == pytest.approx(want[p], abs=1e-9), p
    assert ws.cell(row=5 + len(want), column=1).value in (None, "")
    assert ws["D3"].value in (None, "")  # no week-capacity warning


def test_chart_table_is_the_chosen_players_history_transposed(done):
    src, _out, vals = done
    weeks, want = brute_force_history(_ledger_rows(src))
    ws = vals["Chart"]
    chosen = [ws.cell(row=r, column=11).value for r in range(5, 13)]
    chosen = [p for p in chosen if p]
    assert chosen == ["Newbie", "Spider", "Ann", "Bob"]
    assert [ws.cell(row=r, column=1).value for r in range(5, 5 + len(weeks))] == weeks
    for j, p in enumerate(chosen, start=2):
        assert ws.cell(row=4, column=j).value == p
        assert [ws.cell(row=r, column=j).value for r in range(5, 5 + len(weeks))] == pytest.approx(want[p], abs=1e-9)
    assert ws["K3"].value in (None, "")


def test_ledger_final_ratings_use_the_boards(done):
    src, _out, vals = done
    rows = _ledger_rows(src)
    _weeks, want = brute_force_history(rows)
    ws = vals["Ledger"]
    got = {ws.cell(row=r, column=9).value: (ws.cell(row=r, column=10).value, ws.cell(row=r, column=11).value)
           for r in range(5, 5 + len(want))}
    boards = {}
    for r in rows:
        for p in r[1:5]:
            boards[p] = boards.get(p, 0) + (r[6] or 1)
    assert {p: b for p, (b, _r) in got.items()} == boards
    assert {p: v for p, (_b, v) in got.items()} == pytest.approx({p: h[-1] for p, h in want.items()}, abs=1e-9)


def test_the_line_chart_survives_recalc(done):
    src, out, _vals = done
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(out) as b:
        charts = [n for n in a.namelist() if n.startswith("xl/charts/")]
        assert charts and all(a.read(n) == b.read(n) for n in charts)
        drawings = [n for n in a.namelist() if n.startswith("xl/drawings/")]
        assert drawings and all(a.read(n) == b.read(n) for n in drawings)
        assert b"lineChart" in b"".join(b.read(n) for n in charts)
    wb = openpyxl.load_workbook(out)
    (chart,) = wb["Chart"]._charts
    assert len(chart.series) == 8


def test_more_weeks_than_columns_is_said(tmp_path):
    from recalc_helpers import small_build

    wb = openpyxl.load_workbook(small_build("lehman.xlsx", rows=100))  # (a Ledger of 100 rows, not 10,000)
    ws = wb["Ledger"]
    for w in range(1, 54):
        for j, v in enumerate((w, "a", "b", "c", "d", 50 + (w % 3)), start=1):
            ws.cell(row=4 + w, column=j, value=v)
    src = tmp_path / "long.xlsx"
    wb.save(src)
    _out, vals = recalc_copy(src, tmp_path)
    assert "More than 52 weeks" in vals["History"]["D3"].value
    assert vals["History"].cell(row=4, column=53).value == 52


def test_empty_template_history_and_chart_are_blank(tmp_path):
    src = tmp_path / "lehman.xlsx"
    shutil.copy(ROOT / "workbooks" / "lehman.xlsx", src)
    _out, vals = recalc_copy(src, tmp_path)
    assert all(vals["Chart"].cell(row=r, column=c).value in (None, "") for r in range(5, 15) for c in range(1, 12))
    assert vals["Chart"]["K3"].value in (None, "")


@pytest.mark.skipif(not (shutil.which("soffice") and shutil.which("pdftotext")), reason="needs LibreOffice and poppler")
def test_libreoffice_prints_history_and_chart(printed):
    _pdf, texts = printed(SRC)  # (printed once per run, shared with tests/templates/test_print.py)
    weeks, want = brute_force_history(_ledger_rows(SRC))
    charts = [t for t in texts if " Chart " in t.rstrip().splitlines()[-1]]  # (spans pages across at 60 %)
    chart = "\n".join(charts)
    lines = [" ".join(line.split()) for line in chart.splitlines()]
    first = " ".join(["1"] + [f"{want[p][0]:.2f}" for p in ("Newbie", "Spider", "Ann", "Bob")])
    assert any(line.startswith(first) for line in lines), first
    history = [t for t in texts if " History " in t.rstrip().splitlines()[-1]]
    assert history and all("#NAME?" not in t and "Err:" not in t and "#VALUE!" not in t for t in history + [chart])
