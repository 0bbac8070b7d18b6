"""handicap.xlsx recalculated headlessly (``xlbridge recalc``) gives the core API's values.

Expected values: the core API (xlbridge.forml_handicaps, xlbridge.fairness_count) on the same inputs, and seed
000's Table 1 typed in here (with the ERRATA correction Lambs 77 -> 79).
"""

from __future__ import annotations

import shutil
from fractions import Fraction
from math import comb
from pathlib import Path

import openpyxl
from recalc_helpers import canonical_dump, recalc_copy
import pytest
from openpyxl.worksheet.formula import ArrayFormula

recalc = pytest.importorskip("xlbridge.batch.recalc", reason="needs xlbridge.batch.recalc (the headless recalc engine)")
pytest.importorskip("xlbridge.udfs", reason="needs xlbridge.udfs (the Excel functions)")

from xlbridge.core.handicap import fairness, forml  # noqa: E402
from xlbridge.templates.mirror import shows_row  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "workbooks" / "examples" / "handicap.xlsx"
ROWS = range(5, 505)

# seed 000, Table 1 (Expected VP Diff, Merged VP Diff, Handicap IMPs, Existing handicaps), ERRATA: Lambs 79
SEED_EXPECTED = [0, 0, 1.00, 6.67, 14.50, 17.83, 0, 1.50, 2.33, 2.50, 2.67, 6.00, 0, 2.83, 13.50, 14.50, 15.50, 23.67]
SEED_MERGED = [0, 0, 1.00, 6.67, 14.50, 17.83, 10.58, 12.08, 12.92, 13.08, 13.25, 16.58, 13.17, 16.00, 26.67, 27.67,
               28.67, 36.83]
SEED_IMPS = [0, 0, 3, 18, 40, 49, 29, 33, 36, 36, 36, 46, 36, 44, 73, 76, 79, 101]
SEED_EXISTING = [0, 0, 12, 18, 24, 30, 30, 36, 42, 48, 54, 60, 60, 66, 72, 78, 84, 90]


def _blank(v):
    return v is None or v == ""


_recalc = recalc_copy


@pytest.fixture(scope="module")
def done(example_recalculated):
    return example_recalculated("handicap.xlsx")


def _inputs(wb):
    ws = wb["Handicaps"]
    rows = [r for r in ROWS if ws.cell(row=r, column=1).value is not None]
    return rows, [ws.cell(row=r, column=1).value for r in rows], [ws.cell(row=r, column=3).value for r in rows]


def _check_handicaps(src, vals):
    rows, d, a = _inputs(openpyxl.load_workbook(src))
    ws = vals["Handicaps"]
    expected = forml.forml_vpdiff(d, a)
    merged = forml.forml_vpdiff(d, a, merged=True)
    imps = forml.forml_handicaps(d, a)
    legacy = forml.legacy_handicaps(d, a)
    for i, r in enumerate(rows):
        got = [ws.cell(row=r, column=c).value for c in (4, 5, 6, 7)]
        assert got == [float(expected[i]), float(merged[i]), imps[i], legacy[i]], f"row {r}"
    for r in ROWS:
        if r not in rows:
            assert all(_blank(ws.cell(row=r, column=c).value) for c in (4, 5, 6, 7)), f"row {r} should be blank"
    return rows


def test_values_equal_core_and_seed_table1(done):
    src, _, vals = done
    rows = _check_handicaps(src, vals)
    assert rows == list(range(5, 23))
    ws = vals["Handicaps"]
    col = lambda c: [ws.cell(row=r, column=c).value for r in rows]  # noqa: E731
    assert [round(x, 2) for x in col(4)] == SEED_EXPECTED
    assert [round(x, 2) for x in col(5)] == SEED_MERGED
    assert col(6) == SEED_IMPS
    assert col(7) == SEED_EXISTING
    # the seed's Range rows (standard Excel functions): 10.7, 3.6, 14.2
    assert [round(ws.cell(row=r, column=11).value, 1) for r in (15, 16, 17)] == [10.7, 3.6, 14.2]
    assert [ws.cell(row=r, column=10).value for r in (15, 16, 17)] == [6, 6, 6]
    assert all(_blank(ws.cell(row=r, column=c).value) for r in (18, 19, 20) for c in (10, 11))


def test_new_teams_equal_core(done):
    src, _, vals = done
    wb = openpyxl.load_workbook(src)
    nt = wb["NewTeams"]
    cols = [[nt.cell(row=r, column=c).value for r in range(5, 205)] for c in (1, 2, 3, 4)]
    rows, d, a = _inputs(wb)
    known = [wb["Handicaps"].cell(row=r, column=2).value for r in rows]
    merged = forml.forml_vpdiff(d, a, merged=True)
    want = forml.forml_new_teams(*[[v for v in c if v is not None] for c in cols], known, merged, imps_per_vp=2.75)
    ws = vals["NewTeams"]
    got = [(ws.cell(row=r, column=6).value, ws.cell(row=r, column=7).value) for r in range(5, 5 + len(want))]
    assert got == list(want.items())
    assert len(want) == 2
    assert all(_blank(ws.cell(row=r, column=c).value) for r in range(5 + len(want), 45) for c in (6, 7))


def test_fairness_bands_and_p_values(done):
    _, _, vals = done
    ws = vals["Fairness"]
    for j, tail in enumerate((Fraction(1, 4), Fraction(1, 10), Fraction(1, 100))):
        got = [(ws.cell(row=4 + n, column=2 + 2 * j).value, ws.cell(row=4 + n, column=3 + 2 * j).value)
               for n in range(1, 201)]
        assert got == [tuple(fairness.fairness_band(n, tail)) for n in range(1, 201)], tail
    assert [ws.cell(row=4 + n, column=8).value for n in (1, 2, 200)] == [0.5, 1, 100]
    # seed 000: 19 of 56 won by the higher-RANKING team = 37 of 56 by the higher-handicap team
    observed = [(37, 56), (34, 87), (44, 88), (39, 80), (83, 168), (6, 12)]
    got = [ws.cell(row=r, column=13).value for r in range(6, 12)]  # row 5: this season (Results sheet)
    assert got == [float(fairness.fairness_p_exact(w, n)) for w, n in observed]
    upper = [ws.cell(row=r, column=14).value for r in range(6, 12)]
    assert upper == [float(fairness.fairness_p_upper_exact(w, n)) for w, n in observed]
    assert upper == pytest.approx([float(Fraction(sum(comb(n, k) for k in range(w, n + 1)), 2 ** n)) for w, n in observed])
    assert round(upper[0], 4) == 0.0111  # seed 000: P(X >= 37 | 56) = P(X <= 19 | 56) (ERRATA: a p-value)
    assert round(got[1], 4) == round(float(sum(comb(87, k) for k in range(35)) / 2 ** 87), 4)
    assert all(_blank(ws.cell(row=r, column=13).value) for r in range(12, 25))
    assert all(_blank(ws.cell(row=r, column=14).value) for r in range(12, 25))


def test_formulas_styles_validations_and_chart_kept(done):
    src, out, _ = done
    assert canonical_dump(out) == canonical_dump(src)
    wb = openpyxl.load_workbook(out)
    # the array formula, on its hidden sheet from the header row (as the ranges it reads); the cell in view shows it
    ws = wb["Handicaps (calc)"]
    assert isinstance(ws["F4"].value, ArrayFormula) and ws["F4"].value.ref == "F4:F509"  # 5 rows of headroom
    assert wb["Handicaps"]["F504"].value == shows_row("'Handicaps (calc)'!$F$4:$F$509", "$A$4:$A$504")


def test_new_average_vps_and_a_fourth_division(tmp_path):
    """Change inputs with openpyxl (new Average VPs, a new division, a deleted team): recalc follows."""
    src = tmp_path / "handicap.xlsx"
    wb = openpyxl.load_workbook(SRC)
    ws = wb["Handicaps"]
    for r, v in zip(range(5, 23), [15.2, 13.9, 12.0, 11.1, 6.4, 2.0, 12.5, 11.0, 10.9, 9.0, 8.8, 6.1,
                                   16.2, 14.0, 9.7, 8.0, 7.1, 3.3]):
        ws.cell(row=r, column=3, value=v)
    ws["A10"] = ws["B10"] = ws["C10"] = None  # JCBC leaves the league: a blank row in the middle
    for i, (t, v) in enumerate([("Newbury", 14.5), ("Aces", 12.25), ("Kings", 9.0), ("Owls", 6.75), ("Bats", 2.5)]):
        ws.cell(row=60 + i, column=1, value=4)
        ws.cell(row=60 + i, column=2, value=t)
        ws.cell(row=60 + i, column=3, value=v)
    ws["J5"] = 3  # IMPs per VP
    wb.save(src)
    _, vals = _recalc(src, tmp_path)
    rows, d, a = _inputs(openpyxl.load_workbook(src))
    h = vals["Handicaps"]
    want = forml.forml_handicaps(d, a, imps_per_vp=3)
    assert [h.cell(row=r, column=6).value for r in rows] == want
    assert [h.cell(row=r, column=4).value for r in rows] == [float(x) for x in forml.forml_vpdiff(d, a)]
    assert [h.cell(row=r, column=5).value for r in rows] == [float(x) for x in forml.forml_vpdiff(d, a, merged=True)]
    assert [h.cell(row=r, column=7).value for r in rows] == forml.legacy_handicaps(d, a)
    assert all(_blank(h.cell(row=10, column=c).value) for c in (4, 5, 6, 7))
    assert h.cell(row=18, column=10).value == 5  # division 4 now has 5 teams
