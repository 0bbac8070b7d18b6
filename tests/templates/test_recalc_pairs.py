"""pairs.xlsx recalculated headlessly (``xlbridge recalc``) gives the core API's values.

Expected values: the core API (contract.bridge_score, weighted.weighted_session,
matchpoints.pairs_ranking) on the same inputs, and the seeds' figures typed in here: seed 004's
scoresheets (ERRATA: pair A 2.75) and seed 001's two Neuberg examples and final figure.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
from recalc_helpers import canonical_dump, cells, recalc_copy, recalc_here
from recalc_helpers import typed as type_into
import pytest
from openpyxl.worksheet.formula import ArrayFormula

recalc = pytest.importorskip("xlbridge.batch.recalc", reason="needs xlbridge.batch.recalc (the headless recalc engine)")
pytest.importorskip("xlbridge.udfs", reason="needs xlbridge.udfs (the Excel functions)")

from xlbridge.templates.mirror import shows_row  # noqa: E402
from xlbridge import bridge_score  # noqa: E402
from xlbridge import pairs_ranking  # noqa: E402
from xlbridge import format_rank  # noqa: E402
from xlbridge import weighted_session  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "workbooks" / "examples" / "pairs.xlsx"
ROWS = range(5, 10005)  # the Travellers capacity: rows 5 to 10,004
RANKING_END = 405  # Ranking rows 5 to 404


def _small():
    """examples/pairs.xlsx built with 400 Travellers rows instead of 10,000 (``recalc_helpers.small_build``:
    the same formulas over shorter ranges), for the tests of what the formulas compute."""
    from recalc_helpers import small_build

    return small_build("examples/pairs.xlsx", rows=400)


def _blank(v):
    return v is None or v == ""


_recalc = recalc_copy


@pytest.fixture(scope="module")
def done(example_recalculated):
    return example_recalculated("pairs.xlsx")


def _core(src):
    """The core's answer for the Travellers inputs: (rows, scores, session, standings, names)."""
    book = cells(src)  # (read-only, once a process: the full template's 10,000 rows)
    ws = book["Travellers"]
    scale = ws.get((5, 18))  # R5 ..
    expected = ws.get((6, 18))
    movement = ws[(7, 18)].lower()
    artificial = ws[(8, 18)].lower()  # .. R8
    rows, boards, ns, ew, scores, outcomes, arrows = [], [], [], [], [], [], []
    for r in ROWS:
        v = [ws.get((r, c)) for c in range(1, 17)]
        board, n, e, contract, declarer, tricks, typed = v[:7]
        o2, o3, w1, w2, w3 = v[8:13]  # column H is the Score NS formula, N:O the matchpoints
        if all(x is None for x in v[:7] + v[8:13]):
            continue
        score = bridge_score(contract, declarer, tricks, board) if contract is not None else typed
        rows.append(r)
        boards.append(board)
        ns.append(n)
        ew.append(e)
        arrows.append(v[15])
        scores.append(score)
        if w1 is None:
            outcomes.append(score)
        else:
            outcomes.append([(s, w) for s, w in ((score, w1), (o2, w2), (o3, w3)) if s is not None])
    session = weighted_session(outcomes, boards, expected=expected, scale=scale)
    standings = pairs_ranking(session, ns, ew, movement=movement, arrows=arrows, artificial=artificial)
    names = {}
    pairs = book["Pairs"]
    for r in range(5, 1 + max((r for r, _c in pairs), default=4)):
        p, d, name = (pairs.get((r, c)) for c in (1, 2, 3))
        if p is not None:
            names[(d, p) if movement == "mitchell" else p] = name
    return rows, scores, session, standings, names


def _check(src, vals):
    rows, scores, session, standings, names = _core(src)
    ws = vals["Travellers"]
    for i, r in enumerate(rows):
        assert ws.cell(row=r, column=8).value == scores[i], f"Score NS row {r}"
        got = (ws.cell(row=r, column=14).value, ws.cell(row=r, column=15).value)
        if session.ns[i] is None:  # not played: blank
            assert _blank(got[0]) and _blank(got[1]), f"MP row {r}"
        else:
            assert got == (float(session.ns[i]), float(session.ew[i])), f"MP row {r}"
    used = set(rows)
    for r, v in enumerate(ws.iter_rows(min_row=ROWS[0], max_row=ROWS[-1], min_col=8, max_col=15, values_only=True),
                          start=ROWS[0]):
        if r not in used:
            assert _blank(v[0]) and _blank(v[6]) and _blank(v[7]), f"row {r} should be blank"
    rk = vals["Ranking"]
    want = [[s.direction or "", s.pair, names.get((s.direction, s.pair) if s.direction else s.pair) or "",
             float(s.total), float(s.percentage), format_rank(s.rank, s.tied)] for s in standings]
    got = [[("" if v is None else v) for v in row]
           for row in rk.iter_rows(min_row=5, max_row=4 + len(want), max_col=6, values_only=True)]
    assert got == want
    assert all(_blank(v) for row in rk.iter_rows(min_row=5 + len(want), max_row=RANKING_END - 1, max_col=6,
                                                  values_only=True) for v in row)
    return rows, want


def test_travellers_and_ranking_equal_core(done):
    src, _, vals = done
    rows, ranking = _check(src, vals)
    assert len(rows) == 18 and len(ranking) == 12
    # a Mitchell: the N-S field (pairs 1 to 6) is ranked first, then the E-W field (11 to 16), with names
    assert [r[0] for r in ranking] == ["NS"] * 6 + ["EW"] * 6
    assert sorted(r[1] for r in ranking[:6]) == [1, 2, 3, 4, 5, 6]
    assert dict((r[1], r[2]) for r in ranking)[11] == "M. Moore & N. Nash"
    assert vals["Travellers"]["H16"].value == "NP" and _blank(vals["Travellers"]["N16"].value)


def test_seed_004_figures(done):
    _, _, vals = done
    ws = vals["Travellers"]
    mp = {}
    for r in ROWS:
        b = ws.cell(row=r, column=1).value
        v = ws.cell(row=r, column=14).value
        if b is not None and not _blank(v):
            mp.setdefault(b, []).append(round(v, 2))
    # board 1: 60 % 420 / 40 % -50 (2.9), then 420 4.7, 400 2.9, 400 2.9, 170 1.4, -50 0.2
    assert mp[1] == [2.9, 4.7, 2.9, 2.9, 1.4, 0.2]
    # board 3: pair A 2.75 (ERRATA; printed 2.63), pair B 2.80, 420 4.45, 400 2.40, 400 2.40, -50 0.2
    assert mp[3] == [2.75, 2.8, 4.45, 2.4, 2.4, 0.2]
    b3 = [r for r in ROWS if ws.cell(row=r, column=1).value == 3]
    assert sum(ws.cell(row=r, column=c).value for r in b3 for c in (14, 15)) == pytest.approx(30)  # 6 x top 5


def test_seed_001_neuberg_sheet(done):
    _, _, vals = done
    ws = vals["Neuberg"]
    assert [round(ws.cell(row=r, column=3).value, 1) for r in range(5, 15)] == [
        19.9, 17.7, 15.5, 13.3, 11.1, 8.9, 6.7, 4.5, 2.3, 0.1]
    assert [ws.cell(row=r, column=3).value for r in range(18, 26)] == [29, 23, 23, 13, 13, 13, 5, 1]
    assert [ws.cell(row=r, column=5).value for r in range(18, 26)] == [14, 11, 11, 6, 6, 6, 2, 0]
    assert [ws.cell(row=r, column=7).value for r in range(18, 26)] == [29, 23, 23, 13, 13, 13, 5, 1]
    assert ws["J18"].value == 8
    assert ws["E28"].value == pytest.approx(1060 / 11)  # ((20 x 51) + (51 - 11)) / 11
    assert round(ws["E29"].value, 2) == 51.85  # ERRATA: 51.85 %, not 51.86 %


def test_formulas_styles_and_validations_kept(done):
    src, out, _ = done
    assert canonical_dump(out) == canonical_dump(src)
    book = cells(out)  # (read-only, once a process)
    # the array formula, on its hidden sheet, from the header row (as the ranges it reads: issue 52); the cell in
    # view shows it
    n4 = book["Travellers (calc)"][(4, 14)]
    assert isinstance(n4, ArrayFormula) and n4.ref == "N4:O10104"  # 100 rows of headroom
    assert book["Travellers"][(10004, 15)] == shows_row("'Travellers (calc)'!$O$4:$O$10104", "$A$4:$A$10004")


def test_new_travellers_and_scale(tmp_path):
    """New travellers typed in with openpyxl (a new board, a weighted score, an artificial score,
    rows after a gap) and the EBU scale: recalc gives the core's new values, ties shown as ties."""
    src = tmp_path / "pairs.xlsx"
    cells_typed = {"R5": "EBU"}
    new = [  # board 4 (All vulnerable): NS 1..6 against EW 11..16
        (30, 4, 1, 14, "4H", "S", 10, None, None, None, None, None),
        (31, 4, 2, 15, "4H", "S", 9, None, None, None, None, None),
        (32, 4, 3, 16, "4H", "N", 10, None, None, None, None, None),
        (33, 4, 4, 11, None, None, None, 620, -100, 0.7, 0.3, None),
        (34, 4, 5, 12, None, None, None, "A40/60", None, None, None, None),
        (10004, 4, 6, 13, "3NT", "N", 9, None, None, None, None, None),  # the last row
    ]
    for r, board, n, e, contract, decl, tricks, typed, o2, w1, w2, w3 in new:
        for c, v in zip("ABCDEFGIKLM", (board, n, e, contract, decl, tricks, typed, o2, w1, w2, w3)):
            if v is not None:
                cells_typed[f"{c}{r}"] = v
    type_into(SRC, src, {"Travellers": cells_typed})  # (into the sheet's XML: an openpyxl save takes seconds)
    _, vals = _recalc(src, tmp_path)
    rows, ranking = _check(src, vals)
    assert len(rows) == 24
    t = vals["Travellers"]
    assert [t.cell(row=r, column=8).value for r in (30, 31, 32, 33, 34, 10004)] == [620, -100, 620, 620, "A40/60", 600]


def test_exact_ties_shown_as_ties(tmp_path):
    """Hand-worked: one board, EBU, Howell, N-S 1/2/3 score 420/400/400 against E-W 4/5/6.
    N-S 1 4 MP (100 %), N-S 2 and 3 1 MP (25 %), E-W 4 0, E-W 5 and 6 3 MP (75 %)."""
    src = tmp_path / "pairs.xlsx"
    wb = openpyxl.load_workbook(_small())
    ws = wb["Travellers"]
    for r in range(5, 405):
        for c in (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13):
            ws.cell(row=r, column=c).value = None
    for r, (n, e, s) in enumerate([(1, 4, 420), (2, 5, 400), (3, 6, 400)], start=5):
        ws.cell(row=r, column=1, value=1)
        ws.cell(row=r, column=2, value=n)
        ws.cell(row=r, column=3, value=e)
        ws.cell(row=r, column=7, value=s)
    ws["R5"] = "EBU"
    ws["R7"] = "Howell"
    wb.save(src)
    _, vals = _recalc(src, tmp_path)
    rk = vals["Ranking"]
    got = [[rk.cell(row=r, column=c).value for c in (2, 4, 5, 6)] for r in range(5, 11)]
    assert got == [[1, 4, 100, "1"], [5, 3, 75, "2="], [6, 3, 75, "2="], [2, 1, 25, "4="], [3, 1, 25, "4="],
                   [4, 0, 0, "6"]]
    assert all(_blank(rk.cell(row=r, column=1).value) for r in range(5, 11))  # a Howell has no directions
    # names by pair number from the sample Pairs sheet (its directions do not matter in a Howell)
    assert [rk.cell(row=r, column=3).value for r in (5, 6, 10)] == [
        "A. Adams & B. Brown", "I. Irving & J. Jones", "G. Green & H. Hall"]
    assert all(_blank(rk.cell(row=r, column=2).value) for r in range(11, RANKING_END))


def test_an_impossible_score_is_reported_not_hidden(tmp_path):
    """410 cannot be scored (Law 77: no contract gives N-S 410 on board 1, nobody vulnerable): the row's Score NS and
    its board's matchpoints are Excel errors, the recalc report names the input cell typed (Typed Score, G8: issue
    52, a mistake named where it was typed), and the ranking leaves the row out (every other row keeps its result)
    and names it in the line above it."""
    src = tmp_path / "pairs.xlsx"
    wb = openpyxl.load_workbook(_small())
    ws = wb["Travellers"]
    ws["G8"] = 410  # board 1, 4th row: typed 400 -> 410
    wb.save(src)
    out = tmp_path / "out.xlsx"
    report = recalc_here(src, out)
    vals = openpyxl.load_workbook(out, data_only=True)
    t = vals["Travellers"]
    assert t["H8"].value == "#VALUE!"  # (SCORE_OR_TYPED: the row's mistake, core.travellerrow)
    assert t["N8"].value == "#VALUE!"
    # the rest of board 1 keeps its matchpoints among the results there are, as the Ranking adds them up (issue 52):
    # numbers, N-S and E-W sharing each row's comparisons (the same total on every row, Law 78A)
    rest = [(t.cell(row=r, column=14).value, t.cell(row=r, column=15).value) for r in (5, 6, 7, 9, 10)]
    assert all(isinstance(v, (int, float)) for pair in rest for v in pair), rest
    assert len({round(ns + ew, 9) for ns, ew in rest}) == 1, rest
    assert isinstance(t["N11"].value, float)  # board 2 still scored
    assert vals["Ranking"]["A3"].value.startswith("Not counted: Travellers row 8 (red there")
    assert vals["Ranking"]["A5"].value in ("NS", "EW")  # the ranking itself, not a message
    cells = {f"{e.sheet}!{e.cell}" for e in report.errors}
    assert "Travellers!G8" in cells and not any(c.startswith("Ranking!") for c in cells)
    assert not {"Travellers!H8", "Travellers!N8", "Travellers!O8"} & cells  # (named once, at the input cell)
    said = next(str(e) for e in report.errors if e.cell == "G8")
    assert "impossible score for vulnerability 'None' (nobody vulnerable): 410" in said
