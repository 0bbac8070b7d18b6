"""Instant matchpoint charts: seed 002, Pavlicek 1993, properties, adjustments, ranking, PBN.

Expected values come from the published tables (seed 002 = R. Pavlicek, "Instant Matchpoints
1997", rpbridge.net 8ua7; R. Pavlicek, "Instant Matchpoints", ACBL Bulletin September 1993,
rpbridge.net 7q41), from hand-worked examples written out below, or from brute-force references
in this file.
"""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlbridge.core.contract import legal_scores
from xlbridge.core.errors import ImpossibleScoreError, InputError
from xlbridge.core.instant import ChartRow, instant_award, instant_chart, instant_ranking
from xlbridge.core.instant.chart import smooth_strict
from xlbridge.core.instant.pbn import chart_from_pbn, chart_to_pbn

F = Fraction

# ------------------------------------------------------------------------------------- seed 002

SEED_SCORES = [980, 800, 480, 450, 420, 400, -50, -100]
SEED_FREQ = [4, 3, 8, 26, 115, 6, 17, 1]
# The seed's first table: matchpoints on the 179 top.
SEED_MP_179 = {980: F(355, 2), 800: 174, 480: F(337, 2), 450: F(303, 2), 420: 81, 400: F(41, 2), -50: 9, -100: 0}
# The seed's second table, top row first: (score or None for a gap, MP on the 180 top, printed percent).
SEED_180 = [
    (None, 180, 100),
    (980, 178, 99),
    (None, 176, 98),
    (800, F(349, 2), 97),
    (None, 173, 96),
    (480, 169, 94),
    (None, 165, 92),
    (450, 152, 84),
    (None, 139, 77),
    (420, F(163, 2), 45),
    (400, 21, 12),
    (None, 18, 10),
    (-50, F(19, 2), 5),
    (None, 1, 1),
    (-100, F(1, 2), 0),
    (None, 0, 0),
]


@pytest.fixture(scope="module")
def seed_chart():
    return instant_chart(SEED_SCORES, SEED_FREQ, "None")


def test_seed_002_matchpoints_179_top(seed_chart):
    assert seed_chart.results == 180
    got = {r.low: r.matchpoints - F(1, 2) for r in seed_chart.rows if r.kind == "score"}
    assert got == SEED_MP_179


def test_seed_002_rows_matchpoints_and_percentages_180_top(seed_chart):
    rows = seed_chart.rows
    assert len(rows) == len(SEED_180)
    for row, (score, mp, pct) in zip(rows, SEED_180):
        assert row.kind == ("gap" if score is None else "score")
        if score is not None:
            assert row.low == row.high == score
        assert row.matchpoints == mp
        assert row.percent == F(mp) * 100 / 180
    unsmoothed = instant_chart(SEED_SCORES, SEED_FREQ, "None", smoothing="none")
    assert [r.award for r in unsmoothed.rows] == [p for _, _, p in SEED_180]


def test_seed_002_smoothed_bottom_2_1_0(seed_chart):
    awards = [r.award for r in seed_chart.rows]
    assert awards == [p for _, _, p in SEED_180[:-3]] + [2, 1, 0]
    assert seed_chart.award(-100) == 1 and seed_chart.award(-150) == 0 and seed_chart.award(-90) == 2
    assert seed_chart.award_ew(-100) == 99


def test_seed_002_dropped_410_gap(seed_chart):
    i420 = next(i for i, r in enumerate(seed_chart.rows) if r.kind == "score" and r.low == 420)
    assert seed_chart.rows[i420 + 1].kind == "score" and seed_chart.rows[i420 + 1].low == 400
    with pytest.raises(ImpossibleScoreError, match="410"):
        seed_chart.award(410)
    with pytest.raises(ImpossibleScoreError, match="item 2"):
        seed_chart.awards([420, 410])


def test_seed_002_end_gaps(seed_chart):
    top, bottom = seed_chart.rows[0], seed_chart.rows[-1]
    # 990 = 6NT made non-vulnerable; 7000 = 7NTXX down 13 non-vulnerable (E-W declaring)
    assert (top.low, top.high) == (990, 7000)
    assert bottom.high < -100 and bottom.low == -7000
    assert seed_chart.award(1440) == 100 and seed_chart.award(-7000) == 0


# ------------------------------------------------------------------ Pavlicek 1993 (rpbridge.net 7q41)

P93_SCORES = [450, 420, 400, 170, -50]
P93_FREQ = [2, 4, 3, 6, 1]
# "Matchpointing on a 15 top" and the 16-top table with gaps, top row first.
P93_MP_15 = {450: F(29, 2), 420: F(23, 2), 400: 8, 170: F(7, 2), -50: 0}
P93_16 = [(None, 16, 100), (450, 15, 94), (None, 14, 88), (420, 12, 75), (400, F(17, 2), 53),
          (None, 7, 44), (170, 4, 25), (None, 1, 6), (-50, F(1, 2), 3), (None, 0, 0)]


def test_pavlicek_1993_example():
    c = instant_chart(P93_SCORES, P93_FREQ, "None")
    assert c.results == 16
    assert {r.low: r.matchpoints - F(1, 2) for r in c.rows if r.kind == "score"} == P93_MP_15
    assert [(None if r.kind == "gap" else r.low, r.matchpoints, r.award) for r in c.rows] == P93_16
    # 87.5 % prints as 88: the half goes up
    assert c.rows[2].percent == F(175, 2) and c.rows[2].award == 88
    # "the gap score between +420 and +400 is omitted"
    with pytest.raises(ImpossibleScoreError):
        c.award(410)
    assert c.award(430) == 88 and c.award(-100) == 0 and c.award(100) == 6 and c.award(200) == 44 and c.award(460) == 100


def test_raw_results_without_frequencies_equal_frequencies():
    raw = [s for s, f in zip(P93_SCORES, P93_FREQ) for _ in range(f)]
    assert instant_chart(raw[::-1], None, "None") == instant_chart(P93_SCORES, P93_FREQ, "None")


# ------------------------------------------------------------------------------------ rounding


def test_rounding_half_up_and_half_even():
    # N = 4: +420 x3 has MP 2.5 -> 62.5 %, +400 x1 has MP 0.5 -> 12.5 %
    up = instant_chart([420, 400], [3, 1], "None")
    even = instant_chart([420, 400], [3, 1], "None", rounding="half_even")
    assert [r.award for r in up.rows] == [100, 63, 13, 0]
    assert [r.award for r in even.rows] == [100, 62, 12, 0]
    with pytest.raises(InputError, match="rounding"):
        instant_chart([420], [1], "None", rounding="bankers")


# ----------------------------------------------------------------------------------- smoothing


def brute_smooth(rounded, exact):
    """Every strictly decreasing sequence within k of the rounded awards: least points moved, then
    closest to the exact percentages, then the higher awards counted from the bottom row up."""
    k = len(rounded)
    best = None
    ranges = [range(max(0, r - k), min(100, r + k) + 1) for r in rounded]
    for a in product(*ranges):
        if any(a[i] <= a[i + 1] for i in range(k - 1)):
            continue
        key = (sum(abs(x - r) for x, r in zip(a, rounded)), sum(abs(x - e) for x, e in zip(a, exact)),
               [-x for x in reversed(a)])
        if best is None or key < best[0]:
            best = (key, list(a))
    return best[1]


@st.composite
def plateaus(draw):
    k = draw(st.integers(1, 4))
    den = draw(st.integers(1, 60))
    nums = sorted((draw(st.integers(0, 100 * den)) for _ in range(k)), reverse=True)
    rounded = [(2 * x + den) // (2 * den) for x in nums]
    return rounded, nums, den


@settings(max_examples=40)
@given(plateaus())
def test_smoothing_is_the_least_change(case):
    rounded, nums, den = case
    got = smooth_strict(rounded, nums, den)
    assert got == brute_smooth(rounded, [F(x, den) for x in nums])


def test_smoothing_pushes_down_from_a_full_top():
    # 200 results: top gap 100 %, +1430 x1 199.5 MP = 99.75 %, the gap below it 199 MP = 99.5 %,
    # +450 x199 99.5 MP = 49.75 %, bottom gap 0: rounded 100, 100, 100, 50, 0 -> 100, 99, 98, 50, 0
    c = instant_chart([1430, 450], [1, 199], "None")
    assert [r.award for r in instant_chart([1430, 450], [1, 199], "None", smoothing="none").rows] == [
        100, 100, 100, 50, 0]
    assert [r.award for r in c.rows] == [100, 99, 98, 50, 0]


def test_strict_smoothing_refuses_more_than_101_rows():
    everything = sorted(legal_scores("None"))[::2]  # 142 distinct scores: well over 101 rows
    with pytest.raises(InputError, match="at most 101 rows"):
        instant_chart(everything, [1] * len(everything), "None")
    c = instant_chart(everything, [1] * len(everything), "None", smoothing="none")
    awards = [r.award for r in c.rows]
    assert all(a >= b for a, b in zip(awards, awards[1:]))


# ------------------------------------------------------------------------------------ properties

VULS = ["None", "NS", "EW", "All"]


@st.composite
def boards(draw):
    vul = draw(st.sampled_from(VULS))
    legal = sorted(legal_scores(vul))
    near = [s for s in legal if -1500 <= s <= 1500]
    pool = draw(st.sampled_from([near, legal]))
    scores = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=12, unique=True))
    freqs = draw(st.lists(st.integers(1, 40), min_size=len(scores), max_size=len(scores)))
    return vul, scores, freqs


def brute_matchpoints(results, x):
    """Matchpoints (1 / 0.5 scale) of score x against every result: the mystery score's view."""
    return sum(F(1) if x > r else F(1, 2) if x == r else F(0) for r in results)


@settings(max_examples=60)
@given(boards())
def test_chart_properties(board):
    vul, scores, freqs = board
    c = instant_chart(scores, freqs, vul)
    rows = c.rows
    awards = [r.award for r in rows]
    assert all(0 <= a <= 100 for a in awards)
    assert all(a > b for a, b in zip(awards, awards[1:])), "awards strictly decreasing"
    legal = sorted(legal_scores(vul))
    # every legal score is in exactly one row; every row's bounds are legal
    for s in legal:
        assert sum(r.low <= s <= r.high for r in rows) == 1
    assert all(r.low in legal_scores(vul) and r.high in legal_scores(vul) for r in rows)
    # rows: historical scores and the non-empty gaps between / beyond them
    hist = sorted(scores, reverse=True)
    assert [r.low for r in rows if r.kind == "score"] == hist
    bounds = [None] + hist + [None]
    expected_gaps = []
    for hi, lo in zip(bounds, bounds[1:]):
        inside = [s for s in legal if (hi is None or s < hi) and (lo is None or s > lo)]
        if inside:
            expected_gaps.append((inside[0], inside[-1]))
    assert [(r.low, r.high) for r in rows if r.kind == "gap"] == expected_gaps
    # matchpoints: a result ties the mystery score (+1/2); a gap scores as the mystery score
    results = [s for s, f in zip(scores, freqs) for _ in range(f)]
    n = len(results)
    for r in rows:
        others = list(results)
        if r.kind == "score":
            others.remove(r.low)  # its own result is not compared with itself
            assert r.matchpoints == brute_matchpoints(others, r.low) + F(1, 2)
        else:
            assert r.matchpoints == brute_matchpoints(results, r.low)
        assert r.percent == r.matchpoints * 100 / n
        assert r.frequency == (results.count(r.low) if r.kind == "score" else 0)
    # vectorised look-up agrees with the scalar one on every legal score
    assert c.awards(legal).tolist() == [c.award(s) for s in legal]
    assert c.awards_ew(np.array(legal, dtype=float)).tolist() == [100 - c.award(s) for s in legal]


@settings(max_examples=60)
@given(boards(), st.data())
def test_one_more_occurrence_moves_unrounded_awards_the_right_way(board, data):
    vul, scores, freqs = board
    i = data.draw(st.integers(0, len(scores) - 1))
    more = list(freqs)
    more[i] += 1
    old = instant_chart(scores, freqs, vul, smoothing="none")
    new = instant_chart(scores, more, vul, smoothing="none")
    s = scores[i]
    assert [(r.low, r.high, r.kind) for r in old.rows] == [(r.low, r.high, r.kind) for r in new.rows]
    for o, n in zip(old.rows, new.rows):
        if o.low > s:
            assert n.percent >= o.percent
        elif o.high < s:
            assert n.percent <= o.percent


# ----------------------------------------------------------------------------------- adjustments


def test_adjustments_by_score_and_by_row(seed_chart):
    base = [r.award for r in seed_chart.rows]
    adj = instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments={450: -1, 990: 0})
    assert [r.award for r in adj.rows] == base[:7] + [83] + base[8:] and adj.rows[7].adjustment == -1
    # a seed-style judgement: lower +450 (84) and its neighbouring gap by up to 10 points
    seq = [0] * len(base)
    seq[7], seq[8] = -6, -10
    adj2 = instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments=seq)
    assert adj2.award(450) == 78 and adj2.award(440) == 67 and adj2.award_ew(450) == 22


def test_adjustment_beyond_10_points_refused_naming_the_row():
    with pytest.raises(InputError, match=r"board 1, row 8 \(\+450\): adjustment -11 is more than 10 points"):
        instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments={450: -11}, where="board 1")


def test_adjustment_breaking_order_refused():
    # +980 99 -> 97 would not be above the gap below it (98)
    with pytest.raises(InputError, match=r"row 2 \(\+980\).*not below the award 100|row 3 .*not below the award 97"):
        instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments={980: -2})
    with pytest.raises(InputError, match="outside 0-100"):
        instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments={-7000: -1})
    with pytest.raises(InputError, match="16 rows but 2 adjustments"):
        instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments=[1, 2])
    with pytest.raises(InputError, match="whole number"):
        instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments={980: 0.5})
    with pytest.raises(InputError, match="largest adjustment must be 0 or more, got -1"):
        instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments={980: 0}, max_adjustment=-1)
    with pytest.raises(InputError, match="largest adjustment must be a whole number, got None"):
        instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments={980: 0}, max_adjustment=None)
    # a stricter limit is an option: 0 forbids every change
    with pytest.raises(InputError, match=r"row 8 \(\+450\): adjustment -1 is more than 0 points"):
        instant_chart(SEED_SCORES, SEED_FREQ, "None", adjustments={450: -1}, max_adjustment=0)


# ---------------------------------------------------------------------------------- input errors


def test_input_errors():
    with pytest.raises(ImpossibleScoreError, match=r"board 3, row 2: impossible score: 410"):
        instant_chart([420, 410], [1, 1], "None", where="board 3")
    with pytest.raises(InputError, match="row 2: frequency must be 0 or more"):
        instant_chart([420, 400], [1, -1], "None")
    with pytest.raises(InputError, match="2 scores but 1 frequencies"):
        instant_chart([420, 400], [1], "None")
    with pytest.raises(InputError, match="no historical results"):
        instant_chart([], [], "None")
    with pytest.raises(InputError, match="every frequency is 0"):
        instant_chart([420], [0], "None")
    with pytest.raises(InputError, match="frequency must be a whole number"):
        instant_chart([420], [1.5], "None")
    # a frequency of 0 leaves the score out
    assert instant_chart([420, 400], [2, 0], "None") == instant_chart([420], [2], "None")


def test_instant_award_convenience(seed_chart):
    assert instant_award(420, seed_chart) == 45
    assert instant_award([420, 400], seed_chart).tolist() == [45, 12]
    with pytest.raises(ImpossibleScoreError, match="not a whole number"):
        seed_chart.awards([420.5])


# --------------------------------------------------------------------------------------- ranking


def test_ranking_fields_separately():
    c = instant_chart(P93_SCORES, P93_FREQ, "None")  # awards: 450 94, 430 88, 420 75, 400 53, -50 3
    results = [
        (1, "N1", "E1", 450),   # N1 94, E1 6
        (1, "N2", "E2", 420),   # N2 75, E2 25
        (1, "N3", "E3", 400),   # N3 53, E3 47
        (2, "N1", "E2", -50),   # N1 3,  E2 97
        (2, "N2", "E3", 430),   # N2 88, E3 12
        (2, "N3", "E1", "A60/40"),  # N3 60, E1 40
        (3, "N1", "E3", "NP"),  # not played: counts for nobody
    ]
    r = instant_ranking(results, {1: c, 2: c})
    # N-S totals: N1 97, N2 163, N3 113 -> means 48.5, 81.5, 56.5
    assert [(p.rank, p.pair, p.total, p.boards, p.percent) for p in r.ns] == [
        (1, "N2", 163, 2, F(163, 2)), (2, "N3", 113, 2, F(113, 2)), (3, "N1", 97, 2, F(97, 2))]
    # E-W totals: E1 46, E2 122, E3 59
    assert [(p.rank, p.pair, p.total) for p in r.ew] == [(1, "E2", 122), (2, "E3", 59), (3, "E1", 46)]


def test_ranking_ties_and_errors():
    c = instant_chart(P93_SCORES, P93_FREQ, "None")
    r = instant_ranking([(1, "A", "X", 420), (1, "B", "Y", 420), (1, "C", "Z", -50)], {1: c})
    assert [(p.rank, p.pair, p.tied) for p in r.ns] == [(1, "A", True), (1, "B", True), (3, "C", False)]
    with pytest.raises(ImpossibleScoreError, match="board 1, row 2: impossible score: 410"):
        instant_ranking([(1, "A", "X", 420), (1, "B", "Y", 410)], {1: c})
    with pytest.raises(InputError, match="no chart for board 2"):
        instant_ranking([(2, "A", "X", 420)], {1: c})


# ------------------------------------------------------------------------------------------- PBN


def test_pbn_export_of_the_seed_chart(seed_chart):
    text = chart_to_pbn(seed_chart)
    lines = text.splitlines()
    assert lines[0] == '[Vulnerable "None"]'
    assert lines[1].startswith('[InstantScoreTable "Rank\\2R;ScoreRange_NS\\')
    rows = [ln.split() for ln in lines[2:]]
    assert rows[0] == ["1", "980,*", "*,-980", "100", "0"]
    assert rows[1] == ["2", "980", "-980", "99", "1"]
    assert rows[2] == ["3", "800,980", "-980,-800", "98", "2"]
    # no row for the impossible +410: +420 is followed by +400
    assert rows[9][1:] == ["420", "-420", "45", "55"] and rows[10][1:] == ["400", "-400", "12", "88"]
    assert rows[-1] == ["16", "*,-100", "100,*", "0", "100"]


@settings(max_examples=30)
@given(boards())
def test_pbn_round_trip(board):
    vul, scores, freqs = board
    c = instant_chart(scores, freqs, vul)
    back = chart_from_pbn(chart_to_pbn(c))
    assert back.table() == c.table()
    assert [r.kind for r in back.rows] == [r.kind for r in c.rows]
    assert back.vulnerable == c.vulnerable


def test_pbn_import_hand_written():
    text = """[Event "Instant pairs"]
[Board "1"]
[Vulnerable "None"]
[InstantScoreTable "+Percentage_EW\\5R;ScoreRange_EW"] {E-W view, decimals}
  0.0 *,-450
  5.5 -450
 20 -450,-420  40.25
  -420 60 -420,100
 99 100
100.0 100,*

[Event "next game"]
"""
    c = chart_from_pbn(text)
    assert c.table() == [(460, 7000, 100), (450, 450, F(189, 2)), (430, 440, 80), (420, 420, F(239, 4)),
                         (-90, 400, 40), (-100, -100, 1), (-7000, -110, 0)]
    assert c.award(-50) == 40 and c.award_ew(420) == F(161, 4)
    assert c.awards([450, 420]).tolist() == [94.5, 59.75]
    assert all(r.matchpoints is None and r.percent is None for r in c.rows)


def test_pbn_import_errors():
    head = '[InstantScoreTable "ScoreRange_NS;Percentage_NS"]\n'
    with pytest.raises(InputError, match="vulnerability is needed"):
        chart_from_pbn(head + "420,* 100\n*,420 0\n")
    with pytest.raises(InputError, match="disagrees"):
        chart_from_pbn('[Vulnerable "NS"]\n' + head + "*,* 1\n", vulnerable="None")
    with pytest.raises(InputError, match="overlap"):
        chart_from_pbn(head + "400,* 100\n420 50\n*,420 0\n", vulnerable="None")
    with pytest.raises(InputError, match="is above award"):
        chart_from_pbn(head + "420,* 50\n*,420 60\n", vulnerable="None")
    with pytest.raises(InputError, match="do not add up to 100"):
        chart_from_pbn('[InstantScoreTable "ScoreRange_NS;Percentage_NS;Percentage_EW"]\n420 50 40\n', "None")
    with pytest.raises(InputError, match="not a whole number of 2-column rows"):
        chart_from_pbn(head + "420 50 400\n", "None")
    with pytest.raises(ImpossibleScoreError, match="InstantScoreTable row 1: impossible score: 410"):
        chart_from_pbn(head + "410 50\n", "None")
    with pytest.raises(InputError, match="no InstantScoreTable"):
        chart_from_pbn('[Board "1"]\n', "None")
    # a chart that leaves legal scores out can be read, but those scores cannot be awarded
    partial = chart_from_pbn(head + "420 60\n400 40\n", "None")
    with pytest.raises(InputError, match="not covered"):
        partial.award(430)


def test_chart_row_checks():
    with pytest.raises(InputError, match="kind"):
        ChartRow(1, 2, 3, "range", None, None)
    with pytest.raises(InputError, match="low is above high"):
        ChartRow(20, 10, 3, "gap", None, None)


def test_pbn_export_of_adjacent_gap_rows():
    # a chart from other software may split a gap in two, and may leave a legal score (+300) out
    text = '[InstantScoreTable "ScoreRange_NS;Percentage_NS"]\n420,* 100\n420 60\n300,420 40\n*,300 10\n'
    c = chart_from_pbn(text, "None")
    legal = sorted(legal_scores("None"))
    assert 300 in legal and 410 not in legal
    mid = [s for s in legal if 300 < s < 420]
    low = [s for s in legal if s < 300]
    assert c.table() == [(430, 7000, 100), (420, 420, 60), (mid[0], mid[-1], 40), (low[0], low[-1], 10)]
    out = chart_to_pbn(c, with_vulnerable=False).splitlines()
    assert [ln.split()[1] for ln in out[1:]] == ["420,*", "420", "300,420", "*,300"]
    back = chart_from_pbn(chart_to_pbn(c))
    assert back.table() == c.table()
    with pytest.raises(InputError, match="not covered"):
        back.award(300)


@settings(max_examples=30)
@given(st.lists(st.tuples(st.integers(1, 3), st.sampled_from("ABCD"), st.sampled_from("WXYZ"),
                          st.sampled_from([450, 430, 420, 400, 170, 100, -50, -100, "A60/40", "NP"])),
                max_size=15))
def test_ranking_matches_a_brute_force(results):
    c = instant_chart(P93_SCORES, P93_FREQ, "None")
    award = {450: 94, 430: 88, 420: 75, 400: 53, 170: 25, 100: 6, -50: 3, -100: 0}  # the published chart
    r = instant_ranking(results, {1: c, 2: c, 3: c})
    for side, field in ((0, r.ns), (1, r.ew)):
        got = {}
        for _, ns, ew, sc in results:
            if sc == "NP":
                continue
            pts = (60 if side == 0 else 40) if sc == "A60/40" else (award[sc] if side == 0 else 100 - award[sc])
            pair = ns if side == 0 else ew
            t, b = got.get(pair, (0, 0))
            got[pair] = (t + pts, b + 1)
        assert {p.pair: (p.total, p.boards) for p in field} == got
        means = {pair: F(t, b) for pair, (t, b) in got.items()}
        for p in field:
            assert p.percent == means[p.pair]
            assert p.rank == 1 + sum(m > p.percent for m in means.values())
            assert p.tied == (sum(m == p.percent for m in means.values()) > 1)
        assert [p.percent for p in field] == sorted(means.values(), reverse=True)
