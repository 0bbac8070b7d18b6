"""Weighted scores in team play (seed 004) and match results; exact, against hand work and brute force.

Seed 004 (Law 12C1(c) article): 60 % of 420 and 40 % of -50, other room 400; Swiss on the
7-board WBF scale (ERRATA.md).  Other expected values are hand-worked below or computed by
brute-force enumeration of every combination of outcomes, written in this file.
"""

import itertools
import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlbridge.core.errors import InputError, TooManyCombinationsError, WeightError
from xlbridge.core.rounding import round_display
from xlbridge.core.teams.teams import (
    DEFAULT_MAX_COMBINATIONS,
    board_a_match,
    match_result,
    outcome_imps,
    round_imps,
    weighted_butler,
    weighted_cross_imps,
    weighted_imps,
    weighted_vp,
)
from xlbridge.core.teams.vp import vp

F = Fraction
SEED = [(420, 0.6), (-50, 0.4)]

# Law 78B lower band edges from 1 IMP up (the Law's table)
EDGES = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300, 1500, 1750, 2000,
         2250, 2500, 3000, 3500, 4000]


def ref_imps(d):
    n = sum(abs(d) >= e for e in EDGES)
    return n if d >= 0 else -n


# ------------------------------------------------------------------ seed 004

def test_seed_004_knockout():
    assert weighted_imps(SEED, 400) == F("-3.4")
    assert weighted_imps(SEED, 400, rounding="nearest") == -3


def test_seed_004_board_a_match():
    assert board_a_match(SEED, 400) == F("0.2")
    assert board_a_match(SEED, 400, scale="points") == F("0.6")


def test_seed_004_swiss_imp_level_and_vp_level():
    board = outcome_imps(SEED, 400)
    assert board == ((1, F(3, 5)), (-10, F(2, 5)))
    # the regulation way: 8 - 3 = 5 IMPs -> 12.18 VP
    assert weighted_vp(8, [board], 7, rounding="nearest") == F("12.18")
    # seed 004's proposal: 0.6 x VP(+9) + 0.4 x VP(-2) = 0.6 x 13.65 + 0.4 x 9.08 = 11.822
    v = weighted_vp(8, [board], 7, level="vp")
    assert v == F("11.822")
    assert round_display(v, "HALF_UP") == Decimal("11.82")
    # the two outcome VPs the seed quotes
    assert vp(9, 7) == F("13.65") and vp(-2, 7) == F("9.08")


def test_seed_004_match_result():
    # 8 IMPs net on the other six boards, the weighted board on board 5
    r = match_result([3, 0, 5, -2, [(1, 0.6), (-10, 0.4)], 2, 0], rounding="nearest")
    assert (r.imps_a, r.imps_b) == (10, F("5.4"))
    assert r.margin == 5 and r.vp_a == F("12.18") and r.vp_b == F("7.82") and r.boards == 7
    rv = match_result([3, 0, 5, -2, [(1, 0.6), (-10, 0.4)], 2, 0], level="vp")
    assert rv.vp_a == F("11.822") and rv.vp_a + rv.vp_b == 20
    exact = match_result([3, 0, 5, -2, [(1, 0.6), (-10, 0.4)], 2, 0])
    # exact margin 4.6: 11.77 + 0.6 x (12.18 - 11.77)
    assert exact.margin == F("4.6") and exact.vp_a == F("12.016")


def test_match_result_plain_and_not_played():
    r = match_result([12, -3, None, 0, 7, -1, 2, 0], boards=8)
    assert (r.imps_a, r.imps_b, r.margin) == (21, 4, 17) and r.vp_a == vp(17, 8)
    r2 = match_result([-12, -3])
    assert r2.margin == -15 and r2.vp_b == vp(15, 2) and r2.vp_a == 20 - vp(15, 2)


# ------------------------------------------------------------------ weights and rounding

@pytest.mark.parametrize(
    "outcomes, weights",
    [
        ([(420, 0.6), (-50, 0.4)], None),
        ([(420, 60), (-50, 40)], None),
        ([(420, "60%"), (-50, "40%")], None),
        ([(420, "0.6"), (-50, "0.4")], None),
        ({420: 0.6, -50: 0.4}, None),
        ([420, -50], [60, 40]),
        ([420.0, "-50"], ["60 %", 0.4]),
    ],
)
def test_weight_formats(outcomes, weights):
    assert weighted_imps(outcomes, 400, weights=weights) == F("-3.4")


def test_thirds_as_text():
    out = [(420, "1/3"), (400, "1/3"), (-50, "1/3")]
    assert weighted_imps(out, 400) == F(1 - 10, 3)


@pytest.mark.parametrize(
    "outcomes, message",
    [
        ([(420, 0.6), (-50, 0.5)], "110%"),
        ([(420, 1.2), (-50, -0.2)], "negative"),
        ([(420, "x"), (-50, 0.4)], "weight"),
        ([(420, None), (-50, 0.4)], "no weight"),
        ([(420,), (-50, 0.4)], "pair"),
    ],
)
def test_weight_errors(outcomes, message):
    with pytest.raises(WeightError, match=message):
        weighted_imps(outcomes, 400)


def test_outcome_must_be_a_score():
    with pytest.raises(InputError, match="N-S score"):
        weighted_imps([("A60/40", 0.5), (420, 0.5)], 400)
    with pytest.raises(InputError, match="other room"):
        weighted_imps(SEED, "NP")


@pytest.mark.parametrize(
    "x, nearest, fav_ns_offended, fav_ew_offended, fav_neither",
    [
        ("-3.4", -3, -3, -3, -3),
        ("2.5", 3, 2, 3, 2),
        ("-2.5", -3, -3, -2, -3),
        ("0.5", 1, 0, 1, 0),
        ("2.6", 3, 3, 3, 3),
        ("-0.4", 0, 0, 0, 0),
    ],
)
def test_round_imps_rules(x, nearest, fav_ns_offended, fav_ew_offended, fav_neither):
    v = F(x)
    assert round_imps(v) == nearest
    assert round_imps(v, None) == v
    assert round_imps(v, "favour_non_offending", offender="ns") == fav_ns_offended
    assert round_imps(v, "favour_non_offending", offender="ew") == fav_ew_offended
    assert round_imps(v, "favour_non_offending", offender=None) == fav_neither
    assert round_imps(v, "favour_non_offending", offender="both") == fav_neither


def test_round_imps_reads_floats_as_written():
    # a spreadsheet's -3.4 is -17/5, not the binary float just above it
    assert round_imps(-3.4, None) == F(-17, 5)
    assert round_imps(2.5) == 3 and round_imps(-2.5) == -3
    with pytest.raises(InputError, match="IMPs must be a number"):
        round_imps("x")


def test_round_imps_errors():
    with pytest.raises(InputError, match="unknown IMP rounding"):
        round_imps(F(1, 2), "bankers")
    with pytest.raises(InputError, match=r"unknown offending side .north. \(expected one of ns, ew, both, neither\)"):
        round_imps(F(1, 2), "favour_non_offending", offender="north")


@given(st.fractions(min_value=-50, max_value=50, max_denominator=10))
def test_nearest_is_symmetric(x):
    assert round_imps(-x) == -round_imps(x)
    assert abs(round_imps(x) - x) <= F(1, 2)


# ------------------------------------------------------------------ Swiss at VP level: brute force

@settings(max_examples=40)
@given(st.integers(-30, 30), st.lists(st.lists(st.tuples(st.integers(-15, 15), st.integers(1, 5)),
                                               min_size=1, max_size=3), min_size=1, max_size=3),
       st.integers(5, 20))
def test_weighted_vp_levels_brute_force(margin, raw, boards):
    wboards = []
    for b in raw:
        tot = sum(w for _, w in b)
        wboards.append([(i, F(w, tot)) for i, w in b])
    expected_vp = sum(
        math.prod((w for _, w in combo), start=F(1)) * vp(margin + sum(i for i, _ in combo), boards)
        for combo in itertools.product(*wboards)
    )
    assert weighted_vp(margin, wboards, boards, level="vp") == expected_vp
    imp_total = margin + sum(i * w for b in wboards for i, w in b)
    assert weighted_vp(margin, wboards, boards) == vp(imp_total, boards)


def test_weighted_vp_many_boards_and_limit():
    # 30 boards each 50/50 between +1 and -1: 2**30 combinations, but only 31 distinct totals;
    # the total is 2k - 30 with probability C(30, k) / 2**30 (binomial, written out here)
    wb = [[(1, 0.5), (-1, 0.5)]] * 30
    expected = sum(F(math.comb(30, k), 2**30) * vp(2 * k - 30, 32) for k in range(31))
    assert weighted_vp(0, wb, 32, level="vp") == expected == 10
    skew = [[(3, 0.25), (-1, 0.75)]] * 12
    expected = sum(F(math.comb(12, k) * 3 ** (12 - k), 4**12) * vp(5 + 3 * k - (12 - k), 16) for k in range(13))
    assert weighted_vp(5, skew, 16, level="vp") == expected
    with pytest.raises(TooManyCombinationsError, match="31 distinct IMP totals"):
        weighted_vp(0, wb, 32, level="vp", max_combinations=30)
    assert DEFAULT_MAX_COMBINATIONS >= 2**20


def test_weighted_vp_bad_level():
    with pytest.raises(InputError, match="level"):
        weighted_vp(0, [[(1, 1)]], 8, level="mp")


# ------------------------------------------------------------------ weighted cross-IMPs and Butler

TRAVELLER = [[(420, 0.6), (-50, 0.4)], 420, 400, 400, 170, -50]


def test_weighted_cross_imps_hand_worked():
    # 60 %: 420 420 400 400 170 -50 -> totals 18 18 14 14 -18 -46
    # 40 %: -50 420 400 400 170 -50 -> totals -36 28 25 25 -6 -36
    r = weighted_cross_imps(TRAVELLER)
    expected = [F(3, 5) * a + F(2, 5) * b for a, b in zip([18, 18, 14, 14, -18, -46], [-36, 28, 25, 25, -6, -36])]
    assert list(r.ns) == expected  # -3.6, 22, 18.4, 18.4, -13.2, -42
    assert list(r.ew) == [-x for x in expected]
    avg = weighted_cross_imps(TRAVELLER, average=True)
    assert list(avg.ns) == [x / 5 for x in expected]


def test_weighted_cross_imps_grid_layout():
    scores = [[420, -50], [420, None], [400, None], [400, None], [170, None], [-50, None], ["A60/40", None]]
    weights = [[60, 40], [None, None], [None, None], [1, None], [None, None], [None, None], [None, None]]
    r = weighted_cross_imps(scores, weights, average=True)
    assert list(r.ns[:6]) == list(weighted_cross_imps(TRAVELLER, average=True).ns)
    assert r.ns[6] == 3 and r.ew[6] == -3


def test_weighted_butler_hand_worked():
    # topbottom.  60 %: 420 420 400 400 170 -50: drop 420 and -50:
    # 1390 / 4 = 347.5 -> 350: IMPs 2 2 2 2 -5 -9 (70, 70, 50, 50, -180, -400).
    # 40 %: -50 420 400 400 170 -50: drop 420 and -50: 920 / 4 = 230: IMPs -7 5 5 5 -2 -7.
    b = weighted_butler(TRAVELLER, trim="topbottom")
    expected = [F(3, 5) * a + F(2, 5) * c for a, c in zip([2, 2, 2, 2, -5, -9], [-7, 5, 5, 5, -2, -7])]
    assert list(b.ns) == expected  # -1.6, 3.2, 3.2, 3.2, -3.8, -8.2
    assert list(b.ew) == [-x for x in expected]
    assert b.datums[None] == F(3, 5) * 350 + F(2, 5) * 230
    # a final 5: 60 % of 420 / 40 % of 410, the other result 430 (no trim): means 425 and 420;
    # "even" makes the first datum 420, "away" 430
    # (410 is no bridge score: the rounding is what is checked, so the legality check is off)
    t = [[(420, 0.6), (410, 0.4)], 430]
    assert weighted_butler(t, trim="none", check_legal=False).datums[None] == 420 * F(3, 5) + 420 * F(2, 5)
    assert weighted_butler(t, trim="none", rounding="away", check_legal=False).datums[None] == \
        430 * F(3, 5) + 420 * F(2, 5)
    with pytest.raises(InputError, match="row 1: impossible score: 410"):
        weighted_butler(t, trim="none")


def test_weighted_butler_limit_and_boards():
    rows = [[(420, 0.5), (400, 0.5)]] * 3 + [170]
    # (board 7 is vulnerable for both: 420 cannot occur there; the limit is what is checked)
    with pytest.raises(TooManyCombinationsError, match="board 7.*8 combinations"):
        weighted_butler(rows, boards=[7] * 4, max_combinations=7, check_legal=False)
    ok = weighted_butler(rows + [110, [(-50, 0.5), (50, 0.5)]], boards=[7] * 4 + [8, 8], max_combinations=8,
                         check_legal=False)
    assert set(ok.datums) == {7, 8}


def test_weighted_butler_huge_weight_denominators_stay_exact():
    # weights 1/(4 x 10**15) and the rest: the combination weights times a datum near 7600 do
    # not fit in int64, which used to wrap round silently (a negative datum).  Hand-worked:
    # p = 1/(4e15): 7600 7600 7600 -> datum 7600, IMPs 0 0 0;
    # 1 - p:        7500 7600 7600 -> mean 7566.67 -> datum 7570, IMPs -2 +1 +1 (-70, +30, +30).
    den = 4 * 10**15
    p = F(1, den)
    b = weighted_butler([[(7600, f"1/{den}"), (7500, f"{den - 1}/{den}")], 7600, 7600], trim="none",
                        check_legal=False)  # 7500 is no bridge score: the arithmetic is checked
    assert b.datums[None] == p * 7600 + (1 - p) * 7570
    assert list(b.ns) == [(1 - p) * -2, (1 - p) * 1, (1 - p) * 1]


def brute_cross_total(scores):
    return [sum(ref_imps(a - b) for j, b in enumerate(scores) if j != i) for i, a in enumerate(scores)]


def brute_datum(scores, k):
    s = sorted(scores)[k: len(scores) - k]
    tens = F(sum(s), len(s)) / 10
    lo = math.floor(tens)
    if tens - lo > F(1, 2) or (tens - lo == F(1, 2) and lo % 2):
        lo += 1
    return 10 * lo


row_strategy = st.one_of(
    st.integers(-50, 50).map(lambda x: x * 10),
    st.lists(st.tuples(st.integers(-50, 50).map(lambda x: x * 10), st.integers(1, 4)), min_size=2, max_size=3),
)


def _norm(rows):
    out = []
    for r in rows:
        if isinstance(r, int):
            out.append(((r, F(1)),))
        else:
            tot = sum(w for _, w in r)
            out.append(tuple((s, F(w, tot)) for s, w in r))
    return out


@settings(max_examples=40)
@given(st.lists(row_strategy, min_size=1, max_size=6), st.integers(0, 2))
def test_weighted_cross_imps_and_butler_brute_force(rows, extra):
    outs = _norm(rows)
    arg = [r if isinstance(r, int) else list(o) for r, o in zip(rows, outs)]
    n = len(rows)
    E = n + extra
    exp_cross = [F(0)] * n
    exp_butler = [F(0)] * n
    k = 1 if n >= 3 else 0  # topbottom
    for combo in itertools.product(*outs):
        p = math.prod((w for _, w in combo), start=F(1))
        sc = [s for s, _ in combo]
        tot = brute_cross_total(sc)
        d = brute_datum(sc, k)
        for i in range(n):
            factored = F(tot[i] * (E - 1), n - 1) if n > 1 else F(0)
            exp_cross[i] += p * factored
            exp_butler[i] += p * ref_imps(sc[i] - d)
    # any multiple of 10 (not only bridge scores): the arithmetic against brute force
    assert list(weighted_cross_imps(arg, expected=E, check_legal=False).ns) == exp_cross
    assert list(weighted_butler(arg, trim="topbottom", check_legal=False).ns) == exp_butler
