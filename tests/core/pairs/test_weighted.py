"""Weighted adjusted scores (Law 12C1(c), seed 004): seed figures, brute-force equality, weights."""

from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bruteforce import fouled_board, mp_board, neuberg_formula, weighted_bruteforce, weighted_fouled_bruteforce
from xlbridge import (
    ImpossibleScoreError,
    InputError,
    WeightError,
    legal_scores,
    matchpoint_session,
    parse_weight,
    weighted_session,
)
from xlbridge.core.pairs.weighted import expected_matchpoints

# ---------------------------------------------------------------- seed 004

ONE = [[(420, "60%"), (-50, "40%")], 420, 400, 400, 170, -50]
TWO = [[(420, 0.6), (-50, 0.4)], [(170, 0.5), (420, 0.5)], 420, 400, 400, -50]


def test_seed004_one_weighted_score():
    s = weighted_session(ONE, scale="ACBL")
    # the weighted pair: 0.6 x 4.5 + 0.4 x 0.5 = 2.9 ; the others 4.7, 2.9, 1.4, 0.2
    assert s.ns == [F("2.9"), F("4.7"), F("2.9"), F("2.9"), F("1.4"), F("0.2")]
    assert s.ns[4] == F("0.6") * 1 + F("0.4") * 2
    assert sum(s.ns) == 15 and s.tops == [5] * 6
    assert s.ns == weighted_bruteforce([[(420, F(3, 5)), (-50, F(2, 5))]] + [[(x, 1)] for x in ONE[1:]],
                                       scale="ACBL")[0]


def test_seed004_two_weighted_scores():
    s = weighted_session(TWO, scale="ACBL")
    # ERRATA: pair A 2.75 (printed 2.63); pair B 2.80; 420 4.45, 400 2.40, -50 0.2
    assert s.ns == [F("2.75"), F("2.80"), F("4.45"), F("2.40"), F("2.40"), F("0.2")]
    assert s.ns[0] == F("0.3") * 4 + F("0.3") * F("4.5") + F("0.2") * F("0.5") + F("0.2") * F("0.5")
    assert s.ns[1] == F("0.3") * 4 + F("0.3") * 1 + F("0.2") * 2 + F("0.2") * F("4.5")
    assert sum(s.ns) == 15  # a 6-result board on the 1/0.5 scale (2.63 would give 14.88)
    assert all(a + b == 5 for a, b in zip(s.ns, s.ew))
    ebu = weighted_session(TWO)
    assert ebu.ns == [2 * x for x in s.ns] and sum(ebu.ns) == 30


def test_weighted_with_neuberg_artificial_and_np():
    rows = [[(420, F(3, 5)), (-50, F(2, 5))], [(170, F(1, 2)), (420, F(1, 2))], 420, 400, "A60/40", "NP"]
    s = weighted_session(rows, boards=[1] * 6)
    # 4 real rows factored to the 5 rows holding a score or artificial score
    ns_bf, ew_bf = weighted_bruteforce([[(420, F(3, 5)), (-50, F(2, 5))], [(170, F(1, 2)), (420, F(1, 2))],
                                        [(420, 1)], [(400, 1)]], expected=5)
    assert s.ns[:4] == ns_bf and s.ew[:4] == ew_bf
    assert (s.ns[4], s.ew[4]) == (F(6 * 8, 10), F(4 * 8, 10)) and s.ns[5] is None
    # a row weighted between artificial scores gets the weighted percentage
    t = weighted_session([420, 400, [("A60/40", "50%"), ("A40/60", "50%")]])
    assert (t.ns[2], t.ew[2]) == (2, 2)


def test_plain_rows_equal_matchpoint_session():
    e = [420, 400, "A+", None, "NP", 170]
    b = [1, 1, 1, 8, 8, 8]
    a, w = matchpoint_session(e, b), weighted_session(e, b)
    assert a.ns == w.ns and a.ew == w.ew and a.tops == w.tops


def test_session_mixes_weighted_and_plain_boards():
    rows = [[(420, .6), (-50, .4)], 420, 400, 420, 400, 170]
    s = weighted_session(rows, boards=[1, 1, 1, 8, 8, 8])
    assert s.ns[3:] == [4, 2, 0]
    bf = weighted_bruteforce([[(420, F(3, 5)), (-50, F(2, 5))], [(420, 1)], [(400, 1)]])[0]
    assert s.ns[:3] == bf


def test_expected_matchpoints_by_hand():
    # A: 60 % 420, 40 % -50; B: 420; C: 400.  A: .6 x (1 + 2) + .4 x 0; B: .6 x 1 + .4 x 2 + 2; C: .4 x 2
    got = expected_matchpoints([[(420, F(3, 5)), (-50, F(2, 5))], [(420, 1)], [(400, 1)]])
    assert got == [F("1.8"), F("3.4"), F("0.8")]
    # weights as Excel gives them are read as decimals, not binary floats
    assert expected_matchpoints([[(420, 0.6), (-50, "40%")], [(420, 1)], [(400, 100)]]) == got
    with pytest.raises(WeightError, match=r"row 1: weights total 90 %"):
        expected_matchpoints([[(420, 0.6), (-50, 0.3)], [(420, 1)]])
    with pytest.raises(WeightError, match=r"row 2: weight -0.5 is negative"):
        expected_matchpoints([[(420, 1)], [(420, 1.5), (400, -0.5)]])
    with pytest.raises(InputError, match=r"row 2: an outcome must be an N-S score, got 'NP'"):
        expected_matchpoints([[(420, 1)], [("NP", 1)]])


# ---------------------------------------------------------------- brute force on random boards

LEGAL = sorted(s for s in legal_scores("None") if -800 <= s <= 800)
score_st = st.sampled_from(LEGAL[::3] + [420, 400, 170, -50])


@st.composite
def weighted_row(draw):
    k = draw(st.integers(1, 3))
    scores = draw(st.lists(score_st, min_size=k, max_size=k))
    raw = draw(st.lists(st.integers(0, 6), min_size=k, max_size=k).filter(lambda ws: sum(ws) > 0))
    total = sum(raw)
    return [(s, F(w, total)) for s, w in zip(scores, raw)]


@settings(max_examples=60)
@given(st.lists(weighted_row(), min_size=1, max_size=6), st.integers(0, 3), st.sampled_from(["EBU", "ACBL"]))
def test_weighted_equals_brute_force(rows, extra, scale):
    e = len(rows) + extra
    s = weighted_session(rows, expected=e, scale=scale)
    ns_bf, ew_bf = weighted_bruteforce(rows, expected=e, scale=scale)
    assert s.ns == ns_bf and s.ew == ew_bf
    top = 2 * (e - 1) if scale == "EBU" else e - 1
    assert all(a + b == top for a, b in zip(s.ns, s.ew))
    # swapping the sides mirrors the results
    m = weighted_session([[(-x, w) for x, w in r] for r in rows], expected=e, scale=scale)
    assert m.ns == s.ew and m.ew == s.ns


@settings(max_examples=30)
@given(st.lists(score_st, min_size=1, max_size=8))
def test_degenerate_weights_are_plain_matchpoints(scores):
    rows = [[(x, 1), (x + 10 if x + 10 in legal_scores("None") else x, 0)] for x in scores]
    s = weighted_session(rows)
    assert list(zip(s.ns, s.ew)) == mp_board(scores)


def test_twenty_three_way_scores_on_200_results_board():
    # 3^20 combinations: too many to enumerate, linear in comparisons here; check invariants
    plain = [LEGAL[i % len(LEGAL)] for i in range(180)]
    weighted = [[(LEGAL[(7 * i) % len(LEGAL)], F(1, 2)), (LEGAL[(7 * i + 3) % len(LEGAL)], F(3, 10)),
                 (LEGAL[(7 * i + 5) % len(LEGAL)], F(1, 5))] for i in range(20)]
    s = weighted_session(weighted + plain)
    assert sum(s.ns) == 200 * 199 and all(a + b == 398 for a, b in zip(s.ns, s.ew))
    # a plain row's expected matchpoints: its fixed comparisons plus each weighted row's expectation
    x = plain[0]
    fixed = sum(2 if x > y else 1 if x == y else 0 for y in plain[1:])
    exp = sum(w * (2 if x > y else 1 if x == y else 0) for r in weighted for y, w in r)
    assert s.ns[20] == fixed + exp


# ---------------------------------------------------------------- weights and errors

def test_parse_weight_rules():
    assert parse_weight(0.6) == parse_weight(60) == parse_weight("60%") == parse_weight("0.6") == F(3, 5)
    assert parse_weight("60") == F(3, 5) and parse_weight(" 12.5 % ") == F(1, 8)
    assert parse_weight(1) == 1 and parse_weight(100) == 1 and parse_weight("1%") == F(1, 100)
    assert parse_weight(0) == 0 and parse_weight(None) is None and parse_weight("") is None
    assert parse_weight(float("nan")) is None
    # floats computed from simple fractions (Excel =1/3, =100/3 %) are read as the fraction;
    # typed decimals stay decimals
    assert parse_weight(1 / 3) == F(1, 3) and parse_weight(100 / 3) == F(1, 3) and parse_weight(2 / 7) == F(2, 7)
    assert parse_weight(0.123456) == F("0.123456") and parse_weight(0.12345679) == F("0.12345679")
    assert parse_weight(0.3333333333) == F("0.3333333333")
    with pytest.raises(WeightError, match="negative"):
        parse_weight(-0.2)
    with pytest.raises(WeightError, match="more than 100"):
        parse_weight(150)
    with pytest.raises(WeightError, match="cannot read weight"):
        parse_weight("lots")


def test_weight_errors_name_row():
    with pytest.raises(WeightError, match=r"row 2: weights total 90 %, not 100 %: 420 x 60 %, -50 x 30 %"):
        weighted_session([420, [(420, 0.6), (-50, 0.3)]])
    with pytest.raises(WeightError, match=r"board 1, row 1: weight -0.4 is negative"):
        weighted_session([[(420, 1.4), (-50, -0.4)]], boards=[1])
    with pytest.raises(WeightError, match=r"row 1: a weight is missing"):
        weighted_session([[(420, 0.6), (-50, None)]])
    with pytest.raises(WeightError, match=r"mixing artificial and real"):
        weighted_session([[(420, 0.6), ("A40/60", 0.4)]])
    with pytest.raises(WeightError, match=r"NP cannot be one outcome"):
        weighted_session([[(420, 0.6), ("NP", 0.4)]])
    with pytest.raises(WeightError, match=r"given without a score"):
        weighted_session([[(420, 0.6), (None, 0.4)]])
    with pytest.raises(ImpossibleScoreError, match=r"board 1, row 1: impossible score: 410"):
        weighted_session([[(420, 0.6), (410, 0.4)]], boards=[1])
    with pytest.raises(ImpossibleScoreError, match=r"^row 2: impossible score: 410 .* at any vulnerability"):
        weighted_session([400, [(420, 0.6), (410, 0.4)], 7600])
    with pytest.raises(ImpossibleScoreError, match=r"^row 1: impossible score: 410"):
        weighted_session([[(410, 0.6), (420, 0.4)], [(420, 0.6), (390, 0.4)]])
    weighted_session([[(420, 0.6), (410, 0.4)]], check_legal=False)
    with pytest.raises(InputError, match=r"^row 2: impossible score: 100000000000000000000 \(far too large"):
        weighted_session([420, 10**20], check_legal=False)
    with pytest.raises(InputError, match=r"^row 1: impossible score: -100000000000000000000 \(far too large"):
        weighted_session([[(420, 0.5), (-10**20, 0.5)]], check_legal=False)
    with pytest.raises(InputError, match=r"row 1: cannot read score"):
        weighted_session([[("xyz", 0.6), (420, 0.4)]])


def test_thirds_from_excel_floats():
    s = weighted_session([[(420, 1 / 3), (400, 1 / 3), (170, 1 / 3)], 420, 400])
    bf = weighted_bruteforce([[(420, F(1, 3)), (400, F(1, 3)), (170, F(1, 3))], [(420, 1)], [(400, 1)]])[0]
    assert s.ns == bf
    with pytest.raises(WeightError, match=r"weights total 99.99999999 %"):
        weighted_session([[(420, 0.3333333333), (400, 0.6666666666)]])


def test_excel_padding_and_single_outcomes():
    # Excel rows: unused outcome columns blank; a plain result with a blank weight
    s = weighted_session([[(420, None), (None, None)], [(400, 1), (None, 0)], [(170, 0.5), (-50, "50%")]])
    bf = weighted_bruteforce([[(420, 1)], [(400, 1)], [(170, F(1, 2)), (-50, F(1, 2))]])[0]
    assert s.ns == bf
    assert weighted_session([(420, 1), (400, 1)]).ns == [2, 0]  # a (score, weight) pair per row


def test_inputs_not_mutated():
    rows = [[(420, 0.6), (-50, 0.4)], 420]
    weighted_session(rows)
    assert rows == [[(420, 0.6), (-50, 0.4)], 420]


def test_neuberg_helper_matches_formula():
    # sanity of the reference itself: seed 001's 29
    assert neuberg_formula(14, 16, 8) == 29


# ---------------------------------------------------------------- weighted scores on fouled boards

def test_weighted_score_in_a_small_fouled_group_by_hand():
    # 9 results, top 16: deal X at 7 tables, deal Y at 2 (2 <= 3 and 2 <= 9/3: EBU 65/55 %).
    # Y: table A 50 % +650 / 50 % +100, table B +100. Half the time A beats B (65/55 for N-S,
    # 55/65 for E-W), half the time they tie (60 each): A N-S 62.5 %, E-W 57.5 %; B the reverse.
    x = [620, 600, 170, 140, 140, 100, -100]
    rows = x + [[(650, "50%"), (100, "50%")], 100]
    groups = ["X"] * 7 + ["Y"] * 2
    s = weighted_session(rows, groups=groups)
    assert (s.ns[7], s.ew[7]) == (F("62.5") * 16 / 100, F("57.5") * 16 / 100) == (10, F("9.2"))
    assert (s.ns[8], s.ew[8]) == (F("9.2"), 10)
    # deal X is untouched by Y's weights: matchpointed among its 7 and factored to 9
    assert s.ns[:7] == [neuberg_formula(m, 9, 7) for m in (12, 10, 8, 5, 5, 2, 0)]
    # rule "neuberg": Y is factored too; and without groups the board is one field of 9
    u = weighted_session(rows, groups=groups, fouled="neuberg")
    assert u.ns[7] == F(1, 2) * neuberg_formula(2, 9, 2) + F(1, 2) * neuberg_formula(1, 9, 2)
    v = weighted_session(rows)
    assert v.ns == weighted_bruteforce([[(r, 1)] for r in x] + [[(650, F(1, 2)), (100, F(1, 2))], [(100, 1)]])[0]
    with pytest.raises(InputError, match="unknown fouled-board rule"):
        weighted_session(rows, groups=groups, fouled="WBF")


@st.composite
def fouled_weighted_board(draw):
    rows = draw(st.lists(weighted_row(), min_size=2, max_size=6))
    groups = draw(st.lists(st.integers(1, 3), min_size=len(rows), max_size=len(rows)))
    return rows, groups


@settings(max_examples=40)
@given(fouled_weighted_board(), st.integers(0, 4), st.sampled_from(["EBU", "ACBL", "neuberg"]),
       st.sampled_from(["EBU", "ACBL"]))
def test_weighted_fouled_equals_brute_force(board, extra, rule, scale):
    rows, groups = board
    e = len(rows) + extra
    s = weighted_session(rows, expected=e, scale=scale, groups=groups, fouled=rule)
    ns_bf, ew_bf = weighted_fouled_bruteforce(rows, groups, expected=e, rule=rule, scale=scale)
    assert s.ns == ns_bf and s.ew == ew_bf
    # plain rows: weighted_session with groups agrees with matchpoint_session with groups
    plain = [r[0][0] for r in rows]
    a = weighted_session(plain, expected=e, scale=scale, groups=groups, fouled=rule)
    b = matchpoint_session(plain, expected=e, scale=scale, groups=groups, fouled=rule)
    assert a.ns == b.ns and a.ew == b.ew
    assert list(zip(b.ns, b.ew)) == fouled_board(plain, groups, e, rule, scale)


@pytest.mark.parametrize("rule,sizes,extra", [
    ("EBU", (6, 3), 0), ("EBU", (5, 3, 1), 0), ("EBU", (4, 2), 0), ("EBU", (2, 1), 0), ("EBU", (3, 2), 4),
    ("ACBL", (4, 3), 0), ("ACBL", (3, 3), 0), ("ACBL", (3, 2, 1), 0), ("ACBL", (5, 2), 1),
])
@pytest.mark.parametrize("scale", ["EBU", "ACBL"])
def test_weighted_small_subfields_of_every_size_equal_brute_force(rule, sizes, extra, scale):
    # every small group holds a two- or three-way weighted score, so all its places are in play
    import random

    rng = random.Random(f"{rule}{sizes}{extra}{scale}")
    pool = [620, 600, 170, 140, 100, -100]
    rows, groups = [], []
    for g, size in enumerate(sizes):
        for k in range(size):
            if k == 0 and size <= 3:
                picks = rng.sample(pool, rng.choice((2, 3)))
                ws = [F(1, 2), F(1, 2)] if len(picks) == 2 else [F(1, 2), F(3, 10), F(1, 5)]
                rows.append(list(zip(picks, ws)))
            else:
                rows.append([(rng.choice(pool), 1)])
            groups.append(g)
    e = len(rows) + extra
    s = weighted_session(rows, expected=e, scale=scale, groups=groups, fouled=rule)
    ns_bf, ew_bf = weighted_fouled_bruteforce(rows, groups, expected=e, rule=rule, scale=scale)
    assert s.ns == ns_bf and s.ew == ew_bf


def test_huge_weight_denominators_stay_exact():
    # weights with distinct prime denominators: the common denominator D^2 is far beyond int64,
    # so the exact path with Python integers is taken; brute force over 2^5 combinations agrees
    primes = [101, 103, 107, 109, 113]
    rows = [[(420, F(k, p)), (-50, 1 - F(k, p))] for k, p in zip((37, 51, 64, 80, 99), primes)]
    rows += [[(400, 1)], [(170, 1)], [(420, 1)]]
    s = weighted_session(rows, expected=9)
    assert s.ns_num.dtype == object
    ns_bf, ew_bf = weighted_bruteforce(rows, expected=9)
    assert s.ns == ns_bf and s.ew == ew_bf
    assert sum(s.ns) == (8 * 7 + 8) * F(9, 8) - 8  # sum of (M + 1) 9/8 - 1 over 8 results, sum of M = 8 x 7
