"""Form-L handicaps (seed 000): Table 1 cell by cell, the legacy system, merging, new teams.

Expected values come from seed 000's Table 1 (with the Lambs erratum: 79, not 77), hand-worked
examples written out below, and seasons simulated from known strengths (a round robin with VP
margins linear in strength), where the right answer is the strength itself.
"""

from fractions import Fraction
from itertools import combinations
import random

import pytest
from hypothesis import given, strategies as st

from xlbridge.core.errors import InputError
from xlbridge.core.handicap.forml import (
    forml_handicaps,
    forml_new_teams,
    forml_new_teams_vpdiff,
    forml_round,
    forml_vpdiff,
    handicapped_result,
    legacy_handicaps,
)

# Seed 000, Table 1: division, team, Average VPs, Existing handicap, Expected VP diff, Merged VP diff,
# Handicap IMPs (Lambs 79 per ERRATA.md; printed 77).
TABLE1 = [
    (1, "Eroes", "14.0", 0, "0.00", "0.00", 0),
    (1, "Discards", "14.0", 0, "0.00", "0.00", 0),
    (1, "Gambits", "13.4", 12, "1.00", "1.00", 3),
    (1, "Dragons", "10.0", 18, "6.67", "6.67", 18),
    (1, "Diamonds", "5.3", 24, "14.50", "14.50", 40),
    (1, "JCBC", "3.3", 30, "17.83", "17.83", 49),
    (2, "Rabbits", "11.5", 30, "0.00", "10.58", 29),
    (2, "Royals", "10.6", 36, "1.50", "12.08", 33),
    (2, "Cavaliers", "10.1", 42, "2.33", "12.92", 36),
    (2, "Rebels", "10.0", 48, "2.50", "13.08", 36),
    (2, "Clubs", "9.9", 54, "2.67", "13.25", 36),
    (2, "Imps", "7.9", 60, "6.00", "16.58", 46),
    (3, "Donuts", "17.0", 60, "0.00", "13.17", 36),
    (3, "United", "15.3", 66, "2.83", "16.00", 44),
    (3, "Dream", "8.9", 72, "13.50", "26.67", 73),
    (3, "Jokers", "8.3", 78, "14.50", "27.67", 76),
    (3, "Lambs", "7.7", 84, "15.50", "28.67", 79),
    (3, "Pioneers", "2.8", 90, "23.67", "36.83", 101),
]
DIV = [r[0] for r in TABLE1]
AVG = [float(r[2]) for r in TABLE1]


def two_dp(x: Fraction) -> str:
    """Exact half-up rounding of a non-negative Fraction to 2 decimals, as printed in Table 1."""
    cents = (x * 100 + Fraction(1, 2)).__floor__()
    return f"{cents // 100}.{cents % 100:02d}"


def test_table1_expected_vp_differences_cell_by_cell():
    got = forml_vpdiff(DIV, AVG)
    for row, g in zip(TABLE1, got):
        assert two_dp(g) == row[4], row


def test_table1_merged_vp_differences_cell_by_cell():
    got = forml_vpdiff(DIV, AVG, merged=True)
    for row, g in zip(TABLE1, got):
        assert two_dp(g) == row[5], row


def test_table1_handicap_imps_with_lambs_79():
    assert forml_handicaps(DIV, AVG) == [r[6] for r in TABLE1]
    assert forml_handicaps(DIV, AVG)[16] == 79  # Lambs: 2.75 x 473/18 = 78.83 (ERRATA.md)


def test_table1_existing_handicaps_column():
    assert legacy_handicaps(DIV, AVG) == [r[3] for r in TABLE1]


def test_table1_exact_values_written_out():
    # Division 1, N = 6: factor 5/3.  Dragons: (14 - 10) x 5/3 = 20/3.
    # Division 2 top: midway between Diamonds 29/2 and Dragons 20/3 = 127/12.
    # Division 3 top: midway between Clubs 127/12 + 8/3 and Rebels 127/12 + 5/2 = 79/6.
    m = forml_vpdiff(DIV, AVG, merged=True)
    assert m[3] == Fraction(20, 3)
    assert m[6] == Fraction(127, 12)
    assert m[12] == Fraction(79, 6)
    assert m[16] == Fraction(79, 6) + Fraction(93, 10) * Fraction(5, 3)


def test_rows_in_any_order_give_results_in_input_order():
    rng = random.Random(6)
    order = list(range(len(TABLE1)))
    for _ in range(5):
        rng.shuffle(order)
        div = [DIV[i] for i in order]
        avg = [AVG[i] for i in order]
        assert forml_handicaps(div, avg) == [TABLE1[i][6] for i in order]
        assert legacy_handicaps(div, avg) == [TABLE1[i][3] for i in order]


def test_inputs_as_floats_text_fractions_are_read_exactly():
    as_text = [r[2] for r in TABLE1]
    as_frac = [Fraction(r[2]) for r in TABLE1]
    ref = forml_vpdiff(DIV, as_frac, merged=True)
    assert forml_vpdiff(DIV, AVG, merged=True) == ref
    assert forml_vpdiff([float(d) for d in DIV], as_text, merged=True) == ref
    # 13.4 is 67/5 exactly, not the nearest binary double
    assert forml_vpdiff([1, 1], [14.0, 13.4]) == [0, Fraction(3, 5)]


def test_blank_rows_stay_blank():
    div = DIV[:6] + [None, ""] + DIV[6:]
    avg = AVG[:6] + [None, None] + AVG[6:]
    h = forml_handicaps(div, avg)
    assert h[6] is None and h[7] is None
    assert h[:6] + h[8:] == [r[6] for r in TABLE1]
    assert legacy_handicaps(div, avg)[6] is None


def test_overlap_and_imps_per_vp_are_parameters():
    # overlap 1: Div 2's top midway between JCBC 107/6 and Diamonds 29/2 -> 97/6
    m = forml_vpdiff(DIV, AVG, merged=True, overlap=1)
    assert m[6] == Fraction(97, 6)
    # 3 IMPs per VP: Dragons 3 x 20/3 = 20
    assert forml_handicaps(DIV, AVG, imps_per_vp=3)[3] == 20
    assert forml_handicaps(DIV, AVG, imps_per_vp="3")[3] == 20


def test_rounding_of_halves_is_a_named_rule():
    # a 2-team division: factor 2(1)/2 = 1, so the second team's difference is 0.5 VPs
    assert forml_vpdiff([1, 1], [10.5, 10]) == [0, Fraction(1, 2)]
    assert forml_handicaps([1, 1], [10.5, 10], imps_per_vp=1) == [0, 1]  # Excel ROUND: half away
    assert forml_handicaps([1, 1], [10.5, 10], imps_per_vp=1, rounding="half_even") == [0, 0]
    assert forml_handicaps([1, 1], [10.5, 9.5], imps_per_vp=Fraction(5, 4), rounding="half_even") == [0, 1]
    assert forml_round(Fraction(5, 2)) == 3 and forml_round(Fraction(-5, 2)) == -3
    assert forml_round(Fraction(5, 2), "half_even") == 2
    with pytest.raises(InputError, match="rounding"):
        forml_round(1, "up")


def test_ties_at_the_overlap_and_unequal_division_sizes():
    # Division 1 (N = 4, factor 3/2): 12, 10, 10, 8 -> 0, 3, 3, 6; the 2nd- and 3rd-lowest tie at 3.
    # Division 2 (N = 3, factor 4/3): 15, 12, 9 -> 0, 4, 8, placed from 3: 3, 7, 11.
    # Division 3 (N = 2, factor 1): 11, 10 -> 0, 1, placed midway between 7 and 3 = 5: 5, 6.
    div = [1, 1, 1, 1, 2, 2, 2, 3, 3]
    avg = [12, 10, 10, 8, 15, 12, 9, 11, 10]
    assert forml_vpdiff(div, avg, merged=True) == [0, 3, 3, 6, 3, 7, 11, 5, 6]
    # legacy: ties share, the next keeps its rank (1224): 0 6 6 18 | 18 24 30 | 30 36
    assert legacy_handicaps(div, avg) == [0, 6, 6, 18, 18, 24, 30, 30, 36]
    assert legacy_handicaps(div, avg, step=5) == [0, 5, 5, 15, 15, 20, 25, 25, 30]


def test_division_labels_are_chained_in_increasing_order():
    m = forml_vpdiff([3, 1, 1, 1, 3], [10, 12, 10, 8, 12], merged=True)
    # Div 1 (N = 3, factor 4/3): 0, 8/3, 16/3; overlap 2 -> midway between 8/3 and 0 = 4/3;
    # Div "3" (N = 2, factor 1): 12 -> 0, 10 -> 2, shifted by 4/3.
    assert m == [Fraction(10, 3), 0, Fraction(8, 3), Fraction(16, 3), Fraction(4, 3)]


@pytest.mark.parametrize(
    "div, avg, kwargs, match",
    [
        ([1, 1], [10], {}, "same length"),
        ([1, 1], [10, "ten"], {}, "text"),
        ([1, None], [10, 9], {}, "blank"),
        ([1, 1], [10, None], {}, "blank"),
        ([1, 1.5], [10, 9], {}, "whole"),
        ([1, 1], [10, True], {}, "number"),
        ([1, 1], [10, float("nan")], {}, "finite"),
        ([1, 1, 2, 2], [10, 9, 8, 7], {}, "division 1 has 2 team"),
        ([1, 1, 1], [10, 9, 8], {"overlap": 0}, "overlap"),
    ],
)
def test_bad_input_says_what_and_where(div, avg, kwargs, match):
    with pytest.raises(InputError, match=match):
        forml_vpdiff(div, avg, merged=True, **kwargs)


def test_bad_input_names_the_row():
    with pytest.raises(InputError, match="row 2"):
        forml_handicaps([1, 1, 1], [10, "x", 8])


# ---------------------------------------------------------------------------------------------
# simulated seasons: strengths -> round robin with linear VP margins -> Average VPs


def simulate_average_vps(strengths, total=20):
    """Complete round robin: VPs_i = total/2 + (s_i - s_j)/2 in every match; exact averages."""
    n = len(strengths)
    vps = [Fraction(0)] * n
    for i, j in combinations(range(n), 2):
        m = Fraction(strengths[i] - strengths[j])
        vps[i] += Fraction(total, 2) + m / 2
        vps[j] += Fraction(total, 2) - m / 2
    return [v / (n - 1) for v in vps]


division_strengths = st.lists(st.integers(-10, 10), min_size=3, max_size=9)


@given(st.lists(division_strengths, min_size=1, max_size=4), st.integers(1, 2), st.randoms(use_true_random=False))
def test_simulated_season_recovers_strengths_and_handicapped_rerun_is_all_draws(divs, overlap, rnd):
    # Build true strengths consistent with the merge rule: the top of division k+1 sits midway
    # between the overlap-th and (overlap+1)-th weakest of division k.
    strengths = []  # (division, strength) with strength = - (VP deficit to the overall top)
    prev = None
    for k, rel in enumerate(divs, start=1):
        if prev is not None and len(prev) < overlap + 1:
            break
        top = max(rel)
        if prev is None:
            shift = Fraction(0)
        else:
            weakest = sorted(prev)
            shift = (weakest[overlap - 1] + weakest[overlap]) / 2 - top
        cur = [Fraction(r) + shift for r in rel]
        strengths += [(k, s) for s in cur]
        prev = cur
    overall_top = max(s for k, s in strengths if k == 1)
    rows = []
    for k in sorted({k for k, _ in strengths}):
        ss = [s for kk, s in strengths if kk == k]
        rows += list(zip([k] * len(ss), simulate_average_vps(ss), ss))
    rnd.shuffle(rows)
    div = [r[0] for r in rows]
    avg = [r[1] for r in rows]
    merged = forml_vpdiff(div, avg, merged=True, overlap=overlap)
    assert merged == [overall_top - r[2] for r in rows]
    # handicapped re-run of every pairing (IMP margin = 2.75 x VP margin, handicap 2.75 x merged):
    factor = Fraction(11, 4)
    for (a, ra), (b, rb) in combinations(enumerate(rows), 2):
        imps_a = 50 + factor * (ra[2] - rb[2]) / 2
        imps_b = 50 - factor * (ra[2] - rb[2]) / 2
        res = handicapped_result(imps_a, imps_b, factor * merged[a], factor * merged[b])
        assert res.margin == 0 and res.winner is None


# ---------------------------------------------------------------------------------------------
# new teams


NEW = dict(
    teams=["X", "X", "Y"],
    opponents=["A", "Y", "B"],
    vps_for=[8, 13, 10],
    vps_against=[12, 7, 10],
    known_teams=["A", "B"],
    known_vpdiff=[0, 6],
)


def test_new_teams_hand_worked_two_new_teams_that_met():
    # X: lost 8-12 to A (d=0): estimate 0 + 4; beat Y 13-7: estimate d_Y - 6.
    #    2 d_X = 4 + d_Y - 6
    # Y: drew 10-10 with B (d=6): estimate 6; lost 7-13 to X: estimate d_X + 6.
    #    2 d_Y = 6 + d_X + 6
    # => d_X = 8/3, d_Y = 22/3; handicaps 2.75 x 8/3 = 7.33 -> 7, 2.75 x 22/3 = 20.17 -> 20.
    assert forml_new_teams_vpdiff(**NEW) == {"X": Fraction(8, 3), "Y": Fraction(22, 3)}
    assert forml_new_teams(**NEW) == {"X": 7, "Y": 20}
    assert forml_new_teams(**NEW, imps_per_vp=3) == {"X": 8, "Y": 22}


def seed_iteration(matches, known, new, trial, steps):
    """The seed's method: start from a trial solution and repeatedly re-average each new team's
    per-match estimates d_opp - margin, using the current trial for new opponents (Jacobi)."""
    d = dict(trial)
    for _ in range(steps):
        est = {t: [] for t in new}
        for a, b, va, vb in matches:
            for me, opp, m in ((a, b, va - vb), (b, a, vb - va)):
                if me in new:
                    est[me].append((known[opp] if opp in known else d[opp]) - m)
        d = {t: sum(est[t], Fraction(0)) / len(est[t]) for t in new}
    return d


def test_new_team_solution_is_the_fixed_point_of_the_seeds_iteration():
    matches = list(zip(NEW["teams"], NEW["opponents"], NEW["vps_for"], NEW["vps_against"]))
    known = dict(zip(NEW["known_teams"], NEW["known_vpdiff"]))
    sol = forml_new_teams_vpdiff(**NEW)
    # the exact solution is a fixed point: one more iteration returns it unchanged
    assert seed_iteration(matches, known, sol, sol, 1) == sol
    # and the iteration from a trial solution converges to it
    d = seed_iteration(matches, known, sol, {"X": Fraction(0), "Y": Fraction(0)}, 60)
    assert all(abs(d[t] - sol[t]) < Fraction(1, 10**12) for t in sol)


def test_new_teams_without_mutual_matches_average_their_estimates():
    # Z played A (d 0) 15-5 and B (d 6) 9-11: estimates -10 and 8 -> -1 (stronger than the top)
    d = forml_new_teams_vpdiff(["Z", "B"], ["A", "Z"], [15, 11], [5, 9], ["A", "B"], [0, 6])
    assert d == {"Z": Fraction(-1)}
    assert forml_new_teams(["Z", "B"], ["A", "Z"], [15, 11], [5, 9], ["A", "B"], [0, 6]) == {"Z": -3}


def test_new_teams_each_match_listed_from_both_sides_gives_the_same_answer():
    t = NEW["teams"] + NEW["opponents"]
    o = NEW["opponents"] + NEW["teams"]
    f = NEW["vps_for"] + NEW["vps_against"]
    a = NEW["vps_against"] + NEW["vps_for"]
    assert forml_new_teams_vpdiff(t, o, f, a, NEW["known_teams"], NEW["known_vpdiff"]) == {
        "X": Fraction(8, 3), "Y": Fraction(22, 3)}


def test_matches_between_known_teams_and_blank_rows_are_ignored():
    d = forml_new_teams_vpdiff(
        NEW["teams"] + ["A", None], NEW["opponents"] + ["B", None], NEW["vps_for"] + [20, None],
        NEW["vps_against"] + [0, None], [" A ", "B"], [0.0, 6.0])
    assert d == {"X": Fraction(8, 3), "Y": Fraction(22, 3)}


def test_new_teams_that_met_only_each_other_are_refused():
    with pytest.raises(InputError, match="P, Q"):
        forml_new_teams(["X", "P"], ["A", "Q"], [10, 10], [10, 10], ["A"], [0])


@pytest.mark.parametrize(
    "args, match",
    [
        ((["X"], ["A", "B"], [1], [2], ["A"], [0]), "same length"),
        ((["X"], ["X"], [1], [2], ["A"], [0]), "own opponent"),
        ((["X"], ["A"], [1], [None], ["A"], [0]), "incomplete"),
        ((["X"], ["A"], ["ten"], [2], ["A"], [0]), "text"),
        ((["X"], ["A"], [1], [2], ["A", "A"], [0, 1]), "twice"),
    ],
)
def test_new_teams_bad_input(args, match):
    with pytest.raises(InputError, match=match):
        forml_new_teams(*args)


@given(st.lists(st.integers(-12, 12), min_size=2, max_size=6), st.lists(st.integers(-12, 12), min_size=1,
                                                                           max_size=4), st.data())
def test_new_teams_recover_true_strengths_without_noise(known_s, new_s, data):
    # d = VP deficit to the top; a match between i and j ends with margin d_j - d_i exactly.
    known = {f"K{i}": Fraction(s) for i, s in enumerate(known_s)}
    new = {f"N{i}": Fraction(s) for i, s in enumerate(new_s)}
    everyone = {**known, **new}
    rows = []
    for t in new:  # every new team plays at least one known team
        k = data.draw(st.sampled_from(sorted(known)))
        rows.append((t, k))
    pairs = [(a, b) for a, b in combinations(sorted(everyone), 2) if not (a in known and b in known)]
    rows += data.draw(st.lists(st.sampled_from(pairs), max_size=8)) if pairs else []
    teams = [a for a, _ in rows]
    opps = [b for _, b in rows]
    vf = [10 + (everyone[b] - everyone[a]) / 2 for a, b in rows]
    va = [10 - (everyone[b] - everyone[a]) / 2 for a, b in rows]
    got = forml_new_teams_vpdiff(teams, opps, vf, va, list(known), list(known.values()))
    assert got == new


# ---------------------------------------------------------------------------------------------
# handicapped results


def test_handicapped_result_gives_the_difference_to_the_higher_handicap():
    r = handicapped_result(40, 31, 29, 36)  # B has 7 more: 31 + 7 = 38
    assert (r.imps_a, r.imps_b, r.margin, r.winner) == (40, 38, 2, "a")
    r = handicapped_result(31, 40, 36, 29)
    assert (r.imps_a, r.imps_b, r.winner) == (38, 40, "b")
    assert handicapped_result(10, 10, 5, 5).winner is None
    assert handicapped_result(10.5, 3, 0, 7.5).imps_b == Fraction(21, 2)
    assert handicapped_result(1, 2, 3, 4).vp_a is None


def test_handicapped_result_in_vps():
    # WBF 2013 20-VP scale, 7 boards: a 5-IMP margin is 12.18 - 7.82 (published table; seed 004)
    r = handicapped_result(30, 35, 10, 0, boards=7)
    assert r.margin == 5
    assert r.vp_a == Fraction("12.18") and r.vp_b == Fraction("7.82")


def test_handicapped_result_bad_input():
    with pytest.raises(InputError, match="IMPs of team A"):
        handicapped_result("lots", 3, 0, 0)
