"""Every scorer reads a score the one way (issue 13 follow-up, review points 2 and 5).

Before: the instant chart had its own reader (OverflowError for 10**300, an int64 wrap-around for
1e300 and 2**63 shown as "impossible score: -9223372036854775808", numpy's repr and the wrong row
for "abc", "420" and Fraction(420) refused while cross_imps read them); check_score("abc") raised
ImpossibleScoreError and check_score("420") refused what parse_entry reads; core imps(19.5) gave
0 where Excel's IMPS(19.5) gives #VALUE!. Legal scores by hand from Law 77 (nobody vulnerable:
+420 4S=, +400 3NT+1, +1430 6H=, -50 one down; no contract gives +410 or +415).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from xlbridge.core.contract import check_score
from xlbridge.core.entries import parse_entry
from xlbridge.core.errors import ImpossibleScoreError, InputError
from xlbridge.core.instant.chart import instant_chart
from xlbridge.core.teams.imps import cross_imps, imps

# the tests below only compare a chart's awards for equal scores written two ways, or its messages
CHART = instant_chart([420, 400], [3, 1], "None")


@pytest.mark.parametrize("value, kind, text", [
    (10**300, ImpossibleScoreError, "item 2: impossible score: 10000000000000000000… (301 characters) "
                                    "(far too large for a bridge score)"),
    (1e300, ImpossibleScoreError, "item 2: impossible score: 1e+300 (far too large for a bridge score)"),
    (2**63, ImpossibleScoreError, "item 2: impossible score: 9223372036854775808 (far too large for a bridge score)"),
    ("abc", InputError, "item 2: cannot read score 'abc' (expected a number like 420 or -50, an artificial "
                        "score like A60/40, or NP)"),
    (True, InputError, "item 2: cannot read score True (a TRUE/FALSE value is not a score)"),
    (410, ImpossibleScoreError, "item 2: impossible score: 410 (no contract and result gives N-S 410 when "
                                "vulnerability is None)"),
    (425.5, ImpossibleScoreError, "item 2: impossible score: 425.5 (not a whole number of points)"),
])
def test_chart_awards_refuse_with_one_clear_line(value, kind, text):
    with pytest.raises(kind) as e:
        CHART.awards([420, value])
    assert type(e.value) is kind and str(e.value) == text


def test_chart_reads_text_and_fractions_as_cross_imps_does():
    assert CHART.awards(["420", Fraction(400), 420.0]).tolist() == CHART.awards([420, 400, 420]).tolist()
    assert cross_imps(["420", Fraction(400), 420.0]).ns == cross_imps([420, 400, 420]).ns
    assert instant_chart(["420", Fraction(400)], [3, 1], "None") == CHART


def test_chart_scores_name_their_row_and_never_wrap_around():
    with pytest.raises(ImpossibleScoreError) as e:
        instant_chart([420, 1e300], [1, 1], "None")
    assert str(e.value) == "row 2: impossible score: 1e+300 (far too large for a bridge score)"
    with pytest.raises(ImpossibleScoreError, match=r"^item 2: impossible score: 9223372036854775808 "):
        CHART.awards(np.array([420, 2**63], dtype=np.uint64))
    with pytest.raises(InputError) as e:
        instant_chart([420, 400, "abc"], [1, 1, 1], "None")
    assert str(e.value).startswith("row 3: cannot read score 'abc' (")
    with pytest.raises(ImpossibleScoreError) as e:
        CHART.awards([[420, 400], [1430, 410]])
    assert str(e.value).startswith("row 2, column 2: impossible score: 410 ")


def test_check_score_reads_as_parse_entry_does():
    assert check_score("420") == 420 == check_score(" +420 ") == check_score(Fraction(420)) == check_score(420.0)
    assert check_score("-50", "None") == -50
    for value in ("abc", True, None, "A+", float("nan")):
        with pytest.raises(InputError) as e:
            check_score(value)
        assert type(e.value) is InputError, value  # not a number: never ImpossibleScoreError
    for value in (410, "410", 425.5, 10**300, Fraction(841, 2)):
        with pytest.raises(ImpossibleScoreError):
            check_score(value)


@given(st.one_of(st.integers(-8000, 8000).map(lambda n: n * 10), st.integers(), st.floats(allow_nan=True),
                 st.text(max_size=8), st.fractions()))
def test_check_score_and_parse_entry_agree(value):
    try:
        got = check_score(value)
    except ImpossibleScoreError:
        got = "impossible"
    except InputError:
        got = "unreadable"
    try:
        entry = parse_entry(value)
        want = entry if type(entry) is int else "unreadable"
    except ImpossibleScoreError:
        want = "impossible"
    except InputError:
        want = "unreadable"
    if isinstance(want, int):  # a readable number: legal or not by Law 77, never unreadable
        assert got == want or got == "impossible"
    else:
        assert got == want


def test_imps_refuses_a_fractional_difference_as_excel_does():
    from xlbridge.udfs import EXCEL_FUNCTIONS as X

    with pytest.raises(InputError, match=r"^a points difference must be a whole number, got 19\.5$"):
        imps(19.5)
    assert X["IMPS"](19.5) == "#VALUE!"
    # Law 78B by hand: 20-40 -> 1, 250 -> 6 (220-260), and text reads as a number in both
    assert imps("-250") == -6 == X["IMPS"]("-250") and imps(Fraction(40)) == 1 == X["IMPS"](40.0)
