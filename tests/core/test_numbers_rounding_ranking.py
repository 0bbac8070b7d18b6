"""One rule in one place: exact number reading (bounded), the rounding registry, the one tie order.

Expected values are worked by hand here (decimal arithmetic, the rounding rules' definitions)
or by brute force written in the test.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from xlbridge.core.errors import ImpossibleScoreError, InputError, LimitError, shown
from xlbridge.core.numbers import MAX_DIGITS, MAX_EXPONENT, exact, number_text, whole
from xlbridge.core.ranking import competition_ranking
from xlbridge.core.rounding import ROUNDING_ALIASES, ROUNDING_RULES, round_display, round_fraction, round_quotients, \
    rounding_rule

# --------------------------------------------------------------------------------------------
# exact reading


@pytest.mark.parametrize("text, value", [
    ("420", F(420)), ("-2.75", F(-11, 4)), (" +7 ", F(7)), ("1.5e3", F(1500)), ("1E-2", F(1, 100)),
    ("3/5", F(3, 5)), (".5", F(1, 2)), ("5.", F(5)), ("-0", F(0)),
])
def test_number_text_reads_decimals_and_ratios_exactly(text, value):
    assert number_text(text) == value


@pytest.mark.parametrize("text", ["", ".", "e5", "1e", "four", "1/0", "1,5", "--1", "0x10", "nan", "inf"])
def test_number_text_refuses_what_is_no_number(text):
    assert number_text(text) is None


@pytest.mark.parametrize("text, why", [
    ("1e99999999", "exponent beyond 400"), ("1e-401", "exponent beyond 400"),
    ("9" * (MAX_DIGITS + 1), f"more than {MAX_DIGITS} digits"), ("1" * 5000, "longer than 200 characters"),
    ("1/" + "3" * 200, "longer than 200 characters"),
])
def test_huge_text_is_refused_at_once_with_one_clipped_line(text, why):
    with pytest.raises(LimitError, match=why) as exc:
        exact(text, "margin")
    msg = str(exc.value)
    assert "\n" not in msg and len(msg) < 200 and (len(text) < 40 or f"({len(text):,} characters)" in msg)
    assert number_text(f"1e{MAX_EXPONENT}") == 10 ** MAX_EXPONENT    # the bound itself is read


def test_floats_are_read_through_their_decimal_text():
    assert exact(13.4) == F(67, 5) and exact(0.1) + exact(0.2) == exact(0.3)
    assert exact(1e308) == 10 ** 308
    for bad in (float("nan"), float("inf"), None, True, "x", [1]):
        with pytest.raises(InputError):
            exact(bad)


def test_whole_numbers_and_ranges():
    assert whole("12") == 12 and whole(7.0) == 7 and whole(F(6, 2)) == 3
    with pytest.raises(InputError, match=r"^boards must be a whole number from 1 to 1,000, got 0$"):
        whole(0, "boards", minimum=1, maximum=1000)
    with pytest.raises(InputError, match="must be a whole number, got text 'six'"):
        whole("six")


def test_messages_show_values_clipped():
    assert shown("NP") == "'NP'" and shown(410) == "410"
    assert shown("x" * 1000) == "'xxxxxxxxxxxxxxxxxxxx…' (1,000 characters)"
    e = ImpossibleScoreError("impossible score\nsecond line", where="row\n2")
    assert "\n" not in str(e) and isinstance(e, InputError)


@given(st.fractions(min_value=-10 ** 6, max_value=10 ** 6, max_denominator=10 ** 6))
def test_decimal_text_round_trips(x):
    text = str(Decimal(x.numerator) / Decimal(x.denominator))[:40]
    assert number_text(text) == F(Decimal(text))


# --------------------------------------------------------------------------------------------
# the rounding registry: one meaning per name


HALVES = [F(5, 2), F(-5, 2), F(7, 2), F(-7, 2), F(1, 2), F(-1, 2)]


@pytest.mark.parametrize("rule, expected", [
    ("half_up", [3, -2, 4, -3, 1, 0]),       # towards +infinity
    ("half_down", [2, -3, 3, -4, 0, -1]),    # towards -infinity
    ("half_away", [3, -3, 4, -4, 1, -1]),    # away from zero (Excel's ROUND)
    ("half_even", [2, -2, 4, -4, 0, 0]),     # to the even neighbour
    ("truncate", [2, -2, 3, -3, 0, 0]),      # towards zero
])
def test_each_rule_means_one_thing_everywhere(rule, expected):
    assert [round_fraction(x, rule) for x in HALVES] == expected
    # the vectorised form agrees (Butler datums, instant awards)
    assert round_quotients([x.numerator for x in HALVES], [x.denominator for x in HALVES], rule).tolist() == expected
    # and so does display rounding, at any number of places
    assert [round_display(x / 100, rule, 2) for x in HALVES] == [Decimal(v) / 100 for v in expected]


def test_names_are_case_insensitive_and_every_alias_is_listed():
    assert rounding_rule("HALF_EVEN") is rounding_rule("even") is ROUNDING_RULES["half_even"]
    assert ROUNDING_ALIASES["nearest"] == "half_away" and ROUNDING_ALIASES["away"] == "half_away"
    for alias, name in ROUNDING_ALIASES.items():
        assert rounding_rule(alias.upper()).name == name
    with pytest.raises(InputError, match="unknown rounding rule 'bankers'"):
        rounding_rule("bankers")
    with pytest.raises(InputError, match="expected one of half_even, half_away"):
        rounding_rule("truncate", ("half_even", "half_away"))


def test_organisation_rules_are_named_after_their_bodies():
    assert ROUNDING_RULES["ACBL"].body == "ACBL" and ROUNDING_RULES["ACBL"].tie == "away"
    assert ROUNDING_RULES["EBU"].body == "EBU" and ROUNDING_RULES["EBU"].tie == "even"
    assert round_display(F(-1, 200), "acbl") == Decimal("-0.01") and round_display(F(1, 200), "ebu") == Decimal("0.00")


@given(st.integers(-10 ** 9, 10 ** 9), st.integers(1, 10 ** 6), st.sampled_from(list(ROUNDING_RULES)[:5]))
def test_rounding_is_within_half_a_unit(num, den, rule):
    q = round_fraction(F(num, den), rule)
    assert q.denominator == 1 and abs(q - F(num, den)) <= (1 if rule == "truncate" else F(1, 2))
    assert round_quotients([num], [den], rule).tolist() == [int(q)]


# --------------------------------------------------------------------------------------------
# the one tie order


def brute_ranks(values):
    """Competition ranking by hand: 1 + the number of strictly better values; order: best value,
    then input order."""
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    return [(i, 1 + sum(v > values[i] for v in values), values.count(values[i]) > 1) for i in order]


@given(st.lists(st.fractions(min_value=0, max_value=10, max_denominator=4), max_size=30))
def test_competition_ranking_equals_brute_force(values):
    assert [(p.index, p.rank, p.tied) for p in competition_ranking(values)] == brute_ranks(values)


def test_ties_keep_first_appearance_in_every_ranking():
    from xlbridge import instant_chart, instant_ranking, legacy_handicaps, matchpoint_session, pairs_ranking

    # pairs: 5 and 6 tie (3 MP each); 5 appears before 6
    s = matchpoint_session([420, 400, 400], boards=[1, 1, 1])
    assert [p.pair for p in pairs_ranking(s, [1, 2, 3], [4, 5, 6])][1:3] == [5, 6]
    # instant fields: "B" (first) before "A" though "A" < "B" as text (it used to sort by name)
    c = instant_chart([420, 400], [3, 1], "None")
    field = instant_ranking([(1, "B", "X", 420), (1, "A", "Y", 420)], {1: c}).ns
    assert [(p.rank, p.pair, p.tied) for p in field] == [(1, "B", True), (1, "A", True)]
    # legacy handicaps: equal Average VPs share a step, the next team keeps its rank (1224)
    assert legacy_handicaps([1] * 4, [12.0, 14.0, 12.0, 10.0]) == [6, 0, 6, 18]
