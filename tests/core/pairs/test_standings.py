"""Pair rankings: exact totals, maxima, percentages, ties decided exactly (never by float sums)."""

from fractions import Fraction as F

import pytest

from xlbridge import InputError, format_rank, legal_scores, matchpoint_session, pairs_ranking, weighted_session

# ten scores legal on boards 1, 2 and 3 (vulnerability None, NS, EW), lowest first
SCORES = [-140, -110, -90, 90, 110, 120, 140, 150, 170, 180]


def test_scores_are_legal_everywhere():
    assert all(s in legal_scores(v) for s in SCORES for v in ("None", "NS", "EW"))


def test_float_summation_breaks_a_true_tie_but_xlbridge_ties():
    # three boards, 10 results each where 11 were expected (E/A = 1.1, seed 001's example):
    # the result ranked k from the bottom gets (2k + 1) x 1.1 - 1 = (22k + 1) / 10.
    # Pair P: k = 0, 0, 3 -> 0.1 + 0.1 + 6.7 = 6.9 ; pair Q: k = 1, 1, 1 -> 2.3 x 3 = 6.9
    where = {"P": (0, 0, 3), "Q": (1, 1, 1)}
    entries, boards, ns, ew = [], [], [], []
    for b in (1, 2, 3):
        for k, score in enumerate(SCORES):
            entries.append(score)
            boards.append(b)
            owner = next((p for p, ks in where.items() if ks[b - 1] == k), f"N{b}.{k}")
            ns.append(owner)
            ew.append(f"E{b}.{k}")
    s = matchpoint_session(entries, boards, expected=11)
    p_mps = [m for m, who in zip(s.ns, ns) if who == "P"]
    q_mps = [m for m, who in zip(s.ns, ns) if who == "Q"]
    assert p_mps == [F("0.1"), F("0.1"), F("6.7")] and q_mps == [F("2.3")] * 3
    # what a spreadsheet summing floats would decide: P ahead of Q
    fp = fq = 0.0
    for m in p_mps:
        fp += float(m)
    for m in q_mps:
        fq += float(m)
    assert fp > fq
    st = {x.pair: x for x in pairs_ranking(s, ns, ew)}
    assert st["P"].total == st["Q"].total == F("6.9")
    assert st["P"].percentage == st["Q"].percentage == F("6.9") * 100 / 60
    assert st["P"].rank == st["Q"].rank and st["P"].tied and st["Q"].tied
    assert format_rank(st["P"].rank, st["P"].tied).endswith("=")


def test_pair_playing_both_directions_sums_and_maximum_counts_played_boards():
    # board 1: pair 1 N-S vs 2; pair 3 N-S vs 4. board 8: pair 2 N-S vs 1; pair 4 N-S vs 3; board 11: 1 vs 3, NP
    entries = [420, 400, 170, 140, "NP", 420]
    boards = [1, 1, 8, 8, 11, 11]
    ns = [1, 3, 2, 4, 1, 2]
    ew = [2, 4, 1, 3, 3, 4]
    s = matchpoint_session(entries, boards)
    st = pairs_ranking(s, ns, ew)
    by = {x.pair: x for x in st}
    # tops are 2 (E = 2); board 11 is factored from one result to 2: average 1 each
    assert by[1].total == 2 + 0 and by[1].maximum == 4 and by[1].boards == 2
    assert by[2].total == 0 + 2 + 1 and by[2].maximum == 6
    assert by[3].total == 0 + 2 and by[4].total == 2 + 0 + 1
    assert by[1].percentage == 50 and by[2].percentage == 50
    assert [x.pair for x in st] == [1, 2, 3, 4]
    assert [(x.rank, x.tied) for x in st] == [(1, True)] * 4


def test_ranking_from_columns_and_competition_ranks():
    st = pairs_ranking([1, 1, 1], ["A", "B", "C"], ["D", "E", "F"],
                       [F(4), 3, "2.5"], [0, 1, F(3, 2)], [4, 4, 4])
    assert [(x.pair, x.rank, x.tied) for x in st] == [
        ("A", 1, False), ("B", 2, False), ("C", 3, False), ("F", 4, False), ("E", 5, False), ("D", 6, False)]
    assert st[2].total == F(5, 2) and st[2].percentage == F(125, 2)


def test_ranking_with_weighted_session_and_no_score_pairs():
    s = weighted_session([[(420, .6), (-50, .4)], [(170, .5), (420, .5)], 420, 400, 400, -50, "NP"],
                         boards=[1] * 7, scale="ACBL")
    st = pairs_ranking(s, list("ABCDEFG"), list("HIJKLMN"))
    by = {x.pair: x for x in st}
    assert by["A"].total == F("2.75") and by["B"].total == F("2.80") and by["C"].total == F("4.45")
    assert by["G"].percentage is None and by["G"].rank is None and st[-2].pair in ("G", "N")
    assert by["D"].rank == by["E"].rank and by["D"].tied


def test_ranking_errors():
    with pytest.raises(InputError, match=r"row 2: pair 1 has two results on board 1"):
        pairs_ranking([1, 1], [1, 1], [2, 3], [1, 1], [1, 1], [2, 2])
    with pytest.raises(InputError, match=r"the E-W pairs have 1 rows but the N-S pairs have 2"):
        pairs_ranking([1, 1], [1, 2], [3], [1, 1], [1, 1], [2, 2])
    with pytest.raises(InputError, match=r"needs the N-S matchpoints"):
        pairs_ranking([1], [1], [2])


def test_whole_and_fractional_matchpoints_of_one_pair_sum_exactly_and_bad_ones_are_refused():
    """Whole numbers (a session's tops, integer matchpoints) are summed as integers, fractions as
    fractions, for the same pair: by hand, pair A has 10**30 + 1 + 1/3 of 2 * 10**30 + 4 + 2."""
    big = 10 ** 30
    st = pairs_ranking([1, 2], ["A", "A"], ["B", "C"], [big + 1, F(1, 3)], [0, F(2, 3)], [2 * big + 4, 2])
    a = next(x for x in st if x.pair == "A")
    assert a.total == big + 1 + F(1, 3) and type(a.total) is F
    assert a.maximum == 2 * big + 6 and a.percentage == F(100 * (3 * big + 4), 3 * (2 * big + 6))
    for bad, what in ((True, "matchpoints of pair 'A' \\(row 1\\) must be a number, got True"),
                      ("x", "matchpoints of pair 'A' \\(row 1\\) must be a number, got text 'x'")):
        with pytest.raises(InputError, match=what):
            pairs_ranking([1], ["A"], ["B"], [bad], [0], [2])
    with pytest.raises(InputError, match="top of row 1"):
        pairs_ranking([1], ["A"], ["B"], [1], [0], [True])


def test_artificial_session_percentage_rule():
    # board 1: pair 1 (N-S) v 2 get A60/40; board 8 and 11: real results. Tops 2 (E = 2).
    entries = ["A60/40", 420, 400, 420, 400]
    boards = [1, 8, 8, 11, 11]
    ns = [1, 1, 3, 3, 1]
    ew = [2, 4, 2, 2, 4]
    s = matchpoint_session(entries, boards)
    fixed = {x.pair: x for x in pairs_ranking(s, ns, ew)}
    sess = {x.pair: x for x in pairs_ranking(s, ns, ew, artificial="session")}
    # pair 1: other boards 2 + 0 of 4 = 50 % < 60 %: keeps 60 % (1.2)
    assert fixed[1].total == sess[1].total == F(6, 5) + 2 + 0
    # pair 2: other boards (E-W v 400: 2, E-W v 420: 0) 50 % > 40 %: keeps 40 % (0.8)
    assert sess[2].total == fixed[2].total == F(4, 5) + 2 + 0
    # reversed: N-S pair 1 strong elsewhere gets its session % for the average-plus
    s2 = matchpoint_session(entries, boards)
    ns2, ew2 = [1, 1, 3, 1, 3], [2, 2, 4, 2, 4]
    by = {x.pair: x for x in pairs_ranking(s2, ns2, ew2, artificial="session")}
    # pair 1: board 8 N-S 420 (2), board 11 N-S 420 (2) -> 100 %; A60 becomes 100 % of 2
    assert by[1].total == 2 + 2 + 2 and by[1].percentage == 100
    # pair 2 (E-W, A40): against the 420s on both other boards -> 0 % < 40 %: gets 0 %
    assert by[2].total == 0 and by[2].maximum == 6
    with pytest.raises(InputError, match=r"needs a SessionMP"):
        pairs_ranking([1], [1], [2], [1], [1], [2], artificial="session")
    with pytest.raises(InputError, match=r"unknown artificial-score rule"):
        pairs_ranking(s, ns, ew, artificial="best")


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40)
@given(st.lists(st.lists(st.sampled_from(SCORES + ["NP", "A60/40"]), min_size=1, max_size=6),
                min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_ranking_equals_competition_ranking_written_out(boards_rows, rnd):
    # each board: tables 0..k-1, N-S pair drawn from 1..4 and E-W from 5..8 without repeats on a board
    entries, boards, ns, ew = [], [], [], []
    for b, rows in zip((1, 2, 3, 1 + 16), boards_rows):
        nsp = rnd.sample(range(1, 7), len(rows))
        ewp = rnd.sample(range(7, 13), len(rows))
        for e, p, q in zip(rows, nsp, ewp):
            entries.append(e)
            boards.append(b)
            ns.append(p)
            ew.append(q)
    s = matchpoint_session(entries, boards)
    got = pairs_ranking(s, ns, ew)
    total, maxi = {}, {}
    for i in range(len(entries)):
        for p, mp in ((ns[i], s.ns[i]), (ew[i], s.ew[i])):
            total.setdefault(p, F(0))
            maxi.setdefault(p, F(0))
            if mp is not None:
                total[p] += mp
                maxi[p] += s.tops[i]
    pct = {p: total[p] * 100 / maxi[p] for p in total if maxi[p]}
    for x in got:
        assert x.total == total[x.pair] and x.maximum == maxi[x.pair]
        if x.pair in pct:
            assert x.percentage == pct[x.pair]
            assert x.rank == 1 + sum(1 for q in pct if pct[q] > pct[x.pair])
            assert x.tied == any(q != x.pair and pct[q] == pct[x.pair] for q in pct)
        else:
            assert x.percentage is None and x.rank is None
    ranked = [x for x in got if x.rank is not None]
    assert [x.percentage for x in ranked] == sorted((x.percentage for x in ranked), reverse=True)
    assert sorted(x.pair for x in got) == sorted(total)
