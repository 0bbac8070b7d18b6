"""IMPs (Law 78B), artificial scores at IMPs, cross-IMPs and Butler: hand-worked and brute force.

Expected values come from the Law 78B table (written out here), published worked examples
(cited at each test) and brute-force references written in this file.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlbridge
from xlbridge.core.entries import Artificial
from xlbridge.core.errors import InputError
from xlbridge.core.teams.butler import butler, butler_datum, butler_datums, butler_trim_count
from xlbridge.core.teams.imps import artificial_imps, cross_imp_totals, cross_imps, imps, imps_array

# Law 78B, as printed: difference in points -> IMPs
LAW_78B = """0-10 0|20-40 1|50-80 2|90-120 3|130-160 4|170-210 5|220-260 6|270-310 7|320-360 8|370-420 9|
430-490 10|500-590 11|600-740 12|750-890 13|900-1090 14|1100-1290 15|1300-1490 16|1500-1740 17|
1750-1990 18|2000-2240 19|2250-2490 20|2500-2990 21|3000-3490 22|3500-3990 23"""


def law_table():
    rows = []
    for part in LAW_78B.replace("\n", "").split("|"):
        rng, i = part.split()
        lo, hi = rng.split("-")
        rows.append((int(lo), int(hi), int(i)))
    return rows


_BY_TEN = {}
for _lo, _hi, _i in law_table():
    for _d in range(_lo, _hi + 1, 10):
        _BY_TEN[_d] = _i


def ref_imps(d):
    """Brute force: look the multiple of 10 up in the Law's table."""
    a = abs(d)
    i = 24 if a >= 4000 else _BY_TEN[a]
    return i if d >= 0 else -i


def test_every_band_edge_of_law_78b():
    for lo, hi, i in law_table():
        for d in (lo, hi):
            assert imps(d) == i
            assert imps(-d) == -i
    assert imps(4000) == 24 and imps(-7600 - 7600) == -24


def test_every_multiple_of_ten_against_the_table():
    ds = np.arange(-16000, 16001, 10)
    expected = [ref_imps(int(d)) for d in ds]
    assert [imps(int(d)) for d in ds] == expected
    assert imps_array(ds).tolist() == expected


def test_imps_accepts_excel_values_and_keeps_sign():
    assert imps(250.0) == 6 and imps("-250") == -6 and imps(np.int64(-430)) == -10
    assert imps(Fraction(95)) == 3
    assert xlbridge.imps(-250) == -6


@pytest.mark.parametrize("bad", [None, True, "x", float("nan"), float("inf")])
def test_imps_refuses_non_numbers(bad):
    with pytest.raises(InputError):
        imps(bad)


def test_imps_array_nan_stays_nan():
    out = imps_array(np.array([[20.0, np.nan], [-600.0, 0.0]]))
    assert out[0, 0] == 1 and np.isnan(out[0, 1]) and out[1, 0] == -12 and out[1, 1] == 0


def test_artificial_scores_at_imps():
    assert artificial_imps(Artificial.parse("A60/40")) == (3, -3)
    assert artificial_imps(Artificial.parse("A40/60")) == (-3, 3)
    assert artificial_imps(Artificial.parse("A50/50")) == (0, 0)
    assert artificial_imps(Artificial.parse("A60/60")) == (3, 3)
    assert artificial_imps(Artificial.parse("A40/40")) == (-3, -3)
    with pytest.raises(InputError):
        artificial_imps(420)


# ------------------------------------------------------------------ cross-IMPs

def test_cross_imps_published_example():
    # bridge55.fi ("CrossImp Scoring"): N-S +420 against the five other tables' scores
    # (E-W there -450, +100, +200, -400, -590 = N-S +450, -100, -200, +400, +590):
    # IMPs -1, +11, +12, +1, -5: total +18, cross-IMP score 18/5 = +3.6.
    r = cross_imps([420, 450, -100, -200, 400, 590], average=True)
    assert r.ns[0] == Fraction(18, 5)
    assert r.ew[0] == Fraction(-18, 5)
    tot = cross_imps([420, 450, -100, -200, 400, 590])
    assert tot.ns[0] == 18


def test_cross_imps_hand_worked_total_average_factored():
    # 420 vs 400 / 170 / -50: +1 +6 +10 = 17;  400: -1 +6 +10 = 15;
    # 170: -6 -6 +6 = -6;  -50: -10 -10 -6 = -26 (sum 0)
    r = cross_imps([420, 400, 170, -50])
    assert r.ns == (17, 15, -6, -26)
    assert r.ew == (-17, -15, 6, 26)
    a = cross_imps([420, 400, 170, -50], average=True)
    assert a.ns == (Fraction(17, 3), 5, -2, Fraction(-26, 3))
    # one of five results missing (NP): totals factored by (5 - 1) / (4 - 1)
    f = cross_imps([420, 400, "NP", 170, -50], expected=5)
    assert f.ns == (Fraction(68, 3), 20, None, -8, Fraction(-104, 3))
    # default expected = the largest count on any board in the call (40 and 10 are no bridge scores:
    # the arithmetic is what is checked here, so the legality check is off)
    g = cross_imps([420, 400, 170, -50, 100, 0, -100, 40, 10], boards=[1, 1, 1, 1, 2, 2, 2, 2, 2], check_legal=False)
    assert g.expected == 5
    assert g.ns[:4] == (Fraction(68, 3), 20, -8, Fraction(-104, 3))
    # board 2: 100 vs 0, -100, 40, 10: +3 +5 +2 +3 = 13
    assert g.ns[4] == 13


def test_cross_imps_artificial_np_blank():
    r = cross_imps([420, "A60/40", 400, None, "NP", 170, -50])
    assert r.expected == 5  # 4 real + 1 artificial
    assert r.ns[0] == Fraction(17 * 4, 3)  # 4 real of 5 expected: x 4/3
    assert r.ns[1] == 3 * 4 and r.ew[1] == -3 * 4  # +3 per comparison, 4 comparisons
    assert r.ns[3] is None and r.ew[4] is None
    a = cross_imps([420, "A60/40", 400, 170, -50], average=True)
    assert a.ns[1] == 3 and a.ew[1] == -3
    assert a.ns[0] == Fraction(17, 3)


def test_cross_imps_single_result_and_errors():
    assert cross_imps([420]).ns == (0,)
    with pytest.raises(InputError, match="expected is only 2"):
        cross_imps([420, 400, 170], expected=2)
    with pytest.raises(InputError, match="row 2"):
        cross_imps([420, "hello"])
    with pytest.raises(InputError, match="parallel"):
        cross_imps([420, 400], boards=[1])


def brute_cross(scores):
    return [sum(ref_imps(a - b) for j, b in enumerate(scores) if j != i) for i, a in enumerate(scores)]


score_lists = st.lists(st.integers(-760, 760).map(lambda x: 10 * x), min_size=1, max_size=14)


@given(score_lists)
def test_cross_imps_brute_force(scores):
    r = cross_imps(scores, check_legal=False)  # any multiple of 10: the arithmetic against brute force
    assert list(r.ns) == brute_cross(scores)
    assert sum(r.ns) == 0


@given(st.lists(score_lists, min_size=1, max_size=6), st.data())
def test_cross_imp_totals_many_boards_with_gaps(boards, data):
    n = max(len(b) for b in boards)
    S = np.full((len(boards), n + 2), np.nan)
    truth = np.zeros(S.shape, dtype=np.int64)
    for r, b in enumerate(boards):
        cols = data.draw(st.permutations(range(n + 2)))[: len(b)]
        for c, s in zip(cols, b):
            S[r, c] = s
        for c, t in zip(cols, brute_cross(b)):
            truth[r, c] = t
    totals, counts = cross_imp_totals(S, check_legal=False)  # any multiples of 10: the arithmetic
    assert totals.tolist() == truth.tolist()
    assert counts.tolist() == [len(b) for b in boards]


# ------------------------------------------------------------------ Butler

def test_butler_published_example_nbb_top_bottom():
    # ilovebridge.nl, "Butler-regels uitgelegd": N-S scores 450, 420, -800, -50, 420, 420; the best
    # (+450) and worst (-800) are dropped: (420 - 50 + 420 + 420) / 4 = 302.5 -> datum 300;
    # IMPs +4, +3, -15, -8, +3, +3 for N-S (E-W the opposite).
    scores = [450, 420, -800, -50, 420, 420]
    for rounding in ("even", "away", "half_up"):
        assert butler_datum(scores, trim="topbottom", rounding=rounding) == 300
    b = butler(scores, trim="topbottom")
    assert b.ns == (4, 3, -15, -8, 3, 3)
    assert b.ew == (-4, -3, 15, 8, -3, -3)
    assert b.datums == {None: 300}


def test_butler_published_example_bbo_plain_mean():
    # BBO forums (Bermuda Bowl 2011 thread): 22 tables, 3 x 980, 11 x 480, 7 x 450, 1 x -50:
    # mean 514.55 -> datum 510; 980 -> +10, 480 -> -1, 450 -> -2, -50 -> -11.
    scores = [980] * 3 + [480] * 11 + [450] * 7 + [-50]
    assert butler_datum(scores, trim="none") == 510
    b = butler(scores, trim="none")
    assert set(zip(scores, b.ns)) == {(980, 10), (480, -1), (450, -2), (-50, -11)}


def test_butler_published_example_small_field():
    # bridgewebs.com/bridgeforfun: +170, +140, +140, +110: average +140; IMPs +1, 0, 0, -1.
    b = butler([170, 140, 140, 110], trim="none")
    assert b.datums[None] == 140 and b.ns == (1, 0, 0, -1)


@pytest.mark.parametrize(
    "scores, even, away, half_up",
    [
        ([420, 430], 420, 430, 430),      # mean 425
        ([430, 440], 440, 440, 440),      # mean 435: 44 is even
        ([-420, -430], -420, -430, -420),  # mean -425
        ([-430, -440], -440, -440, -430),  # mean -435
        ([0, 10], 0, 10, 10),             # mean 5
        ([0, -10], 0, -10, 0),            # mean -5
        ([420, 430, 440], 430, 430, 430),  # mean 430: no tie
    ],
)
def test_rounding_of_a_final_five(scores, even, away, half_up):
    # 10 and -10 are no bridge scores: only the rounding of the mean is checked here
    legal = all(s not in (10, -10) for s in scores)
    assert butler_datum(scores, trim="none", rounding="even", check_legal=legal) == even
    assert butler_datum(scores, trim="none", rounding="away", check_legal=legal) == away
    assert butler_datum(scores, trim="none", rounding="half_up", check_legal=legal) == half_up


def test_trim_rules_hand_worked():
    # 10 scores: acbl drops 1 each end (5 % of 10 = 0.5, rounded up), count drops 1, topbottom 1
    scores = [2000, 620, 620, 600, 600, 170, 140, 140, 100, -1100]
    middle = [620, 620, 600, 600, 170, 140, 140, 100]  # sum 2990, mean 373.75
    assert sum(middle) == 2990
    for trim in ("acbl", "count", "topbottom", 1):
        assert butler_datum(scores, trim=trim) == 370
    assert butler_datum(scores, trim="none") == 390  # 3890 / 10 = 389
    # 9 scores: acbl drops nothing (0.45 rounds to 0), topbottom drops 1
    nine = scores[:9]  # 2000 ... 100: sum 4990
    assert butler_datum(nine, trim="acbl") == 550  # 554.4


def test_trim_rules_hand_worked_exact_topbottom_nine():
    nine = [2000, 620, 620, 600, 600, 170, 140, 140, 100]
    # drop 2000 and 100: 620 + 620 + 600 + 600 + 170 + 140 + 140 = 2890; / 7 = 412.86 -> 410
    assert butler_datum(nine, trim="topbottom") == 410


@pytest.mark.parametrize(
    "n, acbl, topbottom, count",
    [(1, 0, 0, 0), (2, 0, 0, 0), (3, 0, 1, 1), (9, 0, 1, 1), (10, 1, 1, 1), (19, 1, 1, 1), (20, 1, 1, 2),
     (29, 1, 1, 2), (30, 2, 1, 3), (50, 3, 1, 5)],
)
def test_trim_counts(n, acbl, topbottom, count):
    assert butler_trim_count(n, "acbl") == acbl
    assert butler_trim_count(n, "topbottom") == topbottom
    assert butler_trim_count(n, "count") == count
    assert butler_trim_count(n, "none") == 0
    assert butler_trim_count(n, 100) == max((n - 1) // 2, 0)


def test_butler_artificial_np_and_boards():
    b = butler([420, "A60/40", 400, "NP", None, 170, -50, 100, 100], boards=[1, 1, 1, 1, 1, 1, 1, 2, 2],
               trim="none")
    # board 1: (420 + 400 + 170 - 50) / 4 = 235 -> 240 (23.5 tens: even ten is 240)
    assert b.datums == {1: 240, 2: 100}
    assert b.ns == (5, 3, 4, None, None, -2, -7, 0, 0)  # 180, 160, -70, -290
    assert b.ew[1] == -3
    assert butler(["NP", "A50/50"]).datums == {None: None}


def test_butler_errors():
    with pytest.raises(InputError, match="no scores"):
        butler_datum(["NP", None])
    with pytest.raises(InputError, match="unknown Butler trim"):
        butler_datum([10, 20, 30], trim="median")
    with pytest.raises(InputError, match="unknown Butler rounding"):
        butler_datum([10, 20], rounding="bankers")
    with pytest.raises(InputError, match="row 2"):
        butler_datum([10, 15])


def test_numpy_cores_name_the_bad_cell():
    for core in (cross_imp_totals, butler_datums):
        with pytest.raises(InputError, match=r"row 1 \(board\), column 2 holds 415.5"):
            core([[420, 415.5]])
        with pytest.raises(InputError, match=r"row 2 \(board\), column 2 holds inf"):
            core([[10, 20], [30, float("inf")]])
        with pytest.raises(InputError, match="numbers"):
            core([["a", "b"]])


def ref_datum(scores, k, rule):
    s = sorted(scores)
    kept = s[k: len(s) - k]
    mean = Fraction(sum(kept), len(kept))
    tens = mean / 10
    lo = tens.numerator // tens.denominator
    rest = tens - lo
    if rest > Fraction(1, 2):
        q = lo + 1
    elif rest < Fraction(1, 2):
        q = lo
    elif rule == "even":
        q = lo if lo % 2 == 0 else lo + 1
    elif rule == "away":
        q = lo + 1 if mean > 0 else lo
    else:
        q = lo + 1
    return 10 * q


@given(st.lists(score_lists, min_size=1, max_size=5), st.sampled_from(["acbl", "topbottom", "count", "none"]),
       st.sampled_from(["even", "away", "half_up"]))
def test_butler_datums_brute_force(boards, trim, rounding):
    n = max(len(b) for b in boards)
    S = np.full((len(boards), n), np.nan)
    for r, b in enumerate(boards):
        S[r, : len(b)] = b
    d, counts = butler_datums(S, trim=trim, rounding=rounding, check_legal=False)
    for r, b in enumerate(boards):
        k = butler_trim_count(len(b), trim)
        assert d[r] == ref_datum(b, k, rounding)
        assert butler_datum(b, trim=trim, rounding=rounding, check_legal=False) == d[r]
        res = butler(b, trim=trim, rounding=rounding, check_legal=False)
        assert list(res.ns) == [ref_imps(s - int(d[r])) for s in b]


@given(st.lists(st.integers(-760, 760).map(lambda x: 10 * x), min_size=257, max_size=300))
@settings(max_examples=5)
def test_cross_imp_totals_large_board_path(scores):
    # more than 256 results on a board: the sorted (per-threshold counting) path
    totals, counts = cross_imp_totals(np.array([scores, scores[::-1]]), check_legal=False)
    expected = brute_cross(scores)
    assert totals[0].tolist() == expected and totals[1].tolist() == expected[::-1]
    assert counts.tolist() == [len(scores)] * 2


def test_the_published_scale_is_law_78b_as_printed():
    """``IMP_SCALE`` (public: the bands a workbook or a program may show) is the Law's table row for row, each
    band's upper edge and IMPs included (``imps`` reads only the lower edges: a wrong IMP column would go
    unseen there), then 4000 and more: 24. Found by breaking the table on purpose (issue 36)."""
    from xlbridge.core.teams.imps import IMP_SCALE

    assert IMP_SCALE == (*law_table(), (4000, None, 24))
