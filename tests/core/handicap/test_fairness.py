"""Fairness analysis (seed 000): exact binomial probabilities, bands, win counts, simulated seasons.

Expected values come from seed 000 (the initial study's 19 wins of 56 for the higher-ranking
teams, i.e. 37 of 56 for the higher-handicap team -> about 1 %; 34 of 87 between the 10 % and 1 %
lines; 44/88, 39/80, 83/168, 6/12 near the centre), from brute-force enumeration of coin tosses
written in this file, and from seasons simulated with known strengths.
"""

from fractions import Fraction
from itertools import combinations, product
from math import comb

import numpy as np
import pytest
from hypothesis import given, strategies as st

from xlbridge.analysis.plots import plot_fairness
from xlbridge.core.errors import InputError
from xlbridge.core.handicap.fairness import (
    FAIRNESS_TAILS,
    fairness_band,
    fairness_bands_data,
    fairness_count,
    fairness_in_band,
    fairness_p,
    fairness_p_exact,
    fairness_p_upper,
    fairness_p_upper_exact,
)
from xlbridge.core.handicap.forml import forml_vpdiff


def coin_cdf(wins, n):
    """P(X <= wins) by listing all 2**n sequences of n fair coin tosses (small n only)."""
    hits = sum(1 for seq in product((0, 1), repeat=n) if sum(seq) <= wins)
    return Fraction(hits, 2**n)


def cdf(wins, n):
    return Fraction(sum(comb(n, k) for k in range(wins + 1)), 2**n)


def test_p_equals_enumeration_of_coin_tosses():
    for n in range(0, 11):
        for w in range(n + 1):
            assert fairness_p_exact(w, n) == coin_cdf(w, n)


def test_p_upper_equals_enumeration_of_coin_tosses():
    for n in range(0, 11):
        for w in range(n + 1):
            hits = sum(1 for seq in product((0, 1), repeat=n) if sum(seq) >= w)
            assert fairness_p_upper_exact(w, n) == Fraction(hits, 2**n)


def test_seed_initial_study_37_of_56_for_the_higher_handicap_team():
    # seed 000: "19 wins and 37 losses for the higher-ranking teams": the higher-handicap
    # (lower-ranking) team won 37 of 56; P(X >= 37) = P(X <= 19) = sum C(56, k), k <= 19, / 2**56
    hand = Fraction(sum(comb(56, k) for k in range(20)), 2**56)
    assert fairness_p_upper_exact(37, 56) == hand == fairness_p_exact(19, 56)
    assert round(fairness_p_upper(37, 56), 4) == 0.0111 == round(fairness_p(19, 56), 4)
    # "about 1 %", but not below it: 37 of 56 is just inside the 1 % band
    assert 0.011 < fairness_p_upper(37, 56) < 0.0112
    assert fairness_in_band(37, 56, 0.01) and not fairness_in_band(37, 56, 0.10)
    assert fairness_band(56, 0.01) == (19, 37)
    # the lower tail says nothing unusual here: the higher-handicap team won too OFTEN
    assert fairness_p(37, 56) > 0.99  # 0.9948


def test_seed_34_of_87_outside_the_10_percent_band_inside_the_1_percent_band():
    assert not fairness_in_band(34, 87, 0.10)
    assert fairness_in_band(34, 87, 0.01)
    low10, _ = fairness_band(87, 0.10)
    low1, _ = fairness_band(87, 0.01)
    assert low1 <= 34 < low10


@pytest.mark.parametrize("wins, n", [(44, 88), (39, 80), (83, 168), (6, 12)])
def test_seed_form_l_results_are_near_the_centre(wins, n):
    assert fairness_in_band(wins, n, 0.25)  # inside the central 50 % (the blue lines)
    assert 0.25 < fairness_p(wins, n) < 0.75


def test_band_by_definition_for_small_n():
    for n in range(0, 41):
        for tail in (Fraction(1, 4), Fraction(1, 10), Fraction(1, 100), Fraction(0)):
            low, high = fairness_band(n, tail)
            assert high == n - low
            inside = [w for w in range(n + 1) if cdf(w, n) > tail and 1 - cdf(w - 1, n) > tail]
            assert inside == list(range(low, high + 1))


@given(st.integers(0, 400), st.fractions(min_value=0, max_value=Fraction(49, 100)))
def test_band_excludes_at_most_tail_at_each_end_and_is_the_widest_such(n, tail):
    low, high = fairness_band(n, tail)
    assert cdf(low - 1, n) <= tail if low > 0 else True
    assert cdf(low, n) > tail
    assert (high, low) == (n - low, low)


@given(st.integers(1, 250), st.sampled_from([0.25, 0.10, 0.01, 0.3333, 0.05, 0.0]))
def test_band_table_equals_the_band_function(max_n, tail):
    rows = fairness_bands_data(max_n, (tail,), header=False)
    assert len(rows) == max_n
    for n, row in enumerate(rows, start=1):
        assert row == [n, n / 2, *fairness_band(n, tail)]


def test_band_table_header_and_columns():
    rows = fairness_bands_data(200)
    assert rows[0] == ["Matches", "Expected wins", "25 % tail low", "25 % tail high", "10 % tail low",
                       "10 % tail high", "1 % tail low", "1 % tail high"]
    assert len(rows) == 201
    row87 = rows[87]
    assert row87[0] == 87 and row87[1] == 43.5
    assert row87[6] <= 34 < row87[4]  # 34 outside the 10 % band, inside the 1 % one
    # the 10 % band is inside the 1 % band, the 25 % band inside the 10 % band
    for r in rows[1:]:
        assert r[6] <= r[4] <= r[2] <= r[1] <= r[3] <= r[5] <= r[7]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: fairness_p(5, 4), "between 0 and matches"),
        (lambda: fairness_p(-1, 4), "between 0 and matches"),
        (lambda: fairness_p(1.5, 4), "whole"),
        (lambda: fairness_p("x", 4), "text"),
        (lambda: fairness_band(10, 0.5), "below 0.5"),
        (lambda: fairness_band(-1, 0.1), "0 or more"),
        (lambda: fairness_bands_data(0), "at least 1"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_fairness_count_hand_worked():
    h = {"Top": 0, "Mid": 10, "Low": 30, "Low2": 30}
    # Top-Mid 50-45: Mid +10 -> 55, higher handicap wins
    # Top-Low 60-20: Low +30 -> 50, lower handicap wins
    # Mid-Low 40-45: Low +20 -> 65, higher handicap wins
    # Low-Top 20-50: Low +30 -> 50, handicapped draw: excluded
    # Low-Low2 10-40: equal handicaps: excluded
    # Low2-Mid 0-21: Low2 +20 -> 20, lower handicap wins
    c = fairness_count(
        ["Top", "Top", "Mid", "Low", "Low", None, " Low2"],
        ["Mid", "Low", "Low", "Top", "Low2", None, "Mid"],
        [50, 60, 40, 20, 10, None, 0],
        [45, 20, 45, 50, 40, None, 21],
        h,
    )
    assert (c.wins, c.matches, c.losses, c.draws, c.equal_handicaps) == (2, 4, 2, 1, 1)
    assert c.p == float(cdf(2, 4))  # 11/16
    assert c.p_upper == float(1 - cdf(1, 4))  # 11/16


def test_fairness_count_half_imps_and_reversed_columns():
    # handicaps 0 and 7.5: A 40 - B 33 -> B 40.5, the higher-handicap team wins by half an IMP;
    # the same match with the columns swapped counts the same
    h = {"A": 0, "B": 7.5}
    c = fairness_count(["A", "B"], ["B", "A"], [40, 33], [33, 40], h)
    assert (c.wins, c.matches, c.draws) == (2, 2, 0)


def test_fairness_count_bad_input():
    with pytest.raises(InputError, match="no handicap"):
        fairness_count(["A"], ["Z"], [1], [2], {"A": 0})
    with pytest.raises(InputError, match="row 2"):
        fairness_count(["A", "A"], ["B", "B"], [1, None], [2, 3], {"A": 0, "B": 3})
    with pytest.raises(InputError, match="same length"):
        fairness_count(["A"], ["B", "B"], [1], [2], {"A": 0, "B": 3})
    with pytest.raises(InputError, match="twice"):
        fairness_count(["A"], ["B"], [1], [2], {"A": 0, "A ": 1, "B": 3})


# ---------------------------------------------------------------------------------------------
# simulated seasons


def round_robin_average_vps(strengths):
    n = len(strengths)
    vps = [Fraction(0)] * n
    for i, j in combinations(range(n), 2):
        m = Fraction(strengths[i] - strengths[j])
        vps[i] += 10 + m / 2
        vps[j] += 10 - m / 2
    return [v / (n - 1) for v in vps]


def simulate(seasons, handicap_scale, seed):
    """Seasons of 3 divisions x 6 teams. Handicaps (IMPs) = scale x 2.75 x Form-L Merged VP
    difference from a noiseless previous season; this season's IMP margin of a match is
    2.75 x strength difference + symmetric noise. Returns the summed (wins, matches) and the
    per-season counts."""
    rng = np.random.default_rng(seed)
    factor = Fraction(11, 4)
    total_w = total_n = 0
    per_season = []
    for _ in range(seasons):
        div, strength, names = [], [], []
        for d in (1, 2, 3):
            s = rng.integers(-8, 9, size=6) - 6 * d
            for i, v in enumerate(s):
                div.append(d)
                strength.append(int(v))
                names.append(f"{d}-{i}")
        avg = []
        for d in (1, 2, 3):
            avg += round_robin_average_vps([s for s, dd in zip(strength, div) if dd == d])
        merged = forml_vpdiff(div, avg, merged=True)
        handicaps = {t: handicap_scale * factor * m for t, m in zip(names, merged)}
        ta, tb, ia, ib = [], [], [], []
        for d in (1, 2, 3):
            members = [i for i in range(len(div)) if div[i] == d]
            for i, j in combinations(members, 2):
                noise = int(rng.integers(-25, 26))
                margin = factor * (strength[i] - strength[j]) + noise
                ta.append(names[i])
                tb.append(names[j])
                ia.append(60 + margin / 2)
                ib.append(60 - margin / 2)
        c = fairness_count(ta, tb, ia, ib, handicaps)
        per_season.append((c.wins, c.matches))
        total_w += c.wins
        total_n += c.matches
    return total_w, total_n, per_season


def test_no_noise_fair_handicaps_make_every_match_a_draw():
    rng = np.random.default_rng(7)
    strengths = [int(v) for v in rng.integers(-10, 11, size=8)]
    names = [f"T{i}" for i in range(8)]
    merged = forml_vpdiff([1] * 8, round_robin_average_vps(strengths), merged=True)
    handicaps = {t: Fraction(11, 4) * m for t, m in zip(names, merged)}
    ta, tb, ia, ib = [], [], [], []
    for i, j in combinations(range(8), 2):
        margin = Fraction(11, 4) * (strengths[i] - strengths[j])
        ta.append(names[i])
        tb.append(names[j])
        ia.append(50 + margin / 2)
        ib.append(50 - margin / 2)
    c = fairness_count(ta, tb, ia, ib, handicaps)
    equal = sum(1 for i, j in combinations(range(8), 2) if strengths[i] == strengths[j])
    assert (c.wins, c.matches, c.equal_handicaps, c.draws) == (0, 0, equal, 28 - equal)


def test_with_noise_fair_handicaps_give_binomial_win_counts():
    w, n, per_season = simulate(200, 1, seed=2026)
    assert n > 200 * 40  # few matches lost to equal handicaps and draws
    p_low, p_high = fairness_p(w, n), 1 - fairness_p(w - 1, n)
    assert p_low > 0.001 and p_high > 0.001  # pooled count consistent with Binomial(n, 1/2)
    # per season: about 10 % (at most, the distribution is discrete) fall below the 10 % band
    below = sum(1 for ws, ns in per_season if fairness_p(ws, ns) <= 0.10)
    above = sum(1 for ws, ns in per_season if 1 - fairness_p(ws - 1, ns) <= 0.10)
    assert 4 <= below <= 32 and 4 <= above <= 32


def test_with_noise_halved_handicaps_are_detected_as_unfair():
    # the same test must fail for a biased system: handicaps at half their fair size favour
    # the stronger (lower-handicap) teams, so the higher-handicap team wins too rarely
    w, n, _ = simulate(60, Fraction(1, 2), seed=2026)
    assert fairness_p(w, n) < 1e-6


def test_plot_fairness_writes_a_png(tmp_path):
    from xlbridge.core.handicap.fairness import FairnessCount

    path = tmp_path / "fairness.png"
    out = plot_fairness([(37, 56, "handicap matches to 2013-14 (higher-ranking team won 19)"), (34, 87),
                         FairnessCount(44, 88, 0, 2)], path)
    assert out == path
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(InputError):
        plot_fairness([(90, 87)], tmp_path / "bad.png")


def test_seed_tails_are_the_default():
    assert FAIRNESS_TAILS == (0.25, 0.10, 0.01)


def test_huge_match_counts_are_refused_not_computed_for_minutes():
    from xlbridge.core.handicap.fairness import FAIRNESS_MAX_MATCHES

    with pytest.raises(InputError, match="more than the 100,000 matches"):
        fairness_band(FAIRNESS_MAX_MATCHES + 1, 0.1)
    with pytest.raises(InputError, match="matches 250000"):
        fairness_p(100_000, 250_000)
    # the limit itself is computed; a small count checked by counting sequences
    assert fairness_band(20, Fraction(1, 10)) == (
        min(k for k in range(21) if Fraction(sum(comb(20, j) for j in range(k + 1)), 2 ** 20) > Fraction(1, 10)),
        20 - min(k for k in range(21) if Fraction(sum(comb(20, j) for j in range(k + 1)), 2 ** 20) > Fraction(1, 10)),
    )
